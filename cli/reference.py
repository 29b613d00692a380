"""``playtest rules``, ``bots`` and ``columns``: a game's vocabulary, from its registered definition."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.table import Table

from cli.common import FORMATS, fail, game_named, plain, render
from cli.play import GameArg
from sim.bots import BOT_KINDS
from sim.kit.bots import SEARCH_FIELDS, SearchParams, preset_notes
from sim.kit.learned import shipped_models
from sim.params import RuleError, allowed, fields

ListFormatOpt = Annotated[str, typer.Option("--format", help="table, csv, json or markdown")]


def _show(title: str, columns: list[str], rows: list[tuple], fmt: str) -> None:
    """A reference list: a left-aligned table whose names and values are never cut (text columns wrap),
    or csv/json/markdown like a query's answer."""
    if fmt not in FORMATS:
        fail(f"--format {fmt!r} is not available; expected one of {', '.join(FORMATS)}")
    if fmt != "table":
        typer.echo(render(title, columns, rows, fmt))
        return
    width = _width()
    cells = [["" if v is None else str(v) for v in r] for r in rows]
    fixed = sum(max([len(columns[i])] + [len(r[i]) for r in cells]) + 3 for i in range(len(columns) - 1))
    if width - fixed < MEANING_MIN:      # a narrow terminal: one block per entry, its meaning wrapped below it
        _show_blocks(title, columns, cells, width)
        return
    table = Table(title=plain(title), title_justify="left", show_lines=False)
    for i, c in enumerate(columns):
        last = i == len(columns) - 1
        table.add_column(plain(c), overflow="fold", no_wrap=not last, ratio=1 if last else None)
    for r in cells:
        table.add_row(*map(plain, r))
    Console(width=width, highlight=False, soft_wrap=False).print(table)


MEANING_MIN = 40            # characters the meaning column needs to be read as a table


def _width() -> int:
    """The terminal's width (``COLUMNS`` when set), 160 when the output is not a terminal."""
    if os.environ.get("COLUMNS", "").isdigit():
        return max(40, int(os.environ["COLUMNS"]))
    return shutil.get_terminal_size().columns if sys.stdout.isatty() else 160


def _show_blocks(title: str, columns: list[str], cells: list[list[str]], width: int) -> None:
    """The list for a narrow terminal: per entry, ``name  column: value; ...`` then its meaning, indented and
    wrapped to ``width``; no value is cut."""
    import textwrap
    typer.echo(title)
    for r in cells:
        typer.echo("")
        head = "; ".join(f"{c}: {v}" for c, v in zip(columns[1:-1], r[1:-1]) if v)
        typer.echo(textwrap.fill(f"{r[0]}  ({head})" if head else r[0], width, subsequent_indent="    ",
                                 break_long_words=False, break_on_hyphens=False))
        typer.echo(textwrap.fill(r[-1], width, initial_indent="    ", subsequent_indent="    ",
                                 break_long_words=False))


def rules(game: GameArg,
          preset: Annotated[Optional[str], typer.Option(help="also show this preset's value of each parameter")]
          = None, fmt: ListFormatOpt = "table") -> None:
    """List every rule parameter: default, a preset's value, allowed values, rulebook section and meaning."""
    g = game_named(game)
    if preset is not None and preset not in g.rule_presets:
        fail(f"--preset {preset!r} is not a {game} preset; expected one of {', '.join(g.rule_presets)}")
    base = g.rule_presets[g.default_preset]
    columns = ["parameter", f"default ({g.default_preset})"] + ([preset] if preset else []) + \
        ["allowed", "section", "meaning"]
    rows = []
    for f in fields(base):
        row = [f.name, getattr(base, f.name)]
        if preset:
            row.append(getattr(g.rule_presets[preset], f.name))
        rows.append(tuple(row + [allowed(f), f.metadata["cite"], f.metadata["help"]]))
    _show(f"{g.title}: rule parameters (--set name=value, or a sweep's [overrides]/[grid])", columns, rows, fmt)


