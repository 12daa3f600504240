"""The agents a room offers in its seat menus, by name.

A browser never sends an agent spec of its own: it picks a *name* from the menus, and the room
turns the name into an agent. The names are

* the baselines of :mod:`training.agents.specs`: ``random``, ``greedy``, ``alphabeta:D``
  (``1 <= D <=`` the room's ``max_alphabeta_depth``, default 4, never above :data:`MAX_DEPTH`),
  ``mcts:N`` (``1 <= N <=`` the room's ``max_mcts_simulations``, default 5000, never above
  :data:`MAX_SIMULATIONS`: :class:`~room.limits.RoomLimits`); the menus list :data:`BASELINES`;
* the agents the games offer by name (``agents`` of ``envs/<game>/heuristics.py``, e.g. a
  ``robot``), listed only for the games that offer them (their ``check_env`` refuses the others);
* the trained agents shipped with the package (:mod:`training.agents.shipped`), offered for the
  settings they were trained on (their table is checked when the room starts); an AlphaZero one
  searches its index entry's ``room_simulations`` a move (a search that answers within about a
  second), played as the spec ``NAME:SIMS``;
* the agents given on the server's command line (``--agent NAME=SPEC``, e.g. a checkpoint path):
  only the command line names files.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from envs.registry import game_agent_factories, game_agents
from training.agents import Agent, make_agent, parse_checkpoint_spec

__all__ = [
    "RoomAgents",
    "MenuEntry",
    "BASELINES",
    "MAX_DEPTH",
    "MAX_SIMULATIONS",
    "SPEED_SHARE",
    "PROBE_PLIES",
    "PROBE_BUDGET",
    "PROBE_TIMEOUT",
    "parse_agent_option",
    "SpeedProbe",
]

from training.agents.shipped import shipped_agents, shipped_for, shipped_spec

#: The baseline names listed in the seat menus, weakest first.
BASELINES = ("random", "greedy", "alphabeta:2", "alphabeta:3", "mcts:200", "mcts:1000")
#: The deepest ``alphabeta:D`` and the largest ``mcts:N`` a room may allow (its own bounds are
#: ``RoomLimits.max_alphabeta_depth`` and ``max_mcts_simulations``).
MAX_DEPTH = 6
MAX_SIMULATIONS = 20000

#: A search agent (one that thinks in a killable worker, :func:`room.workers.uses_process`) is
#: offered in a setting's menus only when its estimated first move takes at most this share of the
#: room's ``move_time_limit`` (the rest is the margin for a busy machine and for positions with more
#: moves than the probe's).
SPEED_SHARE = 0.5
#: The probe's random playout: the position with the most legal moves in the first plies.
PROBE_PLIES = 30

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")
_PARAM = re.compile(r"^(alphabeta|mcts):([0-9]{1,6})$")
_SUMMARY = {
    "random": "a uniformly random legal move",
    "greedy": "the game's greedy move",
    "alphabeta": "alpha-beta search, {} plies deep",
    "mcts": "Monte Carlo tree search, {} simulations",
}


@dataclass(frozen=True)
class MenuEntry:
    """One agent of a seat menu: ``name`` (what the browser sends back) and ``summary`` (for people)."""

    name: str
    summary: str


def parse_agent_option(text: str) -> tuple[str, str]:
    """``NAME=SPEC`` of ``--agent`` as ``(name, spec)``.

    Raises:
        ValueError: no ``=``, a name that is not a word of letters, digits, ``_ . + -`` (64 at
            most), or a name taken by a baseline (``random``, ``greedy``, ``alphabeta:D``,
            ``mcts:N``).
    """
    name, sep, spec = str(text).partition("=")
    if not sep or not spec:
        raise ValueError(f"--agent expects NAME=SPEC (e.g. mine=runs/x/checkpoints/final.zip), got {text!r}")
    if not _NAME.match(name):
        raise ValueError(
            f"--agent name {name!r} must be a word of letters, digits, '_', '.', '+' or '-' (at most 64 characters)"
        )
    if name in ("random", "greedy", "alphabeta", "mcts"):
        raise ValueError(f"--agent name {name!r} is a baseline's name; choose another")
    if name in game_agents():
        raise ValueError(f"--agent name {name!r} is the name of an agent a game offers; choose another")
    return name, spec


def _game_agent_summary(name: str, state) -> str:
    """The first paragraph of the docstring of the factory behind game agent ``name`` in
    ``state``'s game (the game being set up: two games may offer agents of the same name, each
    with its own description); ``"the game's NAME"`` where it has none."""
    h = state.heuristics()
    return _doc_line(h.agents.get(name) if h is not None else None, name)


def _doc_line(factory, name: str) -> str:
    doc = (getattr(factory, "__doc__", None) or "").strip()
    return " ".join(doc.split("\n\n")[0].split()) or f"the game's {name}"


def _game_name(env_id: str) -> str:
    from envs.registry import spec

    return spec(env_id).initial_state().setting_name()


@dataclass(frozen=True)
class SpeedProbe:
    """What one setting's search agents are estimated from (:meth:`RoomAgents.estimate`), measured
    once per setting through the agents' own interface on this machine, naming no game.

    Attributes:
        moves: the most legal moves ``b`` of the positions of a seeded random playout of
            :data:`PROBE_PLIES` plies from the setting's start (the probe position).
        evaluations: ``(positions alphabeta:1 evaluates there, alphabeta:2, ...)``, counted (the
            same on every machine), for the depths searched to the end within
            :data:`PROBE_BUDGET` seconds each (the first search past it is stopped there).
        seconds: the time of each of those searches (``alphabeta:1``: the fastest of 3 runs,
            the least disturbed by a busy machine).
        mcts_simulation: seconds of one ``mcts`` simulation there (``mcts:8``'s move / 8).
    """

    moves: int
    evaluations: tuple[int, ...]
    seconds: tuple[float, ...]
    mcts_simulation: float

    def estimate(self, agent) -> float | None:
        """The estimated seconds of ``agent``'s move (``None``: not a search agent).

        ``alphabeta:D``: the time measured where ``D`` was searched; deeper, each ply multiplies
        the deepest time by the growth of the evaluations counted between the last two depths,
        or by ``b`` from depth 1 (each node's children are all evaluated to order them, then
        again as leaves: ``2 b`` evaluations at depth 1, up to ``2 b ** 2`` at depth 2; on
        TwixT 24x24, 528 moves, ``alphabeta:1`` took 0.068 s and ``alphabeta:2`` 43 s), and at
        least :data:`PROBE_BUDGET` for a depth whose search the probe stopped. ``mcts:N``: ``N *
        mcts_simulation``."""
        from training.agents.search import AlphaBetaAgent, MCTSAgent

        if isinstance(agent, AlphaBetaAgent):
            return _deeper(self.evaluations, self.seconds, self.moves, agent.depth)
        if isinstance(agent, MCTSAgent):
            return agent.simulations * self.mcts_simulation
        return None


def _deeper(counts: tuple[int, ...], seconds: tuple[float, ...], moves: int, depth: int) -> float:
    """``alphabeta:depth``'s estimated seconds from the searches measured (see
    :meth:`SpeedProbe.estimate`)."""
    if not counts:
        return math.inf
    if depth <= len(counts):
        return seconds[depth - 1]
    k = len(counts)
    growth = counts[-1] / counts[-2] if k >= 2 and counts[-2] > 0 else float(moves)
    return max(PROBE_BUDGET, seconds[-1] * max(growth, 1.0) ** (depth - k))


#: Seconds the probe may spend on one alpha-beta depth (a search past it is stopped, and the
#: probe goes no deeper).
PROBE_BUDGET = 0.5

#: Seconds the probe may spend in all: once past it, it goes no deeper (a lobby waits for the
#: first menus of a setting while it runs; on a busy 2-core machine a 1 s budget a depth made
#: that wait about 12 s).
PROBE_TOTAL = 1.0

#: Seconds the probe's worker process may take in all (it is killed then, and the setting's search
#: agents are offered without an estimate: the move time limit still stops them).
PROBE_TIMEOUT = 15.0

#: Settings whose probe and agent checks are kept (the least recently used leave first), so that
#: a visitor walking through many settings holds no unbounded memory.
SETTINGS_KEPT = 256
#: The most agent names whose check is kept per setting (the menus' names and those of ``create``
#: and ``seat`` messages, which a client may make up: ``mcts:1`` to ``mcts:5000``).
MAX_CHECKED_NAMES = 64


class _Stop(Exception):
    """The probe's search ran past :data:`PROBE_BUDGET`."""


