"""``playtest card-worth``: what each card is worth, by paired ablations (docs/card-worth.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from cli.common import (MAX_SEED, MAX_WORKERS, check_output_file, check_range, err, fail, fit_table, game_named,
                        measure_match)
from cluster.restrict import points
from cluster.cards import DECKS, card_worth, cards_of, games_to_play, sentences
from sim.games import EngineError
from sim.params import RuleError, parse_assignments


def _pts(x) -> str:
    return "" if x is None else points(x)


def card_worth_command(
        game: Annotated[str, typer.Argument(help="the game")],
        deck: Annotated[Optional[str], typer.Option(help="only this deck: paws items; tales equipment or "
                                                         "creatures (default: every deck)")] = None,
        cards: Annotated[Optional[str], typer.Option(help="only these cards, by name, separated by commas")] = None,
        bots: Annotated[str, typer.Option(help="the bots, one spec for every seat or one per seat")] = "heuristic",
        players: Annotated[int, typer.Option(help="seats, where the game has a player count")] = 4,
        rules: Annotated[Optional[str], typer.Option(help="rule set preset (default: the game's)")] = None,
        set_: Annotated[Optional[list[str]], typer.Option("--set", help="rule override name=value (repeatable)")] = None,
        setup: Annotated[Optional[list[str]], typer.Option(help="a setup value name=value (repeatable)")] = None,
        data: Annotated[Optional[list[str]], typer.Option(help="a card file KEY=FILE, e.g. items=my_items.toml "
                                                               "(repeatable)")] = None,
        games: Annotated[int, typer.Option(help="games per variant of each card")] = 2000,
        seed: Annotated[int, typer.Option(help="master seed (every card plays the same games)")] = 1,
        out: Annotated[Optional[Path], typer.Option(help="write the answer as JSON here")] = None,
        workers: Annotated[Optional[int], typer.Option(help="Ray workers (default: every core)")] = None,
        address: Annotated[Optional[str], typer.Option(help="Ray cluster address to run on")] = None,
        quiet: Annotated[bool, typer.Option("--quiet", help="no progress lines")] = False) -> None:
    """Change each card's main number (blank, one step up, one step down), play the same games again, and say
    what the card is worth to the seat that used it, with intervals; rank the cards too strong or too weak."""
    g = game_named(game)
    check_range("--games", games, 2, 10_000_000)
    check_range("--seed", seed, 0, MAX_SEED)
    check_range("--players", players, 1, 64)
    if workers is not None:
        check_range("--workers", workers, 1, MAX_WORKERS)
    if out is not None:
        check_output_file("--out", out)
    decks = DECKS.get(g.name)
    if decks is None:
        fail(f"{g.name}: its cards have no main numbers declared to change")
    if deck is not None and deck not in decks:
        fail(f"--deck {deck!r} is not allowed; expected one of {', '.join(decks)}")
    names = [c.strip() for c in cards.split(",")] if cards else None
    try:
        overrides, _, given, match = measure_match(g, bots, players, rules, set_, setup, data, "card-worth")
        files = {k: str(v) for k, v in parse_assignments(data or [], where="--data").items()}
        todo = [n for _, n in cards_of(match, [deck] if deck else None) if not names or n in names]
        if names and set(names) - set(todo):
            raise RuleError(f"--cards: {', '.join(sorted(set(names) - set(todo)))}: no such card with a number to "
                            f"change in {g.name}'s {deck or ' and '.join(decks)}")
    except (RuleError, EngineError, ValueError) as e:
        fail(str(e))
    if not quiet:
        err.print(f"card worth: {len(todo)} card(s) of {g.name}, {games_to_play(len(todo), games):,} games to play",
                  highlight=False)
    try:
        result = card_worth(g.name, rules, overrides, given, seed, games, [deck] if deck else None, names, workers,
                            address, files or None)
    except (RuleError, EngineError) as e:
        fail(str(e))
    rows = []
    for c in sorted(result["cards"], key=lambda c: -(c["blank"] or {}).get("effect", -9)):
        b, u, d = (c[k] if c[k] and c[k].get("se") is not None else {} for k in ("blank", "up", "down"))
        rows.append([c["card"], c["deck"], f"{c['field']} {c['value']}", c["verdict"], _pts(b.get("effect")),
                     f"{_pts(b['family_ci95'][0])} to {_pts(b['family_ci95'][1])}" if b else "", _pts(u.get("effect")),
                     _pts(d.get("effect")), f"{c['used_in']:,}"])
    typer.echo(fit_table(f"what each card is worth to its holder: {g.name} (bots, not people; points of win share)",
                         ["card", "deck", "number", "verdict", "worth", "family 95%", "one step up", "one step down",
                          "games used"], rows))
    for line in sentences(result):
        typer.echo(line)
    if out is not None:
        out.write_text(json.dumps(result, indent=1) + "\n")


COMMANDS = {"card-worth": card_worth_command}
