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


def measure_bots(game: str, rules, overrides: dict, setup: dict, spec: str, seed: int, games: int,
                 seconds: float | None = None) -> dict:
    """One bot level on one core: ``spec`` in every seat of a preset, games/s and, where the core counts
    them, top-level decisions/s and search simulations (rollouts)/s. ``seconds``: fewer than ``games`` where
    the warm-up games say more would take longer (at least 2)."""
    g = get(game)
    m = g.resolve(rules, overrides, {**setup, "bots": spec})
    t0 = time.perf_counter()
    g.play_counted(m, seed, games, min(2, games))       # warm up on other games
    if seconds is not None:
        per_game = (time.perf_counter() - t0) / min(2, games)
        games = max(min(2, games), min(games, int(seconds / per_game) if per_game > 0 else games))
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
    if report.get("strength"):
        first = report["strength"][0]
        lines += ["", f"Strength: each bot against {first['vs']}, on {', '.join(first['line_ups'])} (the edge is "
                  "the score over the fair share: 1 a win, the fair share a draw; 95% intervals).", "",
                  "| bots | games | edge | wins | draws | losses |", "|---|---:|---|---|---|---|"]

        def part(r: dict, key: str) -> str:
            """Wins, draws or losses as a share with its interval (a draw is never half a win here)."""
            s = r.get(key)
            if not isinstance(s, dict) or s.get("share") is None:
                return ""
            low, high = s["ci95"]
            fair = f" (fair {r['fair_share']:g})" if key == "wins" and "fair_share" in r else ""
            return f"{s['share']:.3f} [{low:.3f}, {high:.3f}]{fair}"
        for r in report["strength"]:
            lines.append(f"| {r['bot']} | {r['games']:,} | {r['edge']:+.3f} [{r['edge_95'][0]:+.3f}, "
                         f"{r['edge_95'][1]:+.3f}] | {part(r, 'wins')} | {part(r, 'draws')} | {part(r, 'losses')} |")
    return "\n".join(lines) + "\n"


def run_bot_bench(out: Path, specs: list[str], games: int, seed: int, game: str | None, console,
                  strength=None, seconds: float | None = None) -> dict:
    """Measure each bot level on the game's profiled preset; write JSON and Markdown, print the table.
    ``strength(game, spec, games_per_s)``, when given, measures each level's strength too (a dict per level,
    in the report's ``strength``: the caller's, since it plays the game's skill line-ups)."""
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
        report["bot_levels"].append(measure_bots(g, rules, overrides, setup, spec, seed, games, seconds))
    if strength is not None:
        report["strength"] = []
        for level in report["bot_levels"]:
            console.print(f"bench: {level['bots']}, strength ...", highlight=False)
            report["strength"].append(strength(g, level["bots"], level["games_per_s"]))
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


# -- playtest bench --core-speed: the profiled preset's core speed, against a baseline build -------------

# One sample, run in a fresh process whose import path starts at a checkout's root, so that a baseline
# build (another checkout, e.g. a worktree of main) is measured with its own code. It uses only what
# every build has: the registry, resolve() and play_counted(); it prints one JSON line.
_SAMPLE = r"""
import hashlib, json, sys, time
sys.path.insert(0, {root!r})
import pyarrow as pa
import sim
from sim.games import get
g = get({game!r})

def one(extra, games, options=None):
    m = g.resolve({rules!r}, {{**{overrides!r}, **(options or {{}})}}, {{**{setup!r}, **extra}})
    g.play_counted(m, {seed}, games, min(200, games))            # warm up on other games
    t0 = time.process_time()
    tables, counts = g.play_counted(m, {seed}, 0, games)
    cpu = time.process_time() - t0
    t = tables["games"]
    def sha(t):
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, t.schema.remove_metadata()) as w:
            w.write_table(t.replace_schema_metadata(None))
        return hashlib.sha256(sink.getvalue().to_pybytes()).hexdigest()
    return {{"games": games, "cpu_s": cpu,
             "turns": int(pa.compute.sum(t["turns"]).as_py()) if "turns" in t.column_names else None,
             "records_sha256": sha(t), "columns_sha256": {{c: sha(t.select([c])) for c in t.column_names}},
             **{{k: counts[k] for k in ("decisions", "rollouts", "engine_s") if k in counts}}}}

out = {{"root": sim.__file__, "heuristic": one({{}}, {games}), "random": one({{"bots": "random"}}, {random_games}),
        "search": [dict(one({{"bots": s}}, {bot_games}), bots=s) for s in {specs!r}], "options": {{}}}}
for label, options in {options!r}.items():      # engine options: a build that lacks one skips it
    try:
        out["options"][label] = {{"heuristic": one({{}}, {games}, options),
                                 "random": one({{"bots": "random"}}, {random_games}, options)}}
    except Exception:
        pass
print(json.dumps(out))
"""


