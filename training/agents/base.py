"""The agent interface, the frame conversion and the checks every agent gets; the random agent.

Every agent implements ``act(state, obs) -> int``:

* ``state`` is the rules state (:class:`envs.core.state.GameState`) of the game being played.
  Agents must not modify it; search agents work on ``state.clone()``.
* ``obs`` is the acting agent's observation dict from the environment
  (``{"observation": ..., "action_mask": int8 (num_actions,)}``), or ``None`` for agents that
  read only the state.

The returned action is in the acting agent's frame — the environment's action space, what
``env.step`` takes — and always legal. An environment may show an agent the game in a frame of
its own (a connection game may transpose the board for its second player, so that every
player connects top to bottom); the
conversion happens here, once: a subclass declares the frame it thinks in with the class
attribute :attr:`Agent.frame`:

* ``"state"`` (the default; search and greedy agents): ``_act`` returns an action of the
  state's absolute frame, and :meth:`Agent.act` converts it with ``state.to_agent_action``;
* ``"agent"`` (agents reading the observation, like the policy agent, or choosing from its mask):
  ``_act`` returns an action of the agent's frame, returned as it is.
"""

from __future__ import annotations

import re

import numpy as np

from envs.core.state import GameState

__all__ = ["Agent", "RandomAgent", "FRAMES", "PLAIN_INT"]

#: The values of :attr:`Agent.frame`.
FRAMES = ("state", "agent")

#: An integer of an agent spec (``mcts:N``, ``az:PATH:SIMS``, ``considered=M``, ...) written plainly:
#: ASCII digits, no sign, space, ``_`` or leading zero (``int()`` alone would take ``01``, `` 1``,
#: ``1_0`` and other scripts' digits). Match it with ``fullmatch``.
PLAIN_INT = re.compile(r"0|[1-9][0-9]*")


