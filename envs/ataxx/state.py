"""Ataxx rules core: :class:`AtaxxState`.

Rules: ``envs/ataxx/RULES.md``, this project's specification shipped with the package (the seed
rules completed with the conventions of the
Ataxx engine community: libataxx, python-ataxx 2.2, UAI). Summary:

* 7x7 board, files ``a``-``g`` left to right, ranks ``1``-``7`` bottom to top. Player 0 (``x``)
  starts on a7 and g1 and moves first; player 1 (``o``) on g7 and a1. Blocked squares (gaps,
  ``-`` in FEN) may never be occupied.
* A *clone* puts a stone on an empty square at king distance 1 of an own stone (written by its
  destination, ``g2``); a *jump* moves an own stone to an empty square at king distance exactly 2
  (``a1c3``). Afterwards every opponent stone next to the destination changes colour.
* A pass (``0000``) is legal only when the side to move has no move and the game is not over.
* The game ends, checked in this order, when (1) a side has no stones, (2) neither side can move,
  (3) the halfmove clock reaches 100 (a draw, unless 1 or 2 also hold). Results of 1 and 2 go by
  stone count. The halfmove clock counts every ply and is reset only by clones; it can be
  switched off (``halfmove_clock=False``), then it is still counted and written in the FEN but
  never ends the game.

Board representation: two 49-bit Python ``int`` bitboards, bit ``rank * 7 + file`` (``a1`` = bit
0, ``g7`` = bit 48), plus a bitboard of gaps.

Action encoding (``num_actions = 834``), indexed by *destination* so the policy is spatial:

* ``0 .. 48``: clone to square ``d`` (one action per destination, whatever the number of
  friendly neighbours);
* ``49 * (1 + k) + d`` for ``k`` in ``0 .. 15``: jump arriving on ``d`` from ``d - JUMP_OFFSETS[k]``
  (the 16 squares at king distance exactly 2, see :data:`JUMP_OFFSETS`);
* ``833``: pass.
"""

from __future__ import annotations

import numpy as np

from envs.core.checks import is_int, require_bool
from envs.core.errors import IllegalActionError, InvalidMoveError, InvalidPositionError
from envs.core.state import GameInfo, GameState

__all__ = [
    "AtaxxState",
    "NUM_ACTIONS",
    "PASS_ACTION",
    "JUMP_OFFSETS",
    "START_FEN",
    "square_name",
    "parse_square",
]

SIZE = 7
NUM_SQUARES = SIZE * SIZE
FULL = (1 << NUM_SQUARES) - 1
START_FEN = "x5o/7/7/7/7/7/o5x x 0 1"
CLOCK_LIMIT = 100

#: (file delta, rank delta) of the 16 squares at king distance exactly 2, in a fixed order.
JUMP_OFFSETS: tuple[tuple[int, int], ...] = tuple(
    (df, dr) for dr in range(-2, 3) for df in range(-2, 3) if max(abs(df), abs(dr)) == 2
)
NUM_JUMP_PLANES = len(JUMP_OFFSETS)  # 16
PASS_ACTION = NUM_SQUARES * (1 + NUM_JUMP_PLANES)  # 833
NUM_ACTIONS = PASS_ACTION + 1  # 834
_MASK_BYTES = (NUM_ACTIONS + 7) // 8

FILES = "abcdefg"


