"""Code version recorded with every sweep and part: git describe (or the package version) and the core's digest."""

from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import subprocess
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@functools.cache
def core_digest() -> str:
    """Digest of the compiled engine core modules (``core/*.so``) this process would load."""
    import core
    h = hashlib.sha256()
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for path in sorted(Path(core.__file__).parent.glob(f"*{suffix}")):
            h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


@functools.cache
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
