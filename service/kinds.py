"""Job kinds: what the service runs for a submission. Each kind names the form fields it takes (specs and card files
as text, never code or a path on the server), checks them with the library's own readers (the ones the command line
calls: the same one-line errors, nothing stored on a refusal), says its cost, and lists its steps (:class:`Step`), in
order, over the job's folders (``service.runner.layout``): each is ``python -m service.steps NAME ARGS`` in a child
process, calling the library functions the matching ``playtest`` command calls. The runner knows nothing of a kind
beyond that list (service/lifecycle.py).

A kind is registered here with :func:`register`; the sweep kind is below, the others in their own modules, imported
by service/jobkinds.py (which the runner imports, so that ``KINDS`` holds them all; not here: each imports this
module, and importing it back would be a cycle)."""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from cluster.spec import SpecError
from service.specs import MAX_UPLOAD, check_key_dots, check_text, dotted_key_line, rule_set_of

MAX_CARD_FILES = 8                                     # card files sent with one spec, at most
PILOT_S = 0.2                                          # play this long (one core) to estimate a sweep's time
PILOT_WAIT_S = 4 * PILOT_S + 0.5                       # a pilot that takes longer says nothing


@dataclass(frozen=True)
class Field:
    """One input of a kind's form (and key of its API body)."""

    name: str
    label: str
    widget: str = "text"                   # text, textarea, number, select, run (a run id), cards (card files)
    help: str = ""
    options: tuple[str, ...] = ()
    default: str = ""


@dataclass(frozen=True)
class Checked:
    """A submission that passed its kind's checks: what the catalog stores and the cost shown before it starts."""

    kind: str
    name: str                              # the question: the spec's name, or the kind's own words
    game: str
    cells: int
    games: int
    text: str                              # the main spec's text (stored as the job's spec_text)
    params: dict = field(default_factory=dict)   # the kind's other inputs, JSON (card files as text included)
    stop: bool = False
    rule_set: str = ""
    seconds: float | None = None           # the estimated time to play, when it could be measured

    def cost(self, estimate: "Estimate | None" = None) -> str:
        """The cost in words; ``estimate``: the time calibrated on this service's finished runs (:func:`calibrated`),
        shown as a range."""
        what = f"{self.cells:,} cells, {'at most ' if self.stop else ''}{self.games:,} games" if self.games else \
            f"{self.cells:,} cells" if self.cells else "no games to play"
        if estimate is None and self.seconds:
            estimate = calibrated(self.seconds, [])
        eta = f", {estimate.words()}" if estimate is not None else ""
        return f"{what}{eta} ({self.name}, {self.game})"


START_S = 12.0         # a job's fixed time besides play (2 cores: the steps' start, the report; bench/service-estimates.md)
SPREAD = 2.0           # the range before any run of the kind has finished here: a factor of 2 either way
MIN_SPREAD, MAX_SPREAD = 1.3, 4.0


@dataclass(frozen=True)
class Estimate:
    """A job's time from start to end: ``low`` to ``high`` seconds, calibrated on ``runs`` finished runs."""

    low: float
    high: float
    runs: int

    def text(self) -> str:
        lo, hi = _duration(self.low), _duration(self.high)
        return lo if lo == hi else f"{lo} to {hi}"

    def words(self) -> str:
        how = (f"calibrated on the {self.runs} latest finished run(s) of this kind on this machine" if self.runs else
               "from a pilot on this machine, not yet calibrated on a finished run")
        return f"about {self.text()} from start to end ({how})"


def calibrated(pilot_s: float, history: list[tuple[float, float]]) -> Estimate:
    """The range a job should take, from its pilot's time to play (``pilot_s``) and ``history``: (pilot's seconds,
    the seconds it took from start to end) of the kind's latest done runs here. A run takes ``START_S`` plus
    ``scale`` x its pilot's time, the scale the median of the runs' own (so a pilot that is slow or fast on this
    machine, or blind to a spec's later cells, is corrected by what the runs took); the range is as wide as the
    worst of those runs was off under that scale (at least x1.3, at most x4; x2 either way before any run)."""
    pilot_s = max(0.0, float(pilot_s))
    pairs = [(p, t) for p, t in history if p > 0 and t > 0]
    if not pairs:
        mid = START_S + pilot_s
        return Estimate(mid / SPREAD, mid * SPREAD, 0)
    logs = sorted(math.log(max(t - START_S, 0.05 * t) / p) for p, t in pairs)
    scale = math.exp(_median(logs))
    worst = max(abs(math.log(t / (START_S + scale * p))) for p, t in pairs)
    spread = min(MAX_SPREAD, max(MIN_SPREAD, math.exp(worst) * 1.1))
    mid = START_S + scale * pilot_s
    return Estimate(mid / spread, mid * spread, len(pairs))


