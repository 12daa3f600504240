"""The examples of the docstrings run: every ``>>>`` example of the modules the site's API reference
shows (``docs/gen_pages.py``), and of every other module of ``envs`` and ``training`` that has one.

An example marked ``# doctest: +SKIP`` (one that needs a trained checkpoint or a long run) is shown
but not run.
"""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import sys

import pytest

from conftest import REPO_ROOT

_spec = importlib.util.spec_from_file_location("gen_pages", REPO_ROOT / "docs" / "gen_pages.py")
gen = importlib.util.module_from_spec(_spec)
sys.modules["gen_pages"] = gen
_spec.loader.exec_module(gen)


def _modules_with_examples() -> list[str]:
    names = set(gen.api_modules())
    for package in ("envs", "training"):
        for path in sorted((REPO_ROOT / package).rglob("*.py")):
            if ">>> " in path.read_text(encoding="utf-8"):
                parts = path.relative_to(REPO_ROOT).with_suffix("").parts
                names.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return sorted(names)


MODULES = _modules_with_examples()


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed (output above)"


def test_the_examples_are_found_and_a_wrong_one_fails():
    assert {"envs", "envs.registry", "training.search.gumbel", "training.ratings"} <= set(MODULES)
    finder = doctest.DocTestFinder(exclude_empty=True)
    attempted = 0
    for name in MODULES:
        runner = doctest.DocTestRunner()
        for test in finder.find(importlib.import_module(name), name):
            runner.run(test, out=lambda _text: None)
        attempted += runner.summarize(verbose=False).attempted
    assert attempted >= 30
    wrong = doctest.DocTestParser().get_doctest(">>> 2 + 2\n5\n", {}, "wrong", None, 0)
    runner = doctest.DocTestRunner()
    runner.run(wrong, out=lambda _text: None)
    assert runner.summarize(verbose=False).failed == 1
