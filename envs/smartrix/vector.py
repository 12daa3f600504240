"""Smartrix's batched core (``smartrix_v0``, ``make_vec(..., backend="batched")``): :class:`SmartrixVectorCore`.

``B`` games of one setting stepped together by numba kernels (``@njit(cache=True)``, serial: one
call per method over the whole batch). The reference rules core :class:`envs.smartrix.state.SmartrixState`
is the specification: the masks are exact, the observations bit-exact with
:class:`envs.smartrix.observation.SmartrixObservation`, and ``to_state(i) ==`` the reference game
(tests/envs/test_vector_differential.py, tests/envs/test_smartrix_vector.py).

Covered: every setting of the raw environment (``num_players`` 2-7, ``teams``, ``grid_limit``
(the 5x5 rule) on or off, ``window`` 5-35 in the kids variant). Nothing is refused.

Layout. Coordinates are the reference's absolute ones (the first card on ``(0, 0)``) plus a bias
``BIAS = 4096`` (so they stay positive). The table lives on a torus of ``G x G`` squares
(``G`` = the smallest power of two >= ``window + 4``: 16 with the 5x5 rule, 32 for the kids default
``window=21``): absolute ``(r, c)`` is square ``(r % G) * G + c % G``. Every table card lies in the
``W x W`` window and every square the rules look at within one square of it, so no two of them
share a torus square. Per-game arrays (:attr:`arrays`, leading axis ``B``; ``n`` = players):

* ``board`` ``uint8 (B, G*G)``: card index + 1 on each torus square, 0 empty;
* ``where`` ``int8 (B, 70)``: per card 0 pile, 1 hand, 2 table, 3 collected; ``owner`` ``int8 (B, 70)``
  (the hand or collection holding it);
* ``crot`` ``int8 (B, 70)``, ``crow`` / ``ccol`` ``int32 (B, 70)``: a table card's rotation and
  biased absolute square;
* ``pile`` ``int8 (B, 70)`` and ``pile_n`` ``int32 (B,)``: the draw pile as the reference's list
  (``pile[:pile_n]``, the top card last);
* ``hand_n`` ``int32 (B, n)``, ``points`` ``int32 (B, n)`` (collected value), ``out`` ``bool (B, n)``;
* ``cur`` ``int32 (B,)`` (seat to move), ``over`` ``bool (B,)``, ``ntab`` ``int32 (B,)`` (table
  cards), ``bbox`` ``int32 (B, 4)`` (biased ``rmin, rmax, cmin, cmax`` of the table), ``turn``
  ``int32 (B,)`` (actions played).

Speed, measured on a shared 2-core machine under load 3-4 (``uptime``; figures vary by +-30% between
runs), serial (no ``prange``), ``python benchmarks/bench_vector.py --games smartrix,smartrix7``
(random legal play, autoreset; ``x AEC`` = over the game's AEC ``env()`` in the same run, 5.8-9.2k
steps/s):

======  =================  =================  ===========================
B       2 players          7 players          core calls alone (2p / 7p)
======  =================  =================  ===========================
1       14-21k (2.0-2.5x)  14-21k (2.3x)      --
64      84-124k (11-15x)   86-128k (14x)      226k / 221k steps/s
1024    78-106k (11-13x)   74-127k (12-14x)   156k / 172k steps/s
4096    73-106k (10-13x)   96-105k (11-16x)   --
======  =================  =================  ===========================

The issue's target (30x the AEC env) is not reached in that benchmark: at ``B = 1024`` about 40% of
a step is the benchmark's own ``sample_legal`` scanning the ``(B, 13721)`` mask (3.5 ms), 25% the
fresh mask itself (allocating 14 MB, 0.7 ms, and filling it, 1.3 ms), 15% the observation
(1.0-1.5 ms) and the rest the vector env's checks; the rules step is 0.2 ms. With a word-wise
``sample_legal`` (4x faster; proposed in the task report) the same benchmark gave 175-200k steps/s
(20-22x) at ``B = 64 .. 1024``. "Core calls alone" times only this core's ``legal_action_mask``,
``step``, ``observe`` and ``terminated`` (random actions, games restarted as they end). Kids
(3 players, ``window=21``: 123481 actions, 124 MB masks at ``B = 1024``): 21-32k steps/s core alone.

Compile time (numba ``cache=True``; first ``make_vec`` + ``reset`` + ``step``): 4.9 s with a cold
cache (an empty ``NUMBA_CACHE_DIR``, this module's kernels and ``sample_legal``), 0.65 s warm.
Per-game state: 1,147 bytes (2 players; ``memory_per_game``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from envs.core.errors import ParameterError
from envs.core.state import GameState
from envs.core.vector import VectorCore
from envs.smartrix.cards import CARD_PATTERNS, CARD_PERIODS, CARD_VALUES, NUM_CARDS
from envs.smartrix.observation import PLAYER_FEATURES, TABLE_PLANES
from envs.smartrix.state import DIRS, HAND_SIZE, NUM_PLANES, REQ0, REQ1, SmartrixState

__all__ = ["SmartrixVectorCore", "vector_core"]

BIAS = 4096
_PAT = np.ascontiguousarray(CARD_PATTERNS, dtype=np.int32)  # (70, 4)
_PER = np.ascontiguousarray(CARD_PERIODS, dtype=np.int32)  # (70,)
_VAL = np.ascontiguousarray(CARD_VALUES, dtype=np.int32)  # (70,)
_R1 = np.array(REQ1, dtype=np.int32)  # (8, 256)
_R0 = np.array(REQ0, dtype=np.int32)  # (8, 256)
_NR1 = np.ascontiguousarray(np.roll(_R1, -4, axis=0))  # (8, 256): what a card of pattern p asks of its
_NR0 = np.ascontiguousarray(np.roll(_R0, -4, axis=0))  # neighbour in direction d (= _REQ*[(d + 4) % 8][p])
_DR = np.array([d[0] for d in DIRS], dtype=np.int32)
_DC = np.array([d[1] for d in DIRS], dtype=np.int32)
# _FIT[code, card]: bit k set when card in rotation k (k < its period) fits a square whose
# requirements are ``code`` = sum over border squares b of 3**b * (1 must be empty, 2 must hold a spot).
_P3 = np.array([sum(3**b for b in range(8) if x >> b & 1) for x in range(256)], dtype=np.int32)


def _fit_table() -> np.ndarray:
    codes = np.arange(3**8)
    digits = (codes[:, None] // (3 ** np.arange(8))[None, :]) % 3  # (6561, 8)
    req1 = ((digits == 2) << np.arange(8)).sum(1)
    care = ((digits > 0) << np.arange(8)).sum(1)
    pats = CARD_PATTERNS  # (70, 4)
    ok = (pats[None, :, :] & care[:, None, None]) == req1[:, None, None]  # (6561, 70, 4)
    ok &= np.arange(4)[None, None, :] < CARD_PERIODS[None, :, None]
    return (ok * (1 << np.arange(4))[None, None, :]).sum(2).astype(np.uint8)


_FIT = _fit_table()
_LR = np.array([0, 1, 1, 1], dtype=np.int32)  # the four lines: row, column, two diagonals
_LC = np.array([1, 0, 1, -1], dtype=np.int32)


# ---------------------------------------------------------------------------- kernels
@njit(cache=True, inline="always")
def _sq(r, c, G):
    return (r & (G - 1)) * G + (c & (G - 1))


@njit(cache=True)
def _origin(bbox, ntab, i, H):
    """Biased absolute (row, col) of the window's top-left square of game i."""
    if ntab[i] == 0:
        return BIAS - H, BIAS - H
    return (bbox[i, 0] + bbox[i, 1]) // 2 - H, (bbox[i, 2] + bbox[i, 3]) // 2 - H


