"""A game's own knowledge for baseline and search agents: the contract of ``envs/<game>/heuristics.py``.

Every game with heuristics has a module ``envs/<game>/heuristics.py`` that exports the same three
names (and declares its path once, in its ``GameInfo.heuristics``):

* ``evaluate(state, player) -> float``: a static evaluation of a position that is not over,
  higher is better for ``player``'s side (its team's, where there are teams); in the game's own
  units (stones, pegs still needed, points). It reads only what ``player`` may see.
* ``greedy_action(state, rng) -> int``: the game's greedy baseline move for
  ``state.current_player``, an action of the state's absolute frame; ties broken with ``rng``
  (a ``numpy.random.Generator``).
* ``VALUE_SCALE: float``: evaluation units per unit of ``atanh`` value, used by MCTS to turn an
  evaluation into a value in ``(-1, 1)`` (``tanh(evaluate / VALUE_SCALE)``).

and may export a fourth, optional name:

* ``agents: dict[str, Callable[..., GamePlayer]]``: named agents of the game's own (e.g. Tantrix's
  ``"robot"``), each a factory callable with no argument (the spec ``NAME``) and, where the agent
  has a setting, with one integer (the spec ``NAME:N``; the factory raises ``ValueError`` for a
  value outside its domain and documents what it sets), whose product has
  ``choose(state, rng) -> int`` (an action of the state's absolute frame for
  ``state.current_player``; ``rng`` a ``numpy.random.Generator``) and optionally
  ``check(state)`` (raises ``ValueError`` for a setting it cannot play). The first line of the
  factory's docstring is the agent's summary for people. ``training.agents`` offers each name as
  an agent spec (:func:`game_agent_names` lists them across the registered games).

Consumers reach them through the state: ``state.heuristics()`` returns a :class:`Heuristics`
(or ``None`` for a game that declares none), so nothing outside the game's package names the
module.
"""

from __future__ import annotations

import importlib
import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, TypeVar

import numpy as np

if TYPE_CHECKING:
    from envs.core.state import GameState

__all__ = ["Heuristics", "load_heuristics", "terminal_or", "one_ply_greedy", "WIN_VALUE", "game_agents", "game_agent_factories",
           "game_agent_names"]

S = TypeVar("S", bound="GameState")  # one game's state type, for evaluation functions typed on it

#: Value of a won game in :func:`terminal_or` (``-WIN_VALUE`` lost, 0 drawn): beyond any heuristic.
WIN_VALUE = 1e6


@dataclass(frozen=True)
class Heuristics:
    """The three exports of a game's heuristics module.

    Attributes:
        evaluate: ``f(state, player) -> float``, higher is better for ``player``'s side.
        greedy_action: ``f(state, rng) -> int``, the greedy move (state's absolute frame).
        value_scale: evaluation units per unit of ``atanh`` value (a finite number ``> 0``).
        module: the module's dotted path (``""`` when built by hand).
        agents: the game's own named agents, ``{name: factory}`` (the module's optional
            ``agents``; empty when it has none).
    """

    evaluate: Callable[["GameState", int], float]
    greedy_action: Callable[["GameState", np.random.Generator], int]
    value_scale: float
    module: str = ""
    agents: dict = field(default_factory=dict, hash=False)


