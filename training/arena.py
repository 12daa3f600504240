"""The one game loop: agents playing a game through its environment (used by evaluation,
training, self-play checks and terminal play).

:func:`play_game` makes the environment from the registry (or plays in one the caller made),
asks the agent of each seat for its move, and reports every move to optional observers, which is
how terminal play (:mod:`training.play`) shows the board; a person is just another agent
(:class:`training.human.HumanAgent`). An agent may end the game early by raising
:class:`GameAbandoned` (a person typing ``quit``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from envs.core.checks import is_int
from envs.registry import spec
from training.agents import Agent

__all__ = ["GameAbandoned", "GameResult", "play_game", "play_games", "head_to_head", "opening_rng"]


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
        opening_plies: how many of the first plies were the random opening (``opening_plies`` of
            :func:`play_game`), not the agents' moves; counted in ``plies`` and ``moves`` too.
    """

    returns: np.ndarray
    plies: int
    truncated: bool
    moves: list[str] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    abandoned: bool = False
    opening_plies: int = 0

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
    opening_plies: int = 0,
    agent_seed: int | None = None,
) -> GameResult:
    """Play one game; ``seats[i]`` plays ``player_i``.

    Args:
        env_id: a registered environment id (``envs.env_ids()``).
        seats: one agent per seat (the same object may sit in several seats).
        seed: seeds the environment (``reset(seed=seed)``: the deal of a game with chance) and
            the opening, and re-seeds the agent in seat ``i`` with ``seed * 1000 + i`` unless
            ``agent_seed`` is given; ``None`` leaves them unseeded.
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
        opening_plies: the game's first plies (at most this many: fewer if the rules end the game
            first) are uniformly random legal moves, not the agents': an opening drawn from
            :func:`opening_rng` of ``seed``, so that the same seed gives the same opening (and, in
            a game without chance, the same position) whoever sits where. Deterministic agents
            then play different games from different seeds. Default 0: the agents play from the
            start position.
        agent_seed: re-seeds the agent in seat ``i`` with ``agent_seed * 1000 + i`` instead of
            ``seed``'s; ``None`` (default): ``seed``'s. Games that share a seed (one opening and
            deal, the sides swapped) take different ``agent_seed``, or two agents of one kind
            draw the same numbers in each other's seats and play one game twice.

    Returns:
        The :class:`GameResult`.

    Raises:
        ValueError: the number of agents does not match the number of seats; ``env`` given with
            ``env_kwargs`` or ``max_steps``; ``opening_plies`` not an integer ``>= 0``;
            ``agent_seed`` not ``None`` or an integer ``>= 0``; an unknown id or bad kwargs (the
            registry's ``UnknownEnvError`` / ``ParameterError``).
    """
    opening_plies = check_opening_plies(opening_plies)
    _check_agent_seed(agent_seed)
    own_env = env is None
    if own_env:
        env = _make_env(env_id, env_kwargs, max_steps)
    elif env_kwargs is not None or max_steps is not None:
        raise ValueError("play_game: give either env (a made environment) or env_kwargs / max_steps, not both")
    game = _GameLoop(env_id, env, seats, seed, record, on_start, on_move, opening_plies, agent_seed)
    while (request := game.next_request()) is not None:
        agent, state, obs = request
        try:
            action = agent.act(state, obs)  # in the seat's own frame
        except GameAbandoned:
            game.abandon()
            continue
        game.play(action)
    if own_env:
        env.close()
    return game.result()


def opening_rng(seed: int | None) -> np.random.Generator:
    """The generator that draws a game's random opening (``opening_plies``) from the game's seed:
    ``numpy.random.default_rng([seed, 1])``, a stream apart from the agents' seeds (``seed * 1000 + i``
    seed their own generators); a fresh unseeded generator when ``seed`` is ``None``."""
    return np.random.default_rng() if seed is None else np.random.default_rng([int(seed), 1])


def check_opening_plies(opening_plies) -> int:
    """``opening_plies`` as an ``int``, checked: the one check of :func:`play_game`,
    :func:`play_games` and :func:`training.tournament.run_tournament`.

    Raises:
        ValueError: not an integer ``>= 0`` (``bool`` refused).
    """
    if not is_int(opening_plies) or opening_plies < 0:
        raise ValueError(f"opening_plies must be an integer >= 0, got {opening_plies!r}")
    return int(opening_plies)


def _check_agent_seed(agent_seed) -> None:
    if agent_seed is not None and (not is_int(agent_seed) or agent_seed < 0):
        raise ValueError(f"agent_seed must be None or an integer >= 0, got {agent_seed!r}")