@njit(cache=True)
def _area(bbox, ntab, i, r0, c0, W, H, grid_limit):
    if ntab[i] == 0:
        return H, H + 1, H, H + 1
    if not grid_limit:
        return 0, W, 0, W
    return (
        max(0, bbox[i, 1] - 4 - r0),
        min(W, bbox[i, 0] + 5 - r0),
        max(0, bbox[i, 3] - 4 - c0),
        min(W, bbox[i, 2] + 5 - c0),
    )


@njit(cache=True)
def _deal(
    idx,
    orders,
    n,
    board,
    where,
    owner,
    crot,
    crow,
    ccol,
    pile,
    pile_n,
    hand_n,
    points,
    out,
    cur,
    over,
    ntab,
    bbox,
    turn,
    G,
):
    for j in range(idx.shape[0]):
        i = idx[j]
        board[i, :] = 0
        where[i, :] = 0
        owner[i, :] = 0
        crot[i, :] = 0
        crow[i, :] = 0
        ccol[i, :] = 0
        pile[i, :] = 0
        order = orders[j]
        for p in range(n):
            hand_n[i, p] = HAND_SIZE
            points[i, p] = 0
            out[i, p] = False
            for k in range(HAND_SIZE):
                c = order[HAND_SIZE * p + k]
                where[i, c] = 1
                owner[i, c] = p
        m = NUM_CARDS - HAND_SIZE * n - 1
        for k in range(m):
            pile[i, k] = order[NUM_CARDS - 1 - k]
        first = order[HAND_SIZE * n]
        where[i, first] = 2
        crow[i, first] = BIAS
        ccol[i, first] = BIAS
        board[i, _sq(BIAS, BIAS, G)] = first + 1
        ntab[i] = 1
        bbox[i, 0] = BIAS
        bbox[i, 1] = BIAS
        bbox[i, 2] = BIAS
        bbox[i, 3] = BIAS
        cur[i] = 0
        over[i] = False
        turn[i] = 0
        # player 0 draws
        pile_n[i] = m - 1
        c = pile[i, m - 1]
        where[i, c] = 1
        owner[i, c] = 0
        hand_n[i, 0] += 1


