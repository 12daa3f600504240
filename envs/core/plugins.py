"""A game's plug-ins, loaded by name: the modules and functions a :class:`~envs.core.state.GameInfo`
declares as dotted import paths (heuristics, board UI, named agents, record formats).

Declaring a plug-in as a string, not an import, keeps the rules core free of import cycles: the
rules module never imports the code built on it (an agent that searches with the rules, a board
drawn from a state), and each plug-in is imported the first time it is asked for.

* ``"package.module"``: a module (:func:`load_module`);
* ``"package.module:name"``: an attribute of a module (:func:`load_object`).
"""

from __future__ import annotations

import importlib
import re

__all__ = ["load_module", "load_object", "check_path"]

_MODULE = r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*"
_OBJECT = re.compile(rf"^({_MODULE}):([A-Za-z_][A-Za-z0-9_]*)$")
_MODULE_ONLY = re.compile(rf"^{_MODULE}$")


def check_path(path, what: str, *, attribute: bool = False) -> str:
    """``path`` if it is a dotted module path (``attribute``: ``"module:name"``).

    Raises:
        TypeError: not a string of that form (the message names ``what``).
    """
    ok = isinstance(path, str) and (_OBJECT if attribute else _MODULE_ONLY).match(path)
    if not ok:
        form = "'package.module:name'" if attribute else "'package.module'"
        raise TypeError(f"{what} must be an import path {form}, got {path!r}")
    return path


def load_module(path: str, what: str = "plug-in"):
    """The module at dotted path ``path`` (imported on first use; Python caches it).

    Raises:
        TypeError: ``path`` is not a dotted module path. ImportError: the module cannot be imported.
    """
    return importlib.import_module(check_path(path, what))


def load_object(path: str, what: str = "plug-in"):
    """The object ``name`` of the module ``module`` named by ``path = "module:name"``.

    Raises:
        TypeError: ``path`` is not of that form. ImportError: the module cannot be imported, or
            has no attribute ``name`` (the message names both).
    """
    module, _, name = check_path(path, what, attribute=True).partition(":")
    mod = importlib.import_module(module)
    try:
        return getattr(mod, name)
    except AttributeError:
        raise ImportError(f"{what} {path!r}: module {module} has no {name!r}", name=module) from None
