"""A measure played as an ordinary sweep (``playtest restrict``, ``playtest card-worth``): its spec and any card
files it plays are written into its results folder, so ``playtest status DIR [--verify]`` and ``--resume`` work
as for any sweep, and the answer is read back from the folder's parts (the measure's package under measures/).

The folder: ``DIR/<measure>.toml`` (the sweep spec), ``DIR/<measure>.json`` (the answer, written when the sweep
is done), ``DIR/card-files/*.toml`` (card files the cells read, if any), the manifest and the parts. Verification
keeps all of them (cluster/verify.py ``own_files``).
"""

from __future__ import annotations

import json
import re
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from cluster.spec import SpecError, SweepSpec, parse_spec
from cluster.sweep import LOCK, SweepError, check_out_dir
from sim.files import parse_toml, read_text_bounded, write_atomic

CARD_FILES = "card-files"          # DIR/card-files/<name>.toml: the card files a measure's cells read


def toml_key(key: str) -> str:
    """A key bare where TOML allows it (letters, digits, _ and -), quoted otherwise."""
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


def toml_value(value: Any) -> str:
    """One TOML value: a string, integer, float, boolean, list or inline table of them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(str(value), ensure_ascii=False)      # a TOML basic string: JSON's escapes are TOML's


def toml_text(doc: dict, header: str = "", tables: tuple[str, ...] = (), arrays: tuple[str, ...] = ()) -> str:
    """``doc`` as TOML: its plain keys, then each of ``tables`` as ``[name]`` and each of ``arrays`` as ``[[name]]``;
    checked to read back as exactly ``doc`` (a file must say exactly what is played)."""
    lines = [f"# {line}" for line in header.splitlines()]
    lines += [f"{toml_key(k)} = {toml_value(v)}" for k, v in doc.items() if k not in tables + arrays]
    for key in tables:
        if key in doc:
            lines += ["", f"[{key}]"] + [f"{toml_key(k)} = {toml_value(v)}" for k, v in doc[key].items()]
    for key in arrays:
        for entry in doc.get(key, []):
            lines += ["", f"[[{key}]]"] + [f"{toml_key(k)} = {toml_value(v)}" for k, v in entry.items()]
    text = "\n".join(lines) + "\n"
    if tomllib.loads(text) != doc:
        raise ValueError("a TOML file does not read back as written")
    return text


def spec_text(raw: dict, header: str) -> str:
    """A sweep spec as TOML."""
    return toml_text(raw, header, tables=("setup", "overrides", "data"), arrays=("cells",))


def card_file_text(doc: dict, header: str = "") -> str:
    """A card file (``[meta]`` and ``[[card]]`` tables, sim/card_files.py) as TOML."""
    return toml_text(doc, header, tables=("meta",), arrays=("card",))


def _stored(path: Path, what: str) -> dict:
    try:
        return parse_toml(read_text_bounded(path, f"{what} spec", SpecError), str(path), SpecError)
    except SpecError as e:
        raise SweepError(f"{path}: cannot read the {what}'s spec ({e}); choose another --out") from None


def prepare(out: Path, stem: str, raw: dict, files: dict[str, str], resume: bool, what: str, header: str
            ) -> SweepSpec:
    """The measure's sweep in ``out``: the folder checked (a new or empty one; with ``resume``, one this measure
    started with the same settings), the spec and ``files`` ({path relative to out: text}) checked in a scratch
    folder, then written into ``out``. Raises SweepError or SpecError (one line) before anything is written."""
    check_out_dir(out)
    spec_path = out / f"{stem}.toml"
    text = spec_text(raw, header)
    present = out.is_dir() and any(p.name != LOCK for p in out.iterdir())
    if present and not spec_path.is_file():
        if (out / "manifest.json").exists():
            raise SweepError(f"{out} holds a sweep that is not a {what} (no {spec_path.name}); choose another --out")
        raise SweepError(f"{out}: not empty; choose a new or empty --out")
    if present and not resume:
        raise SweepError(f"{out} already holds a {what}; pass --resume to finish it, or choose a new or empty --out")
    if present:
        stored = _stored(spec_path, what)
        if stored != raw:
            differ = sorted(k for k in set(stored) | set(raw) if stored.get(k) != raw.get(k))
            raise SweepError(f"{spec_path}: the {what} in {out} was started with other settings ({', '.join(differ)} "
                             "differ); give the same options to finish it, or choose another --out")
        for rel, body in files.items():
            p = out / rel
            if not p.is_file() or p.read_text(encoding="utf-8") != body:
                raise SweepError(f"{p}: not the card file this {what} writes (missing or edited); choose another --out")
        return parse_spec(raw, source=str(spec_path), base_dir=out)
    with tempfile.TemporaryDirectory() as tmp:       # every cell checked before the folder is touched
        for rel, body in files.items():
            (Path(tmp) / rel).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / rel).write_text(body, encoding="utf-8")
        parse_spec(raw, source=str(Path(tmp) / spec_path.name), base_dir=tmp)
    out.mkdir(parents=True, exist_ok=True)
    for rel, body in files.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out / rel, body)
    write_atomic(spec_path, text)
    return parse_spec(raw, source=str(spec_path), base_dir=out)