def _sample(root: Path, target: tuple, seed: int, games: int, random_games: int, bot_games: int,
            specs: list[str]) -> dict:
    """One measurement of the build at ``root`` in its own process."""
    game, _, rules, overrides, setup = target
    script = _SAMPLE.format(root=str(root), game=game, rules=rules, overrides=overrides, setup=setup, seed=seed,
                            games=games, random_games=random_games, bot_games=bot_games, specs=list(specs),
                            options={k: dict(v) for k, v in get(game).bench_engine_options.items()})
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=root)
    if run.returncode != 0:
        raise BenchError(f"the build at {root} failed to play: {run.stderr.strip().splitlines()[-1:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


class BenchError(Exception):
    """A build that cannot be measured (one clear line)."""


def check_baseline(path: Path) -> Path:
    """The checkout root of a baseline build: a folder with sim/games.py and a built core beside it."""
    root = Path(path).resolve()
    if not (root / "sim" / "games.py").is_file() or not (root / "core").is_dir():
        raise BenchError(f"--baseline {path}: not a playtest checkout (no sim/games.py and core/ in it)")
    if not any((root / "core").glob("*engine*.so")) and not any((root / "core").glob("*engine*.pyd")):
        raise BenchError(f"--baseline {path}: its core is not built (run `python setup.py build_ext --inplace` "
                         "there)")
    return root


def _rates(runs: list[dict]) -> dict:
    """The best (least loaded) of the alternating samples of one build, as rates."""
    def best(key: str, sub=None) -> dict:
        pick = [r[key] if sub is None else r[key][sub] for r in runs]
        return min(pick, key=lambda s: s["cpu_s"] / s["games"])
    h, r = best("heuristic"), best("random")
    out = {"heuristic_games_per_s": round(h["games"] / h["cpu_s"]),
           "heuristic_turns_per_s": round(h["turns"] / h["cpu_s"]) if h["turns"] else None,
           "heuristic_decisions_per_game": round(h["decisions"] / h["games"], 1) if "decisions" in h else None,
           "heuristic_turns_per_game": round(h["turns"] / h["games"], 2) if h["turns"] else None,
           "random_turns_per_s": round(r["turns"] / r["cpu_s"]) if r["turns"] else None,
           "random_games_per_s": round(r["games"] / r["cpu_s"]),
           "records_sha256": {"heuristic": h["records_sha256"], "random": r["records_sha256"]},
           "columns_sha256": {"heuristic": h.get("columns_sha256", {}), "random": r.get("columns_sha256", {})},
           "search": []}
    if "engine_s" in h:       # the share of play_batch that is building the Arrow table, not playing
        out["heuristic_engine_games_per_s"] = round(h["games"] / h["engine_s"])
        out["heuristic_table_share"] = round(1 - h["engine_s"] / h["cpu_s"], 3)
    out["options"] = {}
    for label in runs[0].get("options", {}):      # engine options this build has: heuristic and random rates
        if all(label in r.get("options", {}) for r in runs):
            oh = min((r["options"][label]["heuristic"] for r in runs), key=lambda x: x["cpu_s"] / x["games"])
            orr = min((r["options"][label]["random"] for r in runs), key=lambda x: x["cpu_s"] / x["games"])
            out["options"][label] = {
                "heuristic_games_per_s": round(oh["games"] / oh["cpu_s"]),
                "heuristic_turns_per_s": round(oh["turns"] / oh["cpu_s"]) if oh["turns"] else None,
                "heuristic_turns_per_game": round(oh["turns"] / oh["games"], 2) if oh["turns"] else None,
                "random_turns_per_s": round(orr["turns"] / orr["cpu_s"]) if orr["turns"] else None,
                "records_sha256": {"heuristic": oh["records_sha256"], "random": orr["records_sha256"]}}
    for i in range(len(runs[0]["search"])):
        s = best("search", i)
        out["search"].append({"bots": s["bots"], "games_per_s": round(s["games"] / s["cpu_s"], 2),
                              "rollouts_per_s": round(s["rollouts"] / s["cpu_s"]) if "rollouts" in s else None,
                              "records_sha256": s["records_sha256"], "columns_sha256": s.get("columns_sha256", {})})
    return out


def _same_games(cur: dict, base: dict) -> tuple[bool, list[str], list[str]]:
    """(the same games, columns only this build records, columns only the baseline records): the games
    of every batch compared column by column over the columns both builds record, so that a new record
    column (a new rule parameter) does not hide whether the games changed."""
    pairs = [(cur["columns_sha256"][k], base["columns_sha256"][k]) for k in ("heuristic", "random")]
    pairs += [(a["columns_sha256"], b["columns_sha256"]) for a, b in zip(cur["search"], base["search"])]
    same = all(a[c] == b[c] for a, b in pairs for c in set(a) & set(b)) and all(a and b for a, b in pairs)
    return same, sorted(set(pairs[0][0]) - set(pairs[0][1])), sorted(set(pairs[0][1]) - set(pairs[0][0]))


def core_speed_markdown(report: dict) -> str:
    cur, base = report["current"], report.get("baseline")
    head = "| measure | this build |" + (" baseline | ratio |" if base else "")
    lines = [f"# playtest bench --core-speed ({report['date']}, {report['code_version']})", "",
             f"{report['machine']}; one process per sample, one core, processor time; seed {report['seed']}; "
             f"{report['preset']}; {report['rounds']} alternating rounds, the best of each build.", "",
             head, "|---|---:|" + ("---:|---:|" if base else "")]

    def row(label: str, a, b) -> None:
        if a is None:
            return
        cell = f"| {label} | {a:,} |"
        if base:
            cell += f" {b:,} | {a / b:.2f}x |" if b else " | |"
        lines.append(cell)

    for key, label in (("heuristic_games_per_s", "heuristic games/s"), ("heuristic_turns_per_s", "heuristic turns/s"),
                       ("heuristic_engine_games_per_s", "heuristic games/s, playing alone (no table)"),
                       ("random_turns_per_s", "random-bot turns/s"), ("random_games_per_s", "random-bot games/s")):
        row(label, cur.get(key), base.get(key) if base else None)
    for i, s in enumerate(cur["search"]):
        row(f"{s['bots']} rollouts/s", s["rollouts_per_s"], base["search"][i]["rollouts_per_s"] if base else None)
        row(f"{s['bots']} games/s", s["games_per_s"], base["search"][i]["games_per_s"] if base else None)
    for label, o in cur.get("options", {}).items():   # other games than the default: the ratio is to the
        base_o = (base or {}).get("options", {}).get(label)       # baseline's same option, else its default
        for key, what in (("heuristic_games_per_s", "heuristic games/s"), ("heuristic_turns_per_s",
                                                                            "heuristic turns/s"),
                          ("random_turns_per_s", "random-bot turns/s")):
            row(f"{what}, {label}" + ("" if base_o or not base else " (ratio to the baseline's default)"),
                o.get(key), (base_o or base).get(key) if base else None)
    if "heuristic_table_share" in cur:
        lines += ["", f"Building the Arrow table is {100 * cur['heuristic_table_share']:.1f}% of the heuristic "
                      f"batch's time ({cur['heuristic_turns_per_game']} turns, "
                      f"{cur['heuristic_decisions_per_game']} top-level decisions a game)."]
    if base:
        added, removed = report.get("columns_added", []), report.get("columns_removed", [])
        layout = "".join(f"; this build {what} the column(s) {', '.join(cols)}"
                         for what, cols in (("adds", added), ("drops", removed)) if cols)
        lines += ["", "Same records as the baseline: " + ("yes" if report["identical_records"] else "NO") +
                  " (heuristic, random and search batches, by hash, over the columns both builds record"
                  + layout + ")."]
    return "\n".join(lines) + "\n"


def run_core_speed(out: Path, baseline: Path | None, rounds: int, games: int, random_games: int, bot_games: int,
                   specs: list[str], seed: int, game: str | None, console) -> dict:
    """The profiled preset's core speed (heuristic games/s and turns/s, random-bot turns/s, search bots'
    rollouts/s) for this build and, if given, a baseline build, sampled in alternating processes."""
    target = profiled(game)
    root = Path(__file__).resolve().parent.parent
    base_root = check_baseline(baseline) if baseline is not None else None
    g, label, rules, overrides, setup = target
    for spec in ["random", *specs]:                                   # every spec checked before any game
        get(g).resolve(rules, overrides, {**setup, "bots": spec}).check_engine("core")
    for options in get(g).bench_engine_options.values():
        get(g).resolve(rules, {**overrides, **options}, setup).check_engine("core")
    samples: dict[str, list] = {"current": [], "baseline": []}
    for k in range(rounds):
        for name, where in (("baseline", base_root), ("current", root)):
            if where is None:
                continue
            console.print(f"bench: round {k + 1}/{rounds}, {name} build ...", highlight=False)
            samples[name].append(_sample(where, target, seed, games, random_games, bot_games, specs))
    report = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), "code_version": code_version(), "seed": seed,
              "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
                         f"Python {platform.python_version()}",
              "preset": f"{g} {label}", "rounds": rounds, "games": games, "random_games": random_games,
              "bot_games": bot_games, "current": _rates(samples["current"])}
    if base_root is not None:
        report["baseline_root"] = str(base_root)
        report["baseline"] = _rates(samples["baseline"])
        cur, base = report["current"], report["baseline"]
        report["identical_records"], report["columns_added"], report["columns_removed"] = _same_games(cur, base)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    md = core_speed_markdown(report)
    out.with_suffix(".md").write_text(md)
    console.print(md, highlight=False)
    return report
