"""TwixT and Double TwixT batched core (``envs.make_vec("twixt_v0" | "double_twixt_v0", B)``).

:class:`TwixtVectorCore` implements :class:`envs.core.vector.VectorCore` with numba kernels over
the batch: the rules of :class:`envs.twixt.state.TwixtState` (the specification, unchanged) and
the observation of :class:`envs.twixt.observation.TwixtObservation`, bit for bit, in every seat's
frame (black's board, actions and mask transposed).

Covered: board sizes 5 to 48, ``rules="standard"`` and ``"pp"``, ``swap`` (the transposing pie
rule), ``draw="early"`` (the reachability test of the rules after every move, both colours) and
``"board_full"``, Double TwixT (4 seats, two teams, the place-and-claim-Privilege actions) and
``distance_planes=True`` (27 planes). **Not covered: the box rules** (``links="manual"``):
:func:`vector_core` refuses them with a ``ParameterError`` naming ``backend='reference'``, which
runs them (one rules state per game, through the same vector API).

Per-board-size tables (:func:`tables`, cached per size, shared by every batch of that size):
knight neighbours and link ids per hole and direction, each link's crossing links (from
:func:`envs.twixt.geometry.geometry`, exact segment geometry), legal areas, border nodes, the
transposition, the observation's link lookup per view, and the early-draw witnesses of the empty
board.

Per-game arrays (:attr:`TwixtVectorCore.arrays`, leading axis ``B``; ``N = S*S`` holes, ``L``
links, :func:`envs.twixt.geometry.geometry`'s link ids; everything in the absolute board frame):

==========  =========  ================  ====================================================
name        dtype      shape             meaning
==========  =========  ================  ====================================================
pegs        uint8      (B, N)            0 empty, 1 red, 2 black
lc          uint8      (B, L + 1)        link colour + 1 per link id (0 none; entry L: always 0)
blk         uint8      (B, 2, L + 1)     per colour: the links crossing each link that block
                                         that colour (standard: any link; pp: the opponent's)
uf          int16      (B, N + 4)        union-find over holes and the 4 border nodes
player      int32      (B,)              seat to move, -1 once over
ply         int32      (B,)              plies played (a swap counts)
status      int8       (B,)              0 on, 1 red won, 2 black won, 3 draw
priv        bool       (B, 2)            Privilege claimed, per team (= colour)
navail      int32      (B, 2)            empty legal holes per colour
can         bool       (B, 2)            the colour can still connect (early draw; exact when
                                         ``wbad`` is false, else "not known impossible")
wbad        bool       (B, 2)            the colour's witness path is stale (searched lazily)
wh          uint8      (B, 2, N)         the witness path's holes per colour (early draw)
wl          uint8      (B, 2, L + 1)     the witness path's links per colour (early draw)
hist        int16      (B, N + 2)        the actions played (state frame), ``ply`` of them
hist_ok     bool       (B,)              ``hist`` is the game's history (false after loading a
                                         state whose history does not match its ply count)
==========  =========  ================  ====================================================

With ``draw="board_full"`` the last dimension of ``wh`` and ``wl`` is 0 (no witnesses).

The early draw is the reference's: a witness path per colour (a shortest knight path between
its borders, found by breadth-first search) is kept; a move invalidates it only when it puts an
opponent peg on it or adds a link crossing one of its steps that blocks the colour; the search
runs again only then, and only when the draw test needs that colour (monotone: a colour that
cannot connect never can again).

Speed (random play, ``benchmarks/bench_vector.py``, autoreset ``next_step``, observation and
mask every step): see the table in the report; figures here are as measured on a 2-core machine
shared with other jobs:

TwixT 11x11 (``--games twixt11 --pgx``), load average 3.4-4.0 on 2 cores:

=====  ============  ========  ================  ===========
B      steps/s       x AEC     Pgx Hex 11x11     ours / Pgx
=====  ============  ========  ================  ===========
1      24,397        0.8x      3,274             7.45x
64     326,866       10.3x     67,300            4.86x
1024   211,850       6.7x      135,589           1.56x
4096   173,798       5.5x      128,918           1.35x
=====  ============  ========  ================  ===========

(AEC env 31,636 steps/s in that run.) At B >= 1024 the observation (23 float32 planes, 11 KB
a game, a fresh array each step) is bound by memory bandwidth; at B = 1 the per-call overhead
(the generic layer and numba's argument unboxing) dominates.

Compile time: the kernels are ``@njit(cache=True)``; a cold cache compiles them in about
12.5 s on the first use, a warm cache loads them in about 0.4-0.6 s.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

import numpy as np
from numba import njit

from envs.core.checks import require_bool
from envs.core.errors import ParameterError
from envs.core.state import GameState
from envs.core.vector import VectorCore
from envs.twixt.geometry import KNIGHT_DIRS, geometry
from envs.twixt.observation import TwixtObservation
from envs.twixt.state import TwixtState

__all__ = ["TwixtVectorCore", "vector_core", "double_vector_core", "tables"]

_UNREACHABLE = 10_000
# Direction d seen transposed (rows and columns exchanged) is direction _TDIR[d].
_TDIR = tuple(KNIGHT_DIRS.index((dc, dr)) for dr, dc in KNIGHT_DIRS)


# ---------------------------------------------------------------------------- kernels
@njit(cache=True)
def _find(uf, x):
    while uf[x] != x:
        uf[x] = uf[uf[x]]
        x = uf[x]
    return x


@njit(cache=True)
def _witness(i, c, pegs, blk, wh, wl, can, wbad, nbr, lid_dp, legal, src, dst, parent, plid, queue):
    """Breadth-first search for a knight path of colour ``c`` between its borders in game ``i``;
    stores it as the witness (holes ``wh[i, c]``, links ``wl[i, c]``) or clears ``can[i, c]``."""
    n = pegs.shape[1]
    opp = 2 - c
    wh[i, c, :] = 0
    wl[i, c, :] = 0
    wbad[i, c] = False
    for h in range(n):
        parent[h] = -2
    tail = 0
    for j in range(src.shape[1]):
        h = src[c, j]
        if legal[c, h] and pegs[i, h] != opp:
            parent[h] = -1
            queue[tail] = h
            tail += 1
    head = 0
    found = -1
    while head < tail and found < 0:
        p = queue[head]
        head += 1
        for d in range(8):
            q = nbr[d, p]
            if q < 0 or parent[q] != -2:
                continue
            lid = lid_dp[d, p]
            if blk[i, c, lid] != 0 or not legal[c, q] or pegs[i, q] == opp:
                continue
            parent[q] = p
            plid[q] = lid
            if dst[c, q]:
                found = q
                break
            queue[tail] = q
            tail += 1
    if found < 0:
        can[i, c] = False
        return
    h = found
    while True:
        wh[i, c, h] = 1
        if parent[h] == -1:
            break
        wl[i, c, plid[h]] = 1
        h = parent[h]


@njit(cache=True)
def _connectable(i, c, pegs, blk, wh, wl, can, wbad, nbr, lid_dp, legal, src, dst, parent, plid, queue):
    if can[i, c] and wbad[i, c]:
        _witness(i, c, pegs, blk, wh, wl, can, wbad, nbr, lid_dp, legal, src, dst, parent, plid, queue)
    return can[i, c]


@njit(cache=True)
def _check_draw(
    i, early, pegs, blk, wh, wl, can, wbad, navail, player, status, nbr, lid_dp, legal, src, dst, parent, plid, queue
):
    """After a move that did not win: the early-draw test, then "no legal hole to move to"."""
    if early:
        first = 0 if (can[i, 0] and not wbad[i, 0]) else 1  # a still-valid witness first
        if not _connectable(
            i, first, pegs, blk, wh, wl, can, wbad, nbr, lid_dp, legal, src, dst, parent, plid, queue
        ) and not _connectable(
            i, 1 - first, pegs, blk, wh, wl, can, wbad, nbr, lid_dp, legal, src, dst, parent, plid, queue
        ):
            status[i] = 3
            player[i] = -1
            return
    if navail[i, player[i] & 1] == 0:
        status[i] = 3
        player[i] = -1


@njit(cache=True)
def _step(
    actions,
    active,
    pegs,
    lc,
    blk,
    uf,
    player,
    ply,
    status,
    priv,
    navail,
    can,
    wbad,
    wh,
    wl,
    hist,
    nbr,
    lid_dp,
    cross,
    cross_n,
    legal,
    bnode,
    src,
    dst,
    tr,
    s,
    std,
    early,
    four,
):
    n = s * s
    parent = np.empty(n, np.int32)
    plid = np.empty(n, np.int32)
    queue = np.empty(n, np.int32)
    for i in range(actions.shape[0]):
        if not active[i]:
            continue
        pl = player[i]
        c = pl & 1
        a = actions[i]
        claim = False
        if a > n:  # Double TwixT: place and claim the Privilege
            a -= n + 1
            claim = True
        if c == 1 and a < n:
            a = tr[a]
        hist[i, ply[i]] = a + (n + 1 if claim else 0)
        if a == n:  # the swap (two players, ply 1)
            first = 0
            for h in range(n):
                if pegs[i, h] == 1:
                    first = h
                    break
            t = tr[first]
            pegs[i, first] = 0
            for col in range(2):
                navail[i, col] += legal[col, first]
            pegs[i, t] = 2
            for col in range(2):
                navail[i, col] -= legal[col, t]
            for h in range(n + 4):
                uf[i, h] = h
            if bnode[1, t] >= 0:
                uf[i, t] = bnode[1, t]
            ply[i] += 1
            player[i] = 0
            if early:
                for col in range(2):
                    can[i, col] = True
                    wbad[i, col] = True
            _check_draw(
                i,
                early,
                pegs,
                blk,
                wh,
                wl,
                can,
                wbad,
                navail,
                player,
                status,
                nbr,
                lid_dp,
                legal,
                src,
                dst,
                parent,
                plid,
                queue,
            )
            continue
        p = a
        cc = c + 1
        o = 1 - c
        pegs[i, p] = cc
        navail[i, 0] -= legal[0, p]
        navail[i, 1] -= legal[1, p]
        ufi = uf[i]
        bn = bnode[c, p]
        if bn >= 0:
            ufi[p] = _find(ufi, bn)
        if early and can[i, o] and not wbad[i, o] and wh[i, o, p]:
            wbad[i, o] = True
        for d in range(8):
            q = nbr[d, p]
            if q < 0 or pegs[i, q] != cc:
                continue
            lid = lid_dp[d, p]
            if blk[i, c, lid] != 0:
                continue
            lc[i, lid] = cc
            m = cross_n[lid]
            for k in range(m):
                x = cross[lid, k]
                blk[i, o, x] += 1
                if std:
                    blk[i, c, x] += 1
            ra = _find(ufi, p)
            rb = _find(ufi, q)
            if ra != rb:
                ufi[ra] = rb
            if early:
                if can[i, o] and not wbad[i, o]:
                    for k in range(m):
                        if wl[i, o, cross[lid, k]]:
                            wbad[i, o] = True
                            break
                if std and can[i, c] and not wbad[i, c]:
                    for k in range(m):
                        if wl[i, c, cross[lid, k]]:
                            wbad[i, c] = True
                            break
        ply[i] += 1
        if claim:
            priv[i, c] = True
        if _find(ufi, n + 2 * c) == _find(ufi, n + 2 * c + 1):
            status[i] = 1 + c
            player[i] = -1
            continue
        if four:
            player[i] = (pl + 2) % 4 if claim else (pl + 1) % 4
        else:
            player[i] = 1 - pl
        _check_draw(
            i,
            early,
            pegs,
            blk,
            wh,
            wl,
            can,
            wbad,
            navail,
            player,
            status,
            nbr,
            lid_dp,
            legal,
            src,
            dst,
            parent,
            plid,
            queue,
        )


@njit(cache=True)
def _mask(pegs, player, ply, priv, legal, tr, out, swap, four):
    n = pegs.shape[1]
    for i in range(pegs.shape[0]):
        row = out[i]
        row[:] = False
        pl = player[i]
        if pl < 0:
            continue
        c = pl & 1
        if c == 0:
            for j in range(n):
                row[j] = pegs[i, j] == 0 and legal[0, j] != 0
        else:
            for j in range(n):
                h = tr[j]
                row[j] = pegs[i, h] == 0 and legal[1, h] != 0
        if four:
            if not priv[i, c]:
                for j in range(n):
                    row[n + 1 + j] = row[j]
        elif swap and ply[i] == 1:
            row[n] = True


@njit(cache=True)
def _distances(i, c, pegs, blk, nbr, lid_dp, legal, start, dist, queue):
    """0-1 breadth-first search of ``heuristics.distance_maps``: ``dist[h]`` = the fewest empty
    holes on a path of colour ``c`` from the holes ``start`` to ``h``, ``h`` included (own pegs
    free); ``_UNREACHABLE`` where none."""
    n = pegs.shape[1]
    own = c + 1
    for h in range(n):
        dist[h] = 10000
    tail = 0
    for j in range(start.shape[0]):
        h = start[j]
        if legal[c, h] and pegs[i, h] == own and dist[h] == 10000:
            dist[h] = 0
            queue[tail] = h
            tail += 1
    head = 0
    while head < tail:  # own pegs joined to them through own pegs (cost 0)
        p = queue[head]
        head += 1
        for d in range(8):
            q = nbr[d, p]
            if q >= 0 and dist[q] == 10000 and pegs[i, q] == own and blk[i, c, lid_dp[d, p]] == 0:
                dist[q] = 0
                queue[tail] = q
                tail += 1
    lo = 0
    hi = tail
    k = 0
    while True:
        k += 1
        first_new = tail
        if k == 1:
            for j in range(start.shape[0]):
                h = start[j]
                if legal[c, h] and pegs[i, h] == 0 and dist[h] == 10000:
                    dist[h] = 1
                    queue[tail] = h
                    tail += 1
        for idx in range(lo, hi):
            p = queue[idx]
            for d in range(8):
                q = nbr[d, p]
                if q >= 0 and dist[q] == 10000 and pegs[i, q] == 0 and legal[c, q] and blk[i, c, lid_dp[d, p]] == 0:
                    dist[q] = k
                    queue[tail] = q
                    tail += 1
        if tail == first_new:
            break
        head = first_new
        while head < tail:  # the level's closure through own pegs
            p = queue[head]
            head += 1
            for d in range(8):
                q = nbr[d, p]
                if q >= 0 and dist[q] == 10000 and pegs[i, q] == own and blk[i, c, lid_dp[d, p]] == 0:
                    dist[q] = k
                    queue[tail] = q
                    tail += 1
        lo = first_new
        hi = tail


@njit(cache=True)
def _observe(
    viewers,
    pegs,
    lc,
    blk,
    player,
    ply,
    status,
    priv,
    link_cells,
    area,
    tr,
    nbr,
    lid_dp,
    legal,
    src,
    dst,
    out,
    s,
    swap,
    four,
    dplanes,
):
    n = s * s
    nl = link_cells.shape[1]
    dist = np.empty(n, np.int32)
    queue = np.empty(n, np.int32)
    scale = 2.0 * s
    cap = 2 * s - 1
    for i in range(pegs.shape[0]):
        v = viewers[i]
        vc = v & 1
        own = vc + 1
        pl = player[i]
        sw = np.float32(1.0 if (swap and ply[i] == 1 and pl == 1) else 0.0)
        on = status[i] == 0
        pa = np.float32(1.0 if (four and on and not priv[i, vc]) else 0.0)
        pb = np.float32(1.0 if (four and on and not priv[i, 1 - vc]) else 0.0)
        turn = np.float32(1.0 if pl == v else 0.0)
        oi = out[i]
        lci = lc[i]
        oi[:, :] = 0.0
        for j in range(n):
            cell = oi[j]
            cell[18] = area[j]
            cell[19] = sw
            cell[20] = pa
            cell[21] = pb
            cell[22] = turn
        for h in range(n):
            pg = pegs[i, h]
            if pg != 0:
                oi[h if vc == 0 else tr[h], 0 if pg == own else 1] = 1.0
        lcv = link_cells[vc]
        for lid in range(nl):
            x = lci[lid]
            if x != 0:
                k = 2 if x == own else 10
                oi[lcv[lid, 0], k + lcv[lid, 1]] = 1.0
                oi[lcv[lid, 2], k + lcv[lid, 3]] = 1.0
        if dplanes:
            for ci in range(2):
                col = vc if ci == 0 else 1 - vc
                for side in range(2):
                    start = src[col] if side == 0 else dst[col]
                    _distances(i, col, pegs, blk, nbr, lid_dp, legal, start, dist, queue)
                    k = 23 + 2 * ci + side
                    for j in range(n):
                        h = j if vc == 0 else tr[j]
                        dd = dist[h]
                        if dd >= 10000:
                            oi[j, k] = np.float32(1.0)
                        else:
                            oi[j, k] = np.float32(min(dd, cap) / scale)


@njit(cache=True)
def _reset(
    index,
    pegs,
    lc,
    blk,
    uf,
    player,
    ply,
    status,
    priv,
    navail,
    can,
    wbad,
    wh,
    wl,
    hist,
    hist_ok,
    legal_count,
    wh0,
    wl0,
    early,
):
    for j in range(index.shape[0]):
        i = index[j]
        pegs[i, :] = 0
        lc[i, :] = 0
        blk[i, :, :] = 0
        for h in range(uf.shape[1]):
            uf[i, h] = h
        player[i] = 0
        ply[i] = 0
        status[i] = 0
        priv[i, 0] = False
        priv[i, 1] = False
        navail[i, 0] = legal_count[0]
        navail[i, 1] = legal_count[1]
        hist_ok[i] = True
        if early:
            for c in range(2):
                can[i, c] = True
                wbad[i, c] = False
            wh[i, :, :] = wh0
            wl[i, :, :] = wl0


@njit(cache=True)
def _derive(
    index,
    pegs,
    lc,
    blk,
    uf,
    navail,
    can,
    wbad,
    wh,
    wl,
    cross,
    cross_n,
    link_ends,
    legal,
    bnode,
    std,
    early,
    nbr,
    lid_dp,
    src,
    dst,
):
    """Rebuild the derived arrays (blocking counts, union-find, free holes, witnesses) of games
    ``index`` from their pegs and links (after loading reference states)."""
    n = pegs.shape[1]
    nl = cross.shape[0]
    parent = np.empty(n, np.int32)
    plid = np.empty(n, np.int32)
    queue = np.empty(n, np.int32)
    for j in range(index.shape[0]):
        i = index[j]
        blk[i, :, :] = 0
        ufi = uf[i]
        for h in range(uf.shape[1]):
            ufi[h] = h
        navail[i, 0] = 0
        navail[i, 1] = 0
        for h in range(n):
            v = pegs[i, h]
            if v == 0:
                navail[i, 0] += legal[0, h]
                navail[i, 1] += legal[1, h]
            else:
                bn = bnode[v - 1, h]
                if bn >= 0:
                    ufi[h] = _find(ufi, bn)
        for lid in range(nl):
            v = lc[i, lid]
            if v == 0:
                continue
            c = v - 1
            for k in range(cross_n[lid]):
                x = cross[lid, k]
                blk[i, 1 - c, x] += 1
                if std:
                    blk[i, c, x] += 1
            ra = _find(ufi, link_ends[lid, 0])
            rb = _find(ufi, link_ends[lid, 1])
            if ra != rb:
                ufi[ra] = rb
        if early:
            for c in range(2):
                can[i, c] = True
                _witness(i, c, pegs, blk, wh, wl, can, wbad, nbr, lid_dp, legal, src, dst, parent, plid, queue)


@njit(cache=True)
def _link_order(hist, ply, pegs, lc, nbr, lid_dp, tr):
    """The links of a game in the order the reference made them, from its history."""
    n = pegs.shape[0]
    at = np.full(n, -1, np.int64)  # the ply at which each hole's peg was placed
    for m in range(ply):
        a = hist[m]
        if a == n:  # swap: the first peg leaves, a black peg on the transposed hole
            for h in range(n):
                if at[h] == 0:
                    at[h] = -1
            at[tr[hist[0]]] = m
        else:
            at[a - n - 1 if a > n else a] = m
    order = np.empty(lc.shape[0], np.int64)
    k = 0
    for m in range(ply):
        a = hist[m]
        p = tr[hist[0]] if a == n else (a - n - 1 if a > n else a)
        if at[p] != m:
            continue
        for d in range(8):
            q = nbr[d, p]
            if q >= 0 and 0 <= at[q] < m and lc[lid_dp[d, p]] != 0:
                order[k] = lid_dp[d, p]
                k += 1
    return order[:k]


# ---------------------------------------------------------------------------- tables
class _Tables:
    """Per-board-size numpy tables of the kernels (read-only, shared by every batch of a size)."""

    def __init__(self, s: int):
        g = geometry(s)
        n, nl = s * s, g.num_links
        self.s, self.n, self.nl = s, n, nl
        self.lid_dp = np.ascontiguousarray(g.lid_dp, dtype=np.int32)  # (8, N), nl where no link
        nbr = np.full((8, n), -1, dtype=np.int32)
        for p in range(n):
            for q, lid in g.adj[p]:
                d = int(np.flatnonzero(g.lid_dp[:, p] == lid)[0])
                nbr[d, p] = q
        self.nbr = nbr
        width = max(len(x) for x in g.cross)
        cross = np.full((nl, width), nl, dtype=np.int32)
        cross_n = np.zeros(nl, dtype=np.int32)
        for lid, xs in enumerate(g.cross):
            cross[lid, : len(xs)] = xs
            cross_n[lid] = len(xs)
        self.cross, self.cross_n = cross, cross_n
        self.link_ends = np.array(g.link_ends, dtype=np.int32).reshape(-1, 2)
        self.legal = np.array([np.frombuffer(g.legal[c], dtype=np.uint8) for c in (0, 1)], dtype=np.uint8)
        self.legal_count = np.array(g.legal_count, dtype=np.int32)
        self.bnode = np.array(g.border_node, dtype=np.int32)
        inner = np.arange(1, s - 1)
        self.src = np.array([inner, inner * s], dtype=np.int32)  # red row 1, black column a
        self.dst_list = np.array([(s - 1) * s + inner, inner * s + s - 1], dtype=np.int32)
        dst = np.zeros((2, n), dtype=np.uint8)
        dst[0, self.dst_list[0]] = 1
        dst[1, self.dst_list[1]] = 1
        self.dst = dst
        self.tr = np.arange(n, dtype=np.int32).reshape(s, s).T.ravel().copy()
        # obs_lid[view, j, d]: the link id seen at the view's cell j along its direction d.
        obs_lid = np.empty((2, n, 8), dtype=np.int32)
        obs_lid[0] = self.lid_dp.T
        tdir = np.array(_TDIR)
        obs_lid[1] = self.lid_dp[tdir][:, self.tr].T
        self.obs_lid = obs_lid
        # link_cells[view, lid]: the view's cell and direction of each end of link lid
        # (jp, dp, jq, dq), so the observation writes only the links there are.
        link_cells = np.zeros((2, nl, 4), dtype=np.int32)
        seen = np.zeros((2, nl), dtype=np.int32)
        for v in range(2):
            for j in range(n):
                for d in range(8):
                    lid = obs_lid[v, j, d]
                    if lid < nl:
                        link_cells[v, lid, 2 * seen[v, lid] : 2 * seen[v, lid] + 2] = (j, d)
                        seen[v, lid] += 1
        assert (seen == 2).all()
        self.link_cells = link_cells
        area = np.ones((s, s), dtype=np.float32)
        area[:, 0] = area[:, s - 1] = 0
        self.area = area.ravel()
        # The early-draw witnesses of the empty board.
        one = np.zeros((1, n), np.uint8)
        blk = np.zeros((1, 2, nl + 1), np.uint8)
        wh = np.zeros((1, 2, n), np.uint8)
        wl = np.zeros((1, 2, nl + 1), np.uint8)
        can = np.ones((1, 2), bool)
        wbad = np.ones((1, 2), bool)
        scratch = [np.empty(n, np.int32) for _ in range(3)]
        for c in (0, 1):
            _witness(0, c, one, blk, wh, wl, can, wbad, self.nbr, self.lid_dp, self.legal, self.src, self.dst, *scratch)
        assert can.all()
        self.wh0, self.wl0 = wh[0], wl[0]
        for v in vars(self).values():
            if isinstance(v, np.ndarray):
                v.flags.writeable = False


@cache
def tables(board_size: int) -> _Tables:
    """The kernels' tables of a board size (built once per size, then cached)."""
    return _Tables(int(board_size))


