"""A griffe extension (``mkdocs.yml``: mkdocstrings' ``extensions``) for the API pages: the code's
docstrings are Google style with two reST habits that Markdown does not read, rewritten before
mkdocstrings renders them:

* a cross-reference role (``:class:`~envs.core.state.GameInfo```, ``:func:`make```) becomes a code
  span of its target (the last part only with ``~``), and so does a literal in two backticks;
  reST's escaped space (``\\ ``) goes;
* a doctest (``>>>`` lines and their output, up to a blank line) becomes a fenced ``pycon`` block
  (Markdown would read ``>>>`` as a quote).

The docstrings themselves are left as they are (``help()`` and the doctests read them).
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension

_ROLE = re.compile(r":(?:py:)?(?:mod|class|func|meth|data|attr|exc|obj|const):`(~?)([^`<]+?)`")


def _role(match: re.Match) -> str:
    target = match.group(2).strip()
    if match.group(1):
        target = target.rsplit(".", 1)[-1]
    return f"`{target}`"


_LITERAL = re.compile(r"(?<!`)``(?!`)([^`]+?)``(?!`)")  # two backticks, not a fence's three


def to_markdown(text: str) -> str:
    """``text`` (a docstring) with its roles and reST literals (two backticks) as code spans, reST's
    escaped spaces (a backslash and a space, as after a literal's closing backticks) removed, and
    its doctests fenced."""
    text = _ROLE.sub(_role, text)
    text = _LITERAL.sub(r"`\1`", text).replace("\\ ", "")
    out: list[str] = []
    in_doctest = False
    for line in text.splitlines():
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        if not in_doctest and stripped.startswith(">>>") and (not out or not out[-1].strip()):
            out.append(f"{indent}```pycon")
            in_doctest, fence_indent = True, indent
        elif in_doctest and not stripped:
            out.append(f"{fence_indent}```")
            in_doctest = False
        out.append(line)
    if in_doctest:
        out.append(f"{fence_indent}```")
    return "\n".join(out)


class RstToMarkdown(Extension):
    """Rewrites every docstring with :func:`to_markdown` once griffe has loaded it."""

    def on_object(self, *, obj: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = to_markdown(obj.docstring.value)

    def on_package(self, *, pkg: Any, **kwargs: Any) -> None:
        """The package's own docstring too (``on_object`` is not called for a package's top module);
        :func:`to_markdown` leaves text it has rewritten as it is."""
        if pkg.docstring is not None:
            pkg.docstring.value = to_markdown(pkg.docstring.value)
