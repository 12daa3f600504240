"""Agents that a game offers by name (``agents`` of its ``GameInfo``, loaded by name; see
:mod:`envs.core.heuristics`), e.g. Tantrix's ``robot``.

No game is named here: :class:`GameAgent` looks the name up in the heuristics of the game it is
asked to play, on first use, and refuses a game that does not offer it, naming the games that do.
"""

from __future__ import annotations

import inspect

from envs.core.checks import is_plain_int
from envs.registry import game_agent_factories, game_agents
from training.agents.base import Agent

__all__ = ["GameAgent"]


class GameAgent(Agent):
    """The agent ``name`` of the game being played (thinks in the state's absolute frame).

    Args:
        name: a name some registered game offers (:func:`envs.registry.game_agent_names`).
        seed: seed of the generator handed to the game's agent (sampled deals, tie-breaks).
        arg: the integer handed to the game's factory (spec ``NAME:N``; what it sets is the
            factory's: the Tantrix robot's search width), or ``None`` for the factory's default.

    Raises:
        ValueError: no registered game offers ``name``; ``arg`` is not an integer, is given to an
            agent that takes no setting, or is outside the agent's domain (the factory's message);
            from :meth:`check_env` and :meth:`act`: this game does not offer it (the message names
            the games that do) or the game's agent cannot play this setting (its own message).
    """

    def __init__(self, name: str, seed: int | None = None, arg: int | None = None):
        super().__init__(seed)
        offered = game_agents()
        if name not in offered:
            raise ValueError(f"no game offers an agent named {name!r}; game agents: {', '.join(offered) or 'none'}")
        if arg is not None:
            if not is_plain_int(arg):
                raise ValueError(f"agent {name!r}: its setting must be an integer, got {arg!r}")
            for game, factory in game_agent_factories(name).items():
                try:
                    inspect.signature(factory).bind(arg)
                except TypeError:
                    raise ValueError(f"agent {name!r} of {game} takes no setting, got {name}:{arg}") from None
                try:
                    factory(arg)  # a value outside the agent's domain: the factory's ValueError, now
                except ValueError as e:
                    raise ValueError(f"agent spec {f'{name}:{arg}'!r}: {e}") from None
        self.name, self.arg = name, arg
        self._player = None
        self._game = None

    def _for(self, state):
        """The game's agent for ``state``'s game (built once per game class), checked on ``state``."""
        if self._game is not type(state):
            h = state.heuristics()
            factories = h.agents if h is not None else {}
            if self.name not in factories:
                raise ValueError(
                    f"agent {self.name!r} is offered by {' and '.join(game_agents()[self.name])} only, "
                    f"not by {state.info.long_name}"
                )
            factory = factories[self.name]
            player = factory() if self.arg is None else factory(self.arg)
            self._player, self._game = player, type(state)
        check = getattr(self._player, "check", None)
        if check is not None:
            check(state)
        return self._player

    def check_env(self, env) -> None:
        self._for(env.state)

    def _act(self, state, obs):
        return self._for(state).choose(state, self.rng)
