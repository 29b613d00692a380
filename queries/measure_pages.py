"""Page sections of the measures read from a sweep's folder (docs/report.md): card worth's ranked table, the
kingmaking answer, and a page holding measure sections alone (``playtest report`` on a restricted-play or
card-worth folder, whose many variant cells are the measure's means, not answers to read one by one). Every
text from an answer is escaped; the sentences are the commands' own (passed in)."""

from __future__ import annotations

from queries.pages import CSS, SCRIPT, esc, html_table

PAGE_CSS = CSS + """
.note { color: #555; font-size: 13px; } .bots { background: #fff3e0; padding: .4em .8em; border-radius: 6px; }
.warn { color: #8a1f11; background: #fdecea; padding: .3em .6em; border-radius: 4px; }
"""

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


def kingmaking_section(answer: dict, sentences: list[str]) -> str:
    """The kingmaking answer in words (the headline first: what the options change beyond chance), and per cell
    where the folder has several."""
    cells = answer.get("cells") or []
    per_cell = ""
    if len(cells) > 1:
        def beyond(c: dict) -> str:
            b = c["beyond_chance"]
            if b["verdict"] == "not enough":
                return "not enough"
            lo, hi = b["excess"]["ci95"]
            if b["verdict"] == "shown":
                return f"{100 * b['excess']['rate']:.1f}% ({100 * lo:.1f} to {100 * hi:.1f})"
            return f"none shown ({100 * lo:+.1f} to {100 * hi:+.1f} points)"

        def rate(r: dict) -> str:
            return "n/a" if r["rate"] is None else f"{100 * r['rate']:.1f}%"
        per_cell = "<h3>Per cell</h3>" + html_table(
            ["cell", "games", "out decisions", "beyond chance (95%)", "options re-dealt", "chance alone"],
            [[str(c.get("cell", "")), f"{c['games']:,}", f"{c['out_decisions']:,}", beyond(c),
              rate(c["beyond_chance"]["options"]), rate(c["beyond_chance"]["chance"])] for c in cells])
    head, rest = (sentences[0], sentences[1:]) if sentences else ("", [])
    return "\n".join([
        "<section id='kingmaking'><h2>Kingmaking: can a player who can no longer win decide who does?</h2>",
        f"<p class='bots'><b>Bots, not people:</b> <code>{esc(', '.join(answer.get('bots') or []))}</code>; a seat "
        f"is out once the oracle <code>{esc(str(answer.get('oracle')))}</code> rates its chance under "
        f"{esc(str(answer.get('threshold')))}; every later decision of an out seat tried with each of its options "
        "and against chance, under re-deals of the hidden cards and dice (docs/kingmaking.md).</p>",
        f"<p class='headline'><b>{esc(head)}</b></p><ul>" + "".join(f"<li>{esc(s)}</li>" for s in rest) + "</ul>",
        per_cell,
        f"<p class='note'>{esc(answer.get('method') or '')}.</p></section>"])


def measure_page(title: str, sections: list[str], source: str, command: str = "") -> str:
    """A page of measure sections alone."""
    return "\n".join([f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
                      f"<style>{PAGE_CSS}</style></head><body><h1>{esc(title)}</h1>",
                      f"<p class='note'>From <code>{esc(source)}</code>.</p>", *sections,
                      f"<p class='note'>Built by <code>{esc(command)}</code>.</p>" if command else "",
                      f"<script>{SCRIPT}</script></body></html>"])
