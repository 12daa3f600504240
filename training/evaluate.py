"""Round-robin tournaments between agents, with ratings, tables and a chart.

Command line::

    python -m training.evaluate ENV_ID --agents SPEC [SPEC ...] --games N
        [--seed S] [--out DIR] [--max-steps M] [--env-kwargs JSON] [--no-progress]

    python -m training.evaluate ataxx_v0 --agents random greedy alphabeta:1 alphabeta:2 --games 20

Agent specs are those of :func:`training.agents.make_agent` (the table
:data:`training.agents.SPECS`, listed by ``--help``). The same spec may be given
twice; the second copy is named ``SPEC#2`` (and so on).

Sides and teams: the game's teams are read from a freshly made raw environment after
``reset(seed=0)``: seat ``i`` belongs to team ``env.unwrapped.state.team_of(i)`` (teams ordered by
their first seat; Double TwixT: ``[[0, 2], [1, 3]]``). A *team game* is one where some team has
more than one seat. The schedule is built over *sides*: in a team game a side is a team, and an
agent given a side takes all of its seats (so partners are always the same agent, never two
agents mixed on one team); in any other game (two-player games, or games of three or more seats
each its own team) a side is a seat. ``T`` below is the number of sides (teams in a team game,
else seats).

Schedule (``T`` = sides of the game, ``K`` = number of agents, ``N`` = ``--games``):

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
* ``K < T`` (only for games with more sides than agents): one group of all agents plays ``N``
  games; in game ``g`` side ``t`` is held by agent ``(t + g) mod K``, so some agents hold several
  sides in a game (as the same agent object).

Every game record lists ``seats`` (the agent of each seat) and ``sides`` (the agent of each team,
one per entry of the result's ``teams``; equal to ``seats`` in a game without teams).

Scoring: an agent's result in a game is the mean of the returns of the seats it held, which in a
team game is its team's return (partners share their returns; an agent holding several sides when
``K < T`` gets their mean). Between two agents of the same game, the higher result is a win, an
equal one a draw (a game truncated by ``--max-steps`` has all returns 0: a draw for everyone).

Ratings:

* OpenSkill (``openskill.models.PlackettLuce``, defaults mu = 25, sigma = 25/3): every game is
  one match of the distinct agents in it (in a team game: one agent per team, each a one-member
  OpenSkill team, not the seats), ranked by their results (ties allowed), processed in the order
  played. Reported: mu, sigma, a 95 % interval ``mu +- 1.96 sigma``, and openskill's
  conservative ``ordinal`` (``mu - 3 sigma``).
* Elo (games with exactly two sides only: two-player games and two-team games such as Double
  TwixT; every game is then one agent against another): a Bradley-Terry model fitted by maximum
  likelihood with :func:`scipy.optimize.minimize` on all games at once (draws count half a win to each side), on
  the Elo scale (400 points = a factor 10 in odds), anchored at 0 for the first agent whose spec is
  ``random`` (else the first agent). Every pair that met gets one virtual draw added (a weak
  prior), so that an agent that won every game still gets a finite rating. Each rating has a 95 %
  interval relative to the anchor (Wald: ``elo +- 1.96`` standard errors from the inverse
  Hessian of the fit). In such games the ladder is ranked by Elo, which does not depend on the
  order the games were played in (OpenSkill's online updates do: between two agents of nearly
  equal strength its mu can put either first); otherwise it is ranked by OpenSkill mu.

Per ordered pair of agents: games, wins, draws, losses, score ``(W + D/2) / games`` and its 95 %
Wilson interval (:meth:`scipy.stats.binomtest(...).proportion_ci` with ``method="wilson"``; when
draws make the number of points a half-integer, the interval spans those of the two neighbouring
integers, which is conservative).

Outputs in ``--out`` (default ``runs/eval/<env_id>-<YYYYmmdd-HHMMSS>``): ``results.json`` (the
whole :func:`run_tournament` result: settings, command line, seed, every game, pairs, ratings),
``pairs.csv``, ``ratings.csv`` and ``ratings.png`` (the rating ladder with 95 % error bars;
checkpoint agents are labelled there by a short name, the last folder and the file stem, while the
CSV and JSON files keep the full names). The folder is created, and checked to be writable, before
any game is played; ``--out`` naming an existing file, or a place where no folder can be created,
is an error. The terminal shows a win/draw/loss table and the ladder (``rich``).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
import shlex
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any, Callable

import numpy as np

from envs.registry import ENV_IDS, make_raw
from training.agents import Agent, make_agent, parse_checkpoint_spec
from training.arena import play_game
from training.cli import json_object

__all__ = ["run_tournament", "schedule", "game_teams", "pair_table", "openskill_ratings", "elo_ratings", "elo_ratings_with_intervals", "write_outputs",
           "plot_ratings", "chart_labels", "print_report", "ensure_writable_dir", "non_negative_int", "main"]

#: The files :func:`write_outputs` writes into the output folder.
OUTPUT_FILES = ("results.json", "pairs.csv", "ratings.csv", "ratings.png")

#: z for a two-sided 95 % normal interval.
Z95 = 1.959963984540054
_ELO_PER_NAT = 400.0 / math.log(10.0)


# ---------------------------------------------------------------------------- schedule
def _check_teams(teams, num_seats: int) -> list[list[int]]:
    """``teams`` as a list of seat lists, checked to be a partition of ``range(num_seats)``."""
    if teams is None:
        return [[i] for i in range(num_seats)]
    out = [[int(x) for x in t] for t in teams]
    seats = sorted(x for t in out for x in t)
    if not out or any(not t for t in out) or seats != list(range(num_seats)):
        raise ValueError(f"schedule: teams must split the seats 0..{num_seats - 1} into non-empty teams, "
                         f"got {teams!r}")
    return out


def schedule(num_agents: int, num_seats: int, games: int,
             teams: list[list[int]] | None = None) -> list[tuple[int, list[int]]]:
    """The games of a tournament as ``(group index, seat -> agent index)``, round by round.

    See the module docstring for the rules. The schedule is built over *sides*: the teams when
    ``teams`` is given, else the seats (each seat a side of its own); an agent given a side takes
    every seat of it.

    Args:
        num_agents: ``K >= 1``.
        num_seats: ``n >= 1``, seats of the game.
        games: ``N >= 1`` games per group.
        teams: optional partition of the seats into ``T`` teams (lists of seats, e.g.
            ``[[0, 2], [1, 3]]``, as :func:`game_teams` returns); ``None`` = every seat alone.

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
    """
    for arg, value in (("num_agents", num_agents), ("num_seats", num_seats), ("games", games)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"schedule: {arg} must be a positive integer, got {value!r}")
    sides = _check_teams(teams, num_seats)
    num_sides = len(sides)
    if num_agents >= num_sides:
        groups = list(itertools.combinations(range(num_agents), num_sides))
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


def game_teams(state, num_players: int) -> list[list[int]]:
    """The teams of a game as lists of seats, from ``state.team_of(seat)``.

    Teams are ordered by their first seat, seats within a team ascending (Double TwixT:
    ``[[0, 2], [1, 3]]``; a game without teams: ``[[0], [1], ...]``). A state without
    ``team_of`` counts every seat as a team of its own.

    Args:
        state: a game state (e.g. ``raw_env.state`` after ``reset``), or ``None``.
        num_players: the number of seats.

    Returns:
        The teams.
    """
    team_of = getattr(state, "team_of", None)
    if team_of is None:
        return [[i] for i in range(num_players)]
    by: dict = {}
    for seat in range(num_players):
        by.setdefault(team_of(seat), []).append(seat)
    return list(by.values())


def _agent_results(seats: list[str], returns: list[float]) -> dict[str, float]:
    """Mean return of each distinct agent over the seats it held, in seat order of first seat."""
    by: dict[str, list[float]] = {}
    for name, r in zip(seats, returns):
        by.setdefault(name, []).append(float(r))
    return {name: float(np.mean(v)) for name, v in by.items()}


# ---------------------------------------------------------------------------- statistics
def _wilson(points: float, n: int) -> tuple[float, float]:
    """95 % Wilson interval for ``points`` successes out of ``n`` (half-integers: see module docs)."""
    from scipy.stats import binomtest

    lo_k, hi_k = math.floor(points + 1e-9), math.ceil(points - 1e-9)
    lo = binomtest(lo_k, n).proportion_ci(confidence_level=0.95, method="wilson").low
    hi = binomtest(hi_k, n).proportion_ci(confidence_level=0.95, method="wilson").high
    return float(lo), float(hi)


def pair_table(names: list[str], games: list[dict]) -> list[dict]:
    """Win/draw/loss record of every ordered pair of agents that met.

    Args:
        names: agent names, in order.
        games: game records with ``"seats"`` (agent name per seat) and ``"returns"``.

    Returns:
        One dict per ordered pair ``(agent, opponent)`` that met, in the order of ``names``:
        ``agent``, ``opponent``, ``games``, ``wins``, ``draws``, ``losses`` (from ``agent``'s
        side), ``score`` = ``(wins + draws / 2) / games`` and ``score_ci95_low`` /
        ``score_ci95_high`` (Wilson).

    Raises:
        KeyError: a game seats an agent that is not in ``names``.
    """
    wdl = {(a, b): [0, 0, 0] for a in names for b in names if a != b}
    for game in games:
        res = _agent_results(game["seats"], game["returns"])
        for a, b in itertools.permutations(res, 2):
            k = 0 if res[a] > res[b] else 2 if res[a] < res[b] else 1
            wdl[(a, b)][k] += 1
    rows = []
    for a in names:
        for b in names:
            if a == b or sum(wdl[(a, b)]) == 0:
                continue
            w, d, l = wdl[(a, b)]
            n = w + d + l
            points = w + 0.5 * d
            lo, hi = _wilson(points, n)
            rows.append({"agent": a, "opponent": b, "games": n, "wins": w, "draws": d, "losses": l,
                         "score": points / n, "score_ci95_low": lo, "score_ci95_high": hi})
    return rows


def openskill_ratings(names: list[str], games: list[dict]) -> dict[str, dict[str, float]]:
    """OpenSkill Plackett-Luce ratings after all ``games``, processed in order.

    Each game is one match between its distinct agents, ranked by their results
    (:func:`_agent_results`); equal results are ties. A game with a single distinct agent is
    skipped.

    Args:
        names: agent names, in order (each starts at openskill's default rating).
        games: game records with ``"seats"`` (agent name per seat) and ``"returns"``.

    Returns:
        ``{name: {"mu", "sigma", "ci95_low", "ci95_high", "ordinal"}}`` (floats).

    Raises:
        KeyError: a game seats an agent that is not in ``names``.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in names}
    for game in games:
        res = _agent_results(game["seats"], game["returns"])
        players = list(res)
        if len(players) < 2:
            continue
        ranks = [1 + sum(res[q] > res[p] for q in players) for p in players]
        new = model.rate([[ratings[p]] for p in players], ranks=ranks)
        for p, team in zip(players, new):
            ratings[p] = team[0]
    return {
        n: {"mu": float(r.mu), "sigma": float(r.sigma), "ci95_low": float(r.mu - Z95 * r.sigma),
            "ci95_high": float(r.mu + Z95 * r.sigma), "ordinal": float(r.ordinal())}
        for n, r in ratings.items()
    }


