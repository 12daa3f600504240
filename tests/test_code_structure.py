"""The code's structure: no module imports another module's private name (a leading underscore).

A private name is a module's own business; importing it from elsewhere ties the two together
behind the name's back (``training/train.py`` and the RLlib trainer once imported each other's
helpers in a cycle). What several modules need is public in one place (e.g.
:mod:`training.runs`, the bitboard tables of ``envs/ataxx/state.py`` that its batched core
uses). Checked on the source, by its syntax tree, in ``training/``, ``envs/`` and ``room/``: every
``from X import _name``, and every ``module._name`` on a module the file imports
(``import x.y as m`` / ``from x import m`` then ``m._name``).
"""

import ast
from pathlib import Path

from conftest import REPO_ROOT


def _is_private(name: str) -> bool:
    """A leading underscore, not a dunder (``__version__``, ``__doc__`` are public)."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _imported_modules(tree: ast.AST, root: Path) -> set[str]:
    """The local names under which a file binds a module of the repository or the standard
    library: ``import x.y`` (``x``), ``import x.y as m`` (``m``), and ``from x import m`` where
    ``x/m.py`` or ``x/m/`` exists under ``root`` (a module, not a function or class)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            base = root.joinpath(*node.module.split("."))
            for alias in node.names:
                if (base / f"{alias.name}.py").exists() or (base / alias.name).is_dir():
                    names.add(alias.asname or alias.name)
    return names


def _private_imports(package: str, root: Path = REPO_ROOT) -> list[str]:
    """``path:line: from X import _name`` for every private name imported from another module, and
    ``path:line: m._name`` for every private attribute read from an imported module ``m``."""
    found = []
    for path in sorted((root / package).rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        modules = _imported_modules(tree, root)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    # ``from x import _y``: a private name of module x
                    if _is_private(alias.name):
                        module = "." * node.level + (node.module or "")
                        found.append(f"{path.relative_to(root)}:{node.lineno}: from {module} import {alias.name}")
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
                and _is_private(node.attr)
            ):
                found.append(f"{path.relative_to(root)}:{node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_no_private_name_is_imported_across_modules_in_training():
    assert _private_imports("training") == []


def test_no_private_name_is_imported_across_modules_in_envs():
    assert _private_imports("envs") == []


def test_no_private_name_is_imported_across_modules_in_room():
    assert _private_imports("room") == []


def test_the_check_finds_a_private_import(tmp_path):
    """The check can fail: a module importing another's private name is reported with its line."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("def _helper():\n    return 1\n")
    (tmp_path / "pkg" / "b.py").write_text("import os\nfrom pkg.a import _helper, __doc__\nfrom . import _x\n")
    assert _private_imports("pkg", tmp_path) == [
        "pkg/b.py:2: from pkg.a import _helper",
        "pkg/b.py:3: from . import _x",
    ]


def test_the_check_finds_a_private_attribute_of_an_imported_module(tmp_path):
    """``m._name`` on an imported module is reported; on a class or an instance it is not."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("_T = 1\nclass K:\n    _c = 2\n")
    (tmp_path / "pkg" / "b.py").write_text(
        "import pkg.a as m\nfrom pkg import a\nfrom pkg.a import K\nx = m._T + a._T + K._c + a.K._c\ny = m.__doc__\n"
    )
    assert _private_imports("pkg", tmp_path) == ["pkg/b.py:4: m._T", "pkg/b.py:4: a._T"]
