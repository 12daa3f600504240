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
import re
import threading
from dataclasses import dataclass

from envs.registry import game_agents
from training.agents import Agent, make_agent, parse_checkpoint_spec

__all__ = ["RoomAgents", "MenuEntry", "BASELINES", "MAX_DEPTH", "MAX_SIMULATIONS", "parse_agent_option"]

from training.agents.shipped import shipped_agents, shipped_for, shipped_spec

#: The baseline names listed in the seat menus, weakest first.
BASELINES = ("random", "greedy", "alphabeta:2", "alphabeta:3", "mcts:200", "mcts:1000")
#: The deepest ``alphabeta:D`` and the largest ``mcts:N`` a room may allow (its own bounds are
#: ``RoomLimits.max_alphabeta_depth`` and ``max_mcts_simulations``).
MAX_DEPTH = 6
MAX_SIMULATIONS = 20000

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
    factory = h.agents.get(name) if h is not None else None
    doc = (getattr(factory, "__doc__", None) or "").strip()
    return " ".join(doc.split("\n\n")[0].split()) or f"the game's {name}"


def _game_name(env_id: str) -> str:
    from envs.registry import spec

    return spec(env_id).initial_state().setting_name()


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
        self._compatible: dict[tuple, str | None] = {}
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
        """One line about the agent ``name`` for the menus of ``state``'s game (needed for the
        agents a game offers by name: their description is that game's)."""
        if name in self._summary:
            return self._summary[name]
        head, _, arg = name.partition(":")
        if head in _SUMMARY:
            return _SUMMARY[head].format(arg)
        if name in game_agents():
            return _game_agent_summary(name, state) if state is not None else f"the game's {name}"
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
        out = []
        for name in names:
            key = key_base + (name,)
            with self._lock:
                known = key in self._compatible
                problem = self._compatible.get(key)
            if not known:
                try:
                    self.make(name, env, env_id, env_kwargs, seed=0)
                    problem = None
                except Exception as e:  # noqa: BLE001 - any failure means: not offered
                    problem = str(e)
                with self._lock:
                    self._compatible[key] = problem
            out.append((name, problem))
        return out