_CACHE: dict[str, Heuristics] = {}
_AGENT_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def load_heuristics(module: str) -> Heuristics:
    """The :class:`Heuristics` exported by the module at dotted path ``module`` (cached).

    Raises:
        ImportError: the module does not exist.
        TypeError: it lacks ``evaluate``, ``greedy_action`` or ``VALUE_SCALE``, or one has the
            wrong kind (the message names the module and what is missing); its ``agents`` is not a
            dict of lower-case names (letters, digits, ``_``) to functions.
    """
    if module in _CACHE:
        return _CACHE[module]
    mod = importlib.import_module(module)
    missing = [n for n in ("evaluate", "greedy_action", "VALUE_SCALE") if not hasattr(mod, n)]
    if missing:
        raise TypeError(f"heuristics module {module} must export evaluate, greedy_action and VALUE_SCALE; "
                        f"it lacks {', '.join(missing)}")
    scale = mod.VALUE_SCALE
    if not callable(mod.evaluate) or not callable(mod.greedy_action) or isinstance(scale, bool) \
            or not isinstance(scale, (int, float)) or not math.isfinite(scale) or scale <= 0:
        raise TypeError(f"heuristics module {module}: evaluate and greedy_action must be functions and "
                        f"VALUE_SCALE a finite number > 0, got VALUE_SCALE={scale!r}")
    agents = getattr(mod, "agents", {})
    if not isinstance(agents, dict) or not all(isinstance(k, str) and _AGENT_NAME.match(k) and callable(v)
                                               for k, v in agents.items()):
        raise TypeError(f"heuristics module {module}: agents must be a dict of lower-case names (letters, digits, "
                        f"'_') to factories, got {agents!r:.200}")
    h = Heuristics(mod.evaluate, mod.greedy_action, float(scale), module, dict(agents))
    _CACHE[module] = h
    return h


def terminal_or(state: S, player: int, evaluate: Callable[[S, int], float]) -> float:
    """``evaluate(state, player)``, or ``WIN_VALUE * returns()[player]`` (``+-1e6``, 0 for a draw)
    once the game is over: a finished game outranks every heuristic value."""
    return WIN_VALUE * float(state.returns()[player]) if state.is_terminal() else evaluate(state, player)


def one_ply_greedy(state: S, rng: np.random.Generator,
                   evaluate: Callable[[S, int], float]) -> int:
    """The legal action after which ``evaluate`` (:func:`terminal_or`: a win first) is best for the
    mover; ties broken uniformly with one ``rng.integers`` draw over the tied actions in
    ``legal_actions()`` order. Absolute frame.

    Raises:
        ValueError: no legal action (the game is over).
    """
    player = state.current_player
    legal = state.legal_actions()
    if player < 0 or not legal:
        raise ValueError("one_ply_greedy: no legal action (the game is over)")
    best, best_actions = -math.inf, []
    for a in legal:
        child = state.clone()
        child.apply(a)
        v = terminal_or(child, player, evaluate)
        if v > best:
            best, best_actions = v, [a]
        elif v == best:
            best_actions.append(a)
    return int(best_actions[rng.integers(len(best_actions))])


def game_agents() -> dict[str, list[str]]:
    """The named agents the registered games offer through their heuristics modules:
    ``{agent name: [long names of the games offering it]}``, names sorted, each game once.

    Imports every registered environment's game (its rules state at the start, seed 0); cached
    after the first call.
    """
    return {name: list(games) for name, games in _game_agent_factories().items()}


def game_agent_factories(name: str) -> dict[str, Callable]:
    """The factories of the agent ``name``: ``{long name of a game offering it: factory}``
    (empty when no registered game offers it)."""
    return dict(_game_agent_factories().get(name, {}))


def _game_agent_factories() -> dict[str, dict[str, Callable]]:
    global _GAME_AGENTS
    if _GAME_AGENTS is not None:
        return _GAME_AGENTS
    from envs.registry import env_ids, spec

    out: dict[str, dict[str, Callable]] = {}
    for env_id in env_ids():
        state = spec(env_id).initial_state()
        h = state.heuristics()
        for name, factory in (h.agents if h is not None else {}).items():
            out.setdefault(name, {}).setdefault(state.info.long_name, factory)
    _GAME_AGENTS = {k: out[k] for k in sorted(out)}
    return _GAME_AGENTS


_GAME_AGENTS: dict[str, dict[str, Callable]] | None = None


def game_agent_names() -> list[str]:
    """The names of :func:`game_agents`, sorted (e.g. ``["robot"]``)."""
    return list(game_agents())
