"""TwixT and Double TwixT rules core: :class:`TwixtState`.

Rules: ``envs/twixt/RULES.md``, this project's specification shipped with the package (the 3M
box rules completed with the conventions of
OpenSpiel, twixtbot, T1j and Little Golem). Summary:

* A square grid of ``S x S`` holes (``board_size``, 5 to 48, default 24) without its 4 corners.
  Rows are numbered ``1..S`` from the top, columns lettered ``a..`` from the left; a hole is written
  column then row, ``c5``. Red (colour 0) owns row 1 and row S and connects top to bottom; black
  (colour 1) owns column ``a`` and the last column and connects left to right. Nobody may place a
  peg in the opponent's border rows (nor in a corner, which does not exist).
* Red moves first. A move places one peg in an empty legal hole; there is no pass. After the peg
  is placed, every legal link from it to a peg of the same colour a knight's move away is added
  at once (*automatic linking*, as OpenSpiel, T1j, twixtbot and Little Golem do). A link may not
  cross an existing link: any link with ``rules="standard"``, only an opponent's link with
  ``rules="pp"`` (TwixT PP, Little Golem: own links may cross, and are not connected where they
  cross). Links sharing an end peg never cross. With ``links="auto"`` (the default) links are
  never removed.
* ``links="manual"`` (the box rules, RULES.md "Box rules"): the player chooses its links. A turn
  is, in order: any number of removals of the mover's own (team's) links; exactly one placement
  (or, on ply 2 with ``swap=True``, the swap); any number of additions of a link between *any*
  two pegs of the mover's colour a knight's move apart, not already linked and crossing no link
  that blocks it (any link with ``"standard"``, an opponent's with ``"pp"``); then ``end`` (Double
  TwixT: ``end!`` ends the turn claiming the Privilege). The same player acts through the turn.
  Pegs are never removed. The game is won at the addition that joins the mover's borders. With
  ``draw="early"`` own links never block their owner (they can be removed), so the connect
  search counts only opponent links. Check: with ``draw="board_full"``, a player who never
  removes and adds every legal link from the new peg plays exactly the automatic game (the game
  ends at the winning addition, so a winning turn may stop before the new peg's other links).
* ``swap=True`` (pie rule, two players only): on the second ply only, black may answer ``swap``
  instead of placing. Red's first peg is removed and replaced by a *black* peg on the transposed
  hole (row and column exchanged: ``b4`` becomes ``d2``). The swap counts as black's move (one
  ply): afterwards ``turn_number == 2`` and red (player 0) is to move, so players keep their
  colours and simply alternate as usual. Links are re-derived (a single peg has none).
* A colour wins when a chain of its links joins its two border rows. Win detection is
  incremental: a union-find over holes plus four virtual border nodes, updated as links are added.
* Draws. ``draw="early"`` (default): the game ends in a draw as soon as *neither* colour can still
  connect (:meth:`TwixtState.can_still_connect`): a path of knight steps from one own border to the
  other through holes that are empty or hold own pegs, inside the colour's legal area, no step
  crossing an existing link that would block it under the active rules. Every winning chain is such
  a path (links are never removed), so this never declares a draw in a position someone could still
  win. ``draw="board_full"`` (OpenSpiel's rule): a draw only when the player to move has no legal
  hole. In both modes a player to move with no legal hole ends the game in a draw (there is no
  pass, so the game cannot go on).
* Double TwixT (``num_players=4``): seats in turn order 0 red A, 1 black A, 2 red B, 3 black B;
  partners (same colour) share pegs, links and the result. Once per game per team, a player may
  claim the team's *Privilege* together with a placement: the next opponent is skipped, so the
  claimer's partner moves next, then play continues in the normal order. No swap.

Decisions taken where ``envs/twixt/RULES.md`` leaves room (all documented again where they act):

* the swap is black's move: ``turn_number`` counts it as a ply, ``history`` records action ``N``,
  and ``current_player`` simply alternates (0 moves at plies 0, 2, 4, ...);
* a player to move with no legal hole ends the game in a draw with either draw rule (no pass);
* the early-draw test runs after every move that does not win (swap included);
* a Privilege claimed with a winning move is still recorded as used; ``privilege_available``
  is ``False`` for both teams once the game is over;
* two states are equal (``==``) when their settings and positions are (pegs, links, player to
  move, Privileges, swap availability, result), whatever the move order.

Action encoding (absolute board frame; ``N = S * S``):

* ``row * S + col`` (``0 <= a < N``): place a peg on that hole (row 0 = row "1" at the top,
  col 0 = column "a");
* ``N``: swap (two players, second ply, ``swap=True`` only; never legal with four players);
* four players only: ``N + 1 + row * S + col``: place a peg there *and* claim the Privilege.

So ``num_actions`` is ``N + 1`` for two players and ``2 * N + 1`` for four.

With ``links="manual"`` (``L = geometry(S).num_links`` link ids, ``link_ends[lid]`` = its two
holes, smaller index first): ``0 .. N - 1`` place, ``N`` swap, ``N + 1 + lid`` add link ``lid``,
``N + 1 + L + lid`` remove link ``lid``, ``N + 1 + 2L`` end, and with four players ``N + 2 + 2L``
end claiming the Privilege. ``num_actions`` is ``N + 2 + 2L`` (two players) or ``N + 3 + 2L``
(four); 24x24: ``L = 2,016``, 4,610 actions.

Notation: ``c5`` (column letters, row number, row 1 at the top). Columns past ``z`` (boards wider
than 26) continue ``aa, ab, ..., az, ba, ...`` (bijective base 26, as spreadsheets). ``swap``.
A placement with Privilege claim is written with a ``!`` suffix: ``c5!``. With
``links="manual"``: ``+c5e6`` (add the link c5-e6; end points in any order when parsing, hole
order when written), ``-c5e6`` (remove it), ``end``, ``end!`` (Double TwixT: end claiming the
Privilege). Parsing is case-insensitive (``H18`` = ``h18``).

Implementation (the hot path of training): per-board-size tables built once and cached at module
level (:func:`envs.twixt.geometry.geometry`: link ids, the links crossing each link from exact
segment geometry (:mod:`envs.twixt.crossing`), legal areas, border nodes); a state holds bytearrays
(pegs, link colours, per-colour legal masks), a union-find list and, with ``draw="early"``,
Python-int bitboards of the connect search (:mod:`envs.twixt.connect`) and one witness path per
colour. The ``links="manual"`` turn lives in :mod:`envs.twixt.manual`, hole names in
:mod:`envs.twixt.notation`. Records (move lists, Little Golem ``.tsgf``, T1): :mod:`envs.twixt.records`.

Example:
    >>> s = TwixtState(8)
    >>> s.push("c3"); s.push("e4"); s.push("d5")
    >>> s.links()
    [((2, 2), (4, 3), 0)]
    >>> s.action_to_string(s.legal_actions()[0]), s.current_player
    ('a2', 1)
"""

