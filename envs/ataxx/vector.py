"""Ataxx's batched core (``envs.make_vec("ataxx_v0", B)``): :class:`AtaxxVectorCore`.

``B`` games on 49-bit ``uint64`` bitboards (bit ``rank * 7 + file``, ``a1`` = bit 0, as
:mod:`envs.ataxx.state`), stepped, masked and encoded by numba kernels that write straight into
the output arrays. The reference rules core :class:`envs.ataxx.state.AtaxxState` is the
specification: the observation is bit-exact with :class:`envs.ataxx.observation.AtaxxObservation`,
the mask is ``legal_action_mask()`` (as ``bool``), ``to_state(i) ==`` the reference game (FEN and
clock rule, so board, gaps, side to move, halfmove clock and fullmove number).

Array layout (:attr:`AtaxxVectorCore.arrays`, leading axis ``B``):

========== ======== ======= ==========================================================
name       dtype    shape   meaning
========== ======== ======= ==========================================================
``x``      uint64   (B,)    x's stones (player 0)
``o``      uint64   (B,)    o's stones (player 1)
``gaps``   uint64   (B,)    blocked squares
``turn``   int8     (B,)    side to move, 0 or 1 (also once the game is over)
``clock``  int64    (B,)    halfmove clock (plies since the last clone)
``fullmove`` int64  (B,)    fullmove number (+1 after o's ply, passes included)
``status`` int8     (B,)    -1 game on, 0 / 1 the winner, 2 a draw (the cached end rules)
========== ======== ======= ==========================================================

The clock rule (``halfmove_clock``) is a setting of the core, not a per-game array. 58 bytes a game.

Covered: every setting of ``ataxx_v0`` (any FEN start, gaps or none, ``halfmove_clock`` on or
off), and any :class:`~envs.ataxx.state.AtaxxState` of the same clock rule through ``set_states``
(its own gaps included). Refused with :class:`~envs.core.errors.ParameterError` (the message names
``backend='reference'``): a start FEN or a loaded state whose halfmove clock or fullmove number does
not fit in ``int64`` (beyond 2**62), which the reference's Python ints allow.

Speed (``benchmarks/bench_vector.py --games ataxx --pgx``, random legal actions through
``make_vec(...).step``, autoreset ``next_step``; see the report in the commit log for the load):
see the table in :data:`SPEED`. Compile time: see :data:`SPEED` too (numba ``cache=True``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from envs.ataxx.observation import NUM_PLANES, AtaxxObservation
from envs.ataxx.state import (
    CLOCK_LIMIT,
    FULL,
    JUMP_OFFSETS,
    NEAR,
    NOT_FILE_A,
    NOT_FILE_G,
    NUM_ACTIONS,
    NUM_SQUARES,
    PASS_ACTION,
    PLANE_SHIFT,
    PLANE_SRC,
    SIZE,
    AtaxxState,
)
from envs.core.errors import ParameterError
from envs.core.state import GameState
from envs.core.vector import VectorCore

__all__ = ["AtaxxVectorCore", "vector_core", "SPEED"]

#: Measured figures (see the module docstring).
SPEED = """\
random legal actions through make_vec(...).step, autoreset next_step, observation and mask every
step (python benchmarks/bench_vector.py --games ataxx --pgx --batch 64,1024,4096 --seconds 3), a
2-core machine, load average 0.6 (2026-12-04):

    B      steps/s    x AEC env()   Pgx Othello steps/s   ours / Pgx
    64     846,647    25.7x         179,709               4.71x
    1024   1,305,530  39.6x         458,781               2.85x
    4096   1,377,868  41.8x         431,630               3.19x