# ---------------------------------------------------------------------------- the core
class TwixtVectorCore(VectorCore):
    """``num_envs`` TwixT (or Double TwixT) games of one setting, stepped by numba kernels.

    Args:
        num_envs: the number of games ``B``.
        board_size, rules, swap, draw, num_players, distance_planes: as
            :class:`envs.twixt.env.raw_env` (``links`` must be ``"auto"``).

    Raises:
        ParameterError: a bad argument (the rules state's checks), or ``links="manual"`` (not
            covered: the message names ``backend='reference'``).
    """

    backend = "numba"

    def __init__(
        self,
        num_envs: int,
        board_size: int = 24,
        rules: str = "standard",
        swap: bool = False,
        draw: str = "early",
        num_players: int = 2,
        distance_planes: bool = False,
        links: str = "auto",
    ):
        if links == "manual":
            raise ParameterError(
                "the batched TwixT core does not cover the box rules (links='manual'); "
                "use backend='reference' (one rules state per game, same API)"
            )
        require_bool("distance_planes", distance_planes)
        probe = TwixtState(board_size, rules=rules, swap=swap, draw=draw, num_players=num_players, links=links)
        self._settings = (probe.board_size, probe.num_players, probe.rules, probe.swap, probe.draw, probe.linking)
        self._kwargs = dict(
            board_size=probe.board_size,
            rules=rules,
            swap=bool(swap),
            draw=draw,
            num_players=probe.num_players,
            links=links,
        )
        self.num_envs = int(num_envs)
        self.num_players = probe.num_players
        self.num_actions = probe.num_actions
        self.distance_planes = bool(distance_planes)
        self.encoder = TwixtObservation(probe, distance_planes=self.distance_planes)
        self.observation_space = self.encoder.space
        self.board_size = s = probe.board_size
        self.t = t = tables(s)
        self._std = rules == "standard"
        self._early = draw == "early"
        self._four = probe.num_players == 4
        self._swap = bool(swap)
        B, n, nl = self.num_envs, t.n, t.nl
        w = n if self._early else 0
        wlw = nl + 1 if self._early else 0
        self.arrays = {
            "pegs": np.zeros((B, n), np.uint8),
            "lc": np.zeros((B, nl + 1), np.uint8),
            "blk": np.zeros((B, 2, nl + 1), np.uint8),
            "uf": np.zeros((B, n + 4), np.int16),
            "player": np.zeros(B, np.int32),
            "ply": np.zeros(B, np.int32),
            "status": np.zeros(B, np.int8),
            "priv": np.zeros((B, 2), bool),
            "navail": np.zeros((B, 2), np.int32),
            "can": np.ones((B, 2), bool),
            "wbad": np.zeros((B, 2), bool),
            "wh": np.zeros((B, 2, w), np.uint8),
            "wl": np.zeros((B, 2, wlw), np.uint8),
            "hist": np.zeros((B, n + 2), np.int16),
            "hist_ok": np.ones(B, bool),
        }
        self.reset_games(np.arange(B), [None] * B)

    # ------------------------------------------------------------------ games
    def reset_games(self, index, rngs) -> None:
        """Start games ``index`` (``int (k,)``); TwixT deals nothing, so ``rngs`` are not drawn from."""
        a, t = self.arrays, self.t
        wh0 = t.wh0 if self._early else np.zeros((2, 0), np.uint8)
        wl0 = t.wl0 if self._early else np.zeros((2, 0), np.uint8)
        _reset(
            np.asarray(index, dtype=np.int64),
            a["pegs"],
            a["lc"],
            a["blk"],
            a["uf"],
            a["player"],
            a["ply"],
            a["status"],
            a["priv"],
            a["navail"],
            a["can"],
            a["wbad"],
            a["wh"],
            a["wl"],
            a["hist"],
            a["hist_ok"],
            t.legal_count,
            wh0,
            wl0,
            self._early,
        )

    def step(self, actions, active) -> None:
        a, t = self.arrays, self.t
        _step(
            np.asarray(actions, dtype=np.int64),
            np.asarray(active, dtype=bool),
            a["pegs"],
            a["lc"],
            a["blk"],
            a["uf"],
            a["player"],
            a["ply"],
            a["status"],
            a["priv"],
            a["navail"],
            a["can"],
            a["wbad"],
            a["wh"],
            a["wl"],
            a["hist"],
            t.nbr,
            t.lid_dp,
            t.cross,
            t.cross_n,
            t.legal,
            t.bnode,
            t.src,
            t.dst,
            t.tr,
            t.s,
            self._std,
            self._early,
            self._four,
        )

    def current_player(self) -> np.ndarray:
        """``int32 (B,)``: the seat to move, -1 where the game is over."""
        return self.arrays["player"].copy()

    def legal_action_mask(self) -> np.ndarray:
        """``bool (B, num_actions)``: the mover's legal actions in its frame (a fresh array)."""
        a = self.arrays
        out = np.empty((self.num_envs, self.num_actions), dtype=bool)
        _mask(a["pegs"], a["player"], a["ply"], a["priv"], self.t.legal, self.t.tr, out, self._swap, self._four)
        return out

    def terminated(self) -> np.ndarray:
        """``bool (B,)``: won or drawn."""
        return self.arrays["status"] != 0

    def returns(self) -> np.ndarray:
        """``float32 (B, num_players)``: +1 for the winning colour's seats, -1 for the others, 0
        for a draw or a game on."""
        st = self.arrays["status"]
        colour = np.arange(self.num_players) % 2
        won = (st == 1)[:, None] & (colour == 0) | (st == 2)[:, None] & (colour == 1)
        lost = ((st == 1) | (st == 2))[:, None] & ~won
        return won.astype(np.float32) - lost.astype(np.float32)

    def observe(self, players) -> np.ndarray:
        """``float32 (B, S, S, planes)``: game ``i`` seen by seat ``players[i]`` (``int (B,)``), as
        :meth:`envs.twixt.observation.TwixtObservation.encode` (a fresh array)."""
        a, t = self.arrays, self.t
        s = t.s
        out = np.empty((self.num_envs, t.n, self.encoder.planes), dtype=np.float32)
        _observe(
            np.asarray(players, dtype=np.int32),
            a["pegs"],
            a["lc"],
            a["blk"],
            a["player"],
            a["ply"],
            a["status"],
            a["priv"],
            t.link_cells,
            t.area,
            t.tr,
            t.nbr,
            t.lid_dp,
            t.legal,
            t.src,
            t.dst_list,
            out,
            s,
            self._swap,
            self._four,
            self.distance_planes,
        )
        return out.reshape(self.num_envs, s, s, self.encoder.planes)

    # ------------------------------------------------------------------ the reference
    def to_state(self, i: int) -> TwixtState:
        """Game ``i`` as a :class:`TwixtState` equal (``==``) to the reference game, with its
        history (unless the game was loaded from a state without a matching one) and links in
        the order the reference made them."""
        a, t = self.arrays, self.t
        i = int(i)
        ply = int(a["ply"][i])
        lc = a["lc"][i]
        if a["hist_ok"][i]:
            hist = a["hist"][i, :ply].astype(np.int64)
            order = _link_order(hist, ply, a["pegs"][i], lc, t.nbr, t.lid_dp, t.tr).tolist()
            history = hist.tolist()
        else:
            order = np.flatnonzero(lc).tolist()
            history = []
        pegs = a["pegs"][i]
        ok = None
        if self._early:
            lids = t.lid_dp[[2, 3, 4, 5]]  # the canonical directions
            ok = []
            for c in (0, 1) if not self._std else (0,):
                free = (lids < t.nl) & (a["blk"][i, c][lids] == 0)
                ok.append([int.from_bytes(np.packbits(row, bitorder="little").tobytes(), "little") for row in free])
        return TwixtState._from_arrays(
            self._kwargs,
            pegs=pegs,
            lc=lc,
            order=order,
            uf=a["uf"][i].tolist(),
            player=int(a["player"][i]),
            ply=ply,
            status=int(a["status"][i]),
            priv=a["priv"][i].tolist(),
            navail=a["navail"][i].tolist(),
            history=history,
            ok=ok,
            can=a["can"][i].tolist(),
        )

    def set_states(self, index, states: Sequence[GameState]) -> None:
        """Load reference states ``states[j]`` into slots ``index[j]``.

        Raises:
            ParameterError: not a :class:`TwixtState`, or one of another setting (board size,
                players, rules, swap, draw or links).
        """
        index = np.asarray(index, dtype=np.int64)
        states = list(states)
        for s in states:
            if not isinstance(s, TwixtState):
                raise ParameterError(f"a state of {type(s).__name__} cannot join a batch of TwixT games")
            got = (s.board_size, s.num_players, s.rules, s.swap, s.draw, s.linking)
            if got != self._settings:
                names = ("board_size", "num_players", "rules", "swap", "draw", "links")
                diff = ", ".join(f"{k}={x!r} (batch: {y!r})" for k, x, y in zip(names, got, self._settings) if x != y)
                raise ParameterError(f"a TwixT state of another setting cannot join this batch: {diff}")
        a, t = self.arrays, self.t
        for i, s in zip(index.tolist(), states):
            assert isinstance(s, TwixtState)  # checked above
            a["pegs"][i] = np.frombuffer(s._pegs, dtype=np.uint8)
            a["lc"][i] = np.frombuffer(s._lc, dtype=np.uint8)
            a["player"][i] = s._player
            a["ply"][i] = s._ply
            a["status"][i] = s._status
            a["priv"][i] = s._priv
            ok = len(s.history) == s._ply
            a["hist_ok"][i] = ok
            a["hist"][i] = 0
            if ok and s._ply:
                a["hist"][i, : s._ply] = s.history
        _derive(
            index,
            a["pegs"],
            a["lc"],
            a["blk"],
            a["uf"],
            a["navail"],
            a["can"],
            a["wbad"],
            a["wh"],
            a["wl"],
            t.cross,
            t.cross_n,
            t.link_ends,
            t.legal,
            t.bnode,
            self._std,
            self._early,
            t.nbr,
            t.lid_dp,
            t.src,
            t.dst,
        )


def vector_core(num_envs: int, **kwargs) -> TwixtVectorCore:
    """The batched core of ``twixt_v0`` (the raw env's arguments minus ``max_steps`` and
    ``render_mode``).

    Raises:
        ParameterError: a bad argument, or ``links="manual"`` (use ``backend='reference'``).
    """
    return TwixtVectorCore(num_envs, num_players=2, **kwargs)


def double_vector_core(num_envs: int, **kwargs) -> TwixtVectorCore:
    """The batched core of ``double_twixt_v0`` (four seats; no ``swap`` argument).

    Raises:
        ParameterError: a bad argument, or ``links="manual"`` (use ``backend='reference'``).
    """
    return TwixtVectorCore(num_envs, num_players=4, **kwargs)
