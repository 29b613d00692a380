"""The replay page: one self-contained HTML file (inline CSS, JS and SVG, no network) that draws a game.

The page embeds the game's event stream (sim/events.py) as JSON in a ``<script type="application/json">``
block, with every ``<``, ``>`` and ``&`` written as a JSON ``\\u`` escape so no card name, player name or spec
text can close the block. The stepper (``infra/replay.js``) rebuilds the drawn state after each event; the
game's own script, ``replay.js`` in the game's package, draws one state (found through the registry, so
this module names no game). ``playtest play --html`` and the service's replay step (service/steps.py) draw with it.
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path
from typing import Any

from sim.games import Game

STYLE = """
body { font: 14px/1.35 system-ui, sans-serif; margin: 0; color: #222; background: #faf8f3; }
header { padding: 8px 14px; background: #3b4a3f; color: #fff; }
header h1 { font-size: 17px; margin: 0 0 2px 0; }
header p { margin: 0; font-size: 12px; opacity: .85; }
main { display: flex; gap: 12px; padding: 10px; align-items: flex-start; }
#left { flex: 0 0 auto; }
#board { background: #fff; border: 1px solid #ccc; width: 760px; height: 640px; }
#right { flex: 1 1 auto; min-width: 320px; }
#controls { display: flex; flex-wrap: wrap; gap: 4px; align-items: center; margin: 6px 0; }
#controls button { font-size: 13px; padding: 3px 8px; }
#slider { width: 760px; }
#where { font-size: 12px; color: #555; }
#now-text { font-weight: 600; margin: 4px 0 8px 0; min-height: 2.6em; }
#events { list-style: none; margin: 0; padding: 0; height: 520px; overflow-y: auto; border: 1px solid #ccc;
          background: #fff; font: 12px/1.4 ui-monospace, monospace; }
#events li { cursor: pointer; white-space: pre-wrap; }
#events li.now { background: #ffe9a8; }
#events li.kind-round, #events li.kind-setup, #events li.kind-game_over { font-weight: 700; }
#events li.kind-turn { color: #1c4f8a; }
#events li.kind-roll { color: #777; }
#events li.kind-search { color: #6a3d9a; font-style: italic; }
#why { margin: -4px 0 8px 0; padding: 3px 6px; font-size: 12px; color: #4b2a6e; background: #f1eaf7;
       border-left: 3px solid #6a3d9a; }
.keys { font-size: 11px; color: #666; }
"""

# nothing is fetched: the page runs its own inline scripts and styles only
CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
CONTROLS = [("first", "|<", "first event (Home)"), ("prev-round", "<< round", "previous round (PageUp)"),
            ("prev-turn", "< turn", "previous turn (Up, Shift+Left)"), ("prev", "< event", "previous event (Left)"),
            ("next", "event >", "next event (Right)"), ("next-turn", "turn >", "next turn (Down, Shift+Right)"),
            ("next-round", "round >>", "next round (PageDown)"), ("last", ">|", "last event (End)")]


def json_for_script(value: Any) -> str:
    """JSON that is safe inside a <script> block: no '<', '>' or '&' at all (written as \\u escapes)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def game_script(definition: Game) -> str:
    """The game's drawing script: ``replay.js`` beside the module that defines its Game class."""
    package = type(definition).__module__.rsplit(".", 1)[0]
    path = resources.files(package) / "replay.js"
    if not path.is_file():
        raise FileNotFoundError(f"{definition.name} has no replay drawing (replay.js in {package})")
    return path.read_text(encoding="utf-8")


def build_page(definition: Game, events: list[dict], meta: dict, title: str, subtitle: str,
               record: dict | None = None) -> str:
    """The whole page as one string."""
    stepper = (Path(__file__).parent / "replay.js").read_text(encoding="utf-8")
    data = {"meta": meta, "events": events, "record": record}
    buttons = "".join(f'<button id="{i}" title="{html.escape(t)}">{html.escape(label)}</button>'
                      for i, label, t in CONTROLS)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<title>{html.escape(title)}</title>
<style>{STYLE}</style></head>
<body>
<header><h1>{html.escape(title)}</h1><p>{html.escape(subtitle)}</p></header>
<main>
<div id="left">
<svg id="board" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 760 640"></svg>
<div id="controls">{buttons}</div>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="event">
<div id="where"></div>
<div class="keys">keys: Left/Right event, Shift+Left/Right or Up/Down turn, PageUp/PageDown round, Home/End</div>
</div>
<div id="right"><div id="now-text"></div><div id="why" title="what the search bot saw before this decision" hidden>
</div><ol id="events"></ol></div>
</main>
<script type="application/json" id="replay-data">{json_for_script(data)}</script>
<script>{game_script(definition)}</script>
<script>{stepper}</script>
</body></html>
"""
