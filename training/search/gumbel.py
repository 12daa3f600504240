"""Batched Gumbel AlphaZero search on the vector API (:func:`gumbel_search`).

The search of "Policy improvement by planning with Gumbel" (Danihelka, Guez, Schrittwieser, Silver,
ICLR 2022, https://openreview.net/forum?id=bERaNdoegnO), written in numpy after DeepMind's mctx
(``mctx.gumbel_muzero_policy``, version 0.0.71), whose results it reproduces exactly on fixed priors
and values (``tests/training/test_gumbel_search.py``, cases made by ``tests/data/make_mctx_cases.py``):

* **Root** (paper section 3-4, mctx ``gumbel_muzero_root_action_selection``): Gumbel noise ``g`` is
  added to the prior logits; the ``m = min(max_num_considered_actions, #legal)`` actions with the
  highest ``g + logits`` are considered (Gumbel-top-k), and Sequential Halving (Karnin et al. 2013;
  mctx ``seq_halving.get_sequence_of_considered_visits``) spends the budget on them: a simulation
  visits, among the actions whose visit count equals the schedule's "considered visit", the one with
  the highest ``g + logits + sigma(q)`` (mctx ``seq_halving.score_considered``).
* **Completed Q-values** (paper appendix D, mctx ``qtransform_completed_by_mix_value``): an
  unvisited action gets the *mixed value* (the network's value blended with the prior-weighted mean
  Q of the visited actions); the completed Q-values are rescaled to ``[0, 1]`` by their min and max
  and multiplied by ``(maxvisit_init + max N) * value_scale`` (50 and 0.1): that is ``sigma(q)``.
* **Action and policy target** (mctx ``gumbel_muzero_policy``): the action is the best of the most
  visited considered actions by ``g + logits + sigma(q)``; the improved policy is
  ``softmax(logits + sigma(completed q))`` over the legal actions.
* **Below the root** (paper section 5, mctx ``gumbel_muzero_interior_action_selection``):
  deterministic selection, ``argmax(pi' - N / (1 + sum N))`` with ``pi' = softmax(logits +
  sigma(completed q))``.
* **Backup: max-n** (Luckhardt and Irani, "An algorithmic solution of N-person games", AAAI 1986;
  mctx ``search.backward`` on vectors): a node's value is a vector of ``K`` values, one per side
  (team: :func:`seat_teams`, in the order ``GameState.teams()`` lists them), ``v(s)`` the mean of
  the network's value and every value backed up through ``s``, and an edge backs up ``r + d *
  v(s')`` componentwise, with ``r`` the game's returns per side on the move that ends it (partners
  share their team's return) and ``d = 0`` there (a terminal node's value is 0), ``r = 0, d = 1``
  elsewhere. Each node's selection, and the root's Gumbel scores, sequential halving, completed
  Q-values and policy target, read the component of **the side to move at that node**
  (``team_of[current_player]``): ``q(s, a) = r_t + d * v_t(s')`` for that side ``t``. So the same
  seat moving again (TwixT's link steps, Tantrix's forced and free placements of one turn), a
  partner moving next (Double TwixT's Privilege) or a seat passing are ordinary consecutive
  decisions. With two sides and zero-sum values (a scalar ``evaluate``, the mover's side: the
  other side's value is its negation) this is exactly the two-player search of mctx: ``q = r + d
  * v`` with ``d = -1`` when the other side moves next, ``+1`` for the same side, ``0`` at the end
  (results equal bit for bit: negation is exact in floating point).
* **Values from the network**: ``evaluate`` returns, per position, either the value of the side to
  move (shape ``(N,)``, two sides only, zero-sum) or every side's value (shape ``(N, K)``) in the
  **mover-relative order**: column ``j`` is the value of side ``(t + j) mod K``, ``t`` the mover's
  side; that is the mover's side first, then the following sides in seat order (without teams:
  seat ``(mover + j) mod num_players``; Double TwixT, Tantrix Doubles and Smartrix teams: the
  mover's team, then the other). A network so trained is the same for every seat.

Batched: the ``B`` games of a :class:`~envs.core.vector.TabletopVectorEnv` are searched in
lockstep, and each simulation step makes **one** call of the evaluation function on the new leaves
of all games. Tree states live in one :class:`~envs.core.vector.VectorCore` of ``B * (S + 1)``
games (a node per simulation); a simulation copies its leaf's parent with the core's ``take``, steps
it and stores it with ``put`` (about 5 + 8 + 3 microseconds for 64 Ataxx games).

Memory: the tree is **compact**: a node's row holds only its legal actions, in ascending action
order (so an argmax over the row breaks ties to the lowest action, as over all ``A``), padded to a
width ``W``: the roots' most legal actions at first, reallocated to at least 1.5 times when a new
node has more. That is about ``36 * B * (S + 1) * W`` bytes of tree arrays a call (prior logits,
their probabilities and Q-values in float64, children, visit counts and each slot's action in
int32; the value vectors add ``24 * K`` bytes a node), plus ``B * (S + 1)`` game copies in the core
and a few ``(B, A)`` arrays (the noise, the root masks, the results). Peak traced memory of one call
(``tracemalloc``, positions after 10 random plies, uniform evaluation): 64 Ataxx games at 32
simulations 17 MB (``W = 124``), 16 Tantrix games at 16 simulations 31 MB (``A = 39,204``, the rules'
default window; ``W = 111``) and 64 at 32 159 MB, 16 Smartrix games 8 MB; the former dense tree
(``33 * B * (S + 1) * A`` bytes over all actions of every node) took 66 MB, 441 MB, 3.1 GB and
152 MB.

Speed (``python benchmarks/bench_search.py``: 64 Ataxx positions after 10 random plies, 60 of
them live, 32 simulations, m = 16, uniform evaluation, one thread, on the shared 2-core machine at
load average ~2.5): about 52,000 simulations/s and as many new nodes/s batched (20,000 with the
dense tree, measured just before), against ~3,300/s for the same search one game at a time (16x).
Tantrix (``--env tantrix_v0``, 2 players, the default window, ``A = 39,204``, about 37 legal
actions): 16 positions at 16 simulations 4,300 simulations/s (550 dense), 64 at 32 3,850 (250
dense); at the configs' window radius 10 (``A = 15,876``) 7,100 (1,400 dense); Smartrix 2 players
11,200 (2,000 dense). Much of what remains of Tantrix's extra cost is work dense in ``A`` once a
step (the legal masks and their scan into compact rows, the evaluation's ``(N, A)`` logits, the
root noise), which the evaluation's interface asks for.

Differences from mctx, none of which changes a result: a simulation that reaches a finished game
stops there (mctx expands a dummy node below it, whose value and discount are 0), and illegal
actions are masked at every node (mctx masks only the root; with masked priors it never picks one).
As in mctx (and Pgx, which uses it), the completed Q-values are rescaled over all ``A`` actions,
illegal ones counting as unvisited (at the mixed value): the compact rows add the mixed value to
their min and max where a node has fewer than ``A`` legal actions, so the numbers are the same.

**Chance and hidden information** (determinized search, "perfect-information Monte Carlo" as in
Long, Sturtevant, Buro and Furtak, AAAI 2010; one sample per search): in a game whose
:class:`~envs.core.state.GameInfo` says ``perfect_information=False`` (asked through the registry,
:func:`has_hidden_information`; no game is named here), each live game is replaced, before its tree
is built, by **one determinization per search** drawn from its mover's view:
``env.to_state(i).determinize(mover, rng)`` (:meth:`envs.core.state.GameState.determinize`: a
function of what the mover may know and of ``rng`` only, e.g. the Tantrix bag as a set, the Smartrix
cards the mover has not seen, each put in a canonical order before they are dealt), loaded with
``env.from_states``. The draws of ``rng`` come in this order: first the root noise
(``rng.gumbel(size=(B, A))``, unless ``gumbel`` is given), then one determinization per live game in
ascending game index (or each from its game's own generator, ``determinization_rngs``). Every draw
inside the tree (a refill from the bag, a card from the pile) and every hidden hand then follows
that one sample, and the network sees each node's mover's observation of it. So the search never
reads the true bag order, pile order or other hands: two games its mover cannot tell apart give the
same result from the same generator state. A perfect-information game is searched as it is, with no
draw from ``rng`` beyond the noise.

Several determinizations per search (``num_determinizations=D``, optional): ``D`` samples per game
(drawn one after the other for each game, in game order), one tree each, sharing the root: every
simulation takes the same root action in the ``D`` trees, chosen by the root's rules on the mean of
their root q-values (they visit the same root actions), and the result is computed from those means
(an ensemble of determinizations with a joint root). Not covered: a determinization per simulation
(information-set MCTS). Every determinized search keeps a strategy-fusion error (each tree plans as
if its sample were the truth).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "SearchResult",
    "gumbel_search",
    "uniform_evaluate",
    "seat_teams",
    "has_hidden_information",
    "considered_visit_sequence",
    "mixed_value",
    "completed_qvalues",
    "score_considered",
    "improved_policy",
]

#: ``evaluate(observations, masks) -> (logits, values)``: observations ``float32 (N, ...)`` (or a
#: dict of them), masks ``bool (N, A)``; logits ``(N, A)`` and values in ``[-1, 1]``: ``(N,)`` from
#: the side of the player to move (two sides), or ``(N, K)`` for the ``K`` sides in the
#: mover-relative order (the mover's side first, then the following sides; module docstring).
Evaluate = Callable[[Any, np.ndarray], "tuple[np.ndarray, np.ndarray]"]

_MIN_LOGIT = float(np.finfo(np.float64).min)  # mctx's finite logit of an invalid action (no NaN)
_LOW_LOGIT = -1e9  # mctx seq_halving.score_considered's floor
_VALUE_TOL = 1e-4  # values may leave [-1, 1] by float rounding only


# ---------------------------------------------------------------------------- the formulas
def considered_visit_sequence(max_num_considered_actions: int, num_simulations: int) -> tuple[int, ...]:
    """Sequential Halving's schedule: the visit count a simulation's root action must have, for each
    of the ``num_simulations`` simulations (mctx ``seq_halving.get_sequence_of_considered_visits``).

    The budget is split over ``ceil(log2 m)`` phases; in a phase each of the ``k`` remaining actions
    gets ``max(1, floor(S / (ceil(log2 m) * k)))`` more visits, then ``k`` halves (never below 2).
    With ``m <= 1`` the one action takes every visit (``0, 1, 2, ...``).

    >>> considered_visit_sequence(4, 8)
    (0, 0, 0, 0, 1, 1, 2, 2)

    Raises:
        ValueError: a negative argument or one that is not an int.
    """
    for name, v in (("max_num_considered_actions", max_num_considered_actions), ("num_simulations", num_simulations)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"{name} must be an integer >= 0, got {v!r}")
    m, s = int(max_num_considered_actions), int(num_simulations)
    if m <= 1:
        return tuple(range(s))
    log2max = int(math.ceil(math.log2(m)))
    sequence: list[int] = []
    visits = [0] * m
    k = m
    while len(sequence) < s:
        extra = max(1, int(s / (log2max * k)))
        for _ in range(extra):
            sequence.extend(visits[:k])
            for i in range(k):
                visits[i] += 1
        k = max(2, k // 2)
    return tuple(sequence[:s])


@functools.lru_cache(maxsize=64)
def _considered_table(max_num_considered_actions: int, num_simulations: int) -> np.ndarray:
    """``int64 (m + 1, S)``: row ``k`` is the schedule for ``k`` considered actions (mctx
    ``seq_halving.get_table_of_considered_visits``). Read-only."""
    t = np.array(
        [considered_visit_sequence(k, num_simulations) for k in range(max_num_considered_actions + 1)], dtype=np.int64
    ).reshape(max_num_considered_actions + 1, num_simulations)
    t.flags.writeable = False
    return t


def _softmax(x: np.ndarray) -> np.ndarray:
    z = x - np.max(x, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=-1, keepdims=True)


def mixed_value(raw_value, qvalues, visit_counts, prior_probs) -> np.ndarray:
    """The mixed value of each node (paper appendix D, eq. 33; mctx ``qtransforms._compute_mixed_value``):
    ``(v + sum_b N(b) * sum_{a visited} p(a) q(a) / sum_{a visited} p(a)) / (1 + sum_b N(b))``.

    Args:
        raw_value: ``float (k,)``: the network's value ``v`` of each node.
        qvalues: ``float (k, A)``: ``q(a)`` (only visited entries matter).
        visit_counts: ``int (k, A)``: ``N(a)``.
        prior_probs: ``float (k, A)``: the prior policy ``p`` (floored at the smallest positive float,
            so a visited action of zero prior gives no NaN).

    Returns:
        ``float64 (k,)``.
    """
    raw_value = np.asarray(raw_value, dtype=np.float64)
    q = np.asarray(qvalues, dtype=np.float64)
    n = np.asarray(visit_counts)
    p = np.maximum(np.finfo(np.float64).tiny, np.asarray(prior_probs, dtype=np.float64))
    visited = n > 0
    total = n.sum(axis=-1)
    sum_p = np.sum(np.where(visited, p, 0.0), axis=-1)
    weighted = np.sum(np.where(visited, p * q, 0.0), axis=-1) / np.where(sum_p > 0, sum_p, 1.0)
    return (raw_value + total * weighted) / (total + 1)


def completed_qvalues(
    qvalues,
    visit_counts,
    raw_value,
    prior_logits,
    *,
    value_scale: float = 0.1,
    maxvisit_init: float = 50.0,
    rescale_values: bool = True,
    use_mixed_value: bool = True,
    epsilon: float = 1e-8,
) -> np.ndarray:
    """``sigma(completed q)`` of each node (paper eq. 8 and appendix D; mctx
    ``qtransforms.qtransform_completed_by_mix_value``).

    Unvisited actions take the mixed value (:func:`mixed_value`; the raw value with
    ``use_mixed_value=False``); then, with ``rescale_values``, ``(q - min q) / max(max q - min q,
    epsilon)`` over all ``A`` entries; then ``* (maxvisit_init + max_a N(a)) * value_scale``.

    Args:
        qvalues: ``float (k, A)``: ``r + d * v(child)`` of the visited actions (others ignored).
        visit_counts: ``int (k, A)``.
        raw_value: ``float (k,)``: the network's value of each node.
        prior_logits: ``float (k, A)``: the node's prior logits (illegal ones very negative).

    Returns:
        ``float64 (k, A)``.
    """
    probs = _softmax(np.asarray(prior_logits, dtype=np.float64)) if use_mixed_value else None
    return _completed(
        np.asarray(qvalues, dtype=np.float64),
        np.asarray(visit_counts),
        np.asarray(raw_value, dtype=np.float64),
        probs,
        value_scale=value_scale,
        maxvisit_init=maxvisit_init,
        rescale_values=rescale_values,
        epsilon=epsilon,
    )


def _completed(q, n, raw, probs, *, value_scale, maxvisit_init, rescale_values, epsilon=1e-8):
    """:func:`completed_qvalues` with the prior's probabilities given (``None``: no mixed value)."""
    value = raw if probs is None else mixed_value(raw, q, n, probs)
    completed = np.where(n > 0, q, value[:, None])
    if rescale_values:
        lo = completed.min(axis=-1, keepdims=True)
        hi = completed.max(axis=-1, keepdims=True)
        completed = (completed - lo) / np.maximum(hi - lo, epsilon)
    scale = (maxvisit_init + n.max(axis=-1)) * value_scale
    return scale[:, None] * completed


