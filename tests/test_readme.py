"""The Python examples of the README and of the documentation site run, and say what they compute.

Every ```python block of README.md and of the site's pages (``docs/**/*.md``) is executed (each block
in a fresh namespace, in a scratch folder). Where a statement's line ends in a comment that starts
with a value, the statement's value is checked against it:

* a Python literal, up to the first ``:``, ``;`` or ``,`` after which the rest no longer parses
  (``# 155888, the community's reference count``, ``# ([13, 750], ['g2', 'a1b3']): action ints``,
  ``# True; GameInfo: ...``), compared with ``==``;
* ``dtype (shape)`` for arrays (``# int8 (834,)``).

A comment that starts with anything else (``# text board with pegs and links``) is prose. For an
assignment the assigned value is checked.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import tokenize

import numpy as np
import pytest

from conftest import REPO_ROOT

README = REPO_ROOT / "README.md"
#: The Markdown files whose examples run: the README and every page of the site.
PAGES = [README, *sorted((REPO_ROOT / "docs").rglob("*.md"))]
_ARRAY = re.compile(r"^(?P<dtype>[a-z]+\d*) \((?P<shape>[\d, ]*)\)")


def python_blocks(text: str) -> list[tuple[int, str]]:
    """``(first line number, code)`` of every ```python block of a Markdown text."""
    out, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            start, body = i + 2, []
            i += 1
            while lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            out.append((start, "\n".join(body) + "\n"))
        i += 1
    return out


def stated_value(comment: str):
    """The value a comment states (see the module docstring), or ``None`` when it states none.

    Returns ``("literal", value)``, ``("array", (dtype, shape))`` or ``None``.
    """
    text = comment.lstrip("#").strip()
    m = _ARRAY.match(text)
    if m:
        shape = tuple(int(x) for x in m["shape"].replace(" ", "").split(",") if x)
        return "array", (np.dtype(m["dtype"]), shape)
    cuts = [i for i, ch in enumerate(text) if ch in ",:;"] + [len(text)]
    for cut in reversed(cuts):
        try:
            return "literal", ast.literal_eval(text[:cut])
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return None


def _comments(code: str) -> dict[int, str]:
    return {
        tok.start[0]: tok.string
        for tok in tokenize.generate_tokens(io.StringIO(code).readline)
        if tok.type == tokenize.COMMENT
    }


def run_block(code: str, where: str) -> int:
    """Execute ``code`` statement by statement, checking stated values; return how many were checked."""
    tree = ast.parse(code)
    comments = _comments(code)
    last_on_line = {}
    for node in tree.body:
        last_on_line[node.end_lineno] = node
    ns: dict = {"__name__": "__readme__"}
    checked = 0
    for node in tree.body:
        comment = comments.get(node.end_lineno) if last_on_line[node.end_lineno] is node else None
        stated = stated_value(comment) if comment else None
        if stated and isinstance(node, ast.Expr):
            value = eval(compile(ast.Expression(node.value), where, "eval"), ns)
        else:
            exec(compile(ast.Module([node], type_ignores=[]), where, "exec"), ns)
            if not stated:
                continue
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
                continue
            value = ns[node.targets[0].id]
        kind, want = stated
        line = f"{where}, line {node.end_lineno}: {ast.get_source_segment(code, node)}  {comment}"
        if kind == "array":
            assert isinstance(value, np.ndarray) and (value.dtype, value.shape) == want, (
                f"{line}\n  got {type(value).__name__} {getattr(value, 'dtype', '')} {getattr(value, 'shape', '')}"
            )
        else:
            assert value == want, f"{line}\n  got {value!r}"
        checked += 1
    return checked


#: ``(page, first line number, code)`` of every example.
BLOCKS = [
    (page.relative_to(REPO_ROOT).as_posix(), start, code)
    for page in PAGES
    for start, code in python_blocks(page.read_text(encoding="utf-8"))
]


def test_readme_and_pages_have_python_examples():
    assert sum(page == "README.md" for page, _, _ in BLOCKS) >= 2
    assert sum(page.startswith("docs/") for page, _, _ in BLOCKS) >= 8


@pytest.mark.parametrize("page, start, code", BLOCKS, ids=[f"{page}:{start}" for page, start, _ in BLOCKS])
def test_example_runs_and_states_true_values(page, start, code, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # files an example writes (game.json, ...) land here, not in the clone
    with contextlib.redirect_stdout(io.StringIO()):
        run_block(code, f"{page} block at line {start}")


def test_the_examples_state_values(monkeypatch, tmp_path):
    """The checker does check: the README and the pages state dozens of values, and a wrong one fails."""
    monkeypatch.chdir(tmp_path)
    assert sum(run_block(code, page) for page, _, code in BLOCKS) >= 12
    assert run_block("x = 2 + 2  # 4: four\nx * 2  # 8, twice\n'ab'  # prose\n", "sample") == 2
    with pytest.raises(AssertionError, match="got 5"):
        run_block("2 + 3  # 6, wrong\n", "sample")
    with pytest.raises(AssertionError, match="int8"):
        run_block("import numpy as np\nnp.zeros(3)  # int8 (3,)\n", "sample")


@pytest.mark.parametrize(
    "comment, expected",
    [
        ("# 155888, the community's reference count", ("literal", 155888)),
        ("# ([13, 750], ['g2', 'a1b3']): action ints, notation", ("literal", ([13, 750], ["g2", "a1b3"]))),
        ("# True; GameInfo: chance, player counts", ("literal", True)),
        ("# 't47@0,0r0': a move", ("literal", "t47@0,0r0")),
        ("# int8 (834,)", ("array", (np.dtype("int8"), (834,)))),
        ("# text board with pegs and links", None),
        ("# or: from envs import ataxx_v0; env = ataxx_v0.env()", None),
    ],
)
def test_stated_value(comment, expected):
    assert stated_value(comment) == expected


_LINK = re.compile(r"\]\(([^)\s]+)\)|<img src=\"([^\"]+)\"")


def test_the_readme_links_to_files_that_exist():
    """Every relative link and picture of the README names a file of the repository (the site's
    pages are checked by ``mkdocs build --strict``)."""
    text = README.read_text(encoding="utf-8")
    targets = [a or b for a, b in _LINK.findall(text)]
    local = [t.split("#")[0] for t in targets if not t.startswith(("http://", "https://", "#"))]
    assert len(local) >= 15 and any(t.startswith("docs/") for t in local)
    assert [t for t in local if not (REPO_ROOT / t).is_file()] == []
