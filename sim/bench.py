"""``playtest bench``: engine speed on fixed presets, both engines on the same seeds, in one run.

A benchmark, not a test: it writes ``bench/bench.json`` and ``bench/bench.md`` (games/s on one core
for the Cython core and the reference engine, their ratio, whether the shared games were identical)
and, where Linux ``perf`` is available, the core's hot spots from a sampling profile of one preset.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from sim.games import GAMES, EngineError, get
from sim.params import RuleError


def presets(game: str | None = None) -> list[tuple]:
    """The benchmark's presets as (game, label, rules, overrides, setup): each game's own
    (``Game.bench_presets``), of every registered game or of ``game`` only."""
    names = GAMES.names() if game is None else (get(game).name,)   # an unknown game is a clear error
    return [(name, p.label, p.rules, dict(p.overrides), dict(p.setup)) for name in names
            for p in GAMES[name].bench_presets]


def profiled(game: str | None = None) -> tuple:
    """The preset to profile: the one the game names (``Game.bench_profiled``; no game given: the
    registry's default game's), else the first."""
    g = get(game) if game is not None else GAMES.default
    found = presets(game)
    return next((p for p in found if p[0] == g.name and p[1] == g.bench_profiled), found[0])


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def measure(game: str, rules, overrides: dict, setup: dict, seed: int, games: int, reference_games: int) -> dict:
    """Both engines on games 0.. of one seed; the first ``reference_games`` are played by both and compared."""
    m = get(game).resolve(rules, overrides, setup)
    m.play_batch(seed, 0, min(100, games), "core")        # warm up: module load, first allocations
    core_s = _time(lambda: m.play_batch(seed, 0, games, "core"))
    ref = {}
    ref_s = _time(lambda: ref.update(m.play_batch(seed, 0, reference_games, "reference")))
    same = m.play_batch(seed, 0, reference_games, "core")["games"].equals(ref["games"])
    core_gps, ref_gps = games / core_s, reference_games / ref_s
    return {"core_games": games, "core_s": round(core_s, 3), "core_games_per_s": round(core_gps, 1),
            "reference_games": reference_games, "reference_s": round(ref_s, 3),
            "reference_games_per_s": round(ref_gps, 2), "ratio": round(core_gps / ref_gps, 1),
            "identical": bool(same)}


def measure_bots(game: str, rules, overrides: dict, setup: dict, spec: str, seed: int, games: int) -> dict:
    """One bot level on one core: ``spec`` in every seat of a preset, games/s and, where the core counts
    them, top-level decisions/s and search simulations (rollouts)/s."""
    g = get(game)
    m = g.resolve(rules, overrides, {**setup, "bots": spec})
    g.play_counted(m, seed, games, min(2, games))       # warm up on other games
    t0 = time.perf_counter()
    _, counts = g.play_counted(m, seed, 0, games)
    wall = time.perf_counter() - t0
    out = {"bots": spec, "games": games, "s": round(wall, 3), "games_per_s": round(games / wall, 2)}
    for key in ("decisions", "rollouts"):
        if key in counts:
            out[f"{key}_per_s"] = round(counts[key] / wall)
    return out


def bot_markdown(report: dict) -> str:
    lines = [f"# playtest bench --bots ({report['date']}, {report['code_version']})", "",
             f"{report['machine']}; one process, one core; seed {report['seed']}; {report['preset']}, every "
             f"seat the same bot.", "",
             "| bots | games | games/s | decisions/s | rollouts/s |", "|---|---:|---:|---:|---:|"]
    for r in report["bot_levels"]:
        lines.append(f"| {r['bots']} | {r['games']} | {r['games_per_s']:,.1f} | "
                     f"{r.get('decisions_per_s', '')} | {r.get('rollouts_per_s', '')} |")
    return "\n".join(lines) + "\n"


def run_bot_bench(out: Path, specs: list[str], games: int, seed: int, game: str | None, console) -> dict:
    """Measure each bot level on the game's profiled preset; write JSON and Markdown, print the table."""
    target = profiled(game)
    g, label, rules, overrides, setup = target
    report = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "code_version": code_version(), "seed": seed,
              "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
                         f"Python {platform.python_version()}",
              "preset": f"{g} {label}", "bot_levels": []}
    for spec in specs:                                               # every spec checked before any game
        get(g).resolve(rules, overrides, {**setup, "bots": spec}).check_engine("core")
    for spec in specs:
        console.print(f"bench: {spec} ...", highlight=False)
        report["bot_levels"].append(measure_bots(g, rules, overrides, setup, spec, seed, games))
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    md = bot_markdown(report)
    out.with_suffix(".md").write_text(md)
    console.print(md, highlight=False)
    return report


