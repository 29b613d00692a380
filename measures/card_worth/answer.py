"""What each card is worth, answered from a sweep's folder (``playtest card-worth``; docs/card-worth.md).

The layout is read from the sweep's own spec and card files (checked against the manifest's spec digest),
not from a file of its own, so any sweep laid out this way gets the answer: one **base** cell, and cells
whose card data differ from the base's in one card only: its main number one step up or down or at its
weakest (blank), or one copy fewer (removed; the card left out when it had one). Each is paired with the
base cell on game_index (every cell of a sweep plays the same seed); the holders are the seats the base
cell's cards table says used the card.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from cluster.spec import SpecError, parse_spec
from measures.card_worth.sweep import VARIANTS, at_weakest, deck, knob, measured, paired, summarise
from queries import connection, errors, sources
from infra.stats import MARGIN, equivalence
from infra.folder import BEYOND
from sim.games import GAMES

ALPHA = 0.05                 # the family's error: every card's verdict at alpha / (cards judged), Bonferroni
REPLICATES = 1000            # bootstrap replicates over the games for the difference from the reference
UNFINISHED = "not judged: the sweep is unfinished"


def _plain(card):
    """A card without its position in the file (ids shift when a card is left out)."""
    return dataclasses.replace(card, id=0)


def difference(game: str, keys, base, other) -> tuple[str, str, str] | None:
    """(deck, card name, variant) when card data ``other`` is ``base`` with one card changed as a variant of
    the measure is; None otherwise."""
    found = []
    for key in keys:
        a = {c.name: _plain(c) for c in getattr(base, key)}
        b = {c.name: _plain(c) for c in getattr(other, key)}
        if a == b:
            continue
        gone, new = set(a) - set(b), set(b) - set(a)
        if new or len(gone) > 1:
            return None
        if gone:
            name = gone.pop()
            if getattr(a[name], "copies", 1) != 1 or any(a[n] != b[n] for n in b):
                return None
            found.append((key, name, "removed"))
            continue
        diff = [n for n in a if a[n] != b[n]]
        if len(diff) != 1:
            return None
        name = diff[0]
        fields = [f.name for f in dataclasses.fields(a[name]) if getattr(a[name], f.name) != getattr(b[name], f.name)]
        if len(fields) != 1:
            return None
        was, now = getattr(a[name], fields[0]), getattr(b[name], fields[0])
        k = knob(game, a[name])
        if fields[0] == "copies" and now == was - 1:
            found.append((key, name, "removed"))
        elif k is not None and fields[0] == k.field and now == k.weakest:
            found.append((key, name, "blank"))          # also one step down when the number is one above it
        elif k is not None and fields[0] == k.field and now == was + k.better:
            found.append((key, name, "up"))
        elif k is not None and fields[0] == k.field and now == was - k.better:
            found.append((key, name, "down"))
        else:
            return None
    return found[0] if len(found) == 1 else None


def layout(spec) -> tuple[str, dict[str, tuple[str, str, str]]] | None:
    """(base cell id, {cell id: (deck, card, variant)}) of a card-worth sweep; None when its cells are not one."""
    keys = [k for k in GAMES[spec.game].data_keys]
    for base in spec.cells:
        same = {c.id: c for c in spec.cells
                if c.id != base.id and {k: v for k, v in c.match.describe().items()} == base.match.describe()}
        if len(same) != len(spec.cells) - 1:
            return None              # the cells differ in more than card data: not this layout
        out = {}
        for cid, c in same.items():
            d = difference(spec.game, keys, base.match.data, c.match.data)
            if d is None or d in out.values():
                break
            out[cid] = d
        else:
            return (base.id, out) if out else None
    return None


def _stored_spec(folder: Path, m: dict, vouched: bool):
    """The manifest's spec, its card files read from the folder (``vouched``: this machine signed the manifest, so
    the files it names may lie elsewhere; otherwise none outside the folder is opened); None when it does not
    resolve."""
    name = Path(m.get("spec_file", "")).name
    base_dir = folder if name and (folder / name).is_file() else Path(m.get("spec_file", ".")).parent
    try:
        spec = parse_spec(m["spec"], source=str(base_dir / name), base_dir=base_dir,
                          within=None if vouched else folder)
    except (SpecError, KeyError):
        return None
    if spec.digest != m.get("spec_digest"):
        raise errors.ResultsError(f"{folder}: its card files or spec no longer give the sweep's spec digest "
                                   f"{m.get('spec_digest')} (edited since it was played); "
                                   f"{sources.repair_hint(folder, m)}")
    return spec


def _judgement(eq, diff: float) -> str:
    if eq.verdict in ("same", "negligible"):
        return "in line"
    if eq.verdict == "differs":
        return "too strong" if diff > 0 else "too weak"
    return "not enough games to say"


def judge(rows: list[dict], against: dict[str, str], *, margin: float = MARGIN, seed: int = 0,
          unfinished: bool = False, alpha: float = ALPHA, replicates: int = REPLICATES) -> list[dict]:
    """Each card's verdict against its deck's reference (``against``: {deck: what the reference is, in words}).

    The reference is the median worth of the deck's cards measured (blank played, or at its weakest: worth 0
    exactly). The card's worth less the reference has its standard error from a bootstrap over the games
    (every cell plays the same game indices, so one resampling of the games serves every card and the median,
    their correlation included); :func:`infra.stats.equivalence` at ``alpha`` / (cards judged) with ``margin``
    gives too strong / too weak (differs), in line (inside +-margin) or not enough games to say. A card whose
    number changes no game is in the reference but not judged; ``unfinished``: no card is judged (nor said never
used or too rarely used: the parts so far are partial). Drops the
    per-game changes the bootstrap reads."""
    pools: dict[str, list[dict]] = {}
    for r in rows:
        b = r.get("blank")
        r["comparison"], r["against"] = None, against.get(r["deck"], "")
        if not r["used_in"]:
            r["verdict"] = "never used"
        elif r.get("field") is None:
            r["verdict"] = "no main number"      # nothing to make blank: its removal only
        elif not b or b["se"] is None:
            r["verdict"] = "too few games"
        else:
            r["verdict"] = ("number changes nothing" if b["se"] == 0 and b["diff"] == 0 and not b.get("at_weakest")
                            else None)        # every paired game the same: the rules do not read the number
            pools.setdefault(r["deck"], []).append(r)
    family = sum(1 for pool in pools.values() if len(pool) > 1 for r in pool if r["verdict"] is None)
    level = alpha / max(1, family)
    rng = np.random.default_rng([seed, 40, 7])
    references = {}
    for key, pool in pools.items():
        worth = np.array([-r["blank"]["diff"] + 0.0 for r in pool])
        reference = float(np.median(worth))
        references[key] = {"worth": reference, "against": against.get(key, ""), "cards": len(pool)}
        if len(pool) == 1:
            if pool[0]["verdict"] is None:
                pool[0]["verdict"] = "alone in its deck"
            continue
        games = sorted(set().union(*(r["blank"]["per_game"] for r in pool)))
        col = {gi: j for j, gi in enumerate(games)}
        change, used = np.zeros((len(pool), len(games))), np.zeros((len(pool), len(games)))
        for i, r in enumerate(pool):
            for gi, d in r["blank"]["per_game"].items():
                change[i, col[gi]], used[i, col[gi]] = d, 1.0
        diffs = []
        for start in range(0, replicates, 250):
            b, g = min(250, replicates - start), len(games)
            draws = rng.integers(0, g, size=(b, g)) + g * np.arange(b)[:, None]      # each replicate: g games drawn
            w = np.bincount(draws.ravel(), minlength=b * g).reshape(b, g).astype(float)
            with np.errstate(invalid="ignore", divide="ignore"):
                boot = -(w @ change.T) / (w @ used.T)            # a card missing from a replicate: nan
            diffs.append(boot - np.nanmedian(boot, axis=1, keepdims=True))
        diffs = np.concatenate(diffs)
        for i, r in enumerate(pool):
            if r["verdict"] is not None:
                continue
            diff = float(worth[i] - reference) + 0.0
            se = float(np.nanstd(diffs[:, i], ddof=1))
            eq = equivalence(diff, se, r["blank"]["games"], margin, alpha=level)
            r["comparison"] = {"reference": reference, "diff": diff, "se": se, "ci": [eq.low, eq.high],
                               "level": 1 - level, "margin": margin, "equivalence": eq.verdict,
                               "games_needed": eq.games_needed, "words": eq.words()}
            r["verdict"] = UNFINISHED if unfinished else _judgement(eq, diff)
    for r in rows:
        r["reference"] = references.get(r["deck"])
        if unfinished and r["verdict"] != "no main number":       # partial parts: nothing is said of any card
            r["verdict"] = UNFINISHED
        for how in VARIANTS:
            if r.get(how):
                r[how].pop("per_game", None)
    return rows


def _parts(m: dict) -> dict | None:
    """{done, parts} of a sweep whose manifest says it is not finished; None when it is."""
    if m.get("state") == "done":
        return None
    parts = [p for c in m.get("cells") or [] for p in c.get("parts") or [] if p.get("state") != BEYOND]
    return {"state": m.get("state"), "done": sum(p.get("state") == "done" for p in parts), "parts": len(parts)}


def card_worth(folder: str | Path, margin: float = MARGIN) -> dict | None:
    """Every card's worth (blank), removed, up and down with their intervals and verdicts, from a sweep's folder;
    None when its cells are not a card-worth layout. A folder that cannot be read safely is a ResultsError."""
    folder = Path(folder)
    got = sources.manifest_of(folder)
    m = None if got is None else got.data
    if m is None or m.get("game") not in GAMES.names() or "cards" not in (m.get("tables") or []):
        return None
    spec = _stored_spec(folder, m, got.vouched)
    if spec is None:
        return None
    lay = layout(spec)
    if lay is None:
        return None
    base_id, variants = lay
    cells = {c.id: c for c in spec.cells}
    con = connection.connect([folder])
    try:
        connection.add_seat_outcomes(con, [folder])
        _, rows = connection.execute(
            con, "SELECT cell, game_index, [CASE WHEN winning_side = -1 THEN 1.0 / sides ELSE CAST(x = winning_side AS DOUBLE) "
                 "END FOR x IN seat_sides] AS scores FROM seat_outcomes ORDER BY cell, game_index",
            where="card worth", results=[folder])
        scores: dict[str, dict] = {}
        for cell, gi, s in rows:
            scores.setdefault(cell, {}).update({(gi, seat): float(v) for seat, v in enumerate(s)})
        users: dict[tuple[str, str], dict[int, list[int]]] = {}
        for key, card in dict.fromkeys((k, n) for k, n, _ in variants.values()):
            d = deck(spec.game, key)
            # d.used is the game's own SQL (code); the cell, kind and card name are bound
            _, held = connection.execute(con, f"SELECT game_index, seat FROM cards WHERE cell = $cell AND kind = $kind "
                                           f"AND card = $card AND ({d.used}) ORDER BY game_index, seat",
                                      {"cell": base_id, "kind": d.kind, "card": card}, where="card worth",
                                      results=[folder])
            for gi, seat in held:
                users.setdefault((key, card), {}).setdefault(gi, []).append(seat)
    finally:
        con.close()
    base = scores.get(base_id, {})
    by_card: dict[tuple[str, str], dict] = {}
    base_data = cells[base_id].match.data
    for cid, (key, name, how) in variants.items():
        card = next(c for c in getattr(base_data, key) if c.name == name)
        k = knob(spec.game, card)
        used = users.get((key, name), {})
        row = by_card.setdefault((key, name), {
            "deck": key, "card": name, "field": k.field if k else None, "value": getattr(card, k.field) if k else None,
            "used_in": len(used), "holders": sum(len(v) for v in used.values()), "cells": {},
            **{v: None for v in VARIANTS}})
        row["cells"][how] = cid
        row[how] = paired(base, scores.get(cid, {}), used) if used else None
        if how == "blank" and k is not None and k.weakest == row["value"] - k.better:     # the blank is one step down
            row["cells"]["down"] = cid
            row["down"] = dict(row["blank"]) if row["blank"] else None
    for (key, name), row in by_card.items():
        card = next(c for c in getattr(base_data, key) if c.name == name)
        k = knob(spec.game, card)
        if k is not None and row["value"] == k.weakest and row["blank"] is None and users.get((key, name)):
            row["blank"] = at_weakest(users[(key, name)])      # the card as printed is its blank: worth 0 exactly
    against = {}
    for key in dict.fromkeys(k for k, _ in by_card):
        dealt = [c.name for c in measured(cells[base_id].match, key)]
        chosen = sum(1 for k, _ in by_card if k == key)
        against[key] = (f"the whole {key} deck" if set(dealt) <= {n for k, n in by_card if k == key}
                        else f"the selected cards ({chosen} of the {key} deck's {len(dealt)})")
    unfinished = _parts(m)
    rows_out = judge(summarise(list(by_card.values())), against, margin=margin, seed=spec.seed,
                     unfinished=unfinished is not None)
    references = {key: next((r["reference"] for r in rows_out if r["deck"] == key and r["reference"]),
                            {"worth": None, "against": text, "cards": 0}) for key, text in against.items()}
    bots = [str(b) for b in cells[base_id].match.describe()["setup"].get("bots", [])]
    return {"game": spec.game, "rules": spec.rules, "overrides": spec.overrides, "setup": spec.setup,
            "data_digest": cells[base_id].match.data_digest, "bots": bots, "seed": spec.seed,
            "games": spec.games_per_cell, "folder": str(folder), "spec_digest": spec.digest, "base_cell": base_id,
            "cards": rows_out, "references": references, "margin": margin, "alpha": ALPHA,
            "unfinished": unfinished,
            "method": "each card changed in a copy of its card file, one sweep cell a variant beside the real deck's, "
                      "the same seed: its main number at its weakest (blank: the worth; a card already at its weakest "
                      "is worth 0 exactly), one copy fewer (removed), one step better (up) and worse (down); the score "
                      "of the seats that used the card in the real game compared game by game; normal 95% and "
                      "Bonferroni family intervals, Holm-adjusted p-values of the worth; each card judged against "
                      "its deck's reference (the median worth of the deck's cards measured) by an equivalence test "
                      f"with a margin of +-{100 * margin:g} points at the family's {100 * (1 - ALPHA):g}% "
                      f"(Bonferroni; the difference's error by {REPLICATES:,} bootstrap resamplings of the games)",
            "note": "bots, not people: what each card is worth to these bots' play"}
