"""Builds the Cython engine cores; everything else about the package is in pyproject.toml.

``PLAYTEST_CYTHON_DEBUG=1 pip install -e .`` turns bounds and negative-index checks back on (and
builds with -O0 -g); setting the variable at all, to 1 or 0, forces every module to be re-cythonized
so that switching it takes effect.
"""

import glob
import os
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

# Every compiled module is a core/<name>.pyx, found by name so that a new game's engine needs no line
# here. The engines include the engine kit (core/kit/*.pxi, docs/engine-kit.md) and their rule files;
# *_scenario modules are test-only builds of the same rules with scripted draws (only tests import them).
EXTENSIONS = sorted("core." + os.path.basename(path)[:-len(".pyx")]
                    for path in glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "core", "*.pyx")))

DEBUG = os.environ.get("PLAYTEST_CYTHON_DEBUG", "0") == "1"

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    # C division and modulo always: the engines' arithmetic must not change meaning in debug builds
    "cdivision": True,
    "initializedcheck": DEBUG,
}

if sys.platform == "win32":
    COMPILE_ARGS = ["/Od", "/Zi"] if DEBUG else ["/O2"]
else:
    COMPILE_ARGS = ["-O0", "-g"] if DEBUG else ["-O3"]


def extension(name: str) -> Extension:
    return Extension(name, [name.replace(".", "/") + ".pyx"], extra_compile_args=COMPILE_ARGS)


setup(
    ext_modules=cythonize(
        [extension(name) for name in EXTENSIONS],
        compiler_directives=DIRECTIVES,
        force="PLAYTEST_CYTHON_DEBUG" in os.environ,
    ),
)