@njit(cache=True)
def _mask(
    mask,
    board,
    where,
    owner,
    crot,
    crow,
    ccol,
    cur,
    over,
    ntab,
    bbox,
    W,
    H,
    G,
    grid_limit,
    PAT,
    PER,
    NR1,
    NR0,
    DR,
    DC,
    FIT,
    P3,
):
    B = mask.shape[0]
    WW = W * W
    hand = np.empty(NUM_CARDS, dtype=np.int32)
    tab = np.empty(NUM_CARDS, dtype=np.int32)
    # what the table asks of each window square (window coordinates + 1), from its neighbours
    S = W + 2
    q1 = np.zeros(S * S, dtype=np.int32)
    q0 = np.zeros(S * S, dtype=np.int32)
    nn = np.zeros(S * S, dtype=np.int32)
    for i in range(B):
        if over[i]:
            continue
        mask[i, NUM_PLANES * WW] = True
        p = cur[i]
        nh = 0
        nt = 0
        for c in range(NUM_CARDS):
            w = where[i, c]
            if w == 1:
                if owner[i, c] == p:
                    hand[nh] = c
                    nh += 1
            elif w == 2:
                tab[nt] = c
                nt += 1
        if nh == 0:
            continue
        if nt == 0:
            for h in range(nh):
                c = hand[h]
                for rot in range(PER[c]):
                    mask[i, (c * 4 + rot) * WW + H * W + H] = True
            continue
        r0, c0 = _origin(bbox, ntab, i, H)
        rlo, rhi, clo, chi = _area(bbox, ntab, i, r0, c0, W, H, grid_limit)
        for t in range(nt):
            c = tab[t]
            pt = PAT[c, crot[i, c]]
            base = (crow[i, c] - r0 + 1) * S + (ccol[i, c] - c0 + 1)
            for d in range(8):
                j = base + DR[d] * S + DC[d]
                q1[j] |= NR1[d, pt]
                q0[j] |= NR0[d, pt]
                nn[j] += 1
        for wr in range(rlo, rhi):
            for wc in range(clo, chi):
                j = (wr + 1) * S + wc + 1
                if nn[j] == 0:
                    continue
                a1 = q1[j]
                a0 = q0[j]
                if (a1 & a0) or board[i, _sq(r0 + wr, c0 + wc, G)]:
                    continue
                code = P3[a0] + 2 * P3[a1]
                cell = wr * W + wc
                for h in range(nh):
                    c = hand[h]
                    bits = FIT[code, c]
                    if bits:
                        for rot in range(4):
                            if bits >> rot & 1:
                                mask[i, (c * 4 + rot) * WW + cell] = True
        for t in range(nt):  # clear the scratch squares
            c = tab[t]
            base = (crow[i, c] - r0 + 1) * S + (ccol[i, c] - c0 + 1)
            for d in range(8):
                j = base + DR[d] * S + DC[d]
                q1[j] = 0
                q0[j] = 0
                nn[j] = 0


