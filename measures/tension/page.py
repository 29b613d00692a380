"""The page of a tension answer (``playtest tension --html``; docs/tension.md): the answer in words and the
curves of the eventual winner's chance and the others' through the game (median and quartiles). One
self-contained file; every text from the answer is escaped."""

from __future__ import annotations

from queries.pages import BASE, CSS, CUR, SCRIPT, esc, png_base64

PAGE_CSS = CSS + """
.note { color: #555; font-size: 13px; } .bots { background: #fff3e0; padding: .4em .8em; border-radius: 6px; }
"""


def curve_figure(answer: dict):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    c = answer["curve"]
    x = [100 * p for p in c["progress"]]
    fig, ax = plt.subplots(figsize=(9, 4.2))
    for name, q, colour in (("the eventual winner", c["winner_quartiles"], CUR),
                            ("the others (mean of their chances)", c["others_quartiles"], BASE)):
        if q[1]:
            ax.fill_between(x, q[0], q[2], color=colour, alpha=0.2)
            ax.plot(x, q[1], color=colour, lw=2, label=f"{name}: median, 25-75%")
    ax.axhline(answer["decided_at"], color="#888", ls="--", lw=1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("progress through the game (% of its turns)")
    ax.set_ylabel("chance to win (the oracle's)")
    ax.legend(loc="upper left")
    fig.tight_layout()
    out = png_base64(fig)
    plt.close(fig)
    return out


def tension_page(answer: dict, sentences: list[str]) -> str:
    title = f"playtest tension: {answer['game']}"
    setup = ", ".join(f"{k} {v}" for k, v in answer["setup"].items() if k != "bots")
    return "\n".join([
        f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(title)}</title>"
        f"<style>{PAGE_CSS}</style></head><body><h1>{esc(title)}</h1>",
        "<section id='answer'><h2>Is it tense to the end?</h2>",
        f"<p class='bots'><b>Bots, not people:</b> {answer['games']:,} games ({esc(setup) or 'default setup'}) of "
        f"<code>{esc(', '.join(answer['bots']))}</code>, every side rated as each turn begins by the value head of "
        f"<code>{esc(answer['oracle'])}</code>.</p><ul>" + "".join(f"<li>{esc(s)}</li>" for s in sentences) + "</ul>",
        f"<img class='plot' alt='chance to win through the game' src='data:image/png;base64,{curve_figure(answer)}'>",
        f"<p class='note'>Of the games somebody won: the eventual winner's chance before the decision at each point "
        f"of the game, and the mean of the others'; dashed: {answer['decided_at']:g}, above which a game counts as "
        "decided.</p></section>",
        f"<p class='note'>{esc(answer['method'])}; seed {answer['seed']}.</p>",
        f"<script>{SCRIPT}</script></body></html>"])
