"""Files: reading what we did not write, and writing so that no reader ever sees half a file.

Every file a user names (card data, sweep specs, suites, baselines, SQL files, manifests) is read
through :func:`read_bounded`, so a device such as ``/dev/zero``, a FIFO, a folder or a huge file is
refused in one line naming it instead of filling memory or blocking.

Every file playtest writes for others to read (result Parquet files, sweep parts, the manifest, a
baseline) is written under a hidden temporary name beside it and renamed into place
(:func:`replacing`, :func:`write_atomic`): a reader, or a sweep resumed after a crash, finds the old
file or the new one, never a torn one.

Every TOML or JSON file a user names is parsed through :func:`parse_toml` / :func:`parse_json` (or
:func:`load_toml_bounded` / :func:`load_json_bounded`), which refuse tables and lists nested more than
:data:`MAX_NESTING` deep in one line naming the file, instead of a RecursionError.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import Any, Iterator

MAX_TEXT_BYTES = 1 << 20            # card files, specs and SQL are a few KiB; more than 1 MiB is refused


def stat_named(path: str | Path, what: str, error: type[Exception]) -> os.stat_result:
    """``os.stat(path)`` (links followed), every failure one ``error`` line naming the file as a ``what``."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        raise error(f"{path}: no such {what}") from None
    except OSError as e:
        raise error(f"{path}: cannot read the {what} ({e.strerror or e})") from None
    except ValueError as e:                   # e.g. an embedded NUL in the path
        raise error(f"{str(path)!r}: not a usable file name ({e})") from None


def read_bounded(path: str | Path, what: str, error: type[Exception], limit: int = MAX_TEXT_BYTES) -> bytes:
    """The bytes of the regular file ``path`` of at most ``limit`` bytes, else ``error`` naming it."""
    st = stat_named(path, what, error)
    if stat.S_ISDIR(st.st_mode):
        raise error(f"{path}: is a folder, not a {what}")
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{path}: is not a regular file; expected a {what}")
    if st.st_size > limit:
        raise error(f"{path}: {st.st_size:,} bytes; a {what} is at most {limit:,} bytes")
    try:
        with open(path, "rb") as f:
            raw = f.read(limit + 1)           # the size may change between stat and read
    except OSError as e:
        raise error(f"{path}: cannot read the {what} ({e.strerror or e})") from None
    if len(raw) > limit:
        raise error(f"{path}: more than {limit:,} bytes; a {what} is at most {limit:,} bytes")
    return raw


def read_text_bounded(path: str | Path, what: str, error: type[Exception], limit: int = MAX_TEXT_BYTES) -> str:
    """:func:`read_bounded` decoded as UTF-8; bytes that are not UTF-8 are ``error`` naming the file."""
    raw = read_bounded(path, what, error, limit)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise error(f"{path}: not UTF-8 text (byte {e.start}); a {what} is a text file") from None


def unwritable(path: str | Path, folder: bool = False) -> str | None:
    """Why ``path`` cannot be written (as a file, or with ``folder=True`` as a folder to make or fill),
    checked before any work; None when it can. Folders that do not exist yet are made by the writer."""
    path = Path(path)
    if folder and path.exists() and not path.is_dir():
        return "is a file, not a folder; give a folder path"
    if not folder and path.is_dir():
        return f"is a folder; give a file name (e.g. {path / 'results.parquet'})"
    if not folder and path.exists() and not path.is_file():   # a device, FIFO or socket is never replaced
        return "is not a regular file; give a new file name"
    probe = path if folder else (path.parent if str(path.parent) else Path("."))
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    if not probe.is_dir():
        return f"cannot make the folder: {probe} is not a folder"
    if not os.access(probe, os.W_OK | os.X_OK):
        return f"cannot write there: folder {probe} is not writable"
    if not folder and path.exists() and not os.access(path, os.W_OK):
        return "the file exists and is not writable"
    return None


TMP_MARK = ".tmp-"                  # temporary names: ".<name>.tmp-<pid>", hidden, one per writing process


def temporary_name(path: str | Path) -> Path:
    """The hidden temporary name :func:`replacing` writes ``path`` under: ``.<name>.tmp-<pid>`` beside it."""
    path = Path(path)
    return path.with_name(f".{path.name}{TMP_MARK}{os.getpid()}")