def _probe(env, max_depth: int) -> SpeedProbe:
    """Measure a setting's :class:`SpeedProbe` from ``env`` (a reset raw environment; untouched).
    Costs at most about ``PROBE_BUDGET`` seconds a depth and goes no deeper once :data:`PROBE_TOTAL`
    is spent, then one ``mcts:8`` move."""
    from training.agents.search import AlphaBetaAgent, MCTSAgent

    st = env.state.clone()
    rng = np.random.default_rng(0)
    probe, most = st.clone(), len(st.legal_actions())
    for _ in range(PROBE_PLIES):
        if st.is_terminal():
            break
        legal = st.legal_actions()
        if len(legal) > most:
            probe, most = st.clone(), len(legal)
        st.apply(int(rng.choice(legal)))
    counts: list[int] = []
    seconds: list[float] = []
    h = probe.heuristics()
    if h is not None and len({probe.team_of(p) for p in range(probe.num_players)}) == 2:
        count, deadline = [0], [0.0]

        def counting(state, player):
            count[0] += 1
            if time.perf_counter() > deadline[0]:
                raise _Stop
            return h.evaluate(state, player)

        def search(depth: int) -> tuple[float, int]:
            count[0], t0 = 0, time.perf_counter()
            deadline[0] = t0 + PROBE_BUDGET
            AlphaBetaAgent(depth, seed=0, evaluator=counting).act(probe.clone(), None)
            return time.perf_counter() - t0, count[0]

        try:
            start = time.perf_counter()
            t1, n1 = min(search(1) for _ in range(3))  # the fastest run: the least disturbed
            counts, seconds = [n1], [t1]
            while len(counts) < max_depth and time.perf_counter() - start < PROBE_TOTAL:
                t, n = search(len(counts) + 1)
                counts.append(n)
                seconds.append(t)
        except _Stop:
            pass
    t0 = time.perf_counter()
    MCTSAgent(8, seed=0).act(probe.clone(), None)
    per_simulation = (time.perf_counter() - t0) / 8
    return SpeedProbe(most, tuple(counts), tuple(seconds), per_simulation)


