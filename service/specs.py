"""A sweep spec sent to the service (pasted or uploaded text), checked by the CLI's own reader: the text is written to a
temporary file and read by ``cluster.spec.load_spec``, so the service refuses exactly what ``playtest sweep`` refuses,
in the same one line. Card files come with the spec (by bare file name), never as a path on the server."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from cluster.spec import MAX_SPEC_BYTES, SpecError, SweepSpec, load_spec
from sim.files import load_toml_bounded
from sim.games import GAMES

MAX_UPLOAD = 256 * 1024             # a spec sent to the service, at most (the CLI reads up to 1 MiB from a file)
MAX_GAMES = 100_000_000             # games one job may ask for, by default (serve --max-games)
SHOWN = "spec.toml"                 # how the temporary file is named in an error line


@dataclass(frozen=True)
class Checked:
    """A spec that passed: its text, its name and game, and its cost."""

    text: str
    name: str
    game: str
    cells: int
    games: int
    stop: bool


def check_text(data: bytes | str, scratch: Path, *, max_games: int = MAX_GAMES,
               cards: dict[str, str] | None = None) -> tuple[Checked, SweepSpec]:
    """The spec ``data`` checked as ``playtest sweep`` checks a spec file; a SpecError of one line otherwise.
    ``cards``: the card files sent with it ({bare file name: TOML text}, service.kinds.cards_of), written beside it so
    that its [data] names find them and the game's card reader checks them. ``scratch``: a folder for the temporary
    files (removed again). Returns the facts the catalog keeps and the spec as read."""
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    if not data.strip():
        raise SpecError("the spec is empty; paste or upload a sweep spec (TOML, docs/sweeps.md)")
    if len(data) > MAX_UPLOAD:
        raise SpecError(f"the spec is {len(data):,} bytes; at most {MAX_UPLOAD:,} are accepted")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SpecError("the spec is not UTF-8 text; a sweep spec is a TOML file") from None
    if "\x00" in text:
        raise SpecError("the spec holds a NUL character; a sweep spec is a TOML text file")
    check_key_dots(text, SHOWN)
    scratch.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="spec-", dir=scratch))
    path = folder / SHOWN
    try:
        path.write_text(text, encoding="utf-8")
        for name, body in (cards or {}).items():
            (folder / name).write_text(body, encoding="utf-8")
        try:
            raw = load_toml_bounded(path, "spec file", SpecError, MAX_SPEC_BYTES)
            _card_names(raw, set(cards or {}))
            spec: SweepSpec = load_spec(path)
        except SpecError as e:
            raise SpecError(str(e).replace(str(path), SHOWN).replace(str(folder), ".")) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if spec.total_games > max_games:
        raise SpecError(f"{SHOWN}: {spec.total_games:,} games ({len(spec.cells):,} cells x {spec.games_per_cell:,}); "
                        f"this service plays at most {max_games:,} games a job")
    name = spec.name if "name" in raw else "(unnamed spec)"
    return Checked(text=text, name=str(name), game=spec.game, cells=len(spec.cells), games=spec.total_games,
                   stop=spec.stop is not None), spec


MAX_KEY_DOTS = 64                   # dots in one line's key: TOML's dotted keys nest (the readers allow 32 levels)


def dotted_key_line(text: str) -> int | None:
    """The first line (1-based) whose key, the text before its first ``=``, holds more than MAX_KEY_DOTS dots;
    None when none does. Python's TOML reader takes time quadratic in a dotted key's length (50,000 parts: 47 s of
    the service's CPU, before any nesting check can run), so such a text is refused before it is read."""
    for n, line in enumerate(text.splitlines(), start=1):
        key, eq, _ = line.partition("=")
        if eq and key.count(".") > MAX_KEY_DOTS:
            return n
    return None


def check_key_dots(text: str, what: str) -> None:
    """A SpecError of one line when ``text`` holds a dotted key too long to read (dotted_key_line)."""
    if (n := dotted_key_line(text)) is not None:
        raise SpecError(f"{what}: line {n}: a key of more than {MAX_KEY_DOTS} dotted parts; tables nest at most 32 "
                        "deep")


def _card_names(raw: dict, sent: set[str]) -> None:
    """Card files named by a spec ([data], or a [grid]/[[cells]] axis of a data key) must be bare file names sent with
    it: the service never reads a path on its own machine. One line otherwise, naming the key and what was sent."""
    if not isinstance(raw, dict):
        return
    game = raw.get("game")
    keys = set(GAMES[game].data_keys) if isinstance(game, str) and game in GAMES.names() else set()
    named: list[tuple[str, object]] = []
    if isinstance(raw.get("data"), dict):
        named += [(f"[data] {k}", v) for k, v in raw["data"].items()]
    grid = raw.get("grid") if isinstance(raw.get("grid"), dict) else {}
    for k, values in grid.items():
        if k in keys:
            named += [(f"[grid] {k}", v) for v in (values if isinstance(values, list) else [values])]
    cells = raw.get("cells") if isinstance(raw.get("cells"), list) else []
    for n, c in enumerate(cells):
        if isinstance(c, dict):
            named += [(f"[[cells]] #{n + 1} {k}", v) for k, v in c.items() if k in keys]
    for where, value in named:
        if not isinstance(value, str):
            continue                           # the spec reader names the wrong type
        if value not in sent:
            have = ", ".join(sorted(sent)) or "none"
            raise SpecError(f"{SHOWN}: {where} = {value[:100]!r}: send that card file with the spec (by its file name, "
                            f"no folder); card files sent: {have}")


# Games whose rule presets are their modes (Tales are Real: standard, 2v2, survive, survive-2v2, one rulebook), so
# that the rule set is the game itself; a game with versions of its rules (Paws in Peril v3, v3-ap3, v4) is named
# with the version, as the README and the findings say it ("Paws v4").
ONE_RULE_SET = ("tales",)


def rule_set_of(spec_text: str) -> str:
    """The rule set a sweep spec plays, as the rulebooks and docs name it: "paws v4", "tales"; several (when its
    cells differ) joined by ", " in the game's own order of presets ("paws v3, paws v4"). A cell without ``rules``
    plays the game's default preset. "" for text that is not a spec of a known game."""
    import tomllib
    try:
        raw = tomllib.loads(spec_text[:MAX_UPLOAD * 4])
    except (tomllib.TOMLDecodeError, TypeError, ValueError):
        return ""
    game = raw.get("game")
    if not isinstance(game, str) or game not in GAMES.names():
        return ""
    gdef = GAMES[game]
    if game in ONE_RULE_SET or "mode" in (gdef.preset_note or ""):
        return game
    top = raw.get("rules") if isinstance(raw.get("rules"), str) else None
    grid = raw.get("grid") if isinstance(raw.get("grid"), dict) else {}
    cells = [c for c in raw.get("cells", []) if isinstance(c, dict)] if isinstance(raw.get("cells"), list) else []
    named: list = []
    if grid or not cells:
        rules = grid.get("rules")
        named += rules if isinstance(rules, list) else [top]
    named += [c.get("rules", top) for c in cells]
    used = {gdef.default_preset if n is None else n for n in named if n is None or isinstance(n, str)}
    return ", ".join(f"{game} {p}" for p in gdef.presets if p in used)
