"""The interface every rules core implements, and the errors it raises.

A *state* object is a mutable game position that knows the rules (like python-chess's ``Board``
or OpenSpiel's ``State``). The generic PettingZoo adapter (:mod:`envs.core.aec`), the agents and
the training code talk to games only through this interface, so nothing above the rules core
assumes two players, alternating turns or perfect information.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

__all__ = ["GameState", "IllegalActionError", "InvalidPositionError", "ParameterError"]


class IllegalActionError(ValueError):
    """An action or move that is not legal in the current state.

    Raised by :meth:`GameState.apply` (and by ``push`` / ``string_to_action`` where a game has
    them). The message names the action and says why it is illegal. The state is left unchanged.
    """


class InvalidPositionError(ValueError):
    """A malformed position description (FEN, record, ...). No half-built state is left behind."""


class ParameterError(ValueError):
    """A constructor argument outside its documented domain."""


class GameState(ABC):
    """Abstract rules state.

    Subclasses define the class attributes ``num_players`` (int) and ``num_actions`` (int, the size
    of the fixed action space) and implement the abstract methods.

    Conventions:

    * players are numbered ``0 .. num_players - 1``; ``current_player`` is the player to act, or
      ``-1`` once the game is over. The same player may act several times in a row.
    * actions are integers in ``[0, num_actions)``; ``legal_action_mask()`` returns an ``np.int8``
      vector of shape ``(num_actions,)`` with 1 for every legal action and 0 elsewhere (all zeros
      when the game is over).
    * an environment may show each agent the game in its own frame (:meth:`to_state_action`,
      :meth:`to_agent_action`, :meth:`agent_action_mask`); agents answer in that frame.
    * ``returns()`` is a ``float64`` vector of shape ``(num_players,)``; all zeros before the end.
    * chance (bags, decks) comes from a ``numpy.random.Generator`` owned by the state; ``clone()``
      copies it, so a clone continues exactly as the original would.
    """

    __slots__ = ()

    num_players: int
    num_actions: int

    @property
    @abstractmethod
    def current_player(self) -> int:
        """Index of the player to act, ``-1`` when the game is over."""

    @abstractmethod
    def legal_action_mask(self) -> np.ndarray:
        """``np.int8`` array of shape ``(num_actions,)``: 1 where the action is legal."""

    def legal_actions(self) -> list[int]:
        """Sorted list of the legal action indices."""
        return np.flatnonzero(self.legal_action_mask()).tolist()

    @abstractmethod
    def apply(self, action: int) -> None:
        """Play ``action`` for ``current_player``.

        Raises:
            IllegalActionError: the action is out of range or not legal here (state unchanged).
        """

    @abstractmethod
    def is_terminal(self) -> bool:
        """Whether the game is over (by the rules; step limits are the environment's business)."""

    @abstractmethod
    def returns(self) -> np.ndarray:
        """Final rewards, ``float64`` shape ``(num_players,)``: +1 win, -1 loss, 0 draw."""

    @abstractmethod
    def clone(self) -> "GameState":
        """An independent copy that continues identically (chance state included)."""

    @abstractmethod
    def action_to_string(self, action: int) -> str:
        """The action in the game's standard notation."""

    @abstractmethod
    def string_to_action(self, text: str) -> int:
        """Parse notation into an action index.

        Raises:
            IllegalActionError: the text is not a well-formed move of this game.
        """

    def team_of(self, player: int) -> int:
        """The team of ``player`` (partners share rewards). Default: every player alone."""
        return player

    # ------------------------------------------------------------------ agent frames
    # Environments give each agent an egocentric view (TwixT transposes the board for black so
    # every player connects top to bottom); actions in an agent's frame are then permuted with
    # respect to the state's own (absolute) actions. Games whose frames differ override these
    # three methods; the defaults are the identity.

    def to_state_action(self, player: int, action: int) -> int:
        """An action of ``player``'s frame (what the environment's action space holds) as an
        action of the state's absolute frame."""
        return action

    def to_agent_action(self, player: int, action: int) -> int:
        """Inverse of :meth:`to_state_action`."""
        return action

    def agent_action_mask(self, player: int) -> np.ndarray:
        """``legal_action_mask()`` in ``player``'s frame (``np.int8 (num_actions,)``)."""
        return self.legal_action_mask()

    def _check_action_index(self, action) -> int:
        """Validate the type and range of an action index; return it as ``int``.

        Accepts Python and numpy integers, including 0-d integer arrays (what SB3's
        ``predict`` returns for one observation); rejects bools, floats and everything else.
        """
        if isinstance(action, np.ndarray) and action.ndim == 0 and np.issubdtype(action.dtype, np.integer):
            action = action.item()
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(
                f"action must be an integer in [0, {self.num_actions}), got {action!r} "
                f"of type {type(action).__name__}"
            )
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise IllegalActionError(f"action {a} is out of range: expected 0 <= action < {self.num_actions}")
        return a
