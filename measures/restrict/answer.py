"""Restricted play answered from a sweep's folder (``playtest restrict``; docs/restricted-play.md).

The layout is read from the manifest's cells, not from a file of its own, so any sweep laid out this way gets the
answer: a **base** cell has one bot in every seat (no ``forbid=``); a **restricted** cell has ``forbid=OPTION``
in exactly one seat's bot, that bot less ``:forbid=OPTION`` in every other seat, and otherwise the setup, rules
and card data of a base cell with that bot. Each restricted cell is paired with its base cell on game_index
(every cell of a sweep plays the same seed: game k is the same deal), the seat's score compared game by game.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from cluster.train import equal_weight, paired_gain
from measures.restrict.sweep import MARGIN, THRESHOLD
from queries import connection, sources
from infra.stats import Z95, equivalence
from sim.games import GAMES

FORBID = re.compile(r":forbid=([A-Za-z0-9_]+)")


def verdict(cost: float, low: float, high: float, games: int, threshold: float = THRESHOLD,
            margin: float = MARGIN) -> tuple[str, int | None]:
    """(verdict, games that would settle it or None) of a cost with its 95% interval from ``games`` paired games:
    measures/restrict/sweep.py's verdicts, "useless" and "negligible" by the two one-sided tests of
    infra.stats.equivalence against ``margin``."""
    se = (high - low) / (2 * Z95)
    eq = equivalence(cost, se, games, margin)
    if low > threshold:
        return "dominant", None
    if eq.verdict == "same":
        return "useless", None
    if eq.verdict == "negligible":
        return "negligible", None
    if high < 0:
        return "overused", None
    if low > 0:
        return "matters", None
    return "unclear", eq.games_needed


def _key(cell: dict) -> str:
    """What a restricted cell shares with its base cell: everything the games depend on but the bots."""
    match = cell.get("match") or {}
    setup = {k: v for k, v in (match.get("setup") or {}).items() if k != "bots"}
    return json.dumps({"setup": setup, "rules": match.get("rules"), "data": cell.get("data_digest")}, sort_keys=True)


def layout(manifest: dict) -> dict | None:
    """{"bot": the base bot, "base": {key: cell id}, "restricted": [(cell id, key, option, seat)]} from the
    manifest's cells; None when they are not a restricted-play layout."""
    base: dict[str, str] = {}
    bots_of: set[str] = set()
    restricted = []
    for cell in manifest.get("cells") or []:
        bots = ((cell.get("match") or {}).get("setup") or {}).get("bots")
        if not isinstance(bots, list) or not bots or not all(isinstance(b, str) for b in bots):
            return None
        forbidden = [s for s, b in enumerate(bots) if FORBID.search(b)]
        if not forbidden and len(set(bots)) == 1:
            if _key(cell) in base:
                return None
            base[_key(cell)] = cell["id"]
            bots_of.add(bots[0])
        elif len(forbidden) == 1:
            seat = forbidden[0]
            options = FORBID.findall(bots[seat])
            plain = FORBID.sub("", bots[seat])
            if len(options) != 1 or any(b != plain for s, b in enumerate(bots) if s != seat):
                return None
            restricted.append((cell["id"], _key(cell), options[0], seat, plain))
        else:
            return None
    if len(bots_of) != 1 or not restricted or any(k not in base for _, k, _, _, _ in restricted):
        return None
    bot = bots_of.pop()
    if any(plain != bot for *_, plain in restricted):
        return None
    return {"bot": bot, "base": base, "restricted": [r[:4] for r in restricted]}


def _label(game, cell: dict, bot: str) -> str:
    """The skill line-up the base cell is (its label), else its setup in words."""
    match = cell.get("match") or {}
    for lu in game.skill_setups:
        probe = game.resolve(lu.rules, lu.overrides, lu.setup)
        seats = len(probe.setup.bots)
        d = game.resolve(lu.rules, lu.overrides, {**lu.setup, "bots": [bot] * seats}).describe()
        if d["setup"] == match.get("setup") and d["rules"] == match.get("rules"):
            return lu.label
    setup = {k: v for k, v in (match.get("setup") or {}).items() if k != "bots"}
    return ", ".join(f"{k}={v}" for k, v in setup.items()) or cell["id"]


