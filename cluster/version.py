"""Code version recorded with every sweep and part: git describe (or the package version) and the core's digest."""

from __future__ import annotations

import functools
import hashlib
import importlib
import importlib.machinery
import subprocess
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _core_files() -> list[Path]:
    import core
    here = Path(core.__file__).parent
    return sorted(p for suffix in importlib.machinery.EXTENSION_SUFFIXES for p in here.glob(f"*{suffix}"))


def core_digest() -> str:
    """Digest of the compiled engine core modules (``core/*.so``) on disk now (the build a sweep starts with)."""
    h = hashlib.sha256()
    for path in _core_files():
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


@functools.cache
def loaded_core_digest() -> str:
    """Digest of the core this process runs: every core module is imported first, then hashed, once."""
    for path in _core_files():
        importlib.import_module(f"core.{path.name.split('.')[0]}")
    return core_digest()


def code_version() -> str:
    """``git describe --always --dirty`` of the source tree when it is a checkout, else the package version."""
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT, capture_output=True, text=True,
                             timeout=10)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        return metadata.version("playtest")
    except metadata.PackageNotFoundError:
        return "unknown"