@njit(cache=True)
def _runs_count(board, i, r, c, G, LR, LC, VAL, cells):
    """What a card on the empty square (r, c) of game i would collect (itself not counted): every
    line run through it of 5 or more cards. Returns (count, value); the torus squares go to
    ``cells[:count]`` (``cells`` has room for 4 * G)."""
    cnt = 0
    val = 0
    for ln in range(4):
        dr = LR[ln]
        dc = LC[ln]
        m = 0
        lv = 0
        for sgn in (1, -1):
            k = 1
            while True:
                s = _sq(r + sgn * k * dr, c + sgn * k * dc, G)
                v = board[i, s]
                if v == 0:
                    break
                cells[cnt + m] = s
                m += 1
                lv += VAL[v - 1]
                k += 1
        if m >= 4:
            cnt += m
            val += lv
    return cnt, val


@njit(cache=True)
def _advance(i, p, n, pile, pile_n, where, owner, hand_n, out, cur, over):
    for k in range(1, n + 1):
        q = (p + k) % n
        if not out[i, q]:
            cur[i] = q
            if pile_n[i] > 0:
                pile_n[i] -= 1
                c = pile[i, pile_n[i]]
                where[i, c] = 1
                owner[i, c] = q
                hand_n[i, q] += 1
            return
    over[i] = True


@njit(cache=True)
def _step(
    actions,
    active,
    n,
    teams,
    board,
    where,
    owner,
    crot,
    crow,
    ccol,
    pile,
    pile_n,
    hand_n,
    points,
    out,
    cur,
    over,
    ntab,
    bbox,
    turn,
    W,
    H,
    G,
    LR,
    LC,
    VAL,
):
    WW = W * W
    PASS = NUM_PLANES * WW
    cells = np.empty(4 * G + 1, dtype=np.int64)
    for i in range(actions.shape[0]):
        if not active[i]:
            continue
        a = actions[i]
        p = cur[i]
        turn[i] += 1
        if a == PASS:
            if pile_n[i] == 0:
                out[i, p] = True
                if teams:
                    out[i, (p + 2) % 4] = True
            _advance(i, p, n, pile, pile_n, where, owner, hand_n, out, cur, over)
            continue
        plane = a // WW
        cell = a % WW
        card = plane // 4
        rot = plane % 4
        r0, c0 = _origin(bbox, ntab, i, H)
        r = r0 + cell // W
        c = c0 + cell % W
        where[i, card] = 2
        crot[i, card] = rot
        crow[i, card] = r
        ccol[i, card] = c
        hand_n[i, p] -= 1
        board[i, _sq(r, c, G)] = card + 1
        if ntab[i] == 0:
            bbox[i, 0] = r
            bbox[i, 1] = r
            bbox[i, 2] = c
            bbox[i, 3] = c
        else:
            bbox[i, 0] = min(bbox[i, 0], r)
            bbox[i, 1] = max(bbox[i, 1], r)
            bbox[i, 2] = min(bbox[i, 2], c)
            bbox[i, 3] = max(bbox[i, 3], c)
        ntab[i] += 1
        cnt, val = _runs_count(board, i, r, c, G, LR, LC, VAL, cells)
        if cnt > 0:
            cells[cnt] = _sq(r, c, G)
            for k in range(cnt + 1):
                v = board[i, cells[k]]
                if v == 0:
                    continue  # (never: the lines are disjoint)
                cd = v - 1
                board[i, cells[k]] = 0
                where[i, cd] = 3
                owner[i, cd] = p
                crot[i, cd] = 0
                crow[i, cd] = 0
                ccol[i, cd] = 0
                points[i, p] += VAL[cd]
                ntab[i] -= 1
            if ntab[i] > 0:
                first = True
                for cd in range(NUM_CARDS):
                    if where[i, cd] == 2:
                        rr = crow[i, cd]
                        c2 = ccol[i, cd]
                        if first:
                            bbox[i, 0] = rr
                            bbox[i, 1] = rr
                            bbox[i, 2] = c2
                            bbox[i, 3] = c2
                            first = False
                        else:
                            bbox[i, 0] = min(bbox[i, 0], rr)
                            bbox[i, 1] = max(bbox[i, 1], rr)
                            bbox[i, 2] = min(bbox[i, 2], c2)
                            bbox[i, 3] = max(bbox[i, 3], c2)
        if hand_n[i, p] == 0:
            over[i] = True
            continue
        _advance(i, p, n, pile, pile_n, where, owner, hand_n, out, cur, over)


