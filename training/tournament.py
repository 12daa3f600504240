"""Round-robin tournaments between agents: who plays whom, in which seats, and the games.

:func:`run_tournament` plays the games (on :func:`training.arena.play_games`), scores and rates
them (:mod:`training.ratings`) and writes the outputs (:mod:`training.report`);
``python -m training.evaluate`` (:mod:`training.evaluate`) is its command line.

Agent specs are those of :func:`training.agents.make_agent` (``random``, ``greedy``,
``mcts:N``, ``alphabeta:D``, ``PATH.zip``, ``PATH.zip:sample``). The same spec may be given
twice; the second copy is named ``SPEC#2`` (and so on).

Sides and teams: the game's seats and teams come from the registry's environment spec
(:meth:`envs.registry.EnvSpec.teams`, the rules state's ``teams()``: seats grouped by team, teams
ordered by their first seat; Double TwixT: ``[[0, 2], [1, 3]]``). A *team game* is one where
some team has more than one seat. The schedule is built over *sides*: in a team game a side is a
team, and an agent given a side takes all of its seats (so partners are always the same agent,
never two agents mixed on one team); in any other game (two-player games, or games of three or
more seats each its own team) a side is a seat. ``T`` below is the number of sides (teams in a
team game, else seats).

Schedule (:func:`schedule`; ``T`` = sides of the game, ``K`` = number of agents, ``N`` = games
per group):

* ``K >= T``: every group of ``T`` distinct agents (``itertools.combinations``, in the order the
  agents were given) plays ``N`` games. In game ``g`` of a group, side ``t`` is held by the
  group's agent ``(t + g) mod T``, so the sides rotate and every agent of the group holds every
  side equally often (exactly ``N / T`` games each when ``T`` divides ``N``; within one game
  apart otherwise). Games are played in rounds: game 0 of every group, then game 1 of
  every group, and so on (the online OpenSkill update then sees the groups interleaved rather
  than one after another). For two-player games this is the usual round robin: every pair plays
  ``N`` games, each agent half of them as the first player (the first agent of the pair gets the
  extra game when ``N`` is odd). For a two-team four-seat game such as Double TwixT it is the
  same round robin over teams: in game ``g`` of the pair ``(a, b)`` seats 0 and 2 go to ``a`` and
  seats 1 and 3 to ``b`` when ``g`` is even, the other way round when ``g`` is odd.
* ``gauntlet``: only the groups that hold the first agent play (the first agent against the
  field, as a chess gauntlet); the same rotation of sides within each group.
* ``K < T`` (only for games with more sides than agents): one group of all agents plays ``N``
  games; in game ``g`` side ``t`` is held by agent ``(t + g) mod K``, so some agents hold several
  sides in a game (as the same agent object).

Openings (``opening_plies`` K > 0): every game starts with K uniformly random legal moves
(:func:`training.arena.play_game`'s ``opening_plies``), drawn from the game's seed, and the games
of one rotation of the sides (games ``g`` with the same ``g // T`` in a group; ``g // K`` for
``K < T`` agents) share their seed, so each opening is played once with every agent on every side
(two-player games: each opening with both seat orders; in a game with chance, the same deal too).
Two deterministic agents (a network playing its most probable move, a noiseless search) would
otherwise play the same game over and over from the rules' fixed start position; the
``distinct_games`` of :func:`training.ratings.pair_table` counts how many of a pair's games
differed.
The agents' own generators still come from each game's own seed (the game record's
``agent_seed``), so two stochastic agents of one kind do not replay a game with the seats swapped.
When ``N`` is not a multiple of the rotation (two-player games: an odd ``N``), the last opening is
played in fewer seat orders than the others. An opening stops early where the rules end the game
or ``max_steps`` truncates it: an opening at least as long as the game leaves the agents no move
(the game record's ``plies`` equals its ``opening_plies``; the terminal report counts such games).

Every game record lists ``seats`` (the agent of each seat) and ``sides`` (the agent of each team,
one per entry of the result's ``teams``; equal to ``seats`` in a game without teams). Scoring and
ratings: :mod:`training.ratings`.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

from envs.core.checks import is_int
from envs.registry import spec
from training.agents import Agent, make_agent
from training.arena import check_opening_plies, play_games
from training.ratings import agent_results, elo_ratings_with_intervals, openskill_ratings, pair_table
from training.report import check_output_folder, write_outputs

__all__ = ["schedule", "run_tournament", "TournamentInterrupted"]


def _check_teams(teams, num_seats: int) -> list[list[int]]:
    """``teams`` as a list of seat lists, checked to be a partition of ``range(num_seats)``."""
    if teams is None:
        return [[i] for i in range(num_seats)]
    out = [[int(x) for x in t] for t in teams]
    seats = sorted(x for t in out for x in t)
    if not out or any(not t for t in out) or seats != list(range(num_seats)):
        raise ValueError(f"schedule: teams must split the seats 0..{num_seats - 1} into non-empty teams, got {teams!r}")
    return out


def schedule(
    num_agents: int, num_seats: int, games: int, teams: list[list[int]] | None = None, gauntlet: bool = False
) -> list[tuple[int, list[int]]]:
    """The games of a tournament as ``(group index, seat -> agent index)``, round by round.

    See the module docstring for the rules. The schedule is built over *sides*: the teams when
    ``teams`` is given, else the seats (each seat a side of its own); an agent given a side takes
    every seat of it.

    Args:
        num_agents: ``K >= 1``.
        num_seats: ``n >= 1``, seats of the game.
        games: ``N >= 1`` games per group.
        teams: optional partition of the seats into ``T`` teams (lists of seats, e.g.
            ``[[0, 2], [1, 3]]``, as ``EnvSpec.teams`` returns); ``None`` = every seat alone.
        gauntlet: only the groups that hold agent 0 (the first agent against the field; the
            others do not play each other).

    Returns:
        A list of ``(group, seats)`` with ``seats`` a list of ``num_seats`` agent indices.

    Raises:
        ValueError: an argument that is not a positive integer, or ``teams`` that is not a
            partition of the seats into non-empty teams.

    Example:
        >>> schedule(3, 2, 2)
        [(0, [0, 1]), (1, [0, 2]), (2, [1, 2]), (0, [1, 0]), (1, [2, 0]), (2, [2, 1])]
        >>> schedule(3, 4, 1, teams=[[0, 2], [1, 3]])
        [(0, [0, 1, 0, 1]), (1, [0, 2, 0, 2]), (2, [1, 2, 1, 2])]
        >>> schedule(3, 2, 1, gauntlet=True)
        [(0, [0, 1]), (1, [0, 2])]
    """
    for arg, value in (("num_agents", num_agents), ("num_seats", num_seats), ("games", games)):
        if not is_int(value) or value < 1:
            raise ValueError(f"schedule: {arg} must be a positive integer, got {value!r}")
    sides = _check_teams(teams, num_seats)
    num_sides = len(sides)
    if num_agents >= num_sides:
        groups = list(itertools.combinations(range(num_agents), num_sides))
        if gauntlet:
            groups = [g for g in groups if 0 in g]
        size = num_sides
    else:
        groups = [tuple(range(num_agents))]
        size = num_agents
    plan = []
    for g in range(games):
        for gi, group in enumerate(groups):
            seats = [0] * num_seats
            for t, side in enumerate(sides):
                for seat in side:
                    seats[seat] = group[(t + g) % size]
            plan.append((gi, seats))
    return plan


def _agent_names(specs: list[str]) -> list[str]:
    names: list[str] = []
    seen: dict[str, int] = {}
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        names.append(s if seen[s] == 1 else f"{s}#{seen[s]}")
    return names


class TournamentInterrupted(KeyboardInterrupt):
    """Ctrl+C (``KeyboardInterrupt``) during the games of a tournament with an ``out_dir``: the games
    that had ended were rated and written there first. ``result``: the tournament's result dict over
    those games, with ``interrupted = {"games_played", "games_planned"}``."""

    def __init__(self, result: dict[str, Any]):
        played, planned = result["interrupted"]["games_played"], result["interrupted"]["games_planned"]
        super().__init__(f"interrupted after {played} of {planned} games; their results are in {result['out_dir']}")
        self.result = result


def run_tournament(
    env_id: str,
    agent_specs: list[str],
    games: int,
    seed: int | None = None,
    *,
    out_dir: str | Path | None = None,
    max_steps: int | None = None,
    env_kwargs: dict | None = None,
    command: str | None = None,
    record_moves: bool = True,
    progress: Callable[[int, int], None] | None = None,
    gauntlet: bool = False,
    concurrency: int = 1,
    opening_plies: int = 0,
) -> dict[str, Any]:
    """Play a round-robin tournament and rate the agents (see the module docstring).

    Args:
        env_id: a registered environment id (``envs.env_ids()``).
        agent_specs: at least two specs for :func:`training.agents.make_agent`.
        games: games per group of agents (per pair in a two-player or two-team game), ``>= 1``.
        seed: master seed; every game's seed is drawn from ``numpy.random.SeedSequence(seed)``.
            ``None`` draws a fresh 32-bit seed (recorded in the result).
        out_dir: if given, write ``results.json``, ``pairs.csv``, ``ratings.csv`` and
            ``ratings.png`` there (created if needed, before any game is played; existing files
            are overwritten).
        max_steps: optional episode limit in plies (a truncated game is a draw); ``None``: a
            ``max_steps`` in ``env_kwargs``, else the environment spec's default.
        env_kwargs: constructor arguments of the environment (e.g. ``{"fen": "..."}``), checked
            by the registry (:meth:`envs.registry.EnvSpec.resolve_kwargs`) and the environment.
        command: the command line to record (the CLI passes its own).
        record_moves: keep every game's moves (notation) in the result.
        progress: called as ``progress(done, total)`` after every game.
        gauntlet: the first agent plays every other one; the others do not play each other
            (:func:`schedule`). The ratings are then fitted on those games alone.
        concurrency: games played side by side (:func:`training.arena.play_games`: an agent to
            move in several answers them in one batched call, the AlphaZero agent with one
            batched search). The results are those of ``concurrency=1``, except that a network's
            batched sums may differ from its single ones in the last bits (and so, rarely, a move).
        opening_plies: random opening plies of every game (module docstring, *Openings*); 0, the
            default, starts every game from the rules' start position.

    Returns:
        A JSON-serialisable dict: ``env_id``, ``env_kwargs``, ``max_steps``, ``seed``,
        ``games_per_group``, ``opening_plies``, ``num_players``, ``teams`` (the seats of each side, see
        ``EnvSpec.teams``: ``[[0, 2], [1, 3]]`` for Double TwixT, ``[[0], [1]]`` for a
        two-player game), ``num_teams``, ``command``, ``agents`` (``[{"name", "spec"}]``),
        ``games`` (one dict per game: ``index``, ``group``, ``seed`` (the environment's and the
        opening's), ``agent_seed`` (the agents', :func:`~training.arena.play_game`'s), ``seats`` = agent name per
        seat, ``sides`` = agent name per entry of ``teams``, ``agents`` = distinct agents,
        ``returns`` = per seat, ``results`` = per agent (its team's return),
        ``plies``, ``opening_plies`` (those of them that were the random opening), ``truncated``,
        ``moves``), ``pairs`` (:func:`pair_table`), ``ratings`` (one
        dict per agent, best Elo first when the game has exactly two sides, else best mu first:
        ``name``, ``spec``, ``games``, ``wins``, ``draws``, ``losses``, ``score``, ``mu``,
        ``sigma``, ``ci95_low``, ``ci95_high``, ``ordinal``, ``elo``, ``elo_ci95_low``,
        ``elo_ci95_high`` (the last three ``None`` unless the game has exactly two sides)),
        ``elo_anchor``, ``elapsed_s``,
        ``created``, ``out_dir`` (``None`` when nothing was written) and ``interrupted`` (``None``,
        or after Ctrl+C ``{"games_played", "games_planned"}``: see below).

    Ctrl+C during the games with an ``out_dir``: the games that had ended are rated and written
    (``interrupted`` says how many of how many), then :class:`TournamentInterrupted` (a
    ``KeyboardInterrupt``) is raised with that result. Without an ``out_dir`` the
    ``KeyboardInterrupt`` goes through as it came.

    Raises:
        ValueError: unknown ``env_id`` (``UnknownEnvError``), bad ``env_kwargs`` or ``max_steps``
            (``ParameterError``, the registry's or the environment's message; ``render_mode`` is
            refused, as by ``training.play``), fewer than two agents, a bad agent
            spec (a file that is not a MaskablePPO checkpoint included), ``games < 1``, a bad
            ``seed``, ``opening_plies`` not an integer ``>= 0``, or an ``out_dir`` that is an existing file or cannot be
            created or written. All of these are raised before any game is played.
        FileNotFoundError: a checkpoint in ``agent_specs`` does not exist.
    """
    env = spec(env_id)  # UnknownEnvError (a ValueError) lists the known ids
    if not is_int(games) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    games = int(games)
    if seed is not None and (not is_int(seed) or seed < 0):
        raise ValueError(f"seed must be None or a non-negative integer, got {seed!r}")
    opening_plies = check_opening_plies(opening_plies)
    agent_specs = list(agent_specs)
    if len(agent_specs) < 2:
        raise ValueError(f"a tournament needs at least two agents, got {agent_specs}")
    env_kwargs = dict(env_kwargs or {})
    if "render_mode" in env_kwargs:  # as training.play and training.train: the tool decides what is drawn
        raise ValueError(
            f"env_kwargs must not set render_mode (got {env_kwargs['render_mode']!r}): a tournament "
            "plays its games without drawing them; to watch a game use python -m training.play "
            "(--save-images for pictures)"
        )
    if "max_steps" in env_kwargs:  # the max_steps argument wins over one in env_kwargs
        given = env_kwargs.pop("max_steps")
        if max_steps is None:
            max_steps = given
    game_kwargs = env_kwargs if max_steps is None else {**env_kwargs, "max_steps": max_steps}
    # The registry checks the kwargs (names, then the environment its values: max_steps too).
    probe = env.make_raw(**game_kwargs)
    probe.reset(seed=0)  # some values are only checked when a game starts
    num_players = probe.num_players
    teams = probe.state.teams()  # as EnvSpec.teams: seats grouped by team, ordered by first seat
    team_game = any(len(t) > 1 for t in teams)

    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1)[0])
    seed = int(seed)
    names = _agent_names(agent_specs)
    agent_seeds = np.random.SeedSequence([seed, 1]).generate_state(len(names))
    agents: dict[str, Agent] = {n: make_agent(s, seed=int(sd)) for n, s, sd in zip(names, agent_specs, agent_seeds)}
    for agent in agents.values():  # an agent that cannot play this game: say so now
        agent.check_env(probe)
    probe.close()
    if out_dir is not None:  # fail now, not after the games
        out_dir = check_output_folder(out_dir)

    plan = schedule(len(names), num_players, games, teams=teams if team_game else None, gauntlet=gauntlet)
    game_seeds = agent_game_seeds = np.random.SeedSequence([seed, 2]).generate_state(len(plan))
    if opening_plies:  # one seed (one opening) per rotation of the sides: plan[g * groups + gi]
        groups = len(plan) // games
        period = min(len(names), len(teams) if team_game else num_players)
        game_seeds = np.array([game_seeds[(i // groups // period) * groups + i % groups] for i in range(len(plan))])
        # the agents keep each game's own seed: sharing it too would give an agent, in each other
        # seat of the rotation, the generator its opponent had there (two of a kind: one game twice)
    t0 = time.perf_counter()
    ended: dict[int, Any] = {}  # plan index -> its GameResult, as the games end

    def finished(index: int, result) -> None:
        ended[index] = result
        if progress is not None:
            progress(len(ended), len(plan))

    interrupted = False
    try:
        play_games(
            env_id,
            [
                ([agents[names[i]] for i in seat_idx], int(gseed), int(aseed))
                for (_, seat_idx), gseed, aseed in zip(plan, game_seeds, agent_game_seeds)
            ],
            env_kwargs=game_kwargs,
            record=record_moves,
            concurrency=concurrency,
            on_result=finished,
            opening_plies=opening_plies,
        )
    except KeyboardInterrupt:  # Ctrl+C: keep and write the games that ended, then stop
        if out_dir is None:
            raise
        interrupted = True
    records = []
    for index in sorted(ended):
        (group, seat_idx), gseed, res = plan[index], game_seeds[index], ended[index]
        seat_names = [names[i] for i in seat_idx]
        returns = [float(r) for r in res.returns]
        rec: dict[str, Any] = {
            "index": index,
            "group": group,
            "seed": int(gseed),
            "agent_seed": int(agent_game_seeds[index]),
            "seats": seat_names,
            "agents": list(dict.fromkeys(seat_names)),
            "sides": [seat_names[t[0]] for t in teams],
            "returns": returns,
            "results": agent_results(seat_names, returns),
            "plies": int(res.plies),
            "opening_plies": int(res.opening_plies),
            "truncated": bool(res.truncated),
        }
        if record_moves:
            rec["moves"] = res.moves
        records.append(rec)
    elapsed = time.perf_counter() - t0

    pairs = pair_table(names, records)
    skill = openskill_ratings(names, records)
    anchor = None
    elo = None
    if len(teams) == 2:
        anchor = next((n for n, s in zip(names, agent_specs) if s == "random"), names[0])
        elo = elo_ratings_with_intervals(names, pairs, anchor)
    ratings = []
    for n, s in zip(names, agent_specs):
        mine = [p for p in pairs if p["agent"] == n]
        played = sum(1 for g in records if n in g["agents"])
        w, d, l = (sum(p[k] for p in mine) for k in ("wins", "draws", "losses"))
        ratings.append(
            {
                "name": n,
                "spec": s,
                "games": played,
                "wins": w,
                "draws": d,
                "losses": l,
                "score": (w + 0.5 * d) / (w + d + l) if (w + d + l) else float("nan"),
                **skill[n],
                **({"elo": None, "elo_ci95_low": None, "elo_ci95_high": None} if elo is None else elo[n]),
            }
        )
    if elo is None:
        ratings.sort(key=lambda r: -r["mu"])
    else:  # two sides: ranked by Elo (order-free), agents without one last
        ratings.sort(key=lambda r: (math.isnan(r["elo"]), -r["elo"] if not math.isnan(r["elo"]) else 0.0))
    result = {
        "env_id": env_id,
        "env_kwargs": env_kwargs,
        "max_steps": max_steps,
        "seed": seed,
        "games_per_group": games,
        "opening_plies": opening_plies,
        "gauntlet": bool(gauntlet),
        "num_players": num_players,
        "teams": teams,
        "num_teams": len(teams),
        "command": command,
        "agents": [{"name": n, "spec": s} for n, s in zip(names, agent_specs)],
        "games": records,
        "pairs": pairs,
        "ratings": ratings,
        "elo_anchor": anchor,
        "elapsed_s": elapsed,
        "created": datetime.now().astimezone().isoformat(timespec="seconds"),
        "out_dir": None,
        "interrupted": {"games_played": len(records), "games_planned": len(plan)} if interrupted else None,
    }
    if out_dir is not None:
        write_outputs(result, out_dir)
    if interrupted:
        raise TournamentInterrupted(result)
    return result