def _median(xs: list[float]) -> float:
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


@dataclass(frozen=True)
class Context:
    """What a kind's check may consult: scratch space, the service's limits, the catalog's runs (by id) and their
    results folders."""

    scratch: Path
    max_games: int
    workers: int
    job: Callable[[str], dict | None]
    results: Callable[[str], Path]


@dataclass(frozen=True)
class Options:
    """How the runner asks for steps: each sweep's --workers, a Ray cluster's --address, resuming or not."""

    workers: int | None = None
    address: str | None = None
    resume: bool = False

    def args(self, resume: bool | None = None) -> list[str]:
        """A step's options that say these (``resume``: the caller's own say, when it has one)."""
        out = ["--workers", str(self.workers)] if self.workers else []
        out += ["--address", self.address] if self.address else []
        return out + (["--resume"] if (self.resume if resume is None else resume and self.resume) else [])


@dataclass(frozen=True)
class Step:
    """One step of a job: ``python -m service.steps NAME *ARGS`` in a child process of its own session
    (service/steps.py names every step). ``failure``: a last step whose failure leaves the job done, with this
    reason and the step's error (the report: the games are played, the page could not be drawn)."""

    name: str                              # a key of service.steps.STEPS
    args: tuple[str, ...] = ()
    label: str = ""                        # how the log and an error name it (default: its name)
    failure: str = ""

    @property
    def title(self) -> str:
        return self.label or self.name

    def argv(self) -> list[str]:
        """The child's arguments after the interpreter."""
        return ["-m", "service.steps", self.name, *self.args]


@dataclass(frozen=True)
class Kind:
    name: str
    title: str                             # "a sweep": how the form and the run list say it
    about: str                             # one sentence for the form
    fields: tuple[Field, ...]
    check: Callable[[dict[str, Any], Context], Checked]
    steps: Callable[[dict, dict[str, Path], Options], list[Step]]
    prepare: Callable[[dict, dict[str, Path]], None] | None = None     # write its inputs into the job's folder
    finish: Callable[[dict, dict[str, Path]], dict] | None = None      # after the last step: catalog values
    pages: tuple[tuple[str, str, str], ...] = ()   # (name, file in the job's folder, link text) served per run
    results: bool = True                   # whether it writes a results folder the console can read
    object_storage: bool = False           # whether that folder may be on object storage (serve --results s3://)


KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    KINDS[kind.name] = kind
    return kind


def kind_of(name: Any) -> Kind | None:
    return KINDS.get(name) if isinstance(name, str) else None


def child_uri(base: str, rel: str) -> str:
    """``rel`` under the URI ``base`` (before its ``?query``): where a run's results are on object storage."""
    head, sep, query = base.partition("?")
    return f"{head.rstrip('/')}/{rel}{sep}{query}"


def has_manifest(out: Path | str) -> bool:
    """Whether a run's results (a folder, or a prefix on object storage) hold a sweep's manifest."""
    if isinstance(out, Path):
        return (out / "manifest.json").is_file()
    from queries import errors, sources
    try:
        return sources.read_manifest(out) is not None
    except (errors.ResultsError, errors.QueryError, OSError, ValueError):
        return False


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


# inputs ----------------------------------------------------------------------------------------------------------

def text_of(inputs: dict[str, Any], name: str, limit: int = 200, *, label: str | None = None) -> str:
    """A short text input, stripped; a SpecError of one line when it is not text or too long."""
    value = inputs.get(name, "")
    if value is None:
        value = ""
    if isinstance(value, (bytes, bytearray)):
        try:
            value = bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            raise SpecError(f"{label or name}: not UTF-8 text") from None
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise SpecError(f"{label or name}: expected text")
    value = str(value).strip()
    if len(value) > limit:
        raise SpecError(f"{label or name}: {len(value):,} characters; at most {limit:,}")
    if any(ord(ch) < 32 for ch in value):
        raise SpecError(f"{label or name}: control characters are not allowed")
    return value


