"""The manual-link rules of TwixT (``links="manual"``, the box rules of ``envs/twixt/RULES.md``).

A turn: any number of removals of the mover's own links (before the placement only), exactly one
placement (or, on ply 2 with ``swap=True``, the swap), any number of additions of a link between
two of the mover's pegs a knight's move apart that is not linked and that no link blocks, then
``end`` (Double TwixT: ``end!`` claims the Privilege). The game is won at the addition that joins
the mover's borders. :class:`ManualLinkRules` holds these moves as methods of
:class:`envs.twixt.state.TwixtState` (a mixin: it keeps no data of its own; the state's slots
hold the position).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from envs.core.state import IllegalActionError, InvalidMoveError
from envs.twixt.connect import STATUS_DRAW, STATUS_RED, find_root
from envs.twixt.geometry import COLOUR_NAMES, Geometry
from envs.twixt.notation import hole_name

__all__ = ["ManualLinkRules"]


class ManualLinkRules:
    """The ``links="manual"`` methods of :class:`~envs.twixt.state.TwixtState` (a mixin)."""

    if not TYPE_CHECKING:  # no data of its own (type checkers see the state's attributes below)
        __slots__ = ()

    if TYPE_CHECKING:  # what the mixin uses of TwixtState (its slots and methods)
        board_size: int
        num_players: int
        num_actions: int
        swap: bool
        history: list[int]
        _g: Geometry
        _n: int
        _std: bool
        _early: bool
        _manual: bool
        _pegs: bytearray
        _lc: bytearray
        _order: list[int]
        _uf: list[int]
        _avail: list[bytearray]
        _navail: list[int]
        _player: int
        _ply: int
        _status: int
        _priv: list[bool]
        _pbits: list[int]
        _ok: list[list[int]]
        _wholes: list[int]
        _can: list[bool]
        _wbad: list[bool]
        _placed: bool
        _last: int
        _block: list[bytearray]
        _cand: list[set[int]]
        _add0: int
        _rem0: int
        _end: int

        def legal_actions(self) -> list[int]: ...
        def action_to_string(self, action: int) -> str: ...
        def _player_name(self, pl: int) -> str: ...
        def _why_illegal(self, a: int) -> str: ...
        def _swap_pegs(self) -> int: ...
        def _swap_witnesses(self, t: int) -> None: ...
        def _link_added_early(self, lid: int, c: int) -> None: ...
        def _connectable(self, c: int) -> bool: ...

    # A turn: removals of own links (before the placement only), one placement or the swap,
    # additions between any two own pegs, then ``end`` / ``end!``. ``_placed`` says whether the
    # placement of this turn is done; ``_block[c][lid]`` counts the links that cross ``lid`` and
    # block colour ``c`` (one shared array with rules="standard"); ``_cand[c]`` holds the link ids
    # whose two ends are pegs of colour ``c`` and that are not linked (addable unless blocked).
    def _manual_mask(self, pl: int) -> np.ndarray:
        c = pl & 1
        if self._placed:
            m = np.zeros(self.num_actions, dtype=np.int8)
            m[self.legal_actions()] = 1
            return m
        m = np.frombuffer(self._avail[c], dtype=np.int8).copy()
        n, nl = self._n, self._g.num_links
        if self._ply == 1 and self.swap:
            m[n] = 1
        if self._order:
            lc = np.frombuffer(self._lc, dtype=np.uint8, count=nl)
            np.equal(lc, c + 1, out=m[self._rem0 : self._rem0 + nl], casting="unsafe")
        return m

    def _apply_manual(self, a: int) -> None:
        pl = self._player
        if pl >= 0:
            c = pl & 1
            n = self._n
            if not self._placed:
                if a < n:
                    if self._avail[c][a]:
                        self._m_place(a, c)
                        self.history.append(a)
                        return
                elif a == n:
                    if self._ply == 1 and self.swap:
                        self._m_swap()
                        self.history.append(a)
                        return
                elif self._rem0 <= a < self._end:
                    lid = a - self._rem0
                    if self._lc[lid] == c + 1:
                        self._m_remove(lid, c)
                        self.history.append(a)
                        return
            elif self._add0 <= a < self._rem0:
                lid = a - self._add0
                if lid in self._cand[c] and not self._block[c][lid]:
                    self._m_add(lid, c)
                    self.history.append(a)
                    return
            elif a == self._end or (a == self._end + 1 and not self._priv[c]):
                self._m_end(pl, a != self._end)
                self.history.append(a)
                return
        raise IllegalActionError(
            f"illegal action {a} ({self.action_to_string(a)}) for {self._player_name(pl)}: {self._why_illegal(a)}"
        )

    def _m_place(self, p: int, c: int) -> None:
        g = self._g
        cc = c + 1
        pegs = self._pegs
        pegs[p] = cc
        av0, av1 = self._avail
        if av0[p]:
            av0[p] = 0
            self._navail[0] -= 1
        if av1[p]:
            av1[p] = 0
            self._navail[1] -= 1
        bnode = g.border_node[c][p]
        if bnode >= 0:
            self._uf[p] = find_root(self._uf, bnode)
        cand = self._cand[c]
        for q, lid in g.adj[p]:
            if pegs[q] == cc:
                cand.add(lid)
        self._placed = True
        self._last = p
        if self._early:
            o = 1 - c
            self._pbits[c] |= 1 << p
            if self._can[o] and not self._wbad[o] and (self._wholes[o] >> p) & 1:
                self._wbad[o] = True
            self._check_early_draw()

    def _m_swap(self) -> None:
        t = self._swap_pegs()
        self._cand = [set(), set()]
        self._placed = True
        self._last = t
        if self._early:
            self._swap_witnesses(t)
            self._check_early_draw()

    def _m_add(self, lid: int, c: int) -> None:
        g = self._g
        cc = c + 1
        self._lc[lid] = cc
        self._order.append(lid)
        self._cand[c].discard(lid)
        blk = self._block[1 - c]  # standard: the array shared by both colours
        for x in g.cross[lid]:
            blk[x] += 1
        uf = self._uf
        p, q = g.link_ends[lid]
        ra = find_root(uf, p)
        rb = find_root(uf, q)
        if ra != rb:
            uf[ra] = rb
        if self._early:
            self._link_added_early(lid, c)
        if find_root(uf, g.n + 2 * c) == find_root(uf, g.n + 2 * c + 1):
            self._status = STATUS_RED + c
            self._player = -1
            self._ply += 1  # the turn ends here: it counts as played
            return
        if self._early:
            self._check_early_draw()

    def _m_remove(self, lid: int, c: int) -> None:
        g = self._g
        cc = c + 1
        self._lc[lid] = 0
        self._order.remove(lid)
        self._cand[c].add(lid)
        blk = self._block[1 - c]
        for x in g.cross[lid]:
            blk[x] -= 1
        # Union-find cannot delete: rebuild it from the pegs on the borders and the links left.
        uf = list(range(self._n + 4))
        pegs = self._pegs
        for p, colour, bnode in g.border_items():
            if pegs[p] == colour + 1:
                uf[p] = bnode
        ends = g.link_ends
        for x in self._order:
            p, q = ends[x]
            ra = find_root(uf, p)
            rb = find_root(uf, q)
            if ra != rb:
                uf[ra] = rb
        self._uf = uf
        if self._early:
            # The opponent's graph only grows: rebuild its step masks from this colour's links.
            o = 1 - c
            b = g.bits()
            ok = list(b.ok0)
            lc = self._lc
            for x in self._order:
                if lc[x] == cc:
                    for k, nm in b.cross_clear[x]:
                        ok[k] &= nm
            self._ok[o][:] = ok
            if not self._can[o]:
                self._can[o] = True
                self._wbad[o] = True

    def _m_end(self, pl: int, claim: bool) -> None:
        c = pl & 1
        self._ply += 1
        self._placed = False
        self._last = -1
        if claim:
            self._priv[c] = True
        if self.num_players == 2:
            self._player = 1 - pl
        else:
            self._player = (pl + 2) % 4 if claim else (pl + 1) % 4
        if self._navail[self._player & 1] == 0:
            self._status = STATUS_DRAW
            self._player = -1

    def _check_early_draw(self) -> None:
        first = 0 if (self._can[0] and not self._wbad[0]) else 1  # a still-valid witness first
        if not self._connectable(first) and not self._connectable(1 - first):
            self._status = STATUS_DRAW
            self._player = -1
            self._ply += 1  # the game ends within the turn: it counts as played

    @property
    def placed(self) -> bool:
        """``links="manual"``: whether the player to move has placed its peg (or swapped) this
        turn, so it may now add links and end the turn. Always ``False`` with ``links="auto"``."""
        return self._placed

    @property
    def last_placed(self) -> tuple[int, int] | None:
        """``links="manual"``: the hole ``(row, col)`` of the peg placed this turn (after a swap:
        the swapped peg), ``None`` before the placement and with ``links="auto"``."""
        return None if self._last < 0 else divmod(self._last, self.board_size)

    def link_action(self, a: tuple[int, int], b: tuple[int, int], remove: bool = False) -> int:
        """``links="manual"``: the action adding (or, ``remove=True``, removing) the link between
        holes ``a`` and ``b`` (``(row, col)``, any order).

        Raises:
            InvalidMoveError: ``links="auto"``, or the holes are not a knight's move apart on the board.
        """
        if not self._manual:
            raise InvalidMoveError("link actions exist only with links='manual' (links='auto' adds links itself)")
        s = self.board_size
        p, q = a[0] * s + a[1], b[0] * s + b[1]
        lid = self._link_id(p, q)
        if lid is None:
            raise InvalidMoveError(f"{hole_name(*a)} and {hole_name(*b)} are not a knight's move apart on the board")
        return (self._rem0 if remove else self._add0) + lid

    def _link_id(self, p: int, q: int) -> int | None:
        if 0 <= p < self._n:
            for q2, lid in self._g.adj[p]:
                if q2 == q:
                    return lid
        return None

    def _link_name(self, lid: int) -> str:
        p, q = self._g.link_ends[lid]
        s = self.board_size
        return hole_name(p // s, p % s) + hole_name(q // s, q % s)

    def _why_illegal_manual(self, a: int, c: int) -> str:
        n = self._n
        me = COLOUR_NAMES[c]
        if self._placed:
            if a <= n:
                placed = self.last_placed
                assert placed is not None  # the peg placed this turn (``_placed`` sets ``_last``)
                return (
                    f"this turn's peg is already placed ({hole_name(*placed)}): add links "
                    f"('+c5e6') or end the turn ('end')"
                )
            if self._rem0 <= a < self._end:
                return "links may be removed only before the placement of the turn"
            if a > self._end:
                return f"team {me} has already claimed its Privilege"
            lid = a - self._add0
            name = self._link_name(lid)
            if self._lc[lid]:
                return f"{name} is already linked"
            p, q = self._g.link_ends[lid]
            for h in (p, q):
                if self._pegs[h] != c + 1:
                    return f"{self.action_to_string(h)} holds no {me} peg"
            for x in self._g.cross[lid]:
                v = self._lc[x]
                if v and (self._std or v != c + 1):
                    return f"{name} would cross the {COLOUR_NAMES[v - 1]} link {self._link_name(x)}"
            return ""  # pragma: no cover
        if a >= self._end:
            return "'end' comes after the placement: place a peg (or swap) first"
        if self._add0 <= a < self._rem0:
            return "links are added after the placement of the turn: place a peg first"
        if self._rem0 <= a:
            lid = a - self._rem0
            v = self._lc[lid]
            if not v:
                return f"there is no link {self._link_name(lid)} to remove"
            return (
                f"{self._link_name(lid)} is {COLOUR_NAMES[v - 1]}'s link: only your own colour's links may be removed"
            )
        return ""
