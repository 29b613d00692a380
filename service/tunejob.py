"""A finished tune's answer (service/steps.py ``tune-answer RESULTS OWN``, :func:`run`) (RESULTS/tune.json, written by ``playtest
tune``) as a small self-contained page, OWN/tune.html, and its verdict in a few words, OWN/answer.json (the best
candidate's values, or ``none feasible``)."""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path

from cluster.tune import REPORT_NAME, TuneError
from sim.files import read_text_bounded, write_atomic

CSS = ("body{font:15px/1.45 system-ui,sans-serif;margin:1.2em;color:#222}table{border-collapse:collapse}"
       "td,th{border-bottom:1px solid #ddd;padding:.3em .5em;text-align:left}.best{background:#e8f5e9}")


def esc(value) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def num(x) -> str:
    return "?" if not isinstance(x, (int, float)) else f"{x:.4g}"


def interval(pair) -> str:
    lo, hi = (pair or [None, None])[:2] if isinstance(pair, list) else (None, None)
    return f"[{num(lo)}, {num(hi)}]"


def verdict_of(answer: dict) -> str:
    best = answer.get("best")
    return str(best.get("label") or "best found") if isinstance(best, dict) else "none feasible"


def page(answer: dict) -> str:
    """The answer: the objective, the best candidate with its intervals, the set that cannot be told apart from it,
    every candidate's standing and the games spent. Every value is escaped."""
    spec = answer.get("spec") if isinstance(answer.get("spec"), dict) else {}
    best = answer.get("best") if isinstance(answer.get("best"), dict) else None
    out = [f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>tune {esc(spec.get('name'))}</title>"
           f"<style>{CSS}</style></head><body><h1>Tune {esc(spec.get('name'))}: {esc(verdict_of(answer))}</h1>",
           f"<p>Objective: {esc(answer.get('objective'))}"
           + (f"; constraints: {esc(', '.join(map(str, answer.get('constraints') or [])))}" if answer.get("constraints")
              else "") + "</p>",
           f"<p>Race ended: {esc(answer.get('finished'))}; {esc(answer.get('alpha_split'))}</p>"]
    if best is None:
        out.append("<p id='best'>No candidate meets the constraints: each was dropped by one.</p>")
    else:
        out.append(f"<p id='best'>Best: <b>{esc(best.get('label'))}</b>, loss {num(best.get('loss'))} "
                   f"{interval(best.get('loss_interval'))} after {esc(best.get('games_per_hold'))} games per hold "
                   "cell</p><ul>")
        obj = best.get("objective") if isinstance(best.get("objective"), dict) else {}
        for h in obj.get("per_hold") or []:
            out.append(f"<li>{esc(obj.get('metric'))} in {esc(h.get('hold'))}: {num(h.get('estimate'))} "
                       f"{interval(h.get('interval'))}</li>")
        for c in best.get("constraints") or []:
            out.append(f"<li>{esc(c.get('constraint'))}: {'holds' if c.get('certified') else 'not yet shown'}</li>")
        out.append("</ul>")
    others = (answer.get("indistinguishable") or [])[1:]
    out.append(f"<h2>Cannot be told apart from the best ({len(others)})</h2><ul>"
               + "".join(f"<li>{esc(e.get('label'))}</li>" for e in others if isinstance(e, dict)) + "</ul>")
    rows = "".join(
        f"<tr{' class=best' if best and c.get('label') == best.get('label') else ''}><td>{esc(c.get('label'))}</td>"
        f"<td>{esc(c.get('reason'))}</td><td>{esc(c.get('games_per_hold'))}</td><td>{num(c.get('loss'))} "
        f"{interval(c.get('loss_interval'))}</td></tr>" for c in answer.get("candidates") or [] if isinstance(c, dict))
    out.append("<h2>Candidates</h2><table id='candidates'><tr><th>candidate</th><th>stop reason</th>"
               f"<th>games per hold cell</th><th>loss (interval)</th></tr>{rows}</table>")
    games, grid = answer.get("games") or 0, answer.get("exhaustive_games") or 0
    if isinstance(games, int) and isinstance(grid, int):
        out.append(f"<p id='games'>Games: {games:,} spent; an exhaustive grid giving every candidate as many games "
                   f"would spend {grid:,}.</p>")
    out.append("</body></html>")
    return "\n".join(out)


def build(results: Path, own: Path) -> str:
    """Write the answer's page and its verdict (OWN/answer.json); returns the verdict."""
    answer = json.loads(read_text_bounded(results / REPORT_NAME, "tune answer", TuneError, 256 * 2**20))
    if not isinstance(answer, dict) or answer.get("state") != "done":
        raise TuneError(f"{REPORT_NAME}: the tune has not written its answer")
    write_atomic(own / "tune.html", page(answer))
    verdict = verdict_of(answer)
    write_atomic(own / "answer.json", json.dumps({"verdict": verdict, "finished": answer.get("finished")}))
    return verdict


def run(results: Path, own: Path) -> int:
    """The tune's answer step: the page and the verdict; an error is one line, exit 2."""
    try:
        print(f"best: {build(results, own)}")
    except (TuneError, ValueError, OSError) as e:
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    return 0