def readable_symbol(sym: str) -> str:
    """``__pyx_f_4core_11game_engine_heuristic_action.constprop.0`` -> ``game_engine.heuristic_action``."""
    sym = re.sub(r"\.(constprop|isra|part|cold)\.\d+", "", sym)
    if not sym.startswith("__pyx_f_"):
        return sym
    rest, parts = sym[len("__pyx_f_"):], []
    while re.match(r"_?\d", rest):  # Cython mangles each dotted name part as <length><name>, "_" between
        rest = rest.lstrip("_")
        n = re.match(r"\d+", rest).group()
        parts.append(rest[len(n):len(n) + int(n)])
        rest = rest[len(n) + int(n):]
    return ".".join(parts[1:] + [rest.lstrip("_")])


def profile(game: str, rules, overrides: dict, setup: dict, seed: int, games: int) -> dict:
    """Sample the core with Linux perf while it plays ``games`` games; the top symbols by self time."""
    if shutil.which("perf") is None:
        return {"available": False, "why": "Linux perf not found (apt-get install linux-perf)"}
    script = ("import sys; sys.path.insert(0, {root!r}); from sim.games import get; "
              "m = get({game!r}).resolve({rules!r}, {overrides!r}, {setup!r}); "
              "m.play_batch({seed}, 0, {games}, 'core')").format(
        root=str(Path(__file__).resolve().parent.parent), game=game, rules=rules, overrides=overrides,
        setup=setup, seed=seed, games=games)
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "perf.data")
        rec = subprocess.run(["perf", "record", "-F", "1999", "-o", data, sys.executable, "-c", script],
                             capture_output=True, text=True)
        if rec.returncode != 0:
            return {"available": False, "why": "perf record failed: " + rec.stderr.strip()[-300:]}
        rep = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "dso,symbol", "--stdio"],
                             capture_output=True, text=True)
    rows = []
    for line in rep.stdout.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(\S+)", line)
        if m:
            rows.append({"percent": float(m.group(1)), "where": m.group(2).split(".cpython-")[0],
                         "symbol": readable_symbol(m.group(3))})
    engine = sum(r["percent"] for r in rows if "engine" in r["where"])
    label = " ".join([game, rules or ""] + [f"{k}={v}" for k, v in {**setup, **overrides}.items()]).replace("  ", " ")
    return {"available": True, "preset": label, "games": games,
            "in_engine_percent": round(engine, 1), "top": rows[:15]}


def code_version() -> str:
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True, text=True,
                             cwd=Path(__file__).resolve().parent.parent)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def markdown(report: dict) -> str:
    lines = [f"# playtest bench ({report['date']}, {report['code_version']})", "",
             f"{report['machine']}; one process, one core; seed {report['seed']}.", "",
             "| preset | core games/s | reference games/s | ratio | same games |",
             "|---|---:|---:|---:|---|"]
    for r in report["results"]:
        lines.append(f"| {r['label']} | {r['core_games_per_s']:,.0f} | {r['reference_games_per_s']:,.1f} | "
                     f"{r['ratio']:,.0f}x | {'yes' if r['identical'] else 'NO'} ({r['reference_games']}) |")
    lines += [f"\nSkipped {r['label']}: {r['why']}" for r in report.get("skipped", [])]
    prof = report.get("profile")
    if prof and prof.get("available"):
        lines += ["", f"## Where the core spends its time ({prof['preset']}, {prof['games']:,} games)", "",
                  f"{prof['in_engine_percent']}% of samples are in the engine module.", "",
                  "| self % | where | symbol |", "|---:|---|---|"]
        lines += [f"| {r['percent']} | {r['where']} | `{r['symbol']}` |" for r in prof["top"]]
    elif prof:
        lines += ["", f"Profile not taken: {prof['why']}"]
    return "\n".join(lines) + "\n"


def run_bench(out: Path, games: int, reference_games: int, seed: int, game: str | None, profile: bool,
              console) -> dict:
    """Measure every preset, write JSON and Markdown, print the table."""
    report = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "code_version": code_version(), "seed": seed,
              "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
                         f"Python {platform.python_version()}",
              "results": []}
    for g, label, rules, overrides, setup in presets(game):
        console.print(f"bench: {label} ...", highlight=False)
        try:
            report["results"].append({"game": g, "label": label, **measure(g, rules, overrides, setup, seed, games,
                                                                           reference_games)})
        except (EngineError, RuleError) as e:  # a game whose core is not built yet: say so, measure the rest
            report.setdefault("skipped", []).append({"game": g, "label": label, "why": str(e)})
    if profile:
        target = profiled(game)
        console.print(f"bench: profiling {target[1]} ...", highlight=False)
        report["profile"] = _profile_preset(target, seed, games)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    md = markdown(report)
    out.with_suffix(".md").write_text(md)
    console.print(md, highlight=False)
    return report


def _profile_preset(p: tuple, seed: int, games: int) -> dict:
    g, _, rules, overrides, setup = p
    return profile(g, rules, overrides, setup, seed, max(games, 20000))
