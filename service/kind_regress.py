"""The regress and tune job kinds (service/kinds.py).

regress: a suite TOML and a baseline JSON (docs/regress.md), checked by the regress package's own readers
(``regress.suite.load_suite``, ``regress.baseline.load`` and ``check_against``), played by the regress step
(service/steps.py: the function ``playtest regress`` calls; a regression is an answer, so the step exits 0 and the
verdict is ``pass`` or ``regression``). Its report (report.md, report.html, result.json) is the job's own; its
games are the job's results folder (``--work``: one sweep folder per seed, ``seed-<n>/``).

tune: a tune spec TOML (docs/tuning.md), checked by ``cluster.tune.load_tune_spec``, played by the tune step
(``cluster.tune.run_tune``, as ``playtest tune SPEC --out RESULTS`` plays it), then the tune-answer step
(service/tunejob.py) writes a small page of its answer (tune.json). Its verdict is the best candidate's values (or
``none feasible``)."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from cluster.spec import SpecError
from service import kinds
from service.kinds import Checked, Context, Field, Kind, Options, Step, cards_of, register, text_input
from service.specs import _card_names

SUITE = "suite.toml"                  # how the job's files are named (and errors name them: never a server path)
BASELINE = "baseline.json"
TUNE = "tune.toml"
MAX_VERDICT = 80


def _scrub(message: str, folder: Path) -> str:
    """An error line with the scratch folder's paths as the job's own file names."""
    for name in (SUITE, BASELINE, TUNE):
        message = message.replace(str(folder / name), name)
    return " ".join(message.replace(str(folder), ".").split())


# regress ---------------------------------------------------------------------------------------------------

def check_regress(inputs: dict[str, Any], ctx: Context) -> Checked:
    """The suite and baseline, read by the regress package's readers from a scratch folder (with the card files),
    the baseline checked against the suite; the cost is every seed's sweep."""
    from regress import baseline as baseline_file
    from regress.suite import load_suite
    cards = cards_of(inputs)
    suite_text = text_input(inputs.get("suite"), SUITE, "a regress suite (TOML, docs/regress.md)")
    base_text = text_input(inputs.get("baseline"), BASELINE, "a baseline (JSON, written by playtest regress "
                           "--update-baseline)")
    ctx.scratch.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="regress-", dir=ctx.scratch))
    try:
        kinds.write_inputs({"own": folder}, suite_text, cards, SUITE)
        (folder / BASELINE).write_text(base_text, encoding="utf-8")
        try:
            suite = load_suite(folder / SUITE)
            sweep = suite.sweep
            try:
                _card_names(sweep, set(cards))
            except SpecError as e:
                raise SpecError(str(e).replace("spec.toml:", f"{SUITE} [sweep]:", 1)) from None
            old = baseline_file.load(folder / BASELINE)
            baseline_file.check_against(old, folder / BASELINE, suite)
            spec = suite.spec(suite.seeds[0])
        except (ValueError, OSError) as e:           # SuiteError, BaselineError, SpecError: one line each
            raise SpecError(_scrub(str(e), folder)) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    games = spec.total_games * len(suite.seeds)
    if games > ctx.max_games:
        raise SpecError(f"{SUITE}: {games:,} games ({len(spec.cells):,} cells x {spec.games_per_cell:,} x "
                        f"{len(suite.seeds)} seed(s)); this service plays at most {ctx.max_games:,} games a job")
    one = kinds.estimate_seconds(spec, ctx.workers)          # a seed's sweep, from a pilot of its first cell
    return Checked(kind="regress", name=suite.name, game=suite.game, cells=len(spec.cells), games=games,
                   text=suite_text, params={"baseline": base_text, **({"cards": cards} if cards else {})},
                   seconds=None if one is None else one * len(suite.seeds))


def prepare_regress(row: dict, paths: dict[str, Path]) -> None:
    params = row["params"]
    kinds.write_inputs(paths, row["spec_text"], params.get("cards", {}), SUITE)
    (paths["own"] / BASELINE).write_text(params.get("baseline", ""), encoding="utf-8")


def regress_steps(row: dict, paths: dict[str, Path], opts: Options) -> list[Step]:
    """One step: regress (a regress run is replayed whole on a resume: its work folder is cleared by regress
    itself)."""
    return [Step("regress", (str(paths["own"] / SUITE), "--baseline", str(paths["own"] / BASELINE), "--report",
                             str(paths["own"]), "--work", str(paths["out"]), *opts.args(resume=False)))]


