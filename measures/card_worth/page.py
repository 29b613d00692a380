"""Card worth's section of a page (``playtest report`` on a card-worth folder; docs/card-worth.md): the cards too
strong or too weak first, then every card ranked by worth. Every text from an answer is escaped; the sentences
are the command's own (passed in)."""

from __future__ import annotations

from queries.pages import esc, html_table

_VARIANTS = (("blank", "worth (blank), family 95%"), ("removed", "one copy fewer (unpaired: not a worth)"),
             ("up", "one step up"), ("down", "one step down"))


def _points(x: float | None) -> str:
    return "n/a" if x is None else f"{round(100 * x, 1) + 0.0:+.1f}"


def _effect(v: dict | None, family: bool = False) -> str:
    if not v or v.get("effect") is None:
        return "n/a"
    lo, hi = v["family_ci95" if family else "ci95"]
    return f"{_points(v['effect'])} ({_points(lo)} to {_points(hi)})"


def card_worth_section(result: dict, sentences: list[str]) -> str:
    """Cards that are too strong or too weak first, then every card measured, ranked by worth; each judged
    against its deck's reference (said on every row); an unfinished sweep says so first and judges nothing."""
    cards = result["cards"]
    ranked = sorted(cards, key=lambda c: -(c["blank"]["effect"] if c.get("blank") and c["blank"].get("effect")
                                          is not None else float("-inf")))
    head = (["card", "deck", "number", "verdict", "against"] + [h for _, h in _VARIANTS[:1]]
            + ["worth less the reference, family 95%"] + [h for _, h in _VARIANTS[1:]] + ["games used"])

    def row(c: dict) -> list[str]:
        number = f"{c['field']} {c['value']}" if c.get("field") else "n/a"
        if (c.get("blank") or {}).get("at_weakest"):
            number += " (its weakest)"
        cmp = c.get("comparison")
        vs = f"{_points(cmp['diff'])} ({_points(cmp['ci'][0])} to {_points(cmp['ci'][1])})" if cmp else "n/a"
        return ([c["card"], c["deck"], number, c["verdict"], c.get("against") or "n/a",
                 _effect(c.get("blank"), family=True), vs]
                + [_effect(c.get(k)) for k, _ in _VARIANTS[1:]] + [f"{c['used_in']:,}"])
    unfinished = result.get("unfinished")
    warn = (f"<p class='warn'><b>Unfinished sweep:</b> {unfinished['done']:,} of {unfinished['parts']:,} parts "
            "done. No card is judged (too strong, too weak or in line) until the sweep is done; the numbers "
            "below are partial. Finish it with <code>--resume</code>.</p>") if unfinished else ""
    flagged = [c for c in ranked if c["verdict"] in ("too strong", "too weak")]
    counts: dict[str, int] = {}
    for c in cards:
        counts[c["verdict"]] = counts.get(c["verdict"], 0) + 1
    if unfinished:
        none = "none judged: the sweep is unfinished"
    else:
        none = "none: " + "; ".join(f"{n} {esc(v)}" for v, n in counts.items())
    margin = result.get("margin")
    judged = (f"judged against its deck's reference (the median worth of the deck's cards measured; the 'against' "
              f"column says whether that is the whole deck or the selected cards) by an equivalence test: in line "
              f"only when the family 95% interval of its worth less the reference lies inside +-{100 * margin:g} "
              "points, too strong or too weak when it leaves out 0 and is not inside, otherwise not enough games "
              "to say") if margin is not None else "judged against its deck's reference"
    return "\n".join([
        "<section id='card-worth'><h2>What each card is worth</h2>", warn,
        f"<p class='bots'><b>Bots, not people:</b> <code>{esc(', '.join(result['bots']))}</code>; "
        f"{result['games']:,} games a variant, every variant on the same games as the real deck (seed "
        f"{result['seed']}). The worth is what the seats that used the card lose when its number is blank (a card "
        "already at its weakest number is worth 0 exactly).</p><ul>"
        + "".join(f"<li>{esc(s)}</li>" for s in sentences) + "</ul>",
        "<h3>Too strong and too weak</h3>" + (html_table(head, [row(c) for c in flagged], [True] * len(flagged))
                                              if flagged else f"<p class='note'>{none}</p>"),
        "<h3>Every card, ranked by worth</h3>" + html_table(head, [row(c) for c in ranked],
                                                            [c in flagged for c in ranked]),
        f"<p class='note'>Points of win share, holder's score with the card as printed less with the variant; each "
        f"card {esc(judged)}; the other columns: 95% intervals. One copy fewer reshuffles the deck, so it is not "
        "paired game by game (docs/card-worth.md).</p>",
        f"<p class='note'>{esc(result['method'])}.</p>", warn, "</section>"])
