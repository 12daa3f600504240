"""Tantrix observation encoding (``tantrix_v0``): :class:`TantrixObservation`.

``Dict(board: Box(0, 1, (H, W, 41)), hands: Box(0, 1, (n, 6, 24)), globals: Box(0, 1, (8 + 2n,)))``,
float32, ``H = W = 2R + 1``; the entries and planes are listed in :mod:`envs.tantrix.env`. Every
colour axis lists the observing seat's (team's) colour first, then the others in the order red,
yellow, blue, green.

Action layout: the spatial map is ``board``; plane ``slot * 6 + rot`` places the tile of the
observer's hand slot ``slot`` turned ``rot`` sixths clockwise, and the factored head reads each
plane's description (the turned tile's edge colours) from ``hands``.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envs.core.observation import ActionLayout, ObservationEncoder
from envs.tantrix.state import TantrixState
from envs.tantrix.tiles import NUM_TILES, TR_EDGES

__all__ = ["TantrixObservation", "NUM_PLANES"]

NUM_PLANES = 41
# _ONEHOT[t * 6 + k]: (6, 4) one-hot of the edge colours (absolute colour order R, Y, B, G).
_ONEHOT = np.zeros(((NUM_TILES + 1) * 6, 6, 4), dtype=np.float32)
for _tr in range(6, (NUM_TILES + 1) * 6):
    for _d, _c in enumerate(TR_EDGES[_tr]):
        _ONEHOT[_tr, _d, _c - 1] = 1.0
_ONEHOT[0:6] = 0.0


class TantrixObservation(ObservationEncoder):
    """Tantrix's observation for the parameters of ``probe`` (players, colours, window radius)."""

    def __init__(self, probe: TantrixState) -> None:
        self.num_players = n = probe.num_players
        self.num_actions = probe.num_actions
        self.window_radius = probe.window_radius
        self.H = self.W = 2 * self.window_radius + 1
        self.inside = probe._g.inside
        # colour permutation per player: observer's colour first, then the others in R, Y, B, G order
        self.order = []
        for p in range(n):
            own = probe.colour_of(p) - 1
            self.order.append(np.array([own] + [c for c in range(4) if c != own]))
        self.space = spaces.Dict(
            {
                "board": spaces.Box(0.0, 1.0, shape=(self.H, self.W, NUM_PLANES), dtype=np.float32),
                "hands": spaces.Box(0.0, 1.0, shape=(n, 6, 24), dtype=np.float32),
                "globals": spaces.Box(0.0, 1.0, shape=(8 + 2 * n,), dtype=np.float32),
            }
        )

    def encode(self, state: TantrixState, player: int) -> dict[str, np.ndarray]:
        """``{"board", "hands", "globals"}`` float32 arrays: ``state`` seen by seat ``player``."""
        st = state
        n = self.num_players
        order = self.order[player]
        H, W = self.H, self.W
        board = np.zeros((NUM_PLANES, H, W), dtype=np.float32)
        R = self.window_radius
        hist = st.placed
        if hist:
            arr = np.array(hist, dtype=np.int64)  # (k, 4): tile, q, r, rot
            rows, cols = arr[:, 2] + R, arr[:, 1] + R
            oh = _ONEHOT[arr[:, 0] * 6 + arr[:, 3]][:, :, order]  # (k, 6, 4)
            board[:24, rows, cols] = oh.reshape(len(hist), 24).T
            board[24, rows, cols] = 1.0
            board[28, rows[-1], cols[-1]] = 1.0
        for q, r in st.forced_spaces():
            if abs(q) <= R and abs(r) <= R and abs(q + r) <= R:
                board[25, r + R, q + R] = 1.0
        for q, r in st.candidate_cells():
            if abs(q) <= R and abs(r) <= R and abs(q + r) <= R:
                board[26, r + R, q + R] = 1.0
        board[27] = self.inside
        # Planes 29-40: the lengths of the players' lines entering each candidate hex, per edge.
        own = st.colour_of(player)
        theirs = {st.colour_of(p) for p in range(n)} - {own}
        tile, rot, nb, qr = st._tile, st._rot, st._g.nb, st._g.qr
        for c in st._cand:
            q, r = qr[c]
            if not (abs(q) <= R and abs(r) <= R and abs(q + r) <= R):
                continue
            for d in range(6):
                m = c + nb[d]
                if not tile[m]:
                    continue
                col = TR_EDGES[tile[m] * 6 + rot[m]][(d + 3) % 6]
                if col == own or col in theirs:
                    board[(29 if col == own else 35) + d, r + R, q + R] = st._line_at(col, m)[1] / NUM_TILES
        hands = np.zeros((n, 6, 24), dtype=np.float32)
        seats = [(player + i) % n for i in range(n)]
        for i, p in enumerate(seats):
            h = np.array(st._hands[p], dtype=np.int64)
            oh = _ONEHOT[np.where(h > 0, h * 6, 0)][:, :, order]
            hands[i] = oh.reshape(6, 24)
        g = np.zeros(8 + 2 * n, dtype=np.float32)
        g[0] = st.bag_size / NUM_TILES
        cur = st.current_player
        if cur >= 0:
            g[1 + st.phase_index] = 1.0
            g[8 + (cur - player) % n] = 1.0
        g[4] = float(st.restrictions_active)
        g[5] = float(cur == player)
        g[6] = len(hist) / NUM_TILES
        g[7] = float(st.clipped_now > 0)
        sc = st.scores()
        for i, p in enumerate(seats):
            g[8 + n + i] = sc[p] / (2 * NUM_TILES)
        return {"board": board.transpose(1, 2, 0), "hands": hands, "globals": g}

    def action_layout(self) -> ActionLayout:
        """The map is ``board``; ``index (36, H, W)`` holds the action id at ``(slot * 6 + rot, row,
        col)``. Every action is on the grid, those of the cells outside the hexagon included (never
        legal, so always masked): a spatial head needs no dense layer for off-grid actions.

        Plane ``slot * 6 + rot`` places the tile of the observer's hand slot ``slot`` turned
        ``rot`` sixths clockwise; its description is that tile's edge colours as placed, read
        from the observation: value ``4 * d + c`` (edge ``d`` clockwise from upper-right, colour
        ``c`` in the observer's order) is ``hands[0, slot, 4 * ((d - rot) % 6) + c]`` (edge ``d``
        of the turned tile is edge ``d - rot`` of the tile as the hand shows it). So
        ``plane_key`` is ``"hands"`` and ``plane_index`` ``int64 (36, 24)`` holds positions in the
        flattened ``hands`` entry (row 0, the observer's own hand, comes first).
        """
        HW = self.H * self.W
        index = np.zeros((36, 24), dtype=np.int64)
        for slot in range(6):
            for rot in range(6):
                for d in range(6):
                    for c in range(4):
                        index[slot * 6 + rot, 4 * d + c] = slot * 24 + 4 * ((d - rot) % 6) + c
        return ActionLayout(
            index=np.arange(36 * HW, dtype=np.int64).reshape(36, self.H, self.W),
            num_actions=self.num_actions,
            obs_key="board",
            plane_index=index,
            plane_key="hands",
        )
