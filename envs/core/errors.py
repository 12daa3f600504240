"""Every error the environments raise, in one module (all are ``ValueError``\\ s).

* :class:`ParameterError`: a constructor or function argument outside its documented domain.
* :class:`IllegalActionError`: an action or move that is not legal in the current state;
  :class:`InvalidMoveError` (a subclass): text that is not a well-formed move at all.
* :class:`InvalidPositionError`: a malformed position description or game record.
* :class:`UnknownEnvError`: an environment id that is not registered (also a ``KeyError``).

The older import paths (``envs``, ``envs.core.state``, ``envs.registry``) re-export them, so
``from envs.core.state import ParameterError`` and ``from envs import IllegalActionError`` keep
working and name the same classes.

This module imports nothing of the library, so every other module may import it.
"""

from __future__ import annotations

__all__ = ["IllegalActionError", "InvalidMoveError", "InvalidPositionError", "ParameterError", "UnknownEnvError"]


class IllegalActionError(ValueError):
    """An action or move that is not legal in the current state.

    Raised by :meth:`GameState.apply` (and by ``push`` / ``string_to_action`` where a game has
    them). The message names the action and says why it is illegal. The state is left unchanged.
    """


class InvalidMoveError(IllegalActionError):
    """Text that is not a well-formed move of the game (``string_to_action`` / ``push``).

    A subclass of :class:`IllegalActionError`, so callers catching that still catch it. A
    well-formed move that the position does not allow raises a plain :class:`IllegalActionError`
    (with the reason) instead. The state is left unchanged.
    """


class InvalidPositionError(ValueError):
    """A malformed position description (FEN, record, ...). No half-built state is left behind."""


class ParameterError(ValueError):
    """A constructor argument outside its documented domain."""


class UnknownEnvError(KeyError, ValueError):
    """An environment id that is not registered (the message lists the known ones).

    Both a ``KeyError`` (what :func:`envs.make` always raised) and a ``ValueError`` (what argument
    checks of the command-line tools catch).
    """

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""
