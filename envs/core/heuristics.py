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

Consumers reach them through the state: ``state.heuristics()`` returns a :class:`Heuristics`
(or ``None`` for a game that declares none), so nothing outside the game's package names the
module.
"""

from __future__ import annotations

import importlib
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

import numpy as np

if TYPE_CHECKING:
    from envs.core.state import GameState

__all__ = ["Heuristics", "load_heuristics", "terminal_or", "one_ply_greedy", "WIN_VALUE"]

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
    """

    evaluate: Callable[["GameState", int], float]
    greedy_action: Callable[["GameState", np.random.Generator], int]
    value_scale: float
    module: str = ""


_CACHE: dict[str, Heuristics] = {}


def load_heuristics(module: str) -> Heuristics:
    """The :class:`Heuristics` exported by the module at dotted path ``module`` (cached).

    Raises:
        ImportError: the module does not exist.
        TypeError: it lacks ``evaluate``, ``greedy_action`` or ``VALUE_SCALE``, or one has the
            wrong kind (the message names the module and what is missing).
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
    h = Heuristics(mod.evaluate, mod.greedy_action, float(scale), module)
    _CACHE[module] = h
    return h


def terminal_or(state: "GameState", player: int, evaluate: Callable[["GameState", int], float]) -> float:
    """``evaluate(state, player)``, or ``WIN_VALUE * returns()[player]`` (``+-1e6``, 0 for a draw)
    once the game is over: a finished game outranks every heuristic value."""
    return WIN_VALUE * float(state.returns()[player]) if state.is_terminal() else evaluate(state, player)


def one_ply_greedy(state: "GameState", rng: np.random.Generator,
                   evaluate: Callable[["GameState", int], float]) -> int:
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
