"""The service's pages: server-rendered, self-contained HTML (inline CSS, one small inline script with a per-response
nonce, nothing loaded from elsewhere). Every piece of user text goes through ``esc`` (html.escape, quotes too)."""

from __future__ import annotations

import html
import time
from typing import Any

from service.catalog import ROLES, STATES, User

CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{background:#263238;color:#fff;padding:.6em 1.2em;display:flex;gap:1.2em;align-items:center}
header a{color:#fff;text-decoration:none}header form{margin:0 0 0 auto}
main{padding:1em 1.4em;max-width:1100px}
table{border-collapse:collapse;width:100%;background:#fff}td,th{border-bottom:1px solid #ddd;padding:.35em .5em;
text-align:left;vertical-align:top}
.state{font-weight:600}.queued{color:#6d4c41}.running{color:#1565c0}.done{color:#2e7d32}.failed{color:#c62828}
.cancelled{color:#757575}
.error{background:#ffebee;border:1px solid #e57373;padding:.5em .8em;white-space:pre-wrap}
.ok{background:#e8f5e9;border:1px solid #81c784;padding:.5em .8em}
textarea{width:100%;font:13px monospace}input[type=text],input[type=password]{width:28em}
pre.card{background:#fff;border:1px solid #ccc;padding:.8em;white-space:pre-wrap}
.bar{background:#e0e0e0;height:12px;width:360px}.bar div{background:#1565c0;height:12px}
form.inline{display:inline}label{display:block;margin:.5em 0 .2em}
"""


def esc(value: Any) -> str:
    """User text as HTML text or an attribute value: every <, >, &, ' and " escaped."""
    return html.escape("" if value is None else str(value), quote=True)


def when(t: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t)) if t else ""


def layout(title: str, body: str, *, user: User | None, csrf: str | None, nonce: str, refresh: int | None = None,
           script: str = "") -> str:
    nav = ""
    if user is not None:
        nav = ("<a href='/runs'>Runs</a>" + ("<a href='/submit'>Submit</a>" if user.may("edit") else "")
               + "<a href='/nightly'>Nightly</a>"
               + ("<a href='/users'>Users</a>" if user.may("admin") else "")
               + f"<form method='post' action='/logout'><input type='hidden' name='csrf' value='{esc(csrf)}'>"
               f"{esc(user.name)} ({esc(user.role)}) <button>Log out</button></form>")
    meta = f"<meta http-equiv='refresh' content='{int(refresh)}'>" if refresh else ""
    js = f"<script nonce='{esc(nonce)}'>{script}</script>" if script else ""
    return (f"<!doctype html><html lang='en'><head><meta charset='utf-8'>{meta}<title>{esc(title)} - playtest</title>"
            f"<style>{CSS}</style></head><body><header><strong>playtest</strong>{nav}</header><main>"
            f"<h1>{esc(title)}</h1>{body}</main>{js}</body></html>")


def login_form(login_csrf: str, error: str = "") -> str:
    return ((f"<p class='error'>{esc(error)}</p>" if error else "")
            + "<form method='post' action='/login'>"
            f"<input type='hidden' name='csrf' value='{esc(login_csrf)}'>"
            "<label for='token'>Your API token (from <code>playtest serve --add-user</code>)</label>"
            "<input type='password' id='token' name='token' autocomplete='off'> <button>Log in</button></form>")


def hidden_csrf(csrf: str) -> str:
    return f"<input type='hidden' name='csrf' value='{esc(csrf)}'>"


def run_list(rows: list[dict], filters: dict[str, str], games: list[str], rule_sets: list[str] = (),
             verdicts: list[str] = (), error: str = "") -> str:
    def select(name: str, options: list[str]) -> str:
        opts = "".join(f"<option value='{esc(o)}'{' selected' if filters.get(name) == o else ''}>{esc(o or 'any')}"
                       "</option>" for o in ["", *options])
        return f"<select name='{name}' id='f-{name}'>{opts}</select>"
    form = ("<form method='get' action='/runs'>"
            f"game {select('game', games)} state {select('state', list(STATES))} "
            f"owner <input type='text' name='owner' style='width:10em' value='{esc(filters.get('owner', ''))}'> "
            f"title contains <input type='text' name='q' style='width:14em' value='{esc(filters.get('q', ''))}'> "
            f"rule set {select('rule_set', list(rule_sets))} verdict {select('verdict', list(verdicts))} "
            f"submitted from <input type='date' name='from' value='{esc(filters.get('from', ''))}'> "
            f"to <input type='date' name='to' value='{esc(filters.get('to', ''))}'> "
            "<button>Filter</button></form><p></p>")
    if error:
        return form + f"<p class='error' id='filter-error'>{esc(error)}</p>"
    if not rows:
        return form + "<p>No runs match.</p>"
    body = "".join(
        f"<tr><td><a href='/runs/{esc(r['id'])}'>{esc(r['title'])}</a></td><td>{esc(r['spec_name'])}</td>"
        f"<td>{esc(r['game'])}</td><td>{esc(r.get('rule_set', ''))}</td>"
        f"<td class='state {esc(r['state'])}'>{esc(r['state'])}</td><td>{esc(r.get('verdict', ''))}</td>"
        f"<td>{esc(r['owner'])}</td><td>{r['games']:,}</td><td>{when(r['created'])}</td></tr>" for r in rows)
    return (form + "<table><tr><th>title</th><th>question (spec)</th><th>game</th><th>rule set</th><th>state</th>"
            f"<th>verdict</th><th>owner</th><th>games</th><th>submitted</th></tr>{body}</table>")


def submit_form(csrf: str, kind, kinds, *, title: str = "", description: str = "", values: dict | None = None,
                error: str = "", cost: str = "") -> str:
    """The submission form of one job kind (service/kinds.py): its fields, with links to the other kinds' forms."""
    values = values or {}
    what = kind.title.split(" ", 1)[-1]
    start = (f"<button name='action' value='start'>Start this {esc(what)}</button> " if cost else "")
    tabs = " · ".join(f"<strong>{esc(k.title)}</strong>" if k.name == kind.name else
                      f"<a href='/submit?kind={esc(k.name)}'>{esc(k.title)}</a>" for k in kinds)
    return (f"<p class='kinds'>Submit: {tabs}</p><p>{esc(kind.about)}</p>"
            + (f"<p class='error' id='error'>{esc(error)}</p>" if error else "")
            + (f"<p class='ok' id='cost'>{esc(cost)}</p>" if cost else "")
            + "<form method='post' action='/submit' enctype='multipart/form-data'>" + hidden_csrf(csrf)
            + f"<input type='hidden' name='kind' value='{esc(kind.name)}'>"
            + f"<label for='title'>Title</label><input type='text' id='title' name='title' value='{esc(title)}'>"
            "<label for='description'>Description</label>"
            f"<textarea id='description' name='description' rows='3'>{esc(description)}</textarea>"
            + "".join(field_html(f, values.get(f.name, f.default)) for f in kind.fields)
            + f"<p>{start}<button name='action' value='check'>Check and show the cost</button></p></form>")


def field_html(f, value: str) -> str:
    """One input of a kind's form; ``value`` is the user's own text (escaped)."""
    name, label = esc(f.name), esc(f.label)
    helptext = f"<small>{esc(f.help)}</small>" if f.help else ""
    if f.widget == "textarea":
        return (f"<label for='{name}'>{label}: paste it here ...</label>{helptext}"
                f"<textarea id='{name}' name='{name}' rows='16'>{esc(value)}</textarea>"
                f"<label for='{name}_file'>... or upload the file (at most 256 KiB)</label>"
                f"<input type='file' id='{name}_file' name='{name}_file' accept='.toml,.json,text/plain'>")
    if f.widget == "cards":
        return (f"<label for='{name}'>{label}</label>{helptext}"
                f"<input type='file' id='{name}' name='{name}' accept='.toml' multiple>")
    if f.widget == "select":
        opts = "".join(f"<option{' selected' if o == value else ''}>{esc(o)}</option>" for o in f.options)
        return f"<label for='{name}'>{label}</label>{helptext}<select id='{name}' name='{name}'>{opts}</select>"
    return (f"<label for='{name}'>{label}</label>{helptext}"
            f"<input type='text' id='{name}' name='{name}' value='{esc(value)}'>")


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


def progress_html(p: dict | None, job: dict | None = None) -> str:
    if not p:
        return f"<p id='progress'>{esc(no_progress(job))}</p>"
    share = p["games_done"] / p["games"] if p["games"] else 0.0
    return (f"<div id='progress'><p>{p['parts_done']:,} of {p['parts']:,} parts, {p['games_done']:,} of "
            f"{p['games']:,} games ({100 * share:.1f}%)</p><div class='bar'><div style='width:{360 * share:.0f}px'>"
            "</div></div></div>")


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


def run_page(job: dict, *, progress: dict | None, verdict: str | None, summary: str | None, may_cancel: bool,
             csrf: str, links: list[tuple[str, str, str]] = ()) -> str:
    """A run's page; ``links``: (id, href, text) of its result pages (the report; a compare's or ladder's page)."""
    rows = [("state", f"<span class='state {esc(job['state'])}' id='state'>{esc(job['state'])}</span>"),
            ("kind", esc(job.get("kind", "sweep"))),
            ("question (spec name)", esc(job["spec_name"])), ("game", esc(job["game"])),
            ("cost", f"{job['cells']:,} cells, {job['games']:,} games"),
            ("time", f"<span id='time'>{esc(time_text(job))}</span>"), ("owner", esc(job["owner"])),
            ("submitted", when(job["created"])), ("started", when(job["started"])), ("ended", when(job["ended"])),
            ("permalink", f"<a href='/runs/{esc(job['id'])}'>/runs/{esc(job['id'])}</a>")]
    out = ("<table>" + "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows) + "</table>"
           + (f"<p>{esc(job['description'])}</p>" if job["description"] else ""))
    if job["error"]:
        out += f"<p class='error' id='job-error'>{esc(job['error'])}</p>"
    out += progress_html(progress, job)
    if may_cancel:
        out += (f"<form method='post' action='/runs/{esc(job['id'])}/cancel'>{hidden_csrf(csrf)}"
                "<button id='cancel'>Cancel this run</button></form>")
    for ident, href, text in links:
        out += f"<p><a id='{esc(ident)}' href='{esc(href)}'>{esc(text)}</a></p>"
    if summary:
        out += f"<h2>Summary</h2><pre id='summary'>{esc(summary)}</pre>"
    if verdict:
        out += ("<h2>Verdict card</h2><p>A short Markdown block to paste into a design document or a pull request."
                f"</p><pre class='card' id='verdict'>{esc(verdict)}</pre><button id='copy'>Copy the verdict card</button>"
                "<span id='copied'></span>")
    out += f"<details><summary>The spec</summary><pre>{esc(job['spec_text'])}</pre></details>"
    return out


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


def user_controls(u: User, csrf: str) -> str:
    """An admin's buttons for one user: a new token (the old one stops working), another role, remove."""
    name = esc(u.name)
    roles = "".join(f"<option{' selected' if r == u.role else ''}>{r}</option>" for r in ROLES)
    return (f"<form class='inline' method='post' action='/users/{name}/token'>{hidden_csrf(csrf)}"
            "<button>New token</button></form> "
            f"<form class='inline' method='post' action='/users/{name}/role'>{hidden_csrf(csrf)}"
            f"<select name='role' aria-label='role of {name}'>{roles}</select><button>Set role</button></form> "
            f"<form class='inline' method='post' action='/users/{name}/remove'>{hidden_csrf(csrf)}"
            "<button>Remove</button></form>")


def users_page(users: list[User], audit: list[dict], csrf: str, new_token: str = "", error: str = "",
               token_for: str = "") -> str:
    out = ""
    if new_token:
        whose = f"{esc(token_for)}'s new token (the old one no longer works)" if token_for else "The new user's token"
        out += (f"<p class='ok'>{whose}, shown this once: <code id='new-token'>{esc(new_token)}</code></p>")
    if error:
        out += f"<p class='error'>{esc(error)}</p>"
    out += ("<table><tr><th>user</th><th>role</th><th>change</th></tr>"
            + "".join(f"<tr><td>{esc(u.name)}</td><td>{esc(u.role)}</td><td>{user_controls(u, csrf)}</td></tr>"
                      for u in users) + "</table>")
    roles = "".join(f"<option>{r}</option>" for r in ROLES)
    out += (f"<h2>Add a user</h2><form method='post' action='/users'>{hidden_csrf(csrf)}"
            f"<label for='name'>Name</label><input type='text' id='name' name='name'>"
            f"<label for='role'>Role</label><select id='role' name='role'>{roles}</select> <button>Add</button></form>")
    out += ("<h2>Audit log</h2><table><tr><th>when</th><th>who</th><th>what</th><th>run</th><th>detail</th></tr>"
            + "".join(f"<tr><td>{when(a['at'])}</td><td>{esc(a['user'])}</td><td>{esc(a['action'])}</td>"
                      f"<td>{esc(a['job'] or '')}</td><td>{esc(a['detail'] or '')}</td></tr>" for a in audit)
            + "</table>")
    return out