def bots(game: GameArg, fmt: ListFormatOpt = "table") -> None:
    """List the bot kinds, the heuristic bot's weights and the search bots' parameters with their defaults."""
    g = game_named(game)
    rows = [("random", "", "", "", "picks uniformly among the legal options at every decision")]
    rows += [("heuristic", "", "", "", "scores every option by fixed weights (below); "
              "heuristic:NAME=VALUE:... changes them")]
    later = "" if g.search_bots else "; not in this game's core yet"
    rows += [("mcts", "", "", "", "information-set Monte Carlo tree search over the top-level decisions, core only "
              f"(docs/search-bots.md){later}"),
             ("flat", "", "", "", f"flat Monte Carlo: every option tried by rollouts, best mean wins, core only{later}")]
    rows += [("learned", "", "", "a model" if g.features is not None else "",
              "a fast policy learned from search (learned:model=NAME; docs/learned-bots.md), core only"
              + ("" if g.features is not None else "; not in this game yet"))]
    assert [r[0] for r in rows] == list(BOT_KINDS)
    rows += [(f"heuristic:{f.name}", "weight", getattr(g.bot_weights(), f.name), allowed(f), f.metadata["help"])
             for f in fields(g.bot_weights)]
    if g.bot_presets_path is not None:
        rows += [(f"heuristic:preset={name}", "weights", "", "", about or "a named weight set")
                 for name, about in preset_notes(Path(g.bot_presets_path)).items()]
    for name in shipped_models(g.models_dir):
        rows.append((f"learned:model={name}", "model", "", "", model_note(g, name)))
    params = {f.name: f for f in fields(SearchParams)}
    for kind, names in SEARCH_FIELDS.items():
        for name in names:
            if name == "preset":
                rows.append((f"{kind}:preset", "search", "default", "a weight preset",
                             "the heuristic weights of its rollouts and of the decisions it does not search"))
                continue
            if name == "model":
                rows.append((f"{kind}:model", "search", "none", "a learned model",
                             "its rollouts, its prior and its evaluation at the depth cap by the model"))
                continue
            f = params[name]
            shown = (f"a number from {f.metadata['min']} to {f.metadata['max']}" if name == "c" else allowed(f))
            rows.append((f"{kind}:{name}", "search", getattr(SearchParams(), name), shown, f.metadata["help"]))
    _show(f"{g.title}: bots (--bots, one spec per seat, comma separated)",
          ["bot", "kind", "default", "allowed", "meaning"], rows, fmt)


def model_note(g, name: str) -> str:
    """A shipped model in a line: its digest, how it was trained and its last ladder result."""
    from sim.kit.learned import model_path, read_model
    try:
        m = read_model(model_path(g.models_dir, name), g.features)
    except RuleError as e:
        return f"cannot be read: {e}"
    its = m.provenance.get("iterations") or [{}]
    improved = m.provenance.get("improvement") or {}
    rung = improved.get("ladder") or its[-1].get("ladder", {})
    trained = m.provenance.get("spec", {})
    kind = f"a network of {m.hidden} units" if m.hidden else "linear"
    if m.decisions:
        kind += f", a decisions block: {', '.join(k for k, _ in m.decisions)}"
    text = f"@{m.digest} ({kind}): trained by {trained.get('search', '?')} self-play, {len(its)} iterations"
    if improved:
        text += f", then {improved.get('generations', '?')} generations of policy improvement"
    decided = m.provenance.get("decisions_training") or {}
    if decided:
        text += f", then its decisions block {len(decided.get('rows') or [])} generations from {decided.get('from', '?')}"
        rung = decided.get("ladder") or rung
    if rung:
        text += (f"; against the heuristic {100 * rung['edge']:+.1f} points over the fair share "
                 f"({100 * rung['edge_95'][0]:+.1f} to {100 * rung['edge_95'][1]:+.1f}, 95%, {rung['games']:,} games)")
    from sim.kit.learned import indexed_model
    for role, words in (("strongest", "what `learned` alone plays"), ("oracle", "the default oracle")):
        try:
            if indexed_model(g.models_dir, role, "bots") == name:
                text += f"; {words} (models/index.toml)"
        except RuleError:
            pass
    return text


def columns(game: GameArg, table: Annotated[str, typer.Option(help="the result table")] = "games",
            fmt: ListFormatOpt = "table") -> None:
    """List the record's columns with their type and meaning (for SQL over results)."""
    g = game_named(game)
    if table not in g.schemas:
        fail(f"--table {table!r} is not a {game} result table; expected one of {', '.join(g.schemas)}")
    meanings = g.column_meanings(table)
    rows = [(col.name, str(col.type), meanings[col.name]) for col in g.schemas[table]]
    _show(f"{g.title}: columns of the {table} table", ["column", "type", "meaning"], rows, fmt)
    if fmt == "table":
        typer.echo(g.columns_note())


COMMANDS = {"rules": rules, "bots": bots, "columns": columns}