def _elo_points(names: list[str], pairs: list[dict], anchor: str, prior_draws: float) -> tuple[np.ndarray, list[int]]:
    """``points[i, j]`` (points ``names[i]`` scored against ``names[j]``, virtual draws included)
    and the indices of the free (non-anchor) ratings."""
    if anchor not in names:
        raise ValueError(f"Elo anchor {anchor!r} is not one of the agents {names}")
    idx = {n: i for i, n in enumerate(names)}
    k = len(names)
    points = np.zeros((k, k))
    for row in pairs:
        i, j = idx[row["agent"]], idx[row["opponent"]]
        points[i, j] = row["wins"] + 0.5 * row["draws"] + 0.5 * prior_draws
    return points, [i for i in range(k) if i != idx[anchor]]


def _elo_fit(points: np.ndarray, free: list[int]) -> np.ndarray:
    """Bradley-Terry maximum-likelihood strengths in nats (0 outside ``free``)."""
    from scipy.optimize import minimize
    from scipy.special import log_expit

    k = len(points)
    if not free:
        return np.zeros(k)

    def theta_of(x):
        t = np.zeros(k)
        t[free] = x
        return t

    def nll(x):
        t = theta_of(x)
        diff = t[:, None] - t[None, :]
        return -float(np.sum(points * log_expit(diff)))

    return theta_of(minimize(nll, np.zeros(len(free)), method="BFGS").x)