AEC env() at B = 1: 32,972 steps/s. 57 bytes of state a game (the arrays and the vector env's
counters). The first make_vec + reset + step, ``import envs`` included: 1.6 s with a cold numba
cache, 0.5 s warm."""

_INT_LIMIT = 1 << 62  # clock and fullmove must stay far from int64 overflow

# ---------------------------------------------------------------------------- tables (numba constants)
_U1 = np.uint64(1)
_FULL = np.uint64(FULL)
_NOT_A = np.uint64(NOT_FILE_A)
_NOT_G = np.uint64(NOT_FILE_G)
_NEAR = np.array(NEAR, dtype=np.uint64)
_PSRC = np.array(PLANE_SRC, dtype=np.uint64)
# jump plane k: destination = source + shift; left / right shift amounts (one of them 0)
_PSHL = np.array([max(s, 0) for s in PLANE_SHIFT], dtype=np.uint64)
_PSHR = np.array([max(-s, 0) for s in PLANE_SHIFT], dtype=np.uint64)
_JSHIFT = np.array([dr * SIZE + df for df, dr in JUMP_OFFSETS], dtype=np.int64)
_NPLANES = 1 + len(JUMP_OFFSETS)  # 17 action planes of 49 squares
_MASK_WORDS = (NUM_ACTIONS + 63) // 64 + 1  # 14 words of a game's packed mask (+1 spare)
# _EXPAND[v]: the 8 bytes (0 or 1) of the bits of byte v, little-endian (byte k = bit k)
_EXPAND = np.array([sum(((v >> k) & 1) << (8 * k) for k in range(8)) for v in range(256)], dtype=np.uint64)
# observation cell (row, col) shows square _OBS_SQ[row * 7 + col] (row 0 = rank 7)
_OBS_SQ = np.array([(SIZE - 1 - r) * SIZE + c for r in range(SIZE) for c in range(SIZE)], dtype=np.uint64)
_CLOCK_LIMIT = CLOCK_LIMIT


@njit(cache=True, inline="always")
def _dilate(bb):
    h = bb | ((bb & _NOT_G) << _U1) | ((bb & _NOT_A) >> _U1)
    return (h | (h << np.uint64(SIZE)) | (h >> np.uint64(SIZE))) & _FULL


@njit(cache=True, inline="always")
def _popcount(v):
    c = 0
    while v:
        v &= v - _U1
        c += 1
    return c


@njit(cache=True)
def _status(x, o, gaps, clock, clock_rule):
    """-1 game on, 0 / 1 winner, 2 draw: the end rules of AtaxxState._compute_status, in order."""
    if x == 0 or o == 0:
        if x != 0:
            return 0
        if o != 0:
            return 1
        return 2
    empty = _FULL & ~(x | o | gaps)
    if (_dilate(_dilate(x | o)) & empty) == 0:
        nx, no = _popcount(x), _popcount(o)
        if nx > no:
            return 0
        if no > nx:
            return 1
        return 2
    if clock_rule and clock >= _CLOCK_LIMIT:
        return 2
    return -1


@njit(cache=True)
def _step_kernel(x, o, gaps, turn, clock, fullmove, status, actions, active, clock_rule):
    for i in range(x.shape[0]):
        if not active[i]:
            continue
        t = turn[i]
        a = actions[i]
        xi, oi = x[i], o[i]
        if a != PASS_ACTION:
            d = a % NUM_SQUARES
            plane = a // NUM_SQUARES
            if t == 0:
                own, opp = xi, oi
            else:
                own, opp = oi, xi
            b = _U1 << np.uint64(d)
            cap = _NEAR[d] & opp
            if plane:
                own ^= _U1 << np.uint64(d - _JSHIFT[plane - 1])
                clock[i] += 1
            else:
                clock[i] = 0
            own = own | b | cap
            opp = opp ^ cap
            if t == 0:
                xi, oi = own, opp
            else:
                xi, oi = opp, own
            x[i] = xi
            o[i] = oi
        else:
            clock[i] += 1
        if t == 1:
            fullmove[i] += 1
        turn[i] = 1 - t
        status[i] = _status(xi, oi, gaps[i], clock[i], clock_rule)


@njit(cache=True, inline="always")
def _mask_one(i, x, o, gaps, turn, status, out8, out64, w):
    """Game i's mask is bytes ``834 * i .. 834 * i + 833`` of the flat buffer (``out8`` and
    ``out64`` are two views of it). Its bits are packed into ``w`` shifted by ``e = (834 * i) % 8``,
    so that byte ``m`` of ``w`` is flat word ``(834 * i) // 8 + m``: the words wholly inside the
    game's range are written from :data:`_EXPAND`, the bytes of the two shared words one by one."""
    for j in range(_MASK_WORDS):
        w[j] = 0
    base = NUM_ACTIONS * i
    e = base & 7
    if status[i] < 0:
        if turn[i] == 0:
            own, opp = x[i], o[i]
        else:
            own, opp = o[i], x[i]
        empty = _FULL & ~(own | opp | gaps[i])
        any_move = _dilate(own) & empty
        w[0] = any_move << np.uint64(e)  # e + 49 <= 64: no spill
        for k in range(_NPLANES - 1):
            src = own & _PSRC[k]
            dst = ((src << _PSHL[k]) >> _PSHR[k]) & empty
            any_move |= dst
            off = NUM_SQUARES * (1 + k) + e
            q, r = off >> 6, off & 63
            w[q] |= dst << np.uint64(r)
            if r > 15:  # 49 bits from r spill over the word
                w[q + 1] |= dst >> np.uint64(64 - r)
        if any_move == 0:
            off = PASS_ACTION + e
            w[off >> 6] |= _U1 << np.uint64(off & 63)
    end = e + NUM_ACTIONS
    q0 = base >> 3
    m0 = 1 if e else 0
    m1 = end >> 3
    for m in range(m0, m1):
        out64[q0 + m] = _EXPAND[(w[m >> 3] >> np.uint64(8 * (m & 7))) & np.uint64(0xFF)]
    for b in range(e, 8 * m0):
        out8[base - e + b] = (w[0] >> np.uint64(b)) & _U1
    for b in range(8 * m1, end):
        out8[base - e + b] = (w[b >> 6] >> np.uint64(b & 63)) & _U1


