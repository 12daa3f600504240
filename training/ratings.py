"""Scoring and rating the games of a tournament: win/draw/loss per pair, OpenSkill, Elo.

Every function here takes game records as :func:`training.tournament.run_tournament` writes them
(``"seats"``: the agent name of each seat, ``"returns"``: each seat's final return) and knows
nothing about the game that was played.

Scoring: an agent's result in a game is the mean of the returns of the seats it held
(:func:`agent_results`), which in a team game is its team's return (partners share their
returns; an agent holding several sides gets their mean). Between two agents of the same game,
the higher result is a win, an equal one a draw (a truncated game has all returns 0: a draw for
everyone).

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

Per ordered pair of agents (:func:`pair_table`): games, wins, draws, losses, score
``(W + D/2) / games`` and its 95 % Wilson interval
(:meth:`scipy.stats.binomtest(...).proportion_ci` with ``method="wilson"``; when draws make the
number of points a half-integer, the interval spans those of the two neighbouring integers, which
is conservative).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

__all__ = [
    "Z95",
    "agent_results",
    "pair_table",
    "wilson",
    "openskill_ratings",
    "elo_ratings",
    "elo_ratings_with_intervals",
]

#: z for a two-sided 95 % normal interval.
Z95 = 1.959963984540054
_ELO_PER_NAT = 400.0 / math.log(10.0)


def agent_results(seats: list[str], returns: list[float]) -> dict[str, float]:
    """Mean return of each distinct agent over the seats it held, keyed in the order of each
    agent's first seat.

    Args:
        seats: the agent name of each seat.
        returns: the final return of each seat.

    Returns:
        ``{name: mean return}``.

    Example:
        >>> agent_results(["a", "b", "a", "b"], [1.0, -1.0, 1.0, -1.0])
        {'a': 1.0, 'b': -1.0}
    """
    by: dict[str, list[float]] = {}
    for name, r in zip(seats, returns):
        by.setdefault(name, []).append(float(r))
    return {name: float(np.mean(v)) for name, v in by.items()}


def wilson(points: float, n: int) -> tuple[float, float]:
    """95 % Wilson interval ``(low, high)`` of a score: ``points`` successes out of ``n`` games
    (wins + draws / 2; a half-integer spans the intervals of its two neighbours: see the module docs).

    Uses SciPy's ``binomtest(...).proportion_ci(method="wilson")``.
    """
    from scipy.stats import binomtest

    lo_k, hi_k = math.floor(points + 1e-9), math.ceil(points - 1e-9)
    lo = binomtest(lo_k, n).proportion_ci(confidence_level=0.95, method="wilson").low
    hi = binomtest(hi_k, n).proportion_ci(confidence_level=0.95, method="wilson").high
    return float(lo), float(hi)


def pair_table(names: list[str], games: list[dict]) -> list[dict]:
    """Win/draw/loss record of every ordered pair of agents that met.

    Args:
        names: agent names, in order.
        games: game records with ``"seats"`` (agent name per seat) and ``"returns"``, and
            optionally ``"moves"`` (the game's moves in notation).

    Returns:
        One dict per ordered pair ``(agent, opponent)`` that met, in the order of ``names``:
        ``agent``, ``opponent``, ``games``, ``wins``, ``draws``, ``losses`` (from ``agent``'s
        side), ``score`` = ``(wins + draws / 2) / games``, ``score_ci95_low`` /
        ``score_ci95_high`` (Wilson), and ``distinct_games``: how many of the pair's games differ
        in their seats or moves, ``None`` unless every game record has ``"moves"``. Fewer distinct
        games than games means repeated games (two deterministic agents from a fixed start: see
        ``opening_plies`` in :func:`training.tournament.run_tournament`); the Wilson interval
        assumes independent games.

    Raises:
        KeyError: a game seats an agent that is not in ``names``.
    """
    wdl = {(a, b): [0, 0, 0] for a in names for b in names if a != b}
    with_moves = all("moves" in game for game in games)
    seen: dict[tuple[str, str], set] = {pair: set() for pair in wdl}
    for game in games:
        res = agent_results(game["seats"], game["returns"])
        for a, b in itertools.permutations(res, 2):
            k = 0 if res[a] > res[b] else 2 if res[a] < res[b] else 1
            wdl[(a, b)][k] += 1
            if with_moves:
                seen[(a, b)].add((tuple(game["seats"]), tuple(game["moves"])))
    rows = []
    for a in names:
        for b in names:
            if a == b or sum(wdl[(a, b)]) == 0:
                continue
            w, d, l = wdl[(a, b)]
            n = w + d + l
            points = w + 0.5 * d
            lo, hi = wilson(points, n)
            rows.append(
                {
                    "agent": a,
                    "opponent": b,
                    "games": n,
                    "wins": w,
                    "draws": d,
                    "losses": l,
                    "score": points / n,
                    "score_ci95_low": lo,
                    "score_ci95_high": hi,
                    "distinct_games": len(seen[(a, b)]) if with_moves else None,
                }
            )
    return rows


def openskill_ratings(names: list[str], games: list[dict]) -> dict[str, dict[str, float]]:
    """OpenSkill Plackett-Luce ratings after all ``games``, processed in order.

    Each game is one match between its distinct agents, ranked by their results
    (:func:`agent_results`); equal results are ties. A game with a single distinct agent is
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
        res = agent_results(game["seats"], game["returns"])
        players = list(res)
        if len(players) < 2:
            continue
        ranks: list[float] = [1 + sum(res[q] > res[p] for q in players) for p in players]
        new = model.rate([[ratings[p]] for p in players], ranks=ranks)
        for p, team in zip(players, new):
            ratings[p] = team[0]
    return {
        n: {
            "mu": float(r.mu),
            "sigma": float(r.sigma),
            "ci95_low": float(r.mu - Z95 * r.sigma),
            "ci95_high": float(r.mu + Z95 * r.sigma),
            "ordinal": float(r.ordinal()),
        }
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


def elo_ratings_with_intervals(
    names: list[str], pairs: list[dict], anchor: str, prior_draws: float = 1.0
) -> dict[str, dict[str, float]]:
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