def seat_edges(con, game, results) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{cell: (game indices, per game and seat the seat's score less the fair share)}: a win (its team's, in a
    team game) 1, a draw the fair share, anything else 0 (the game's compare_columns, as cluster.train)."""
    cc = game.compare_columns
    # the expressions are the game class's own SQL (code, not user text)
    _, rows = connection.execute(con, f"SELECT cell, game_index, ({cc.draw}) AS draw, ({cc.unit}) AS unit, "
                                   f"({cc.units}) AS units, ({cc.winner}) AS winner, players FROM games "
                                   "ORDER BY cell, game_index", where="restricted play", results=results)
    out: dict[str, list] = {}
    for cell, gi, draw, unit, units, winner, players in rows:
        fair = 1.0 / units
        seats = np.arange(players)
        score = np.full(players, fair) if draw else \
            (seats == winner if unit == "seat" else seats % 2 == winner).astype(np.float64)
        out.setdefault(cell, []).append((gi, score - fair))
    return {c: (np.array([g for g, _ in v]), np.array([e for _, e in v])) for c, v in out.items()}


def restricted_play(folder: str | Path, threshold: float = THRESHOLD, margin: float = MARGIN) -> dict | None:
    """Every forbidden option's cost with its verdict, from a sweep's folder; None when its cells are not a
    restricted-play layout. A folder that cannot be read safely (a damaged or edited part) is a ResultsError."""
    manifest = sources.read_manifest(folder)
    if manifest is None or manifest.get("game") not in GAMES.names():
        return None
    lay = layout(manifest)
    if lay is None:
        return None
    game = GAMES[manifest["game"]]
    cells = {c["id"]: c for c in manifest["cells"]}
    con = connection.connect([folder])
    try:
        edges = seat_edges(con, game, [folder])
    finally:
        con.close()
    labels = {k: _label(game, cells[cid], lay["bot"]) for k, cid in lay["base"].items()}
    diffs: dict[str, dict[str, tuple[list, list]]] = {}          # option -> line-up -> (restricted, base)
    for cid, key, option, seat in lay["restricted"]:
        bid = lay["base"][key]
        if cid not in edges or bid not in edges:
            continue
        (gr, er), (gb, eb) = edges[cid], edges[bid]
        _, ir, ib = np.intersect1d(gr, gb, return_indices=True)     # the games both cells hold
        pair = diffs.setdefault(option, {}).setdefault(labels[key], ([], []))
        pair[0].append(er[ir, seat])
        pair[1].append(eb[ib, seat])
    options = []
    for option, by in diffs.items():
        rows = [paired_gain(label, np.concatenate(r), np.concatenate(b)) for label, (r, b) in by.items()]
        over = equal_weight(rows)
        row = {"option": option, "restricted": f"{lay['bot']}:forbid={option}", "games": over.games,
               "cost": -over.diff, "cost_95": [-over.high, -over.low],
               "line_ups": [{"line_up": r.label, "games": r.games, "cost": -r.diff, "cost_95": [-r.high, -r.low]}
                            for r in rows]}
        row["verdict"], row["games_needed"] = verdict(row["cost"], *row["cost_95"], over.games, threshold, margin)
        options.append(row)
    return {"game": game.name, "bot": lay["bot"], "seed": manifest["seed"], "games_per_seat": manifest["games_per_cell"],
            "line_ups": list(dict.fromkeys(labels.values())), "threshold": threshold, "margin": margin,
            "options": options, "folder": str(folder), "spec_digest": manifest["spec_digest"],
            "method": "each option forbidden to the bot in one seat of each line-up in turn, the unrestricted bot in "
                      "every other seat; paired on game_index with the line-up's base cell (the unrestricted bot in "
                      "every seat, the same seed: the same deals); cost = the seat's score there less the restricted "
                      "bot's (1 a win, the fair share a draw), line-ups weighted equally, 95% normal interval of the "
                      f"paired differences; 'useless' and 'negligible' by two one-sided tests at 5% against a margin "
                      f"of +-{100 * margin:g} points",
            "note": "bots, not people: what an option is worth to this bot's play"}