@njit(cache=True)
def _mask_kernel(x, o, gaps, turn, status, out8, out64):
    w = np.zeros(_MASK_WORDS, dtype=np.uint64)
    for i in range(x.shape[0]):
        _mask_one(i, x, o, gaps, turn, status, out8, out64, w)


@njit(cache=True)
def _obs_kernel(x, o, gaps, clock, players, out):
    for i in range(x.shape[0]):
        if players[i] == 0:
            own, opp = x[i], o[i]
        else:
            own, opp = o[i], x[i]
        g = gaps[i]
        empty = _FULL & ~(own | opp | g)
        c = clock[i]
        cv = np.float32((c if c < _CLOCK_LIMIT else _CLOCK_LIMIT) / _CLOCK_LIMIT)
        for cell in range(NUM_SQUARES):
            s = _OBS_SQ[cell]
            r, col = cell // SIZE, cell % SIZE
            out[i, r, col, 0] = np.float32((own >> s) & _U1)
            out[i, r, col, 1] = np.float32((opp >> s) & _U1)
            out[i, r, col, 2] = np.float32((g >> s) & _U1)
            out[i, r, col, 3] = np.float32((empty >> s) & _U1)
            out[i, r, col, 4] = cv


@njit(cache=True)
def _player_kernel(turn, status, out):
    for i in range(turn.shape[0]):
        out[i] = turn[i] if status[i] < 0 else -1


@njit(cache=True)
def _returns_kernel(status, out):
    for i in range(status.shape[0]):
        s = status[i]
        if s == 0:
            out[i, 0] = 1.0
            out[i, 1] = -1.0
        elif s == 1:
            out[i, 0] = -1.0
            out[i, 1] = 1.0
        else:
            out[i, 0] = 0.0
            out[i, 1] = 0.0


