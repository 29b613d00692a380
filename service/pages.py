"""The service's pages: server-rendered, self-contained HTML from the Jinja2 templates in service/templates (inline
CSS, one small inline script with a per-response nonce, nothing loaded from elsewhere). Autoescape is on for every
template: user text reaches a page only as a template value, escaped (quotes too), never pasted into markup."""

from __future__ import annotations

import html
import secrets
import time
from pathlib import Path
from typing import Any

from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from service.catalog import User

TEMPLATES = Path(__file__).resolve().parent / "templates"
PAGE_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'nonce-{nonce}'; "
            "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


class _Compact(FileSystemLoader):
    """Templates laid out on many lines, served as one: each line's indentation and line break are dropped (the
    pages' markup has no whitespace between tags, and the tests read it with line-bound patterns)."""

    def get_source(self, environment, template):
        source, filename, uptodate = super().get_source(environment, template)
        return "".join(line.lstrip() for line in source.splitlines()), filename, uptodate


def when(t: float | None) -> str:
    """A catalog time as a UTC date and time ('' for none)."""
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t)) if t else ""


def _escaped(value: Any) -> Any:
    """Each value a template prints, escaped as the pages always escaped user text (html.escape, quotes too: ' is
    &#x27;); markup the templates made themselves (a macro, a fragment) passes as it is, None prints nothing."""
    if hasattr(value, "__html__"):
        return value
    return Markup(html.escape("" if value is None else str(value), quote=True))


ENV = Environment(loader=_Compact(TEMPLATES), autoescape=True, undefined=StrictUndefined, finalize=_escaped)
ENV.filters["when"] = when
ENV.filters["num"] = lambda n: f"{n:,}"


def fragment(template: str, **values: Any) -> Markup:
    """One template rendered on its own (a piece of a page)."""
    return Markup(ENV.get_template(template).render(**values))


def render(template: str, title: str, user: User | None, csrf: str | None, *, status: int = 200,
           refresh: int | None = None, script: str = "", **values: Any) -> HTMLResponse:
    """A whole page: ``template`` (which extends base.html) with its nonce-bound script and the page's CSP."""
    nonce = secrets.token_urlsafe(16)
    html = ENV.get_template(template).render(title=title, user=user, csrf=csrf, nonce=nonce, refresh=refresh,
                                             script=script, **values)
    return HTMLResponse(html, status_code=status, headers={"Content-Security-Policy": PAGE_CSP.format(nonce=nonce)})


def message(title: str, line: str, user: User | None, csrf: str | None, *, status: int, ident: str = "",
            tone: str = "error") -> HTMLResponse:
    """A page that says one line (a refusal, 'no such run')."""
    return render("message.html", title, user, csrf, status=status, line=line, ident=ident, tone=tone)


def no_progress(job: dict | None) -> str:
    """Where a run stands when its results folder holds no sweep manifest, in words true for its state: a
    finished job never reads as one that has not started (a comparison plays no game; a regression's sweeps
    are in folders of their own)."""
    state = (job or {}).get("state", "running")
    games = (job or {}).get("games") or 0
    if state == "queued":
        return "Queued: waiting for its turn; no game played yet."
    if state == "running":
        return ("Started: no part of its sweep has finished yet." if games else
                "Running: this job plays no games (it reads finished runs).")
    if state == "done":
        return (f"Done: its {games:,} games were played (the results are below)." if games else
                "Done: this job played no games (it reads finished runs); its answer is below.")
    return f"{state.capitalize()} before any part of a sweep was recorded."


def progress_html(p: dict | None, job: dict | None = None) -> Markup:
    """The run page's progress block: parts and games done with a bar, or where the run stands without them."""
    return fragment("_progress.html", progress=p, waiting=no_progress(job))


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def time_text(job: dict) -> str:
    """The time estimated before Start beside the time the run took (or has taken so far)."""
    est = job.get("estimate") or ""
    said = f"estimated {est}" if est else "not estimated (no pilot)"
    started, ended = job.get("started"), job.get("ended")
    if started and ended and ended >= started:
        return f"{said}; took {duration(ended - started)}"
    if started and job.get("state") == "running":
        return f"{said}; running for {duration(max(0.0, time.time() - started))}"
    return said


COPY_SCRIPT = """
var b=document.getElementById('copy');
if(b){b.addEventListener('click',function(){
 var t=document.getElementById('verdict').textContent, s=document.getElementById('copied');
 function done(){s.textContent=' copied';}
 if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(t).then(done,function(){fallback();});}
 else{fallback();}
 function fallback(){var a=document.createElement('textarea');a.value=t;document.body.appendChild(a);a.select();
  try{document.execCommand('copy');done();}finally{a.remove();}}
});}
"""