def _make_env(env_id: str, env_kwargs: dict | None, max_steps: int | None):
    kwargs = dict(env_kwargs or {})
    if max_steps is not None:
        kwargs["max_steps"] = max_steps
    return spec(env_id).make_raw(**kwargs)


class _GameLoop:
    """One game's loop as steps: :meth:`next_request` names the agent to move (with the state and
    its observation), :meth:`play` applies its answer. :func:`play_game` drives one such loop,
    :func:`play_games` several side by side. Making one resets the environment and re-seeds the
    seats' agents (``agent_seed * 1000 + i``, ``seed``'s when ``agent_seed`` is ``None``); ``rngs``
    keeps, per agent object, the generator the game gave it, so that games played side by side draw
    exactly what they would draw alone. With ``opening_plies``, that many uniformly random legal
    moves (from :func:`opening_rng` of the seed) are played first, before any agent is asked."""

    def __init__(self, env_id, env, seats, seed, record, on_start=None, on_move=None, opening_plies=0, agent_seed=None):
        env.reset(seed=seed)
        if len(seats) != env.num_players:
            raise ValueError(f"{env_id} has {env.num_players} seats, got {len(seats)} agents")
        if agent_seed is None:
            agent_seed = seed
        for i, agent in enumerate(seats):
            agent.reset(None if agent_seed is None else agent_seed * 1000 + i)
        self.rngs = {id(agent): getattr(agent, "rng", None) for agent in seats}
        self.env, self.seats, self.record, self.on_move = env, seats, record, on_move
        self.keep = record or on_move is not None
        self.moves: list[str] = []
        self.actions: list[int] = []
        self.plies = 0
        self.abandoned = False
        self.player = -1
        self.opening_plies = 0
        if on_start is not None:
            on_start(env)
        if opening_plies:
            self._play_opening(opening_plies, opening_rng(seed))

    def _play_opening(self, plies: int, rng: np.random.Generator) -> None:
        """Up to ``plies`` uniformly random legal moves (one ``rng.integers`` draw each, over the
        mover's action mask), fewer if the game ends first."""
        env = self.env
        for _ in range(plies):
            agent_id = env.agent_selection
            if self.abandoned or env.terminations[agent_id] or env.truncations[agent_id]:
                return
            self.player = env.possible_agents.index(agent_id)
            legal = np.flatnonzero(env.observe(agent_id)["action_mask"])
            self.play(int(legal[rng.integers(len(legal))]))
            self.opening_plies += 1

    def next_request(self):
        """``(agent, state, obs)`` of the seat to move, or ``None`` once the game is over."""
        env = self.env
        if self.abandoned:
            return None
        agent_id = env.agent_selection
        if env.terminations[agent_id] or env.truncations[agent_id]:
            return None
        self.player = env.possible_agents.index(agent_id)
        agent = self.seats[self.player]
        if self.rngs[id(agent)] is not None:
            agent.rng = self.rngs[id(agent)]
        return agent, env.state, env.observe(agent_id)

    def abandon(self) -> None:
        self.abandoned = True

    def play(self, action) -> None:
        env, player = self.env, self.player
        if self.keep:
            absolute = env.state.to_state_action(player, int(action))
            notation = env.state.action_to_string(absolute)  # before the move: notation may depend on the position
        env.step(action)
        self.plies += 1
        if self.record:
            self.moves.append(notation)
            self.actions.append(int(absolute))
        if self.on_move is not None:
            self.on_move(env, player, int(absolute), notation)

    def result(self) -> GameResult:
        env = self.env
        truncated = not self.abandoned and any(env.truncations.values()) and not any(env.terminations.values())
        if self.abandoned:
            returns = np.zeros(env.num_players, dtype=np.float64)
        else:
            returns = np.array([env._cumulative_rewards[a] for a in env.possible_agents], dtype=np.float64)
        return GameResult(
            returns=returns,
            plies=self.plies,
            truncated=truncated,
            moves=self.moves,
            actions=self.actions,
            abandoned=self.abandoned,
            opening_plies=self.opening_plies,
        )


