"""Smartrix rules core: :class:`SmartrixState`.

Rules: ``envs/smartrix/RULES.md`` (this project's specification of FoxMind's Smartrix, 2-7
players). Summary and the decisions this implementation takes:

* **The deck** (:data:`~envs.smartrix.cards.CARD_SQUARES`): the 70 patterns of 8 border squares
  distinct under 90° rotation; a card's value is its number of spots (0..8; 280 points in all).
  Internally a card is an index ``0..69``; in notation, records and ``position()`` it is its
  *number* ``1..70`` (the row of ``tests/data/smartrix_cards.tsv``; the deck's tables:
  :mod:`envs.smartrix.cards`). Squares are numbered clockwise from the top-left corner:
  0 TL, 1 T, 2 TR, 3 R, 4 BR, 5 B, 6 BL, 7 L; a pattern is an 8-bit int, bit ``i`` = square ``i``.
  Rotation ``k`` turns the card ``k * 90°`` clockwise (square ``i`` moves to ``i + 2k``).
* **Distinct orientations only.** A card whose pattern repeats after 90° or 180° (period 1 or 2)
  is only ever placed with its rotations ``0 .. period-1``; the other rotation numbers would give the
  very same placement, so they are not legal actions (notation parsing maps them to the canonical
  rotation). So the legal placements counted anywhere are *distinct* placements.
* **Coordinates.** The first card lies at ``(0, 0)``; row grows downward, column rightward.
  Positions are absolute (they never move), though the table drifts. When the table becomes empty
  (a placement collected every card on it) the next card goes on ``(0, 0)``, "the centre".
* **Matching.** A new card must touch a table card orthogonally or diagonally; wherever it touches,
  facing squares must agree (spot-spot, empty-empty): three squares along a shared side, one corner
  against one corner diagonally.
* **5x5 rule** (``grid_limit=True``): all table cards always fit in a 5x5 box. **Kids variant**
  (``grid_limit=False``): no box, but a placement must lie inside the action window (``window``
  squares a side, default 21, centred on the table): a bound of this implementation, so that the
  action space is finite. It keeps the table at most ``window`` squares wide. Measured in
  ``benchmarks/bench_smartrix.py`` (random play with ``window=35``, 2 players): tables reach 17
  squares wide at the median and 21 at most; a legal square beyond a 21-wide window turned up in
  about 1% of turns (0.06% of legal placements), beyond 15 in 37% of turns, beyond 25 never.
* **Sets.** A placement that makes a run of 5 (kids: 5 or more) consecutive cards in a row, column
  or diagonal collects every card of every such run through it, the placed card included (at most
  17 cards: four lines of five). Sets are collected automatically, so the printed "assault" rule
  (taking illegally placed cards, or a set someone forgot to collect) can never arise: illegal
  placements are impossible and no set is ever left on the table.
* **Turns and the draw.** Player 0 starts. *The draw is automatic*: when a turn begins, the player
  to move draws the top card of the pile (if any) before anything else, so a state always shows the
  mover's hand *after* the draw and the mask is computed on it. An action is then "place card
  ``n`` with rotation ``k`` on a square" or "pass". Passing is always legal.
* **Dropping out.** A player who passes when the draw pile is empty (at the moment of the pass, so
  also right after drawing the last card) is out for the rest of the game; out players are skipped.
  Teams: in that end phase a pass puts *both* partners out (the other team continues until one of
  its members runs out of cards or passes).
* **End.** The game ends as soon as a player places the last card of their hand, or when every
  player is out. Score = value of collected cards minus value of cards left in hand (teams: the
  partners' sum). Returns: +1 to the sole top scorer (team), 0 to each of several tied for first,
  -1 to everyone else.
* **Teams** (``teams=True``, 4 players): partners sit opposite (0 & 2, 1 & 3); ``team_of(p) = p % 2``.

Action encoding (state actions = environment actions; every agent acts in the same frame). The
``W x W`` *window* (``W = 7`` with the 5x5 rule) is centred on the table: its centre square is
``m = (floor((rmin + rmax) / 2), floor((cmin + cmax) / 2))`` of the table cards' bounding box, or
``(0, 0)`` on an empty table (where the next card must go). With the 5x5 rule every legal square
lies in it. Rows (columns alike), for a table of height ``h = rmax - rmin + 1 <= 5``: a new card
must touch a card, so its row ``r`` is in ``rmin - 1 .. rmax + 1``, and the box rule also needs
``rmax - 4 <= r <= rmin + 4``; the window covers ``m - 3 .. m + 3`` with
``m = rmin + floor((h - 1) / 2)``. Then ``m - 3 <= rmin - 1`` because ``floor((h - 1) / 2) <= 2``,
and ``m + 3 >= rmax + 1`` because ``floor((h - 1) / 2) + 3 >= h`` for ``h <= 5``. (Without the
adjacency requirement a 9x9 window would be needed; 7x7 keeps the action space at 13721.) Then, with ``WW = W * W``:

* ``((card * 4 + rotation) * WW) + wr * W + wc``: place card index ``card`` (0..69) with
  ``rotation`` on window square ``(wr, wc)``;
* ``280 * WW``: pass.

So ``num_actions = 280 * W * W + 1`` (13721 with the 5x5 rule, 123481 for the kids default
``window=21``). Indexing by card identity rather than hand slot makes the mask exact whatever the
hand size (hands grow without bound when players draw and pass).

Notation: ``17r1@-1,+2`` = card number 17, rotation 1, on row -1, column +2 (absolute); ``pass``.

Example:
    >>> import numpy as np
    >>> s = SmartrixState(2, rng=np.random.default_rng(0))
    >>> s.current_player, len(s.hand(0)), s.pile_size
    (0, 6, 58)
"""

from __future__ import annotations

import bisect
import json
import re
from typing import Any

import numpy as np

from envs.core.checks import is_int, require_bool
from envs.core.errors import IllegalActionError, InvalidMoveError, InvalidPositionError, ParameterError
from envs.core.state import GameInfo, GameState
from envs.smartrix.cards import (
    CARD_PATTERNS,
    CARD_PERIODS,
    CARD_SQUARES,
    CARD_VALUES,
    NUM_CARDS,
    card_pattern,
    rotate_pattern,
)

__all__ = [
    "SmartrixState",
    "CARD_SQUARES",
    "CARD_PATTERNS",
    "CARD_VALUES",
    "CARD_PERIODS",
    "NUM_CARDS",
    "HAND_SIZE",
    "rotate_pattern",
    "card_pattern",
]

HAND_SIZE = 5
NUM_PLANES = NUM_CARDS * 4  # (card, rotation) pairs
MAX_PLAYERS = 7
_MAX_COORD = 20  # |row|, |col| bound for hand-built tables
#: The keys of :meth:`SmartrixState.position` (:meth:`SmartrixState.from_position`'s arguments).
_POSITION_KEYS = (
    "num_players",
    "grid_limit",
    "teams",
    "window",
    "table",
    "hands",
    "pile",
    "collected",
    "current_player",
    "out",
)

_VALID_ROT = np.arange(4)[None, :] < CARD_PERIODS[:, None]  # (70, 4) bool
_PAT_L = CARD_PATTERNS.tolist()
_VAL_L = CARD_VALUES.tolist()
_PER_L = CARD_PERIODS.tolist()