def elo_ratings(names: list[str], pairs: list[dict], anchor: str, prior_draws: float = 1.0) -> dict[str, float]:
    """Bradley-Terry maximum-likelihood ratings on the Elo scale, ``anchor`` fixed at 0.

    Args:
        names: agent names.
        pairs: rows of :func:`pair_table` (both orders of a pair are present; each game is
            counted once).
        anchor: the name whose rating is fixed at 0.
        prior_draws: virtual draws added to every pair that met (keeps ratings finite when an
            agent won or lost every game).

    Returns:
        ``{name: elo}``; an agent that met nobody gets ``nan``.

    Raises:
        ValueError: ``anchor`` is not in ``names``.
        KeyError: a row names an agent that is not in ``names``.
    """
    return {n: r["elo"] for n, r in elo_ratings_with_intervals(names, pairs, anchor, prior_draws).items()}


def elo_ratings_with_intervals(names: list[str], pairs: list[dict], anchor: str,
                               prior_draws: float = 1.0) -> dict[str, dict[str, float]]:
    """:func:`elo_ratings` with a 95 % interval for each rating.

    The interval is the Wald interval of the maximum-likelihood fit, ``elo +- 1.96 * se``, with
    ``se`` from the inverse of the observed information (the Hessian of the negative
    log-likelihood at the optimum, the virtual draws included): the uncertainty of each rating
    *relative to the anchor*, whose own interval is ``[0, 0]``. With two agents this is the Wald
    interval of the logit of the score, ``logit(s) +- 1.96 / sqrt(n s (1 - s))``, on the Elo scale.

    Args:
        names, pairs, anchor, prior_draws: as for :func:`elo_ratings`.

    With ``prior_draws=0`` and an agent that won (or lost) every game, the maximum-likelihood
    fit does not exist: its rating and interval are then meaningless. Keep the default prior.

    Returns:
        ``{name: {"elo", "elo_ci95_low", "elo_ci95_high"}}`` (floats, Elo points); all ``nan``
        for an agent that played no game or is not connected to the anchor through games played
        (its rating relative to the anchor is not determined).

    Raises:
        ValueError: ``anchor`` is not in ``names``.
        KeyError: a row names an agent that is not in ``names``.
    """
    from scipy.sparse.csgraph import connected_components
    from scipy.special import expit

    points, free = _elo_points(names, pairs, anchor, prior_draws)
    theta = _elo_fit(points, free)
    k = len(names)
    games = points + points.T
    p = expit(theta[:, None] - theta[None, :])  # the fit's win probabilities, as in _elo_fit's log_expit
    w = games * p * (1.0 - p)  # the information each pair's games carry about the difference
    np.fill_diagonal(w, 0.0)
    info = np.diag(w.sum(axis=1)) - w  # Hessian of the negative log-likelihood (a graph Laplacian)
    # Agents joined to the anchor by games: the others' ratings are not determined relative to it.
    a = names.index(anchor)
    labels = connected_components(games > 0, directed=False)[1]
    reach = labels == labels[a]
    se = np.full(k, np.nan)
    se[a] = 0.0
    sub = [i for i in free if reach[i]]
    if sub:
        cov = np.linalg.inv(info[np.ix_(sub, sub)])
        se[sub] = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    out = {}
    for i, n in enumerate(names):
        if not reach[i] or not games[i].any():
            out[n] = {"elo": float("nan"), "elo_ci95_low": float("nan"), "elo_ci95_high": float("nan")}
            continue
        elo, half = theta[i] * _ELO_PER_NAT, Z95 * se[i] * _ELO_PER_NAT
        out[n] = {"elo": float(elo), "elo_ci95_low": float(elo - half), "elo_ci95_high": float(elo + half)}
    return out