def _completed_compact(q, n, raw, probs, narrow, *, value_scale, maxvisit_init, rescale_values, epsilon=1e-8):
    """:func:`_completed` on compact rows (a node's legal actions, then padding that is never
    visited): the same numbers as the dense rows, with the rescaling's min and max over all ``A``
    actions: where ``narrow`` (a node with fewer legal actions than ``A``) the illegal ones count, at
    the mixed value. Returns ``sigma`` of the row ``(k, W)`` and ``fill (k,)``, that of an
    unvisited (or illegal) action."""
    value = raw if probs is None else mixed_value(raw, q, n, probs)
    completed = np.where(n > 0, q, value[:, None])
    if rescale_values:
        lo = completed.min(axis=-1)
        hi = completed.max(axis=-1)
        lo = np.where(narrow, np.minimum(lo, value), lo)
        hi = np.where(narrow, np.maximum(hi, value), hi)
        den = np.maximum(hi - lo, epsilon)
        completed = (completed - lo[:, None]) / den[:, None]
        fill = (value - lo) / den
    else:
        fill = value
    scale = (maxvisit_init + n.max(axis=-1)) * value_scale
    return scale[:, None] * completed, scale * fill


def score_considered(considered_visit, gumbel, logits, transformed_q, visit_counts) -> np.ndarray:
    """The root's ranking for an argmax (mctx ``seq_halving.score_considered``):
    ``max(-1e9, g + logits - max(logits) + sigma(q))`` where ``N(a)`` equals ``considered_visit``,
    ``-inf`` elsewhere.

    Args:
        considered_visit: ``int (k,)``.
        gumbel, logits, transformed_q: ``float (k, A)`` (the logits masked: illegal ones very
            negative).
        visit_counts: ``int (k, A)``.

    Returns:
        ``float64 (k, A)``.
    """
    logits = np.asarray(logits, dtype=np.float64)
    logits = logits - logits.max(axis=-1, keepdims=True)
    penalty = np.where(np.asarray(visit_counts) == np.asarray(considered_visit)[:, None], 0.0, -np.inf)
    return np.maximum(_LOW_LOGIT, np.asarray(gumbel, dtype=np.float64) + logits + transformed_q) + penalty