# Neighbour directions (drow, dcol): N, NE, E, SE, S, SW, W, NW; d and d+4 are opposite.
DIRS = ((-1, 0), (-1, 1), (0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1))
# For a card A and its neighbour B in direction d: the (square of A, square of B) pairs that face.
_FACING = (
    ((0, 6), (1, 5), (2, 4)),  # B above
    ((2, 6),),  # B up-right
    ((2, 0), (3, 7), (4, 6)),  # B right
    ((4, 0),),  # B down-right
    ((6, 0), (5, 1), (4, 2)),  # B below
    ((6, 2),),  # B down-left
    ((0, 2), (7, 3), (6, 4)),  # B left
    ((0, 4),),  # B up-left
)
# REQ1[d][q] / REQ0[d][q] (lists 8 x 256 of int bit masks over A's squares; shared with the batched
# core, envs/smartrix/vector.py): squares of A that must hold a spot / be empty when B (pattern q) lies
# in direction d of A.
REQ1 = [[sum(1 << a for a, b in _FACING[d] if q >> b & 1) for q in range(256)] for d in range(8)]
REQ0 = [[sum(1 << a for a, b in _FACING[d] if not q >> b & 1) for q in range(256)] for d in range(8)]
# A card of pattern p put down: what it asks of its neighbour in direction d (p lies at d+4 of it).
_NB_REQ1 = [REQ1[(d + 4) % 8] for d in range(8)]
_NB_REQ0 = [REQ0[(d + 4) % 8] for d in range(8)]
_LINES = ((0, 1), (1, 0), (1, 1), (1, -1))
_DIR_NAMES = (
    "above it",
    "up-right of it",
    "right of it",
    "down-right of it",
    "below it",
    "down-left of it",
    "left of it",
    "up-left of it",
)

_MOVE_RE = re.compile(r"^\s*(\d+)\s*r\s*(\d)\s*@\s*([+-]?\d+)\s*,\s*([+-]?\d+)\s*$", re.IGNORECASE)

# Where a card is (``_where``).
_PILE, _HAND, _TABLE, _COLLECTED = 0, 1, 2, 3


