"""TwixT's board geometry: sizes, colours, knight steps and the cached per-size tables.

A board of ``S x S`` holes (``S`` from :data:`MIN_SIZE` to :data:`MAX_SIZE`) without its four
corners; hole ``p = row * S + col`` (row 0 = row "1" at the top). Red (colour 0) may not use the
first and last column (black's border columns) and joins row 1 to row S; black (colour 1) may not
use the first and last row and joins column ``a`` to the last column (``envs/twixt/RULES.md``).
:func:`geometry` builds once per size, and caches, what every state of that size shares: the
legal areas, the four virtual border nodes of the win test, one id per link (an unordered pair of
non-corner holes a knight's move apart), the links meeting at each hole, the links crossing each
link (:mod:`envs.twixt.crossing`), the bitboard tables of the connect search
(:mod:`envs.twixt.connect`) and the black player's transposition of the actions.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from envs.twixt.crossing import crossing_table

__all__ = [
    "MIN_SIZE",
    "MAX_SIZE",
    "RED",
    "BLACK",
    "COLOUR_NAMES",
    "KNIGHT_DIRS",
    "colour_of",
    "geometry",
    "Geometry",
    "BitTables",
]

MIN_SIZE = 5
MAX_SIZE = 48
RED = 0
BLACK = 1
COLOUR_NAMES = ("red", "black")


#: The 8 knight steps ``(drow, dcol)`` in a fixed order (clockwise from "up 2, right 1"; row grows
#: downwards). Direction ``d`` and ``(d + 4) % 8`` are opposite.
KNIGHT_DIRS: tuple[tuple[int, int], ...] = ((-2, 1), (-1, 2), (1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1))
# Canonical link directions: the 4 with a positive flat offset; a link is stored from its end with
# the smaller hole index (its *base*) in one of these directions.
_CANON = (2, 3, 4, 5)


def colour_of(player: int) -> int:
    """Colour (0 red, 1 black) of a player: ``player % 2`` (Double TwixT: seats 0 & 2 red, 1 & 3 black)."""
    return player % 2


class Geometry:
    """Precomputed tables of one board size (shared by every state of that size; read-only).

    Holes are ``p = row * S + col``; ``N = S * S``; ``L = num_links``. Attributes: ``size``, ``n``;
    ``valid`` (``bytes (N,)``, 0 on the corners); ``legal[c]`` (``bytes (N,)``, 1 where colour
    ``c`` may place) and ``legal_count[c]``; ``border_node[c][p]`` (the virtual node ``N .. N + 3``
    of the border row of ``c`` that holds ``p``, or -1); ``link_ends[lid]`` (its two holes, smaller
    first), ``link_base[lid]`` and ``link_k[lid]`` (its base hole and canonical direction index);
    ``adj[p]`` (``(q, lid)`` per link slot at ``p``, in :data:`KNIGHT_DIRS` order); ``lid_dp``
    (``intp (8, N)``: the link along each direction from each hole, ``L`` where none); ``cross[lid]``
    and ``cross_set[lid]`` (the links crossing it); ``koff[k]`` (the flat hole offset of canonical
    direction ``k``).
    """

    def __init__(self, size: int):
        s = self.size = size
        n = self.n = s * s
        corners = {0, s - 1, n - s, n - 1}
        self.valid = bytes(0 if p in corners else 1 for p in range(n))
        # legal[c][p]: colour c may place on p (not a corner, not in the opponent's border).
        red = bytearray(n)
        black = bytearray(n)
        for p in range(n):
            r, c = divmod(p, s)
            if p in corners:
                continue
            if c not in (0, s - 1):
                red[p] = 1
            if r not in (0, s - 1):
                black[p] = 1
        self.legal = (bytes(red), bytes(black))
        self.legal_count = (sum(red), sum(black))
        # Virtual border nodes n .. n+3: red top, red bottom, black left, black right.
        bn_red = [-1] * n
        bn_black = [-1] * n
        for p in range(n):
            r, c = divmod(p, s)
            if p in corners:
                continue
            if r == 0:
                bn_red[p] = n
            elif r == s - 1:
                bn_red[p] = n + 1
            if c == 0:
                bn_black[p] = n + 2
            elif c == s - 1:
                bn_black[p] = n + 3
        self.border_node = (tuple(bn_red), tuple(bn_black))
        # Links: id per unordered pair of non-corner holes a knight's move apart.
        lid_of: dict[tuple[int, int], int] = {}  # (p, d) -> lid
        ends: list[tuple[int, int]] = []
        base: list[int] = []
        canon_k: list[int] = []
        for p in range(n):
            if p in corners:
                continue
            r, c = divmod(p, s)
            for k, d in enumerate(_CANON):
                r2, c2 = r + KNIGHT_DIRS[d][0], c + KNIGHT_DIRS[d][1]
                if 0 <= r2 < s and 0 <= c2 < s:
                    q = r2 * s + c2
                    if q in corners:
                        continue
                    lid = len(ends)
                    ends.append((p, q))
                    base.append(p)
                    canon_k.append(k)
                    lid_of[(p, d)] = lid
                    lid_of[(q, (d + 4) % 8)] = lid
        self.num_links = nl = len(ends)
        self.link_ends = tuple(ends)
        self.link_base = tuple(base)
        self.link_k = tuple(canon_k)
        # adj[p]: ((q, lid), ...) for every link slot at p, in KNIGHT_DIRS order.
        adj = []
        lid_dp = np.full((8, n), nl, dtype=np.intp)  # nl = sentinel (never a link)
        for p in range(n):
            row = []
            r, c = divmod(p, s)
            for d in range(8):
                slot = lid_of.get((p, d))
                if slot is not None:
                    row.append(((r + KNIGHT_DIRS[d][0]) * s + c + KNIGHT_DIRS[d][1], slot))
                    lid_dp[d, p] = slot
            adj.append(tuple(row))
        self.adj = tuple(adj)
        self.lid_dp = lid_dp
        # cross[lid]: ids of the links that cross it (exact geometry, translated pattern).
        self.cross = cross = crossing_table(s, base, canon_k, lid_of, _CANON, tuple(KNIGHT_DIRS[d] for d in _CANON))
        self.cross_set = tuple(frozenset(x) for x in cross)
        self.koff = tuple(KNIGHT_DIRS[d][0] * s + KNIGHT_DIRS[d][1] for d in _CANON)
        self._bits: BitTables | None = None
        self._perm: dict[tuple[int, bool], np.ndarray] = {}

    # -- bitboard tables for the "can still connect" search (built on first use)
    def bits(self) -> BitTables:
        """Lazily built :class:`BitTables` for the connect search (:mod:`envs.twixt.connect`)."""
        if self._bits is None:
            s, n = self.size, self.n
            ok0 = [0, 0, 0, 0]
            for lid, p in enumerate(self.link_base):
                ok0[self.link_k[lid]] |= 1 << p
            cross_clear = []
            for lid in range(self.num_links):
                masks = [0, 0, 0, 0]
                for x in self.cross[lid]:
                    masks[self.link_k[x]] |= 1 << self.link_base[x]
                cross_clear.append(tuple((k, ~m) for k, m in enumerate(masks) if m))
            area = [0, 0]
            for c in (0, 1):
                for p in range(n):
                    if self.legal[c][p]:
                        area[c] |= 1 << p
            top = sum(1 << p for p in range(1, s - 1))
            bottom = sum(1 << (n - s + p) for p in range(1, s - 1))
            left = sum(1 << (r * s) for r in range(1, s - 1))
            right = sum(1 << (r * s + s - 1) for r in range(1, s - 1))
            self._bits = BitTables(tuple(ok0), tuple(cross_clear), tuple(area), (top, left), (bottom, right))
        return self._bits

    def transposition(self, num_actions: int, manual: bool = False) -> np.ndarray:
        """``intp (num_actions,)``: the action with row and column exchanged (swap unchanged).

        ``manual=True``: the ``links="manual"`` layout (holes, swap, add link, remove link, end,
        end!): a link maps to the link between the transposed holes."""
        perm = self._perm.get((num_actions, manual))
        if perm is None:
            s, n = self.size, self.n
            perm = np.arange(num_actions)
            holes = np.arange(n).reshape(s, s).T.ravel()
            perm[:n] = holes
            if manual:
                nl = self.num_links
                lids = np.array([self.link_id(holes[p], holes[q]) for p, q in self.link_ends], dtype=np.intp)
                perm[n + 1 : n + 1 + nl] = lids + n + 1
                perm[n + 1 + nl : n + 1 + 2 * nl] = lids + n + 1 + nl
            elif num_actions > n + 1:
                perm[n + 1 :] = holes + n + 1
            perm.flags.writeable = False
            self._perm[(num_actions, manual)] = perm
        return perm

    def border_items(self) -> tuple[tuple[int, int, int], ...]:
        """``(hole, colour, border node)`` for every hole on a border row of its colour."""
        items = self.__dict__.get("_border_items")
        if items is None:
            items = self._border_items = tuple(
                (p, c, self.border_node[c][p]) for c in (0, 1) for p in range(self.n) if self.border_node[c][p] >= 0
            )
        return items

    def link_id(self, p: int, q: int) -> int | None:
        """The id of the link between holes ``p`` and ``q`` (``row * S + col``), ``None`` if none."""
        for q2, lid in self.adj[p]:
            if q2 == q:
                return lid
        return None


class BitTables:
    """The tables of the connect search as Python-int bitboards (bit ``row * S + col``)."""

    __slots__ = ("ok0", "cross_clear", "area", "src", "dst", "init_witness")

    def __init__(self, ok0, cross_clear, area, src, dst):
        self.ok0 = ok0  # ok0[k]: bit p set if the link from p along _CANON[k] exists on the board
        self.cross_clear = cross_clear  # per link: ((k, ~mask of crossing link bases along k), ...)
        self.area = area  # per colour: holes the colour may use
        self.src = src  # per colour: first border (red row 1, black column a), corners excluded
        self.dst = dst  # per colour: second border
        self.init_witness = None  # per colour: a path on the empty board (connect.initial_witnesses)


@cache
def geometry(board_size: int) -> Geometry:
    """The cached tables of a board size (links, crossings, legal areas, ...)."""
    return Geometry(board_size)