@njit(cache=True)
def _returns(out_r, over, where, owner, points, n, teams, VAL):
    sc = np.zeros(n, dtype=np.int64)
    for i in range(over.shape[0]):
        if not over[i]:
            continue
        for p in range(n):
            sc[p] = points[i, p]
        for c in range(NUM_CARDS):
            if where[i, c] == 1:
                sc[owner[i, c]] -= VAL[c]
        if teams:
            t0 = sc[0] + sc[2]
            t1 = sc[1] + sc[3]
            sc[0] = t0
            sc[2] = t0
            sc[1] = t1
            sc[3] = t1
        best = sc[0]
        for p in range(1, n):
            best = max(best, sc[p])
        nwin = 0
        for p in range(n):
            if sc[p] == best:
                nwin += 1
        # teams: two winners of one team is a sole (team) win
        sole = nwin == 1 or (teams and nwin == 2 and sc[0] != sc[1])
        for p in range(n):
            if sc[p] == best:
                out_r[i, p] = 1.0 if sole else 0.0
            else:
                out_r[i, p] = -1.0


@njit(cache=True)
def _observe(
    players,
    table,
    hand,
    seen,
    pl,
    glob,
    n,
    teams,
    board,
    where,
    owner,
    crot,
    pile_n,
    hand_n,
    points,
    out,
    cur,
    over,
    ntab,
    bbox,
    W,
    H,
    G,
    grid_limit,
    PAT,
    VAL,
    DR,
    DC,
    LR,
    LC,
):
    cells = np.empty(4 * G + 1, dtype=np.int64)
    for i in range(players.shape[0]):
        me = players[i]
        r0, c0 = _origin(bbox, ntab, i, H)
        rlo, rhi, clo, chi = _area(bbox, ntab, i, r0, c0, W, H, grid_limit)
        for wr in range(W):
            for wc in range(W):
                r = r0 + wr
                c = c0 + wc
                v = board[i, _sq(r, c, G)]
                inside = rlo <= wr < rhi and clo <= wc < chi
                if v:
                    cd = v - 1
                    table[i, wr, wc, 0] = 1.0
                    pt = PAT[cd, crot[i, cd]]
                    for b in range(8):
                        table[i, wr, wc, 1 + b] = (pt >> b) & 1
                    table[i, wr, wc, 9] = np.float32(VAL[cd] / 8.0)
                if inside:
                    table[i, wr, wc, 10] = 1.0
                    if v == 0:
                        nn = 0
                        for d in range(8):
                            if board[i, _sq(r + DR[d], c + DC[d], G)]:
                                nn += 1
                                break
                        if nn:
                            cnt, val = _runs_count(board, i, r, c, G, LR, LC, VAL, cells)
                            if cnt:
                                table[i, wr, wc, 11] = np.float32(cnt / 16.0)
                                table[i, wr, wc, 12] = np.float32(val / 128.0)
        for c in range(NUM_CARDS):
            w = where[i, c]
            if w == 1 and owner[i, c] == me:
                hand[i, c] = 1.0
            if w >= 2:
                seen[i, c] = 1.0
        cp = -1 if over[i] else cur[i]
        for k in range(n):
            q = (me + k) % n
            pl[i, k, 0] = np.float32(points[i, q] / 280.0)
            pl[i, k, 1] = np.float32(hand_n[i, q] / 70.0)
            pl[i, k, 2] = 1.0 if out[i, q] else 0.0
            if teams:
                pl[i, k, 3] = 1.0 if (q % 2) == (me % 2) else 0.0
            else:
                pl[i, k, 3] = 1.0 if q == me else 0.0
            pl[i, k, 4] = 1.0 if q == cp else 0.0
        glob[i, 0] = np.float32(pile_n[i] / 70.0)
        glob[i, 1] = np.float32(ntab[i] / 70.0)
        glob[i, 2] = 1.0 if pile_n[i] == 0 else 0.0