@contextlib.contextmanager
def replacing(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path to write ``path``'s new content to; when the block ends without an error it is
    renamed onto ``path`` (atomic on one file system), and whatever happens it is not left behind.

    The folder is made if it is missing."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_name(path)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):    # renamed already, never made, or its folder went away
            tmp.unlink()


def write_atomic(path: str | Path, data: bytes | str, fsync: bool = False) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` through :func:`replacing`; ``fsync`` flushes it to the
    disk before the rename (a file a crash must never find empty, such as the sweep manifest)."""
    raw = data.encode() if isinstance(data, str) else data
    with replacing(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(raw)
            if fsync:
                f.flush()
                os.fsync(f.fileno())


# ---------------------------------------------------------------------------------------------------
# Parsing what we read: nesting bounded
# ---------------------------------------------------------------------------------------------------

MAX_NESTING = 32                    # tables and lists inside each other; specs, cards and baselines use < 8


def nesting_of_value(value: Any, limit: int = MAX_NESTING) -> int:
    """How deep dicts and lists nest in a parsed value (a TOML dotted key ``a.b.c`` nests without brackets),
    counted without recursion up to ``limit + 1``."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, (dict, list, tuple)):
            d += 1
            if d > deepest:
                deepest = d
                if deepest > limit:
                    break
            stack.extend((x, d) for x in (v.values() if isinstance(v, dict) else v))
    return deepest


def _too_deep(where: str, limit: int, parsed: bool = True) -> str:
    """The one line for a document nested too deep (``parsed``: read whole; else its parser gave up)."""
    return (f"{where}: {'' if parsed else 'not valid TOML: '}tables and lists nest more than {limit} deep; at "
            f"most {limit} levels are allowed")


def parse_toml(text: str, where: str, error: type[Exception], limit: int = MAX_NESTING) -> dict:
    """``text`` parsed as TOML, every failure one ``error`` line starting with ``where`` (the file): not TOML,
    or nested more than ``limit`` deep. The parser recurses once per level of brackets: a file nested
    thousands deep ends its recursion (RecursionError, caught here: the parser is pure Python and the JSON
    one checks its depth, so nothing overflows) and is refused the same way as one nested 33 deep."""
    import tomllib
    try:
        doc = tomllib.loads(text)
    except RecursionError:
        raise error(_too_deep(where, limit, parsed=False)) from None
    except ValueError as e:           # TOMLDecodeError; an integer of thousands of digits
        raise error(f"{where}: not valid TOML: {str(e)[:300]}") from None
    if nesting_of_value(doc, limit) > limit:
        raise error(_too_deep(where, limit))
    return doc


def parse_json(text: str | bytes, where: str, error: type[Exception], limit: int = MAX_NESTING,
               what: str = "", **options: Any) -> Any:
    """``text`` parsed as JSON (``options`` go to :func:`json.loads`), every failure one ``error`` line
    ``where: [what: ]not valid JSON (why)``: not UTF-8, not JSON, or nested more than ``limit`` deep."""
    import json
    head = f"{where}: {what}: " if what else f"{where}: "
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise error(f"{head}not valid JSON (not UTF-8 text: byte {e.start})") from None
    deep = f"{head}not valid JSON (lists and objects nest more than {limit} deep; at most {limit} levels are " \
           "allowed)"
    try:
        value = json.loads(text, **options)
    except RecursionError:
        raise error(deep) from None
    except ValueError as e:           # JSONDecodeError, a refused constant, an integer of thousands of digits
        raise error(f"{head}not valid JSON ({str(e)[:300]})") from None
    if nesting_of_value(value, limit) > limit:
        raise error(deep)
    return value


def load_toml_bounded(path: str | Path, what: str, error: type[Exception], limit: int = MAX_TEXT_BYTES,
                      nesting: int = MAX_NESTING) -> dict:
    """The TOML file ``path`` (a ``what``) read through :func:`read_text_bounded` and :func:`parse_toml`."""
    return parse_toml(read_text_bounded(path, what, error, limit), str(path), error, nesting)


def load_json_bounded(path: str | Path, what: str, error: type[Exception], limit: int = MAX_TEXT_BYTES,
                      nesting: int = MAX_NESTING, **options: Any) -> Any:
    """The JSON file ``path`` (a ``what``) read through :func:`read_bounded` and :func:`parse_json`."""
    return parse_json(read_bounded(path, what, error, limit), str(path), error, nesting, **options)
