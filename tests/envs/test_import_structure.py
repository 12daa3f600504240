"""The import structure of ``envs``: no import cycle between its modules, nothing imports ``training``.

The graph is built from the source (``ast``), not by importing, so it sees every import whether or
not a test runs the code holding it:

* **module-level and function-level imports both** count: a function-level import is still a
  dependency (it runs the first time the function is called), and a cycle hidden in a function
  (``core.state`` -> ``core.heuristics`` -> ``registry`` -> ``core.state``) is a layering knot all
  the same; making an import lazy must not be a way round this test.
* imports under ``if TYPE_CHECKING:`` do not count: they never run (annotations only).
* plug-ins named by import-path strings (``GameInfo.heuristics``, ``.board``, ``.agents``,
  ``.records``, the registry's entry points) are not imports: they are loaded by name
  (:mod:`envs.core.plugins`), which is what keeps the rules below the code built on them.
* a package's ``__init__`` is a node like any module; importing ``envs.core.state`` does not add
  the implicit edges to ``envs`` and ``envs.core`` (Python runs those first, but they are not a
  dependency of the module's code).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported_names(path: Path, name: str) -> set[str]:
    """Every dotted name ``path`` imports (``from a.b import c`` gives ``a.b`` and ``a.b.c``),
    module-level and inside functions, except under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            skipped.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against the importing module's package
                package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join(package + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


def import_graph(package: str = "envs") -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """``(graph, external)``: ``graph[m]`` the modules of ``package`` that module ``m`` imports,
    ``external[m]`` every other top-level package it imports."""
    modules = {_module_name(p): p for p in sorted((ROOT / package).rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    external: dict[str, set[str]] = {}
    for name, path in modules.items():
        graph[name], external[name] = set(), set()
        for target in _imported_names(path, name):
            t = target
            while t and t not in modules:
                t = t.rpartition(".")[0]
            if t:
                if t != name:
                    graph[name].add(t)
            elif target:
                external[name].add(target.split(".")[0])
    return graph, external


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_the_modules_and_their_imports():
    graph, external = import_graph()
    assert {"envs", "envs.registry", "envs.core.state", "envs.core.errors", "envs.tantrix.robot"} <= set(graph)
    assert "envs.core.state" in graph["envs.ataxx.state"]
    assert "envs.tantrix.heuristics" in graph["envs.tantrix.robot"]  # a function-level import counts
    assert "envs.core.vector" in graph["envs.registry"]  # so does this one (in EnvSpec.make_vec)
    assert "numpy" in external["envs.core.state"]
    assert graph["envs.core.errors"] == set()  # the errors import nothing of the library


def test_cycles_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_envs():
    graph, _ = import_graph()
    assert cycles(graph) == []


def test_nothing_in_envs_imports_training():
    _, external = import_graph()
    offenders = sorted(m for m, pkgs in external.items() if "training" in pkgs)
    assert offenders == []


def test_the_rules_core_does_not_walk_the_registry():
    graph, _ = import_graph()
    core = sorted(m for m in graph if m.startswith("envs.core."))
    assert {"envs.core.state", "envs.core.records", "envs.core.vector", "envs.core.aec"} <= set(core)
    for module in core:  # envs.core.records reaches the registry through records.use_registry
        assert "envs.registry" not in graph[module], module


@pytest.mark.parametrize("env_id", ["ataxx_v0", "twixt_v0", "tantrix_v0", "smartrix_v0"])
def test_declared_plug_ins_resolve(env_id):
    import envs
    from envs.core.plugins import load_module

    info = envs.spec(env_id).game_info()
    for path in (info.heuristics, info.board, info.records):
        assert path and load_module(path)
    assert envs.spec(env_id).initial_state().agents().keys() == {name for name, _ in info.agents}


GAMES = ("ataxx", "twixt", "tantrix", "smartrix")


def test_no_game_imports_another_and_the_core_imports_no_game():
    graph, _ = import_graph()
    for module, targets in sorted(graph.items()):
        parts = module.split(".")
        game = parts[1] if len(parts) > 1 and parts[1] in GAMES else None
        for t in targets:
            tparts = t.split(".")
            tgame = tparts[1] if len(tparts) > 1 and tparts[1] in GAMES else None
            if module.startswith("envs.core"):
                assert tgame is None, f"{module} imports the game module {t}"
            if game is not None and tgame is not None:
                assert tgame == game, f"{module} imports another game's module {t}"
