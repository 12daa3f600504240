"""Generic PettingZoo ``AECEnv`` adapter over a rules state (:class:`envs.core.state.GameState`).

Each game subclasses :class:`TabletopAECEnv` and supplies only what differs between games: how
to build the state from the constructor arguments and a random generator, its observation
encoder (:class:`envs.core.observation.ObservationEncoder`, from the game's own
``observation.py``), and rendering. Everything else follows the project's design conventions:

* agents ``player_0 .. player_{n-1}``; any number of players; the same agent may act several
  times in a row (``agent_selection`` always follows ``state.current_player``);
* each agent sees the game, and acts, in its own frame (the state's ``to_state_action`` /
  ``agent_action_mask``; the identity for most games, a transposition for TwixT's black);
* observations are dicts ``{"observation": ..., "action_mask": int8 (num_actions,)}``; the mask is
  all zeros for an agent that is not to move, and mirrored in ``infos[agent]["action_mask"]``
  (the same read-only array: copy it before modifying);
* rewards only at the end (the state's ``returns()``), accumulated as PettingZoo expects, so
  ``last()`` gives each agent its own final reward; rule draws are terminations, the optional
  ``max_steps`` limit is a truncation;
* ``reset(seed=...)`` seeds every source of chance; ``copy.deepcopy`` and ``pickle`` work mid-game;
* an illegal action raises :class:`~envs.core.errors.IllegalActionError` (a ``ValueError``) naming
  the action and the reason, and leaves the environment unchanged. ``env()`` wrappers instead
  follow PettingZoo Classic (``TerminateIllegalWrapper``: the offender gets -1, the episode ends).
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from envs.core.checks import is_bool, is_int
from envs.core.errors import IllegalActionError, ParameterError
from envs.core.observation import ActionLayout, ObservationEncoder
from envs.core.state import GameState

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["TabletopAECEnv", "wrap_classic"]


class TabletopAECEnv(AECEnv):
    """Base class of every environment in this library.

    Subclasses must set ``metadata["name"]`` and implement :meth:`_new_state`,
    :meth:`_render_ansi` and :meth:`_render_rgb`. They must set ``self.num_players``,
    ``self.num_actions`` and ``self.encoder`` (the game's :class:`ObservationEncoder`) before
    calling ``super().__init__``; the observation space is ``encoder.space`` and every
    observation ``encoder.encode(state, player)``.

    Args:
        render_mode: ``None``, ``"ansi"`` (``render()`` returns a string), ``"rgb_array"``
            (``render()`` returns ``uint8 (H, W, 3)``) or ``"human"`` (shows the picture in a
            matplotlib window when an interactive backend is available, otherwise prints the text
            board to stdout; returns ``None``).
        max_steps: optional episode limit in plies (actions by any agent); reaching it truncates
            the episode for every agent with reward 0. ``None`` (default) for no limit.

    Raises:
        ParameterError: an argument outside its domain.
    """

    metadata: dict[str, Any] = {
        "name": "tabletop",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    num_players: int
    num_actions: int
    encoder: ObservationEncoder
    action_spaces: dict[str, spaces.Discrete]
    infos: dict[str, dict[str, Any]]

    def __init__(self, render_mode: str | None = None, max_steps: int | None = None):
        super().__init__()
        if not isinstance(getattr(self, "encoder", None), ObservationEncoder):
            raise TypeError(
                f"{type(self).__name__} must set self.encoder (the game's ObservationEncoder) before "
                f"calling TabletopAECEnv.__init__"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ParameterError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        if max_steps is not None and (not is_int(max_steps) or max_steps < 1):
            raise ParameterError(f"max_steps must be None or a positive integer, got {max_steps!r}")
        max_steps = None if max_steps is None else int(max_steps)
        self.render_mode = render_mode
        self.max_steps = max_steps
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self._agent_index = {a: i for i, a in enumerate(self.possible_agents)}
        self.action_spaces = {a: spaces.Discrete(self.num_actions) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": self.encoder.space,
                    "action_mask": spaces.Box(0, 1, shape=(self.num_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self._zero_mask = np.zeros(self.num_actions, dtype=np.int8)
        self._zero_mask.flags.writeable = False
        self._np_random: np.random.Generator | None = None
        self.state: GameState | None = None
        self._figure: Figure | None = None
        self._layout: ActionLayout | None = None  # built on the first action_layout() call

    # ------------------------------------------------------------------ hooks
    def _new_state(self, rng: np.random.Generator) -> GameState:  # pragma: no cover - abstract
        raise NotImplementedError

    def _render_ansi(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def _render_rgb(self) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def action_layout(self) -> ActionLayout | None:
        """What networks need about the action space (:class:`~envs.core.observation.ActionLayout`:
        the action id of each cell of the observation's spatial map, the observation key of that
        map, and what each action plane does), or ``None`` for a game without a grid layout.
        The same object on every call; its arrays are read-only."""
        if self._layout is None:
            self._layout = self.encoder.action_layout()
        return self._layout

    def _observe(self, player: int):
        """The ``"observation"`` part of ``player``'s observation: the game's encoder on the state."""
        return self.encoder.encode(self.state, player)

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        assert self._np_random is not None  # seeded above when it was None
        self.state = self._new_state(self._np_random)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.num_steps = 0
        self._skip_agent_selection = None
        self.agent_selection = self.possible_agents[0]
        self._after_change()
        if self.state.is_terminal():  # a position loaded already finished: everyone is done
            self._finish()
            self._accumulate_rewards()

    def _after_change(self) -> None:
        """Recompute the mask and ``agent_selection`` after the state changed."""
        assert self.state is not None  # called after reset()
        player = self.state.current_player
        if player >= 0:
            self.agent_selection = self.possible_agents[player]
            self._mask = self.state.agent_action_mask(player)
            self._mask.flags.writeable = False  # shared by observe() and infos: read-only
        else:
            self._mask = self._zero_mask
        for a in self.agents:
            self.infos[a]["action_mask"] = self._mask if a == self.agent_selection else self._zero_mask

    def _finish(self) -> None:
        assert self.state is not None  # called after reset()
        returns = self.state.returns()
        for a in self.agents:
            self.rewards[a] = float(returns[self._agent_index[a]])
            self.terminations[a] = True
            self.infos[a]["action_mask"] = self._zero_mask
        self._mask = self._zero_mask

    def _check_live(self, what: str) -> None:
        if self.state is None:
            raise RuntimeError(f"call reset() before {what}()")
        if not self.agents:
            raise RuntimeError(f"{what}(): the episode is over (every agent is done); call reset() to start another")

    def last(self, observe: bool = True):
        self._check_live("last")
        return super().last(observe)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if agent not in self._agent_index:
            raise KeyError(f"unknown agent {agent!r}; agents are {self.possible_agents}")
        if self.state is None:
            raise RuntimeError("call reset() before observe()")
        player = self._agent_index[agent]
        mask = self._mask if agent == self.agent_selection and agent in self.agents else self._zero_mask
        return {"observation": self.encoder.encode(self.state, player), "action_mask": mask}

    def step(self, action) -> None:
        self._check_live("step")
        assert self.state is not None  # _check_live raised otherwise
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        player = self._agent_index[agent]
        if isinstance(action, np.ndarray) and action.ndim == 0 and np.issubdtype(action.dtype, np.integer):
            action = action.item()  # SB3's predict() returns 0-d arrays
        given = action
        if is_int(action) and 0 <= action < self.num_actions:
            action = self.state.to_state_action(player, int(action))
        try:
            self.state.apply(action)  # raises IllegalActionError (bad type, range or move), state unchanged
        except IllegalActionError as e:
            if action != given:  # say which action the agent sent, in its own frame
                raise IllegalActionError(
                    f"{agent}'s action {given} (in its own frame; {action} in the board's): {e}"
                ) from None
            raise
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.num_steps += 1
        if self.state.is_terminal():
            self._finish()
        else:
            self._after_change()
            if self.max_steps is not None and self.num_steps >= self.max_steps:
                for a in self.agents:
                    self.truncations[a] = True
                    self.infos[a]["action_mask"] = self._zero_mask
                self._mask = self._zero_mask
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def resign(self, agent: str) -> None:
        """``agent`` resigns (:meth:`GameState.resign <envs.core.state.GameState.resign>`, for
        the games whose rules have a resignation): its side is out and play goes on, or the
        episode ends (rewards as ``state.returns()``). Not a step: ``num_steps`` is unchanged.

        Raises:
            KeyError: unknown agent. RuntimeError: no live episode. NotImplementedError: the
                game has no resignation rule. IllegalActionError: the game is over or the agent
                is already out (nothing changed).
        """
        self._check_live("resign")
        assert self.state is not None  # _check_live raised otherwise
        if agent not in self._agent_index:
            raise KeyError(f"unknown agent {agent!r}; agents are {self.possible_agents}")
        self.state.resign(self._agent_index[agent])
        self._clear_rewards()
        if self.state.is_terminal():
            self._finish()
        else:
            self._after_change()
        self._accumulate_rewards()

    # ------------------------------------------------------------------ helpers
    def action_to_string(self, action: int, agent: str | None = None) -> str:
        """An action of ``agent``'s frame (default: the agent to move) in the game's notation.

        Raises:
            RuntimeError: called before ``reset()``.
        """
        if self.state is None:
            raise RuntimeError("call reset() before action_to_string()")
        player = self._agent_index[agent or self.agent_selection]
        return self.state.action_to_string(self.state.to_state_action(player, int(action)))

    def string_to_action(self, text: str, agent: str | None = None) -> int:
        """Notation to an action of ``agent``'s frame (default: the agent to move).

        Raises:
            IllegalActionError: malformed notation.
            RuntimeError: called before ``reset()``.
        """
        if self.state is None:
            raise RuntimeError("call reset() before string_to_action()")
        player = self._agent_index[agent or self.agent_selection]
        return self.state.to_agent_action(player, self.state.string_to_action(text))

    def render(self):
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=... to the constructor")
            return None
        if self.state is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "ansi":
            return self._render_ansi()
        if self.render_mode == "rgb_array":
            return self._render_rgb()
        self._render_human()
        return None

    def _render_human(self) -> None:
        matplotlib: ModuleType | None
        try:
            import matplotlib
        except ImportError:  # pragma: no cover - matplotlib is optional
            matplotlib = None
        interactive = matplotlib is not None and matplotlib.get_backend().lower() not in (
            "agg",
            "pdf",
            "ps",
            "svg",
            "cairo",
            "pgf",
            "template",
        )
        if not interactive:
            print(self._render_ansi(), file=sys.stdout, flush=True)
            return
        import matplotlib.pyplot as plt

        if self._figure is None:
            self._figure = plt.figure(self.metadata["name"])
        self._figure.clf()
        ax = self._figure.add_subplot(111)
        ax.imshow(self._render_rgb())
        ax.axis("off")
        plt.pause(1.0 / self.metadata["render_fps"])

    def close(self) -> None:
        if self._figure is not None:
            import matplotlib.pyplot as plt

            plt.close(self._figure)
            self._figure = None

    def __getstate__(self):
        d = self.__dict__.copy()
        d["_figure"] = None
        return d


# ---------------------------------------------------------------------------- Classic wrappers
# PettingZoo's wrappers forward every attribute read through ``__getattr__`` of each layer (three
# layers, each with its own checks): about a third of an ``env()`` step went there. The
# subclasses below keep the wrappers' classes, names and behaviour and only shortcut the reads of
# the per-step attributes to the unwrapped environment (which is where the chain ends: no layer
# defines them). A value assigned on a wrapper still shadows, as it would without the shortcut.
_FAST_ATTRS = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards")
# The attributes OrderEnforcingWrapper refuses before reset() (PettingZoo's list, minus num_agents).
_ORDER_CHECKED = frozenset(("rewards", "terminations", "truncations", "infos", "agent_selection", "agents"))


def _shortcut(name: str, order_checked: bool) -> property:
    def get(self):
        own = self.__dict__
        if name in own:
            return own[name]
        if order_checked and not own["_has_reset"]:
            raise AttributeError(f"{name} cannot be accessed before reset")  # as the wrapper says
        raw = own["_raw_env"]
        if name in raw.__dict__.get("_shadowed_by_wrapper", ()):
            return getattr(own["env"], name)  # a layer below holds its own value: ask it, as the chain does
        return getattr(raw, name)  # an AttributeError here falls back to __getattr__, as before

    def set_(self, value):
        self.__dict__[name] = value
        self.__dict__["_raw_env"].__dict__.setdefault("_shadowed_by_wrapper", set()).add(name)

    def del_(self):
        del self.__dict__[name]

    return property(get, set_, del_, f"``{name}`` of the unwrapped environment (a shortcut of the wrapper chain).")


def _with_shortcuts(cls, order: bool = False):
    for name in _FAST_ATTRS:
        setattr(cls, name, _shortcut(name, order and name in _ORDER_CHECKED))
    return cls


@_with_shortcuts
class TerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """PettingZoo's ``TerminateIllegalWrapper`` (a subclass, same name and behaviour) reading the
    per-step attributes straight from the unwrapped environment."""

    def __init__(self, env, illegal_reward: float):
        self._raw_env = env.unwrapped
        super().__init__(env, illegal_reward)


@_with_shortcuts
class AssertOutOfBoundsWrapper(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's ``AssertOutOfBoundsWrapper`` (a subclass, same name and behaviour) reading the
    per-step attributes straight from the unwrapped environment. A plain ``int`` inside a
    ``Discrete(n)`` space (start 0) passes without the space's generic ``contains``."""

    def __init__(self, env):
        self._raw_env = env.unwrapped
        super().__init__(env)

    def step(self, action) -> None:
        if is_bool(action):  # Discrete.contains(True) holds: refuse it here, clearly
            raise AssertionError(
                f"action is not in action space: {action!r} is a bool, expected an integer "
                f"in [0, {self.action_space(self.agent_selection).n})"
            )
        if type(action) is int and action >= 0:
            space = self.action_space(self.agent_selection)
            if type(space) is spaces.Discrete and space.start == 0 and action < space.n:
                self.env.step(action)  # what the base class does once the assertion holds
                return
        super().step(action)


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` (a subclass, same name) whose ``last()`` after the
    episode raises a clear ``RuntimeError`` instead of a ``KeyError``, and which reads the
    per-step attributes straight from the unwrapped environment (still refusing them before
    ``reset()``, as the wrapper does)."""

    def __init__(self, env):
        self._raw_env = env.unwrapped
        super().__init__(env)

    def last(self, observe: bool = True):
        if self._has_reset and not self.env.unwrapped.agents:
            raise RuntimeError("last(): the episode is over (every agent is done); call reset() to start another")
        return super().last(observe)


_with_shortcuts(OrderEnforcingWrapper, order=True)


def wrap_classic(raw: AECEnv) -> AECEnv:
    """PettingZoo Classic's standard wrappers: TerminateIllegal(-1), AssertOutOfBounds, OrderEnforcing
    (the subclasses above: the same behaviour, shorter attribute reads)."""
    env = TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = AssertOutOfBoundsWrapper(env)
    env = OrderEnforcingWrapper(env)
    return env
