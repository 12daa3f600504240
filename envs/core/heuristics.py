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

A game may also offer named agents of its own (e.g. Tantrix's ``"robot"``), declared in its
``GameInfo.agents`` as ``(name, "module:factory")`` pairs and loaded by name (:func:`load_agents`;
the heuristics module does not import them, so an agent may use the heuristics without an import
cycle). A factory is a callable with no argument (the spec ``NAME``) and, where the agent has a
setting, with one integer (the spec ``NAME:N``; the factory raises ``ValueError`` for a value
outside its domain and documents what it sets), whose product has ``choose(state, rng) -> int``
(an action of the state's absolute frame for ``state.current_player``; ``rng`` a
``numpy.random.Generator``) and optionally ``check(state)`` (raises ``ValueError`` for a setting
it cannot play). The first line of the factory's docstring is the agent's summary for people.
``training.agents`` offers each name as an agent spec (:func:`envs.registry.game_agent_names`
lists them across the registered games). A heuristics module may still export ``agents``
(``{name: factory}``); those join the declared ones.

A game may also offer further named evaluations for search (e.g. Tantrix's ``"predicted"``, the
robot's predicted final score gap), declared in its ``GameInfo.evaluators`` as
``(name, "module:function")`` pairs and loaded by name in the same way (:func:`load_evaluators`).
Each is ``f(state, player) -> float`` with ``evaluate``'s contract and units, so the module's
``VALUE_SCALE`` applies to it too. :meth:`Heuristics.evaluator` returns one by name, ``"evaluate"``
being the module's own ``evaluate``; the AlphaZero search's ``search.heuristic`` names the one it
mixes into its values.

Consumers reach them through the state: ``state.heuristics()`` returns a :class:`Heuristics`
(or ``None`` for a game that declares none) and ``state.agents()`` the named agents, so nothing
outside the game's package names the modules.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

import numpy as np

if TYPE_CHECKING:
    from envs.core.state import GameState

from envs.core.checks import is_plain_number
from envs.core.plugins import check_path, load_module, load_object

__all__ = [
    "Heuristics",
    "load_heuristics",
    "load_agents",
    "load_evaluators",
    "terminal_or",
    "one_ply_greedy",
    "WIN_VALUE",
    "DEFAULT_EVALUATOR",
    "offered_evaluators",
]

S = TypeVar("S", bound="GameState")  # one game's state type, for evaluation functions typed on it

#: Value of a won game in :func:`terminal_or` (``-WIN_VALUE`` lost, 0 drawn): beyond any heuristic.
WIN_VALUE = 1e6

#: The name under which :meth:`Heuristics.evaluator` returns the module's own ``evaluate``.
DEFAULT_EVALUATOR = "evaluate"


@dataclass(frozen=True)
class Heuristics:
    """The three exports of a game's heuristics module.

    Attributes:
        evaluate: ``f(state, player) -> float``, higher is better for ``player``'s side.
        greedy_action: ``f(state, rng) -> int``, the greedy move (state's absolute frame).
        value_scale: evaluation units per unit of ``atanh`` value (a finite number ``> 0``).
        module: the module's dotted path (``""`` when built by hand).
        agents: the game's own named agents, ``{name: factory}`` (its ``GameInfo.agents``, and
            the module's optional ``agents``; empty when it has none).
        evaluators: the game's further named evaluations, ``{name: f(state, player) -> float}``
            (its ``GameInfo.evaluators``; empty when it has none), in ``evaluate``'s units.
    """

    evaluate: Callable[[GameState, int], float]
    greedy_action: Callable[[GameState, np.random.Generator], int]
    value_scale: float
    module: str = ""
    agents: dict = field(default_factory=dict, hash=False)
    evaluators: dict = field(default_factory=dict, hash=False)

    def evaluator_names(self) -> list[str]:
        """``"evaluate"`` (:data:`DEFAULT_EVALUATOR`), then the names of :attr:`evaluators`."""
        return [DEFAULT_EVALUATOR, *self.evaluators]

    def evaluator(self, name: str) -> Callable[[GameState, int], float]:
        """The evaluation called ``name``: :attr:`evaluate` for ``"evaluate"``, else the named one
        of :attr:`evaluators`.

        Raises:
            ValueError: no evaluation of that name (the message lists the names there are).
        """
        if name == DEFAULT_EVALUATOR:
            return self.evaluate
        if isinstance(name, str) and name in self.evaluators:
            return self.evaluators[name]
        where = self.module or "these heuristics"
        raise ValueError(f"{where} has no evaluation {name!r}; expected one of {self.evaluator_names()}")


def offered_evaluators(info) -> list[str]:
    """The names of the evaluations a game offers search, read from its ``GameInfo`` without
    importing anything: :data:`DEFAULT_EVALUATOR`, then the names of ``info.evaluators``; only
    :data:`DEFAULT_EVALUATOR` for a game without a heuristics module (whose weight must be 0)."""
    if not info.heuristics:
        return [DEFAULT_EVALUATOR]
    return [DEFAULT_EVALUATOR, *(name for name, _ in info.evaluators)]


_CACHE: dict[tuple, Heuristics] = {}
_AGENTS: dict[tuple, dict[str, Callable]] = {}
_EVALUATORS: dict[tuple, dict[str, Callable]] = {}
_AGENT_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def _load_named(declared, what: str, target: str, cache: dict) -> dict[str, Callable]:
    """``{name: callable}`` of pairs ``(name, "module:<target>")`` (``GameInfo.<what>``), each
    imported by name; cached in ``cache``."""
    key = tuple(declared) if isinstance(declared, (tuple, list)) else declared
    if isinstance(key, tuple) and key in cache:
        return dict(cache[key])
    if not isinstance(key, tuple) or not all(
        isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) and _AGENT_NAME.match(p[0]) for p in key
    ):
        raise TypeError(
            f"GameInfo.{what} must be pairs (name, 'module:{target}') with lower-case names "
            f"(letters, digits, '_'), got {declared!r:.200}"
        )
    kind = what[:-1]  # "agent", "evaluator"
    out: dict[str, Callable] = {}
    for name, path in key:
        if name in out:
            raise TypeError(f"GameInfo.{what} declares {name!r} twice")
        obj = load_object(check_path(path, f"{kind} {name!r}", attribute=True), f"{kind} {name!r}")
        if not callable(obj):
            raise TypeError(f"{kind} {name!r}: {path} is not callable")
        out[name] = obj
    cache[key] = out
    return dict(out)


def load_agents(declared) -> dict[str, Callable]:
    """The named agents a ``GameInfo.agents`` declares, ``{name: factory}``, each factory imported
    by name (:func:`envs.core.plugins.load_object`); cached.

    Args:
        declared: pairs ``(name, "module:factory")``; a name is lower case (letters, digits, ``_``).

    Raises:
        TypeError: not such pairs, a name used twice, or a factory that is not callable.
        ImportError: a factory's module cannot be imported or lacks it.
    """
    return _load_named(declared, "agents", "factory", _AGENTS)


def load_evaluators(declared) -> dict[str, Callable]:
    """The named evaluations a ``GameInfo.evaluators`` declares, ``{name: f(state, player)}``,
    each imported by name (:func:`envs.core.plugins.load_object`); cached.

    Args:
        declared: pairs ``(name, "module:function")``; a name is lower case (letters, digits,
            ``_``) and not ``"evaluate"`` (the heuristics module's own).

    Raises:
        TypeError: not such pairs, a name used twice or ``"evaluate"``, or a function that is not
            callable.
        ImportError: a function's module cannot be imported or lacks it.
    """
    if isinstance(declared, (tuple, list)) and any(
        isinstance(p, tuple) and p[:1] == (DEFAULT_EVALUATOR,) for p in declared
    ):
        raise TypeError(f"GameInfo.evaluators may not declare {DEFAULT_EVALUATOR!r}: that is the module's own")
    return _load_named(declared, "evaluators", "function", _EVALUATORS)


def load_heuristics(module: str, agents=(), evaluators=()) -> Heuristics:
    """The :class:`Heuristics` exported by the module at dotted path ``module`` (cached), with the
    named agents ``agents`` declares (a ``GameInfo.agents``, see :func:`load_agents`) added to the
    module's own optional ``agents``, and the named evaluations ``evaluators`` declares (a
    ``GameInfo.evaluators``, see :func:`load_evaluators`).

    Raises:
        ImportError: the module does not exist.
        TypeError: it lacks ``evaluate``, ``greedy_action`` or ``VALUE_SCALE``, or one has the
            wrong kind (the message names the module and what is missing); its ``agents`` is not a
            dict of lower-case names (letters, digits, ``_``) to functions; as :func:`load_agents` and
            :func:`load_evaluators`.
    """
    key = (module, tuple(agents), tuple(evaluators))
    if key in _CACHE:
        return _CACHE[key]
    mod = load_module(module, "heuristics module")
    missing = [n for n in ("evaluate", "greedy_action", "VALUE_SCALE") if not hasattr(mod, n)]
    if missing:
        raise TypeError(
            f"heuristics module {module} must export evaluate, greedy_action and VALUE_SCALE; "
            f"it lacks {', '.join(missing)}"
        )
    scale = mod.VALUE_SCALE
    if (
        not callable(mod.evaluate)
        or not callable(mod.greedy_action)
        or not is_plain_number(scale)
        or not math.isfinite(scale)
        or scale <= 0
    ):
        raise TypeError(
            f"heuristics module {module}: evaluate and greedy_action must be functions and "
            f"VALUE_SCALE a finite number > 0, got VALUE_SCALE={scale!r}"
        )
    own = getattr(mod, "agents", {})
    if not isinstance(own, dict) or not all(
        isinstance(k, str) and _AGENT_NAME.match(k) and callable(v) for k, v in own.items()
    ):
        raise TypeError(
            f"heuristics module {module}: agents must be a dict of lower-case names (letters, digits, "
            f"'_') to factories, got {own!r:.200}"
        )
    h = Heuristics(
        mod.evaluate,
        mod.greedy_action,
        float(scale),
        module,
        {**own, **load_agents(agents)},
        load_evaluators(evaluators),
    )
    _CACHE[key] = h
    return h


def terminal_or(state: S, player: int, evaluate: Callable[[S, int], float]) -> float:
    """``evaluate(state, player)``, or ``WIN_VALUE * returns()[player]`` (``+-1e6``, 0 for a draw)
    once the game is over: a finished game outranks every heuristic value."""
    return WIN_VALUE * float(state.returns()[player]) if state.is_terminal() else evaluate(state, player)


def one_ply_greedy(state: S, rng: np.random.Generator, evaluate: Callable[[S, int], float]) -> int:
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
