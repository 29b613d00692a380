"""The ladder job kind: ``playtest ladder GAME --out RESULTS --bots ... --games ... --players ... --rules ... --set ...
--setup ... --seed ...`` from a form. The options are checked as the command checks them, by the same functions
(cluster/ladder.py for the field and the setup, sim.params for ``name=value``), in one line and before anything is
stored; its cost is line-ups x games. Its steps (service/steps.py): the ladder (a sweep like any other, planned by
cluster/ladder.py and rated by queries/ladder_report.py as the command does: its results folder is the job's, so the
SQL console reads it), then the ladder page, drawn by :func:`write_page` into OWN/ladder.html from
RESULTS/ladder.json: the ratings with their 95% intervals and the win matrix, self-contained (no script, nothing
fetched), every name escaped. The catalog's verdict is the top-rated bot."""

from __future__ import annotations

import html
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from cluster.spec import MAX_GAMES_PER_CELL, SpecError
from service import kinds
from service.kinds import Checked, Context, Field, Kind, Step, text_of

PAGE = "ladder.html"
MAX_SEED = 2**64 - 1                    # master seeds are unsigned 64-bit, as the command's --seed
MAX_PLAYERS = 64


def _int(inputs: dict[str, Any], name: str, low: int, high: int, default: int | None) -> int | None:
    text = text_of(inputs, name, 30, label=name)
    if not text:
        return default
    try:
        value = int(text)
    except ValueError:
        raise SpecError(f"--{name} {text!r}: expected an integer from {low} to {high}") from None
    if not low <= value <= high:
        raise SpecError(f"--{name} {value} is out of range; expected an integer from {low} to {high}")
    return value


def _assignments(inputs: dict[str, Any], name: str) -> list[str]:
    """``name=value`` items separated by spaces or new lines (the command's repeatable --set, --setup)."""
    return text_of(inputs, name, 1000, label=name).split()


def _check(inputs: dict[str, Any], ctx: Context) -> Checked:
    from cluster.ladder import ENGINE, LadderError, check, seconds_per_game
    from sim.games import GAMES
    from sim.params import RuleError, parse_assignments
    game = text_of(inputs, "game", 40, label="game")
    if game not in GAMES.names():
        raise SpecError(f"game {game[:40]!r}: expected one of {', '.join(GAMES.names())}")
    g = GAMES[game]
    bots = text_of(inputs, "bots", 2000, label="bots")
    if not bots:
        raise SpecError("--bots: give the field, bot specs separated by commas, e.g. random,heuristic")
    games = _int(inputs, "games", 1, MAX_GAMES_PER_CELL, 1000)
    seed = _int(inputs, "seed", 0, MAX_SEED, 1)
    players = _int(inputs, "players", 2, MAX_PLAYERS, None)
    rules = text_of(inputs, "rules", 100, label="rules") or None
    sets, setups = _assignments(inputs, "set"), _assignments(inputs, "setup")
    try:
        overrides = parse_assignments(sets, where="--set")
        given_setup = parse_assignments(setups, where="--setup")
        field, shared, seats, line = check(g, bots, rules, overrides, given_setup, players)
    except (LadderError, RuleError) as e:
        raise SpecError(str(e)) from None
    total = len(line) * games
    if total > ctx.max_games:
        raise SpecError(f"--games {games:,}: {len(line):,} line-ups x {games:,} games = {total:,} games; this service "
                        f"plays at most {ctx.max_games:,} in one job")
    params = {"game": game, "bots": ",".join(b.strip() for b in bots.split(",")), "games": games, "seed": seed,
              "players": players, "rules": rules, "set": sets, "setup": setups, "field": field}
    per_game = kinds.piloted(lambda: seconds_per_game(g, rules, overrides, shared, field, seed, ENGINE))
    seconds = None if per_game is None else \
        games * sum(sum(per_game[b] for b in lu) / len(lu) for lu in line) / max(1, ctx.workers)
    return Checked(kind="ladder", name=f"ladder {game}: {', '.join(field)}"[:200], game=game, cells=len(line),
                   games=total, text=shlex.join(["playtest", "ladder", *_options(params)]), params=params,
                   rule_set=rules or "", seconds=seconds)


def _options(p: dict) -> list[str]:
    words = [p["game"], "--bots", p["bots"], "--games", str(p["games"]), "--seed", str(p["seed"])]
    words += ["--rules", p["rules"]] if p.get("rules") else []
    for item in p.get("set") or []:
        words += ["--set", item]
    for item in p.get("setup") or []:
        words += ["--setup", item]
    words += ["--players", str(p["players"])] if p.get("players") else []
    return words


def _steps(row: dict, paths: dict[str, Path], opts) -> list[Step]:
    return [Step("ladder", (*_options(row["params"]), "--out", str(paths["out"]), *opts.args())),
            Step("ladder-page", (str(paths["out"]), str(paths["own"])), label="ladder page")]