class SmartrixState(GameState):
    """A Smartrix game in progress (see the module docstring for the rules and encodings).

    Args:
        num_players: 2 to 7.
        rng: ``numpy.random.Generator`` that shuffles the deck (default: a fresh unseeded one).
        grid_limit: the 5x5 rule (``False``: the kids variant).
        teams: team game (4 players only; partners 0 & 2, 1 & 3).
        window: side of the action window (odd). Default 7 with the 5x5 rule (exactly enough,
            and the only value allowed there), 21 without; 5..35 (odd) for the kids variant.
        deck: the deal order instead of a shuffle: a permutation of the card numbers 1..70.
            Players ``0..n-1`` get ``deck[5i:5i+5]``, ``deck[5n]`` goes face up on ``(0, 0)``, the
            rest is the draw pile, drawn from the front. Records store it so replays are exact.
        seed: alternative to ``rng``: an int >= 0 for ``numpy.random.default_rng`` (not with ``rng``).

    Raises:
        ParameterError: a bad argument (message says which and why).

    Attributes:
        team_game: ``True`` in the team game (the ``teams`` argument); :meth:`teams` lists the teams.
        history: the actions applied since the start (``list[int]``, a property); :meth:`moves`
            gives them in notation.
    """

    __slots__ = (
        "num_players",
        "num_actions",
        "grid_limit",
        "team_game",
        "window",
        "_H",
        "_WW",
        "_G",
        "_card",
        "_rot",
        "_req1",
        "_req0",
        "_ncnt",
        "_card_v",
        "_rot_v",
        "_req1_v",
        "_req0_v",
        "_ncnt_v",
        "_offr",
        "_offc",
        "_cells",
        "_minr",
        "_maxr",
        "_minc",
        "_maxc",
        "_pile",
        "_hands",
        "_collected",
        "_points",
        "_out",
        "resignations",
        "_current",
        "_over",
        "_where",
        "_owner",
        "_history",
        "_start",
        "_turn",
        "_last_collected",
        "_actions",
    )

    info = GameInfo(
        short_name="smartrix",
        long_name="Smartrix",
        perfect_information=False,
        chance=True,
        min_players=2,
        max_players=MAX_PLAYERS,
        teams=True,
        seat_names=(),
        notation="Smartrix: 17r1@-1,+2 = card 17 turned 1 quarter clockwise on row -1, column +2, pass",
        heuristics="envs.smartrix.heuristics",
        board="envs.smartrix.svg",
        records="envs.smartrix.records",
        words="envs.smartrix.words",
    )

    def __init__(
        self,
        num_players: int = 2,
        rng: np.random.Generator | None = None,
        *,
        grid_limit: bool = True,
        teams: bool = False,
        window: int | None = None,
        deck=None,
        seed: int | None = None,
    ):
        self._setup(num_players, grid_limit, teams, window)
        if rng is not None and not isinstance(rng, np.random.Generator):
            raise ParameterError(f"rng must be a numpy.random.Generator or None, got {type(rng).__name__}")
        if seed is not None:
            if not is_int(seed) or seed < 0:
                raise ParameterError(f"seed must be an int >= 0 (or None), got {seed!r}")
            if rng is not None:
                raise ParameterError(f"give either seed= or rng=, not both (got seed={seed!r} and an rng)")
        if deck is None:
            if rng is None:
                rng = np.random.default_rng(None if seed is None else int(seed))
            order = (rng.permutation(NUM_CARDS)).tolist()
        else:
            try:
                numbers = [int(x) for x in deck] if all(is_int(x) for x in deck) else None
            except TypeError:
                numbers = None
            if numbers is None or sorted(numbers) != list(range(1, NUM_CARDS + 1)):
                raise ParameterError("deck must be a permutation of the card numbers 1..70")
            order = [x - 1 for x in numbers]
        n = self.num_players
        self._hands = [sorted(order[HAND_SIZE * i : HAND_SIZE * (i + 1)]) for i in range(n)]
        for i, hand in enumerate(self._hands):
            for c in hand:
                self._where[c] = _HAND
                self._owner[c] = i
        self._pile = order[HAND_SIZE * n + 1 :][::-1]  # top of the pile at the end (pop())
        self._start: dict[str, Any] = {"deck": [x + 1 for x in order]}
        self._put(order[HAND_SIZE * n], 0, self._offr, self._offc)
        self._current = 0
        self._draw(0)

    # ------------------------------------------------------------------ construction
    def _setup(self, num_players, grid_limit, teams, window) -> None:
        if not is_int(num_players) or not 2 <= num_players <= MAX_PLAYERS:
            raise ParameterError(f"num_players must be an integer from 2 to {MAX_PLAYERS}, got {num_players!r}")
        require_bool("grid_limit", grid_limit)
        require_bool("teams", teams)
        if teams and num_players != 4:
            raise ParameterError(
                f"teams=True needs exactly 4 players (two teams of two), got num_players={num_players}"
            )
        if window is None:
            window = 7 if grid_limit else 21
        if not is_int(window) or window % 2 == 0:
            raise ParameterError(f"window must be an odd integer, got {window!r}")
        if grid_limit and window != 7:
            raise ParameterError(
                f"with the 5x5 rule the window is 7 (exactly what every legal square needs), got {window}"
            )
        if not grid_limit and not 5 <= window <= 35:
            raise ParameterError(f"window must be an odd integer from 5 to 35 in the kids variant, got {window}")
        self.num_players = int(num_players)
        self.grid_limit = bool(grid_limit)
        self.team_game = bool(teams)
        self.window = int(window)
        self._H = self.window // 2
        self._WW = self.window * self.window
        self.num_actions = NUM_PLANES * self._WW + 1
        g = self._G = 2 * self.window + 12
        self._card = bytearray(g * g)  # card index + 1, 0 = empty
        self._rot = bytearray(g * g)
        self._req1 = bytearray(g * g)  # squares a card put here must have spotted
        self._req0 = bytearray(g * g)  # ... must have empty
        self._ncnt = bytearray(g * g)  # occupied neighbours
        self._views()
        self._offr = self._offc = g // 2  # internal coordinates of the absolute (0, 0)
        self._cells: list[int] = []
        self._minr = self._maxr = self._minc = self._maxc = 0
        n = self.num_players
        self._collected: list[list[int]] = [[] for _ in range(n)]
        self._points = [0] * n
        self._out = [False] * n
        self.resignations: tuple[tuple[int, int], ...] = ()
        self._over = False
        self._where = bytearray(NUM_CARDS)
        self._owner = bytearray(NUM_CARDS)
        self._history: list = []
        self._actions: list[int] = []
        self._turn = 0
        self._last_collected: list[int] = []

    def _views(self) -> None:
        g = self._G
        self._card_v = np.frombuffer(self._card, dtype=np.uint8).reshape(g, g)
        self._rot_v = np.frombuffer(self._rot, dtype=np.uint8).reshape(g, g)
        self._req1_v = np.frombuffer(self._req1, dtype=np.uint8).reshape(g, g)
        self._req0_v = np.frombuffer(self._req0, dtype=np.uint8).reshape(g, g)
        self._ncnt_v = np.frombuffer(self._ncnt, dtype=np.uint8).reshape(g, g)

    @classmethod
    def from_position(
        cls,
        *,
        num_players: int = 2,
        table=(),
        hands,
        pile=None,
        collected=None,
        current_player: int = 0,
        out=None,
        grid_limit: bool = True,
        teams: bool = False,
        window: int | None = None,
    ) -> SmartrixState:
        """Build a position by hand (tests, puzzles, determinisations).

        Args:
            num_players, grid_limit, teams, window: as for the constructor.
            table: ``(number, rotation, row, col)`` per table card; absolute coordinates
                (``|row|, |col| <= 20``). Every touching pair must match, the 5x5 rule must hold
                (when on) and no run of 5 may be on the table.
            hands: one list of card numbers per player, as they stand when ``current_player``
                decides (this turn's draw already made: nothing is drawn on construction).
            pile: card numbers in draw order (first drawn first); ``None``: every card not listed
                elsewhere, in increasing order. With a list, all 70 cards must be accounted for.
            collected: one list of card numbers per player (their points are the cards' values).
            current_player: the player to move; must not be out and must hold a card.
            out: one bool per player (default all ``False``).

        Raises:
            ParameterError: a bad setting. InvalidPositionError: an impossible position.
        """
        self = cls.__new__(cls)
        self._setup(num_players, grid_limit, teams, window)
        n = self.num_players

        def numbers(seq, what):
            try:
                seq = list(seq)
            except TypeError:
                raise InvalidPositionError(f"{what} must be a list of card numbers, got {seq!r}") from None
            for x in seq:
                if not is_int(x) or not 1 <= x <= NUM_CARDS:
                    raise InvalidPositionError(f"{what}: {x!r} is not a card number 1..70")
            return [int(x) - 1 for x in seq]

        def per_player(seq, what):
            if seq is None:
                return [[] for _ in range(n)]
            seq = list(seq)
            if len(seq) != n:
                raise InvalidPositionError(f"{what} must have one entry per player ({n}), got {len(seq)}")
            return [numbers(s, f"{what}[{i}]") for i, s in enumerate(seq)]

        hands_i = per_player(hands, "hands")
        coll_i = per_player(collected, "collected")
        seen: dict[int, str] = {}

        def claim(c, where):
            if c in seen:
                raise InvalidPositionError(f"card {c + 1} appears twice ({seen[c]} and {where})")
            seen[c] = where

        tab = []
        for entry in table:
            try:
                num, rot, r, c = entry
            except (TypeError, ValueError):
                raise InvalidPositionError(f"table entries are (number, rotation, row, col), got {entry!r}") from None
            (card,) = numbers([num], "table")
            if not is_int(rot) or not 0 <= rot <= 3:
                raise InvalidPositionError(f"table card {num}: rotation must be 0..3, got {rot!r}")
            if not (is_int(r) and is_int(c)) or abs(r) > _MAX_COORD or abs(c) > _MAX_COORD:
                raise InvalidPositionError(
                    f"table card {num}: position must be integers within +-{_MAX_COORD}, got {(r, c)!r}"
                )
            claim(card, "table")
            tab.append((card, int(rot) % _PER_L[card], int(r), int(c)))
        for i, h in enumerate(hands_i):
            for c in h:
                claim(c, f"hand {i}")
        for i, h in enumerate(coll_i):
            for c in h:
                claim(c, f"collected {i}")
        if pile is None:
            pile_i = [c for c in range(NUM_CARDS) if c not in seen]
        else:
            pile_i = numbers(pile, "pile")
            for c in pile_i:
                claim(c, "pile")
            missing = [c + 1 for c in range(NUM_CARDS) if c not in seen]
            if missing:
                raise InvalidPositionError(f"cards missing from the position: {missing}")
        out_l = [False] * n if out is None else [bool(x) for x in out]
        if len(out_l) != n:
            raise InvalidPositionError(f"out must have one flag per player ({n}), got {len(out_l)}")
        if not is_int(current_player) or not 0 <= current_player < n:
            raise InvalidPositionError(f"current_player must be 0..{n - 1}, got {current_player!r}")
        if out_l[current_player]:
            raise InvalidPositionError(f"current_player {current_player} is out")
        for i in range(n):
            if not out_l[i] and not hands_i[i]:
                raise InvalidPositionError(f"player {i} is in the game with an empty hand (the game would be over)")
        if tab:
            rows = [r for _, _, r, _ in tab]
            cols = [c for _, _, _, c in tab]
            if grid_limit and (max(rows) - min(rows) > 4 or max(cols) - min(cols) > 4):
                raise InvalidPositionError("the table cards do not fit in a 5x5 box")
            if not grid_limit and (max(rows) - min(rows) >= self.window or max(cols) - min(cols) >= self.window):
                raise InvalidPositionError(f"the table cards do not fit in the {self.window}x{self.window} window")
            pos = {(r, c): (card, rot) for card, rot, r, c in tab}
            if len(pos) != len(tab):
                raise InvalidPositionError("two table cards on the same square")
            for (r, c), (card, rot) in pos.items():
                p = _PAT_L[card][rot]
                for d, (dr, dc) in enumerate(DIRS):
                    nb = pos.get((r + dr, c + dc))
                    if nb is not None:
                        q = _PAT_L[nb[0]][nb[1]]
                        if (p & (REQ1[d][q] | REQ0[d][q])) != REQ1[d][q]:
                            raise InvalidPositionError(
                                f"table cards {card + 1} at {(r, c)} and {nb[0] + 1} at {(r + dr, c + dc)} do not match"
                            )
            for r, c in pos:
                for dr, dc in _LINES:
                    if all((r + k * dr, c + k * dc) in pos for k in range(5)):
                        raise InvalidPositionError(f"a complete set (5 in a line from {(r, c)}) is on the table")
            g = self._G
            self._offr = g // 2 - (min(rows) + max(rows)) // 2
            self._offc = g // 2 - (min(cols) + max(cols)) // 2
            for card, rot, r, c in tab:
                self._put(card, rot, self._offr + r, self._offc + c)
            self._ensure_room()
        self._hands = [sorted(h) for h in hands_i]
        for i, h in enumerate(self._hands):
            for c in h:
                self._where[c] = _HAND
                self._owner[c] = i
        for i, h in enumerate(coll_i):
            self._collected[i] = sorted(h)
            self._points[i] = sum(_VAL_L[c] for c in h)
            for c in h:
                self._where[c] = _COLLECTED
                self._owner[c] = i
        self._pile = pile_i[::-1]
        self._out = out_l
        self._current = int(current_player)
        if all(out_l):
            raise InvalidPositionError("every player is out")
        self._start = {"position": self.position()}
        return self

    def position(self) -> dict:
        """The position as :meth:`from_position` keyword arguments (JSON-compatible)."""
        g = self._G
        table = []
        for idx in self._cells:
            r, c = divmod(idx, g)
            table.append([self._card[idx], self._rot[idx], r - self._offr, c - self._offc])
        return {
            "num_players": self.num_players,
            "grid_limit": self.grid_limit,
            "teams": self.team_game,
            "window": self.window,
            "table": table,
            "hands": [[c + 1 for c in h] for h in self._hands],
            "pile": [c + 1 for c in reversed(self._pile)],
            "collected": [[c + 1 for c in h] for h in self._collected],
            "current_player": self._current,
            "out": list(self._out),
        }

    # ------------------------------------------------------------------ low-level table updates
    def _recompute(self, idx: int) -> None:
        g = self._G
        card, rot = self._card, self._rot
        r1 = r0 = n = 0
        for d, (dr, dc) in enumerate(DIRS):
            j = idx + dr * g + dc
            cj = card[j]
            if cj:
                q = _PAT_L[cj - 1][rot[j]]
                r1 |= REQ1[d][q]
                r0 |= REQ0[d][q]
                n += 1
        self._req1[idx] = r1
        self._req0[idx] = r0
        self._ncnt[idx] = n

    def _put(self, card: int, rot: int, r: int, c: int) -> None:
        """Put a card on the internal square (r, c) (no checks, no collection)."""
        g = self._G
        idx = r * g + c
        self._card[idx] = card + 1
        self._rot[idx] = rot
        p = _PAT_L[card][rot]
        req1, req0, ncnt = self._req1, self._req0, self._ncnt
        for d, (dr, dc) in enumerate(DIRS):
            j = idx + dr * g + dc
            req1[j] |= _NB_REQ1[d][p]
            req0[j] |= _NB_REQ0[d][p]
            ncnt[j] += 1
        if self._cells:
            if r < self._minr:
                self._minr = r
            elif r > self._maxr:
                self._maxr = r
            if c < self._minc:
                self._minc = c
            elif c > self._maxc:
                self._maxc = c
        else:
            self._minr = self._maxr = r
            self._minc = self._maxc = c
        self._cells.append(idx)
        self._where[card] = _TABLE

    def _ensure_room(self) -> None:
        """Shift the internal arrays when the table nears their edge (positions stay absolute)."""
        g, h = self._G, self._H + 2
        if self._minr - h >= 0 and self._maxr + h < g and self._minc - h >= 0 and self._maxc + h < g:
            return
        dr = g // 2 - (self._minr + self._maxr) // 2
        dc = g // 2 - (self._minc + self._maxc) // 2
        for v in (self._card_v, self._rot_v, self._req1_v, self._req0_v, self._ncnt_v):
            v[:] = np.roll(v, (dr, dc), axis=(0, 1))
        shift = dr * g + dc
        self._cells = [i + shift for i in self._cells]
        self._minr += dr
        self._maxr += dr
        self._minc += dc
        self._maxc += dc
        self._offr += dr
        self._offc += dc

    def _bbox(self) -> None:
        g = self._G
        rows = [i // g for i in self._cells]
        cols = [i % g for i in self._cells]
        self._minr, self._maxr, self._minc, self._maxc = min(rows), max(rows), min(cols), max(cols)

    def _runs(self, idx: int) -> list[int]:
        """Squares (other than ``idx``) a card on ``idx`` would collect: every line run through it
        of 5 or more consecutive cards (``idx`` counted as occupied)."""
        g = self._G
        card = self._card
        out: list[int] = []
        for dr, dc in _LINES:
            step = dr * g + dc
            run = []
            j = idx + step
            while card[j]:
                run.append(j)
                j += step
            j = idx - step
            while card[j]:
                run.append(j)
                j -= step
            if len(run) >= 4:
                out.extend(run)
        return out

    def _draw(self, player: int) -> None:
        if self._pile:
            c = self._pile.pop()
            bisect.insort(self._hands[player], c)
            self._where[c] = _HAND
            self._owner[c] = player

    # ------------------------------------------------------------------ window
    def _origin(self) -> tuple[int, int]:
        """Internal coordinates of the window's top-left square."""
        h = self._H
        if not self._cells:
            return self._offr - h, self._offc - h
        return (self._minr + self._maxr) // 2 - h, (self._minc + self._maxc) // 2 - h

    def window_origin(self) -> tuple[int, int]:
        """Absolute ``(row, col)`` of the window's top-left square (action ``wr, wc = 0, 0``)."""
        r0, c0 = self._origin()
        return r0 - self._offr, c0 - self._offc

    def _allowed_area(self, r0: int, c0: int) -> tuple[int, int, int, int]:
        """Window rows/cols ``[rlo, rhi) x [clo, chi)`` where the placement rules allow a card."""
        w = self.window
        if not self._cells:
            return self._H, self._H + 1, self._H, self._H + 1
        if not self.grid_limit:
            return 0, w, 0, w
        return (
            max(0, self._maxr - 4 - r0),
            min(w, self._minr + 5 - r0),
            max(0, self._maxc - 4 - c0),
            min(w, self._minc + 5 - c0),
        )

    # ------------------------------------------------------------------ GameState API
    @property
    def current_player(self) -> int:
        return -1 if self._over else self._current

    @property
    def pass_action(self) -> int:
        """The action index of ``pass``."""
        return self.num_actions - 1

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if self._over:
            return mask
        mask[-1] = 1
        hand = self._hands[self._current]
        if not hand:
            return mask
        w, ww = self.window, self._WW
        r0, c0 = self._origin()
        hand_a = np.asarray(hand)
        pats = CARD_PATTERNS[hand_a]  # (h, 4)
        valid = _VALID_ROT[hand_a]
        if not self._cells:
            hh, rr = np.nonzero(valid)
            mask[(hand_a[hh] * 4 + rr) * ww + self._H * w + self._H] = 1
            return mask
        rlo, rhi, clo, chi = self._allowed_area(r0, c0)
        sr, sc = slice(r0 + rlo, r0 + rhi), slice(c0 + clo, c0 + chi)
        req1 = self._req1_v[sr, sc]
        req0 = self._req0_v[sr, sc]
        cand = (self._ncnt_v[sr, sc] > 0) & (self._card_v[sr, sc] == 0) & ((req1 & req0) == 0)
        rr_, cc_ = np.nonzero(cand)
        if len(rr_) == 0:
            return mask
        v1 = req1[rr_, cc_].astype(np.int64)
        m = v1 | req0[rr_, cc_]
        fits = ((pats[None, :, :] & m[:, None, None]) == v1[:, None, None]) & valid[None]
        ii, hh, rot = np.nonzero(fits)
        mask[(hand_a[hh] * 4 + rot) * ww + (rr_[ii] + rlo) * w + (cc_[ii] + clo)] = 1
        return mask

    def legal_placements(self) -> list[int]:
        """The legal placement actions (everything legal but ``pass``), sorted."""
        return np.flatnonzero(self.legal_action_mask()[:-1]).tolist()

    def decode(self, action: int) -> tuple[int, int, int, int] | None:
        """``(card number, rotation, row, col)`` (absolute) of a placement action; ``None`` for pass."""
        a = self._check_action_index(action)
        if a == self.num_actions - 1:
            return None
        plane, cell = divmod(a, self._WW)
        card, rot = divmod(plane, 4)
        wr, wc = divmod(cell, self.window)
        r0, c0 = self.window_origin()
        return card + 1, rot, r0 + wr, c0 + wc

    def encode(self, number: int, rotation: int, row: int, col: int) -> int:
        """The action placing card *number* with ``rotation`` on absolute ``(row, col)``.

        The rotation is reduced to the card's canonical one (``rotation % period``).

        Raises:
            IllegalActionError: not a card or rotation, or the square lies outside the window.
        """
        if not (is_int(number) and 1 <= number <= NUM_CARDS):
            raise IllegalActionError(f"{number!r} is not a card number 1..70")
        if not (is_int(rotation) and 0 <= rotation <= 3):
            raise IllegalActionError(f"rotation must be 0..3, got {rotation!r}")
        r0, c0 = self.window_origin()
        wr, wc = row - r0, col - c0
        w = self.window
        if not (0 <= wr < w and 0 <= wc < w):
            raise IllegalActionError(
                f"square {row:+d},{col:+d} lies outside the {w}x{w} action window "
                f"(rows {r0:+d}..{r0 + w - 1:+d}, cols {c0:+d}..{c0 + w - 1:+d}), so no card can go there"
            )
        card = number - 1
        rot = rotation % _PER_L[card]
        return (card * 4 + rot) * self._WW + wr * w + wc

    def action_to_string(self, action: int) -> str:
        d = self.decode(action)
        if d is None:
            return "pass"
        n, k, r, c = d
        return f"{n}r{k}@{r:+d},{c:+d}"

    def move_in_words(self, move: str) -> str:
        """``17r1@-1,+2`` -> ``card 17 on row -1, column +2, turned 1 quarter clockwise``,
        ``pass`` -> ``pass`` (see :meth:`GameState.move_in_words`; a text that is no Smartrix
        move comes back as it is)."""
        m = _MOVE_RE.match(move) if isinstance(move, str) else None
        if not m:
            return move
        n, k, r, c = (int(x) for x in m.groups())
        if not (1 <= n <= NUM_CARDS and 0 <= k <= 3):
            return move
        turned = "not turned" if k == 0 else f"turned {k} quarter{'s' if k > 1 else ''} clockwise"
        return f"card {n} on row {r:+d}, column {c:+d}, {turned}"

    def string_to_action(self, text: str) -> int:
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move must be a string, got {text!r}")
        if text.strip().lower() == "pass":
            return self.num_actions - 1
        m = _MOVE_RE.match(text)
        if not m:
            raise InvalidMoveError(
                f"{text!r} is not a Smartrix move: expected 'pass' or "
                "'<card>r<rotation>@<row>,<col>' such as '17r1@-1,+2'"
            )
        n, k, r, c = (int(x) for x in m.groups())
        if not 1 <= n <= NUM_CARDS:
            raise InvalidMoveError(f"{text!r}: card {n} does not exist (cards are 1..70)")
        if not 0 <= k <= 3:
            raise InvalidMoveError(f"{text!r}: rotation {k} must be 0..3")
        return self.encode(n, k, r, c)

    def _why_illegal(self, a: int) -> str | None:
        """Why placement action ``a`` is illegal now (``None`` if it is legal)."""
        p = self._current
        plane, cell = divmod(a, self._WW)
        card, rot = divmod(plane, 4)
        if self._where[card] != _HAND or self._owner[card] != p:
            return f"card {card + 1} is not in player {p}'s hand"
        if rot >= _PER_L[card]:
            return (
                f"card {card + 1} looks the same turned by {_PER_L[card] * 90} degrees: use rotation "
                f"{rot % _PER_L[card]} (only distinct orientations are actions)"
            )
        wr, wc = divmod(cell, self.window)
        r0, c0 = self._origin()
        rlo, rhi, clo, chi = self._allowed_area(r0, c0)
        r, c = r0 + wr, c0 + wc
        idx = r * self._G + c
        if not self._cells:
            if (wr, wc) != (self._H, self._H):
                return "the table is empty: the next card goes in the centre (+0,+0)"
            return None
        if self._card[idx]:
            return f"square {r - self._offr:+d},{c - self._offc:+d} is occupied by card {self._card[idx]}"
        if not self._ncnt[idx]:
            return "it touches no card on the table (orthogonally or diagonally)"
        if not (rlo <= wr < rhi and clo <= wc < chi):
            return "the table would no longer fit in a 5x5 box"
        pat = _PAT_L[card][rot]
        g = self._G
        for d, (dr, dc) in enumerate(DIRS):
            j = idx + dr * g + dc
            if self._card[j]:
                q = _PAT_L[self._card[j] - 1][self._rot[j]]
                if (pat & (REQ1[d][q] | REQ0[d][q])) != REQ1[d][q]:
                    return (
                        f"its squares do not match card {self._card[j]} {_DIR_NAMES[d]} "
                        "(facing squares must be spot-spot or empty-empty)"
                    )
        return None

    def apply(self, action) -> None:
        a = self._check_action_index(action)
        if self._over:
            raise IllegalActionError(f"action {a}: the game is over")
        p = self._current
        if a == self.num_actions - 1:
            self._history.append(None)
            self._actions.append(a)
            self._turn += 1
            self._last_collected = []
            if not self._pile:
                self._out[p] = True
                if self.team_game:
                    self._out[(p + 2) % 4] = True
            self._advance(p)
            return
        why = self._why_illegal(a)
        if why is not None:
            raise IllegalActionError(f"illegal move {self.action_to_string(a)} (action {a}) by player {p}: {why}")
        plane, cell = divmod(a, self._WW)
        card, rot = divmod(plane, 4)
        wr, wc = divmod(cell, self.window)
        r0, c0 = self._origin()
        r, c = r0 + wr, c0 + wc
        self._history.append((card + 1, rot, r - self._offr, c - self._offc))
        self._actions.append(a)
        self._turn += 1
        self._hands[p].remove(card)
        self._put(card, rot, r, c)
        idx = r * self._G + c
        taken = self._runs(idx)
        if taken:
            taken.append(idx)
            taken = sorted(set(taken))
            self._take(p, taken)
        else:
            self._last_collected = []
            self._ensure_room()
        if not self._hands[p]:
            self._over = True
            return
        self._advance(p)

    def _take(self, p: int, cells: list[int]) -> None:
        g = self._G
        got = []
        for idx in cells:
            card = self._card[idx] - 1
            got.append(card)
            self._card[idx] = 0
            self._rot[idx] = 0
            self._where[card] = _COLLECTED
            self._owner[card] = p
            self._points[p] += _VAL_L[card]
        for card in got:
            bisect.insort(self._collected[p], card)
        self._last_collected = sorted(got)
        gone = set(cells)
        self._cells = [i for i in self._cells if i not in gone]
        touched = set()
        for idx in cells:
            touched.add(idx)
            for dr, dc in DIRS:
                touched.add(idx + dr * g + dc)
        for idx in touched:
            self._recompute(idx)
        if self._cells:
            self._bbox()
            self._ensure_room()
        else:
            self._offr = self._offc = g // 2  # arrays are all zero again: re-centre on (0, 0)

    def _advance(self, p: int) -> None:
        n = self.num_players
        for k in range(1, n + 1):
            q = (p + k) % n
            if not self._out[q]:
                self._current = q
                self._draw(q)
                return
        self._over = True

    def is_terminal(self) -> bool:
        return self._over

    def scores(self) -> list[int]:
        """Per player: collected points minus the value of the cards in hand (final once over)."""
        return [self._points[i] - sum(_VAL_L[c] for c in self._hands[i]) for i in range(self.num_players)]

    def team_scores(self) -> list[int]:
        """Teams: ``[team 0 (players 0, 2), team 1 (players 1, 3)]``; otherwise :meth:`scores`."""
        s = self.scores()
        return [s[0] + s[2], s[1] + s[3]] if self.team_game else s

    def team_of(self, player: int) -> int:
        return player % 2 if self.team_game else player

    def _top(self) -> list[int]:
        """Players with the top (team) score among those who did not resign."""
        ts = self.team_scores()
        gone = self._resigned_seats()
        live = [p for p in range(self.num_players) if p not in gone]
        best = max(ts[self.team_of(p)] for p in live)
        return [p for p in live if ts[self.team_of(p)] == best]

    # ------------------------------------------------------------------ resignation
    def _resigned_seats(self) -> tuple[int, ...]:
        """The seats out by resignation (both partners of a team), ascending."""
        teams = {self.team_of(p) for _, p in self.resignations}
        return tuple(p for p in range(self.num_players) if self.team_of(p) in teams)

    def _live_sides(self) -> set[int]:
        gone = self._resigned_seats()
        return {self.team_of(p) for p in range(self.num_players) if p not in gone}

    def resign(self, player: int) -> None:
        """``player`` resigns (``envs/smartrix/RULES.md``, "Resignation"): its side (its team,
        in a team game) is out at once, its hand no longer played; with one side left that has not
        resigned the game ends and that side wins, otherwise play goes on without it, and at the
        end it ranks below every side that did not resign.

        Raises:
            ValueError: ``player`` is not a seat. IllegalActionError: the game is over, or the
                seat already resigned (the state is unchanged either way).
        """
        self._check_seat(player, "player")
        if self._over:
            raise IllegalActionError("the game is over: nobody can resign")
        if player in self._resigned_seats():
            raise IllegalActionError(f"player {player} has already resigned")
        self.resignations = self.resignations + ((len(self._actions), int(player)),)
        for p in self._resigned_seats():
            self._out[p] = True
        if len(self._live_sides()) <= 1:
            self._over = True
        elif self._out[self._current]:
            self._advance(self._current)

    def _end_text(self) -> tuple[str, str]:
        """Result ``"player k won"``, ``"team k won"`` or ``"draw"`` (tied top scores; the others
        lose), and why the game ended."""
        why = (
            "a player has played out their hand"
            if any(not h for h in self._hands)
            else "the other sides resigned"
            if self.resignations and len(self._live_sides()) <= 1
            else "the pile is empty and every player is out"
        )
        win = self._top()
        sides = sorted({self.team_of(p) for p in win})
        if len(sides) > 1:
            return "draw", why
        return (f"team {sides[0]} won" if self.team_game else f"player {win[0]} won"), why

    def returns(self) -> np.ndarray:
        """+1 for the top (team) score, -1 for the others; tied top scores get 0 (the others -1)."""
        out = np.zeros(self.num_players, dtype=np.float64)
        if not self._over:
            return out
        win = self._top()
        if len({self.team_of(p) for p in win}) == 1:
            out[:] = -1.0
            out[win] = 1.0
        else:
            out[:] = -1.0
            out[win] = 0.0
        return out

    # ------------------------------------------------------------------ queries
    def hand(self, player: int) -> list[int]:
        """Card numbers in ``player``'s hand (hidden information), ascending."""
        return [c + 1 for c in self._hands[player]]

    def hand_size(self, player: int) -> int:
        return len(self._hands[player])

    def hand_value(self, player: int) -> int:
        return sum(_VAL_L[c] for c in self._hands[player])

    def collected(self, player: int) -> list[int]:
        return [c + 1 for c in self._collected[player]]

    def points(self, player: int) -> int:
        """Value of the cards ``player`` has collected."""
        return self._points[player]

    def is_out(self, player: int) -> bool:
        return self._out[player]

    @property
    def pile_size(self) -> int:
        return len(self._pile)

    @property
    def turn_number(self) -> int:
        """Actions played so far (placements and passes)."""
        return self._turn

    @property
    def last_collected(self) -> list[int]:
        """Card numbers the last action collected (``[]`` if none)."""
        return [c + 1 for c in self._last_collected]

    def table(self) -> list[tuple[int, int, int, int]]:
        """``(number, rotation, row, col)`` of every table card, in the order they were put down."""
        g = self._G
        return [(self._card[i], self._rot[i], i // g - self._offr, i % g - self._offc) for i in self._cells]

    def table_size(self) -> int:
        return len(self._cells)

    def bounding_box(self) -> tuple[int, int, int, int] | None:
        """Absolute ``(rmin, rmax, cmin, cmax)`` of the table cards, ``None`` when empty."""
        if not self._cells:
            return None
        return (self._minr - self._offr, self._maxr - self._offr, self._minc - self._offc, self._maxc - self._offc)

    def seen_cards(self) -> list[int]:
        """Card numbers everyone has seen: on the table or collected, ascending."""
        return [c + 1 for c in range(NUM_CARDS) if self._where[c] in (_TABLE, _COLLECTED)]

    def unseen_cards(self, player: int) -> list[int]:
        """Card numbers ``player`` has not seen: other players' hands and the pile, ascending."""
        return [
            c + 1
            for c in range(NUM_CARDS)
            if self._where[c] == _PILE or (self._where[c] == _HAND and self._owner[c] != player)
        ]

    def placement_collects(self, action: int) -> list[int]:
        """Card numbers a placement action would collect from the table (the placed card not
        included; ``[]`` for no set). Depends only on the square, not on the card."""
        d = self.decode(action)
        if d is None:
            return []
        r0, c0 = self._origin()
        cell = self._check_action_index(action) % self._WW
        wr, wc = divmod(cell, self.window)
        idx = (r0 + wr) * self._G + (c0 + wc)
        if self._card[idx]:
            return []
        return sorted(self._card[j] for j in set(self._runs(idx)))

    @property
    def history(self) -> list[int]:
        """The actions applied since the start (or since the hand-built position), a copy."""
        return list(self._actions)

    def moves(self) -> list[str]:
        """The moves played since the start (or since the hand-built position), in notation."""
        return ["pass" if h is None else f"{h[0]}r{h[1]}@{h[2]:+d},{h[3]:+d}" for h in self._history]

    @property
    def start(self) -> dict:
        """How this game started: ``{"deck": [...]}`` or ``{"position": {...}}`` (for records)."""
        return self._start

    def deal(self) -> dict:
        """The start's chance outcome for game records (a fresh copy of :attr:`start`):
        ``{"deck": [...]}``, the 70 card numbers in deal order (the hands, the face-up card and the
        whole pile), or ``{"position": {...}}`` (:meth:`position`) for a hand-built start."""
        if "deck" in self._start:
            return {"deck": list(self._start["deck"])}
        return {"position": json.loads(json.dumps(self._start["position"]))}

    def with_deal(self, deal) -> SmartrixState:
        """A new state at the start of a game with this state's settings (players, grid limit,
        teams, window) and ``deal`` (:meth:`deal`'s form); no random generator is involved.

        Raises:
            InvalidPositionError: ``deal`` is neither ``{"deck": [a permutation of 1..70]}`` nor
                ``{"position": {...}}`` with :meth:`from_position`'s keys; a position whose
                settings contradict this state's, or that is impossible.
        """
        from envs.core.records import check_permutation

        if not isinstance(deal, dict) or len(deal) != 1 or not ("deck" in deal or "position" in deal):
            raise InvalidPositionError(
                f'a Smartrix deal must be an object {{"deck": [the {NUM_CARDS} card numbers in '
                f'deal order]}} or {{"position": {{...}}}}, got {deal!r:.80}'
            )
        settings: dict[str, Any]
        settings = {
            "num_players": self.num_players,
            "grid_limit": self.grid_limit,
            "teams": self.team_game,
            "window": self.window,
        }
        if "deck" in deal:
            deck = check_permutation(deal["deck"], NUM_CARDS, "deal 'deck'", "card")
            return SmartrixState(**settings, deck=deck)
        pos = deal["position"]
        if not isinstance(pos, dict):
            raise InvalidPositionError(f"deal 'position' must be an object (SmartrixState.position()), got {pos!r:.80}")
        unknown = sorted(set(pos) - set(_POSITION_KEYS), key=str)
        if unknown:
            raise InvalidPositionError(
                f"deal 'position' has unknown keys {unknown}: expected only {list(_POSITION_KEYS)}"
            )
        for k, v in settings.items():
            if k in pos and pos[k] != v:
                raise InvalidPositionError(f"deal 'position' {k}={pos[k]!r} contradicts the game's {k}={v!r}")
        try:
            return SmartrixState.from_position(**{**pos, **settings})
        except InvalidPositionError as e:
            raise InvalidPositionError(f"deal 'position': {e}") from None
        except (ParameterError, TypeError, ValueError) as e:
            raise InvalidPositionError(f"deal 'position' is not a valid position: {e}") from None

    # ------------------------------------------------------------------ copies, determinisation
    def clone(self) -> SmartrixState:
        new = SmartrixState.__new__(SmartrixState)
        for name in (
            "num_players",
            "num_actions",
            "grid_limit",
            "team_game",
            "window",
            "_H",
            "_WW",
            "_G",
            "_offr",
            "_offc",
            "_minr",
            "_maxr",
            "_minc",
            "_maxc",
            "_current",
            "_over",
            "_turn",
            "_start",
        ):
            setattr(new, name, getattr(self, name))
        new._card = bytearray(self._card)
        new._rot = bytearray(self._rot)
        new._req1 = bytearray(self._req1)
        new._req0 = bytearray(self._req0)
        new._ncnt = bytearray(self._ncnt)
        new._views()
        new._cells = self._cells[:]
        new._pile = self._pile[:]
        new._hands = [h[:] for h in self._hands]
        new._collected = [h[:] for h in self._collected]
        new._points = self._points[:]
        new._out = self._out[:]
        new.resignations = self.resignations
        new._where = bytearray(self._where)
        new._owner = bytearray(self._owner)
        new._history = self._history[:]
        new._actions = self._actions[:]
        new._last_collected = self._last_collected[:]
        return new

    def __getstate__(self):
        d = {name: getattr(self, name) for name in self.__slots__ if not name.endswith("_v")}
        return d

    def __setstate__(self, d):
        self.resignations = ()  # a state pickled before resignations existed
        for k, v in d.items():
            setattr(self, k, v)
        self._views()

    def sample_determinization(self, player: int, rng: np.random.Generator) -> SmartrixState:
        """A full state consistent with what ``player`` knows, for search without peeking.

        The other players' hands and the draw pile are redealt uniformly at random from the cards
        ``player`` has not seen (:meth:`unseen_cards`), keeping every hand size and the pile size;
        everything public (table, collected cards, points, out flags, player to move, turn, the
        moves played: :attr:`history`, :meth:`moves`, :attr:`last_collected`) and ``player``'s own
        hand are unchanged.

        The sample is the end of a game of its own: its :attr:`start` is the real start with the
        redealt cards swapped in (each hidden card of a hand, or of the pile, replaced by the card
        the sample puts in its place), so its record (:func:`envs.smartrix.records.record_from_state`)
        replays to exactly this sample. The moves played touch only public cards, so they stay legal.

        Args:
            player: the seat whose knowledge is kept.
            rng: ``numpy.random.Generator`` for the redeal (one ``permutation`` call).

        Returns:
            A new :class:`SmartrixState`; this state is unchanged.

        Raises:
            ParameterError: ``player`` is not a seat (``ParameterError`` is a ``ValueError``).
        """
        return self._redeal(player, rng, canonical=False)

    def determinize(self, player: int, rng: np.random.Generator) -> SmartrixState:
        """A redeal of what ``player`` has not seen that does not depend on where those cards
        really are (the search's determinization, :meth:`envs.core.state.GameState.determinize`):
        the unseen cards (:meth:`unseen_cards`: the other hands and the pile) are put in card-number
        order, shuffled by one ``rng.permutation`` call, then dealt as
        :meth:`sample_determinization` deals them: the other seats' hands in seat order (each keeps
        its size), the rest to the pile, in that order. Two states that ``player`` cannot tell
        apart (other hidden hands, another pile order) give equal samples from generators in the
        same state.

        Everything public and ``player``'s own hand are kept, as by :meth:`sample_determinization`.
        The sample's :attr:`start` (what its record replays from) is the real start with the
        redealt cards swapped in, as there: it is bookkeeping for records, read by no rules, no
        observation and no vector core (``envs.make_vec(...).from_states`` keeps the position only).

        Args:
            player: the seat whose knowledge is kept.
            rng: ``numpy.random.Generator`` for the redeal (one ``permutation`` call).

        Returns:
            A new :class:`SmartrixState`; this state is unchanged.

        Raises:
            ParameterError: ``player`` is not a seat (``ParameterError`` is a ``ValueError``).
        """
        return self._redeal(player, rng, canonical=True)

    def _redeal(self, player: int, rng: np.random.Generator, *, canonical: bool) -> SmartrixState:
        """A clone with the cards ``player`` has not seen (card indices: the other hands' in seat
        order, then the pile's; with ``canonical``, sorted) permuted by one ``rng.permutation``
        call and dealt to the other hands in seat order, the rest to the pile (see
        :meth:`sample_determinization`)."""
        if not is_int(player) or not 0 <= player < self.num_players:
            raise ParameterError(f"player must be 0..{self.num_players - 1}, got {player!r}")
        others = [q for q in range(self.num_players) if q != player]
        unseen = [c for q in others for c in self._hands[q]] + self._pile
        if canonical:
            unseen = sorted(unseen)
        new = self.clone()
        perm = rng.permutation(len(unseen)).tolist()
        shuffled = [unseen[i] for i in perm]
        swap: dict[int, int] = {}  # real hidden card index -> the sample's card in its place
        k = 0
        for q in others:
            h = len(self._hands[q])
            new._hands[q] = sorted(shuffled[k : k + h])
            swap.update(zip(self._hands[q], new._hands[q]))
            for c in new._hands[q]:
                new._where[c] = _HAND
                new._owner[c] = q
            k += h
        new._pile = shuffled[k:]
        swap.update(zip(self._pile, new._pile))
        for c in new._pile:
            new._where[c] = _PILE
            new._owner[c] = 0
        new._start = self._swapped_start({c + 1: n + 1 for c, n in swap.items()})
        return new

    def _swapped_start(self, swap: dict[int, int]) -> dict:
        """:attr:`start` with every card number ``n`` replaced by ``swap.get(n, n)`` (a new dict)."""
        if "deck" in self._start:
            return {"deck": [swap.get(n, n) for n in self._start["deck"]]}
        pos = json.loads(json.dumps(self._start["position"]))
        pos["hands"] = [sorted(swap.get(n, n) for n in h) for h in pos["hands"]]
        pos["pile"] = [swap.get(n, n) for n in pos["pile"]]
        return {"position": pos}

    # ------------------------------------------------------------------ comparison, text
    def position_key(self) -> tuple:
        """Hashable key of the whole state (settings, table, hands, pile order, collected cards,
        out flags, player to move): equal keys, equal futures."""
        return (
            self.num_players,
            self.grid_limit,
            self.team_game,
            self.window,
            tuple(sorted(self.table())),
            tuple(map(tuple, self._hands)),
            tuple(self._pile),
            tuple(map(tuple, self._collected)),
            tuple(self._out),
            self.current_player,
            self._over,
        ) + ((self._resigned_seats(),) if self.resignations else ())

    def __eq__(self, other):
        """Same settings and position (:meth:`position_key`); ``history`` is not compared."""
        if not isinstance(other, SmartrixState):
            return NotImplemented
        return self.position_key() == other.position_key()

    __hash__ = None  # type: ignore[assignment]  # unhashable (mutable); typeshed types object.__hash__ as a method

    def status_line(self) -> str:
        if self._over:
            sc = self.team_scores()
            who = "team" if self.team_game else "player"
            return f"game over after {self._turn} actions; {who} scores {sc}; winners {self._top()}"
        return (
            f"turn {self._turn}: player {self._current} to move"
            f"{' (team ' + str(self.team_of(self._current)) + ')' if self.team_game else ''}; pile {len(self._pile)}"
        )

    def __str__(self) -> str:
        return self.to_text()

    def to_text(self, viewer: int | None = None) -> str:
        """The text table: cards as 3x3 spot diagrams (``o`` spot, ``.`` empty, value in the
        centre), then each player's hand, collected points and score, the pile and the status.

        Args:
            viewer: ``None`` (default, as ``str(state)``) shows every hand; a seat number shows
                only what that player may know: the other players' hands appear as a card count.

        Raises:
            ValueError: ``viewer`` is not ``None`` or a seat number.
        """
        if viewer is not None and (not is_int(viewer) or not 0 <= viewer < self.num_players):
            raise ValueError(f"viewer must be None or a seat in [0, {self.num_players}), got {viewer!r}")
        lines = [
            f"Smartrix, {self.num_players} players{', teams' if self.team_game else ''}, "
            f"{'5x5 rule' if self.grid_limit else f'kids (no 5x5 rule, window {self.window})'}"
        ]
        g = self._G
        if self._cells:
            box = self.bounding_box()
            assert box is not None  # the table has cards
            rmin, rmax, cmin, cmax = box
            lines.append("      " + " ".join(f"{c:+d}".center(3) for c in range(cmin, cmax + 1)))
            for r in range(rmin, rmax + 1):
                rows = ["", "", ""]
                for c in range(cmin, cmax + 1):
                    idx = (r + self._offr) * g + (c + self._offc)
                    if not self._card[idx]:
                        cellrows = ("   ", "   ", "   ")
                    else:
                        p = _PAT_L[self._card[idx] - 1][self._rot[idx]]
                        b = ["o" if p >> i & 1 else "." for i in range(8)]
                        cellrows = (b[0] + b[1] + b[2], b[7] + str(bin(p).count("1")) + b[3], b[6] + b[5] + b[4])
                    for k in range(3):
                        rows[k] += " " + cellrows[k]
                lines.append(f"{r:+3d}  " + rows[0])
                lines.append("     " + rows[1])
                lines.append("     " + rows[2])
            lines.append("table: " + " ".join(f"{n}r{k}@{r:+d},{c:+d}" for n, k, r, c in self.table()))
        else:
            lines.append("table: empty")
        for i in range(self.num_players):
            team = f" (team {i % 2})" if self.team_game else ""
            out = "; out" if self._out[i] else ""
            if viewer is None or viewer == i or self._over:  # hands are shown when the game is over
                lines.append(
                    f"player {i}{team}: hand {self.hand(i)} ({self.hand_value(i)} pts); collected "
                    f"{len(self._collected[i])} cards {self._points[i]} pts; score {self.scores()[i]}{out}"
                )
            else:
                lines.append(
                    f"player {i}{team}: {self.hand_size(i)} cards in hand (hidden); collected "
                    f"{len(self._collected[i])} cards {self._points[i]} pts{out}"
                )
        lines.append(f"pile {len(self._pile)}; last collected {self.last_collected}")
        lines.append(self.status_line())
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<SmartrixState {self.status_line()}>"
