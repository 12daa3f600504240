"""Tantrix's batched core (``envs.make_vec("tantrix_v0", B)``): :class:`TantrixVectorCore`.

``B`` games of one setting (players, Doubles, colours, window radius) stepped together by numba
kernels (``@njit(cache=True)``, one game after the other, no ``prange``). The rules are those of
:class:`envs.tantrix.state.TantrixState` (the specification): forced spaces, the three
restrictions (restriction 3 by the same operational controlled-side closure), the turn
structure (forced, free, forced: the same seat acts several times in a row; empty forced steps
move on by themselves), drawing into the slot just played, the restrictions lifting once the bag
is empty, the deadlock draw (no free move while the bag has tiles), skipping once the bag is empty
(the game ends after every seat skipped in a row), the end when every tile is on the table, and
scoring (max(longest line, 2 x largest loop) per colour; +1 sole winning side, 0 shared first,
-1 the others, 0 for all in a deadlock). The observation is bit-exact with
:class:`envs.tantrix.observation.TantrixObservation`; the bag order never shows (only its size).

Every setting of ``tantrix_v0`` is covered (2-4 players, ``teams``, ``colors``, ``window_radius``
3-40): nothing is refused, ``backend='reference'`` is never needed.

Array layout (:attr:`TantrixVectorCore.arrays`; ``NC = S * S`` cells of the padded axial grid,
``S = 2 (R + 3) + 1``, cell ``c = origin + q + r * S`` as in the reference state):

* ``tile`` ``int8 (B, NC)`` tile number on a cell (0 empty); ``rot`` ``int8 (B, NC)`` its rotation;
  ``cnt`` ``int8 (B, NC)`` occupied neighbours of an empty cell; ``need`` ``int32 (B, NC)`` the
  colours its neighbours show it (3 bits per edge); ``pidx`` ``int8 (B, NC)`` placement index of
  the tile on a cell (-1); ``cpos`` ``int16 (B, NC)`` position of an empty cell touching a tile
  in ``cand`` (-1 otherwise).
* ``cand`` ``int16 (B, 256)`` the candidate cells (the first ``meta[:, NCAND]``); forced spaces are
  the candidates with ``cnt >= 3``.
* ``placed`` ``int8 (B, 56, 4)`` the tiles on the table ``(tile, q, r, rot)`` in placement order.
* ``par``, ``usize`` ``int8 (B, 5, 56)``, ``ucyc`` ``bool (B, 5, 56)``: per colour code 1-4 the
  union-find over placement indices (parent, line size in tiles, closed loop), as the reference's.
* ``hands`` ``int8 (B, 4, 6)`` slots (-1 empty); ``bag`` ``int8 (B, 56)`` the drawing order
  (hidden; the first ``meta[:, BAGLEN]``, drawn up to ``meta[:, BPOS]``).
* ``legal`` ``int32 (B, 3072)`` the legal actions now (the first ``meta[:, NLEGAL]``, unordered).
* ``meta`` ``int32 (B, 16)``: player, phase, over, deadlock, skips, bag position, bag length,
  tiles in the game, tiles placed, candidates, clipped placements now, decision points with a
  clipped placement, legal actions (the column constants below).

Evaluations for search (:meth:`TantrixVectorCore.heuristic_values`): ``evaluate``, the score gap, and
``predicted``, the robot's predicted final score gap (:func:`envs.tantrix.robot.robot_value`), are each
one numba pass over these tables, with the reference's arithmetic (``predicted``: ~9 µs a position,
67-128x faster than through the reference states; ``benchmarks/bench_tantrix_evaluations.py``);
``predicted_turn`` (:func:`envs.tantrix.robot.turn_end_value`) plays the mover's turn out on a
two-game scratch copy with the step kernel, each placement chosen by ``predicted``, then evaluates
(~1 ms a position, 54x faster than through the reference states).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from envs.core.errors import ParameterError
from envs.core.vector import VectorCore
from envs.tantrix.heuristics import VALUE_SCALE
from envs.tantrix.observation import NUM_PLANES, TantrixObservation
from envs.tantrix.robot import FIT_FULL, GROWTH_ONE, GROWTH_TWO, TURN_BUDGET
from envs.tantrix.state import TantrixState, window_geometry
from envs.tantrix.tiles import NUM_TILES, TR_EDGES, TR_SEG

__all__ = ["TantrixVectorCore", "vector_core"]

# meta columns
PLAYER, PHASE, OVER, DEADLOCK, SKIPS, BPOS, BAGLEN, TOTAL, NPLACED, NCAND, CLIPNOW, CLIPCOUNT, NLEGAL = range(13)
NMETA = 16
MAXCAND = 256
MAXLEGAL = 3072

# the per-game arrays in the kernels' argument order
_ARRAY_ORDER = (
    "tile",
    "rot",
    "cnt",
    "need",
    "pidx",
    "cpos",
    "cand",
    "placed",
    "par",
    "usize",
    "ucyc",
    "hands",
    "bag",
    "legal",
    "meta",
)

# tile tables: EDGE[t * 6 + k, d] colour code of edge d; EP the 18-bit edge pattern; SEG[tr, col] the
# two edges of colour col (-1 -1 if absent)
_EDGE = np.zeros(((NUM_TILES + 1) * 6, 6), dtype=np.int32)
_EP = np.zeros((NUM_TILES + 1) * 6, dtype=np.int32)
_SEG = np.full(((NUM_TILES + 1) * 6, 5, 2), -1, dtype=np.int32)
for _tr in range(6, (NUM_TILES + 1) * 6):
    for _d, _c in enumerate(TR_EDGES[_tr]):
        _EDGE[_tr, _d] = _c
        _EP[_tr] |= _c << (3 * _d)
    for _c in range(1, 5):
        if TR_SEG[_tr][_c] is not None:
            _SEG[_tr, _c, 0], _SEG[_tr, _c, 1] = TR_SEG[_tr][_c]


# ---------------------------------------------------------------------------- kernels
@njit(cache=True)
def _find(par, x):
    while par[x] != x:
        x = par[x]
    return x


@njit(cache=True)
def _put(i, c, t, k, q, r, tile, rot, cnt, need, pidx, cpos, cand, placed, par, usize, ucyc, meta, NB, EDGE, SEG):
    tile[i, c] = t
    rot[i, c] = k
    # remove c from the candidates
    j = cpos[i, c]
    if j >= 0:
        last = meta[i, NCAND] - 1
        lc = cand[i, last]
        cand[i, j] = lc
        cpos[i, lc] = j
        cpos[i, c] = -1
        meta[i, NCAND] = last
    tr = t * 6 + k
    for d in range(6):
        n = c + NB[d]
        if tile[i, n] != 0:
            continue
        cnt[i, n] += 1
        need[i, n] |= EDGE[tr, d] << (3 * ((d + 3) % 6))
        if cpos[i, n] < 0:
            m = meta[i, NCAND]
            cand[i, m] = n
            cpos[i, n] = m
            meta[i, NCAND] = m + 1
    idx = meta[i, NPLACED]
    placed[i, idx, 0] = t
    placed[i, idx, 1] = q
    placed[i, idx, 2] = r
    placed[i, idx, 3] = k
    pidx[i, c] = idx
    meta[i, NPLACED] = idx + 1
    for col in range(1, 5):
        p = par[i, col]
        p[idx] = idx
        ucyc[i, col, idx] = False
        if SEG[tr, col, 0] < 0:
            usize[i, col, idx] = 0
            continue
        usize[i, col, idx] = 1
        for j2 in range(2):
            n = c + NB[SEG[tr, col, j2]]
            if tile[i, n] == 0:
                continue
            other = _find(p, pidx[i, n])
            if other == idx:
                ucyc[i, col, idx] = True
            else:
                p[other] = idx
                usize[i, col, idx] += usize[i, col, other]


@njit(cache=True)
def _geom_ok(i, c, tile, cnt, cand, meta, NB, addv, adds, fills, stack, stamp):
    """Restrictions 2 and 3 for a tentative tile on c (the reference's closure; its result does
    not depend on the order in which forced spaces are filled)."""
    stamp[0] += 1
    s = stamp[0]
    top = 0
    for d in range(6):
        n = c + NB[d]
        if tile[i, n] == 0:
            k = cnt[i, n] + 1
            if k >= 4:
                return False
            adds[n] = s
            addv[n] = 1
            if k == 3:
                stack[top] = n
                top += 1
    for j in range(meta[i, NCAND]):
        f = cand[i, j]
        if cnt[i, f] >= 3 and f != c and adds[f] != s:
            stack[top] = f
            top += 1
    if top == 0:
        return True
    fills[c] = s
    while top > 0:
        top -= 1
        f = stack[top]
        if fills[f] == s:
            continue
        a = addv[f] if adds[f] == s else 0
        if cnt[i, f] + a >= 4:
            return False
        fills[f] = s
        for d in range(6):
            n = f + NB[d]
            if tile[i, n] == 0 and fills[n] != s:
                if adds[n] == s:
                    a = addv[n] + 1
                else:
                    a = 1
                    adds[n] = s
                addv[n] = a
                k = cnt[i, n] + a
                if k >= 4:
                    return False
                if k == 3:
                    stack[top] = n
                    top += 1
    return True


@njit(cache=True)
def _placements(
    i, forced_only, tile, cnt, need, cand, hands, legal, meta, NB, EDGE, EP, WIDX, HW, addv, adds, fills, stack, stamp
):
    """Legal placements of game i's mover into legal[i]; sets NLEGAL, returns the clipped count."""
    p = meta[i, PLAYER]
    nl = 0
    clipped = 0
    has = False
    for s in range(6):
        if hands[i, p, s] > 0:
            has = True
    if not has:
        meta[i, NLEGAL] = 0
        return 0
    restricted = meta[i, BPOS] < meta[i, BAGLEN]
    fs = np.empty(36, dtype=np.int32)
    forb = np.zeros(6, dtype=np.int32)
    for j in range(meta[i, NCAND]):
        c = cand[i, j]
        if forced_only and cnt[i, c] < 3:
            continue
        nd = need[i, c]
        rm = 0
        for d in range(6):
            if (nd >> (3 * d)) & 7:
                rm |= 7 << (3 * d)
        nf = 0
        for s in range(6):
            t = hands[i, p, s]
            if t <= 0:
                continue
            for k in range(6):
                if (EP[t * 6 + k] & rm) == nd:
                    fs[nf] = s * 6 + k
                    nf += 1
        if nf == 0:
            continue
        anyforb = False
        if restricted:
            if not _geom_ok(i, c, tile, cnt, cand, meta, NB, addv, adds, fills, stack, stamp):
                continue
            for d in range(6):
                forb[d] = 0
                n = c + NB[d]
                if tile[i, n] != 0:
                    continue
                pn = need[i, n]
                if pn == 0:
                    continue
                c1 = 0
                c2 = 0
                c3 = 0
                c4 = 0
                for e in range(6):
                    v = (pn >> (3 * e)) & 7
                    if v == 1:
                        c1 += 1
                    elif v == 2:
                        c2 += 1
                    elif v == 3:
                        c3 += 1
                    elif v == 4:
                        c4 += 1
                if c1 >= 2:
                    forb[d] |= 2
                if c2 >= 2:
                    forb[d] |= 4
                if c3 >= 2:
                    forb[d] |= 8
                if c4 >= 2:
                    forb[d] |= 16
                if forb[d]:
                    anyforb = True
        w = WIDX[c]
        for m in range(nf):
            sk = fs[m]
            if anyforb:
                tr = hands[i, p, sk // 6] * 6 + sk % 6
                bad = False
                for d in range(6):
                    if (forb[d] >> EDGE[tr, d]) & 1:
                        bad = True
                        break
                if bad:
                    continue
            if w < 0:
                clipped += 1
            else:
                legal[i, nl] = sk * HW + w
                nl += 1
    meta[i, NLEGAL] = nl
    return clipped


@njit(cache=True)
def _has_forced(i, cnt, cand, meta):
    for j in range(meta[i, NCAND]):
        if cnt[i, cand[i, j]] >= 3:
            return True
    return False


@njit(cache=True)
def _settle(i, n, tile, cnt, need, cand, hands, legal, meta, NB, EDGE, EP, WIDX, HW, addv, adds, fills, stack, stamp):
    while True:
        if meta[i, OVER]:
            meta[i, NLEGAL] = 0
            return
        if meta[i, PHASE] != 1:
            if _has_forced(i, cnt, cand, meta):
                clipped = _placements(
                    i,
                    True,
                    tile,
                    cnt,
                    need,
                    cand,
                    hands,
                    legal,
                    meta,
                    NB,
                    EDGE,
                    EP,
                    WIDX,
                    HW,
                    addv,
                    adds,
                    fills,
                    stack,
                    stamp,
                )
            else:
                meta[i, NLEGAL] = 0
                clipped = 0
        else:
            clipped = _placements(
                i,
                False,
                tile,
                cnt,
                need,
                cand,
                hands,
                legal,
                meta,
                NB,
                EDGE,
                EP,
                WIDX,
                HW,
                addv,
                adds,
                fills,
                stack,
                stamp,
            )
        if clipped:
            meta[i, CLIPCOUNT] += 1
        meta[i, CLIPNOW] = clipped
        if meta[i, NLEGAL] > 0:
            return
        if meta[i, PHASE] == 0:
            meta[i, PHASE] = 1
            continue
        if meta[i, PHASE] == 2:
            meta[i, PLAYER] = (meta[i, PLAYER] + 1) % n
            meta[i, PHASE] = 0
            continue
        if meta[i, BPOS] < meta[i, BAGLEN]:
            meta[i, OVER] = 1
            meta[i, DEADLOCK] = 1
            continue
        meta[i, SKIPS] += 1
        if meta[i, SKIPS] >= n:
            meta[i, OVER] = 1
            continue
        meta[i, PLAYER] = (meta[i, PLAYER] + 1) % n
        meta[i, PHASE] = 0


@njit(cache=True)
def _clear(i, origin, tile, rot, cnt, need, pidx, cpos, cand, hands, meta):
    tile[i] = 0
    rot[i] = 0
    cnt[i] = 0
    need[i] = 0
    pidx[i] = -1
    cpos[i] = -1
    hands[i] = -1
    meta[i] = 0
    cand[i, 0] = origin
    cpos[i, origin] = 0
    meta[i, NCAND] = 1


@njit(cache=True)
def _scratch(nc):
    return (
        np.zeros(nc, np.int8),
        np.zeros(nc, np.int32),
        np.zeros(nc, np.int32),
        np.zeros(4 * nc + MAXCAND, np.int32),
        np.zeros(1, np.int64),
    )


@njit(cache=True)
def _reset_kernel(
    index,
    bags,
    n,
    origin,
    tile,
    rot,
    cnt,
    need,
    pidx,
    cpos,
    cand,
    placed,
    par,
    usize,
    ucyc,
    hands,
    bag,
    legal,
    meta,
    NB,
    EDGE,
    EP,
    WIDX,
    HW,
):
    addv, adds, fills, stack, stamp = _scratch(tile.shape[1])
    for j in range(index.shape[0]):
        i = index[j]
        _clear(i, origin, tile, rot, cnt, need, pidx, cpos, cand, hands, meta)
        for b in range(NUM_TILES):
            bag[i, b] = bags[j, b]
        meta[i, BAGLEN] = NUM_TILES
        meta[i, TOTAL] = NUM_TILES
        best = -1
        bp = 0
        for p in range(n):
            t = bag[i, bp]
            bp += 1
            hands[i, p, 0] = t
            if t > best:
                best = t
                meta[i, PLAYER] = p
        for p in range(n):
            for s in range(1, 6):
                hands[i, p, s] = bag[i, bp]
                bp += 1
        meta[i, BPOS] = bp
        _settle(
            i, n, tile, cnt, need, cand, hands, legal, meta, NB, EDGE, EP, WIDX, HW, addv, adds, fills, stack, stamp
        )


@njit(cache=True)
def _step_kernel(
    actions,
    active,
    n,
    R,
    S,
    origin,
    tile,
    rot,
    cnt,
    need,
    pidx,
    cpos,
    cand,
    placed,
    par,
    usize,
    ucyc,
    hands,
    bag,
    legal,
    meta,
    NB,
    EDGE,
    SEG,
    EP,
    WIDX,
    HW,
):
    addv, adds, fills, stack, stamp = _scratch(tile.shape[1])
    W = 2 * R + 1
    for i in range(actions.shape[0]):
        if not active[i]:
            continue
        a = actions[i]
        sk = a // HW
        w = a % HW
        slot = sk // 6
        k = sk % 6
        q = w % W - R
        r = w // W - R
        c = origin + q + r * S
        p = meta[i, PLAYER]
        t = hands[i, p, slot]
        _put(i, c, t, k, q, r, tile, rot, cnt, need, pidx, cpos, cand, placed, par, usize, ucyc, meta, NB, EDGE, SEG)
        if meta[i, BPOS] < meta[i, BAGLEN]:
            hands[i, p, slot] = bag[i, meta[i, BPOS]]
            meta[i, BPOS] += 1
        else:
            hands[i, p, slot] = -1
        meta[i, SKIPS] = 0
        if meta[i, PHASE] == 1:
            meta[i, PHASE] = 2
        if meta[i, NPLACED] >= meta[i, TOTAL]:
            meta[i, OVER] = 1
        _settle(
            i, n, tile, cnt, need, cand, hands, legal, meta, NB, EDGE, EP, WIDX, HW, addv, adds, fills, stack, stamp
        )


@njit(cache=True)
def _load_kernel(
    i,
    tiles,
    n,
    origin,
    S,
    tile,
    rot,
    cnt,
    need,
    pidx,
    cpos,
    cand,
    placed,
    par,
    usize,
    ucyc,
    hands,
    legal,
    meta,
    NB,
    EDGE,
    SEG,
    EP,
    WIDX,
    HW,
):
    """Replay the table ``tiles`` (k, 4: tile, q, r, rot) into game i (meta, hands, bag set by the caller
    except NPLACED/NCAND), then compute the legal actions of the current phase (the state is settled)."""
    addv, adds, fills, stack, stamp = _scratch(tile.shape[1])
    saved = meta[i].copy()
    hsaved = hands[i].copy()
    _clear(i, origin, tile, rot, cnt, need, pidx, cpos, cand, hands, meta)
    for j in range(tiles.shape[0]):
        t, q, r, k = tiles[j, 0], tiles[j, 1], tiles[j, 2], tiles[j, 3]
        _put(
            i,
            origin + q + r * S,
            t,
            k,
            q,
            r,
            tile,
            rot,
            cnt,
            need,
            pidx,
            cpos,
            cand,
            placed,
            par,
            usize,
            ucyc,
            meta,
            NB,
            EDGE,
            SEG,
        )
    for col in range(NMETA):
        if col != NPLACED and col != NCAND:
            meta[i, col] = saved[col]
    hands[i] = hsaved
    meta[i, NLEGAL] = 0
    if not meta[i, OVER]:
        if meta[i, PHASE] != 1:
            if _has_forced(i, cnt, cand, meta):
                _placements(
                    i,
                    True,
                    tile,
                    cnt,
                    need,
                    cand,
                    hands,
                    legal,
                    meta,
                    NB,
                    EDGE,
                    EP,
                    WIDX,
                    HW,
                    addv,
                    adds,
                    fills,
                    stack,
                    stamp,
                )
        else:
            _placements(
                i,
                False,
                tile,
                cnt,
                need,
                cand,
                hands,
                legal,
                meta,
                NB,
                EDGE,
                EP,
                WIDX,
                HW,
                addv,
                adds,
                fills,
                stack,
                stamp,
            )


@njit(cache=True)
def _mask_kernel(legal, meta, out):
    for i in range(out.shape[0]):
        for j in range(meta[i, NLEGAL]):
            out[i, legal[i, j]] = True


@njit(cache=True)
def _colour_scores(i, par, usize, ucyc, meta, out):
    """out[col] (col 1-4) = max(longest line, 2 x largest loop) of colour col in game i."""
    for col in range(1, 5):
        line = 0
        loop = 0
        for x in range(meta[i, NPLACED]):
            if par[i, col, x] == x:
                sz = usize[i, col, x]
                if ucyc[i, col, x]:
                    if sz > loop:
                        loop = sz
                elif sz > line:
                    line = sz
        out[col] = max(line, 2 * loop)


@njit(cache=True)
def _results(n, teams, colour_of, cs, res):
    """res[p] for every seat of a finished game (not a deadlock) from its colour scores cs: +1 the
    sole winning side, 0 every seat when sides share first place, -1 the others."""
    best = -1
    for p in range(n):
        if cs[colour_of[p]] > best:
            best = cs[colour_of[p]]
    side = -1
    one = True
    for p in range(n):
        if cs[colour_of[p]] == best:
            tp = p % 2 if teams else p
            if side == -1:
                side = tp
            elif side != tp:
                one = False
    for p in range(n):
        if cs[colour_of[p]] < best:
            res[p] = -1.0
        elif one:
            res[p] = 1.0
        else:
            res[p] = 0.0


@njit(cache=True)
def _best_other_side(p, n, teams, colour_of, cs):
    """The best colour score among the seats not on seat p's side (-1 if none)."""
    tp = p % 2 if teams else p
    best = -1
    for q in range(n):
        tq = q % 2 if teams else q
        if tq != tp and cs[colour_of[q]] > best:
            best = cs[colour_of[q]]
    return best


@njit(cache=True)
def _growth_rate(a, growth_one, growth_two):
    """A line's growth per own turn from the summed weight a (0-2) of its two best live ends
    (envs.tantrix.robot: GROWTH_ONE for one live end, GROWTH_TWO for two, linear between)."""
    if a >= 1.0:
        return growth_one + (growth_two - growth_one) * (a - 1.0)
    return growth_one * a


@njit(cache=True)
def _returns_kernel(n, teams, colour_of, par, usize, ucyc, meta, out):
    cs = np.zeros(5, np.int64)
    res = np.zeros(4)
    for i in range(out.shape[0]):
        if not meta[i, OVER] or meta[i, DEADLOCK]:
            continue
        _colour_scores(i, par, usize, ucyc, meta, cs)
        _results(n, teams, colour_of, cs, res)
        for p in range(n):
            out[i, p] = res[p]


@njit(cache=True)
def _score_gap_kernel(index, seats, n, teams, colour_of, par, usize, ucyc, meta, scale, out):
    """out[j, c] = tanh((score of seats[c] - best score of another side) / scale) in game index[j]:
    the heuristics module's tantrix_score_gap as a value, from the same union-find tables."""
    cs = np.zeros(5, np.int64)
    for j in range(index.shape[0]):
        i = index[j]
        _colour_scores(i, par, usize, ucyc, meta, cs)
        for c in range(seats.shape[0]):
            p = seats[c]
            out[j, c] = np.tanh((cs[colour_of[p]] - _best_other_side(p, n, teams, colour_of, cs)) / scale)


@njit(cache=True)
def _predicted_kernel(
    index,
    seats,
    n,
    teams,
    colour_of,
    tile,
    cnt,
    need,
    pidx,
    cand,
    par,
    usize,
    ucyc,
    hands,
    bag,
    meta,
    NB,
    EP,
    SEG,
    addv,
    adds,
    fills,
    stack,
    stamp,
    growth_two,
    growth_one,
    fit_full,
    scale,
    raw,
    out,
):
    """out[j, c] = tanh(robot_value(game index[j], seats[c]) / scale), or with ``raw`` robot_value
    itself: the robot's evaluator (envs.tantrix.robot: predict_scores, then the mover's colour minus
    the best other colour; a finished game 1000 x its result plus the score gap), line by line the
    same arithmetic, read from the same union-find tables and the tiles still to be placed (hands
    and the bag as a set)."""
    NT = NUM_TILES
    pool = np.zeros(NT, np.int64)
    inplay = np.zeros(5, np.bool_)
    for p in range(n):
        inplay[colour_of[p]] = True
    has = np.zeros((5, NT), np.bool_)
    w1 = np.zeros((5, NT))  # the best and second-best weight of a line's ends
    w2 = np.zeros((5, NT))
    wsum = np.zeros((5, NT))  # the sum of its ends' weights
    nfor = np.zeros((5, NT), np.int64)  # its ends facing a forced space some tile left fits
    selfw = np.zeros((5, NT))  # the weight of a space both its ends face (-1: none)
    mr1 = np.zeros((5, MAXCAND), np.int64)  # spaces two ends of colour col face: roots and weight
    mr2 = np.zeros((5, MAXCAND), np.int64)
    mw = np.zeros((5, MAXCAND))
    nm = np.zeros(5, np.int64)
    pred = np.zeros(5)
    cs = np.zeros(5, np.int64)
    res = np.zeros(4)
    roots = np.zeros(6, np.int64)
    for j in range(index.shape[0]):
        i = index[j]
        if meta[i, OVER]:
            _colour_scores(i, par, usize, ucyc, meta, cs)
            res[:] = 0.0  # a deadlock: a draw for all
            if not meta[i, DEADLOCK]:
                _results(n, teams, colour_of, cs, res)
            for c in range(seats.shape[0]):
                p = seats[c]
                gap = cs[colour_of[p]] - _best_other_side(p, n, teams, colour_of, cs)
                v = 1000.0 * res[p] + gap
                out[j, c] = v if raw else np.tanh(v / scale)
            continue
        m = 0
        for p in range(n):
            for s in range(6):
                if hands[i, p, s] > 0:
                    pool[m] = hands[i, p, s]
                    m += 1
        for b in range(meta[i, BPOS], meta[i, BAGLEN]):
            pool[m] = bag[i, b]
            m += 1
        remaining = m
        restricted = meta[i, BPOS] < meta[i, BAGLEN]
        nplaced = meta[i, NPLACED]
        for col in range(1, 5):
            nm[col] = 0
            for x in range(nplaced):
                has[col, x] = False
                w1[col, x] = 0.0
                w2[col, x] = 0.0
                wsum[col, x] = 0.0
                nfor[col, x] = 0
                selfw[col, x] = -1.0
        for jj in range(meta[i, NCAND]):
            c0 = cand[i, jj]
            pat = need[i, c0]
            if pat == 0:
                continue
            shown = False
            mask = 0
            for d in range(6):
                e = (pat >> (3 * d)) & 7
                if e:
                    mask |= 7 << (3 * d)
                    if inplay[e]:
                        shown = True
            if not shown:
                continue
            nfit = 0
            for k in range(remaining):
                t = pool[k]
                for r in range(6):
                    if EP[t * 6 + r] & mask == pat:
                        nfit += 1
                        break
            if (
                nfit > 0
                and restricted
                and not _geom_ok(i, c0, tile, cnt, cand, meta, NB, addv, adds, fills, stack, stamp)
            ):
                w = 0.0
            else:
                w = min(1.0, nfit / fit_full)
            forced = cnt[i, c0] >= 3 and w > 0
            for col in range(1, 5):
                if not inplay[col]:
                    continue
                nr = 0
                for d in range(6):
                    if (pat >> (3 * d)) & 7 == col:
                        roots[nr] = _find(par[i, col], pidx[i, c0 + NB[d]])
                        nr += 1
                for q in range(nr):
                    x = roots[q]
                    has[col, x] = True
                    if w > w1[col, x]:
                        w2[col, x] = w1[col, x]
                        w1[col, x] = w
                    elif w > w2[col, x]:
                        w2[col, x] = w
                    wsum[col, x] += w
                    if forced:
                        nfor[col, x] += 1
                if nr == 2:
                    if roots[0] == roots[1]:
                        if w > selfw[col, roots[0]]:
                            selfw[col, roots[0]] = w
                    else:
                        k = nm[col]
                        mr1[col, k] = roots[0]
                        mr2[col, k] = roots[1]
                        mw[col, k] = w
                        nm[col] = k + 1
        share = 2.0 if teams else 1.0
        turns = remaining * share / n
        for col in range(1, 5):
            if not inplay[col]:
                continue
            withc = 0
            for k in range(remaining):
                if SEG[pool[k] * 6, col, 0] >= 0:
                    withc += 1
            cfrac = withc / remaining if remaining else 0.0
            best = 0.0
            loop_now = 0
            for x in range(nplaced):
                if par[i, col, x] == x and usize[i, col, x]:
                    if ucyc[i, col, x]:
                        loop_now = max(loop_now, 2 * usize[i, col, x])
                    else:
                        best = max(best, float(usize[i, col, x]))
            best = max(best, float(loop_now))
            for x in range(nplaced):
                if not has[col, x]:
                    continue
                L = float(usize[i, col, x])
                if selfw[col, x] >= 0.0:
                    best = max(best, L + selfw[col, x] * (L + 2.0))
                    continue
                rate = _growth_rate(w1[col, x] + w2[col, x], growth_one, growth_two)
                best = max(best, L + nfor[col, x] + rate * turns * cfrac)
            for k in range(nm[col]):
                r1 = mr1[col, k]
                r2 = mr2[col, k]
                w = mw[col, k]
                if w > 0:
                    a = max(0.0, min(2.0, wsum[col, r1] + wsum[col, r2]) - w * 2)  # the meeting ends used up
                    rate = _growth_rate(a, growth_one, growth_two)
                    best = max(best, usize[i, col, r1] + usize[i, col, r2] + w * (1.0 + rate * turns * cfrac))
            pred[col] = best
        for c in range(seats.shape[0]):
            mine = colour_of[seats[c]]
            other = -1e300
            for q in range(n):
                oc = colour_of[q]
                if oc != mine and pred[oc] > other:
                    other = pred[oc]
            v = pred[mine] - other
            out[j, c] = v if raw else np.tanh(v / scale)


@njit(cache=True)
def _copy_game(
    i,
    k,
    with_legal,
    tile,
    rot,
    cnt,
    need,
    pidx,
    cpos,
    cand,
    placed,
    par,
    usize,
    ucyc,
    hands,
    bag,
    legal,
    meta,
    xtile,
    xrot,
    xcnt,
    xneed,
    xpidx,
    xcpos,
    xcand,
    xplaced,
    xpar,
    xusize,
    xucyc,
    xhands,
    xbag,
    xlegal,
    xmeta,
):
    """Game i of the first tables into slot k of the second (the legal actions too when with_legal)."""
    xtile[k, :] = tile[i, :]
    xrot[k, :] = rot[i, :]
    xcnt[k, :] = cnt[i, :]
    xneed[k, :] = need[i, :]
    xpidx[k, :] = pidx[i, :]
    xcpos[k, :] = cpos[i, :]
    xcand[k, :] = cand[i, :]
    xplaced[k, :, :] = placed[i, :, :]
    xpar[k, :, :] = par[i, :, :]
    xusize[k, :, :] = usize[i, :, :]
    xucyc[k, :, :] = ucyc[i, :, :]
    xhands[k, :, :] = hands[i, :, :]
    xbag[k, :] = bag[i, :]
    xmeta[k, :] = meta[i, :]
    if with_legal:
        for l in range(meta[i, NLEGAL]):
            xlegal[k, l] = legal[i, l]


@njit(cache=True)
def _turn_end_kernel(
    index,
    seats,
    n,
    R,
    S,
    origin,
    teams,
    colour_of,
    tile,
    rot,
    cnt,
    need,
    pidx,
    cpos,
    cand,
    placed,
    par,
    usize,
    ucyc,
    hands,
    bag,
    legal,
    meta,
    xtile,
    xrot,
    xcnt,
    xneed,
    xpidx,
    xcpos,
    xcand,
    xplaced,
    xpar,
    xusize,
    xucyc,
    xhands,
    xbag,
    xlegal,
    xmeta,
    NB,
    EDGE,
    SEG,
    EP,
    WIDX,
    HW,
    growth_two,
    growth_one,
    fit_full,
    scale,
    budget,
    out,
):
    """out[j, c] = tanh(turn_end_value(game index[j], seats[c]) / scale), envs.tantrix.robot's: the
    player to move plays the rest of its turn in slot 0 of the x tables (two games), each
    placement the one after which robot_value (the predicted kernel, raw) is best for it, the
    smallest action on ties (the reference's first in action order), every candidate tried in
    slot 1; a choice among more actions than the evaluations left of ``budget`` ends the turn
    early. Then the robot's evaluator of the position reached, for every seat asked."""
    addv, adds, fills, stack, stamp = _scratch(tile.shape[1])
    acts = np.zeros(2, np.int64)
    active = np.zeros(2, np.bool_)
    slot0 = np.zeros(1, np.int64)
    slot1 = np.ones(1, np.int64)
    mover = np.zeros(1, np.int64)
    val = np.zeros((1, 1))
    for j in range(index.shape[0]):
        i = index[j]
        _copy_game(
            i,
            0,
            True,
            tile,
            rot,
            cnt,
            need,
            pidx,
            cpos,
            cand,
            placed,
            par,
            usize,
            ucyc,
            hands,
            bag,
            legal,
            meta,
            xtile,
            xrot,
            xcnt,
            xneed,
            xpidx,
            xcpos,
            xcand,
            xplaced,
            xpar,
            xusize,
            xucyc,
            xhands,
            xbag,
            xlegal,
            xmeta,
        )
        p = xmeta[0, PLAYER]
        mover[0] = p
        left = budget
        while not xmeta[0, OVER] and xmeta[0, PLAYER] == p:
            nl = xmeta[0, NLEGAL]
            if nl == 1:
                best_a = xlegal[0, 0]
            else:
                if nl > left:
                    break
                left -= nl
                best_a = -1
                best_v = -np.inf
                for l in range(nl):
                    a = xlegal[0, l]
                    _copy_game(
                        0,
                        1,
                        False,
                        xtile,
                        xrot,
                        xcnt,
                        xneed,
                        xpidx,
                        xcpos,
                        xcand,
                        xplaced,
                        xpar,
                        xusize,
                        xucyc,
                        xhands,
                        xbag,
                        xlegal,
                        xmeta,
                        xtile,
                        xrot,
                        xcnt,
                        xneed,
                        xpidx,
                        xcpos,
                        xcand,
                        xplaced,
                        xpar,
                        xusize,
                        xucyc,
                        xhands,
                        xbag,
                        xlegal,
                        xmeta,
                    )
                    acts[1] = a
                    active[0] = False
                    active[1] = True
                    _step_kernel(
                        acts,
                        active,
                        n,
                        R,
                        S,
                        origin,
                        xtile,
                        xrot,
                        xcnt,
                        xneed,
                        xpidx,
                        xcpos,
                        xcand,
                        xplaced,
                        xpar,
                        xusize,
                        xucyc,
                        xhands,
                        xbag,
                        xlegal,
                        xmeta,
                        NB,
                        EDGE,
                        SEG,
                        EP,
                        WIDX,
                        HW,
                    )
                    _predicted_kernel(
                        slot1,
                        mover,
                        n,
                        teams,
                        colour_of,
                        xtile,
                        xcnt,
                        xneed,
                        xpidx,
                        xcand,
                        xpar,
                        xusize,
                        xucyc,
                        xhands,
                        xbag,
                        xmeta,
                        NB,
                        EP,
                        SEG,
                        addv,
                        adds,
                        fills,
                        stack,
                        stamp,
                        growth_two,
                        growth_one,
                        fit_full,
                        scale,
                        True,
                        val,
                    )
                    v = val[0, 0]
                    if v > best_v or (v == best_v and a < best_a):
                        best_v = v
                        best_a = a
            acts[0] = best_a
            active[0] = True
            active[1] = False
            _step_kernel(
                acts,
                active,
                n,
                R,
                S,
                origin,
                xtile,
                xrot,
                xcnt,
                xneed,
                xpidx,
                xcpos,
                xcand,
                xplaced,
                xpar,
                xusize,
                xucyc,
                xhands,
                xbag,
                xlegal,
                xmeta,
                NB,
                EDGE,
                SEG,
                EP,
                WIDX,
                HW,
            )
        row = out[j : j + 1]
        _predicted_kernel(
            slot0,
            seats,
            n,
            teams,
            colour_of,
            xtile,
            xcnt,
            xneed,
            xpidx,
            xcand,
            xpar,
            xusize,
            xucyc,
            xhands,
            xbag,
            xmeta,
            NB,
            EP,
            SEG,
            addv,
            adds,
            fills,
            stack,
            stamp,
            growth_two,
            growth_one,
            fit_full,
            scale,
            False,
            row,
        )


@njit(cache=True)
def _observe_kernel(
    players,
    n,
    R,
    S,
    origin,
    colour_of,
    pos,
    kind,
    tile,
    rot,
    cnt,
    pidx,
    cand,
    placed,
    par,
    usize,
    ucyc,
    hands,
    meta,
    NB,
    EDGE,
    WIDX,
    INSIDE,
    board,
    hout,
    gout,
):
    """Write every entry of board (B, H, W, 41; uninitialised on entry), hout and gout (zeroed)."""
    H = 2 * R + 1
    cs = np.zeros(5, np.int64)
    for i in range(players.shape[0]):
        v = players[i]
        b = board[i].reshape(H * H * NUM_PLANES)
        b[:] = 0.0
        npl = meta[i, NPLACED]
        last = -1
        if npl > 0:
            last = origin + placed[i, npl - 1, 1] + placed[i, npl - 1, 2] * S
        for w in range(H * H):
            if INSIDE[w // H, w % H] != 0.0:
                b[w * NUM_PLANES + 27] = 1.0
        for x in range(npl):
            w = ((placed[i, x, 2] + R) * H + placed[i, x, 1] + R) * NUM_PLANES
            c = origin + placed[i, x, 1] + placed[i, x, 2] * S
            tr = tile[i, c] * 6 + rot[i, c]
            for d in range(6):
                b[w + 4 * d + pos[v, EDGE[tr, d]]] = 1.0
            b[w + 24] = 1.0
            if c == last:
                b[w + 28] = 1.0
        for j in range(meta[i, NCAND]):
            c = cand[i, j]
            w = WIDX[c]
            if w < 0:
                continue
            w *= NUM_PLANES
            b[w + 26] = 1.0
            if cnt[i, c] >= 3:
                b[w + 25] = 1.0
            for d in range(6):
                m = c + NB[d]
                tm = tile[i, m]
                if tm == 0:
                    continue
                cl = EDGE[tm * 6 + rot[i, m], (d + 3) % 6]
                kd = kind[v, cl]
                if kd == 0:
                    continue
                root = _find(par[i, cl], pidx[i, m])
                val = usize[i, cl, root] / NUM_TILES
                if kd == 1:
                    b[w + 29 + d] = val
                else:
                    b[w + 35 + d] = val
        for s_ in range(n):
            p = (v + s_) % n
            for sl in range(6):
                t = hands[i, p, sl]
                if t > 0:
                    for d in range(6):
                        hout[i, s_, sl, 4 * d + pos[v, EDGE[t * 6, d]]] = 1.0
        g = gout[i]
        g[0] = (meta[i, BAGLEN] - meta[i, BPOS]) / NUM_TILES
        over = meta[i, OVER] != 0
        cur = meta[i, PLAYER]
        if not over:
            g[1 + meta[i, PHASE]] = 1.0
            g[8 + (cur - v) % n] = 1.0
        if meta[i, BPOS] < meta[i, BAGLEN]:
            g[4] = 1.0
        if not over and cur == v:
            g[5] = 1.0
        g[6] = npl / NUM_TILES
        if meta[i, CLIPNOW] > 0:
            g[7] = 1.0
        _colour_scores(i, par, usize, ucyc, meta, cs)
        for s_ in range(n):
            p = (v + s_) % n
            g[8 + n + s_] = cs[colour_of[p]] / (2 * NUM_TILES)


# ---------------------------------------------------------------------------- the core
class TantrixVectorCore(VectorCore):
    """``num_envs`` Tantrix games of one setting (the keyword arguments of ``raw_env`` minus
    ``max_steps`` and ``render_mode``) as numpy arrays stepped by numba kernels.

    Args:
        num_envs: ``B``, the number of games.
        num_players, teams, colors, window_radius: as :class:`envs.tantrix.env.raw_env`.

    Raises:
        ParameterError: an argument outside its domain (the reference state's checks).
    """

    backend = "numba"

    def __init__(
        self, num_envs: int, *, num_players: int = 2, teams: bool = False, colors=None, window_radius: int = 16
    ):
        probe = TantrixState(
            num_players, teams=teams, colors=colors, window_radius=window_radius, bag=list(range(1, NUM_TILES + 1))
        )
        self._probe = probe
        self.num_envs = B = int(num_envs)
        self.num_players = n = probe.num_players
        self.num_actions = probe.num_actions
        self.teams = probe.team_game
        self.R = R = probe.window_radius
        self.encoder = TantrixObservation(probe)
        self.observation_space = self.encoder.space
        g = window_geometry(R)
        self.S, self.NC, self.origin, self.HW, self.H = g.S, g.ncell, g.origin, g.HW, g.H
        self.NB = np.array(g.nb, dtype=np.int64)
        self.WIDX = np.array(g.widx, dtype=np.int32)
        self.INSIDE = g.inside.astype(np.float32)
        self.colour_of = np.array([probe.colour_of(p) for p in range(n)], dtype=np.int64)
        self.pos = np.zeros((n, 5), dtype=np.int64)
        self.kind = np.zeros((n, 5), dtype=np.int64)
        for v in range(n):
            order = self.encoder.order[v]
            for j, c0 in enumerate(order):
                self.pos[v, c0 + 1] = j
            own = probe.colour_of(v)
            for p in range(n):
                c = probe.colour_of(p)
                if c != own:
                    self.kind[v, c] = 2
            self.kind[v, own] = 1
        NC = self.NC
        self.arrays = {
            "tile": np.zeros((B, NC), np.int8),
            "rot": np.zeros((B, NC), np.int8),
            "cnt": np.zeros((B, NC), np.int8),
            "need": np.zeros((B, NC), np.int32),
            "pidx": np.full((B, NC), -1, np.int8),
            "cpos": np.full((B, NC), -1, np.int16),
            "cand": np.zeros((B, MAXCAND), np.int16),
            "placed": np.zeros((B, NUM_TILES, 4), np.int8),
            "par": np.zeros((B, 5, NUM_TILES), np.int8),
            "usize": np.zeros((B, 5, NUM_TILES), np.int8),
            "ucyc": np.zeros((B, 5, NUM_TILES), np.bool_),
            "hands": np.full((B, 4, 6), -1, np.int8),
            "bag": np.zeros((B, NUM_TILES), np.int8),
            "legal": np.zeros((B, MAXLEGAL), np.int32),
            "meta": np.zeros((B, NMETA), np.int32),
        }
        self.arrays["meta"][:, OVER] = 1  # no game yet

    def _a(self):
        a = self.arrays
        return tuple(a[k] for k in _ARRAY_ORDER)

    # ------------------------------------------------------------------ games
    def reset_games(self, index, rngs) -> None:
        index = np.asarray(index, dtype=np.int64)
        bags = np.empty((index.size, NUM_TILES), dtype=np.int8)
        for j, rng in enumerate(rngs):
            bags[j] = rng.permutation(NUM_TILES) + 1
        tile, rot, cnt, need, pidx, cpos, cand, placed, par, usize, ucyc, hands, bag, legal, meta = self._a()
        _reset_kernel(
            index,
            bags,
            self.num_players,
            self.origin,
            tile,
            rot,
            cnt,
            need,
            pidx,
            cpos,
            cand,
            placed,
            par,
            usize,
            ucyc,
            hands,
            bag,
            legal,
            meta,
            self.NB,
            _EDGE,
            _EP,
            self.WIDX,
            self.HW,
        )

    def step(self, actions, active) -> None:
        tile, rot, cnt, need, pidx, cpos, cand, placed, par, usize, ucyc, hands, bag, legal, meta = self._a()
        _step_kernel(
            np.asarray(actions, dtype=np.int64),
            np.asarray(active, dtype=np.bool_),
            self.num_players,
            self.R,
            self.S,
            self.origin,
            tile,
            rot,
            cnt,
            need,
            pidx,
            cpos,
            cand,
            placed,
            par,
            usize,
            ucyc,
            hands,
            bag,
            legal,
            meta,
            self.NB,
            _EDGE,
            _SEG,
            _EP,
            self.WIDX,
            self.HW,
        )

    def current_player(self) -> np.ndarray:
        m = self.arrays["meta"]
        return np.where(m[:, OVER] != 0, -1, m[:, PLAYER]).astype(np.int32)

    def legal_action_mask(self) -> np.ndarray:
        out = np.zeros((self.num_envs, self.num_actions), dtype=np.bool_)
        _mask_kernel(self.arrays["legal"], self.arrays["meta"], out)
        return out

    def terminated(self) -> np.ndarray:
        return self.arrays["meta"][:, OVER] != 0

    def returns(self) -> np.ndarray:
        out = np.zeros((self.num_envs, self.num_players), dtype=np.float32)
        a = self.arrays
        _returns_kernel(self.num_players, self.teams, self.colour_of, a["par"], a["usize"], a["ucyc"], a["meta"], out)
        return out

    def heuristic_values(self, index, seats, evaluator="evaluate") -> np.ndarray:
        """:meth:`VectorCore.heuristic_values`, ``float64 (k, s)``, numba passes over the games'
        tables for Tantrix's three evaluations: ``"evaluate"``, ``tanh(score gap / VALUE_SCALE)``
        of :mod:`envs.tantrix.heuristics`; ``"predicted"``, ``tanh(robot_value / VALUE_SCALE)``
        of :func:`envs.tantrix.robot.robot_value` (the robot's predicted final score gap: every
        line's ends, the spaces they face and the tiles still to be placed, the bag as a set); and
        ``"predicted_turn"``, ``tanh(turn_end_value / VALUE_SCALE)`` of
        :func:`envs.tantrix.robot.turn_end_value` (the same after the player to move plays out its
        turn by the robot's one-placement choices, drawing from the game's own bag: the search
        calls it on determinizations; the games themselves are not changed). The same values as
        the reference states' to rounding (tests/envs/test_tantrix_vector.py).
        Any other name goes to the default (the reference states), which raises for a name the
        game does not declare.

        Raises:
            ValueError: ``evaluator`` is not one of the game's evaluations.
        """
        if evaluator not in ("evaluate", "predicted", "predicted_turn"):
            return super().heuristic_values(index, seats, evaluator)
        index = np.asarray(index, dtype=np.int64)
        seats = np.asarray(seats, dtype=np.int64)
        out = np.zeros((index.size, seats.size), dtype=np.float64)
        a = self.arrays
        if evaluator == "evaluate":
            _score_gap_kernel(
                index,
                seats,
                self.num_players,
                self.teams,
                self.colour_of,
                a["par"],
                a["usize"],
                a["ucyc"],
                a["meta"],
                float(VALUE_SCALE),
                out,
            )
            return out
        if evaluator == "predicted_turn":
            x = {k: np.empty((2, *v.shape[1:]), v.dtype) for k, v in a.items()}
            _turn_end_kernel(  # type: ignore[call-arg]  # mypy counts a numba dispatcher's starred arguments wrong
                index,
                seats,
                self.num_players,
                self.R,
                self.S,
                self.origin,
                self.teams,
                self.colour_of,
                *self._a(),
                *(x[k] for k in _ARRAY_ORDER),
                self.NB,
                _EDGE,
                _SEG,
                _EP,
                self.WIDX,
                self.HW,
                float(GROWTH_TWO),
                float(GROWTH_ONE),
                float(FIT_FULL),
                float(VALUE_SCALE),
                int(TURN_BUDGET),
                out,
            )
            return out
        addv, adds, fills, stack, stamp = _scratch(self.NC)
        _predicted_kernel(
            index,
            seats,
            self.num_players,
            self.teams,
            self.colour_of,
            a["tile"],
            a["cnt"],
            a["need"],
            a["pidx"],
            a["cand"],
            a["par"],
            a["usize"],
            a["ucyc"],
            a["hands"],
            a["bag"],
            a["meta"],
            self.NB,
            _EP,
            _SEG,
            addv,
            adds,
            fills,
            stack,
            stamp,
            float(GROWTH_TWO),
            float(GROWTH_ONE),
            float(FIT_FULL),
            float(VALUE_SCALE),
            False,
            out,
        )
        return out

    def observe(self, players):
        """``{"board": float32 (B, H, W, 41), "hands": float32 (B, n, 6, 24), "globals": float32 (B, 8 + 2n)}``
        for seat ``players[i]`` of game ``i`` (``int (B,)``)."""
        B, n, H = self.num_envs, self.num_players, self.H
        board = np.empty((B, H, H, NUM_PLANES), np.float32)  # every entry written by the kernel
        hout = np.zeros((B, n, 6, 24), np.float32)
        gout = np.zeros((B, 8 + 2 * n), np.float32)
        a = self.arrays
        _observe_kernel(
            np.asarray(players, dtype=np.int64),
            n,
            self.R,
            self.S,
            self.origin,
            self.colour_of,
            self.pos,
            self.kind,
            a["tile"],
            a["rot"],
            a["cnt"],
            a["pidx"],
            a["cand"],
            a["placed"],
            a["par"],
            a["usize"],
            a["ucyc"],
            a["hands"],
            a["meta"],
            self.NB,
            _EDGE,
            self.WIDX,
            self.INSIDE,
            board,
            hout,
            gout,
        )
        return {"board": board, "hands": hout, "globals": gout}

    # ------------------------------------------------------------------ the reference
    def to_state(self, i: int) -> TantrixState:
        a = self.arrays
        i = int(i)
        m = a["meta"][i].tolist()
        st = TantrixState.__new__(TantrixState)
        st._setup(self.num_players, self.teams, None, self.R)
        st._colour_of_team = self._probe._colour_of_team
        npl = m[NPLACED]
        st._tile = a["tile"][i].astype(np.int64).tolist()
        st._rot = a["rot"][i].astype(np.int64).tolist()
        st._cnt = a["cnt"][i].astype(np.int64).tolist()
        st._need = a["need"][i].astype(np.int64).tolist()
        st._pidx = a["pidx"][i].astype(np.int64).tolist()
        cand = a["cand"][i, : m[NCAND]].astype(np.int64).tolist()
        cnt = a["cnt"][i]
        st._cand = set(cand)
        st._forced = {c for c in cand if cnt[c] >= 3}
        placed = a["placed"][i, :npl].astype(np.int64)
        st._placed = [tuple(x) for x in placed.tolist()]
        g = st._g
        st._cells = (g.origin + placed[:, 1] + placed[:, 2] * g.S).tolist()
        st._uf = [[]] + [a["par"][i, c, :npl].astype(np.int64).tolist() for c in range(1, 5)]
        st._usize = [[]] + [a["usize"][i, c, :npl].astype(np.int64).tolist() for c in range(1, 5)]
        st._ucyc = [[]] + [a["ucyc"][i, c, :npl].tolist() for c in range(1, 5)]
        st._hands = a["hands"][i, : self.num_players].astype(np.int64).tolist()
        bag = a["bag"][i, : m[BAGLEN]].astype(np.int64).tolist()
        st._bag = bag
        st.initial_bag = list(bag)
        st._bpos = m[BPOS]
        st._total = m[TOTAL]
        st._player = m[PLAYER]
        st._phase = m[PHASE]
        st._over = bool(m[OVER])
        st._deadlock = bool(m[DEADLOCK])
        st._skips = m[SKIPS]
        st.clipped_placements = m[CLIPCOUNT]
        st.clipped_now = m[CLIPNOW]
        legal = sorted(a["legal"][i, : m[NLEGAL]].astype(np.int64).tolist())
        st._legal, st._legal_set = legal, frozenset(legal)
        st._mask = None
        st._scores = None
        st.history = []
        return st

    def set_states(self, index, states) -> None:
        index = np.asarray(index, dtype=np.int64)
        p = self._probe
        tile, rot, cnt, need, pidx, cpos, cand, placed, par, usize, ucyc, hands, bag, legal, meta = self._a()
        for i, s in zip(index.tolist(), states):
            if not isinstance(s, TantrixState):
                raise ParameterError(f"a state of {type(s).__name__} cannot join a batch of Tantrix games")
            if (s.num_players, s.team_game, tuple(s._colour_of_team), s.window_radius) != (
                p.num_players,
                p.team_game,
                tuple(p._colour_of_team),
                p.window_radius,
            ):
                raise ParameterError(
                    f"this batch plays Tantrix with num_players={p.num_players}, teams={p.team_game}, "
                    f"colors={p.colors}, window_radius={p.window_radius}; the state has "
                    f"num_players={s.num_players}, teams={s.team_game}, colors={s.colors}, "
                    f"window_radius={s.window_radius}"
                )
            m = meta[i]
            m[:] = 0
            m[PLAYER], m[PHASE], m[OVER], m[DEADLOCK], m[SKIPS] = s._player, s._phase, s._over, s._deadlock, s._skips
            m[BPOS], m[BAGLEN], m[TOTAL] = s._bpos, len(s._bag), s._total
            m[CLIPNOW], m[CLIPCOUNT] = s.clipped_now, s.clipped_placements
            hands[i] = -1
            hands[i, : s.num_players] = np.array(s._hands, dtype=np.int8)
            bag[i] = 0
            bag[i, : len(s._bag)] = np.array(s._bag, dtype=np.int8)
            tiles = np.array(s._placed, dtype=np.int64).reshape(-1, 4)
            _load_kernel(
                i,
                tiles,
                self.num_players,
                self.origin,
                self.S,
                tile,
                rot,
                cnt,
                need,
                pidx,
                cpos,
                cand,
                placed,
                par,
                usize,
                ucyc,
                hands,
                legal,
                meta,
                self.NB,
                _EDGE,
                _SEG,
                _EP,
                self.WIDX,
                self.HW,
            )


def vector_core(num_envs: int, **kwargs) -> TantrixVectorCore:
    """The batched core of ``tantrix_v0`` (every setting is covered).

    Raises:
        ParameterError: a bad argument (as the raw environment).
    """
    return TantrixVectorCore(num_envs, **kwargs)