def cards_of(inputs: dict[str, Any]) -> dict[str, str]:
    """The card files sent with a spec: {file name: TOML text}; names are bare file names (no folder), checked
    here; the text is checked by the game's card reader when the spec is read."""
    cards = inputs.get("cards") or {}
    if not isinstance(cards, dict):
        raise SpecError("cards: expected {file name: TOML text}")
    if len(cards) > MAX_CARD_FILES:
        raise SpecError(f"cards: {len(cards)} files; at most {MAX_CARD_FILES} card files with one spec")
    out = {}
    for name, data in cards.items():
        if not isinstance(name, str) or not _bare_name(name):
            raise SpecError(f"card file {str(name)[:80]!r}: a file name of letters, digits, '_', '-' and '.', "
                            "ending .toml (no folder)")
        out[name] = text_input(data, f"card file {name}", "a card file (TOML)")
    return out


def text_input(data: Any, what: str, example: str) -> str:
    """A pasted or uploaded text input, bounded (MAX_UPLOAD bytes), UTF-8, no NUL; a SpecError of one line."""
    if data is None:
        data = ""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if not isinstance(data, (bytes, bytearray)):
        raise SpecError(f"{what}: expected text ({example})")
    if not bytes(data).strip():
        raise SpecError(f"{what}: empty; paste or upload {example}")
    if len(data) > MAX_UPLOAD:
        raise SpecError(f"{what}: {len(data):,} bytes; at most {MAX_UPLOAD:,} are accepted")
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        raise SpecError(f"{what}: not UTF-8 text; expected {example}") from None
    if "\x00" in text:
        raise SpecError(f"{what}: holds a NUL character; expected {example}")
    check_key_dots(text, what)
    return text


# ``model=REF`` in a bot spec (sim.kit.bots reads the key stripped, its value up to the next ':'; a bots string is
# split at ',' first): a learned model, which sim.kit.learned.model_path reads from a path when REF holds '/' or ends
# '.json'. The service plays shipped models by name only: a spec never makes it open a file of its machine.
MODEL_KEY = re.compile(r"model\s*=([^:\n]*)")
QUOTES = " \t\r\"'[]{}"                              # around a value in TOML text read as raw text
MAX_DEPTH = 64                                         # inputs nested deeper are refused


def shipped_models() -> dict[str, list[str]]:
    """{game: the names of its shipped learned models}."""
    from sim.games import GAMES
    from sim.kit.learned import shipped_models as shipped
    return {g: shipped(GAMES[g].models_dir) for g in GAMES.names() if GAMES[g].features is not None}


def only_shipped_models(inputs: Any) -> None:
    """Every ``model=REF`` a job's inputs name (in any text, raw and as TOML or JSON read) is a shipped model's name
    (``NAME`` or ``NAME@DIGEST``); a SpecError of one line otherwise, before any reader sees the inputs, so no file
    of the server is opened for a spec and no error says whether one exists or what it holds."""
    known = sorted({m for names in shipped_models().values() for m in names})
    for text in _texts(inputs):
        for value in MODEL_KEY.findall(text):
            pieces = [p.partition("@")[0].strip(QUOTES) for p in value.split(",")]
            if "/" in value or "\\" in value or any(p.endswith(".json") for p in pieces) or pieces[0] not in known:
                shown = " ".join(value.split())[:60]
                raise SpecError(f"model={shown!r}: this service plays shipped learned models by name only "
                                f"(model=NAME: {', '.join(known) or 'none'}); it opens no model file")


def _texts(value: Any, parse: bool = True, depth: int = 0):
    """Every text in ``value`` (a job's inputs: text, bytes, dicts and lists of them) and, with ``parse``, the strings
    of each text read as TOML or JSON (a bot spec written with escapes is found as it will be read)."""
    if depth > MAX_DEPTH:
        raise SpecError(f"the inputs are nested more than {MAX_DEPTH} deep")
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "replace")
    if isinstance(value, str):
        yield value
        if parse:
            for read in _read_as(value):
                yield from _texts(read, False, depth + 1)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _texts(k, parse, depth + 1)
            yield from _texts(v, parse, depth + 1)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _texts(v, parse, depth + 1)