from __future__ import annotations

import re
from typing import Any, cast

import numpy as np

from envs.core.checks import is_int, require_bool
from envs.core.state import GameInfo, GameState, IllegalActionError, InvalidMoveError, ParameterError
from envs.twixt.connect import (
    STATUS_BLACK,
    STATUS_DRAW,
    STATUS_ONGOING,
    STATUS_RED,
    find_path,
    find_root,
    initial_witnesses,
)
from envs.twixt.geometry import COLOUR_NAMES, MAX_SIZE, MIN_SIZE, geometry
from envs.twixt.manual import ManualLinkRules
from envs.twixt.notation import LINK_RE, column_label, hole_name, parse_hole

__all__ = ["TwixtState"]

PEG_CHARS = ".xo"  # empty, red, black
_TEAM_SEATS = ("A", "A", "B", "B")

_RULES = ("standard", "pp")
_DRAWS = ("early", "board_full")
_LINKINGS = ("auto", "manual")


# ---------------------------------------------------------------------------- the state
class TwixtState(ManualLinkRules, GameState):
    """A mutable TwixT / Double TwixT position with the rules of ``envs/twixt/RULES.md``.

    Args:
        board_size: holes per side, an int from 5 to 48 (default 24).
        rules: ``"standard"`` (a link may not cross any link) or ``"pp"`` (TwixT PP: only the
            opponent's links block).
        swap: allow the transposing swap on the second ply (two players only).
        draw: ``"early"`` (a draw as soon as neither colour can still connect) or
            ``"board_full"`` (a draw only when the player to move has no legal hole).
        num_players: 2 (TwixT) or 4 (Double TwixT: two teams, Privilege, no swap).
        links: ``"auto"`` (every legal link from a new peg is added at once) or ``"manual"`` (the
            box rules: the player removes, places, adds links and ends the turn; see above).

    Raises:
        ParameterError: any argument outside its domain (including ``swap=True`` with 4 players).

    Players, colours and turns: ``colour_of(player) = player % 2``; red (0) moves first. With two
    players ``current_player`` alternates 0, 1, 0, ... (a swap is player 1's move). With four,
    seats 0 red A, 1 black A, 2 red B, 3 black B play in that order, except that after a move with
    a Privilege claim by seat ``p`` the next seat is ``(p + 2) % 4`` (the claimer's partner).
    ``current_player`` is -1 once the game is over.

    Attributes:
        history: the actions played since the start (list of int).
    """

    info = GameInfo(
        short_name="twixt",
        long_name="TwixT",
        perfect_information=True,
        chance=False,
        min_players=2,
        max_players=4,
        teams=True,
        seat_names=("red", "black", "red B", "black B"),
        notation=(
            "TwixT: c5 = peg on column c, row 5 (row 1 at the top), swap; Double TwixT: c5! = peg\n"
            "on c5 and claim your team's Privilege. links='manual': -c5e6 removes your link c5-e6\n"
            "(before the peg), +c5e6 adds one (after it), end ends the turn, end! claims the Privilege"
        ),
        heuristics="envs.twixt.heuristics",
        board="envs.twixt.svg",
        records="envs.twixt.records",
        words="envs.twixt.words",
    )

    __slots__ = (
        "board_size",
        "num_players",
        "num_actions",
        "rules",
        "swap",
        "draw",
        "history",
        "_g",
        "_n",
        "_std",
        "_early",
        "_pegs",
        "_lc",
        "_order",
        "_uf",
        "_avail",
        "_navail",
        "_player",
        "_ply",
        "_status",
        "_priv",
        "_pbits",
        "_ok",
        "_wholes",
        "_wlinks",
        "_can",
        "_wbad",
        "linking",
        "_manual",
        "_ownblock",
        "_placed",
        "_last",
        "_block",
        "_cand",
        "_add0",
        "_rem0",
        "_end",
        "resignations",
    )
    # per colour, the link ids of its witness path (``draw="early"``); the other slots' types are
    # declared in :class:`~envs.twixt.manual.ManualLinkRules`
    _wlinks: list[frozenset[int]]

    def __init__(
        self,
        board_size: int = 24,
        *,
        rules: str = "standard",
        swap: bool = False,
        draw: str = "early",
        num_players: int = 2,
        links: str = "auto",
    ):
        if not is_int(board_size):
            raise ParameterError(f"board_size must be an int from {MIN_SIZE} to {MAX_SIZE}, got {board_size!r}")
        if not MIN_SIZE <= int(board_size) <= MAX_SIZE:
            raise ParameterError(f"board_size must be from {MIN_SIZE} to {MAX_SIZE}, got {int(board_size)}")
        if rules not in _RULES:
            raise ParameterError(f"rules must be 'standard' or 'pp', got {rules!r}")
        require_bool("swap", swap)
        if draw not in _DRAWS:
            raise ParameterError(f"draw must be 'early' or 'board_full', got {draw!r}")
        if not is_int(num_players) or num_players not in (2, 4):
            raise ParameterError(f"num_players must be 2 (TwixT) or 4 (Double TwixT), got {num_players!r}")
        if swap and num_players == 4:
            raise ParameterError("swap=True is not allowed with num_players=4: Double TwixT has no swap")
        if links not in _LINKINGS:
            raise ParameterError(
                f"links must be 'auto' (every legal link added at once) or 'manual' (the box "
                f"rules: the player adds and removes links), got {links!r}"
            )
        s = int(board_size)
        g = geometry(s)
        n = s * s
        self.board_size = s
        self.num_players = int(num_players)
        manual = links == "manual"
        nl = g.num_links
        if manual:
            # holes, swap, add link (per link id), remove link, end, (Double TwixT) end!
            self.num_actions = n + 2 + 2 * nl + (1 if num_players == 4 else 0)
        else:
            self.num_actions = n + 1 if num_players == 2 else 2 * n + 1
        self.linking = links
        self._manual = manual
        self._ownblock = rules == "standard" and not manual  # own links block own paths (early draw)
        self.rules = rules
        self.swap = bool(swap)
        self.draw = draw
        self.history: list[int] = []
        self._g = g
        self._n = n
        self._std = rules == "standard"
        self._early = draw == "early"
        self._pegs = bytearray(n)
        self._lc = bytearray(g.num_links + 1)  # link colour + 1 per link id; last entry: sentinel 0
        self._order: list[int] = []
        self._uf = list(range(n + 4))
        pad = bytes(self.num_actions - n)
        self._avail = [bytearray(g.legal[0] + pad), bytearray(g.legal[1] + pad)]
        self._navail = list(g.legal_count)
        self._player = 0
        self._ply = 0
        self._status = STATUS_ONGOING
        self._priv = [False, False]
        self.resignations: tuple[tuple[int, int], ...] = ()
        if self._early:
            self._reset_witnesses()
        else:
            # draw="board_full" keeps no witnesses: None, read only behind ``self._early`` (a flag the
            # type checker cannot follow, hence the cast to the early-draw lists' types)
            self._pbits = self._ok = self._wholes = self._wlinks = self._can = self._wbad = cast(Any, None)
        self._placed = False
        self._last = -1
        if manual:
            self._add0 = n + 1
            self._rem0 = n + 1 + nl
            self._end = n + 1 + 2 * nl
            blk = bytearray(nl + 1)
            self._block = [blk, blk] if self._std else [blk, bytearray(nl + 1)]
            self._cand = [set(), set()]
        else:
            self._add0 = self._rem0 = self._end = -1
            self._block = self._cand = cast(Any, None)  # links="auto": none, read only behind ``self._manual``

    @classmethod
    def from_moves(cls, moves, **settings) -> TwixtState:
        """A state after ``moves`` (a list of move texts, or one string separated by spaces or
        commas) from the start, with the constructor's keyword ``settings``.

        Raises:
            ParameterError: bad settings.
            IllegalActionError: a malformed or illegal move (the message gives its number).
        """
        st = cls(**settings)
        if isinstance(moves, str):
            moves = [m for m in re.split(r"[\s,]+", moves) if m]
        for i, m in enumerate(moves):
            try:
                st.push(m)
            except IllegalActionError as e:
                raise IllegalActionError(f"move {i + 1} ({m!r}): {e}") from None
        return st

    # ------------------------------------------------------------------ early-draw witnesses
    def _reset_witnesses(self) -> None:
        b = self._g.bits()
        witnesses = initial_witnesses(self._g)
        self._pbits = [0, 0]
        ok = list(b.ok0)
        self._ok = [ok, ok] if self._ownblock else [ok, list(b.ok0)]
        self._wholes = [0, 0]
        self._wlinks = [frozenset(), frozenset()]
        self._can = [True, True]
        self._wbad = [False, False]
        for c in (0, 1):
            w = witnesses[c]
            if w is None:  # pragma: no cover - every supported size has a path on the empty board
                self._can[c] = False
            else:
                self._wholes[c], self._wlinks[c] = w

    def _recompute_witness(self, c: int) -> None:
        w = find_path(self._g, c, self._g.bits().area[c] & ~self._pbits[1 - c], self._ok[c])
        if w is None:
            self._can[c] = False
            self._wholes[c] = 0
            self._wlinks[c] = frozenset()
        else:
            self._wholes[c], self._wlinks[c] = w
        self._wbad[c] = False

    def _connectable(self, c: int) -> bool:
        if self._can[c] and self._wbad[c]:
            self._recompute_witness(c)
        return self._can[c]

    def can_still_connect(self, colour: int) -> bool:
        """Whether ``colour`` (0 red, 1 black) can still connect its borders: a knight path from one
        of its borders to the other through holes that are empty or hold its own pegs, inside its
        legal area, where no step crosses an existing link that would block it under the active
        rules (any link with ``rules="standard"``, an opponent link with ``"pp"``).

        With ``draw="early"`` this is maintained incrementally (a witness path per colour, searched
        again only when a move invalidates it); with ``"board_full"`` it is computed on demand.
        """
        if colour not in (0, 1):
            raise ValueError(f"colour must be 0 (red) or 1 (black), got {colour!r}")
        if self._early:
            return self._connectable(colour)
        ok, _, allowed = self.connection_bitboards(colour)
        return find_path(self._g, colour, allowed, ok) is not None

    def connection_bitboards(self, colour: int) -> tuple[tuple[int, int, int, int], int, int]:
        """The graph of :meth:`can_still_connect` for ``colour``, as Python-int bitboards (bit
        ``row * S + col``), for search code and heuristics.

        Returns:
            ``(ok, own, allowed)``: ``ok[k]`` has bit ``p`` set when the step from hole ``p`` along
            the ``k``-th canonical direction ``KNIGHT_DIRS[(2, 3, 4, 5)[k]]`` (offset
            ``geometry(S).koff[k]``) exists on the board and crosses no link that blocks
            ``colour`` under the active rules; ``own``: the colour's pegs; ``allowed``: the holes
            of the colour's legal area that are empty or hold its pegs. Cheap with
            ``draw="early"`` (maintained incrementally), computed from the links otherwise.
        """
        if colour not in (0, 1):
            raise ValueError(f"colour must be 0 (red) or 1 (black), got {colour!r}")
        b = self._g.bits()
        if self._early:
            ok0, ok1, ok2, ok3 = self._ok[colour]
            return (ok0, ok1, ok2, ok3), self._pbits[colour], b.area[colour] & ~self._pbits[1 - colour]
        ok = list(b.ok0)
        lc, own_code = self._lc, colour + 1
        for lid in self._order:
            if self._ownblock or lc[lid] != own_code:
                for k, nm in b.cross_clear[lid]:
                    ok[k] &= nm
        bits = [0, 0, 0]
        pegs = self._pegs
        for p in range(self._n):
            v = pegs[p]
            if v:
                bits[v] |= 1 << p
        return tuple(ok), bits[own_code], b.area[colour] & ~bits[3 - own_code]

    # ------------------------------------------------------------------ GameState interface
    @property
    def current_player(self) -> int:
        return self._player

    @property
    def to_move_colour(self) -> int:
        """Colour of the player to move (0 red, 1 black), -1 once the game is over."""
        return self._player % 2 if self._player >= 0 else -1

    @property
    def turn_number(self) -> int:
        """Plies played so far (a swap counts as one). With ``links="manual"``, turns: each ends
        with ``end`` / ``end!``, or with the game (a win or a draw within the turn counts)."""
        return self._ply

    ply = turn_number

    def legal_action_mask(self) -> np.ndarray:
        """``np.int8`` array ``(num_actions,)``; see the module docstring for the encoding."""
        pl = self._player
        if pl < 0:
            return np.zeros(self.num_actions, dtype=np.int8)
        if self._manual:
            return self._manual_mask(pl)
        c = pl & 1
        m = np.frombuffer(self._avail[c], dtype=np.int8).copy()
        n = self._n
        if self.num_players == 2:
            if self._ply == 1 and self.swap:
                m[n] = 1
        elif not self._priv[c]:
            m[n + 1 :] = m[:n]
        return m

    def legal_actions(self) -> list[int]:
        if self._manual and self._placed and self._player >= 0:  # few actions: no full mask
            c = self._player & 1
            blk = self._block[c]
            add0 = self._add0
            out = sorted(add0 + lid for lid in self._cand[c] if not blk[lid])
            out.append(self._end)
            if self.num_players == 4 and not self._priv[c]:
                out.append(self._end + 1)
            return out
        return np.flatnonzero(self.legal_action_mask()).tolist()

    def apply(self, action: int) -> None:
        a = self._check_action_index(action)
        if self._manual:
            return self._apply_manual(a)
        pl = self._player
        if pl >= 0:
            n = self._n
            c = pl & 1
            if a < n:
                if self._avail[c][a]:
                    self._place(a, pl, False)
                    self.history.append(a)
                    return
            elif a > n:
                p = a - n - 1
                if self._avail[c][p] and not self._priv[c]:
                    self._place(p, pl, True)
                    self.history.append(a)
                    return
            elif self._ply == 1 and self.swap:
                self._do_swap()
                self.history.append(a)
                return
        raise IllegalActionError(
            f"illegal action {a} ({self.action_to_string(a)}) for {self._player_name(pl)}: {self._why_illegal(a)}"
        )

    def _place(self, p: int, pl: int, claim: bool) -> None:
        g = self._g
        c = pl & 1
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
        uf = self._uf
        touched = False
        bnode = g.border_node[c][p]
        if bnode >= 0:
            uf[p] = find_root(uf, bnode)
            touched = True
        early = self._early
        if early:
            o = 1 - c
            self._pbits[c] |= 1 << p
            if self._can[o] and not self._wbad[o] and (self._wholes[o] >> p) & 1:
                self._wbad[o] = True
        lc = self._lc
        std = self._std
        cross = g.cross
        for q, lid in g.adj[p]:
            if pegs[q] == cc:
                for x in cross[lid]:
                    v = lc[x]
                    if v and (std or v != cc):
                        break
                else:
                    lc[lid] = cc
                    self._order.append(lid)
                    ra = find_root(uf, p)
                    rb = find_root(uf, q)
                    if ra != rb:
                        uf[ra] = rb
                    touched = True
                    if early:
                        self._link_added_early(lid, c)
        self._ply += 1
        if claim:
            self._priv[c] = True
        if touched and find_root(uf, g.n + 2 * c) == find_root(uf, g.n + 2 * c + 1):
            self._status = STATUS_RED + c
            self._player = -1
            return
        if self.num_players == 2:
            self._player = 1 - pl
        else:
            self._player = (pl + 2) % 4 if claim else (pl + 1) % 4
        self._check_draw()

    def _link_added_early(self, lid: int, c: int) -> None:
        o = 1 - c
        ok = self._ok[o]  # standard: the one list shared by both colours
        for k, nm in self._g.bits().cross_clear[lid]:
            ok[k] &= nm
        cs = self._g.cross_set[lid]
        if self._can[o] and not self._wbad[o] and not self._wlinks[o].isdisjoint(cs):
            self._wbad[o] = True
        if self._ownblock and self._can[c] and not self._wbad[c] and not self._wlinks[c].isdisjoint(cs):
            self._wbad[c] = True

    def _check_draw(self) -> None:
        """After a move that did not win: the early-draw test, then "no legal hole to move to"."""
        if self._early:
            first = 0 if (self._can[0] and not self._wbad[0]) else 1  # a still-valid witness first
            if not self._connectable(first) and not self._connectable(1 - first):
                self._status = STATUS_DRAW
                self._player = -1
                return
        if self._navail[self._player & 1] == 0:
            self._status = STATUS_DRAW
            self._player = -1

    def _swap_pegs(self) -> int:
        """The pie rule's board change, shared by both link modes: the first peg leaves its hole
        and a black peg takes the transposed hole (no links exist yet). Returns that hole."""
        g = self._g
        s = self.board_size
        first = self.history[0]
        r, c = divmod(first, s)
        t = c * s + r
        pegs = self._pegs
        pegs[first] = 0
        for col in (0, 1):
            if g.legal[col][first]:
                self._avail[col][first] = 1
                self._navail[col] += 1
        pegs[t] = 2
        for col in (0, 1):
            if self._avail[col][t]:
                self._avail[col][t] = 0
                self._navail[col] -= 1
        self._uf = list(range(self._n + 4))  # a single peg: no links to re-derive
        bnode = g.border_node[1][t]
        if bnode >= 0:
            self._uf[t] = bnode
        return t

    def _swap_witnesses(self, t: int) -> None:
        """Early draws after the swap: the witness paths start afresh around the one black peg."""
        self._reset_witnesses()
        self._pbits[1] = 1 << t
        if (self._wholes[0] >> t) & 1:
            self._wbad[0] = True

    def _do_swap(self) -> None:
        t = self._swap_pegs()
        self._ply += 1
        self._player = 0
        if self._early:
            self._swap_witnesses(t)
        self._check_draw()

    def is_terminal(self) -> bool:
        return self._status != STATUS_ONGOING

    def _winning_colour(self) -> int | None:
        return self._status - 1 if self._status in (STATUS_RED, STATUS_BLACK) else None

    def _end_text(self) -> tuple[str, str]:
        """``'1-0'`` (red won), ``'0-1'`` (black won) or ``'1/2-1/2'``, and why the game ended."""
        return ("*", "1-0", "0-1", "1/2-1/2")[self._status], self._termination()

    def resign(self, player: int) -> None:
        """``player`` resigns (in Double TwixT for its team, ``envs/twixt/RULES.md``): the game is
        over and the other colour wins (``1-0`` or ``0-1``, ended by ``"red resigned"``). Not a
        move: :attr:`resignations` records it.

        Raises:
            ValueError: ``player`` is not a seat. IllegalActionError: the game is over.
        """
        self._check_seat(player, "player")
        if self._status != STATUS_ONGOING:
            raise IllegalActionError("the game is over: nobody can resign")
        self.resignations = ((len(self.history), int(player)),)
        self._status = STATUS_RED + (1 - int(player) % 2)
        self._player = -1

    def _termination(self) -> str:
        if self.resignations:
            return f"{COLOUR_NAMES[self.resignations[0][1] % 2]} resigned"
        if self._status == STATUS_DRAW:
            return (
                "neither side can still connect"
                if self._early and not (self._can[0] or self._can[1])
                else "the player to move has no legal hole"
            )
        return f"{COLOUR_NAMES[self._status - 1]} connected its borders"

    def setting_name(self) -> str:
        """``"TwixT"``, or ``"Double TwixT"`` with four players (``envs/twixt/RULES.md``)."""
        return "Double TwixT" if self.num_players == 4 else self.info.long_name

    def seat_name(self, player: int) -> str:
        """``red`` / ``black`` (two players); ``red A``, ``black A``, ``red B``, ``black B`` (four)."""
        self._check_seat(player, "player")
        return COLOUR_NAMES[player % 2] + (f" {_TEAM_SEATS[player]}" if self.num_players == 4 else "")

    def returns(self) -> np.ndarray:
        """+1 for every player of the winning colour, -1 for the others; zeros otherwise."""
        out = np.zeros(self.num_players, dtype=np.float64)
        w = self._winning_colour()
        if w is not None:
            out[:] = -1.0
            out[w::2] = 1.0
        return out

    def team_of(self, player: int) -> int:
        """A player's team is its colour (Double TwixT: seats 0 & 2 red, 1 & 3 black)."""
        return player % 2

    # ------------------------------------------------------------------ agent frames
    # Black sees the board transposed so that every player connects top to bottom; black's
    # actions are transposed accordingly (each block of S*S hole actions; swap unchanged).
    def to_state_action(self, player: int, action: int) -> int:
        if player % 2 == 0:
            return action
        n, s = self._n, self.board_size
        a = int(action)
        if self._manual:
            return int(self._g.transposition(self.num_actions, True)[a]) if 0 <= a < self.num_actions else a
        if 0 <= a < n:
            r, c = divmod(a, s)
            return c * s + r
        if a > n and a < self.num_actions:
            r, c = divmod(a - n - 1, s)
            return n + 1 + c * s + r
        return a

    to_agent_action = to_state_action  # the transposition is its own inverse

    def agent_action_mask(self, player: int) -> np.ndarray:
        mask = self.legal_action_mask()
        if player % 2 == 0:
            return mask
        return mask[self._g.transposition(self.num_actions, self._manual)]

    # ------------------------------------------------------------------ accessors
    def swap_available(self) -> bool:
        """Whether ``swap`` is legal now (two players, ``swap=True``, second ply, game on; with
        ``links="manual"`` before black's placement)."""
        return self.swap and self._ply == 1 and self._player == 1 and not self._placed

    def privilege_available(self, team: int) -> bool:
        """Whether ``team`` (= colour, 0 red or 1 black) has not claimed its Privilege yet, in
        Double TwixT and while the game is on (it may claim it with any of its own moves).
        Always ``False`` with two players."""
        if team not in (0, 1):
            raise ValueError(f"team must be 0 (red) or 1 (black), got {team!r}")
        return self.num_players == 4 and not self._priv[team] and self._status == STATUS_ONGOING

    def privilege_used(self, team: int) -> bool:
        """Whether ``team`` (0 red or 1 black) has claimed its Privilege (Double TwixT).

        Raises:
            ValueError: ``team`` is not 0 or 1.
        """
        if not is_int(team) or team not in (0, 1):
            raise ValueError(f"team must be 0 (red) or 1 (black), got {team!r}")
        return self._priv[team]

    def pegs(self) -> np.ndarray:
        """``int8 (S, S)``: 0 empty, 1 red peg, 2 black peg (row 0 = row "1" at the top)."""
        return np.frombuffer(self._pegs, dtype=np.int8).reshape(self.board_size, self.board_size).copy()

    def peg_at(self, row: int, col: int) -> int:
        """0 empty, 1 red, 2 black (corners are always 0).

        Raises:
            ValueError: ``row`` or ``col`` outside ``0 .. board_size - 1``.
        """
        s = self.board_size
        for name, v in (("row", row), ("col", col)):
            if not is_int(v) or not 0 <= v < s:
                raise ValueError(f"{name} must be an integer in 0..{s - 1}, got {v!r}")
        return self._pegs[int(row) * s + int(col)]

    def link_planes(self) -> np.ndarray:
        """``uint8 (2, 8, S, S)``: ``[c, d, r, k]`` is 1 if a link of colour ``c`` joins hole
        ``(r, k)`` to ``(r, k) + KNIGHT_DIRS[d]`` (both ends of each link are marked)."""
        s = self.board_size
        lc = np.frombuffer(self._lc, dtype=np.uint8)[self._g.lid_dp]  # (8, N)
        out = np.empty((2, 8, s * s), dtype=np.uint8)
        np.equal(lc, 1, out=out[0], casting="unsafe")
        np.equal(lc, 2, out=out[1], casting="unsafe")
        return out.reshape(2, 8, s, s)

    def link_colours(self) -> np.ndarray:
        """``uint8 (L,)`` (``L = geometry(S).num_links``): per link id, 0 no link, 1 red, 2 black
        (link ``lid`` joins the holes ``geometry(S).link_ends[lid]``). A fresh copy."""
        return np.frombuffer(self._lc, dtype=np.uint8, count=self._g.num_links).copy()

    def links(self) -> list[tuple[tuple[int, int], tuple[int, int], int]]:
        """Every link as ``((r1, c1), (r2, c2), colour)``, in the order they were made."""
        s = self.board_size
        ends = self._g.link_ends
        out = []
        for lid in self._order:
            p, q = ends[lid]
            out.append(((p // s, p % s), (q // s, q % s), self._lc[lid] - 1))
        return out

    def has_link(self, a: tuple[int, int], b: tuple[int, int]) -> int | None:
        """Colour of the link between holes ``a`` and ``b`` (``(row, col)``), or ``None``."""
        s = self.board_size
        p, q = a[0] * s + a[1], b[0] * s + b[1]
        for q2, lid in self._g.adj[p] if 0 <= p < self._n else ():
            if q2 == q:
                v = self._lc[lid]
                return v - 1 if v else None
        return None

    # ------------------------------------------------------------------ notation
    def action_to_string(self, action: int) -> str:
        """``row * S + col -> 'c5'``, ``S*S -> 'swap'``, ``S*S + 1 + hole -> 'c5!'`` (Privilege);
        with ``links="manual"``: ``'+c5e6'`` / ``'-c5e6'`` (ends in hole order), ``'end'``, ``'end!'``."""
        a = int(action)
        if not 0 <= a < self.num_actions:
            raise IllegalActionError(f"action {a} is out of range: expected 0 <= action < {self.num_actions}")
        n, s = self._n, self.board_size
        if a == n:
            return "swap"
        if self._manual and a > n:
            if a >= self._end:
                return "end" if a == self._end else "end!"
            if a >= self._rem0:
                return "-" + self._link_name(a - self._rem0)
            return "+" + self._link_name(a - self._add0)
        if a > n:
            r, c = divmod(a - n - 1, s)
            return hole_name(r, c) + "!"
        r, c = divmod(a, s)
        return hole_name(r, c)

    def move_in_words(self, move: str) -> str:
        """``c5`` -> ``peg on c5``, ``c5!`` -> ``peg on c5, claiming the Privilege``, ``swap`` ->
        ``swap (the pie rule)``, ``+c5e6`` -> ``link c5-e6``, ``-c5e6`` -> ``remove the link
        c5-e6``, ``end`` -> ``end of the turn``, ``end!`` -> ``end of the turn, claiming the
        Privilege`` (see :meth:`GameState.move_in_words`; a text that is no move of this board
        comes back as it is)."""
        t = move.strip().lower() if isinstance(move, str) else ""
        fixed = {
            "swap": "swap (the pie rule)",
            "end": "end of the turn",
            "end!": "end of the turn, claiming the Privilege",
        }
        if t in fixed:
            return fixed[t]
        m = LINK_RE.fullmatch(t)
        if m:
            return f"{'link' if m.group(1) == '+' else 'remove the link'} {m.group(2)}-{m.group(3)}"
        hole, claim = (t[:-1], True) if t.endswith("!") else (t, False)
        try:
            parse_hole(hole, self.board_size)
        except (IllegalActionError, InvalidMoveError):
            return move
        return f"peg on {hole}" + (", claiming the Privilege" if claim else "")

    def string_to_action(self, text: str) -> int:
        """Parse ``c5`` / ``swap`` / ``c5!`` (case-insensitive) into an action index; with
        ``links="manual"``: ``c5``, ``swap``, ``+c5e6`` (add), ``-c5e6`` (remove), ``end``, ``end!``.

        Raises:
            InvalidMoveError: not a well-formed move on this board (``c5!`` with two players,
                a hole off the board, ...). Legality in the position is checked by :meth:`apply`.
        """
        if not isinstance(text, str):
            raise InvalidMoveError(f"a move must be a string, got {type(text).__name__}")
        t = text.strip().lower()
        if t == "swap":
            return self._n
        if self._manual:
            if t in ("end", "end!"):
                if t == "end!" and self.num_players != 4:
                    raise InvalidMoveError(
                        f"{text!r}: a Privilege claim ('end!') exists only in Double TwixT (num_players=4)"
                    )
                return self._end + (t == "end!")
            if t[:1] in "+-" and t:
                m = LINK_RE.fullmatch(t)
                if m is None:
                    raise InvalidMoveError(f"{text!r} is not a link move: expected '+c5e6' (add) or '-c5e6' (remove)")
                try:
                    ha, hb = (parse_hole(h, self.board_size) for h in m.group(2, 3))
                except InvalidMoveError as e:
                    raise InvalidMoveError(f"{text!r} is not a link move ({e})") from None
                return self.link_action(ha, hb, remove=m.group(1) == "-")
            if t.endswith("!"):
                raise InvalidMoveError(
                    f"{text!r}: with links='manual' the Privilege is claimed with 'end!' after the placement"
                )
        elif t in ("end", "end!") or t[:1] in ("+", "-"):
            raise InvalidMoveError(
                f"{text!r}: link moves and 'end' exist only with links='manual' "
                f"(this game adds links automatically, links='auto')"
            )
        claim = t.endswith("!")
        if claim:
            if self.num_players != 4:
                raise InvalidMoveError(f"{text!r}: a Privilege claim ('!') exists only in Double TwixT (num_players=4)")
            t = t[:-1]
        try:
            r, c = parse_hole(t, self.board_size)
        except InvalidMoveError as e:
            raise InvalidMoveError(
                f"{text!r} is not a TwixT move: expected a hole like 'c5', 'swap' or 'c5!' ({e})"
            ) from None
        a = r * self.board_size + c
        return a + self._n + 1 if claim else a

    # ------------------------------------------------------------------ diagnostics
    def _player_name(self, pl: int) -> str:
        if pl < 0:
            return "nobody (game over)"
        if self.num_players == 4:
            return f"{COLOUR_NAMES[pl % 2]} {_TEAM_SEATS[pl]} (player {pl})"
        return f"{COLOUR_NAMES[pl]} (player {pl})"

    def _why_illegal(self, a: int) -> str:
        if self._status != STATUS_ONGOING:
            return f"the game is over ({self._result_text()})"
        n = self._n
        c = self._player & 1
        if self._manual:
            why = self._why_illegal_manual(a, c)
            if why:
                return why
        if a == n:
            if self.num_players == 4:
                return "Double TwixT has no swap"
            if not self.swap:
                return "the swap rule is off (swap=False)"
            return f"swap is legal only on the second ply (this is ply {self._ply + 1})"
        p = a - n - 1 if a > n else a
        if a > n and self._priv[c]:
            return f"team {COLOUR_NAMES[c]} has already claimed its Privilege"
        if not self._g.valid[p]:
            return f"{self.action_to_string(p)} is a corner hole (the corners do not exist)"
        if self._pegs[p]:
            return f"{self.action_to_string(p)} already holds a {COLOUR_NAMES[self._pegs[p] - 1]} peg"
        if not self._g.legal[c][p]:
            where = "row" if c == 1 else "column"
            return f"{self.action_to_string(p)} is in {COLOUR_NAMES[1 - c]}'s border {where}"
        return "not legal here"  # pragma: no cover

    def _result_text(self) -> str:
        st = self._status
        if st == STATUS_ONGOING:
            return "game on"
        if st == STATUS_DRAW:
            return "draw"
        return f"{COLOUR_NAMES[st - 1]} won"

    # ------------------------------------------------------------------ copying, comparing, text
    def clone(self) -> TwixtState:
        c = TwixtState.__new__(TwixtState)
        c.board_size = self.board_size
        c.num_players = self.num_players
        c.num_actions = self.num_actions
        c.rules = self.rules
        c.swap = self.swap
        c.draw = self.draw
        c.history = list(self.history)
        c._g = self._g
        c._n = self._n
        c._std = self._std
        c._early = self._early
        c._pegs = bytearray(self._pegs)
        c._lc = bytearray(self._lc)
        c._order = list(self._order)
        c._uf = list(self._uf)
        c._avail = [bytearray(self._avail[0]), bytearray(self._avail[1])]
        c._navail = list(self._navail)
        c._player = self._player
        c._ply = self._ply
        c._status = self._status
        c.resignations = self.resignations
        c._priv = list(self._priv)
        if self._early:
            c._pbits = list(self._pbits)
            ok = list(self._ok[0])
            c._ok = [ok, ok] if self._ownblock else [ok, list(self._ok[1])]
            c._wholes = list(self._wholes)
            c._wlinks = list(self._wlinks)
            c._can = list(self._can)
            c._wbad = list(self._wbad)
        else:
            c._pbits = c._ok = c._wholes = c._wlinks = c._can = c._wbad = cast(Any, None)  # as in __init__
        c.linking = self.linking
        c._manual = self._manual
        c._ownblock = self._ownblock
        c._placed = self._placed
        c._last = self._last
        c._add0, c._rem0, c._end = self._add0, self._rem0, self._end
        if self._manual:
            blk = bytearray(self._block[0])
            c._block = [blk, blk] if self._std else [blk, bytearray(self._block[1])]
            c._cand = [set(self._cand[0]), set(self._cand[1])]
        else:
            c._block = c._cand = cast(Any, None)  # as in __init__
        return c

    @classmethod
    def _from_arrays(
        cls,
        settings: dict,
        *,
        pegs,
        lc,
        order,
        uf,
        player,
        ply,
        status,
        priv,
        navail,
        history,
        ok=None,
        can=(True, True),
    ) -> TwixtState:
        """A state of ``settings`` (the constructor's keywords, ``links="auto"``) with the position
        given as arrays (the batched core's ``to_state``, :mod:`envs.twixt.vector`): ``pegs``
        ``uint8 (N,)``, ``lc`` ``uint8 (L + 1,)``, ``order`` the link ids in the order they were
        made, ``uf`` a union-find list over the ``N + 4`` nodes with the same components, the
        player, ply, status, Privileges, free-hole counts and history; with ``draw="early"``,
        ``ok`` the step bitboards (one list with ``rules="standard"``, one per colour with "pp")
        and ``can`` per colour (the witness paths are searched again when next needed)."""
        st = cls(**settings)
        g = st._g
        n = st._n
        pegs = np.asarray(pegs, dtype=np.uint8)
        st._pegs = bytearray(pegs)
        st._lc = bytearray(np.asarray(lc, dtype=np.uint8))
        st._order = list(order)
        st._uf = list(uf)
        pad = bytes(st.num_actions - n)
        empty = pegs == 0
        st._avail = [bytearray((np.frombuffer(g.legal[c], dtype=np.uint8) & empty).tobytes() + pad) for c in (0, 1)]
        st._navail = [int(x) for x in navail]
        st._player, st._ply, st._status = int(player), int(ply), int(status)
        st._priv = [bool(x) for x in priv]
        st.history = list(history)
        if st._early:
            st._pbits = [
                int.from_bytes(np.packbits(pegs == c + 1, bitorder="little").tobytes(), "little") for c in (0, 1)
            ]
            shared = list(ok[0])
            st._ok = [shared, shared] if st._ownblock else [shared, list(ok[1])]
            st._wholes = [0, 0]
            st._wlinks = [frozenset(), frozenset()]
            st._can = [bool(x) for x in can]
            st._wbad = list(st._can)  # a colour that can connect gets its witness searched when needed
        return st

    def __getstate__(self):
        d = {k: getattr(self, k) for k in self.__slots__ if k != "_g"}
        if self._early and self._ownblock:
            d["_ok"] = [self._ok[0]]  # keep the sharing explicit
        return d

    def __setstate__(self, d):
        self.resignations = ()  # pickled before resignations existed
        if "_manual" not in d:  # pickled before links="manual" existed
            d = dict(
                d,
                linking="auto",
                _manual=False,
                _ownblock=d["_std"],
                _placed=False,
                _last=-1,
                _block=None,
                _cand=None,
                _add0=-1,
                _rem0=-1,
                _end=-1,
            )
        for k, v in d.items():
            setattr(self, k, v)
        self._g = geometry(self.board_size)
        if self._early:
            self._g.bits()
            if self._ownblock:
                self._ok = [self._ok[0], self._ok[0]]

    def position_key(self) -> tuple:
        """A hashable key of the position (pegs, links, player to move, Privileges, swap and game
        status) within one game setting: equal keys, equal futures. For transposition tables."""
        key: tuple = (
            bytes(self._pegs),
            bytes(self._lc),
            self._player,
            self._priv[0],
            self._priv[1],
            self._status,
            self.swap_available(),
        )
        key = key + (self._placed,) if self._manual else key
        return key + (self.resignations,) if self.resignations else key

    def __eq__(self, other):
        """Same settings and same position (:meth:`position_key`); the move order may differ."""
        if not isinstance(other, TwixtState):
            return NotImplemented
        return (self.board_size, self.num_players, self.rules, self.swap, self.draw, self.linking) == (
            other.board_size,
            other.num_players,
            other.rules,
            other.swap,
            other.draw,
            other.linking,
        ) and self.position_key() == other.position_key()

    __hash__ = None  # type: ignore[assignment]  # unhashable (mutable); typeshed types object.__hash__ as a method

    def __repr__(self):
        settings = f"board_size={self.board_size}, rules={self.rules!r}, swap={self.swap}, draw={self.draw!r}"
        if self.num_players != 2:
            settings += f", num_players={self.num_players}"
        if self._manual:
            settings += ", links='manual'"
        return f"TwixtState.from_moves({' '.join(self.moves())!r}, {settings})"

    def status_line(self) -> str:
        """One line: whose turn it is, or the result (after a resignation, who resigned)."""
        if self._status == STATUS_ONGOING:
            text = f"ply {self._ply}: {self._player_name(self._player)} to move"
            if self._manual:
                placed = self.last_placed
                if self._placed:
                    assert placed is not None  # the peg placed this turn (``_placed`` sets ``_last``)
                    text += f", placed {hole_name(*placed)}: add links or end"
                else:
                    text += ", before the placement"
            if self.swap_available():
                text += " (swap available)"
            if self.num_players == 4:
                left = [COLOUR_NAMES[t] for t in (0, 1) if not self._priv[t]]
                text += f"; Privilege unclaimed: {', '.join(left) if left else 'none'}"
            return text
        if self._status == STATUS_DRAW:
            return f"game over after {self._ply} plies: draw ({self._termination()})"
        if self.resignations:  # the result and who resigned: "black won (0-1, red resigned)"
            ended = f"{self._end_text()[0]}, {self._termination()}"
            return f"game over after {self._ply} plies: {self._result_text()} ({ended})"
        return f"game over after {self._ply} plies: {self._result_text()} ({self._end_text()[0]})"

    def __str__(self):
        s = self.board_size
        w = 3 if s > 26 else 2
        header = " " * 4 + "".join(column_label(c).rjust(w) for c in range(s))
        lines = [header]
        pegs = self._pegs
        valid = self._g.valid
        for r in range(s):
            cells = []
            for c in range(s):
                p = r * s + c
                cells.append((PEG_CHARS[pegs[p]] if valid[p] else " ").rjust(w))
            lines.append(f"{r + 1:>3} " + "".join(cells) + f" {r + 1}")
        lines.append(header)
        for col in (0, 1):
            names = [f"{hole_name(*a)}-{hole_name(*b)}" for a, b, lc in self.links() if lc == col]
            lines.append(f"{COLOUR_NAMES[col]} (x) links: " if col == 0 else f"{COLOUR_NAMES[col]} (o) links: ")
            lines[-1] += " ".join(names) if names else "none"
        lines.append(self.status_line())
        return "\n".join(lines)
