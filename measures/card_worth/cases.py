"""Known answers of card worth (``playtest validate card-worth``; docs/card-worth.md).

Planted, on Paws' item deck (the designer's ``--data items=FILE`` when given): one card made absurd (a Grenade of
20 damage) is **too strong** against six typical cards of the deck (the middle of it by amount: fast); one card
made worthless (its number at its weakest: the largest heal made a heal of 0) is worth 0 exactly and **too
weak** against the six next largest cards (5,000 games: slow). By simulation of the verdict rule (fast): a card
worth 10 points more than the rest is said too strong, and a card at its weakest among cards worth 5 points too
weak, each with the stated power.

Null: six identical cards of the shipped deck (the heal-2 cards Herbal Tea .. Wild Apple: the same effect, amount,
timing and copies) are worth the same, so none is too strong or too weak (one sweep: fast; over 40 seeds: slow);
by simulation, cards all worth the same are said too strong or too weak (any of them) at most alpha of the time.
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import numpy as np

from measures.known import ALPHA, Context, Outcome, case, rate_outcome

MEASURE = "card-worth"
TWINS = ("Herbal Tea", "Warm Blanket", "Clover Salve", "Nectar Flask", "Pine Syrup", "Wild Apple")
# the absurd card: an item whose amount at 20 breaks the game (a fight bonus of 20 does not: a bonus of 3
# already wins most fights it is played in); the first of these effects the deck has
ABSURD = ("grenade", "poison", "extra_ap", "draw")
POWER = 0.8


def _match(ctx: Context, items: str | None = None):
    from sim.games import GAMES
    data = {k: v for k, v in ctx.data.items()} if ctx.variant else {}
    if items is not None:
        data["items"] = items
    setup = {"players": 4, **(dict(ctx.setup) if ctx.variant else {})}
    rules, overrides = (ctx.rules, dict(ctx.overrides)) if ctx.variant else (None, {})
    return GAMES["paws"].resolve(rules, overrides, setup, data or None, where="card-worth validation"), rules, \
        overrides, setup


def _amount_cards(match) -> list:
    """The dealt items whose amount says how much, the largest first (file order among equals)."""
    from measures.card_worth.sweep import knob, measured
    cards = [c for c in measured(match, "items") if knob("paws", c) is not None]
    return sorted(cards, key=lambda c: -c.amount)


def _edited(match, name: str, amount: int, tmp: Path) -> str:
    """A copy of the match's item file with card ``name``'s amount set to ``amount``."""
    from sim.games import GAMES
    path = dict(GAMES["paws"].data_files(match.data))["items"]
    text = Path(path).read_text(encoding="utf-8")
    head, found, rest = text.partition(f'name = "{name}"')
    block, nxt, tail = rest.partition("[[card]]")
    if not found:
        raise ValueError(f"{path}: card {name!r} not found to edit")
    if re.search(r"^amount\s*=", block, flags=re.M):
        block = re.sub(r"^amount\s*=\s*\d+", f"amount = {amount}", block, count=1, flags=re.M)
    else:
        block = f"\namount = {amount}" + block
    out = tmp / "items.toml"
    out.write_text(head + found + block + nxt + tail, encoding="utf-8")
    return str(out)


def _answer(ctx: Context, names: list[str], games: int, items: str | None = None) -> dict:
    """card_worth of a blank-only sweep of ``names`` (items) played in a temporary folder."""
    from measures.card_worth.sweep import sweep_raw, variant_files
    from cluster.measure_sweep import prepare
    from cluster.sweep import run_sweep
    from measures.card_worth.answer import card_worth
    match, rules, overrides, setup = _match(ctx, items)
    files, cells = variant_files(match, ["items"], names, ("blank",))
    raw = sweep_raw(match, rules, overrides, setup, ctx.seed, ctx.games(games), cells)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "w"
        spec = prepare(out, "card-worth", raw, files, False, "card-worth validation sweep", "known answers")
        run_sweep(spec, out, workers=ctx.workers or 1, progress=False)
        return card_worth(out)


def _said(r: dict, name: str) -> tuple[dict, str]:
    c = next(c for c in r["cards"] if c["card"] == name)
    cmp = c.get("comparison")
    words = f"{name}: {c['verdict']}" + (f", {cmp['words']} from the reference ({c['against']})" if cmp else "")
    return c, words


def _interval(c: dict) -> tuple[float, float] | None:
    cmp = c.get("comparison")
    return (cmp["ci"][0], cmp["ci"][1]) if cmp else None


@case(MEASURE, "absurd item", "planted", "an item made absurd (its amount 20: Grenade, 20 damage to everyone near) "
      "is too strong against typical cards of the deck", game="paws", variant=True)
def absurd(ctx: Context) -> Outcome:
    cards = _amount_cards(_match(ctx)[0])
    target = next((c for e in ABSURD for c in cards if c.effect.name.lower() == e), cards[0])
    rest = [c.name for c in cards if c.name != target.name]
    middle = max(0, len(rest) // 2 - 3)
    others = rest[middle:middle + 6]                   # typical cards: the middle of the deck by amount
    with tempfile.TemporaryDirectory() as tmp:
        r = _answer(ctx, [target.name, *others], 1200, _edited(_match(ctx)[0], target.name, 20, Path(tmp)))
    c, words = _said(r, target.name)
    # other cards may truly stand out from the middle of the deck (false positives are the null cases' business)
    also = [o["card"] for o in r["cards"] if o["card"] != target.name and o["verdict"] == "too strong"]
    return Outcome(words + (f"; also said too strong: {', '.join(also)}" if also else ""),
                   c["verdict"] == "too strong", (c.get("comparison") or {}).get("diff"), _interval(c))


@case(MEASURE, "worthless item", "planted", "an item made worthless (its amount 0, its weakest) is worth 0 exactly "
      "and too weak against the deck's largest cards (5,000 games)", game="paws", slow=True, variant=True)
def worthless(ctx: Context) -> Outcome:
    cards = _amount_cards(_match(ctx)[0])
    target, others = cards[0], [c.name for c in cards[1:7]]
    with tempfile.TemporaryDirectory() as tmp:
        r = _answer(ctx, [target.name, *others], 5000, _edited(_match(ctx)[0], target.name, 0, Path(tmp)))
    c, words = _said(r, target.name)
    zero = bool(c.get("blank") and c["blank"].get("at_weakest") and c["blank"]["effect"] == 0)
    return Outcome(words + ("" if zero else " (not measured as worth 0 exactly)"),
                   zero and c["verdict"] == "too weak", (c.get("comparison") or {}).get("diff"), _interval(c))


@case(MEASURE, "identical items", "null", "six identical items of the shipped deck (heal 2: Herbal Tea .. Wild "
      "Apple): none too strong or too weak", game="paws")
def identical(ctx: Context) -> Outcome:
    r = _answer(Context(seed=ctx.seed, scale=ctx.scale, workers=ctx.workers), list(TWINS), 1500)
    said = {c["card"]: c["verdict"] for c in r["cards"]}
    flagged = [n for n, v in said.items() if v in ("too strong", "too weak")]
    counts = {v: sum(1 for x in said.values() if x == v) for v in dict.fromkeys(said.values())}
    return Outcome("; ".join(f"{v}: {k}" for v, k in counts.items()) + (f" ({', '.join(flagged)})" if flagged else ""),
                   not flagged, float(len(flagged)))


@case(MEASURE, "identical items over seeds", "null", f"six identical items over 40 seeds: some card said too strong "
      f"or too weak in at most {100 * ALPHA:g}% of the sweeps", game="paws", slow=True)
def identical_seeds(ctx: Context) -> Outcome:
    runs = 40
    hits = 0
    for k in range(runs):
        r = _answer(Context(seed=ctx.seed * 1000 + k, scale=ctx.scale, workers=ctx.workers), list(TWINS), 800)
        hits += any(c["verdict"] in ("too strong", "too weak") for c in r["cards"])
    return rate_outcome(hits, runs, null=True, rate=ALPHA, what="a card too strong or too weak")


def simulated(rng: np.random.Generator, worths: list[float], games: int, use: float = 0.4) -> list[dict]:
    """Rows as the folder gives them for cards of true worth ``worths``: each card used in a game with
    probability ``use``; per game the holders' change (blank less real) is -1, 0 or +1, most often 0 (a paired
    game is the same game until the card matters), with mean -worth."""
    from measures.card_worth.sweep import summarise
    rows = []
    for i, w in enumerate(worths):
        used = np.flatnonzero(rng.random(games) < use)
        swing = 0.2                                    # how often the card turns a game one way or the other
        p_lose = swing / 2 + w / 2                     # blank loses a game the real card won
        change = rng.choice([-1.0, 0.0, 1.0], size=len(used), p=[p_lose, 1 - swing, swing - p_lose])
        per_game = {int(g): float(d) for g, d in zip(used, change)}
        rows.append({"card": f"card {i}", "deck": "items", "field": "amount", "value": 2, "used_in": len(used),
                     "holders": len(used), "blank": {"games": len(used), "diff": float(change.mean()),
                                                     "se": float(change.std(ddof=1) / np.sqrt(len(used))),
                                                     "per_game": per_game}, "removed": None, "up": None,
                     "down": None})
    return summarise(rows)


def _rate(ctx: Context, worths: list[float], runs: int, games: int, hit) -> int:
    from measures.card_worth.answer import judge
    rng = np.random.default_rng([ctx.seed, 40, 71])
    hits = 0
    for k in range(runs):
        rows = judge(simulated(rng, worths, games), {"items": "the whole items deck"}, seed=ctx.seed * 100_000 + k,
                     replicates=300)
        hits += bool(hit(rows))
    return hits


@case(MEASURE, "simulated equal cards", "null", f"8 cards of equal worth (3 points), 600 games: some card said too "
      f"strong or too weak in at most {100 * ALPHA:g}% of runs")
def equal_cards(ctx: Context) -> Outcome:
    runs = ctx.games(150, least=50)
    hits = _rate(ctx, [0.03] * 8, runs, 600, lambda rows: any(r["verdict"] in ("too strong", "too weak") for r in rows))
    return rate_outcome(hits, runs, null=True, rate=ALPHA, what="a card too strong or too weak")


@case(MEASURE, "simulated strong card", "planted", f"of 8 cards worth 3 points one worth 13, 1,000 games: that card "
      f"said too strong in at least {100 * POWER:g}% of runs")
def strong_card(ctx: Context) -> Outcome:
    runs = ctx.games(100, least=50)
    hits = _rate(ctx, [0.13] + [0.03] * 7, runs, 1000, lambda rows: rows[0]["verdict"] == "too strong")
    return rate_outcome(hits, runs, null=False, rate=POWER, what="the strong card too strong")


@case(MEASURE, "simulated worthless card", "planted", f"of 8 cards worth 5 points one at its weakest (worth 0 "
      f"exactly), 1,000 games: that card said too weak in at least {100 * POWER:g}% of runs")
def worthless_card(ctx: Context) -> Outcome:
    runs = ctx.games(100, least=50)

    def weakest(rows):
        return rows[-1]["verdict"] == "too weak"
    from measures.card_worth.answer import judge
    rng = np.random.default_rng([ctx.seed, 40, 72])
    hits = 0
    for k in range(runs):
        rows = simulated(rng, [0.05] * 8, 1000)
        last = rows[-1]["blank"]
        last.update(diff=0.0, se=0.0, effect=0.0, at_weakest=True, per_game={g: 0.0 for g in last["per_game"]})
        rows = judge(rows, {"items": "the whole items deck"}, seed=ctx.seed * 100_000 + k, replicates=300)
        hits += weakest(rows)
    return rate_outcome(hits, runs, null=False, rate=POWER, what="the card at its weakest too weak")
