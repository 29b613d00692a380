"""``playtest card-worth``: what each card is worth, by ablations played as a sweep (docs/card-worth.md)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import (MAX_SEED, MAX_WORKERS, AddressOpt, RulesOpt, SeatBotsOpt, SeatsOpt, SetOpt, SetupOpt,
                        WorkersOpt, check_output_file, check_range, fail, fit_table, game_named, local_out,
                        measure_match, seat_options)
from cli.sweep import play_measure
from measures.card_worth.sweep import DECKS, STEM, cards_of, sentences, sweep_raw, variant_files
from measures.protocol import points
from queries.errors import QueryError, ResultsError
from sim.games import EngineError
from sim.params import RuleError

SPEC_STEM = STEM                  # DIR/card-worth.toml: the sweep spec; DIR/card-worth.json: the answer


def _pts(x) -> str:
    return "" if x is None else points(x)


def card_worth_command(
        ctx: typer.Context, game: Annotated[str, typer.Argument(help="the game")],
        out: Annotated[Optional[str], typer.Option(
            help="the sweep's results folder (new or empty; with --resume, this measure's own)")] = None,
        resume: Annotated[bool, typer.Option(help="finish the sweep in --out (after Ctrl-C, a crash or damage: its "
                                                  "parts are verified first)")] = False,
        from_: Annotated[Optional[Path], typer.Option(
            "--from", help="answer from this folder's sweep without playing (any sweep laid out as card worth)")] = None,
        deck: Annotated[Optional[str], typer.Option(help="only this deck: paws items or monsters; tales equipment or "
                                                         "creatures (default: every deck)")] = None,
        cards: Annotated[Optional[str], typer.Option(help="only these cards, by name, separated by commas")] = None,
        bots: SeatBotsOpt = "heuristic", players: SeatsOpt = 4, rules: RulesOpt = None, set_: SetOpt = None,
        setup: SetupOpt = None,
        data: Annotated[Optional[list[str]], typer.Option(help="a card file KEY=FILE, e.g. items=my_items.toml "
                                                               "(repeatable; copied into DIR/card-files)")] = None,
        games: Annotated[int, typer.Option(help="games per cell: the real deck and each variant of each card")] = 2000,
        seed: Annotated[int, typer.Option(help="master seed (every cell plays the same games)")] = 1,
        margin: Annotated[float, typer.Option(help="in line: a card's worth within this many points of win share "
                                                   "of its deck's reference (an equivalence test)")] = 2.0,
        json_: Annotated[Optional[Path], typer.Option(
            "--json", help="also write the answer as JSON here (it is always in DIR/card-worth.json)")] = None,
        workers: WorkersOpt = None,
        address: AddressOpt = None,
        quiet: Annotated[bool, typer.Option("--quiet", help="no progress bar")] = False) -> None:
    """Change each card (its main number blank, one step up and down; one copy fewer), play the same games again
    as a sweep into --out, and say what the card is worth to the seat that used it, with intervals; judge each
    card against its deck's reference (too strong, too weak, in line within --margin, or not enough games).
    playtest status, --verify and --resume work on the folder."""
    g = game_named(game)
    check_range("--games", games, 2, 10_000_000)
    check_range("--seed", seed, 0, MAX_SEED)
    check_range("--players", players, 1, 64)
    if not (math.isfinite(margin) and 0 < margin <= 50):
        fail(f"--margin {margin:g} is out of range; expected points of win share above 0 and at most 50")
    if workers is not None:
        check_range("--workers", workers, 1, MAX_WORKERS)
    if json_ is not None:
        check_output_file("--json", json_)
    decks = DECKS.get(g.name)
    if decks is None:
        fail(f"{g.name}: its cards have no main numbers declared to change")
    if (out is None) == (from_ is None):
        fail("give --out DIR (play the sweep there) or --from DIR (answer from a sweep already played), not "
             + ("both" if out else "neither"))
    if from_ is not None:
        result = _answer(from_, margin)
        if result["game"] != g.name:
            fail(f"--from {from_}: a card-worth sweep of {result['game']}, not {g.name}")
    else:
        folder = local_out(out, "card worth", "its spec, card files and answer beside the parts")
        if deck is not None and deck not in decks:
            fail(f"--deck {deck!r} is not allowed; expected one of {', '.join(decks)}")
        names = [c.strip() for c in cards.split(",")] if cards else None
        try:
            overrides, _, given, match = measure_match(g, seat_options(ctx.params), "card-worth")
            todo = [n for _, n in cards_of(match, [deck] if deck else None) if not names or n in names]
            if names and set(names) - set(todo):
                raise RuleError(f"--cards: {', '.join(sorted(set(names) - set(todo)))}: no such card dealt in "
                                f"{g.name}'s {deck or ' and '.join(decks)}")
            files, cells = variant_files(match, [deck] if deck else None, names)
            raw = sweep_raw(match, rules, overrides, given, seed, games, cells)
        except (RuleError, EngineError, ValueError) as e:
            fail(str(e))
        play_measure(folder, SPEC_STEM, raw, files, what="card-worth sweep", resume=resume, workers=workers,
                     address=address, quiet=quiet,
                     header=f"card worth of {g.name}: written by playtest card-worth (docs/card-worth.md); the card "
                            "files are in card-files/",
                     cost=f"card worth: {len(todo)} card(s) of {g.name}, the real deck and {len(cells)} variant(s)")
        result = _answer(folder, margin)
        (folder / f"{SPEC_STEM}.json").write_text(json.dumps(result, indent=1) + "\n")
    rows = []
    for c in sorted(result["cards"], key=lambda c: -(c["blank"] or {}).get("effect", -9)):
        b, r, u, d = (c[k] if c[k] and c[k].get("se") is not None else {} for k in ("blank", "removed", "up", "down"))
        cmp = c.get("comparison") or {}
        rows.append([c["card"], c["deck"], f"{c['field']} {c['value']}" if c["field"] else "", c["verdict"],
                     c.get("against") or "",
                     _pts(b.get("effect")), f"{_pts(b['family_ci95'][0])} to {_pts(b['family_ci95'][1])}" if b else "",
                     f"{_pts(cmp['diff'])} ({_pts(cmp['ci'][0])} to {_pts(cmp['ci'][1])})" if cmp else "",
                     _pts(r.get("effect")), _pts(u.get("effect")), _pts(d.get("effect")), f"{c['used_in']:,}"])
    unfinished = result.get("unfinished")
    title = f"what each card is worth to its holder: {g.name} (bots, not people; points of win share)"
    if unfinished:
        title = f"UNFINISHED ({unfinished['done']:,} of {unfinished['parts']:,} parts done, nothing judged): " + title
    typer.echo(fit_table(title, ["card", "deck", "number", "verdict", "against", "worth", "family 95%",
                                 "worth less the reference", "removed (unpaired)", "one step up", "one step down",
                                 "games used"], rows))
    for line in sentences(result):
        typer.echo(line)
    if json_ is not None:
        json_.write_text(json.dumps(result, indent=1) + "\n")


def _answer(folder: Path, margin: float) -> dict:
    """The answer from ``folder``'s parts (measures/card_worth/answer.py), ``margin`` in points; a folder that is
    not a card-worth sweep, or cannot be read safely, exits 2 in one line."""
    from measures.card_worth.answer import card_worth
    try:
        result = card_worth(folder, margin / 100)
    except (ResultsError, QueryError) as e:
        fail(str(e))
    if result is None:
        fail(f"{folder}: not a card-worth sweep (one cell of the real cards and cells that each change one card "
             "of it, with the cards table)")
    return result


COMMANDS = {"card-worth": card_worth_command}
