"""What the HTML pages of ``playtest compare`` and the nightly regression share: one style, the plot
colours, tables and inline PNG plots (a page is one self-contained file: no outside file or address)."""

from __future__ import annotations

import base64
import html
import io

BASE, CUR = "#8c8c8c", "#d95f02"   # A / baseline grey, B / current orange

CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
.verdict { padding: .6em 1em; border-radius: 6px; font-size: 1.4em; font-weight: bold; }
.pass { background: #e3f4e1; color: #1d6b25; } .regression { background: #fde2e1; color: #a01c17; }
table { border-collapse: collapse; margin: .5em 0 1.5em; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f4f4f4; } tr.flag td { background: #fff3e0; }
img.plot { max-width: 100%; border: 1px solid #eee; margin: .3em 0 1.2em; }
code { background: #f4f4f4; padding: 0 .3em; }
"""

# Set on load, so a headless browser can tell that every plot decoded and rendered.
SCRIPT = """
window.addEventListener('load', () => {
  const imgs = Array.from(document.images);
  document.body.dataset.plots = imgs.length;
  document.body.dataset.plotsRendered = imgs.filter(i => i.complete && i.naturalWidth > 0).length;
});
"""


def esc(s: object) -> str:
    """Text for HTML, escaped."""
    return html.escape(str(s))


def html_table(head: list[str], rows: list[list[str]], flags: list[bool] | None = None) -> str:
    """A table of text cells; a flagged row is highlighted (Markdown bold ``**`` is dropped)."""
    flags = flags or [False] * len(rows)
    body = "".join(("<tr class='flag'>" if f else "<tr>") + "".join(f"<td>{esc(c).replace('**', '')}</td>" for c in r)
                   + "</tr>" for r, f in zip(rows, flags))
    return "<table><tr>" + "".join(f"<th>{esc(h)}</th>" for h in head) + "</tr>" + body + "</table>"


def png_base64(fig) -> str:
    """A matplotlib figure as base64 PNG text for an inline ``<img>``."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=80)
    return base64.b64encode(buf.getvalue()).decode()
