"""Playing games between agents through the environments (used by evaluation, training and play)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from envs.registry import make_raw
from training.agents import Agent

__all__ = ["GameResult", "play_game", "head_to_head"]


@dataclass
class GameResult:
    """One finished (or truncated) game.

    Attributes:
        returns: ``float64 (num_players,)`` final reward of each seat.
        plies: number of actions played.
        truncated: the episode hit ``max_steps`` before the rules ended it (returns are 0).
        moves: the actions in notation, in order.
    """

    returns: np.ndarray
    plies: int
    truncated: bool
    moves: list[str] = field(default_factory=list)


def play_game(env_id: str, seats: list[Agent], seed: int | None = None, env_kwargs: dict | None = None,
              max_steps: int | None = None, record: bool = False) -> GameResult:
    """Play one game; ``seats[i]`` plays ``player_i``.

    Args:
        env_id: an id from ``envs.ENV_IDS``.
        seats: one agent per seat (the same object may sit in several seats).
        seed: seeds the environment (``reset(seed=seed)``) and re-seeds the agent in seat ``i``
            with ``seed * 1000 + i``; ``None`` leaves both unseeded.
        env_kwargs: constructor arguments of the environment. A ``max_steps`` given here is used
            unless the ``max_steps`` argument is also given, which then wins.
        max_steps: episode limit in plies (truncation), ``None`` for the environment's default.
        record: keep the moves in notation in :attr:`GameResult.moves`.

    Returns:
        The :class:`GameResult`.

    Raises:
        ValueError: the number of agents does not match the number of seats.
    """
    kwargs = dict(env_kwargs or {})
    if max_steps is not None or "max_steps" not in kwargs:
        kwargs["max_steps"] = max_steps
    env = make_raw(env_id, **kwargs)
    env.reset(seed=seed)
    if len(seats) != env.num_players:
        raise ValueError(f"{env_id} has {env.num_players} seats, got {len(seats)} agents")
    for i, agent in enumerate(seats):
        agent.reset(None if seed is None else seed * 1000 + i)
    moves: list[str] = []
    plies = 0
    while True:
        agent_id = env.agent_selection
        if env.terminations[agent_id] or env.truncations[agent_id]:
            break
        player = env.possible_agents.index(agent_id)
        obs = env.observe(agent_id)
        action = seats[player].act(env.state, obs)  # in the seat's own frame
        if record:
            moves.append(env.action_to_string(action))
        env.step(action)
        plies += 1
    truncated = any(env.truncations.values()) and not any(env.terminations.values())
    returns = np.array([env._cumulative_rewards[a] for a in env.possible_agents], dtype=np.float64)
    env.close()
    return GameResult(returns=returns, plies=plies, truncated=truncated, moves=moves)


def head_to_head(env_id: str, agent: Agent, opponent: Agent, games: int, seed: int = 0,
                 env_kwargs: dict | None = None, max_steps: int | None = None) -> dict:
    """``agent``'s team against ``opponent`` in every other seat; the seats rotate game by game.

    In game ``g`` ``agent`` takes seat ``g mod num_players`` and every seat of the same team
    (``state.team_of``; Double TwixT: the partner too), ``opponent`` every other seat. With two
    players the seats simply alternate. The game's result for ``agent`` is read from its own
    return: positive a win, negative a loss, zero a draw (a truncated game counts as a draw).

    Returns:
        dict with ``wins``, ``draws``, ``losses`` (from ``agent``'s side), ``games`` and
        ``score`` (``(wins + draws / 2) / games``).
    """
    probe = make_raw(env_id, **(env_kwargs or {}))
    probe.reset(seed=0)
    num_players, team_of = probe.num_players, probe.state.team_of
    wins = draws = losses = 0
    for g in range(games):
        seat = g % num_players
        seats = [agent if team_of(i) == team_of(seat) else opponent for i in range(num_players)]
        r = play_game(env_id, seats, seed=seed + g, env_kwargs=env_kwargs, max_steps=max_steps).returns[seat]
        if r > 0:
            wins += 1
        elif r < 0:
            losses += 1
        else:
            draws += 1
    return {"wins": wins, "draws": draws, "losses": losses, "games": games,
            "score": (wins + 0.5 * draws) / games if games else float("nan")}