class Agent:
    """Base class: ``act(state, obs) -> action``; ``reset(seed)`` before a game (optional).

    Subclasses implement ``_act(state, obs)`` and set :attr:`frame`; the public :meth:`act`
    checks that there is a move to make, converts the answer to the acting agent's frame and
    checks that it is legal there.

    Attributes:
        frame: ``"state"`` (``_act`` answers in the state's absolute frame; the default) or
            ``"agent"`` (``_act`` answers in the acting agent's frame, the environment's).
        name: the agent's name (its spec for the built-in agents).
        rng: the agent's ``numpy.random.Generator``.

    Args:
        seed: seed of the agent's random generator ``self.rng`` (``None``: unseeded).

    Raises:
        ValueError: a negative seed. TypeError: a seed that is not an integer (numpy's checks).
    """

    name: str = "agent"
    frame: str = "state"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.frame not in FRAMES:
            raise TypeError(f"{cls.__name__}.frame must be one of {FRAMES}, got {cls.frame!r}")

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the agent's random choices before a game.

        Args:
            seed: the new seed; ``None`` keeps the current generator.

        Returns:
            Nothing.

        Raises:
            ValueError: a negative seed. TypeError: a seed that is not an integer.
        """
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, state: GameState, obs: dict | None) -> int:
        """Choose a legal action for ``state.current_player``.

        Args:
            state: the rules state (not modified); may be ``None`` only for agents with
                ``frame == "agent"`` that read the observation alone.
            obs: the acting agent's observation dict (``"observation"``, ``"action_mask"``), or
                ``None`` for agents that only read the state (all but the policy agent).

        Returns:
            The action as an ``int``, in the acting agent's frame (what ``env.step`` takes).

        Raises:
            ValueError: the game is over (``state.current_player < 0``) or there is no legal
                action (empty ``obs["action_mask"]``, or no legal action of ``state`` when
                ``obs`` is ``None``); a state-frame agent was given no state.
            RuntimeError: the agent's answer is not a legal action of its frame (a bug in the
                agent; the message names the agent and the action).
        """
        _check_can_move(self, state, obs)
        return self._legal_answer(state, obs, self._act(state, obs))

    def act_batch(self, states: list, observations: list, rngs: list | None = None) -> list[int]:
        """Choose an action in each of several games: ``[act(s, o) for s, o in ...]``, in one call.

        An agent that can answer several positions at once more cheaply than one by one (a
        network's batched search) implements :meth:`_act_batch`; the others are asked position by
        position, with ``self.rng`` set to ``rngs[i]`` for position ``i`` (each game's own
        generator, :func:`training.arena.play_games`).

        Args:
            states: the rules states (not modified), one per game.
            observations: the acting agents' observation dicts (or ``None``s), one per game.
            rngs: optional generator per game, made ``self.rng`` while that game is answered
                (a batched :meth:`_act_batch` must draw nothing, or draw from these).

        Returns:
            One action per game, each as :meth:`act` returns it (the acting agent's frame, legal).

        Raises:
            ValueError, RuntimeError: as :meth:`act`, for any of the positions; ``states`` and
                ``observations`` (and ``rngs``) of different lengths.
        """
        if len(states) != len(observations) or (rngs is not None and len(rngs) != len(states)):
            raise ValueError(
                f"act_batch: one state, one observation (and one generator) per game, got {len(states)} "
                f"states, {len(observations)} observations{'' if rngs is None else f', {len(rngs)} generators'}"
            )
        batched = type(self)._act_batch is not Agent._act_batch
        if not batched or len(states) == 1:
            out = []
            for i, (state, obs) in enumerate(zip(states, observations)):
                if rngs is not None:
                    self.rng = rngs[i]
                out.append(self.act(state, obs))
            return out
        for state, obs in zip(states, observations):
            _check_can_move(self, state, obs)
        answers = self._act_batch(states, observations)
        return [self._legal_answer(s, o, a) for s, o, a in zip(states, observations, answers)]

    def _act_batch(self, states: list, observations: list) -> list[int]:
        """The choices in several games at once, each in the frame :attr:`frame` names (only for
        agents that batch; the default is never called: :meth:`act_batch` asks one by one)."""
        raise NotImplementedError

    def _legal_answer(self, state, obs, answer) -> int:
        """``answer`` of :meth:`_act` converted to the acting agent's frame and checked to be legal."""
        if self.frame == "state":
            player = state.current_player
            action = state.to_agent_action(player, int(answer))
        else:
            player = None if state is None else state.current_player
            action = answer
        action = int(action)
        mask = obs["action_mask"] if obs is not None else state.agent_action_mask(player)
        if not 0 <= action < len(mask) or not mask[action]:
            raise RuntimeError(
                f"{self.name} chose action {action}, which is not legal in its frame "
                f"(frame={self.frame!r}; {int(np.count_nonzero(mask))} legal actions)"
            )
        return action

    def check_env(self, env) -> None:
        """Raise ``ValueError`` (saying why) when this agent cannot play in ``env``, a reset raw
        environment; called by ``training.evaluate`` and ``training.play`` before any game.
        Every agent can by default; alpha-beta needs two sides, a checkpoint its training spaces."""

    def _act(self, state: GameState, obs: dict | None) -> int:
        """The agent's choice, in the frame :attr:`frame` names; called by :meth:`act` once it is
        known that there is a move."""
        raise NotImplementedError(f"{type(self).__name__} must implement _act(state, obs)")

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"


def _check_can_move(agent: Agent, state: GameState, obs: dict | None) -> None:
    """Raise ``ValueError`` unless ``state`` has a player to move with at least one legal action,
    and a state-frame agent has the state."""
    if state is not None and state.current_player < 0:
        raise ValueError(
            f"{agent.name} cannot choose an action: the game is over (state.current_player is {state.current_player})"
        )
    mask = obs["action_mask"] if obs is not None else state.legal_action_mask() if state is not None else None
    if mask is None:
        raise ValueError(f"{agent.name} needs the state or the observation to choose an action, got neither")
    if not np.any(mask):
        raise ValueError(
            f"{agent.name} cannot choose an action: no legal action in this position "
            f"(the game is over, or the action mask is empty)"
        )
    if agent.frame == "state" and state is None:
        raise ValueError(f"{agent.name} thinks in the state's frame and needs the state, got state=None")


class RandomAgent(Agent):
    """Uniformly random legal action of the agent's frame: from the observation's mask, else from
    ``state.agent_action_mask(player)`` (the same mask). One ``rng.integers`` draw per move.

    Args:
        seed: seed of the agent's random generator.
    """

    name = "random"
    frame = "agent"

    def _act(self, state, obs):
        mask = obs["action_mask"] if obs is not None else state.agent_action_mask(state.current_player)
        legal = np.flatnonzero(mask)
        return int(legal[self.rng.integers(len(legal))])