# ---------------------------------------------------------------------------- the core
class SmartrixVectorCore(VectorCore):
    """``num_envs`` Smartrix games of one setting (the raw environment's arguments).

    Args:
        num_envs: the number of games ``B`` (>= 1).
        num_players, grid_limit, teams, window: as for :class:`envs.smartrix.env.raw_env`.

    Raises:
        ParameterError: a bad argument (the reference's own checks and messages).
    """

    backend = "numba"

    def __init__(
        self,
        num_envs: int,
        num_players: int = 2,
        grid_limit: bool = True,
        teams: bool = False,
        window: int | None = None,
    ):
        probe = SmartrixState(
            num_players, grid_limit=grid_limit, teams=teams, window=window, deck=list(range(1, NUM_CARDS + 1))
        )  # validates every argument
        if int(num_envs) < 1:
            raise ParameterError(f"num_envs must be >= 1, got {num_envs!r}")
        self.num_envs = B = int(num_envs)
        self.num_players = n = probe.num_players
        self.num_actions = probe.num_actions
        self.grid_limit = probe.grid_limit
        self.teams = probe.team_game
        self.window = W = probe.window
        self.H = W // 2
        G = 8
        while G < W + 4:
            G *= 2
        self.G = G
        from envs.smartrix.observation import SmartrixObservation

        self.observation_space = SmartrixObservation(probe).space
        self.arrays = {
            "board": np.zeros((B, G * G), np.uint8),
            "where": np.zeros((B, NUM_CARDS), np.int8),
            "owner": np.zeros((B, NUM_CARDS), np.int8),
            "crot": np.zeros((B, NUM_CARDS), np.int8),
            "crow": np.zeros((B, NUM_CARDS), np.int32),
            "ccol": np.zeros((B, NUM_CARDS), np.int32),
            "pile": np.zeros((B, NUM_CARDS), np.int8),
            "pile_n": np.zeros(B, np.int32),
            "hand_n": np.zeros((B, n), np.int32),
            "points": np.zeros((B, n), np.int32),
            "out": np.zeros((B, n), bool),
            "cur": np.zeros(B, np.int32),
            "over": np.zeros(B, bool),
            "ntab": np.zeros(B, np.int32),
            "bbox": np.zeros((B, 4), np.int32),
            "turn": np.zeros(B, np.int32),
        }
        self._deal_orders(np.arange(B), np.tile(np.arange(NUM_CARDS, dtype=np.int64), (B, 1)))

    # ------------------------------------------------------------------ helpers
    def _a(self, *names):
        return tuple(self.arrays[k] for k in names)

    _STATE = (
        "board",
        "where",
        "owner",
        "crot",
        "crow",
        "ccol",
        "pile",
        "pile_n",
        "hand_n",
        "points",
        "out",
        "cur",
        "over",
        "ntab",
        "bbox",
        "turn",
    )

    def _deal_orders(self, index, orders) -> None:
        _deal(
            np.asarray(index, dtype=np.int64),
            np.ascontiguousarray(orders, dtype=np.int64),
            self.num_players,  # type: ignore[call-arg]  # mypy#14648: *args before positionals
            *self._a(*self._STATE),
            self.G,
        )

    # ------------------------------------------------------------------ games
    def reset_games(self, index: np.ndarray, rngs: Sequence[np.random.Generator]) -> None:
        """Deal a new game in slots ``index`` (``int64 (k,)``): ``rngs[j].permutation(70)`` is the
        deck order, exactly as :class:`SmartrixState`'s constructor draws it."""
        index = np.asarray(index, dtype=np.int64)
        if index.size == 0:
            return
        orders = np.stack([rng.permutation(NUM_CARDS) for rng in rngs]).astype(np.int64)
        self._deal_orders(index, orders)

    def step(self, actions: np.ndarray, active: np.ndarray) -> None:
        """Apply ``actions`` (``int64 (B,)``) where ``active`` (``bool (B,)``); legal actions only."""
        _step(
            np.ascontiguousarray(actions, dtype=np.int64),
            np.ascontiguousarray(active, dtype=bool),  # type: ignore[call-arg]  # mypy#14648: *args before positionals
            self.num_players,
            self.teams,
            *self._a(*self._STATE),
            self.window,
            self.H,
            self.G,
            _LR,
            _LC,
            _VAL,
        )

    def current_player(self) -> np.ndarray:
        """``int32 (B,)``: the seat to move, -1 where the game is over."""
        return np.where(self.arrays["over"], -1, self.arrays["cur"]).astype(np.int32)

    def legal_action_mask(self) -> np.ndarray:
        """``bool (B, num_actions)``: the mover's legal actions (a fresh array)."""
        mask = np.zeros((self.num_envs, self.num_actions), dtype=bool)
        a = self.arrays
        _mask(
            mask,
            a["board"],
            a["where"],
            a["owner"],
            a["crot"],
            a["crow"],
            a["ccol"],
            a["cur"],
            a["over"],
            a["ntab"],
            a["bbox"],
            self.window,
            self.H,
            self.G,
            self.grid_limit,
            _PAT,
            _PER,
            _NR1,
            _NR0,
            _DR,
            _DC,
            _FIT,
            _P3,
        )
        return mask

    def terminated(self) -> np.ndarray:
        """``bool (B,)``: the game is over."""
        return self.arrays["over"].copy()

    def returns(self) -> np.ndarray:
        """``float32 (B, n)``: final returns where over (+1 sole top, 0 tied top, -1 others), else 0."""
        out = np.zeros((self.num_envs, self.num_players), dtype=np.float32)
        a = self.arrays
        _returns(out, a["over"], a["where"], a["owner"], a["points"], self.num_players, self.teams, _VAL)
        return out

    def observe(self, players: np.ndarray) -> dict[str, np.ndarray]:
        """Game ``i`` seen by seat ``players[i]``: ``{"table": (B, W, W, 13), "hand": (B, 70),
        "seen": (B, 70), "players": (B, n, 5), "globals": (B, 3)}``, float32, as the encoder."""
        B, W, n = self.num_envs, self.window, self.num_players
        table = np.zeros((B, W, W, TABLE_PLANES), np.float32)
        hand = np.zeros((B, NUM_CARDS), np.float32)
        seen = np.zeros((B, NUM_CARDS), np.float32)
        pl = np.zeros((B, n, PLAYER_FEATURES), np.float32)
        glob = np.zeros((B, 3), np.float32)
        a = self.arrays
        _observe(
            np.ascontiguousarray(players, dtype=np.int64),
            table,
            hand,
            seen,
            pl,
            glob,
            n,
            self.teams,
            a["board"],
            a["where"],
            a["owner"],
            a["crot"],
            a["pile_n"],
            a["hand_n"],
            a["points"],
            a["out"],
            a["cur"],
            a["over"],
            a["ntab"],
            a["bbox"],
            W,
            self.H,
            self.G,
            self.grid_limit,
            _PAT,
            _VAL,
            _DR,
            _DC,
            _LR,
            _LC,
        )
        return {"table": table, "hand": hand, "seen": seen, "players": pl, "globals": glob}

    # ------------------------------------------------------------------ the reference
    def to_state(self, i: int) -> SmartrixState:
        """Game ``i`` as a :class:`SmartrixState` (``==`` the reference game; empty history)."""
        a = {k: v[i] for k, v in self.arrays.items()}
        n = self.num_players
        st = SmartrixState.__new__(SmartrixState)
        st._setup(n, self.grid_limit, self.teams, self.window)
        g = st._G
        where = a["where"].tolist()
        owner = a["owner"].tolist()
        on_table = [c for c in range(NUM_CARDS) if where[c] == 2]
        if on_table:
            b = a["bbox"]
            st._offr = g // 2 - (int(b[0] + b[1]) // 2 - BIAS)
            st._offc = g // 2 - (int(b[2] + b[3]) // 2 - BIAS)
            for c in on_table:
                st._put(c, int(a["crot"][c]), st._offr + int(a["crow"][c]) - BIAS, st._offc + int(a["ccol"][c]) - BIAS)
        st._hands = [sorted(c for c in range(NUM_CARDS) if where[c] == 1 and owner[c] == p) for p in range(n)]
        st._collected = [sorted(c for c in range(NUM_CARDS) if where[c] == 3 and owner[c] == p) for p in range(n)]
        for c in range(NUM_CARDS):
            if where[c] in (1, 3):
                st._where[c] = where[c]
                st._owner[c] = owner[c]
        st._points = [int(x) for x in a["points"]]
        st._pile = [int(x) for x in a["pile"][: int(a["pile_n"])]]
        st._out = [bool(x) for x in a["out"]]
        st._current = int(a["cur"])
        st._over = bool(a["over"])
        st._turn = int(a["turn"])
        st._start = {"position": st.position()}
        return st

    def set_states(self, index: np.ndarray, states: Sequence[GameState]) -> None:
        """Load reference states into slots ``index`` (``int64 (k,)``).

        Raises:
            ParameterError: not a :class:`SmartrixState`, or one of another setting.
        """
        index = np.asarray(index, dtype=np.int64)
        want = (self.num_players, self.grid_limit, self.teams, self.window)
        for st in states:
            if not isinstance(st, SmartrixState):
                raise ParameterError(f"a state of {type(st).__name__} cannot join a batch of Smartrix games")
            got = (st.num_players, st.grid_limit, st.team_game, st.window)
            if got != want:
                raise ParameterError(
                    f"a Smartrix state with (num_players, grid_limit, teams, window)={got} cannot "
                    f"join a batch of {want}"
                )
        a = self.arrays
        G = self.G
        for i, st in zip(index.tolist(), states):
            assert isinstance(st, SmartrixState)  # checked above
            for k in ("board", "where", "owner", "crot", "crow", "ccol", "pile"):
                a[k][i] = 0
            for num, rot, r, c in st.table():
                card = num - 1
                a["where"][i, card] = 2
                a["crot"][i, card] = rot
                a["crow"][i, card] = r + BIAS
                a["ccol"][i, card] = c + BIAS
                a["board"][i, ((r + BIAS) % G) * G + (c + BIAS) % G] = num
            for p in range(self.num_players):
                for card in st._hands[p]:
                    a["where"][i, card] = 1
                    a["owner"][i, card] = p
                for card in st._collected[p]:
                    a["where"][i, card] = 3
                    a["owner"][i, card] = p
                a["hand_n"][i, p] = len(st._hands[p])
                a["points"][i, p] = st._points[p]
                a["out"][i, p] = st._out[p]
            a["pile"][i, : len(st._pile)] = st._pile
            a["pile_n"][i] = len(st._pile)
            a["cur"][i] = st._current
            a["over"][i] = st._over
            a["ntab"][i] = len(st._cells)
            bb = st.bounding_box()
            a["bbox"][i] = (0, 0, 0, 0) if bb is None else tuple(x + BIAS for x in bb)
            a["turn"][i] = st._turn


def vector_core(num_envs: int, **kwargs) -> SmartrixVectorCore:
    """The batched core for ``envs.make_vec("smartrix_v0", ...)`` (every setting is covered).

    Raises:
        ParameterError: a bad argument.
    """
    return SmartrixVectorCore(num_envs, **kwargs)