def read_result(own: Path) -> dict:
    """The regress report's result.json of a job (bounded); a ValueError when it is missing or not a report."""
    from sim.files import read_bounded
    raw = read_bounded(own / "result.json", "regress result", ValueError, 64 * 2**20)
    data = json.loads(raw)
    if not isinstance(data, dict) or data.get("verdict") not in ("pass", "regression"):
        raise ValueError("result.json: not a regress result")
    return data


def finish_regress(row: dict, paths: dict[str, Path]) -> dict:
    return {"verdict": read_result(paths["own"])["verdict"]}


register(Kind(
    name="regress", title="a regression",
    about="Play a regress suite (docs/regress.md) and compare it with its baseline: the verdict is pass or "
          "regression, with the report (flagged metrics, changed cells, plots).",
    fields=(Field("suite", "Regress suite (TOML, docs/regress.md)", "textarea"),
            Field("baseline", "Baseline (JSON, from playtest regress --update-baseline)", "textarea"),
            Field("cards", "Card files the suite's [sweep] names in [data] (by file name, no folder)", "cards")),
    check=check_regress, prepare=prepare_regress, steps=regress_steps, finish=finish_regress,
    pages=(("report", "report.html", "Open the regression report"),),
    results=False))


# tune ------------------------------------------------------------------------------------------------------

def check_tune(inputs: dict[str, Any], ctx: Context) -> Checked:
    """The tune spec, read by ``cluster.tune.load_tune_spec`` from a scratch file; its cost is its cap."""
    from cluster.tune import TuneError, load_tune_spec
    text = text_input(inputs.get("spec"), TUNE, "a tune spec (TOML, docs/tuning.md)")
    ctx.scratch.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="tune-", dir=ctx.scratch))
    try:
        (folder / TUNE).write_text(text, encoding="utf-8")
        try:
            spec = load_tune_spec(folder / TUNE)
        except (TuneError, SpecError, ValueError, OSError) as e:
            raise SpecError(_scrub(str(e), folder)) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    candidates = len(spec.candidates()) if spec.search == "race" else spec.trials
    cells = candidates * len(spec.holds)
    games = candidates * spec.max_games_per_candidate
    if games > ctx.max_games:
        raise SpecError(f"{TUNE}: at most {games:,} games ({candidates:,} candidates x "
                        f"{spec.max_games_per_candidate:,}); this service plays at most {ctx.max_games:,} games a job")
    return Checked(kind="tune", name=spec.name, game=spec.game, cells=cells, games=games, text=text, stop=True,
                   seconds=_tune_seconds(spec, games, ctx.workers))


def _tune_seconds(spec, games: int, workers: int) -> float | None:
    """The time of a tune's cap: a pilot of its first candidate's first cell (the candidates change rules, not bots,
    so they play at about one speed); None when it cannot be piloted (a search that draws its candidates as it goes)."""
    from cluster.tune import TuneError, check_sweep
    if spec.search != "race":
        return None
    try:
        sweep = check_sweep(spec, spec.candidates()[:1])
    except (TuneError, SpecError, ValueError):
        return None
    one = kinds.estimate_seconds(sweep, workers)
    return None if one is None or not sweep.total_games else one * games / sweep.total_games


def prepare_tune(row: dict, paths: dict[str, Path]) -> None:
    paths["own"].mkdir(parents=True, exist_ok=True)
    (paths["own"] / TUNE).write_text(row["spec_text"], encoding="utf-8")


def tune_steps(row: dict, paths: dict[str, Path], opts: Options) -> list[Step]:
    args = (str(paths["own"] / TUNE), "--out", str(paths["out"]),
            *opts.args(resume=(paths["out"] / "tune.json").is_file()))     # a tune that began: finish it
    return [Step("tune", args), Step("tune-answer", (str(paths["out"]), str(paths["own"])), label="answer")]


def finish_tune(row: dict, paths: dict[str, Path]) -> dict:
    from sim.files import read_bounded
    data = json.loads(read_bounded(paths["own"] / "answer.json", "tune answer", ValueError, 2**20))
    verdict = str(data.get("verdict") or "")
    return {"verdict": verdict[:MAX_VERDICT]}


register(Kind(
    name="tune", title="a tune",
    about="Race candidate rule parameter values toward a target (docs/tuning.md): the answer is the best "
          "candidate, the ones that cannot be told apart from it, and the games spent.",
    fields=(Field("spec", "Tune spec (TOML, docs/tuning.md)", "textarea"),),
    check=check_tune, prepare=prepare_tune, steps=tune_steps, finish=finish_tune,
    pages=(("answer", "tune.html", "Open the tune's answer"),)))
