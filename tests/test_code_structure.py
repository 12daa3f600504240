"""The code's structure: no module imports another module's private name (a leading underscore).

A private name is a module's own business; importing it from elsewhere ties the two together
behind the name's back (``training/train.py`` and the RLlib trainer once imported each other's
helpers in a cycle). What several modules need is public in one place (e.g.
:mod:`training.runs`). Checked on the source, by its syntax tree: every ``from X import _name``
in ``training/``. (``envs/`` is left to the change that splits ``envs/core``, issue 25 item 4:
it still imports a few, e.g. ``envs/ataxx/vector.py`` from ``envs/ataxx/state.py``.)
"""

import ast
from pathlib import Path

from conftest import REPO_ROOT


def _private_imports(package: str, root: Path = REPO_ROOT) -> list[str]:
    """``path:line: from X import _name`` for every private name imported from another module."""
    found = []
    for path in sorted((root / package).rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            for alias in node.names:
                # ``from x import _y``: a private name of module x (a dunder such as __version__ is public)
                if alias.name.startswith("_") and not (alias.name.startswith("__") and alias.name.endswith("__")):
                    module = "." * node.level + (node.module or "")
                    found.append(f"{path.relative_to(root)}:{node.lineno}: from {module} import {alias.name}")
    return found


def test_no_private_name_is_imported_across_modules_in_training():
    assert _private_imports("training") == []


def test_the_check_finds_a_private_import(tmp_path):
    """The check can fail: a module importing another's private name is reported with its line."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("def _helper():\n    return 1\n")
    (tmp_path / "pkg" / "b.py").write_text("import os\nfrom pkg.a import _helper, __doc__\nfrom . import _x\n")
    assert _private_imports("pkg", tmp_path) == ["pkg/b.py:2: from pkg.a import _helper", "pkg/b.py:3: from . import _x"]
