"""Layers point down only, read from the import statements of every module (those inside functions too).

From the bottom: ``core`` (the compiled engines), ``sim`` (rules, reference engines, the game registry),
``infra`` (shared infrastructure used by no game: folders, storage, statistics, filter expressions), then ``cluster`` (Ray sweeps) and ``queries`` (DuckDB) beside each other, then ``regress`` (the nightly
regression) and ``measures`` (answers read from a sweep's folder and its spec) beside each other, then
``service`` (``playtest serve``, the web service: it calls the functions the command line calls, and runs jobs
as ``playtest`` child processes, never importing the command line), then ``cli`` (the ``playtest`` command line,
whose ``serve`` starts the service). A module may import its own package and the layers below it, never a layer
above or a package beside it. Inside ``sim``, the shared modules
(``sim/*.py``) import no game package, and no game package imports another: a game is a plugin that
the registry finds through its entry point.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYER = {"core": 0, "sim": 1, "infra": 1.5, "cluster": 2, "queries": 2, "regress": 3, "measures": 3, "service": 4, "cli": 5}
# a game package is one with a plugin module; other subpackages of sim (the kit) are shared code
GAME_PACKAGES = sorted(p.name for p in (ROOT / "sim").iterdir() if (p / "plugin.py").is_file())


def modules() -> list[Path]:
    found = [p for pkg in LAYER if pkg != "core" for p in sorted((ROOT / pkg).rglob("*.py"))]
    return found + sorted((ROOT / "core").glob("*.py"))


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> list[tuple[int, str]]:
    """(line, dotted module) of every import in the file, at any depth (function-level ones included)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:                    # relative: resolved against the module's package
                base = package[:len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module
            out.append((node.lineno, name))
            out += [(node.lineno, f"{name}.{alias.name}") for alias in node.names]   # from pkg import module
    return out


def ties(path: Path) -> list[tuple[int, str]]:
    """What a module depends on: its imports and what it has a child process run (a tie for the layers, not for
    the cycle check: a child process imports afresh)."""
    return imports(path) + run_imports(ast.parse(path.read_text(), filename=str(path)))


def run_imports(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, dotted module) of what a child process is told to run: ``-m MODULE`` in a literal argument list, and
    the imports of code passed as a string (``-c "from cli.main import app; app()"`` or any string that is Python
    with an import in it): an upward tie through a subprocess is an upward tie all the same."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)):
            items = node.elts
            for flag, value in zip(items, items[1:]):
                if _text(flag) == "-m" and _text(value):
                    out.append((value.lineno, _text(value)))
        text = _text(node)
        if text and ("import " in text) and ("\n" in text or ";" in text or text.startswith(("from ", "import "))):
            try:
                code = ast.parse(text)
            except SyntaxError:
                continue
            for inner in ast.walk(code):
                if isinstance(inner, ast.Import):
                    out += [(node.lineno, alias.name) for alias in inner.names]
                elif isinstance(inner, ast.ImportFrom) and inner.module and not inner.level:
                    out.append((node.lineno, inner.module))
    return out


def _text(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def ours(name: str) -> bool:
    return name.split(".")[0] in LAYER


def problems(path: Path) -> list[str]:
    me = module_name(path)
    top = me.split(".")[0]
    where = path.relative_to(ROOT)
    found = []
    for line, name in ties(path):
        parts = name.split(".")
        if not ours(name) or parts[0] == top and top != "sim":
            continue
        if LAYER[parts[0]] > LAYER[top] or (LAYER[parts[0]] == LAYER[top] and parts[0] != top):
            found.append(f"{where}:{line}: {me} ({top}) imports {name} ({parts[0]}): a layer above or beside it")
        if top == "sim" and parts[0] == "sim" and len(parts) > 1 and parts[1] in GAME_PACKAGES:
            mine = me.split(".")[1] if me.count(".") >= 1 and me.split(".")[1] in GAME_PACKAGES else None
            if mine != parts[1]:
                found.append(f"{where}:{line}: {me} imports the game package sim.{parts[1]}"
                             + ("" if mine else " (shared code knows no game: ask sim.games)"))
    return found


def test_the_layers_and_game_packages_are_found():
    assert len(modules()) > 40
    from sim.games import GAMES
    assert GAME_PACKAGES and set(GAME_PACKAGES) == set(GAMES.names())
    assert {module_name(p).split(".")[0] for p in modules()} == set(LAYER)


@pytest.mark.parametrize("package", sorted(LAYER))
def test_no_import_points_up_or_sideways(package):
    found = [line for p in modules() if module_name(p).split(".")[0] == package for line in problems(p)]
    assert not found, "\n".join(found)


def node(module: str) -> str:
    """A module as a node of the import graph; a game package is one node (its rule modules may call
    each other, as the rulebook's sections do)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "sim" and len(parts) > 1 and parts[1] in GAME_PACKAGES else module


def test_no_import_cycle_among_our_modules():
    """Not even through an import inside a function: no import is lazy to dodge a cycle."""
    graph: dict[str, set[str]] = {}
    known = {module_name(p) for p in modules()}
    for p in modules():
        me = node(module_name(p))
        for _, name in imports(p):
            while name and name not in known:      # "from sim.games import GAMES" -> sim.games
                name = name.rpartition(".")[0]
            if name and node(name) != me:
                graph.setdefault(me, set()).add(node(name))
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                cycle = stack[stack.index(d):] + [d]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if d not in state:
                visit(d)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


def test_the_checker_sees_an_import_that_points_up(tmp_path, monkeypatch):
    """The check itself: a function-level import of the CLI from sim, and a game imported by shared code."""
    monkeypatch.setattr("test_layers.ROOT", tmp_path)
    (tmp_path / "sim").mkdir()
    probe = tmp_path / "sim" / "probe.py"
    probe.write_text(f"def f():\n    from cli.common import fail\n    import sim.{GAME_PACKAGES[0]}.rules\n")
    found = problems(probe)
    assert any("sim.probe (sim) imports cli.common (cli)" in f for f in found), found
    assert any(f"imports the game package sim.{GAME_PACKAGES[0]}" in f for f in found), found


def test_the_checker_sees_a_child_process_that_runs_a_layer_above(tmp_path, monkeypatch):
    """A ``-c`` string into the command line and a ``-m`` module name are ties like any import."""
    monkeypatch.setattr("test_layers.ROOT", tmp_path)
    (tmp_path / "service").mkdir()
    probe = tmp_path / "service" / "probe.py"
    probe.write_text('import sys\nCLI = "from cli.main import app; app()"\n'
                     'ARGS = [sys.executable, "-m", "cli.main", "sweep"]\n'
                     'FINE = [sys.executable, "-m", "cluster.bench"]\n')
    found = problems(probe)
    assert sum("service.probe (service) imports cli.main (cli)" in f for f in found) == 2, found
    assert not any("cluster" in f for f in found), found