class RoomAgents:
    """The agents of one room: baselines, shipped agents and the command line's named agents.

    Args:
        named: ``{name: spec}`` from ``--agent`` (specs of :func:`training.agents.make_agent`);
            each is built once here, so a bad spec or a missing checkpoint stops the server at
            start with the agent's own message.
        limits: the room's bounds (:class:`~room.limits.RoomLimits`): the deepest ``alphabeta:D``
            and the largest ``mcts:N`` a browser may pick.

    Raises:
        ValueError: a bad name (see :func:`parse_agent_option`) or spec; a shipped agent's file
            missing or not matching its table (``ShippedIndexError``).
        FileNotFoundError: a missing checkpoint.
    """

    def __init__(self, named: dict[str, str] | None = None, *, limits=None):
        from room.limits import RoomLimits

        lim = limits or RoomLimits()
        self.move_time_limit = lim.move_time_limit
        self.max_depth = min(MAX_DEPTH, lim.max_alphabeta_depth)
        self.max_simulations = min(MAX_SIMULATIONS, lim.max_mcts_simulations)
        self.named: dict[str, str] = {}
        self._summary: dict[str, str] = {}
        for name, spec in (named or {}).items():
            parse_agent_option(f"{name}={spec}")
            make_agent(spec, seed=0)  # fails now, not when a browser picks it
            self.named[name] = spec
            path = parse_checkpoint_spec(spec)
            self._summary[name] = f"checkpoint {path[0]}" if path else f"agent {spec}"
        shipped_agents()  # a missing or altered shipped file stops the server at start, saying which
        self._compatible: OrderedDict[tuple, dict[str, str | None]] = OrderedDict()  # setting -> name -> why
        self._probes: OrderedDict[tuple, SpeedProbe | None] = OrderedDict()
        self._lock = threading.Lock()

    def _shipped(self, env_id: str, env_kwargs: dict) -> list:
        return list(shipped_for(env_id, env_kwargs))

    def spec_of(self, name, env_id: str, env_kwargs: dict) -> str:
        """The agent spec behind ``name`` for a game of ``env_id`` with ``env_kwargs``.

        Raises:
            ValueError: ``name`` is not an agent of this room (the message lists the forms).
        """
        if not isinstance(name, str):
            raise ValueError(f"an agent name must be a string, got {type(name).__name__}")
        if name in ("random", "greedy") or name in game_agents():
            return name
        m = _PARAM.match(name)
        if m:
            n = int(m.group(2))
            top = self.max_depth if m.group(1) == "alphabeta" else self.max_simulations
            if not 1 <= n <= top:
                option = "--max-alphabeta-depth" if m.group(1) == "alphabeta" else "--max-mcts-simulations"
                raise ValueError(f"agent {name!r}: {m.group(1)}:N needs 1 <= N <= {top} (this room's {option})")
            return f"{m.group(1)}:{n}"
        if name in self.named:
            return self.named[name]
        for s in self._shipped(env_id, env_kwargs):
            if s.name == name:
                return s.room_spec
        raise ValueError(
            f"unknown agent {name!r}: expected random, greedy, alphabeta:D (D <= {self.max_depth}), "
            f"{''.join(g + ', ' for g in game_agents())}"
            f"mcts:N (N <= {self.max_simulations}) or one of this room's named agents "
            f"({', '.join(self.named) or 'none'}) or shipped agents for this game"
        )

    def _allowed(self, baseline: str) -> bool:
        try:
            self.spec_of(baseline, "", {})
        except ValueError:
            return False
        return True

    def summary(self, name: str, state=None) -> str:
        """One line about the agent ``name`` for the menus of ``state``'s game (for the agents a
        game offers by name, their description is that game's; without ``state``, the one game
        offering it, or ``"the game's NAME"`` where several do)."""
        if name in self._summary:
            return self._summary[name]
        head, _, arg = name.partition(":")
        if head in _SUMMARY:
            return _SUMMARY[head].format(arg)
        if name in game_agents():
            if state is not None:
                return _game_agent_summary(name, state)
            factories = list(game_agent_factories(name).values())  # without a game: the one offering it
            return _doc_line(factories[0], name) if len(factories) == 1 else f"the game's {name}"
        try:
            shipped = shipped_spec(name, verify=False)
        except ValueError:
            return "a trained agent shipped with the package"
        if shipped.room_simulations is not None:
            return (
                "a trained AlphaZero agent shipped with the package: Gumbel search, "
                f"{shipped.room_simulations} simulations a move"
            )
        return "a trained MaskablePPO agent shipped with the package"

    def make(self, name: object, env, env_id: str, env_kwargs: dict, seed: int | None) -> Agent:
        """A new agent ``name`` checked against ``env`` (a reset raw environment of the game).

        Raises:
            ValueError: unknown name, or the agent cannot play this game (its ``check_env``
                message, e.g. alpha-beta in a game of three sides).
        """
        agent = make_agent(self.spec_of(name, env_id, env_kwargs), seed=seed)
        agent.check_env(env)
        return agent

    def menu(self, env, env_id: str, env_kwargs: dict) -> list[MenuEntry]:
        """The agents that can play ``env``'s game (a reset raw environment): baselines, shipped,
        named; each checked once per setting (cached)."""
        return [
            MenuEntry(name, self.summary(name, env.state))
            for name, why in self._checked(env, env_id, env_kwargs)
            if not why
        ]

    def unavailable(self, env, env_id: str, env_kwargs: dict) -> list[MenuEntry]:
        """The room's agents that cannot play ``env``'s game (a reset raw environment of
        ``env_id`` with ``env_kwargs``), each with why (``summary``): the agent's own refusal
        (e.g. alpha-beta in a game of three sides), or the one setting a shipped agent was
        trained on. The lobby names them when a change of setting drops a seat's agent."""
        out = [MenuEntry(name, why) for name, why in self._checked(env, env_id, env_kwargs) if why]
        here = {s.name for s in self._shipped(env_id, env_kwargs)}
        for s in shipped_agents():
            if s.name not in here:
                setting = ", ".join(f"{k}={json.dumps(v)}" for k, v in s.env_kwargs.items())
                out.append(
                    MenuEntry(
                        s.name,
                        f"it was trained only for {_game_name(s.env_id)} ({s.env_id})"
                        + (f" with {setting}" if setting else ", its default setting"),
                    )
                )
        return out

    def estimate(self, agent, env, env_id: str, env_kwargs: dict) -> float | None:
        """The estimated seconds of ``agent``'s move in ``env``'s setting (``None``: not a search
        agent, or the probe failed), from the setting's :class:`SpeedProbe` (measured once per
        setting, cached)."""
        return self._estimate(agent, env, (env_id, json.dumps(env_kwargs, sort_keys=True)))

    def _estimate(self, agent, env, key: tuple) -> float | None:
        from room.workers import uses_process

        if not uses_process(agent):
            return None
        with self._lock:
            known = key in self._probes
            probe = self._probes.get(key)
        if not known:
            from room.workers import call_in_process

            try:  # in a forked child: the probe's Python work does not hold the server's GIL
                probe = call_in_process(_probe, (env, self.max_depth), PROBE_TIMEOUT)
            except Exception:  # noqa: BLE001 - no estimate: the move time limit still stops the agent
                probe = None
            with self._lock:
                self._probes[key] = probe
                while len(self._probes) > SETTINGS_KEPT:
                    self._probes.popitem(last=False)
        return None if probe is None else probe.estimate(agent)

    def _too_slow(self, agent, env, key: tuple) -> str | None:
        """Why ``agent`` is not offered for this setting (its estimated move is past
        :data:`SPEED_SHARE` of the move time limit), or ``None``."""
        seconds = self._estimate(agent, env, key)
        if seconds is None or seconds <= SPEED_SHARE * self.move_time_limit:
            return None
        return (
            f"it is too slow for this setting: a move is estimated at about {_duration(seconds)} on this "
            f"machine, and the room stops a move after {self.move_time_limit:g} s (--move-time-limit; the "
            f"menus offer a search agent estimated at most {SPEED_SHARE:.0%} of it)"
        )

    def _checked(self, env, env_id: str, env_kwargs: dict) -> list[tuple[str, str | None]]:
        """``(name, why not)`` of every agent that may be offered for this setting (``None``: it
        can play), each checked once per setting (cached)."""
        names = (
            [b for b in BASELINES if self._allowed(b)]
            + list(game_agents())
            + [s.name for s in self._shipped(env_id, env_kwargs)]
            + list(self.named)
        )
        key_base = (env_id, json.dumps(env_kwargs, sort_keys=True))
        return [(name, self._check(name, env, env_id, env_kwargs, key_base)) for name in names]

    def refusal(self, name: object, env, env_id: str, env_kwargs: dict) -> str | None:
        """Why the agent ``name`` may not be seated in ``env``'s setting (a reset raw environment
        of ``env_id`` with ``env_kwargs``), or ``None``: exactly what the seat menus refuse (an
        unknown name, an agent that cannot play the game, a search agent too slow for the
        setting), checked once per setting (cached). It may probe the setting's speed (seconds
        the first time): call it off the event loop. The room asks it for a ``create`` or
        ``seat`` message, not for games restored from a journal."""
        return self._check(name, env, env_id, env_kwargs, (env_id, json.dumps(env_kwargs, sort_keys=True)))

    def _check(self, name, env, env_id: str, env_kwargs: dict, key_base: tuple) -> str | None:
        with self._lock:
            checked = self._compatible.get(key_base, {})
            known = name in checked
            problem = checked.get(name)
            if key_base in self._compatible:
                self._compatible.move_to_end(key_base)
        if known:
            return problem
        try:
            agent = self.make(name, env, env_id, env_kwargs, seed=0)
            problem = self._too_slow(agent, env, key_base)
        except Exception as e:  # noqa: BLE001 - any failure means: not offered
            problem = str(e)
        with self._lock:
            if len(self._compatible.get(key_base, {})) < MAX_CHECKED_NAMES:  # names a client makes up
                self._compatible.setdefault(key_base, {})[name] = problem
            self._compatible.move_to_end(key_base)
            while len(self._compatible) > SETTINGS_KEPT:
                self._compatible.popitem(last=False)
        return problem


def _duration(seconds: float) -> str:
    if seconds < 100:
        return f"{seconds:.2g} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} minutes"
    if seconds < 3600 * 48:
        hours = round(seconds / 3600)
        return f"{hours} hour" + ("" if hours == 1 else "s")
    return "days or more"