def play_games(
    env_id: str,
    games: Sequence[tuple[Sequence[Agent], int | None] | tuple[Sequence[Agent], int | None, int | None]],
    env_kwargs: dict | None = None,
    max_steps: int | None = None,
    record: bool = False,
    *,
    concurrency: int = 1,
    on_result: Callable[[int, GameResult], None] | None = None,
    opening_plies: int = 0,
) -> list[GameResult]:
    """Play several games, up to ``concurrency`` of them side by side; the same results as
    :func:`play_game` on each ``(seats, seed)`` (or ``(seats, seed, agent_seed)``) in turn.

    Side by side, the games advance move by move together, and an agent to move in several of them
    answers them all in one call of :meth:`~training.agents.base.Agent.act_batch` (one batched
    search for the AlphaZero agent: the network evaluates the positions of all its games at once).
    Each game keeps the random generators its seeds gave its agents and hands them back before
    each move, so an agent whose only state between moves is its generator (every agent of
    :mod:`training.agents`) draws what it would draw in the game alone: the results do not depend
    on ``concurrency``. (An agent whose batched answer differs from its single one, as a network's
    floating-point sums may in the last bits, is the exception.)

    Args:
        env_id: a registered environment id.
        games: ``(seats, seed)`` or ``(seats, seed, agent_seed)`` per game, as :func:`play_game`'s
            arguments.
        env_kwargs, max_steps, record: as :func:`play_game`, for every game.
        concurrency: games in play at once (``>= 1``; 1 plays them one after the other).
        on_result: called as ``on_result(index, result)`` as each game ends (in the order they end).
        opening_plies: random opening plies of every game, as :func:`play_game`'s (from each
            game's seed).

    Returns:
        One :class:`GameResult` per game, in the order of ``games``.

    Raises:
        ValueError: ``concurrency`` below 1, ``opening_plies`` below 0, a game that is not a pair
            or triple, a bad ``agent_seed``, a game whose agent count is not the seat count, and
            :func:`play_game`'s errors. :class:`GameAbandoned` is not caught here: the agent that
            raises it is asked from one game among several.
    """
    if not is_int(concurrency) or concurrency < 1:
        raise ValueError(f"concurrency must be an integer >= 1, got {concurrency!r}")
    opening_plies = check_opening_plies(opening_plies)
    planned: list[tuple[Sequence[Agent], int | None, int | None]] = []
    for index, entry in enumerate(games):
        if not isinstance(entry, (tuple, list)) or len(entry) not in (2, 3):
            raise ValueError(f"games[{index}] must be (seats, seed) or (seats, seed, agent_seed), got {entry!r}")
        seats, seed, agent_seed = (*entry, None) if len(entry) == 2 else entry
        _check_agent_seed(agent_seed)
        planned.append((seats, seed, agent_seed))
    results: list[GameResult | None] = [None] * len(games)
    queue = list(enumerate(planned))[::-1]
    running: list[tuple[int, Any, _GameLoop]] = []
    try:
        while queue or running:
            while queue and len(running) < concurrency:
                index, (seats, seed, agent_seed) = queue.pop()
                env = _make_env(env_id, env_kwargs, max_steps)
                try:
                    loop = _GameLoop(
                        env_id, env, list(seats), seed, record, opening_plies=opening_plies, agent_seed=agent_seed
                    )
                    running.append((index, env, loop))
                except BaseException:
                    env.close()
                    raise
            asks: dict[int, list] = {}  # agent object -> the games it moves in, in order
            still = []
            for index, env, game in running:
                request = game.next_request()
                if request is None:
                    result = results[index] = game.result()
                    env.close()
                    if on_result is not None:
                        on_result(index, result)
                    continue
                still.append((index, env, game))
                asks.setdefault(id(request[0]), []).append((game, request))
            running = still
            for asked in asks.values():
                agent = asked[0][1][0]
                if len(asked) == 1:
                    game, (_, state, obs) = asked[0]
                    answers = [agent.act(state, obs)]
                else:
                    answers = agent.act_batch(
                        [state for _, (_, state, _) in asked],
                        [obs for _, (_, _, obs) in asked],
                        [game.rngs[id(agent)] for game, _ in asked],
                    )
                for (game, _), action in zip(asked, answers):
                    game.play(action)
    finally:
        for _, env, _ in running:
            env.close()
    return [r for r in results if r is not None]


def head_to_head(
    env_id: str,
    agent: Agent,
    opponent: Agent,
    games: int,
    seed: int = 0,
    env_kwargs: dict | None = None,
    max_steps: int | None = None,
    concurrency: int = 1,
) -> dict:
    """``agent``'s team against ``opponent`` in every other seat; the seats rotate game by game.

    In game ``g`` ``agent`` takes seat ``g mod num_players`` and every seat of the same team
    (the registry's ``EnvSpec.teams``; Double TwixT: the partner too), ``opponent`` every other
    seat. With two players the seats simply alternate. The game's result for ``agent`` is read
    from its own return: positive a win, negative a loss, zero a draw (a truncated game counts as
    a draw). ``concurrency``: games played side by side (:func:`play_games`; the same results).

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
    plan = [
        ([agent if team_of[i] == team_of[g % num_players] else opponent for i in range(num_players)], seed + g)
        for g in range(games)
    ]
    results = play_games(env_id, plan, env_kwargs=env_kwargs, max_steps=max_steps, concurrency=concurrency)
    for g, result in enumerate(results):
        r = result.returns[g % num_players]
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