def _finish(row: dict, paths: dict[str, Path]) -> dict:
    report = json.loads((paths["out"] / "ladder.json").read_text(encoding="utf-8"))
    rated = sorted(report.get("ratings", []), key=lambda r: -r["elo"])
    return {"verdict": str(rated[0]["bot"])[:100]} if rated else {}


# the page ----------------------------------------------------------------------------------------------------

CSS = """body{font:14px/1.45 system-ui,sans-serif;margin:1.2em;color:#222}table{border-collapse:collapse;margin:.6em 0}
td,th{border:1px solid #ccc;padding:.3em .5em;text-align:right}td:first-child,th:first-child{text-align:left}
.note{color:#555}.bar{display:inline-block;background:#1565c0;height:10px}"""


def page(report: dict) -> str:
    """The ladder's ratings (Elo with the 95% interval) and win matrix as one self-contained page."""
    e = lambda x: html.escape("" if x is None else str(x), quote=True)  # noqa: E731
    bots = report.get("bots", [])
    rated = report.get("ratings", [])
    rows = "".join(f"<tr><td>{e(r['bot'])}</td><td>{round(r['elo'])}</td><td>{round(r['ci95_low'])}</td>"
                   f"<td>{round(r['ci95_high'])}</td><td>{r['games']:,}</td></tr>" for r in rated)
    pair = {(m["bot"], m["opponent"]): m for m in report.get("win_matrix", [])}
    matrix = "".join(
        f"<tr><th>{e(a)}</th>" + "".join(
            "<td></td>" if (a, b) not in pair else
            f"<td title='{pair[a, b]['games']:,} games'>{pair[a, b]['share']:.3f} "
            f"[{pair[a, b]['ci95_low']:.3f}, {pair[a, b]['ci95_high']:.3f}]</td>" for b in bots) + "</tr>"
        for a in bots)
    says = [report.get("fit", {}).get("says", "")] + list(report.get("intransitivity", {}).get("says", []))
    method = report.get("method", {})
    title = f"Ladder: {report.get('game', '')}, {report.get('games', 0):,} games"
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{e(title)}</title>"
            f"<style>{CSS}</style></head><body><h1>{e(title)}</h1>"
            f"<p class='note'>{e(report.get('note', ''))}; {e(report.get('lineups', ''))}, "
            f"{report.get('games_per_lineup', 0):,} games per line-up, seed {e(report.get('seed'))}; anchor "
            f"{e(report.get('anchor'))} = 0 Elo.</p>"
            "<h2>Ratings</h2><table id='ratings'><tr><th>bot</th><th>Elo</th><th>95% low</th><th>95% high</th>"
            f"<th>games</th></tr>{rows}</table><p class='note'>{e(method.get('intervals', ''))}</p>"
            "<h2>Win matrix</h2><p class='note'>" + e(method.get("win_matrix", "")) + "</p>"
            "<table id='matrix'><tr><th>bot \\ against</th>" + "".join(f"<th>{e(b)}</th>" for b in bots)
            + f"</tr>{matrix}</table><h2>What it says</h2><ul>"
            + "".join(f"<li>{e(s)}</li>" for s in says if s) + "</ul></body></html>")


def write_page(results: Path, own: Path) -> int:
    """The ladder page step: OWN/ladder.html from RESULTS/ladder.json; an error is one line, exit 2."""
    from sim.files import write_atomic
    try:
        report = json.loads((results / "ladder.json").read_text(encoding="utf-8"))
        write_atomic(own / PAGE, page(report))
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"error: the ladder's page could not be drawn ({type(e).__name__}: {' '.join(str(e).split())[:200]})",
              file=sys.stderr)
        return 2
    return 0


def _game_names() -> tuple[str, ...]:
    from sim.games import GAMES
    return tuple(GAMES.names())


kinds.register(Kind(
    name="ladder", title="a ladder",
    about="Rate bots against each other: a round robin in every seat order, played as a sweep, then Bradley-Terry "
          "ratings (Elo scale) with 95% intervals and the win matrix (playtest ladder). Cost: line-ups x games.",
    fields=(Field("game", "Game", "select", options=_game_names(), default=_game_names()[0]),
            Field("bots", "Bots: the field, bot specs separated by commas, weakest first (the first is the anchor)",
                  default="random,heuristic"),
            Field("games", "Games per line-up (each pairing in each seat order)", "number", default="1000"),
            Field("players", "Seats per game (empty: 2, heads-up)", "number"),
            Field("seed", "Master seed", "number", default="1"),
            Field("rules", "Rule set preset (empty: the game's)"),
            Field("set", "Rule overrides name=value, separated by spaces"),
            Field("setup", "Setup values name=value every line-up shares, separated by spaces (e.g. board=explorer)")),
    check=_check, steps=_steps, finish=_finish, pages=(("ladder", PAGE, "Open the ladder"),)))
