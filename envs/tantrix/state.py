"""Tantrix (the strategy game) rules core: :class:`TantrixState`.

Rules: ``envs/tantrix/RULES.md``. Pure Python + numpy. The tile set (edge colours per rotation,
which tiles fit): :mod:`envs.tantrix.tiles`.

**Geometry.** Pointy-top hexagons in axial coordinates ``(q, r)``: ``q`` grows to the right, ``r``
downwards (down-right). The six edges of a hexagon, and the six neighbour directions, are numbered
clockwise from the upper-right side::

    edge 0 upper-right (+1, -1)   edge 1 right (+1, 0)   edge 2 lower-right (0, +1)
    edge 3 lower-left  (-1, +1)   edge 4 left  (-1, 0)   edge 5 upper-left  (0, -1)

Edge ``d`` of one hex touches edge ``(d + 3) % 6`` of its neighbour in direction ``d``. The first
tile lies on ``(0, 0)``. A tile in rotation ``k`` (0-5) is turned ``k`` sixths of a turn
clockwise: its edge ``i`` shows the colour of edge ``(i - k) % 6`` of the tile as listed in
``tests/data/tantrix_tiles.tsv`` (:data:`~envs.tantrix.tiles.TILES`). Tiles never flip.

**The table (window).** Play happens on the hexagon of radius ``window_radius`` (``R``, default
:data:`DEFAULT_WINDOW_RADIUS`) around the first tile: ``max(|q|, |r|, |q + r|) <= R``. A placement
that the rules allow beyond it is *clipped*: not offered and illegal. If that leaves no legal
placement, the ordinary no-move rules apply (a forced step ends; no free move before the bag is
empty is a deadlock draw; after it, a skip). ``clipped_placements`` counts the decision points at
which at least one legal placement lay outside the window; ``clipped_now`` is how many lay outside
at the current decision point. At the default radius this is very rare
(``benchmarks/bench_tantrix.py`` measures it).

**Actions.** ``action = ((slot * 6 + rot) * H + row) * W + col`` with ``H = W = 2R + 1``,
``row = r + R``, ``col = q + R``: hand slot (0-5) x rotation (0-5) x cell of the window laid out
as an axial square (cells with ``|q + r| > R`` are outside the hexagon and never legal).
``num_actions = 36 * H * W``. A hand keeps its slots: the tile drawn after a placement goes into
the slot the placed tile left (the slot stays empty once the bag is empty).

**Notation.** ``t<tile>@<q>,<r>r<rot>``, e.g. ``t23@0,-1r2``: tile 23 (from the mover's hand) on
``(0, -1)`` in rotation 2. :meth:`TantrixState.string_to_action` also accepts spaces and a leading
``+`` on the coordinates (``t23@+0,-1r2``).

**Turn.** A turn is a sequence of single placements by the same player (``current_player`` stays
the same): forced moves (``phase == "forced_before"``), the compulsory free move (``"free"``),
forced moves (``"forced_after"``). The state moves on by itself when a forced step has nothing
to fill, so the player to move always has a legal action unless the game is over.

**Setup decision.** Each player, in seat order, draws one tile; the highest number starts; then
every player, in seat order, draws five more.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from envs.core.checks import is_int, require_bool
from envs.core.errors import IllegalActionError, InvalidMoveError, InvalidPositionError, ParameterError
from envs.core.state import GameInfo, GameState
from envs.tantrix.tiles import (
    COLOUR_NAMES,
    COLOURS,
    NUM_TILES,
    TILES,
    TR_EDGES,
    TR_SEG,
    fit_table,
    fitting_tiles,
    tile_edges,
)

__all__ = [
    "TantrixState",
    "TILES",
    "COLOURS",
    "COLOUR_NAMES",
    "DIRS",
    "DEFAULT_WINDOW_RADIUS",
    "NUM_TILES",
    "PHASES",
    "tile_edges",
    "fitting_tiles",
    "parse_move",
    "format_move",
]

#: Axial neighbour offsets ``(dq, dr)`` by edge number (clockwise from upper-right).
DIRS = ((1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1))
DEFAULT_WINDOW_RADIUS = 16
MAX_WINDOW_RADIUS = 40
PHASES = ("forced_before", "free", "forced_after")


_MOVE_RE = re.compile(r"^\s*t?\s*(\d+)\s*@\s*\(?\s*([-+]?\d+)\s*,\s*([-+]?\d+)\s*\)?\s*r\s*(\d)\s*$", re.I)


def parse_move(text: str) -> tuple[int, int, int, int]:
    """``"t23@0,-1r2"`` -> ``(23, 0, -1, 2)`` (tile, q, r, rotation).

    The coordinates may carry a ``+`` sign (``t23@+0,-1r2``, as Smartrix prints them); spaces and
    parentheses around the coordinates are allowed. :func:`format_move` prints no ``+``.

    Raises:
        InvalidMoveError: malformed text.
    """
    m = _MOVE_RE.match(str(text))
    if not m:
        raise InvalidMoveError(f"{text!r} is not a Tantrix move: expected t<tile>@<q>,<r>r<rot>, e.g. t23@0,-1r2")
    t, q, r, k = (int(g) for g in m.groups())
    if not 1 <= t <= NUM_TILES or not 0 <= k <= 5:
        raise InvalidMoveError(f"{text!r}: tile must be 1-{NUM_TILES} and rotation 0-5")
    return t, q, r, k


def format_move(tile: int, q: int, r: int, rot: int) -> str:
    """``(23, 0, -1, 2)`` -> ``"t23@0,-1r2"``."""
    return f"t{tile}@{q},{r}r{rot}"


def _check_seed(seed, rng=None) -> None:
    """Check a constructor's ``seed=``: ``None`` or an int >= 0, and not together with ``rng=``.

    Raises:
        ParameterError: a seed of another type, a negative one, or both ``seed`` and ``rng`` given.
    """
    if seed is None:
        return
    if not is_int(seed) or seed < 0:
        raise ParameterError(f"seed must be an int >= 0 (or None), got {seed!r}")
    if rng is not None:
        raise ParameterError(f"give either seed= or rng=, not both (got seed={seed!r} and an rng)")


def _hexdist(q: int, r: int) -> int:
    return max(abs(q), abs(r), abs(q + r))


def _parse_colours(colors, n: int, teams: bool) -> tuple[int, ...]:
    want = 2 if teams else n
    if colors is None:
        return tuple(range(1, want + 1))
    if isinstance(colors, str):
        colors = list(colors) if len(colors) == want and all(ch.upper() in COLOURS for ch in colors) else [colors]
    try:
        items = list(colors)
    except TypeError:
        raise ParameterError(f"colors must be a sequence of colour names, got {colors!r}") from None
    out = []
    for c in items:
        s = str(c).strip().lower()
        if len(s) == 1 and s.upper() in COLOURS:
            out.append(COLOURS.index(s.upper()) + 1)
        elif s in COLOUR_NAMES:
            out.append(COLOUR_NAMES.index(s) + 1)
        else:
            raise ParameterError(f"unknown colour {c!r}: use red, yellow, blue, green (or R, Y, B, G)")
    what = "one per team (2)" if teams else f"one per player ({n})"
    if len(out) != want:
        raise ParameterError(f"colors must give {what} colours, got {len(out)}: {colors!r}")
    if len(set(out)) != len(out):
        raise ParameterError(f"colors must be distinct, got {colors!r}")
    return tuple(out)


class _Geo:
    """Per-radius tables: the padded axial grid and the window."""

    def __init__(self, R: int):
        self.R = R
        G = R + 3  # tiles stay within R, candidates within R + 1, their neighbours within R + 2
        self.G = G
        S = 2 * G + 1
        self.S = S
        self.ncell = S * S
        self.nb = tuple(dq + dr * S for dq, dr in DIRS)
        self.H = self.W = 2 * R + 1
        self.origin = G * S + G
        self.qr = [(i % S - G, i // S - G) for i in range(S * S)]
        self.dist = [_hexdist(q, r) for q, r in self.qr]
        # cell -> window index (row * W + col) or -1
        HW = self.H * self.W
        self.widx = [((r + R) * self.W + (q + R)) if _hexdist(q, r) <= R else -1 for q, r in self.qr]
        self.wcell = [-1] * HW  # window index -> grid cell (-1 outside the hexagon)
        for i, w in enumerate(self.widx):
            if w >= 0:
                self.wcell[w] = i
        self.HW = HW
        inside = np.zeros((self.H, self.W), dtype=np.float32)
        for w, i in enumerate(self.wcell):
            if i >= 0:
                inside[w // self.W, w % self.W] = 1
        self.inside = inside


_GEO: dict[int, _Geo] = {}


def window_geometry(R: int) -> _Geo:
    """The window's geometry tables for window radius ``R`` (see :class:`_Geo`), built once per radius
    and shared (by the states of that radius and the batched core, envs/tantrix/vector.py)."""
    g = _GEO.get(R)
    if g is None:
        g = _GEO[R] = _Geo(R)
    return g


class TantrixState(GameState):
    """A mutable Tantrix position with the rules of ``envs/tantrix/RULES.md``.

    Args:
        num_players: 2, 3 or 4.
        teams: Doubles (4 players only): seats 0 & 2 form team 0, seats 1 & 3 team 1, one colour
            per team.
        colors: each player's colour (each team's with ``teams=True``) as names or letters, e.g.
            ``("red", "yellow")`` or ``"RY"``; default red, yellow, blue, green in seat order.
        window_radius: ``R``, the radius of the table (and of the action window), 3 to 40.
        rng: ``numpy.random.Generator`` that shuffles the bag (default: a fresh unseeded one).
        seed: alternative to ``rng``: an int >= 0 for ``numpy.random.default_rng`` (not with ``rng``).
        bag: an explicit bag order (the 56 tile numbers in drawing order); overrides the shuffle.
            Records store it so that games replay without the generator.

    Raises:
        ParameterError: any argument outside its domain.

    Attributes:
        team_game: ``True`` for Doubles (the ``teams`` argument); :meth:`teams` lists the teams.
        history: the actions applied since the state was created (``list[int]``).
        resignations: ``((ply, seat), ...)``, the resignations so far (:meth:`resign`).
        placed: the tiles on the table as ``(tile, q, r, rot)`` tuples, in placement order
            (those of :meth:`from_position` first).
        initial_bag: the bag's drawing order at the start (what records store).
        clipped_placements: decision points so far at which a legal placement lay outside the window.
        clipped_now: legal placements outside the window at the current decision point.
    """

    info = GameInfo(
        short_name="tantrix",
        long_name="Tantrix",
        perfect_information=False,
        chance=True,
        min_players=2,
        max_players=4,
        teams=True,
        seat_names=("red", "yellow", "blue", "green"),
        notation="Tantrix: t23@0,-1r2 = tile 23 on hex q=0, r=-1, turned 2 sixths clockwise",
        heuristics="envs.tantrix.heuristics",
        board="envs.tantrix.svg",
        agents=(("robot", "envs.tantrix.robot:robot_agent"),),
        evaluators=(
            ("predicted", "envs.tantrix.robot:robot_value"),
            ("predicted_turn", "envs.tantrix.robot:turn_end_value"),
        ),
        records="envs.tantrix.records",
        words="envs.tantrix.words",
    )

    def __init__(
        self,
        num_players: int = 2,
        *,
        teams: bool = False,
        colors=None,
        window_radius: int = DEFAULT_WINDOW_RADIUS,
        rng: np.random.Generator | None = None,
        seed: int | None = None,
        bag=None,
    ):
        self._setup(num_players, teams, colors, window_radius)
        if rng is not None and not isinstance(rng, np.random.Generator):
            raise ParameterError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        _check_seed(seed, rng)
        if bag is not None:
            order = self._check_bag(bag, full=True)
        else:
            if rng is None:
                rng = np.random.default_rng(None if seed is None else int(seed))
            order = [int(t) + 1 for t in rng.permutation(NUM_TILES)]
        self.initial_bag = list(order)
        self._bag = list(order)
        self._bpos = 0
        n = self.num_players
        first = [self._draw() for _ in range(n)]
        self._hands = [[t, -1, -1, -1, -1, -1] for t in first]
        self._player = int(np.argmax(first))
        for p in range(n):
            for s in range(1, 6):
                self._hands[p][s] = self._draw()
        self._settle()

    # ------------------------------------------------------------------ construction helpers
    def _setup(self, num_players, teams, colors, window_radius) -> None:
        if not is_int(num_players) or num_players not in (2, 3, 4):
            raise ParameterError(f"num_players must be 2, 3 or 4, got {num_players!r}")
        require_bool("teams", teams)
        if teams and num_players != 4:
            raise ParameterError(f"teams=True (Doubles) needs num_players=4, got {num_players}")
        if not is_int(window_radius) or not 3 <= window_radius <= MAX_WINDOW_RADIUS:
            raise ParameterError(f"window_radius must be an int from 3 to {MAX_WINDOW_RADIUS}, got {window_radius!r}")
        self.num_players = int(num_players)
        self.team_game = bool(teams)
        self._colour_of_team = _parse_colours(colors, self.num_players, self.team_game)
        self.window_radius = int(window_radius)
        g = self._g = window_geometry(self.window_radius)
        self.num_actions = 36 * g.HW
        nc = g.ncell
        self._tile = [0] * nc
        self._rot = [0] * nc
        self._cnt = [0] * nc
        self._need = [0] * nc
        self._pidx = [-1] * nc  # placement index of the tile on a cell
        self._cand = {g.origin}
        self._forced: set[int] = set()
        self._placed: list[tuple[int, int, int, int]] = []  # the tiles on the table, in order
        self.history: list[int] = []
        self._cells: list[int] = []
        self._uf: list[list[int]] = [[], [], [], [], []]  # per colour code: parent over placement indices
        self._usize: list[list[int]] = [[], [], [], [], []]
        self._ucyc: list[list[bool]] = [[], [], [], [], []]
        self._phase = 0
        self._over = False
        self._deadlock = False
        self._skips = 0
        self._legal: list[int] = []
        self._legal_set: frozenset = frozenset()
        self._mask: np.ndarray | None = None
        self._scores: list[int] | None = None
        self.clipped_placements = 0
        self.clipped_now = 0
        self._total = NUM_TILES

    def _check_bag(self, bag, full: bool) -> list[int]:
        try:
            order = [int(t) for t in bag]
        except (TypeError, ValueError):
            raise ParameterError(f"bag must be a sequence of tile numbers, got {bag!r}") from None
        if any(not 1 <= t <= NUM_TILES for t in order) or len(set(order)) != len(order):
            raise ParameterError(f"bag must hold distinct tile numbers 1-{NUM_TILES}, got {order}")
        if full and sorted(order) != list(range(1, NUM_TILES + 1)):
            raise ParameterError(f"bag must be an order of all {NUM_TILES} tiles, got {len(order)} tiles")
        return order

    def _draw(self) -> int:
        if self._bpos < len(self._bag):
            t = self._bag[self._bpos]
            self._bpos += 1
            return t
        return -1

    @classmethod
    def from_position(
        cls,
        *,
        tiles=(),
        hands=(),
        bag=(),
        current_player: int = 0,
        phase: str = "forced_before",
        num_players: int | None = None,
        teams: bool = False,
        colors=None,
        window_radius: int = DEFAULT_WINDOW_RADIUS,
    ) -> TantrixState:
        """Build a position by hand (tests, puzzles, analysis).

        Args:
            tiles: placed tiles in placement order, as ``(tile, q, r, rot)`` tuples or notation
                strings (``"t23@0,-1r2"``). The first must be on ``(0, 0)``; every later one must
                touch an earlier one with matching colours; all inside the window.
            hands: one list of at most six tile numbers per player (slots in order; ``None`` or
                -1 for an empty slot).
            bag: the remaining bag in drawing order (may be empty: restrictions off).
            current_player: the player to move.
            phase: ``"forced_before"``, ``"free"`` or ``"forced_after"``.
            num_players: default ``len(hands)``.
            teams, colors, window_radius: as in the constructor.

        Not every tile need appear: the game ends when every tile given (table, hands, bag) is on
        the table. The position is settled like any other (an empty forced step moves on).

        Raises:
            ParameterError: bad settings. InvalidPositionError: an inconsistent position, including a
                table that already breaks a restriction while ``bag`` is not empty
                (``envs/tantrix/RULES.md``, "Positions given by hand").
        """
        hands = [list(h) for h in hands]
        if num_players is None:
            num_players = len(hands)
        self = cls.__new__(cls)
        self._setup(num_players, teams, colors, window_radius)
        if len(hands) != self.num_players:
            raise InvalidPositionError(f"hands must give one hand per player ({self.num_players}), got {len(hands)}")
        if phase not in PHASES:
            raise InvalidPositionError(f"phase must be one of {PHASES}, got {phase!r}")
        if not is_int(current_player) or not 0 <= current_player < self.num_players:
            raise InvalidPositionError(f"current_player must be 0-{self.num_players - 1}, got {current_player!r}")
        placed = []
        for item in tiles:
            if isinstance(item, str):
                item = parse_move(item)
            t, q, r, k = (int(x) for x in item)
            placed.append((t, q, r, k))
        hs = []
        for h in hands:
            if len(h) > 6:
                raise InvalidPositionError(f"a hand holds at most 6 tiles, got {h}")
            hs.append([-1 if x is None or x == -1 else int(x) for x in h] + [-1] * (6 - len(h)))
        try:
            bag_list = self._check_bag(bag, full=False)
        except ParameterError as e:
            raise InvalidPositionError(str(e)) from None
        everything = [p[0] for p in placed] + [t for h in hs for t in h if t != -1] + bag_list
        if any(not 1 <= t <= NUM_TILES for t in everything):
            raise InvalidPositionError(f"tile numbers must be 1-{NUM_TILES}: {everything}")
        if len(set(everything)) != len(everything):
            raise InvalidPositionError("a tile appears twice among the table, the hands and the bag")
        g = self._g
        for i, (t, q, r, k) in enumerate(placed):
            if not 0 <= k <= 5:
                raise InvalidPositionError(f"rotation must be 0-5 in {format_move(t, q, r, k)}")
            if _hexdist(q, r) > self.window_radius:
                raise InvalidPositionError(
                    f"{format_move(t, q, r, k)} lies outside the window (radius {self.window_radius})"
                )
            c = g.origin + q + r * g.S
            if i == 0 and (q, r) != (0, 0):
                raise InvalidPositionError("the first tile must be on (0, 0)")
            if self._tile[c]:
                raise InvalidPositionError(f"two tiles on ({q}, {r})")
            if i > 0 and not self._cnt[c]:
                raise InvalidPositionError(f"{format_move(t, q, r, k)} touches no earlier tile")
            if k not in fit_table(self._need[c])[t]:
                raise InvalidPositionError(f"{format_move(t, q, r, k)}: colours do not match a neighbour")
            self._put(c, t, k)
            self._placed.append((t, q, r, k))
        if bag_list:  # the restrictions are in force: a position that already breaks one cannot arise in play
            broken = self.violations()
            if broken:
                raise InvalidPositionError(
                    f"the table breaks the restrictions while the bag still has tiles ({', '.join(broken)}): "
                    "no game reaches such a position, and play from it would be inconsistent; give an empty bag "
                    "(the restrictions are then off) or another table (RULES.md, 'Positions given by hand')"
                )
        self._hands = hs
        self.initial_bag = list(bag_list)
        self._bag = list(bag_list)
        self._bpos = 0
        self._total = len(everything)
        self._player = int(current_player)
        self._phase = PHASES.index(phase)
        if len(placed) == self._total:
            self._over = True
            self._legal, self._legal_set = [], frozenset()
        else:
            self._settle()
        return self

    # ------------------------------------------------------------------ board updates
    def _put(self, c: int, t: int, k: int) -> None:
        """Place tile ``t`` rotation ``k`` on cell ``c`` (no legality checks)."""
        tile, cnt, need, cand, forced = self._tile, self._cnt, self._need, self._cand, self._forced
        tile[c] = t
        self._rot[c] = k
        cand.discard(c)
        forced.discard(c)
        edges = TR_EDGES[t * 6 + k]
        nb = self._g.nb
        for d in range(6):
            n = c + nb[d]
            if tile[n]:
                continue
            cnt[n] += 1
            need[n] |= edges[d] << (3 * ((d + 3) % 6))
            cand.add(n)
            if cnt[n] >= 3:
                forced.add(n)
        # lines: union-find per colour over placement indices
        idx = len(self._cells)
        self._cells.append(c)
        self._pidx[c] = idx
        seg = TR_SEG[t * 6 + k]
        pidx = self._pidx
        for col in range(1, 5):
            s = seg[col]
            par, size, cyc = self._uf[col], self._usize[col], self._ucyc[col]
            par.append(idx)
            size.append(1 if s else 0)
            cyc.append(False)
            if not s:
                continue
            root = idx
            for e in s:
                n = c + nb[e]
                if not tile[n] or n == c:
                    continue
                other = self._find(par, pidx[n])
                if other == root:
                    cyc[root] = True
                else:
                    par[other] = root
                    size[root] += size[other]
        self._scores = None

    @staticmethod
    def _find(par: list, x: int) -> int:
        while par[x] != x:
            par[x] = par[par[x]]
            x = par[x]
        return x

    def _line_at(self, colour: int, cell: int) -> tuple[int, int]:
        """``(root, tiles)`` of the ``colour`` line through the tile on internal ``cell``: its
        union-find root (equal roots, same line) and its length in tiles."""
        root = self._find(self._uf[colour], self._pidx[cell])
        return root, self._usize[colour][root]

    # ------------------------------------------------------------------ legality
    @property
    def restrictions_active(self) -> bool:
        """Whether the three restrictions apply: until the last tile has been drawn."""
        return self._bpos < len(self._bag)

    def _geom_ok(self, c: int) -> bool:
        """Restrictions 2 and 3 (operational controlled-side test) for a tentative tile on ``c``."""
        cnt, tile, nb = self._cnt, self._tile, self._g.nb
        add: dict[int, int] = {}
        stack = []
        for o in nb:
            n = c + o
            if not tile[n]:
                k = cnt[n] + 1
                if k >= 4:
                    return False
                add[n] = 1
                if k == 3:
                    stack.append(n)
        for f in self._forced:
            if f != c and f not in add:
                stack.append(f)
        if not stack:
            return True
        filled = {c}
        while stack:
            f = stack.pop()
            if f in filled:
                continue
            if cnt[f] + add.get(f, 0) >= 4:
                return False
            filled.add(f)
            for o in nb:
                n = f + o
                if not tile[n] and n not in filled:
                    a = add.get(n, 0) + 1
                    add[n] = a
                    k = cnt[n] + a
                    if k >= 4:
                        return False
                    if k == 3:
                        stack.append(n)
        return True

    def _danger(self, c: int) -> list[tuple[int, int]]:
        """Restriction 1 for a tile on ``c``: ``(edge, colour)`` pairs the tile must not show."""
        out = []
        tile, need, nb = self._tile, self._need, self._g.nb
        for d in range(6):
            n = c + nb[d]
            if tile[n]:
                continue
            p = need[n]
            if not p:
                continue
            counts = [0, 0, 0, 0, 0]
            for e in range(6):
                counts[(p >> (3 * e)) & 7] += 1
            for col in range(1, 5):
                if counts[col] >= 2:
                    out.append((d, col))
        return out

    def _placements(self, forced_only: bool) -> tuple[list[int], int]:
        """Legal placements of the player to move: (window actions, count outside the window)."""
        g = self._g
        hand = self._hands[self._player]
        tiles_in_hand = [(s, t) for s, t in enumerate(hand) if t != -1]
        if not tiles_in_hand:
            return [], 0
        cells = self._forced if forced_only else self._cand
        restricted = self.restrictions_active
        need, widx, HW = self._need, g.widx, g.HW
        out = []
        clipped = 0
        for c in cells:
            w = widx[c]
            fits = fit_table(need[c])
            opts = [(s, t, fits[t]) for s, t in tiles_in_hand if fits[t]]
            if not opts:
                continue
            if restricted:
                if not self._geom_ok(c):
                    continue
                danger: Sequence[tuple[int, int]] = self._danger(c)
            else:
                danger = ()
            for s, t, rots in opts:
                for k in rots:
                    if danger:
                        e = TR_EDGES[t * 6 + k]
                        if any(e[d] == col for d, col in danger):
                            continue
                    if w < 0:
                        clipped += 1
                    else:
                        out.append((s * 6 + k) * HW + w)
        return out, clipped

    #: The seats out of the game by resignation (both partners in Doubles) and the resignations
    #: as ``(ply, seat)``; class defaults, so a state without a resignation carries neither.
    _out: frozenset = frozenset()
    resignations: tuple = ()

    def _next_player(self, p: int) -> int:
        """The seat after ``p`` in turn order, passing over the seats out by resignation."""
        n = self.num_players
        p = (p + 1) % n
        while p in self._out:
            p = (p + 1) % n
        return p

    def resign(self, player: int) -> None:
        """``player`` resigns (``envs/tantrix/RULES.md``, "Resignation"): its side (in Doubles,
        its team) is out; with one side left the game ends and that side wins, otherwise play goes
        on without it (its turns passed over, its hand no longer played) and at the end it ranks
        below every side still playing.

        Raises:
            ValueError: ``player`` is not a seat. IllegalActionError: the game is over, or the
                seat is already out (the state is unchanged either way).
        """
        self._check_seat(player, "player")
        if self._over:
            raise IllegalActionError("the game is over: nobody can resign")
        if player in self._out:
            raise IllegalActionError(f"player {player} is already out (resigned)")
        side = frozenset(p for p in range(self.num_players) if self.team_of(p) == self.team_of(player))
        self._out = self._out | side
        self.resignations = self.resignations + ((len(self.history), int(player)),)
        self._mask = None
        if len({self.team_of(p) for p in range(self.num_players) if p not in self._out}) <= 1:
            self._over = True
        elif self._player in self._out:
            self._player = self._next_player(self._player)
            self._phase = 0
            self._skips = 0
        self._settle()

    def _settle(self) -> None:
        """Advance through empty forced steps, skips and game ends until someone must act."""
        n = self.num_players - len(self._out)
        while True:
            if self._over:
                self._legal, self._legal_set, self._mask = [], frozenset(), None
                return
            if self._phase != 1:
                legal, clipped = self._placements(True) if self._forced else ([], 0)
            else:
                legal, clipped = self._placements(False)
            if clipped:
                self.clipped_placements += 1
            self.clipped_now = clipped
            if legal:
                legal.sort()
                self._legal, self._legal_set, self._mask = legal, frozenset(legal), None
                return
            if self._phase == 0:
                self._phase = 1
                continue
            if self._phase == 2:
                self._player = self._next_player(self._player)
                self._phase = 0
                continue
            # no free move
            if self.restrictions_active:
                self._over = True
                self._deadlock = True
                continue
            self._skips += 1
            if self._skips >= n:
                self._over = True
                continue
            self._player = self._next_player(self._player)
            self._phase = 0

    # ------------------------------------------------------------------ GameState API
    @property
    def current_player(self) -> int:
        return -1 if self._over else self._player

    @property
    def phase(self) -> str:
        """``"forced_before"``, ``"free"`` or ``"forced_after"`` (meaningless once over)."""
        return PHASES[self._phase]

    @property
    def phase_index(self) -> int:
        return self._phase

    def legal_action_mask(self) -> np.ndarray:
        if self._mask is None:
            m = np.zeros(self.num_actions, dtype=np.int8)
            if self._legal:
                m[self._legal] = 1
            self._mask = m
        return self._mask.copy()

    def legal_actions(self) -> list[int]:
        return list(self._legal)

    @property
    def placed(self) -> list[tuple[int, int, int, int]]:
        """The tiles on the table as ``(tile, q, r, rot)`` tuples in placement order (a copy)."""
        return list(self._placed)

    def legal_moves(self) -> list[str]:
        """The legal actions in notation, in action order."""
        return [self.action_to_string(a) for a in self._legal]

    def decode(self, action: int) -> tuple[int, int, int, int]:
        """``action`` -> ``(slot, rot, q, r)`` (no legality check)."""
        HW, W, R = self._g.HW, self._g.W, self.window_radius
        sk, w = divmod(int(action), HW)
        slot, rot = divmod(sk, 6)
        row, col = divmod(w, W)
        return slot, rot, col - R, row - R

    def encode(self, slot: int, rot: int, q: int, r: int) -> int:
        """``(slot, rot, q, r)`` -> action; raises IllegalActionError outside the window."""
        R, W = self.window_radius, self._g.W
        if _hexdist(q, r) > R:
            raise IllegalActionError(f"({q}, {r}) lies outside the window of radius {R}")
        if not (0 <= slot < 6 and 0 <= rot < 6):
            raise IllegalActionError(f"slot and rotation must be 0-5, got {slot}, {rot}")
        return (slot * 6 + rot) * self._g.HW + (r + R) * W + (q + R)

    def apply(self, action: int) -> None:
        a = self._check_action_index(action)
        if a not in self._legal_set:
            raise IllegalActionError(f"{self._describe(a)} (action {a}) is illegal: {self._why_illegal(a)}")
        slot, rot, q, r = self.decode(a)
        g = self._g
        c = g.origin + q + r * g.S
        p = self._player
        t = self._hands[p][slot]
        self._put(c, t, rot)
        self._placed.append((t, q, r, rot))
        self.history.append(a)
        self._hands[p][slot] = self._draw()
        self._skips = 0
        if self._phase == 1:
            self._phase = 2
        if len(self._placed) >= self._total:
            self._over = True
        self._settle()

    def _describe(self, a: int) -> str:
        try:
            return self.action_to_string(a)
        except IllegalActionError:
            slot, rot, q, r = self.decode(a)
            return f"slot {slot} rotation {rot} on ({q}, {r})"

    def _why_illegal(self, a: int) -> str:
        if self._over:
            return "the game is over"
        slot, rot, q, r = self.decode(a)
        g = self._g
        if _hexdist(q, r) > self.window_radius:
            return f"({q}, {r}) lies outside the hexagonal window of radius {self.window_radius}"
        c = g.origin + q + r * g.S
        t = self._hands[self._player][slot]
        if t == -1:
            return f"hand slot {slot} of player {self._player} is empty"
        if self._tile[c]:
            return f"({q}, {r}) is occupied"
        if c not in self._cand:
            return "the first tile must go on (0, 0)" if not self._placed else f"({q}, {r}) touches no tile"
        e = TR_EDGES[t * 6 + rot]
        for d in range(6):
            want = (self._need[c] >> (3 * d)) & 7
            if want and e[d] != want:
                return (
                    f"edge {d} shows {COLOUR_NAMES[e[d] - 1]} but the neighbouring tile shows {COLOUR_NAMES[want - 1]}"
                )
        if self._phase != 1 and c not in self._forced:
            return "a forced space must be filled first (forced move)"
        if self.restrictions_active:
            for d, col in self._danger(c):
                if e[d] == col:
                    return f"restriction 1: it leaves a hex into which three {COLOUR_NAMES[col - 1]} edges lead"
            for o in g.nb:
                n = c + o
                if not self._tile[n] and self._cnt[n] + 1 >= 4:
                    return "restriction 2: it leaves an empty hex bordered by four tiles"
            if not self._geom_ok(c):
                return "restriction 3: it is played along a controlled side"
        return "not legal here"

    def is_terminal(self) -> bool:
        return self._over

    @property
    def deadlock(self) -> bool:
        """Whether the game ended in a deadlock (a draw)."""
        return self._deadlock

    def team_of(self, player: int) -> int:
        return player % 2 if self.team_game else player

    @property
    def colors(self) -> tuple[str, ...]:
        """Each player's colour letter (R, Y, B, G), in seat order."""
        return tuple(COLOURS[self.colour_of(p) - 1] for p in range(self.num_players))

    def colour_of(self, player: int) -> int:
        """Colour code (1 red, 2 yellow, 3 blue, 4 green) of ``player``."""
        return self._colour_of_team[self.team_of(player)]

    def colour_score(self, colour: int) -> tuple[int, int]:
        """``(longest line, largest loop)`` of colour code ``colour``, in tiles."""
        par, size, cyc = self._uf[colour], self._usize[colour], self._ucyc[colour]
        line = loop = 0
        for i in range(len(par)):
            if par[i] == i:
                if cyc[i]:
                    loop = max(loop, size[i])
                else:
                    line = max(line, size[i])
        return line, loop

    def scores(self) -> list[int]:
        """Each player's score: max(longest line, 2 x largest loop) in their colour."""
        if self._scores is None:
            per = {}
            for col in set(self._colour_of_team):
                line, loop = self.colour_score(col)
                per[col] = max(line, 2 * loop)
            self._scores = [per[self.colour_of(p)] for p in range(self.num_players)]
        return list(self._scores)

    def returns(self) -> np.ndarray:
        """+1 for a sole winning side, 0 for sides tied first, -1 for the rest; the seats out by
        resignation get -1 and are not ranked (a deadlock: 0 for the others)."""
        out = np.zeros(self.num_players, dtype=np.float64)
        if not self._over:
            return out
        for p in self._out:
            out[p] = -1.0
        if self._deadlock:
            return out
        sc = self.scores()
        live = [p for p in range(self.num_players) if p not in self._out]
        best = max(sc[p] for p in live)
        sides = {self.team_of(p) for p in live if sc[p] == best}
        for p in live:
            if sc[p] < best:
                out[p] = -1.0
            elif len(sides) == 1:
                out[p] = 1.0
        return out

    def _end_text(self) -> tuple[str, str]:
        """Result ``"deadlock draw"``, ``"draw"`` (tied top scores), ``"player k won"`` or
        ``"team k won"`` (``"ongoing"`` before the end), and why the game ended."""
        if not self._over:
            return "ongoing", ""
        if self._deadlock:
            return "deadlock draw", "deadlock"
        if len(self._placed) >= self._total:
            why = "all tiles placed"
        elif len({self.team_of(p) for p in range(self.num_players) if p not in self._out}) <= 1:
            why = "the other sides resigned"
        else:
            why = "no legal placement"
        r = self.returns()
        if not (r > 0).any():
            return "draw", why
        p = int(np.argmax(r))
        return (f"team {self.team_of(p)} won" if self.team_game else f"player {p} won"), why

    def setting_name(self) -> str:
        """``"Tantrix"``, or ``"Tantrix Doubles"`` for two teams (``teams=True``; ``envs/tantrix/RULES.md``)."""
        return f"{self.info.long_name} Doubles" if self.team_game else self.info.long_name

    def seat_name(self, player: int) -> str:
        """The colour of ``player`` (``red``, ``yellow``, ``blue``, ``green``; the team's colour in
        Doubles)."""
        self._check_seat(player, "player")
        return COLOUR_NAMES[self.colour_of(player) - 1]

    # ------------------------------------------------------------------ queries
    def hand(self, player: int) -> list[int]:
        """``player``'s six slots (tile numbers, -1 for an empty slot)."""
        return list(self._hands[player])

    @property
    def bag_size(self) -> int:
        return len(self._bag) - self._bpos

    def bag_remaining(self) -> list[int]:
        """The tiles still in the bag in drawing order (hidden information: for records and tests)."""
        return self._bag[self._bpos :]

    def tile_at(self, q: int, r: int):
        """``(tile, rot)`` on ``(q, r)``, or ``None``."""
        g = self._g
        if _hexdist(q, r) > g.G - 1:
            return None
        c = g.origin + q + r * g.S
        return (self._tile[c], self._rot[c]) if self._tile[c] else None

    def neighbour_count(self, q: int, r: int) -> int:
        g = self._g
        return self._cnt[g.origin + q + r * g.S]

    def forced_spaces(self) -> list[tuple[int, int]]:
        """Empty hexes with three or more occupied neighbours, sorted."""
        return sorted(self._g.qr[c] for c in self._forced)

    def candidate_cells(self) -> list[tuple[int, int]]:
        """Empty hexes touching a tile (``(0, 0)`` before the first tile), sorted."""
        return sorted(self._g.qr[c] for c in self._cand)

    def fitting_placements(self, player: int, q: int, r: int) -> list[tuple[int, int, int]]:
        """The placements of ``player``'s tiles on the empty hex ``(q, r)`` that the rules allow
        there now, as ``(slot, tile, rot)`` in slot then rotation order: the colours match every
        neighbour and, while the bag has tiles, the three restrictions hold (RULES.md, "Placing
        a tile" and "The three restrictions"). Whose turn it is and the turn's phase are not
        considered: for the player to move on a space the phase allows, these are exactly the
        legal placements there. The drawing marks a forced space with the colour of every player
        who could fill it (tantrix.com does so).

        Returns ``[]`` for an occupied hex, a hex touching no tile (every hex but ``(0, 0)``
        before the first tile) and a hex outside the window.

        Raises:
            ValueError: ``player`` is not a seat.
        """
        self._check_seat(player, "player")
        g = self._g
        if _hexdist(q, r) > self.window_radius:
            return []
        c = g.origin + q + r * g.S
        if self._tile[c] or c not in self._cand:
            return []
        fits = fit_table(self._need[c])
        opts = [(s, t, fits[t]) for s, t in enumerate(self._hands[player]) if t != -1 and fits[t]]
        if not opts:
            return []
        danger: Sequence[tuple[int, int]] = ()
        if self.restrictions_active:
            if not self._geom_ok(c):
                return []
            danger = self._danger(c)
        out = []
        for s, t, rots in opts:
            for k in rots:
                if danger:
                    e = TR_EDGES[t * 6 + k]
                    if any(e[d] == col for d, col in danger):
                        continue
                out.append((s, t, k))
        return out

    def blocked_spaces(self) -> list[tuple[int, int]]:
        """The empty hexes touching a tile (inside the window) where no tile may go, whatever its
        colours, while the bag has tiles: a tile there would leave a hex bordered by four tiles
        (restriction 2) or lie along a controlled side (restriction 3, by the operational test
        of RULES.md). Sorted ``(q, r)`` pairs; ``[]`` once the restrictions are off."""
        if not self.restrictions_active:
            return []
        g, R = self._g, self.window_radius
        return sorted(g.qr[c] for c in self._cand if g.dist[c] <= R and not self._geom_ok(c))

    def placements(self) -> list[tuple[int, int, int, int]]:
        """The legal placements now as ``(tile, q, r, rot)``, in action order."""
        out = []
        for a in self._legal:
            slot, rot, q, r = self.decode(a)
            out.append((self._hands[self._player][slot], q, r, rot))
        return out

    def violations(self) -> list[str]:
        """Restriction violations of the current position (empty for every position reached
        while the bag had tiles): hexes with three same-coloured edges, hexes with four or more
        neighbours, and a failing controlled-side closure."""
        out = []
        for c in self._cand:
            p = self._need[c]
            counts = [0] * 5
            for e in range(6):
                counts[(p >> (3 * e)) & 7] += 1
            if max(counts[1:]) >= 3:
                out.append(f"restriction 1 at {self._g.qr[c]}")
            if self._cnt[c] >= 4:
                out.append(f"restriction 2 at {self._g.qr[c]}")
        if not out and self._forced:
            # closure from the current forced spaces
            cnt, tile, nb = self._cnt, self._tile, self._g.nb
            add: dict[int, int] = {}
            filled: set[int] = set()
            stack = list(self._forced)
            bad = False
            while stack and not bad:
                f = stack.pop()
                if f in filled:
                    continue
                if cnt[f] + add.get(f, 0) >= 4:
                    bad = True
                    break
                filled.add(f)
                for o in nb:
                    n = f + o
                    if not tile[n] and n not in filled:
                        add[n] = add.get(n, 0) + 1
                        k = cnt[n] + add[n]
                        if k >= 4:
                            bad = True
                            break
                        if k == 3:
                            stack.append(n)
            if bad:
                out.append("restriction 3: controlled side")
        return out

    # ------------------------------------------------------------------ notation
    def action_to_string(self, action: int) -> str:
        a = self._check_action_index(action)
        slot, rot, q, r = self.decode(a)
        p = self._player
        t = self._hands[p][slot] if not self._over else -1
        if t == -1:
            raise IllegalActionError(f"action {a}: hand slot {slot} of the player to move is empty")
        return format_move(t, q, r, rot)

    def move_in_words(self, move: str) -> str:
        """``t23@0,-1r2`` -> ``tile 23 on hex 0,-1, turned 2 sixths clockwise`` (see
        :meth:`GameState.move_in_words`; a text that is no Tantrix move comes back as it is)."""
        try:
            t, q, r, k = parse_move(move)
        except InvalidMoveError:
            return move
        turned = "not turned" if k == 0 else f"turned {k} sixth{'s' if k > 1 else ''} clockwise"
        return f"tile {t} on hex {q},{r}, {turned}"

    def string_to_action(self, text: str) -> int:
        t, q, r, k = parse_move(text)
        if self._over:
            raise IllegalActionError(f"{text!r}: the game is over")
        hand = self._hands[self._player]
        if t not in hand:
            raise IllegalActionError(
                f"{text!r}: tile {t} is not in player {self._player}'s hand {[x for x in hand if x != -1]}"
            )
        return self.encode(hand.index(t), k, q, r)

    def moves(self) -> list[str]:
        """The moves applied since the state was created, in notation (one per ``history`` entry;
        the tiles of :meth:`from_position` are not moves)."""
        k = len(self.history)
        return [format_move(*m) for m in self._placed[len(self._placed) - k :]] if k else []

    # ------------------------------------------------------------------ copying, text
    def clone(self) -> TantrixState:
        c = TantrixState.__new__(TantrixState)
        d = c.__dict__
        for k, v in self.__dict__.items():
            if isinstance(v, list):
                if k in ("_uf", "_usize", "_ucyc", "_hands"):
                    v = [list(x) for x in v]
                else:
                    v = list(v)
            elif isinstance(v, set):
                v = set(v)
            elif isinstance(v, np.ndarray):
                v = None if k == "_mask" else v.copy()
            d[k] = v
        return c

    def deal(self) -> dict:
        """The start's chance outcome for game records: ``{"bag": [...]}``, the 56 tile numbers
        in drawing order (:attr:`initial_bag`), which fixes the initial draws, the first player
        and every replacement.

        Raises:
            ParameterError: a position built by :meth:`from_position` (its start is no deal).
        """
        if len(self.initial_bag) != NUM_TILES:
            raise ParameterError(
                "only games started by the constructor (a full bag) have a deal; "
                "this position was built by from_position"
            )
        return {"bag": list(self.initial_bag)}

    def with_deal(self, deal) -> TantrixState:
        """A new state at the start of a game with this state's settings (players, Doubles, colours,
        window radius) and ``deal`` (:meth:`deal`'s form); no random generator is involved.

        Raises:
            InvalidPositionError: ``deal`` is not ``{"bag": [a permutation of 1..56]}``.
        """
        from envs.core.records import check_permutation

        if not isinstance(deal, dict) or set(deal) != {"bag"}:
            raise InvalidPositionError(
                f'a Tantrix deal must be an object {{"bag": [the {NUM_TILES} tile numbers in '
                f"drawing order]}}, got {deal!r:.80}"
            )
        bag = check_permutation(deal["bag"], NUM_TILES, "deal 'bag'", "tile")
        return TantrixState(
            self.num_players,
            teams=self.team_game,
            colors=[COLOURS[c - 1] for c in self._colour_of_team],
            window_radius=self.window_radius,
            bag=bag,
        )

    def sample_determinization(self, player: int, rng: np.random.Generator) -> TantrixState:
        """A full state consistent with what ``player`` knows: the bag's order reshuffled.

        Tantrix hands are open and the table is public; only the order of the tiles still in
        the bag is hidden. Search agents plan on such samples instead of the true future draws
        (:class:`training.agents.MCTSAgent` and alpha-beta do, as ``info.perfect_information`` is false).

        Args:
            player: the seat whose knowledge is kept (every seat knows the same in Tantrix).
            rng: ``numpy.random.Generator`` for the shuffle.

        Returns:
            A new state equal to this one except for the order of the remaining bag (its records
            replay to it: ``initial_bag`` changes the same way).

        Raises:
            ValueError: ``player`` is not a seat.
        """
        return self._reshuffled(player, rng, canonical=False)

    def determinize(self, player: int, rng: np.random.Generator) -> TantrixState:
        """A sample of the bag's order that does not depend on its true order (the search's
        determinization, :meth:`envs.core.state.GameState.determinize`): the tiles still in the
        bag are put in tile-number order (the bag as a set, what everyone knows), then shuffled by
        one ``rng.permutation`` call. Two positions differing only in the bag's order give equal
        samples from generators in the same state. The Tantrix robot samples so
        (:func:`envs.tantrix.robot._sample`, whose results this reproduces exactly: the same
        shuffle of the sorted bag).

        Args:
            player: the seat whose knowledge is kept (every seat knows the same in Tantrix).
            rng: ``numpy.random.Generator`` for the shuffle.

        Returns:
            A new state equal to this one except for the order of the remaining bag (its records
            replay to it: ``initial_bag`` changes the same way).

        Raises:
            ValueError: ``player`` is not a seat.
        """
        return self._reshuffled(player, rng, canonical=True)

    def _reshuffled(self, player: int, rng: np.random.Generator, *, canonical: bool) -> TantrixState:
        """A clone whose remaining bag is permuted by one ``rng.permutation`` call, applied to the
        bag in its true order or, with ``canonical``, in tile-number order (``initial_bag`` changes
        the same way, so records replay to the sample)."""
        if not is_int(player) or not 0 <= player < self.num_players:
            raise ValueError(f"player must be a seat in [0, {self.num_players}), got {player!r}")
        c = self.clone()
        rest = c._bag[c._bpos :]
        if canonical:
            rest = sorted(rest)
        order = [rest[i] for i in rng.permutation(len(rest))]
        c._bag[c._bpos :] = order
        if len(c.initial_bag) == len(c._bag):
            c.initial_bag[c._bpos :] = order
        return c

    def __getstate__(self):
        d = dict(self.__dict__)
        d["_g"] = None
        d["_mask"] = None
        return d

    def __setstate__(self, d):
        self.__dict__.update(d)
        self._g = window_geometry(self.window_radius)

    def __eq__(self, other) -> bool:
        """Same table, hands, bag order, turn and phase (:meth:`position_key`), so the same future."""
        if not isinstance(other, TantrixState):
            return NotImplemented
        return self.position_key() == other.position_key()

    __hash__ = None  # type: ignore[assignment]  # mutable (typeshed types object.__hash__ as a method)

    def position_key(self) -> tuple:
        """Hashable summary of the whole state (table, hands, bag, turn): equal keys, equal futures."""
        return (
            tuple(sorted(self._placed)),
            tuple(tuple(h) for h in self._hands),
            tuple(self._bag[self._bpos :]),
            self._player,
            self._phase,
            self._over,
            self._deadlock,
            self._skips,
        ) + ((tuple(sorted(self._out)),) if self._out else ())

    def _player_label(self, p: int) -> str:
        name = COLOUR_NAMES[self.colour_of(p) - 1]
        return f"player {p} ({name}{', team ' + str(self.team_of(p)) if self.team_game else ''})"

    def status_line(self) -> str:
        if self._over:
            what = self._end_text()[0]
        else:
            what = f"{self._player_label(self._player)} to move, {PHASES[self._phase].replace('_', ' ')}"
        return (
            f"Tantrix {self.num_players}p{' doubles' if self.team_game else ''} | tiles {len(self._placed)} "
            f"| bag {self.bag_size} | restrictions {'on' if self.restrictions_active else 'off'} | {what}"
        )

    def __str__(self) -> str:
        g = self._g
        lines = [self.status_line()]
        show = set(self._cells) | self._cand
        if show:
            rs = [g.qr[c][1] for c in show]
            xs = [2 * g.qr[c][0] + g.qr[c][1] for c in show]
            x0 = min(xs)
            for r in range(min(rs), max(rs) + 1):
                row = {}
                for c in show:
                    q, rr = g.qr[c]
                    if rr == r:
                        row[2 * q + r - x0] = c
                if not row:
                    continue
                text = ""
                for x in sorted(row):
                    c = row[x]
                    if self._tile[c]:
                        t = self._tile[c]
                        cell = f"{t:02d}{tile_edges(t, self._rot[c])}"
                    elif c in self._forced:
                        cell = "   *    "
                    else:
                        cell = "   .    "
                    text = text.ljust(5 * x) + cell
                lines.append(f"r={r:+3d} " + text.rstrip())
        for p in range(self.num_players):
            hand = " ".join(f"{t:02d}" if t != -1 else "--" for t in self._hands[p])
            lines.append(f"{self._player_label(p)}: hand {hand}  score {self.scores()[p]}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<TantrixState {self.status_line()}>"