# ---------------------------------------------------------------------------- the core
class AtaxxVectorCore(VectorCore):
    """``num_envs`` Ataxx games of one setting (the :class:`~envs.core.vector.VectorCore` contract).

    Args:
        num_envs: ``B``, a positive int.
        fen: the start position of every game (FEN or ``"startpos"``; ``None``: the standard start).
        halfmove_clock: the 100-ply draw rule (as :class:`~envs.ataxx.state.AtaxxState`).

    Raises:
        InvalidPositionError: a malformed ``fen``. ParameterError: a bad ``halfmove_clock``, or a
            start whose clock or fullmove number does not fit the arrays (use
            ``backend='reference'``).
    """

    backend = "numba"

    def __init__(self, num_envs: int, fen: str | None = None, halfmove_clock: bool = True):
        start = AtaxxState(fen, halfmove_clock=halfmove_clock)
        self._check_fits(start, "the start position")
        self.num_envs = int(num_envs)
        self.num_players = 2
        self.num_actions = NUM_ACTIONS
        self.observation_space = AtaxxObservation().space
        self.clock_rule = bool(halfmove_clock)
        self._start = start
        self._start_row = self._row(start)
        n = self.num_envs
        self.arrays = {
            "x": np.zeros(n, np.uint64),
            "o": np.zeros(n, np.uint64),
            "gaps": np.zeros(n, np.uint64),
            "turn": np.zeros(n, np.int8),
            "clock": np.zeros(n, np.int64),
            "fullmove": np.ones(n, np.int64),
            "status": np.zeros(n, np.int8),
        }
        self.reset_games(np.arange(n), [None] * n)

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _check_fits(state: AtaxxState, what: str) -> None:
        if state.clock >= _INT_LIMIT or state.fullmove >= _INT_LIMIT:
            raise ParameterError(
                f"{what} has a halfmove clock ({state.clock}) or fullmove number ({state.fullmove}) "
                f"beyond 2**62, which the batched Ataxx core does not hold; use backend='reference'"
            )

    @staticmethod
    def _row(state: AtaxxState) -> dict:
        x, o, g = state.bitboards()
        return {
            "x": x,
            "o": o,
            "gaps": g,
            "turn": state.turn,
            "clock": state.clock,
            "fullmove": state.fullmove,
            "status": state._status(),
        }

    # ------------------------------------------------------------------ games
    def reset_games(self, index: np.ndarray, rngs: Sequence[np.random.Generator | None]) -> None:
        """Every game ``index[j]`` back at the start position (Ataxx deals nothing: ``rngs``
        are not drawn from, as the AEC env's ``_new_state``)."""
        index = np.asarray(index, dtype=np.int64)
        if index.size == 0:
            return
        for k, v in self._start_row.items():
            self.arrays[k][index] = v

    def step(self, actions: np.ndarray, active: np.ndarray) -> None:
        """Apply ``actions[i]`` (``int64 (B,)``) where ``active[i]`` (``bool (B,)``); legal actions assumed."""
        a = self.arrays
        _step_kernel(
            a["x"],
            a["o"],
            a["gaps"],
            a["turn"],
            a["clock"],
            a["fullmove"],
            a["status"],
            np.ascontiguousarray(actions, dtype=np.int64),
            np.ascontiguousarray(active, dtype=np.bool_),
            self.clock_rule,
        )

    def current_player(self) -> np.ndarray:
        """``int32 (B,)``: the side to move, ``-1`` where the game is over."""
        out = np.empty(self.num_envs, dtype=np.int32)
        _player_kernel(self.arrays["turn"], self.arrays["status"], out)
        return out

    def legal_action_mask(self) -> np.ndarray:
        """``bool (B, 834)``, a fresh array: the mover's legal actions (pass only when it has no
        move), all ``False`` where the game is over."""
        n = self.num_envs
        nbytes = n * NUM_ACTIONS
        buf = np.empty((nbytes + 7) // 8, dtype=np.uint64)
        out8 = buf.view(np.uint8)
        a = self.arrays
        _mask_kernel(a["x"], a["o"], a["gaps"], a["turn"], a["status"], out8, buf)
        return out8[:nbytes].view(np.bool_).reshape(n, NUM_ACTIONS)

    def terminated(self) -> np.ndarray:
        """``bool (B,)``: the game is over by the rules."""
        return self.arrays["status"] >= 0

    def returns(self) -> np.ndarray:
        """``float32 (B, 2)``: +1 / -1 / 0 where the game is over, zeros elsewhere."""
        out = np.empty((self.num_envs, 2), dtype=np.float32)
        _returns_kernel(self.arrays["status"], out)
        return out

    def observe(self, players: np.ndarray) -> np.ndarray:
        """``float32 (B, 7, 7, 5)``: game ``i`` seen by seat ``players[i]`` (``int (B,)``),
        as :class:`~envs.ataxx.observation.AtaxxObservation` encodes it."""
        out = np.empty((self.num_envs, SIZE, SIZE, NUM_PLANES), dtype=np.float32)
        a = self.arrays
        _obs_kernel(a["x"], a["o"], a["gaps"], a["clock"], np.ascontiguousarray(players, dtype=np.int32), out)
        return out

    # ------------------------------------------------------------------ the reference
    def to_state(self, i: int) -> AtaxxState:
        """Game ``i`` as an :class:`~envs.ataxx.state.AtaxxState` (empty ``history``)."""
        a = self.arrays
        s = AtaxxState.__new__(AtaxxState)
        s._bb = [int(a["x"][i]), int(a["o"][i])]
        s._gaps = int(a["gaps"][i])
        s._turn = int(a["turn"][i])
        s._clock = int(a["clock"][i])
        s._fullmove = int(a["fullmove"][i])
        s._clock_rule = self.clock_rule
        s.history = []
        s._st = s._compute_status()
        s._cap = 0  # the stones the last move converted: not kept by the batch
        s.resignations = ()
        return s

    def set_states(self, index: np.ndarray, states: Sequence[GameState]) -> None:
        """Load :class:`~envs.ataxx.state.AtaxxState` ``states[j]`` into slot ``index[j]``.

        Raises:
            ParameterError: not an ``AtaxxState``, another clock rule, or a clock / fullmove
                number beyond 2**62; nothing is loaded then.
        """
        index = np.asarray(index, dtype=np.int64)
        states = list(states)
        if len(states) != index.size:
            raise ParameterError(f"set_states: {index.size} slots but {len(states)} states")
        rows = []
        for s in states:
            if not isinstance(s, AtaxxState):
                raise ParameterError(f"a state of {type(s).__name__} cannot join a batch of Ataxx games")
            if s.halfmove_clock != self.clock_rule:
                raise ParameterError(
                    f"a state with halfmove_clock={s.halfmove_clock} cannot join a batch with "
                    f"halfmove_clock={self.clock_rule}"
                )
            self._check_fits(s, "a state")
            rows.append(self._row(s))
        for k, v in self.arrays.items():
            v[index] = np.array([r[k] for r in rows], dtype=v.dtype)


def vector_core(num_envs: int, fen: str | None = None, halfmove_clock: bool = True) -> AtaxxVectorCore:
    """The batched core of ``ataxx_v0`` (what ``envs.make_vec(..., backend="batched")`` builds).

    Raises: as :class:`AtaxxVectorCore`.
    """
    return AtaxxVectorCore(num_envs, fen=fen, halfmove_clock=halfmove_clock)
