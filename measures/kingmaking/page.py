"""Kingmaking's section of a page (``playtest report`` on a folder with the kingmaking table; docs/kingmaking.md):
the headline first (what the options change beyond chance), then per cell where the folder has several. Every
text from an answer is escaped; the sentences are the command's own (passed in)."""

from __future__ import annotations

from queries.pages import esc, html_table


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
