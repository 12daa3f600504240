"""Argument checks shared by every module of ``envs``: one definition of "an integer".

``True`` is an ``int`` in Python and ``numpy.bool_`` passes many integer checks, yet a bool is
never a valid count, seat, seed or action here; JSON ``true`` must not pass as 1 either. Every
check of an integer argument goes through these functions, so the rule is written once:

* :func:`is_int`: a Python or numpy integer, not a bool (arguments, actions, seats, seeds);
* :func:`is_plain_int` / :func:`is_plain_number`: a Python ``int`` (``int`` or ``float``), not
  a bool: what JSON data (records) may hold, where a numpy scalar is not JSON;
* :func:`is_bool`: a Python or numpy bool;
* :func:`require_bool`: raise ``"<name> must be True or False, got <value!r>"`` otherwise.

The callers keep their own error messages (tests assert them); these functions only decide.
"""

from __future__ import annotations

import numpy as np

from envs.core.errors import ParameterError

__all__ = ["is_int", "is_plain_int", "is_plain_number", "is_bool", "require_bool"]


def is_int(x) -> bool:
    """``x`` is a Python or numpy integer and not a bool (``True``, ``np.True_``)."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def is_plain_int(x) -> bool:
    """A Python ``int`` that is not a ``bool`` (JSON ``true`` must not pass as 1)."""
    return isinstance(x, int) and not isinstance(x, bool)


def is_plain_number(x) -> bool:
    """A Python ``int`` or ``float`` that is not a ``bool``."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def is_bool(x) -> bool:
    """``x`` is a Python or numpy bool."""
    return isinstance(x, (bool, np.bool_))


def require_bool(name: str, value, *, numpy: bool = True, error: type[Exception] = ParameterError) -> None:
    """Check a flag argument.

    Args:
        name: the argument's name, for the message.
        value: the value given.
        numpy: whether a ``numpy.bool_`` is accepted as well as a Python bool.
        error: the exception class raised.

    Raises:
        ``error`` (default :class:`~envs.core.errors.ParameterError`): ``value`` is not a bool; the
            message is ``"<name> must be True or False, got <value!r>"``.
    """
    if not isinstance(value, (bool, np.bool_) if numpy else bool):
        raise error(f"{name} must be True or False, got {value!r}")