# ---------------------------------------------------------------------------- tournament
def _agent_names(specs: list[str]) -> list[str]:
    names, seen = [], {}
    for s in specs:
        seen[s] = seen.get(s, 0) + 1
        names.append(s if seen[s] == 1 else f"{s}#{seen[s]}")
    return names


def run_tournament(env_id: str, agent_specs: list[str], games: int, seed: int | None = None, *,
                   out_dir: str | Path | None = None, max_steps: int | None = None,
                   env_kwargs: dict | None = None, command: str | None = None, record_moves: bool = True,
                   progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Play a round-robin tournament and rate the agents (see the module docstring).

    Args:
        env_id: an id from ``envs.ENV_IDS``.
        agent_specs: at least two specs for :func:`training.agents.make_agent`.
        games: games per group of agents (per pair in a two-player or two-team game), ``>= 1``.
        seed: master seed; every game's seed is drawn from ``numpy.random.SeedSequence(seed)``.
            ``None`` draws a fresh 32-bit seed (recorded in the result).
        out_dir: if given, write ``results.json``, ``pairs.csv``, ``ratings.csv`` and
            ``ratings.png`` there (created if needed, before any game is played; existing files
            are overwritten).
        max_steps: optional episode limit in plies (a truncated game is a draw).
        env_kwargs: constructor arguments of the environment (e.g. ``{"fen": "..."}``).
        command: the command line to record (the CLI passes its own).
        record_moves: keep every game's moves (notation) in the result.
        progress: called as ``progress(done, total)`` after every game.

    Returns:
        A JSON-serialisable dict: ``env_id``, ``env_kwargs``, ``max_steps``, ``seed``,
        ``games_per_group``, ``num_players``, ``teams`` (the seats of each side, see
        :func:`game_teams`: ``[[0, 2], [1, 3]]`` for Double TwixT, ``[[0], [1]]`` for a
        two-player game), ``num_teams``, ``command``, ``agents`` (``[{"name", "spec"}]``),
        ``games`` (one dict per game: ``index``, ``group``, ``seed``, ``seats`` = agent name per
        seat, ``sides`` = agent name per entry of ``teams``, ``agents`` = distinct agents,
        ``returns`` = per seat, ``results`` = per agent (its team's return),
        ``plies``, ``truncated``, ``moves``), ``pairs`` (:func:`pair_table`), ``ratings`` (one
        dict per agent, best Elo first when the game has exactly two sides, else best mu first:
        ``name``, ``spec``, ``games``, ``wins``, ``draws``, ``losses``, ``score``, ``mu``,
        ``sigma``, ``ci95_low``, ``ci95_high``, ``ordinal``, ``elo``, ``elo_ci95_low``,
        ``elo_ci95_high`` (the last three ``None`` unless the game has exactly two sides)),
        ``elo_anchor``, ``elapsed_s``,
        ``created``, and ``out_dir`` (``None`` when nothing was written).

    Raises:
        ValueError: unknown ``env_id``, bad ``env_kwargs``, fewer than two agents, a bad agent
            spec (a file that is not a MaskablePPO checkpoint included), ``games < 1``, a bad
            ``max_steps`` or ``seed``, or an ``out_dir`` that is an existing file or cannot be
            created or written. All of these are raised before any game is played.
        FileNotFoundError: a checkpoint in ``agent_specs`` does not exist.
    """
    if env_id not in ENV_IDS:
        raise ValueError(f"unknown environment id {env_id!r}; known ids: {', '.join(ENV_IDS)}")
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    games = int(games)
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 1):
        raise ValueError(f"max_steps must be None or a positive integer, got {max_steps!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
        raise ValueError(f"seed must be None or a non-negative integer, got {seed!r}")
    agent_specs = list(agent_specs)
    if len(agent_specs) < 2:
        raise ValueError(f"a tournament needs at least two agents, got {agent_specs}")
    env_kwargs = dict(env_kwargs or {})
    given = dict(env_kwargs)  # as the caller passed them, for the error messages
    if "max_steps" in env_kwargs:
        if max_steps is None:
            max_steps = env_kwargs["max_steps"]
        env_kwargs.pop("max_steps")
    try:
        probe = make_raw(env_id, max_steps=max_steps, **env_kwargs)
    except TypeError as e:  # an unknown keyword argument
        raise ValueError(f"bad env_kwargs {given} for {env_id}: {e}") from None
    except ValueError as e:  # a bad value (malformed FEN, ...) or an unknown argument
        raise ValueError(f"bad env_kwargs {given} for {env_id}: {e}") from e
    num_players = probe.num_players
    try:
        probe.reset(seed=0)
    except ValueError as e:  # a bad value only noticed when a game starts
        raise ValueError(f"bad env_kwargs {given} for {env_id}: {e}") from e
    teams = game_teams(getattr(getattr(probe, "unwrapped", probe), "state", None), num_players)
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
        out_dir = _check_output_folder(out_dir)

    plan = schedule(len(names), num_players, games, teams=teams if team_game else None)
    game_seeds = np.random.SeedSequence([seed, 2]).generate_state(len(plan))
    t0 = time.perf_counter()
    records = []
    for index, ((group, seat_idx), gseed) in enumerate(zip(plan, game_seeds)):
        seat_names = [names[i] for i in seat_idx]
        res = play_game(env_id, [agents[n] for n in seat_names], seed=int(gseed), env_kwargs=env_kwargs,
                        max_steps=max_steps, record=record_moves)
        returns = [float(r) for r in res.returns]
        rec = {
            "index": index,
            "group": group,
            "seed": int(gseed),
            "seats": seat_names,
            "agents": list(dict.fromkeys(seat_names)),
            "sides": [seat_names[t[0]] for t in teams],
            "returns": returns,
            "results": _agent_results(seat_names, returns),
            "plies": int(res.plies),
            "truncated": bool(res.truncated),
        }
        if record_moves:
            rec["moves"] = res.moves
        records.append(rec)
        if progress is not None:
            progress(index + 1, len(plan))
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
        ratings.append({
            "name": n, "spec": s, "games": played, "wins": w, "draws": d, "losses": l,
            "score": (w + 0.5 * d) / (w + d + l) if (w + d + l) else float("nan"),
            **skill[n],
            **({"elo": None, "elo_ci95_low": None, "elo_ci95_high": None} if elo is None else elo[n]),
        })
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
    }
    if out_dir is not None:
        write_outputs(result, out_dir)
    return result


# ---------------------------------------------------------------------------- outputs
def ensure_writable_dir(path: str | Path, what: str = "output folder") -> Path:
    """Create the folder ``path`` if needed and check that a file can be written in it.

    Args:
        path: the folder.
        what: how error messages call it (e.g. ``"--save-images folder"``).

    Returns:
        ``path`` as a ``Path`` (the folder exists afterwards).

    Raises:
        ValueError: ``path`` exists and is not a folder, or the folder cannot be created (a parent
            is a file, no permission, a read-only or virtual file system such as ``/proc``) or
            written.
    """
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{what} {out} is an existing file, not a folder: expected a folder (new or existing)")
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as e:
        raise ValueError(f"cannot create or write the {what} {out}: {e}") from None
    return out


def _check_output_folder(out_dir: str | Path) -> Path:
    """:func:`ensure_writable_dir` plus: none of :data:`OUTPUT_FILES` is an existing folder."""
    out = ensure_writable_dir(out_dir, "output folder")
    for name in OUTPUT_FILES:
        if (out / name).is_dir():
            raise ValueError(f"output folder {out}: {out / name} is a folder, expected a file (or nothing) there")
    return out


def write_outputs(result: dict, out_dir: str | Path) -> Path:
    """Write ``results.json``, ``pairs.csv``, ``ratings.csv`` and ``ratings.png`` into ``out_dir``.

    Sets ``result["out_dir"]``.

    Args:
        result: a :func:`run_tournament` result.
        out_dir: the folder (created if needed; existing files are overwritten).

    Returns:
        The folder as a ``Path``.

    Raises:
        ValueError: ``out_dir`` is an existing file, cannot be created or written, or holds a
            folder where one of the output files goes.
    """
    out = _check_output_folder(out_dir)
    result["out_dir"] = str(out)
    with open(out / "results.json", "w", encoding="utf-8") as f:
        f.write(_json_text(result))
    pair_cols = ["agent", "opponent", "games", "wins", "draws", "losses", "score", "score_ci95_low", "score_ci95_high"]
    with open(out / "pairs.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=pair_cols)
        w.writeheader()
        w.writerows(result["pairs"])
    rating_cols = ["rank", "name", "spec", "games", "wins", "draws", "losses", "score", "mu", "sigma",
                   "ci95_low", "ci95_high", "ordinal", "elo", "elo_ci95_low", "elo_ci95_high"]
    with open(out / "ratings.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=rating_cols)
        w.writeheader()
        for rank, r in enumerate(result["ratings"], 1):
            w.writerow({"rank": rank, **{k: ("" if r.get(k) is None else r[k]) for k in rating_cols if k != "rank"}})
    plot_ratings(result, out / "ratings.png")
    return out


def _json_text(result: dict) -> str:
    """``result`` as JSON: one top-level key per line, lists of records one record per line."""
    parts = []
    for k, v in result.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            body = "[\n" + ",\n".join("  " + json.dumps(x) for x in v) + "\n ]"
        else:
            body = json.dumps(v)
        parts.append(f" {json.dumps(k)}: {body}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


#: Chart labels longer than this keep their end only (``…`` + the last characters).
MAX_LABEL = 40


def _ellipsize(text: str, limit: int = MAX_LABEL) -> str:
    """``text``, or ``…`` and its last ``limit - 1`` characters (the end tells checkpoints apart)."""
    return text if len(text) <= limit else "…" + text[len(text) - (limit - 1):]


def chart_labels(ratings: list[dict]) -> list[str]:
    """Short agent labels for the chart, one per entry of ``ratings``.

    A checkpoint agent (spec ``.../run/final.zip[:sample]``) is shown as ``run/final`` (its folder
    and file stem), followed by ``:sample`` and a duplicate suffix such as ``#2`` where its name
    has them; other agents by their name. Labels longer than :data:`MAX_LABEL` characters keep
    their end (``…`` and the last ``MAX_LABEL - 1`` characters). Where two shortened labels would be equal, both agents keep their
    full names.

    Args:
        ratings: entries with ``"name"`` and ``"spec"`` (as in ``result["ratings"]``).

    Returns:
        The labels, in the order of ``ratings``.

    Raises:
        KeyError: an entry without ``"name"``.
    """
    labels = []
    for r in ratings:
        name, spec = r["name"], r.get("spec", r["name"])
        try:
            checkpoint = parse_checkpoint_spec(spec)
        except ValueError:
            checkpoint = None
        if checkpoint is None:
            labels.append(_ellipsize(name))
            continue
        path, sample = checkpoint
        p = Path(path)
        short = f"{p.parent.name}/{p.stem}" if p.parent.name else p.stem
        suffix = name[len(spec):] if name.startswith(spec) else ""
        labels.append(_ellipsize(short + (":sample" if sample else "") + suffix))
    counts: dict[str, int] = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    return [label if counts[label] == 1 else r["name"] for label, r in zip(labels, ratings)]


def plot_ratings(result: dict, path: str | Path):
    """Save the rating ladder (best at the top, 95 % error bars) as a PNG (Agg backend).

    Two-sided games (every agent has a finite Elo interval) show Elo, the others OpenSkill mu.

    Agents are labelled by :func:`chart_labels`; the layout is tightened and the picture cropped
    to its contents (``bbox_inches="tight"``), so no label is cut off.

    Args:
        result: a :func:`run_tournament` result (``ratings``, ``games``, ``num_players``,
            ``env_id``, ``games_per_group``, ``seed``).
        path: the PNG file to write (its folder must exist).

    Returns:
        The ``matplotlib.figure.Figure`` that was saved.

    Raises:
        OSError: the file cannot be written.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    ratings = result["ratings"]
    k = len(ratings)
    fig = Figure(figsize=(8, 1.2 + 0.55 * k), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(111)
    ys = np.arange(k)[::-1]

    def finite(x):
        return x is not None and math.isfinite(x)

    use_elo = all(finite(r.get("elo_ci95_low")) and finite(r.get("elo_ci95_high")) for r in ratings)
    key, low, high = ("elo", "elo_ci95_low", "elo_ci95_high") if use_elo else ("mu", "ci95_low", "ci95_high")
    xs = np.array([r[key] for r in ratings])
    err = np.array([[r[key] - r[low] for r in ratings], [r[high] - r[key] for r in ratings]])
    ax.errorbar(xs, ys, xerr=err, fmt="o", color="tab:blue", ecolor="tab:gray", elinewidth=2, capsize=5)
    ax.set_yticks(ys)
    ax.set_yticklabels(chart_labels(ratings))
    for y, r in zip(ys, ratings):
        if use_elo:
            label = f"Elo {r['elo']:+.0f} ± {r['elo_ci95_high'] - r['elo']:.0f}   (mu {r['mu']:.1f})"
        else:
            label = f"{r['mu']:.1f} ± {Z95 * r['sigma']:.1f}"
            if finite(r.get("elo")):
                label += f"   Elo {r['elo']:+.0f}"
        ax.annotate(label, (r[key], y), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.set_ylim(-0.7, k - 0.3)
    lo, hi = min(r[low] for r in ratings), max(r[high] for r in ratings)
    pad = 0.08 * (hi - lo or 1.0)
    ax.set_xlim(lo - pad, hi + pad)
    if use_elo:
        ax.set_xlabel("Elo, Bradley-Terry fit, anchor at 0  (bars: 95 % interval)")
    else:
        ax.set_xlabel("OpenSkill Plackett-Luce mu  (bars: 95 % interval, mu ± 1.96 sigma)")
    n_games = len(result["games"])
    per = "pair" if result.get("num_teams", result["num_players"]) == 2 else "group"
    ax.set_title(f"{result['env_id']}: {n_games} games ({result['games_per_group']} per {per}), seed {result['seed']}",
                 fontsize=10)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight", pad_inches=0.15)
    return fig


def print_report(result: dict, console=None) -> None:
    """Print the win/draw/loss table and the rating ladder with ``rich``.

    Args:
        result: a :func:`run_tournament` result.
        console: a ``rich.console.Console`` (default: a new one on standard output).

    Returns:
        Nothing.

    Raises:
        KeyError: ``result`` lacks a field of a :func:`run_tournament` result.
    """
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    names = [a["name"] for a in result["agents"]]
    by_pair = {(p["agent"], p["opponent"]): p for p in result["pairs"]}
    wdl = Table(title=f"{result['env_id']}: wins-draws-losses (row agent against column agent)")
    wdl.add_column("agent", style="bold")
    for n in names:
        wdl.add_column(n, justify="center")
    wdl.add_column("score", justify="right")
    for a in names:
        cells = []
        for b in names:
            p = by_pair.get((a, b))
            cells.append("·" if p is None else f"{p['wins']}-{p['draws']}-{p['losses']}")
        r = next(r for r in result["ratings"] if r["name"] == a)
        cells.append(f"{r['score']:.3f}")
        wdl.add_row(a, *cells)
    console.print(wdl)

    two_sided = any(r.get("elo") is not None for r in result["ratings"])
    ladder = Table(title="Ladder, ranked by " + ("Elo (Bradley-Terry; 95 % interval from the fit)" if two_sided
                                                 else "OpenSkill Plackett-Luce mu")
                   + "; OpenSkill 95 % interval = mu ± 1.96 sigma")
    columns = [("#", "right"), ("agent", "left")]
    if two_sided:
        columns += [("Elo", "right"), ("Elo 95 %", "center")]
    columns += [("mu", "right"), ("mu 95 %", "center"), ("W-D-L", "center"), ("score", "right")]
    for col, just in columns:
        ladder.add_column(col, justify=just)
    for rank, r in enumerate(result["ratings"], 1):
        cells = [str(rank), r["name"]]
        if two_sided:
            if r["elo"] is None or math.isnan(r["elo"]):
                cells += ["", ""]
            else:
                lo, hi = r.get("elo_ci95_low"), r.get("elo_ci95_high")
                cells += [f"{r['elo']:+.0f}", "" if lo is None or math.isnan(lo) else f"[{lo:+.0f}, {hi:+.0f}]"]
        cells += [f"{r['mu']:.2f}", f"[{r['ci95_low']:.1f}, {r['ci95_high']:.1f}]",
                  f"{r['wins']}-{r['draws']}-{r['losses']}", f"{r['score']:.3f}"]
        ladder.add_row(*cells)
    console.print(ladder)
    if result.get("elo_anchor"):
        console.print(f"Elo: Bradley-Terry maximum likelihood, {result['elo_anchor']} = 0.")
    console.print(f"{len(result['games'])} games in {result['elapsed_s']:.1f} s; seed {result['seed']}"
                  + (f"; written to {result['out_dir']}" if result.get("out_dir") else ""), soft_wrap=True)


# ---------------------------------------------------------------------------- CLI
def non_negative_int(text: str) -> int:
    """``argparse`` type for seeds: an integer ``>= 0``.

    Args:
        text: the option's value.

    Returns:
        The integer.

    Raises:
        argparse.ArgumentTypeError: not an integer, or negative.
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {value}")
    return value


def _parser() -> argparse.ArgumentParser:
    from training.agents import spec_forms

    p = argparse.ArgumentParser(
        prog="python -m training.evaluate",
        description="Round-robin tournament between agents: W/D/L per pair with Wilson intervals, "
                    "OpenSkill ratings (and Elo for two-player or two-team games), results.json, pairs.csv, "
                    "ratings.csv and ratings.png.",
        epilog=f"Agent specs: {spec_forms()}. Example: "
               "python -m training.evaluate ataxx_v0 --agents random greedy alphabeta:2 --games 20",
    )
    p.add_argument("env_id", help=f"environment id ({', '.join(ENV_IDS)})")
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help="two or more agent specs")
    p.add_argument("--games", type=int, required=True, metavar="N",
                   help="games per pair of agents (per group of agents for games with more than two "
                        "sides: seats, or teams in team games)")
    p.add_argument("--seed", type=non_negative_int, default=None, metavar="S",
                   help="master seed, an integer >= 0 (default: drawn and recorded)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="output folder, created if needed (default runs/eval/<env_id>-<timestamp>)")
    p.add_argument("--max-steps", type=int, default=None, metavar="M", help="truncate games after M plies (a draw)")
    p.add_argument("--env-kwargs", type=json_object, default=None, metavar="JSON", help='environment arguments as JSON, e.g. \'{"fen": "..."}\'')
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def _default_out(env_id: str) -> Path:
    base = Path("runs") / "eval" / f"{env_id}-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
    out, i = base, 2
    while out.exists():
        out = base.with_name(f"{base.name}-{i}")
        i += 1
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point.

    Args:
        argv: the arguments (default ``sys.argv[1:]``).

    Returns:
        0 after a tournament was played and written.

    Raises:
        SystemExit: with status 2 (a usage message on standard error) for bad arguments: an
            unknown environment, ``--games`` below 1, a bad agent spec, a missing or foreign
            checkpoint, a bad seed or ``--max-steps``, bad ``--env-kwargs``, or an ``--out``
            that is a file or cannot be created or written. These are all detected before any
            game is played.
    """
    from rich.console import Console

    parser = _parser()
    args = parser.parse_args(argv)
    argv_list = sys.argv[1:] if argv is None else list(argv)
    command = shlex.join([Path(sys.executable).name, "-m", "training.evaluate", *argv_list])
    env_kwargs = args.env_kwargs or {}
    if args.env_id not in ENV_IDS:
        parser.error(f"unknown environment id {args.env_id!r}; known ids: {', '.join(ENV_IDS)}")
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    out = Path(args.out) if args.out else _default_out(args.env_id)
    console = Console()

    bar = None
    try:
        if args.no_progress:
            callback = None
        else:
            from rich.progress import Progress

            bar = Progress(console=console, transient=True)
            bar.start()
            task = bar.add_task("games", total=None)

            def callback(done, total):
                bar.update(task, completed=done, total=total)

        result = run_tournament(args.env_id, args.agents, args.games, args.seed, out_dir=out,
                                max_steps=args.max_steps, env_kwargs=env_kwargs, command=command,
                                progress=callback)
    except (ValueError, FileNotFoundError) as e:
        if bar is not None:
            bar.stop()
        parser.error(str(e))
    if bar is not None:
        bar.stop()
    print_report(result, console)
    return 0


if __name__ == "__main__":
    sys.exit(main())