def _read_as(text: str) -> list:
    """``text`` read as TOML and as JSON, each where it reads."""
    import json
    import tomllib
    out = []
    # a dotted key too long to read as TOML in good time is not read so here: the readers refuse it (check_key_dots)
    readers = (json.loads,) if dotted_key_line(text) is not None else (tomllib.loads, json.loads)
    for read in readers:
        try:
            out.append(read(text))
        except (ValueError, RecursionError, TypeError):
            pass
    return out


def _bare_name(name: str) -> bool:
    return (0 < len(name) <= 100 and name.endswith(".toml") and not name.startswith(".")
            and all(ch.isascii() and (ch.isalnum() or ch in "_-.") for ch in name))


def write_inputs(paths: dict[str, Path], text: str, cards: dict[str, str], spec_file: str = "spec.toml") -> Path:
    """The spec and its card files, written into the job's own folder (the spec names card files by bare name,
    so they resolve beside it)."""
    own = paths["own"]
    own.mkdir(parents=True, exist_ok=True)
    for name, body in cards.items():
        (own / name).write_text(body, encoding="utf-8")
    spec = own / spec_file
    spec.write_text(text, encoding="utf-8")
    return spec


# the time a sweep will take ---------------------------------------------------------------------------------------

_pilot_lock = threading.Lock()


def piloted(measure: Callable[[], Any]) -> Any:
    """``measure()`` (a pilot's timing), one at a time and for at most PILOT_WAIT_S; None when another pilot is
    running or this one outlasts the wait (a deep search bot's first game: the pilot would cost more than it tells;
    it finishes in the background, bounded by that one game)."""
    if not _pilot_lock.acquire(blocking=False):
        return None
    try:
        done: list[Any] = []
        t = threading.Thread(target=lambda: done.append(measure()), daemon=True)
        t.start()
        t.join(timeout=PILOT_WAIT_S)
        return done[0] if done else None
    finally:
        _pilot_lock.release()


def estimate_seconds(spec, workers: int) -> float | None:
    """A sweep's time to play, from a pilot of about PILOT_S on one core of its first cell (cluster.skill's), scaled
    to ``workers``; None when it cannot be piloted (``piloted``)."""
    from cluster.skill import pilot_speed
    speed = piloted(lambda: pilot_speed(spec, PILOT_S))
    return None if not speed or speed <= 0 else spec.total_games / (speed * max(1, workers))


# the sweep kind ---------------------------------------------------------------------------------------------------

def _sweep_check(inputs: dict[str, Any], ctx: Context) -> Checked:
    cards = cards_of(inputs)
    checked, spec = check_text(inputs.get("spec") or "", ctx.scratch, max_games=ctx.max_games, cards=cards)
    return Checked(kind="sweep", name=checked.name, game=checked.game, cells=checked.cells, games=checked.games,
                   text=checked.text, params={"cards": cards} if cards else {}, stop=checked.stop,
                   rule_set=rule_set_of(checked.text), seconds=estimate_seconds(spec, ctx.workers))


def _sweep_prepare(row: dict, paths: dict[str, Path]) -> None:
    write_inputs(paths, row["spec_text"], row["params"].get("cards", {}))


def sweep_step(paths: dict[str, Path], opts: Options, spec: str = "spec.toml") -> Step:
    """The sweep step (``playtest sweep SPEC --out RESULTS`` as a step) with the runner's options (a kind playing a
    sweep uses these)."""
    return Step("sweep", (str(paths["own"] / spec), "--out", str(paths["out"]), *opts.args()))


def report_step(paths: dict[str, Path]) -> Step:
    """The report step: the run's page, summary and verdict card; its failure leaves the run done, with the
    reason."""
    return Step("report", (str(paths["out"]), str(paths["own"])), failure="the report could not be built")


register(Kind(
    name="sweep", title="a sweep",
    about="Play every cell of a sweep spec (a [stop] spec plays until each cell's answer is precise enough); the "
          "report, the verdict card and the SQL console follow.",
    fields=(Field("spec", "Sweep spec (TOML, docs/sweeps.md)", "textarea"),
            Field("cards", "Card files the spec names in [data] (by file name, no folder)", "cards")),
    check=_sweep_check, prepare=_sweep_prepare,
    steps=lambda row, paths, opts: [sweep_step(paths, opts), report_step(paths)],
    pages=(("report", "report.html", "Open the report"),), object_storage=True))