def square_name(sq: int) -> str:
    """``0 -> 'a1'``, ``48 -> 'g7'``."""
    return FILES[sq % SIZE] + str(sq // SIZE + 1)


def parse_square(text: str) -> int:
    """``'a1' -> 0`` (case-insensitive); raises :class:`IllegalActionError` on anything else."""
    text = text.lower() if isinstance(text, str) else text
    if not isinstance(text, str) or len(text) != 2 or text[0] not in FILES or text[1] not in "1234567":
        raise IllegalActionError(f"{text!r} is not a square: expected a file a-g and a rank 1-7, e.g. 'c3'")
    return (int(text[1]) - 1) * SIZE + FILES.index(text[0])


def _build_tables():
    near = []  # king distance 1
    far = []  # king distance exactly 2
    for sq in range(NUM_SQUARES):
        f, r = sq % SIZE, sq // SIZE
        n1 = n2 = 0
        for dr in range(-2, 3):
            for df in range(-2, 3):
                ff, rr = f + df, r + dr
                if 0 <= ff < SIZE and 0 <= rr < SIZE:
                    d = max(abs(df), abs(dr))
                    if d == 1:
                        n1 |= 1 << (rr * SIZE + ff)
                    elif d == 2:
                        n2 |= 1 << (rr * SIZE + ff)
        near.append(n1)
        far.append(n2)
    # Per jump plane k: sources that stay on the board, and the bit shift source -> destination.
    plane_src = []
    plane_shift = []
    for df, dr in JUMP_OFFSETS:
        m = 0
        for sq in range(NUM_SQUARES):
            f, r = sq % SIZE, sq // SIZE
            if 0 <= f + df < SIZE and 0 <= r + dr < SIZE:
                m |= 1 << sq
        plane_src.append(m)
        plane_shift.append(dr * SIZE + df)
    return tuple(near), tuple(far), tuple(plane_src), tuple(plane_shift)


# Bitboard tables (Python ints, bit ``rank * SIZE + file`` per square; shared with the batched
# core, envs/ataxx/vector.py): NEAR[sq] / FAR[sq], tuples of 49, the squares at king distance 1 /
# exactly 2 from ``sq``; PLANE_SRC[k] / PLANE_SHIFT[k], tuples of 16 (one per ``JUMP_OFFSETS[k]``),
# the source squares whose jump along plane ``k`` stays on the board and the bit shift from source
# to destination (``dr * SIZE + df``, negative: shift right).
NEAR, FAR, PLANE_SRC, PLANE_SHIFT = _build_tables()
# Every square except those on file a / file g (bitboards as above): masks for shifting by one file.
NOT_FILE_A = sum(1 << (r * SIZE) for r in range(SIZE)) ^ FULL
NOT_FILE_G = sum(1 << (r * SIZE + SIZE - 1) for r in range(SIZE)) ^ FULL
# (plane index k, shift) lookup from the (source, destination) pair of a jump.
_JUMP_PLANE_OF = {}
for _k, (_df, _dr) in enumerate(JUMP_OFFSETS):
    _JUMP_PLANE_OF[(_df, _dr)] = _k


def _dilate(bb: int) -> int:
    """Squares at king distance <= 1 of any set bit."""
    h = bb | ((bb & NOT_FILE_G) << 1) | ((bb & NOT_FILE_A) >> 1)
    return (h | (h << SIZE) | (h >> SIZE)) & FULL


def iter_bits(bb: int):
    """The squares (bit indices) set in the bitboard ``bb``, lowest first, as a generator of int."""
    while bb:
        low = bb & -bb
        yield low.bit_length() - 1
        bb ^= low


def _jump_dests(own: int, empty: int, k: int) -> int:
    s = PLANE_SHIFT[k]
    src = own & PLANE_SRC[k]
    return ((src << s) if s > 0 else (src >> -s)) & empty


def _can_move(stones: int, empty: int) -> bool:
    return bool(_dilate(_dilate(stones)) & empty)


def _perft(own: int, opp: int, empty: int, clock: int, depth: int, clock_on: bool) -> int:
    """Perft on raw bitboards (side to move = ``own``); see envs/ataxx/RULES.md, section Perft."""
    # Game over, in the order of the rules.
    if not own or not opp:
        return 0
    reach_own = _dilate(own)
    reach_own2 = _dilate(reach_own) & empty
    if not reach_own2 and not (_dilate(_dilate(opp)) & empty):
        return 0
    if clock_on and clock >= CLOCK_LIMIT:
        return 0
    clones = reach_own & empty
    if not reach_own2:  # forced pass
        if depth == 1:
            return 1
        return _perft(opp, own, empty, clock + 1, depth - 1, clock_on)
    if depth == 1:
        n = clones.bit_count()
        for s in iter_bits(own):
            n += (FAR[s] & empty).bit_count()
        return n
    total = 0
    d1 = depth - 1
    for d in iter_bits(clones):
        b = 1 << d
        cap = NEAR[d] & opp
        total += _perft(opp ^ cap, own | b | cap, empty ^ b, 0, d1, clock_on)
    c1 = clock + 1
    for s in iter_bits(own):
        sb = 1 << s
        for d in iter_bits(FAR[s] & empty):
            b = 1 << d
            cap = NEAR[d] & opp
            total += _perft(opp ^ cap, (own ^ sb) | b | cap, (empty ^ b) | sb, c1, d1, clock_on)
    return total


class AtaxxState(GameState):
    """A mutable Ataxx position with the rules of ``envs/ataxx/RULES.md``.

    Args:
        fen: starting position; ``None`` or ``"startpos"`` for the standard start
            ``x5o/7/7/7/7/7/o5x x 0 1``.
        halfmove_clock: if ``True`` (default) a draw is declared when the halfmove clock reaches
            100 (community rule); if ``False`` the clock is still counted but never ends the game.

    Raises:
        InvalidPositionError: malformed FEN (the message says which field and what was expected).
        ParameterError: ``halfmove_clock`` is not a bool.

    Example:
        >>> s = AtaxxState()
        >>> len(s.legal_moves())
        16
        >>> s.push("g2"); s.fen()
        'x5o/7/7/7/7/6x/o5x o 0 1'
    """

    info = GameInfo(
        short_name="ataxx",
        long_name="Ataxx",
        perfect_information=True,
        chance=False,
        min_players=2,
        max_players=2,
        teams=False,
        seat_names=("x", "o"),
        notation="Ataxx (UAI): g2 = clone to g2, a1c3 = jump from a1 to c3, 0000 = pass when you have no move",
        heuristics="envs.ataxx.heuristics",
        board="envs.ataxx.svg",
        records="envs.ataxx.records",
        words="envs.ataxx.words",
    )
    num_players = 2
    num_actions = NUM_ACTIONS

    __slots__ = (
        "_bb",
        "_gaps",
        "_turn",
        "_clock",
        "_fullmove",
        "_clock_rule",
        "history",
        "_st",
        "_cap",
        "resignations",
    )

    def __init__(self, fen: str | None = None, *, halfmove_clock: bool = True):
        require_bool("halfmove_clock", halfmove_clock, numpy=False)
        self._clock_rule = halfmove_clock
        #: Actions played since this state was created (list of int).
        self.history: list[int] = []
        self._set_fen(START_FEN if fen is None else fen)

    @classmethod
    def from_fen(cls, fen: str, *, halfmove_clock: bool = True) -> AtaxxState:
        """Position from a FEN string (``startpos`` accepted). See the class docstring for errors."""
        if not isinstance(fen, str):
            raise InvalidPositionError(f"FEN must be a string, got {type(fen).__name__}")
        return cls(fen, halfmove_clock=halfmove_clock)

    # ------------------------------------------------------------------ FEN
    def _set_fen(self, fen: str) -> None:
        if not isinstance(fen, str):
            raise InvalidPositionError(f"FEN must be a string, got {type(fen).__name__}")
        text = fen.strip()
        if text == "startpos":
            text = START_FEN
        fields = text.split()
        if not 2 <= len(fields) <= 4:
            raise InvalidPositionError(
                f"malformed FEN {fen!r}: expected 'BOARD SIDE [HALFMOVE [FULLMOVE]]', got {len(fields)} fields"
            )
        ranks = fields[0].split("/")
        if len(ranks) != SIZE:
            raise InvalidPositionError(f"malformed FEN {fen!r}: expected 7 ranks separated by '/', got {len(ranks)}")
        bb = [0, 0]
        gaps = 0
        for i, rank_text in enumerate(ranks):
            r = SIZE - 1 - i
            f = 0
            for ch in rank_text:
                if ch in "1234567":
                    f += int(ch)
                elif ch in "xo-":
                    if f < SIZE:
                        bit = 1 << (r * SIZE + f)
                        if ch == "x":
                            bb[0] |= bit
                        elif ch == "o":
                            bb[1] |= bit
                        else:
                            gaps |= bit
                    f += 1
                else:
                    raise InvalidPositionError(
                        f"malformed FEN {fen!r}: unexpected character {ch!r} in rank {r + 1} "
                        "(expected x, o, -, or a digit 1-7)"
                    )
                if f > SIZE:
                    break
            if f != SIZE:
                raise InvalidPositionError(
                    f"malformed FEN {fen!r}: rank {r + 1} ({rank_text!r}) covers {f} squares, expected 7"
                )
        side = fields[1]
        if side not in ("x", "o"):
            raise InvalidPositionError(f"malformed FEN {fen!r}: side to move must be 'x' or 'o', got {side!r}")
        clock, fullmove = 0, 1
        if len(fields) >= 3:
            if not (fields[2].isascii() and fields[2].isdigit()):
                raise InvalidPositionError(
                    f"malformed FEN {fen!r}: halfmove clock must be a non-negative integer, got {fields[2]!r}"
                )
            clock = int(fields[2])
        if len(fields) == 4:
            if not (fields[3].isascii() and fields[3].isdigit()) or int(fields[3]) < 1:
                raise InvalidPositionError(
                    f"malformed FEN {fen!r}: fullmove number must be a positive integer, got {fields[3]!r}"
                )
            fullmove = int(fields[3])
        # All fields valid: commit.
        self._bb = bb
        self._gaps = gaps
        self._turn = 0 if side == "x" else 1
        self._clock = clock
        self._fullmove = fullmove
        self._cap = 0
        self._st = self._compute_status()
        self.resignations: tuple[tuple[int, int], ...] = ()

    def fen(self) -> str:
        """The position as FEN: ranks 7..1, side to move, halfmove clock, fullmove number."""
        rows = []
        for r in range(SIZE - 1, -1, -1):
            row, run = "", 0
            for f in range(SIZE):
                bit = 1 << (r * SIZE + f)
                ch = "x" if self._bb[0] & bit else "o" if self._bb[1] & bit else "-" if self._gaps & bit else ""
                if ch:
                    if run:
                        row += str(run)
                        run = 0
                    row += ch
                else:
                    run += 1
            if run:
                row += str(run)
            rows.append(row)
        return f"{'/'.join(rows)} {'xo'[self._turn]} {self._clock} {self._fullmove}"

    # ------------------------------------------------------------ accessors
    @property
    def halfmove_clock(self) -> bool:
        """Whether the 100-ply draw rule is on (read-only; chosen at construction)."""
        return self._clock_rule

    @property
    def turn(self) -> int:
        """Side to move, 0 (``x``) or 1 (``o``), also once the game is over."""
        return self._turn

    @property
    def current_player(self) -> int:
        return -1 if self.is_terminal() else self._turn

    @property
    def clock(self) -> int:
        """Halfmove clock: plies since the last clone."""
        return self._clock

    @property
    def fullmove(self) -> int:
        return self._fullmove

    def bitboards(self) -> tuple[int, int, int]:
        """``(x stones, o stones, gaps)`` as 49-bit ints, bit ``rank * 7 + file``."""
        return self._bb[0], self._bb[1], self._gaps

    @property
    def last_converted(self) -> int:
        """The stones the last action turned (a 49-bit int, bit ``rank * 7 + file``), ``0`` after a
        pass, in a position set from a FEN, or one copied from a vectorised environment (no last
        action); they now belong to the side that moved."""
        try:
            return self._cap
        except AttributeError:  # a state built without a last action (envs.ataxx.vector.to_state)
            return 0

    def stone_counts(self) -> tuple[int, int]:
        return self._bb[0].bit_count(), self._bb[1].bit_count()

    def piece_at(self, square: int | str) -> str:
        """``'x'``, ``'o'``, ``'-'`` (gap) or ``'.'`` (empty)."""
        if isinstance(square, str):
            sq = parse_square(square)
        elif is_int(square):
            sq = int(square)
        else:
            raise ValueError(f"square must be a name like 'c3' or an index 0..48, got {square!r}")
        if not 0 <= sq < NUM_SQUARES:
            raise ValueError(f"square index {sq} out of range 0..48")
        bit = 1 << sq
        return "x" if self._bb[0] & bit else "o" if self._bb[1] & bit else "-" if self._gaps & bit else "."

    def _empty(self) -> int:
        return FULL & ~(self._bb[0] | self._bb[1] | self._gaps)

    # ------------------------------------------------------------ rules
    def _status(self) -> int:
        """-1 game on; 0/1 winner; 2 draw (cached per position)."""
        return self._st

    def _compute_status(self) -> int:
        x, o = self._bb
        if not x or not o:  # rule 1 (both empty: a draw by count)
            return 0 if x else 1 if o else 2
        empty = self._empty()
        if not _can_move(x | o, empty):  # rule 2
            nx, no = x.bit_count(), o.bit_count()
            return 0 if nx > no else 1 if no > nx else 2
        if self._clock_rule and self._clock >= CLOCK_LIMIT:  # rule 3
            return 2
        return -1

    def is_terminal(self) -> bool:
        return self._status() != -1

    def resign(self, player: int) -> None:
        """``player`` resigns: the game is over and the other side wins (``1-0`` or ``0-1``, ended
        by ``"x resigned"``). Not a move: :attr:`resignations` records it.

        Raises:
            ValueError: ``player`` is not a seat. IllegalActionError: the game is over.
        """
        self._check_seat(player, "player")
        if self.is_terminal():
            raise IllegalActionError("the game is over: nobody can resign")
        self.resignations = ((len(self.history), int(player)),)
        self._st = 1 - int(player)

    def _end_text(self) -> tuple[str, str]:
        """Result ``'1-0'``, ``'0-1'`` or ``'1/2-1/2'`` as python-ataxx writes it, and which end
        rule of RULES.md applied (or who resigned)."""
        x, o = self._bb
        if self.resignations:
            why = f"{'xo'[self.resignations[0][1]]} resigned"
        elif not x or not o:
            why = "a side has no stones"
        elif not _can_move(x | o, self._empty()):
            why = "neither side can move"
        else:
            why = "halfmove clock reached 100"
        return {0: "1-0", 1: "0-1", 2: "1/2-1/2"}[self._status()], why

    def scores(self) -> list[int]:
        """The stone counts ``[x, o]`` (what decides rules 1 and 2 of RULES.md)."""
        return list(self.stone_counts())

    def returns(self) -> np.ndarray:
        s = self._status()
        if s == 0:
            return np.array([1.0, -1.0])
        if s == 1:
            return np.array([-1.0, 1.0])
        return np.zeros(2)

    def _moves_bb(self):
        """(clones bitboard, [jump destination bitboard per plane]) for the side to move."""
        own = self._bb[self._turn]
        empty = self._empty()
        clones = _dilate(own) & empty
        jumps = [_jump_dests(own, empty, k) for k in range(NUM_JUMP_PLANES)]
        return clones, jumps

    def legal_action_mask(self) -> np.ndarray:
        """``np.int8`` array of shape ``(834,)``; see the module docstring for the encoding."""
        if self.is_terminal():
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        clones, jumps = self._moves_bb()
        big = clones
        for k, j in enumerate(jumps):
            big |= j << (NUM_SQUARES * (1 + k))
        if not big:
            big = 1 << PASS_ACTION
        raw = np.frombuffer(big.to_bytes(_MASK_BYTES, "little"), dtype=np.uint8)
        return np.unpackbits(raw, bitorder="little")[:NUM_ACTIONS].view(np.int8)

    def legal_actions(self) -> list[int]:
        if self.is_terminal():
            return []
        clones, jumps = self._moves_bb()
        acts = list(iter_bits(clones))
        for k, j in enumerate(jumps):
            base = NUM_SQUARES * (1 + k)
            acts.extend(base + d for d in iter_bits(j))
        return acts or [PASS_ACTION]

    def _why_illegal(self, a: int) -> str | None:
        if self.is_terminal():
            return f"the game is over ({self.outcome()})"
        own = self._bb[self._turn]
        empty = self._empty()
        if a == PASS_ACTION:
            if _dilate(_dilate(own)) & empty:
                return "a pass is legal only when the side to move has no clone or jump"
            return None
        d, plane = a % NUM_SQUARES, a // NUM_SQUARES
        if not (empty >> d) & 1:
            what = {"x": "an x stone", "o": "an o stone", "-": "a gap"}[self.piece_at(d)]
            return f"destination {square_name(d)} is not empty (it holds {what})"
        if plane == 0:
            if not NEAR[d] & own:
                return f"no {'xo'[self._turn]} stone next to {square_name(d)} to clone from"
            return None
        df, dr = JUMP_OFFSETS[plane - 1]
        f, r = d % SIZE - df, d // SIZE - dr
        if not (0 <= f < SIZE and 0 <= r < SIZE):
            return "the jump would start outside the board"
        s = r * SIZE + f
        if not (own >> s) & 1:
            return f"source {square_name(s)} does not hold a stone of the side to move ({'xo'[self._turn]})"
        return None

    def apply(self, action: int) -> None:
        a = self._check_action_index(action)
        why = self._why_illegal(a)
        if why is not None:
            raise IllegalActionError(f"illegal action {a} ({self.action_to_string(a)}) for {'xo'[self._turn]}: {why}")
        self._apply_unchecked(a)

    def _apply_unchecked(self, a: int) -> None:
        t = self._turn
        if a != PASS_ACTION:
            d, plane = a % NUM_SQUARES, a // NUM_SQUARES
            own, opp = self._bb[t], self._bb[1 - t]
            b = 1 << d
            cap = NEAR[d] & opp
            if plane:
                df, dr = JUMP_OFFSETS[plane - 1]
                own ^= 1 << (d - dr * SIZE - df)
                self._clock += 1
            else:
                self._clock = 0
            self._bb[t] = own | b | cap
            self._bb[1 - t] = opp ^ cap
            self._cap = cap
        else:
            self._clock += 1
            self._cap = 0
        if t == 1:
            self._fullmove += 1
        self._turn = 1 - t
        self.history.append(a)
        self._st = self._compute_status()

    # ------------------------------------------------------------ notation
    @staticmethod
    def action_to_string(action: int) -> str:
        """``0 -> 'a1'``, a jump -> ``'a1c3'``, ``833 -> '0000'``.

        Raises:
            IllegalActionError: not an integer in ``[0, 834)``.
        """
        if isinstance(action, np.ndarray) and action.ndim == 0 and np.issubdtype(action.dtype, np.integer):
            action = action.item()
        if not is_int(action):
            raise IllegalActionError(f"action must be an integer in [0, {NUM_ACTIONS}), got {action!r}")
        a = int(action)
        if not 0 <= a < NUM_ACTIONS:
            raise IllegalActionError(f"action {a} is out of range: expected 0 <= action < {NUM_ACTIONS}")
        if a == PASS_ACTION:
            return "0000"
        d, plane = a % NUM_SQUARES, a // NUM_SQUARES
        if plane == 0:
            return square_name(d)
        df, dr = JUMP_OFFSETS[plane - 1]
        f, r = d % SIZE - df, d // SIZE - dr
        src = square_name(r * SIZE + f) if 0 <= f < SIZE and 0 <= r < SIZE else f"<off-board {df:+d},{dr:+d}>"
        return src + square_name(d)

    def move_in_words(self, move: str) -> str:
        """``g2`` -> ``clone to g2``, ``a1c3`` -> ``jump from a1 to c3``, ``0000`` -> ``pass``
        (see :meth:`GameState.move_in_words`; a text that is no Ataxx move comes back as it is)."""
        try:
            self.string_to_action(move)
        except InvalidMoveError:
            return move
        t = move.strip().lower()
        if t == "0000":
            return "pass"
        return f"clone to {t}" if len(t) == 2 else f"jump from {t[:2]} to {t[2:]}"

    @staticmethod
    def string_to_action(text: str) -> int:
        """Parse UAI (``g2``, ``a1c3``, ``0000``; case-insensitive; ``a1b2``-style 4-character
        moves of distance 1 are rejected).

        Raises:
            InvalidMoveError: not a well-formed Ataxx move (legality in the position is checked
                by :meth:`apply` / :meth:`push`).
        """
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move must be a string, got {type(text).__name__}")
        t = text.strip().lower()
        if t == "0000":
            return PASS_ACTION
        bad = InvalidMoveError(
            f"{text!r} is not an Ataxx move: expected 'g2' (clone), 'a1c3' (jump) or '0000' (pass), "
            "with files a-g and ranks 1-7"
        )
        if len(t) == 2:
            try:
                return parse_square(t)
            except IllegalActionError:
                raise bad from None
        if len(t) == 4:
            try:
                s, d = parse_square(t[:2]), parse_square(t[2:])
            except IllegalActionError:
                raise bad from None
            df, dr = d % SIZE - s % SIZE, d // SIZE - s // SIZE
            dist = max(abs(df), abs(dr))
            if dist != 2:
                raise InvalidMoveError(
                    f"{t!r}: a 4-character move must be a jump of king distance exactly 2, "
                    f"this one has distance {dist} (clones are written by their destination only, e.g. {t[2:]!r})"
                )
            return NUM_SQUARES * (1 + _JUMP_PLANE_OF[(df, dr)]) + d
        raise bad

    # ------------------------------------------------------------ misc
    def clone(self) -> AtaxxState:
        c = AtaxxState.__new__(AtaxxState)
        c._bb = list(self._bb)
        c._gaps = self._gaps
        c._turn = self._turn
        c._clock = self._clock
        c._fullmove = self._fullmove
        c._clock_rule = self._clock_rule
        c.history = list(self.history)
        c._st = self._st
        c._cap = self.last_converted
        c.resignations = self.resignations
        return c

    def __getstate__(self):
        return {k: getattr(self, k) for k in self.__slots__ if hasattr(self, k)}

    def __setstate__(self, d):
        self.resignations = ()  # pickled before resignations existed
        for k, v in d.items():
            setattr(self, k, v)

    def perft(self, depth: int) -> int:
        """Number of leaf nodes ``depth`` plies ahead (``envs/ataxx/RULES.md``, section Perft).

        Raises:
            ValueError: ``depth`` is not a non-negative integer.
        """
        if not is_int(depth) or depth < 0:
            raise ValueError(f"perft depth must be a non-negative integer, got {depth!r}")
        depth = int(depth)
        if depth == 0:
            return 1
        t = self._turn
        return _perft(self._bb[t], self._bb[1 - t], self._empty(), self._clock, depth, self._clock_rule)

    def board_array(self) -> np.ndarray:
        """``int8`` array ``(7, 7)``, row 0 = rank 7 (as printed): 1 x, 2 o, -1 gap, 0 empty."""
        out = np.zeros(NUM_SQUARES, dtype=np.int8)
        for v, bb in ((1, self._bb[0]), (2, self._bb[1]), (-1, self._gaps)):
            out[list(iter_bits(bb))] = v
        return out.reshape(SIZE, SIZE)[::-1].copy()

    def position_key(self) -> tuple:
        """``(fen, halfmove_clock rule)`` (and the resignation, once there is one): equal keys,
        equal futures."""
        key = self.fen(), self._clock_rule
        return key + (self.resignations,) if self.resignations else key

    def __eq__(self, other):
        """Same FEN and clock rule (:meth:`position_key`); ``history`` is not compared."""
        if not isinstance(other, AtaxxState):
            return NotImplemented
        return self.fen() == other.fen() and self.halfmove_clock == other.halfmove_clock

    __hash__ = None  # type: ignore[assignment]  # unhashable (mutable); typeshed types object.__hash__ as a method

    def __repr__(self):
        return f"AtaxxState({self.fen()!r})"

    def __str__(self):
        lines = ["  a b c d e f g"]
        for r in range(SIZE - 1, -1, -1):
            cells = " ".join(self.piece_at(r * SIZE + f) for f in range(SIZE))
            lines.append(f"{r + 1} {cells} {r + 1}")
        lines.append("  a b c d e f g")
        nx, no = self.stone_counts()
        status = f"{'xo'[self._turn]} to move" if not self.is_terminal() else f"game over {self._end_text()[0]}"
        lines.append(f"{status}; x {nx}, o {no}; halfmove clock {self._clock}; move {self._fullmove}")
        return "\n".join(lines)
