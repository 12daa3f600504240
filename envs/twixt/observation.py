"""TwixT and Double TwixT observation encoding (``twixt_v0``, ``double_twixt_v0``): :class:`TwixtObservation`.

``Box(0, 1, (S, S, 23), float32)`` (27 planes with ``distance_planes=True``; 2 more with
``links="manual"``), in the observing seat's frame (black's board transposed so that every seat
connects top to bottom); the planes are listed in :mod:`envs.twixt.env`.

Action layout: plane 0 the hole placements ``row * S + col``; Double TwixT adds plane 1, the
place-and-claim-Privilege actions ``S*S + 1 + row * S + col``; the swap (``S*S``) is off the grid.
With ``links="manual"``: plane 0 the placements, planes 1-4 the link additions and 5-8 the link
removals, each link at its end with the smaller hole index along the canonical direction
``KNIGHT_DIRS[(2, 3, 4, 5)[k]]`` (in the agent's frame); swap, ``end`` and ``end!`` are off the grid.

Symmetries (:meth:`TwixtObservation.symmetries`): the 180-degree rotation of the board (each colour's
borders map onto each other), with automatic links; none with ``links="manual"``.

The encoding is incremental: the encoder keeps, per colour's view, the peg and link planes of the
last position it encoded and updates only the holes and links that differ from it (compared by
value, so any position, from any state object, encodes exactly as from scratch).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envs.core.observation import ActionLayout, ObservationEncoder, Symmetry, grid_symmetry
from envs.twixt.geometry import KNIGHT_DIRS, geometry
from envs.twixt.heuristics import UNREACHABLE, distance_maps
from envs.twixt.state import TwixtState

__all__ = ["TwixtObservation", "NUM_PLANES", "NUM_DISTANCE_PLANES", "NUM_MANUAL_PLANES"]

NUM_PLANES = 23
NUM_DISTANCE_PLANES = 4
NUM_MANUAL_PLANES = 2
_BOARD_PLANES = 19  # planes 0-18: pegs, links, legal area (kept per view, updated incrementally)
# Link direction d seen transposed is direction _TRANSPOSED_DIR[d].
_TRANSPOSED_DIR = np.array([KNIGHT_DIRS.index((dc, dr)) for dr, dc in KNIGHT_DIRS])
_CANON = (2, 3, 4, 5)


class TwixtObservation(ObservationEncoder):
    """TwixT's observation for the parameters of ``probe`` (board size, players, links rule).

    Args:
        probe: a state with the game's parameters (only its board size, player count, action
            count and ``linking`` are read).
        distance_planes: add the four connection-distance planes (23-26).
    """

    def __init__(self, probe: TwixtState, distance_planes: bool = False) -> None:
        s = self.board_size = probe.board_size
        self.num_players = probe.num_players
        self.num_actions = probe.num_actions
        self.manual = getattr(probe, "linking", "auto") == "manual"
        self.distance_planes = distance_planes
        self.planes = (
            NUM_PLANES + (NUM_DISTANCE_PLANES if distance_planes else 0) + (NUM_MANUAL_PLANES if self.manual else 0)
        )
        # Where the observing colour may ever place, in its own frame: the same for both colours
        # (every seat connects top to bottom in its frame, so the opponent's borders are the first
        # and last columns; the corners never exist).
        area = np.ones((s, s), dtype=np.float32)
        area[:, 0] = area[:, s - 1] = 0
        self.legal_area = area
        self.space = spaces.Box(0.0, 1.0, shape=(s, s, self.planes), dtype=np.float32)
        # Per link id, per view (0 red: as is; 1 black: transposed): the cell and plane offset of
        # each end's mark.
        g = geometry(s)
        ends = np.array(g.link_ends, dtype=np.intp).reshape(-1, 2)
        p, q = ends[:, 0], ends[:, 1]
        rp, cp, rq, cq = p // s, p % s, q // s, q % s
        dmap = {d: i for i, d in enumerate(KNIGHT_DIRS)}
        dpq = np.array([dmap[(int(b // s - a // s), int(b % s - a % s))] for a, b in zip(p, q)], dtype=np.intp)
        dqp = (dpq + 4) % 8
        self._link_cells = (
            (dpq, rp, cp, dqp, rq, cq),
            (_TRANSPOSED_DIR[dpq], cp, rp, _TRANSPOSED_DIR[dqp], cq, rq),
        )
        # The same as Python tuples per link id, for the usual few changes per step.
        self._link_cell_list = tuple(tuple(zip(*(a.tolist() for a in cells))) for cells in self._link_cells)
        # per view: (pegs bytearray (N,), links bytearray (L + 1,), planes (19, S, S))
        self._cache: list[tuple[bytearray, bytearray, np.ndarray] | None] = [None, None]

    def _board_planes(self, state: TwixtState, colour: int) -> np.ndarray:
        """Planes 0-18 of ``colour``'s view, brought up to date with ``state`` (the cached array).

        Reads the state's peg and link-colour byte arrays directly (this encoder belongs to the
        rules core's package) and compares them by value with those of the cached planes."""
        s = self.board_size
        pegs, lc = state._pegs, state._lc
        cache = self._cache[colour]
        if cache is None:
            buf = np.zeros((_BOARD_PLANES, s, s), dtype=np.float32)
            buf[18] = self.legal_area
            cache = self._cache[colour] = (bytearray(len(pegs)), bytearray(len(lc)), buf)
        old_pegs, old_lc, buf = cache
        own, other = colour + 1, 2 - colour
        if pegs != old_pegs:
            ch = np.flatnonzero(np.frombuffer(pegs, np.uint8) != np.frombuffer(old_pegs, np.uint8))
            if ch.size > 16:
                v = np.frombuffer(pegs, np.uint8)[ch]
                r, c = np.divmod(ch, s)
                if colour:
                    r, c = c, r
                buf[0, r, c] = v == own
                buf[1, r, c] = v == other
            else:
                for h in ch.tolist():
                    v = pegs[h]
                    r, c = divmod(h, s)
                    if colour:
                        r, c = c, r
                    buf[0, r, c] = v == own
                    buf[1, r, c] = v == other
            old_pegs[:] = pegs
        if lc != old_lc:
            ch = np.flatnonzero(np.frombuffer(lc, np.uint8) != np.frombuffer(old_lc, np.uint8))
            if ch.size > 16:
                v = np.frombuffer(lc, np.uint8)[ch]
                mine = v == own
                theirs = v == other
                dp, rp, cp, dq, rq, cq = (a[ch] for a in self._link_cells[colour])
                buf[2 + dp, rp, cp] = mine
                buf[10 + dp, rp, cp] = theirs
                buf[2 + dq, rq, cq] = mine
                buf[10 + dq, rq, cq] = theirs
            else:
                cells = self._link_cell_list[colour]
                for lid in ch.tolist():
                    v = lc[lid]
                    mine = float(v == own)
                    theirs = float(v == other)
                    dp, rp, cp, dq, rq, cq = cells[lid]
                    buf[2 + dp, rp, cp] = mine
                    buf[10 + dp, rp, cp] = theirs
                    buf[2 + dq, rq, cq] = mine
                    buf[10 + dq, rq, cq] = theirs
            old_lc[:] = lc
        return buf

    def encode(self, state: TwixtState, player: int) -> np.ndarray:
        """``float32 (S, S, planes)``: ``state`` seen by seat ``player``, in its frame (a fresh array)."""
        st = state
        colour = player % 2
        # Planes are filled channels-first (contiguous writes) and returned as an (S, S, C) view.
        s = self.board_size
        buf = np.empty((self.planes, s, s), dtype=np.float32)
        buf[:_BOARD_PLANES] = self._board_planes(st, colour)
        buf[19] = float(st.swap_available())
        four = self.num_players == 4
        buf[20] = float(four and st.privilege_available(colour))
        buf[21] = float(four and st.privilege_available(1 - colour))
        buf[22] = float(st.current_player == player)
        k = NUM_PLANES
        if self.distance_planes:
            for i, c in enumerate((colour, 1 - colour)):
                first, second, _ = distance_maps(st, c)
                for j, d in enumerate((first, second)):
                    plane = np.where(d >= UNREACHABLE, 1.0, np.minimum(d, 2 * s - 1) / (2 * s)).reshape(s, s)
                    buf[23 + 2 * i + j] = plane.T if colour == 1 else plane
            k += NUM_DISTANCE_PLANES
        if self.manual:
            buf[k] = float(st.placed)
            buf[k + 1] = 0.0
            last = st.last_placed
            if last is not None:
                r, c = last
                buf[k + 1, c if colour else r, r if colour else c] = 1.0
        return buf.transpose(1, 2, 0)

    def symmetries(self) -> list[Symmetry]:
        """The identity and the 180-degree rotation ``(row, col) -> (S-1-row, S-1-col)`` (the same in
        both colours' frames: it commutes with the transpose). A link seen from a hole in direction
        ``d`` is seen from the mapped hole in the opposite direction ``(d + 4) % 8``; the distance
        planes from the first and the second border swap; the other planes stay. Actions: every
        plane keeps its meaning at the mapped hole; the swap stays. ``links="manual"``: none (its
        link actions are stored at one end chosen by hole index, which the rotation does not keep)."""
        if self.manual:
            return []
        s = self.board_size
        layout = self.action_layout()
        cells = np.arange(s * s).reshape(s, s)
        planes = np.arange(self.planes)
        rot = planes.copy()
        rot[2:10] = 2 + (np.arange(8) + 4) % 8
        rot[10:18] = 10 + (np.arange(8) + 4) % 8
        if self.distance_planes:
            rot[23:27] = [24, 23, 26, 25]
        return [
            grid_symmetry("identity", layout, self.planes, cells, planes, np.arange(layout.planes)),
            grid_symmetry("rot180", layout, self.planes, cells[::-1, ::-1], rot, np.arange(layout.planes)),
        ]

    def action_layout(self) -> ActionLayout:
        """``index (planes, S, S)`` in the agent's frame: plane 0 the placements ``row * S + col``;
        Double TwixT adds plane 1, place-and-claim-Privilege ``S*S + 1 + row * S + col``. The swap
        (``S*S``) is off the grid. With ``links="manual"``: planes 1-4 add and 5-8 remove the link
        from each hole along ``KNIGHT_DIRS[(2, 3, 4, 5)[k]]`` (``-1`` where it leaves the board);
        swap, ``end`` and ``end!`` are off the grid. The observation is a plain ``Box``:
        ``obs_key`` is ``None``."""
        s = self.board_size
        n = s * s
        holes = np.arange(n).reshape(1, s, s)
        if self.manual:
            g = geometry(s)
            nl = g.num_links
            lids = g.lid_dp[list(_CANON)]  # (4, N), nl where there is no link
            add = np.where(lids < nl, n + 1 + lids, -1).reshape(4, s, s)
            rem = np.where(lids < nl, n + 1 + nl + lids, -1).reshape(4, s, s)
            index = np.concatenate([holes, add, rem])
        else:
            index = np.concatenate([holes, holes + n + 1]) if self.num_players == 4 else holes
        return ActionLayout(index=index, num_actions=self.num_actions)
