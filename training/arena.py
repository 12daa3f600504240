"""The one game loop: agents playing a game through its environment (used by evaluation,
training, self-play checks and terminal play).

:func:`play_game` makes the environment from the registry (or plays in one the caller made),
asks the agent of each seat for its move, and reports every move to optional observers, which is
how terminal play (:mod:`training.play`) shows the board; a person is just another agent
(:class:`training.human.HumanAgent`). An agent may end the game early by raising
:class:`GameAbandoned` (a person typing ``quit``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from envs.registry import spec
from training.agents import Agent

__all__ = ["GameAbandoned", "GameResult", "play_game", "head_to_head"]


class GameAbandoned(Exception):
    """Raised by an agent's ``act`` to stop the game where it stands (a person quitting, the
    end of their input). :func:`play_game` then ends the game as abandoned: no result, all
    returns 0. The message says why."""


@dataclass
class GameResult:
    """One finished, truncated or abandoned game.

    Attributes:
        returns: ``float64 (num_players,)`` final reward of each seat (all 0 unless finished).
        plies: number of actions played.
        truncated: the episode hit ``max_steps`` before the rules ended it (returns are 0).
        moves: the actions in notation, in order (when recorded).
        actions: the same actions as ints in the state's absolute frame (when recorded).
        abandoned: an agent stopped the game (:class:`GameAbandoned`) before its end.
    """

    returns: np.ndarray
    plies: int
    truncated: bool
    moves: list[str] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    abandoned: bool = False

    @property
    def status(self) -> str:
        """``"finished"`` (the rules ended the game), ``"truncated"`` or ``"abandoned"``."""
        return "abandoned" if self.abandoned else "truncated" if self.truncated else "finished"


#: ``on_move(env, player, action, notation)``: called after every move; ``action`` is in the
#: state's absolute frame, ``notation`` its text (computed before the move was applied).
MoveObserver = Callable[[object, int, int, str], None]


def play_game(
    env_id: str,
    seats: list[Agent],
    seed: int | None = None,
    env_kwargs: dict | None = None,
    max_steps: int | None = None,
    record: bool = False,
    *,
    env=None,
    on_start: Callable[[object], None] | None = None,
    on_move: MoveObserver | None = None,
) -> GameResult:
    """Play one game; ``seats[i]`` plays ``player_i``.

    Args:
        env_id: a registered environment id (``envs.env_ids()``).
        seats: one agent per seat (the same object may sit in several seats).
        seed: seeds the environment (``reset(seed=seed)``) and re-seeds the agent in seat ``i``
            with ``seed * 1000 + i``; ``None`` leaves both unseeded.
        env_kwargs: constructor arguments of the environment (checked by the registry). A
            ``max_steps`` given here is used unless the ``max_steps`` argument is also given,
            which then wins.
        max_steps: episode limit in plies (truncation), ``None`` for the environment spec's default.
        record: keep the moves in :attr:`GameResult.moves` and :attr:`GameResult.actions`.
        env: a raw environment of ``env_id`` to play in, made by the caller (e.g. with a render
            mode); it is reset here and left open. ``env_kwargs`` and ``max_steps`` must then be
            ``None``. Default: one made from the registry's spec and closed at the end.
        on_start: called as ``on_start(env)`` once the game is set up, before the first move.
        on_move: called as ``on_move(env, player, action, notation)`` after every move
            (``action`` in the state's absolute frame).

    Returns:
        The :class:`GameResult`.

    Raises:
        ValueError: the number of agents does not match the number of seats; ``env`` given with
            ``env_kwargs`` or ``max_steps``; an unknown id or bad kwargs (the registry's
            ``UnknownEnvError`` / ``ParameterError``).
    """
    own_env = env is None
    if own_env:
        kwargs = dict(env_kwargs or {})
        if max_steps is not None:
            kwargs["max_steps"] = max_steps
        env = spec(env_id).make_raw(**kwargs)
    elif env_kwargs is not None or max_steps is not None:
        raise ValueError("play_game: give either env (a made environment) or env_kwargs / max_steps, not both")
    env.reset(seed=seed)
    if len(seats) != env.num_players:
        raise ValueError(f"{env_id} has {env.num_players} seats, got {len(seats)} agents")
    for i, agent in enumerate(seats):
        agent.reset(None if seed is None else seed * 1000 + i)
    if on_start is not None:
        on_start(env)
    keep = record or on_move is not None
    moves: list[str] = []
    actions: list[int] = []
    plies = 0
    abandoned = False
    while True:
        agent_id = env.agent_selection
        if env.terminations[agent_id] or env.truncations[agent_id]:
            break
        player = env.possible_agents.index(agent_id)
        obs = env.observe(agent_id)
        try:
            action = seats[player].act(env.state, obs)  # in the seat's own frame
        except GameAbandoned:
            abandoned = True
            break
        if keep:
            absolute = env.state.to_state_action(player, int(action))
            notation = env.state.action_to_string(absolute)  # before the move: notation may depend on the position
        env.step(action)
        plies += 1
        if record:
            moves.append(notation)
            actions.append(int(absolute))
        if on_move is not None:
            on_move(env, player, int(absolute), notation)
    truncated = not abandoned and any(env.truncations.values()) and not any(env.terminations.values())
    if abandoned:
        returns = np.zeros(env.num_players, dtype=np.float64)
    else:
        returns = np.array([env._cumulative_rewards[a] for a in env.possible_agents], dtype=np.float64)
    if own_env:
        env.close()
    return GameResult(
        returns=returns, plies=plies, truncated=truncated, moves=moves, actions=actions, abandoned=abandoned
    )


def head_to_head(
    env_id: str,
    agent: Agent,
    opponent: Agent,
    games: int,
    seed: int = 0,
    env_kwargs: dict | None = None,
    max_steps: int | None = None,
) -> dict:
    """``agent``'s team against ``opponent`` in every other seat; the seats rotate game by game.

    In game ``g`` ``agent`` takes seat ``g mod num_players`` and every seat of the same team
    (the registry's ``EnvSpec.teams``; Double TwixT: the partner too), ``opponent`` every other
    seat. With two players the seats simply alternate. The game's result for ``agent`` is read
    from its own return: positive a win, negative a loss, zero a draw (a truncated game counts as
    a draw).

    Returns:
        dict with ``wins``, ``draws``, ``losses`` (from ``agent``'s side), ``games`` and
        ``score`` (``(wins + draws / 2) / games``).

    Raises:
        ValueError: an unknown id or bad kwargs (the registry's messages).
    """
    teams = spec(env_id).teams(**(env_kwargs or {}))
    team_of = {seat: t for t, team in enumerate(teams) for seat in team}
    num_players = len(team_of)
    wins = draws = losses = 0
    for g in range(games):
        seat = g % num_players
        seats = [agent if team_of[i] == team_of[seat] else opponent for i in range(num_players)]
        r = play_game(env_id, seats, seed=seed + g, env_kwargs=env_kwargs, max_steps=max_steps).returns[seat]
        if r > 0:
            wins += 1
        elif r < 0:
            losses += 1
        else:
            draws += 1
    return {
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "games": games,
        "score": (wins + 0.5 * draws) / games if games else float("nan"),
    }