def improved_policy(prior_logits, transformed_q, legal) -> np.ndarray:
    """The policy target ``softmax(logits + sigma(completed q))`` over the legal actions, 0 elsewhere
    (paper eq. 11; mctx ``gumbel_muzero_policy``'s ``action_weights``); a row without a legal action
    is all zeros.

    Args:
        prior_logits, transformed_q: ``float (k, A)``.
        legal: ``bool (k, A)``.

    Returns:
        ``float64 (k, A)``, rows summing to 1 (or 0).
    """
    legal = np.asarray(legal, dtype=bool)
    x = np.where(legal, np.asarray(prior_logits, dtype=np.float64) + transformed_q, -np.inf)
    top = np.max(x, axis=-1, keepdims=True)
    e = np.where(legal, np.exp(x - np.where(np.isfinite(top), top, 0.0)), 0.0)
    s = e.sum(axis=-1, keepdims=True)
    return e / np.where(s > 0, s, 1.0)


# ---------------------------------------------------------------------------- helpers
def uniform_evaluate(observations, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The evaluation that knows nothing: zero logits (a uniform prior over the legal actions) and a
    zero value, ``float32 (N, A)`` and ``float32 (N,)``; the search then plays by the game's
    results alone."""
    masks = np.asarray(masks)
    return np.zeros(masks.shape, dtype=np.float32), np.zeros(masks.shape[0], dtype=np.float32)


_TEAMS_CACHE: dict[tuple, np.ndarray] = {}
_HIDDEN_CACHE: dict[str, bool] = {}


def has_hidden_information(env) -> bool:
    """Whether the game of ``env`` has information hidden from some player (a bag's order, other
    hands): ``not GameInfo.perfect_information``, from the registry
    (``envs.spec(env.env_id).game_info()``), so that no game is named here. An ``env_id`` the
    registry does not know (a test's table game) counts as perfect information.
    """
    env_id = getattr(env, "env_id", None)
    if not isinstance(env_id, str):
        return False
    if env_id not in _HIDDEN_CACHE:
        import envs
        from envs.core.errors import UnknownEnvError

        try:
            info = envs.spec(env_id).game_info()
        except UnknownEnvError:
            return False
        _HIDDEN_CACHE[env_id] = not bool(info.perfect_information)
    return _HIDDEN_CACHE[env_id]


def seat_teams(env, teams: Sequence[Sequence[int]] | None = None) -> np.ndarray:
    """The team of each seat, ``int64 (num_players,)``, from ``teams`` (seat lists, as
    ``GameState.teams()``) or, when ``None``, from the registry: ``envs.spec(env.env_id).teams(
    **env.env_kwargs)`` (the game's ``GameState.teams()``; e.g. ``[[0, 2], [1, 3]]`` for Double
    TwixT, ``[[0], [1]]`` for two players).

    The teams are numbered in the order given (``GameState.teams()`` orders them by their first
    seat): that numbering is the side order of the search's value vectors (:func:`gumbel_search`).

    Raises:
        ValueError: the seat lists do not cover every seat exactly once, a team is empty, or there
            are fewer than two teams (a search needs two sides); an ``env_id`` the registry does not
            know (then pass ``teams``).
    """
    n = int(env.num_players)
    if teams is None:
        import envs

        try:
            key = (env.env_id, tuple(sorted(env.env_kwargs.items())))
            hash(key)
        except TypeError:
            key = None
        if key is not None and key in _TEAMS_CACHE:
            return _TEAMS_CACHE[key]
        teams = envs.spec(env.env_id).teams(**env.env_kwargs)
    else:
        key = None
    out = np.full(n, -1, dtype=np.int64)
    try:
        groups = [[int(p) for p in g] for g in teams]
    except (TypeError, ValueError):
        raise ValueError(f"teams must be lists of seats, got {teams!r}") from None
    for t, g in enumerate(groups):
        for p in g:
            if not 0 <= p < n or out[p] >= 0:
                raise ValueError(f"teams must list each of the {n} seats exactly once, got {teams!r}")
            out[p] = t
    if (out < 0).any() or not all(groups):
        raise ValueError(f"teams must list each of the {n} seats exactly once, in non-empty teams, got {teams!r}")
    if len(groups) < 2:
        raise ValueError(f"the Gumbel search needs at least two sides; this game has {len(groups)} team ({groups})")
    out.flags.writeable = False
    if key is not None:
        _TEAMS_CACHE[key] = out
    return out


def _as_float32_obs(obs):
    if isinstance(obs, dict):
        return {k: np.asarray(v, dtype=np.float32) for k, v in obs.items()}
    return np.asarray(obs, dtype=np.float32)


def _obs_rows(obs, rows: np.ndarray):
    if isinstance(obs, dict):
        return {k: v[rows] for k, v in obs.items()}
    return obs[rows]


def _absolute(rel: np.ndarray, side: np.ndarray) -> np.ndarray:
    """Values ``(k, K)`` in the mover-relative order (column ``j``: side ``(side + j) mod K``) to
    absolute side order (column ``t``: side ``t``)."""
    K = rel.shape[1]
    return np.take_along_axis(rel, (np.arange(K)[None, :] - side[:, None]) % K, axis=1)


def _relative(absolute: np.ndarray, side: np.ndarray) -> np.ndarray:
    """Inverse of :func:`_absolute`."""
    K = absolute.shape[1]
    return np.take_along_axis(absolute, (np.arange(K)[None, :] + side[:, None]) % K, axis=1)


def _call_evaluate(
    evaluate: Evaluate, obs, masks: np.ndarray, num_actions: int, num_sides: int = 2
) -> tuple[np.ndarray, np.ndarray]:
    """Run ``evaluate`` on ``k`` positions and check its answer; masked logits ``float64 (k, A)``
    (legal ones shifted so their max is 0, illegal ones ``_MIN_LOGIT``) and values ``float64 (k,
    K)`` in the mover-relative order (a two-side answer ``v`` of shape ``(k,)`` becomes ``(v,
    -v)``)."""
    logits, values = _evaluate_checked(evaluate, obs, masks, num_actions, num_sides)
    logits = np.asarray(logits, dtype=np.float64)
    legal_logits = np.where(masks, logits, 0.0)
    if not np.isfinite(legal_logits).all():
        raise ValueError("evaluate returned a logit that is not finite for a legal action")
    top = np.max(np.where(masks, logits, -np.inf), axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    return np.where(masks, logits - top, _MIN_LOGIT), values


def _evaluate_checked(evaluate: Evaluate, obs, masks: np.ndarray, num_actions: int, num_sides: int):
    """``evaluate``'s answer on ``k`` positions, checked: its logits ``(k, A)`` as they came (float32
    kept, anything else as float64) and the values ``float64 (k, K)`` (clipped to ``[-1, 1]``, a
    two-side ``(k,)`` answer ``v`` made ``(v, -v)``)."""
    k = masks.shape[0]
    out = evaluate(obs, masks)
    if not isinstance(out, tuple) or len(out) != 2:
        raise ValueError(f"evaluate must return a tuple (logits, values), got {type(out).__name__}")
    logits = np.asarray(out[0])
    if logits.dtype != np.float32:
        logits = np.asarray(logits, dtype=np.float64)
    values = np.asarray(out[1], dtype=np.float64)
    if logits.shape != (k, num_actions):
        raise ValueError(f"evaluate returned logits of shape {logits.shape}, expected ({k}, {num_actions})")
    K = num_sides
    if values.shape != (k, K) and not (K == 2 and values.shape == (k,)):
        raise ValueError(
            f"evaluate returned values of shape {values.shape}, expected ({k}, {K}) (each of the {K} sides, "
            "the mover's first)" + (f" or ({k},) (the mover's side of two)" if K == 2 else f": this game has {K} sides")
        )
    if not np.isfinite(values).all() or (np.abs(values) > 1 + _VALUE_TOL).any():
        bad = values[~np.isfinite(values) | (np.abs(values) > 1 + _VALUE_TOL)][0]
        raise ValueError(f"evaluate returned a value {bad!r}; values must be finite and in [-1, 1]")
    if values.ndim == 1:
        values = np.stack([values, -values], axis=1)
    return logits, np.clip(values, -1.0, 1.0)


def _compact_layout(masks: np.ndarray):
    """The legal entries of masks ``bool (k, A)`` in row-major order (ascending actions in each
    row): ``(counts (k,), rows, actions, slots)``, ``slots`` each entry's place in its row's compact
    row."""
    rows, cols = np.nonzero(masks)
    counts = np.bincount(rows, minlength=masks.shape[0])
    starts = np.cumsum(counts) - counts
    return counts, rows, cols, np.arange(rows.size) - starts[rows]


def _call_evaluate_compact(evaluate: Evaluate, obs, masks: np.ndarray, layout, width: int, num_actions: int, num_sides):
    """:func:`_call_evaluate` on compact rows: the masked logits ``float64 (k, width)`` of the legal
    actions only (slot ``j`` of a row: its ``j``-th legal action in ascending order, the same
    numbers as the dense answer's), ``_MIN_LOGIT`` in the padding; and the values."""
    logits, values = _evaluate_checked(evaluate, obs, masks, num_actions, num_sides)
    counts, rows, cols, slots = layout
    legal_logits = logits[rows, cols].astype(np.float64)
    if not np.isfinite(legal_logits).all():
        raise ValueError("evaluate returned a logit that is not finite for a legal action")
    out = np.full((masks.shape[0], width), -np.inf)
    out[rows, slots] = legal_logits
    top = out.max(axis=1, keepdims=True)
    out -= np.where(np.isfinite(top), top, 0.0)
    out[np.arange(width)[None, :] >= counts[:, None]] = _MIN_LOGIT
    return out, values


def _check_count(name: str, v, low: int) -> int:
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {v!r}")
    return int(v)


def _check_real(name: str, v, low: float, *, strict: bool = False) -> float:
    if (
        isinstance(v, (bool, np.bool_))
        or not isinstance(v, (int, float, np.integer, np.floating))
        or not math.isfinite(v)
        or v < low
        or (strict and v == low)
    ):
        raise ValueError(f"{name} must be a finite number {'>' if strict else '>='} {low}, got {v!r}")
    return float(v)


# ---------------------------------------------------------------------------- the search
@dataclass
class SearchResult:
    """What :func:`gumbel_search` returns, one row per game of the batch (``B`` games, ``A``
    actions). A game that was already over gets action 0 (ignored by the vector env), all-zero
    weights, counts and values, and no considered action. With several determinizations
    (``num_determinizations``), q-values and values are the means over a game's trees, and the
    visit counts those of each of its trees (they visit the same root actions).

    Attributes:
        action: ``int64 (B,)``: the action to play (mover's frame): the best of the most visited
            considered actions by ``g + logits + sigma(q)``.
        action_weights: ``float32 (B, A)``: the improved policy ``softmax(logits + sigma(completed
            q))`` over the legal actions (0 elsewhere), the policy target.
        root_value: ``float32 (B,)``: the root's search value (mctx ``summary().value``: the mean of
            the network's value and every backed-up value), from the mover's side.
        raw_value: ``float32 (B,)``: the network's value of the root, from the mover's side.
        qvalues: ``float32 (B, A)``: ``r + d * v(child)`` of each root action for the mover's side,
            0 where unvisited (mctx ``summary().qvalues``).
        completed_qvalues: ``float32 (B, A)``: ``sigma(completed q)`` at the root, as used for the
            action and the weights.
        visit_counts: ``int32 (B, A)``: root visits; each live game's sum to ``num_simulations``.
        considered: ``bool (B, A)``: the ``min(m, #legal)`` actions chosen by Gumbel-top-k.
        gumbel: ``float64 (B, A)``: the root noise used (``gumbel_scale`` times standard Gumbel).
        num_evaluations: ``int``: positions sent to ``evaluate`` (roots included).
        num_nodes: ``int``: nodes added to the trees (new positions, terminal ones included).
        root_values: ``float32 (B, K)``: the root's search value of every side (``K`` teams), in the
            order of ``evaluate``'s values: the mover's side first, then the following sides
            (column ``j``: team ``(team of the mover + j) mod K``); column 0 is ``root_value``.
    """

    action: np.ndarray
    action_weights: np.ndarray
    root_value: np.ndarray
    raw_value: np.ndarray
    qvalues: np.ndarray
    completed_qvalues: np.ndarray
    visit_counts: np.ndarray
    considered: np.ndarray
    gumbel: np.ndarray
    num_evaluations: int
    num_nodes: int
    root_values: np.ndarray


def gumbel_search(
    env,
    evaluate: Evaluate,
    rng: np.random.Generator,
    *,
    num_simulations: int,
    max_num_considered_actions: int = 16,
    gumbel_scale: float = 1.0,
    value_scale: float = 0.1,
    maxvisit_init: float = 50.0,
    rescale_values: bool = True,
    use_mixed_value: bool = True,
    teams: Sequence[Sequence[int]] | None = None,
    gumbel: np.ndarray | None = None,
    determinize: bool | None = None,
    determinization_rngs: Sequence[np.random.Generator] | None = None,
    num_determinizations: int = 1,
    heuristic_weight: float = 0.0,
    heuristic: str = "evaluate",
) -> SearchResult:
    """Search every game of ``env`` with Gumbel AlphaZero (see the module docstring for the rules and
    their sources) and return its action, improved policy and statistics.

    ``env`` is not changed: the trees live in copies of its core (``env.core.take``). The step limit
    of ``env`` (``max_steps``) is not applied inside the tree: the search plans by the rules.

    Args:
        env: a started :class:`~envs.core.vector.TabletopVectorEnv` (``envs.make_vec(...)`` after
            ``reset``) of ``B`` games; finished games are skipped.
        evaluate: ``evaluate(observations, masks) -> (logits, values)``: observations ``float32 (N,
            ...)`` (or a dict of such, as the env's), masks ``bool (N, A)``; returns logits ``(N, A)``
            (finite on legal actions, the mover's frame) and values in ``[-1, 1]`` (array-likes,
            e.g. numpy arrays): ``(N,)``, the value of the side to move, in a game of two sides
            (the other side's is its negation), or ``(N, K)``, each of the ``K`` sides
            (:func:`seat_teams`) in the mover-relative order: column ``j`` is side ``(mover's side
            + j) mod K`` (module docstring). It is called once for the roots and
            then once per simulation, on at most ``B`` new positions (``B * D`` with ``D``
            determinizations: the trees whose simulation reached a new, unfinished position).
        rng: the generator of the root's Gumbel noise (one ``rng.gumbel(size=(B, A))`` draw a
            call) and then, in a game with hidden information, of the determinizations (one
            ``state.determinize(mover, rng)`` per live game, in game order; see the module
            docstring): the same generator state gives the same result.
        num_simulations: ``S >= 1`` simulations per game.
        max_num_considered_actions: ``m >= 1``, the actions sampled at the root (capped at the legal
            count); mctx's default 16.
        gumbel_scale: the noise's scale (``>= 0``); 0 for the deterministic search of evaluation
            play (the paper's and mctx's advice for perfect-information games).
        value_scale, maxvisit_init, rescale_values, use_mixed_value: ``sigma``'s constants
            (:func:`completed_qvalues`; mctx's defaults 0.1, 50, True, True).
        teams: the seats grouped by team, the sides of the search (at least two); ``None`` asks
            the registry (:func:`seat_teams`).
        gumbel: explicit root noise ``float (B, A)`` used as is instead of drawing from ``rng``
            (which is then used for the determinizations only), e.g. to replay another search's
            noise.
        determinize: whether to search one determinization of each game from its mover's view
            (``True``) or the game as it is (``False``); ``None`` (the default) asks the game:
            ``True`` exactly when its :class:`~envs.core.state.GameInfo` says
            ``perfect_information=False`` (:func:`has_hidden_information`).
        determinization_rngs: ``B`` generators (the same object may repeat), game ``i``'s
            determinization drawn from entry ``i`` instead of ``rng`` (still in ascending game
            order), e.g. each game's own generator so that a game's search does not depend on the
            batch around it; ignored where nothing is determinized.
        num_determinizations: ``D >= 1`` determinizations (trees) per game, in a game with
            hidden information: game ``i``'s ``D`` samples are drawn one after the other (from
            ``rng``, or from its ``determinization_rngs[i]``), in ascending game order; its ``D``
            trees share the root: each simulation takes the same root action in all of them (by
            the root's rules on their mean q-values), then descends each tree by its own sample,
            and the result is computed from the mean of the ``D`` trees' root q-values and values
            (the evaluation is called on up to ``B * D`` positions a step).
        heuristic_weight: ``lambda`` in ``[0, 1]``: each evaluated position's value (root and
            leaves) is ``(1 - lambda) * v + lambda * h``, ``v`` the network's and ``h`` the game's
            own static evaluation of every side (the core's
            :meth:`~envs.core.vector.VectorCore.heuristic_values`, from the first seat of each
            side; ``tanh(evaluate / VALUE_SCALE)`` of the game's heuristics module), as AlphaGo
            mixed its value network with rollouts (Silver et al. 2016, ``lambda = 0.5``). 0 (the
            default): the network's value alone, the game's heuristics never called.
        heuristic: which of the game's evaluations ``h`` is (the ``evaluator`` argument of
            :meth:`~envs.core.vector.VectorCore.heuristic_values`): ``"evaluate"`` (the default,
            the heuristics module's own) or a name of the game's ``GameInfo.evaluators``.

    Returns:
        :class:`SearchResult`.

    Raises:
        ValueError: a bad count, scale, ``rng`` (not a ``numpy.random.Generator``, where noise or
            determinizations are drawn), ``determinization_rngs`` (not ``B`` generators), ``gumbel``
            shape, ``teams`` (see :func:`seat_teams`), ``determinize`` (not a bool or ``None``), an
            ``env`` that is not a started vector env, or an ``evaluate`` answer of the wrong shape
            (values neither ``(N, K)`` nor, with two sides, ``(N,)``), with a non-finite logit on a
            legal action, or a value outside ``[-1, 1]``; with ``heuristic_weight > 0``, a game
            without heuristics or without the evaluation ``heuristic``.
    """
    S = _check_count("num_simulations", num_simulations, 1)
    D = _check_count("num_determinizations", num_determinizations, 1)
    M = _check_count("max_num_considered_actions", max_num_considered_actions, 1)
    gscale = _check_real("gumbel_scale", gumbel_scale, 0.0)
    vscale = _check_real("value_scale", value_scale, 0.0)
    vinit = _check_real("maxvisit_init", maxvisit_init, 0.0)
    lam = _check_real("heuristic_weight", heuristic_weight, 0.0)
    if lam > 1.0:
        raise ValueError(f"heuristic_weight must be in [0, 1], got {heuristic_weight!r}")
    if not isinstance(heuristic, str):
        raise ValueError(f"heuristic must be the name of one of the game's evaluations, got {heuristic!r}")
    if not callable(evaluate):
        raise ValueError(f"evaluate must be callable, got {type(evaluate).__name__}")
    core = getattr(env, "core", None)
    if core is None or not hasattr(env, "action_mask") or not hasattr(env, "current_player"):
        raise ValueError(f"env must be a vector env from envs.make_vec, got {type(env).__name__}")
    if determinize is not None and not isinstance(determinize, (bool, np.bool_)):
        raise ValueError(f"determinize must be True, False or None (ask the game), got {determinize!r}")
    hidden = has_hidden_information(env) if determinize is None else bool(determinize)
    if D > 1 and not hidden:
        raise ValueError(
            f"num_determinizations={D} needs a search that determinizes (a game with hidden information, "
            "or determinize=True): this one searches the game as it is"
        )
    if (gumbel is None or (hidden and determinization_rngs is None)) and not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), got {type(rng).__name__}"
            + (" (it draws this game's determinizations)" if hidden else "")
        )
    try:
        root_mask = np.array(env.action_mask(), dtype=bool)
    except RuntimeError as e:
        raise ValueError(f"env must be started (reset) before a search: {e}") from None
    B, A = root_mask.shape
    if determinization_rngs is not None:
        listed = isinstance(determinization_rngs, (list, tuple))
        if (
            not listed
            or len(determinization_rngs) != B
            or not all(isinstance(x, np.random.Generator) for x in determinization_rngs)
        ):
            raise ValueError(
                f"determinization_rngs must be a list of {B} numpy.random.Generator (one per game), got "
                + (f"a list of {len(determinization_rngs)}" if listed else type(determinization_rngs).__name__)
            )
    team_of = seat_teams(env, teams)
    K = int(team_of.max()) + 1  # sides
    first_seat = np.array([int(np.flatnonzero(team_of == t)[0]) for t in range(K)], dtype=np.int64)
    if gumbel is None:
        g = gscale * rng.gumbel(size=(B, A))
    else:
        g = np.array(gumbel, dtype=np.float64)
        if g.shape != (B, A) or not np.isfinite(g).all():
            raise ValueError(f"gumbel must be a finite float array of shape ({B}, {A}), got {g.dtype} {g.shape}")

    root_player = np.asarray(env.current_player(), dtype=np.int64)
    live = (root_player >= 0) & root_mask.any(axis=1)
    trees = np.flatnonzero(live)
    # the trees' rows: D per game (row i * D + d: game i's sample d), one per game without samples
    NB = B * D
    game_of = np.repeat(np.arange(B), D)
    gr = g if D == 1 else g[game_of]
    if D > 1:
        root_mask, root_player, live = root_mask[game_of], root_player[game_of], live[game_of]
        trees = np.flatnonzero(live)
    if hidden and trees.size:
        # D determinizations per live game from its mover's view, in game order, after the noise
        states = [env.to_state(i) for i in range(B) for _ in range(D)]
        gens = [rng] * B if determinization_rngs is None else list(determinization_rngs)
        for r in trees.tolist():
            states[r] = states[r].determinize(int(root_player[r]), gens[r // D])
        core = env.from_states(states).core
    N = S + 1
    # the trees (mctx's Tree fields, one row per game, node 0 the root), compact: a node's row holds
    # its legal actions only, in ascending action order (slot j: its j-th legal action), padded to
    # the width W of the widest node so far (the arrays grow when a wider node comes)
    nlegal = np.zeros((NB, N), dtype=np.int32)  # legal actions of each node (its row's used slots)
    Wr = max(1, int(root_mask[trees].sum(axis=1).max())) if trees.size else 1  # the roots' width
    W = 0
    child = logits = probs = cvisits = cq = actions = np.zeros((NB, N, 0))

    def grow(w):
        """Reallocate the compact arrays to width ``w`` (the new slots padding: never legal)."""
        nonlocal W, child, logits, probs, cvisits, cq, actions
        new = (
            np.full((NB, N, w), -1, dtype=np.int32),  # children_index, -1: unvisited
            np.full((NB, N, w), _MIN_LOGIT, dtype=np.float64),  # children_prior_logits (masked)
            np.zeros((NB, N, w), dtype=np.float64),  # their softmax (for the mixed value)
            np.zeros((NB, N, w), dtype=np.int32),  # children_visits
            np.zeros((NB, N, w), dtype=np.float64),  # qvalues of the node's side: rewards + discounts * values
            np.zeros((NB, N, w), dtype=np.int32),  # the action of each slot (padding: 0)
        )
        for a, b in zip(new, (child, logits, probs, cvisits, cq, actions)):
            a[:, :, :W] = b
        child, logits, probs, cvisits, cq, actions = new
        W = w

    grow(Wr)
    # values are vectors of the K sides in absolute side order (max-n); a node's q-values and
    # visits are of its own mover's side only (what its selection reads)
    reward = np.zeros((NB, N, K), dtype=np.float64)  # of the edge into each node, per side
    discount = np.zeros((NB, N), dtype=np.float64)  # 0 into a finished game, else 1
    nvisits = np.zeros((NB, N), dtype=np.int32)
    raw = np.zeros((NB, N, K), dtype=np.float64)
    nvalues = np.zeros((NB, N, K), dtype=np.float64)
    parent = np.full((NB, N), -1, dtype=np.int32)
    from_slot = np.full((NB, N), -1, dtype=np.int32)  # the slot of the edge into each node, in its parent
    mover = np.full((NB, N), -1, dtype=np.int64)
    side = np.full((NB, N), -1, dtype=np.int64)  # team_of[mover], -1 at a finished game
    count = np.ones(NB, dtype=np.int64)  # nodes used per tree
    groot = np.zeros((NB, Wr), dtype=np.float64)  # the root noise of each root slot
    n_eval = 0
    n_nodes = 0

    # the roots: one evaluation
    if trees.size:
        obs = _as_float32_obs(core.observe(np.where(root_player >= 0, root_player, 0).astype(np.int32)))
        layout = _compact_layout(root_mask[trees])
        lg, v = _call_evaluate_compact(evaluate, _obs_rows(obs, trees), root_mask[trees], layout, Wr, A, K)
        n_eval += trees.size
        cnt, rr, aa, jj = layout
        logits[trees, 0] = lg
        probs[trees, 0] = _softmax(lg)
        actions[trees[rr], 0, jj] = aa
        nlegal[trees, 0] = cnt
        groot[trees[rr], jj] = gr[trees[rr], aa]
        side[trees, 0] = team_of[root_player[trees]]
        raw[trees, 0] = _absolute(v, side[trees, 0])
        if lam > 0.0:
            raw[trees, 0] = (1.0 - lam) * raw[trees, 0] + lam * core.heuristic_values(trees, first_seat, heuristic)
        nvalues[trees, 0] = raw[trees, 0]
        nvisits[trees, 0] = 1
        mover[trees, 0] = root_player[trees]
    num_considered = np.minimum(M, root_mask.sum(axis=1))
    table = _considered_table(M, S)
    nodes = core.take(np.repeat(np.arange(NB), N))  # node n of row b is game b * N + n

    def root_stats(bb):
        """The roots of rows ``bb`` (every live row, D per game, in order): one row per game and
        its compact visits, q-values (the mean of its D trees': they visit the same root actions),
        sigma(completed q) and sigma of an unvisited action."""
        if D == 1:
            return (bb, cvisits[bb, 0, :Wr], cq[bb, 0, :Wr], *sigma(bb, 0, Wr))
        first = bb[::D]
        q = cq[bb, 0, :Wr].reshape(-1, D, Wr).mean(axis=1)
        sq, fill = _completed_compact(
            q,
            cvisits[first, 0, :Wr],
            raw[first, 0, side[first, 0]],
            probs[first, 0, :Wr] if use_mixed_value else None,
            nlegal[first, 0] < A,
            value_scale=vscale,
            maxvisit_init=vinit,
            rescale_values=bool(rescale_values),
        )
        return first, cvisits[first, 0, :Wr], q, sq, fill

    def sigma(bb, nn, w=None):
        w = W if w is None else w
        return _completed_compact(
            cq[bb, nn, :w],
            cvisits[bb, nn, :w],
            raw[bb, nn, side[bb, nn]],
            probs[bb, nn, :w] if use_mixed_value else None,
            nlegal[bb, nn] < A,
            value_scale=vscale,
            maxvisit_init=vinit,
            rescale_values=bool(rescale_values),
        )

    slot_r = np.arange(Wr)
    for _sim in range(S):
        if not trees.size:
            break
        bb = trees
        # root: Sequential Halving with Gumbel (mctx gumbel_muzero_root_action_selection)
        first, visits, _, sq, _ = root_stats(bb)
        considered_visit = table[num_considered[first], visits.sum(axis=1)]
        score = score_considered(considered_visit, groot[first], logits[first, 0, :Wr], sq, visits)
        slot = np.argmax(np.where(slot_r < nlegal[first, 0][:, None], score, -np.inf), axis=1)
        if D > 1:  # the same root action in the D trees of a game
            slot = np.repeat(slot, D)
        node = np.zeros(bb.size, dtype=np.int64)
        nxt = child[bb, 0, slot].astype(np.int64)
        # below: deterministic selection (mctx gumbel_muzero_interior_action_selection)
        going = nxt >= 0
        while True:
            going &= mover[bb, np.maximum(nxt, 0)] >= 0  # a finished game is a leaf
            if not going.any():
                break
            r = np.flatnonzero(going)
            b2, n2 = bb[r], nxt[r]
            sq2, _ = sigma(b2, n2)
            vis2 = cvisits[b2, n2]
            pi = _softmax(logits[b2, n2] + sq2)
            to_argmax = pi - vis2 / (1.0 + vis2.sum(axis=1, keepdims=True))
            ok = np.arange(W)[None, :] < nlegal[b2, n2][:, None]
            s2 = np.argmax(np.where(ok, to_argmax, -np.inf), axis=1)
            node[r] = n2
            slot[r] = s2
            nxt[r] = child[b2, n2, s2]
            going[r] = nxt[r] >= 0
        # expand the games whose path ends on an unvisited action: one take, step, put, evaluate
        new = nxt < 0
        leaf = nxt.copy()
        if new.any():
            r = np.flatnonzero(new)
            b3, p3, s3 = bb[r], node[r], slot[r]
            a3 = actions[b3, p3, s3]
            n3 = count[b3]
            count[b3] += 1
            n_nodes += r.size
            sub = nodes.take(b3 * N + p3)
            sub.step(a3.astype(np.int64), np.ones(r.size, dtype=bool))
            nodes.put(b3 * N + n3, sub)
            cp = np.asarray(sub.current_player(), dtype=np.int64)
            over = (cp < 0) | np.asarray(sub.terminated(), dtype=bool)
            cp = np.where(over, -1, cp)
            sd = np.where(over, -1, team_of[np.maximum(cp, 0)])
            rew = np.zeros((r.size, K), dtype=np.float64)
            if over.any():  # each side's return (partners share theirs: the first seat's)
                rets = np.asarray(sub.returns(), dtype=np.float64)
                rew = np.where(over[:, None], rets[:, first_seat], 0.0)
            disc = np.where(over, 0.0, 1.0)
            value = np.zeros((r.size, K), dtype=np.float64)
            ev = np.flatnonzero(~over)
            if ev.size:
                m3 = np.asarray(sub.legal_action_mask(), dtype=bool)[ev]
                layout = _compact_layout(m3)
                cnt, rr, aa, jj = layout
                if cnt.max() > W:  # a wider node: more room (by half at least, at most A)
                    grow(min(A, max(int(cnt.max()), W + W // 2)))
                obs = _as_float32_obs(sub.observe(np.maximum(cp, 0).astype(np.int32)))
                lg, v = _call_evaluate_compact(evaluate, _obs_rows(obs, ev), m3, layout, W, A, K)
                n_eval += ev.size
                be, ne = b3[ev], n3[ev]
                logits[be, ne] = lg
                probs[be, ne] = _softmax(lg)
                actions[be[rr], ne[rr], jj] = aa
                nlegal[be, ne] = cnt
                value[ev] = _absolute(v, sd[ev])
                if lam > 0.0:
                    value[ev] = (1.0 - lam) * value[ev] + lam * sub.heuristic_values(ev, first_seat, heuristic)
            raw[b3, n3] = value
            nvalues[b3, n3] = value
            nvisits[b3, n3] = 1
            parent[b3, n3] = p3
            from_slot[b3, n3] = s3
            mover[b3, n3] = cp
            side[b3, n3] = sd
            child[b3, p3, s3] = n3
            reward[b3, n3] = rew
            discount[b3, n3] = disc
            leaf[r] = n3
        old = np.flatnonzero(~new)  # a finished game reached again: mctx's dummy child adds a visit of value 0
        if old.size:
            nvisits[bb[old], leaf[old]] += 1
        # back up (mctx search.backward, on vectors of the sides: max-n)
        idx = leaf
        val = nvalues[bb, idx]
        up = idx != 0
        while up.any():
            r = np.flatnonzero(up)
            b4, i4 = bb[r], idx[r]
            p4 = parent[b4, i4]
            s4 = from_slot[b4, i4]
            d4 = discount[b4, i4][:, None]
            val[r] = reward[b4, i4] + d4 * val[r]
            c = nvisits[b4, p4][:, None]
            nvalues[b4, p4] = (nvalues[b4, p4] * c + val[r]) / (c + 1.0)
            nvisits[b4, p4] += 1
            t4 = side[b4, p4]
            cq[b4, p4, s4] = reward[b4, i4, t4] + discount[b4, i4] * nvalues[b4, i4, t4]
            cvisits[b4, p4, s4] += 1
            idx[r] = p4
            up[r] = p4 != 0

    # the result (mctx gumbel_muzero_policy), the roots' compact rows spread over the A actions
    action = np.zeros(B, dtype=np.int64)
    weights = np.zeros((B, A), dtype=np.float32)
    sq_out = np.zeros((B, A), dtype=np.float32)
    q_out = np.zeros((B, A), dtype=np.float32)
    considered = np.zeros((B, A), dtype=bool)
    root_values = np.zeros((B, K), dtype=np.float32)
    root_value = np.zeros(B, dtype=np.float32)
    raw_value = np.zeros(B, dtype=np.float32)
    root_visits = np.zeros((B, A), dtype=np.int32)
    if trees.size:
        first, visits, q, sq, fill = root_stats(trees)
        gi = first // D  # the games
        s0 = side[first, 0]
        values = nvalues[trees, 0] if D == 1 else nvalues[trees, 0].reshape(-1, D, K).mean(axis=1)
        root_value[gi] = values[np.arange(gi.size), s0]
        raw_value[gi] = raw[first, 0, s0]
        root_values[gi] = _relative(values, s0)
        ok0 = slot_r < nlegal[first, 0][:, None]
        acts = actions[first, 0, :Wr]
        rr, jj = np.nonzero(ok0)
        gr_, ar_ = gi[rr], acts[rr, jj]  # each legal root action: its game and action
        root_visits[gr_, ar_] = visits[rr, jj]
        lg0 = logits[first, 0, :Wr]
        score = score_considered(visits.max(axis=1), groot[first], lg0, sq, visits)
        action[gi] = acts[np.arange(gi.size), np.argmax(np.where(ok0, score, -np.inf), axis=1)]
        weights[gr_, ar_] = improved_policy(lg0, sq, ok0)[rr, jj]
        sq_out[gi] = fill[:, None]  # an illegal action counts as unvisited
        sq_out[gr_, ar_] = sq[rr, jj]
        q_out[gr_, ar_] = q[rr, jj]
        # Gumbel-top-k: the first num_considered by g + logits (ties to the lower action, as argmax)
        key = np.where(ok0, np.maximum(_LOW_LOGIT, groot[first] + lg0), -np.inf)
        order = np.argsort(-key, axis=1, kind="stable")
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(Wr)[None, :].repeat(gi.size, axis=0), axis=1)
        considered[gr_, ar_] = (rank < num_considered[first][:, None])[rr, jj]
    return SearchResult(
        action=action,
        action_weights=weights,
        root_value=root_value,
        raw_value=raw_value,
        root_values=root_values,
        qvalues=q_out,
        completed_qvalues=sq_out,
        visit_counts=root_visits,
        considered=considered,
        gumbel=g,
        num_evaluations=int(n_eval),
        num_nodes=int(n_nodes),
    )
