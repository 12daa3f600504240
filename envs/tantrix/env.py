"""Tantrix (``tantrix_v0``) PettingZoo environment, 2-4 players (Doubles: 4 players in 2 teams).

| | ``tantrix_v0`` |
|---|---|
| Agents | ``player_0 .. player_{n-1}`` (n = ``num_players``, 2-4); with ``teams=True`` seats 0 & 2 vs 1 & 3 |
| Action space | ``Discrete(36 * H * W)``, ``H = W = 2R + 1`` (R = ``window_radius``, default 16: 39204 actions) |
| Observation | ``Dict(board: Box(0, 1, (H, W, 41)), hands: Box(0, 1, (n, 6, 24)), globals: Box(0, 1, (8 + 2n,)))``, float32 |
| Rewards | +1 sole winner (team), 0 tied for first, -1 the others; 0 for all in a deadlock draw |

Rules: :mod:`envs.tantrix.state` (``envs/tantrix/RULES.md``). One environment step is one tile
placement; the same agent acts again while its turn lasts (forced moves, the free move, forced
moves).

**Actions** (state frame = agent frame): ``action = ((slot * 6 + rot) * H + row) * W + col``:
hand slot 0-5 (the observation's ``hands[0]`` row order), rotation 0-5 (clockwise sixths), and the
cell ``(q, r) = (col - R, row - R)`` of the axial window around the first tile (cells with
``|q + r| > R`` are outside the hexagon and never legal). :meth:`raw_env.action_layout` gives the
``(36, H, W)`` grid of action ids for spatial policy heads. Placements beyond the window are not
allowed (the table is the hexagon of radius R); ``env.unwrapped.state.clipped_placements`` counts
the decision points at which the rules would have allowed one (very rare at R = 16; see
``benchmarks/bench_tantrix.py``), and the observation's ``globals[7]`` flags one now. (``infos``
holds only the ``action_mask``, as in every environment here: TorchRL's PettingZoo wrapper with
``use_mask=True`` fails on any other key there.)

**Colour order.** Every colour axis lists the observing player's (team's) colour first, then the
other colours in the order red, yellow, blue, green.

Observation ``"observation"`` keys:

* ``board`` ``(H, W, 41)``, cell ``[row, col]`` = hex ``(col - R, row - R)``:

  * planes ``4 * d + k`` (d = edge 0-5 clockwise from upper-right, k = colour 0-3 in the
    observer's order): the tile there shows that colour on that edge;
  * 24 occupied; 25 forced spaces (empty, three or more neighbours); 26 empty hexes touching a
    tile (where placements can go; ``(0, 0)`` before the first tile); 27 inside the hexagonal
    window; 28 the last tile placed;
  * on each empty hex touching a tile, the lines that lead into it: plane ``29 + d`` the length
    (tiles) / 56 of the observer's (team's) colour line entering through edge ``d``, plane
    ``35 + d`` the same for another player's (team's) colour (0 where the colour entering is
    nobody's or there is no tile). A tile that continues the line there lengthens it by one.
* ``hands`` ``(n, 6, 24)``: row 0 the observer's hand, then the others in turn order; each slot's
  tile in rotation 0 as ``4 * edge + colour`` one-hot (observer's colour order); an empty slot is
  all zeros. Hands are open in Tantrix, so every hand is visible.
* ``globals`` ``(8 + 2n,)``: [0] bag size / 56; [1:4] turn phase one-hot (forced before, free,
  forced after); [4] restrictions active (bag not empty); [5] it is the observer's turn; [6]
  tiles on the table / 56; [7] clipped legal placements now; [8 : 8+n] player to move one-hot,
  relative (observer first, then turn order); [8+n : 8+2n] scores / 112 in the same order.

Constructor arguments: ``num_players`` (2-4), ``teams`` (Doubles, 4 players), ``colors``,
``window_radius`` (3-40, default 16), ``max_steps`` (truncation), ``render_mode``.

Version history: v0 — first release.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envs.core.aec import TabletopAECEnv, wrap_classic
from envs.tantrix.render import tantrix_picture
from envs.tantrix.state import DEFAULT_WINDOW_RADIUS, NUM_TILES, TR_EDGES, TantrixState

__all__ = ["raw_env", "env", "NUM_PLANES"]

NUM_PLANES = 41
# _ONEHOT[t * 6 + k]: (6, 4) one-hot of the edge colours (absolute colour order R, Y, B, G).
_ONEHOT = np.zeros(((NUM_TILES + 1) * 6, 6, 4), dtype=np.float32)
for _tr in range(6, (NUM_TILES + 1) * 6):
    for _d, _c in enumerate(TR_EDGES[_tr]):
        _ONEHOT[_tr, _d, _c - 1] = 1.0
_ONEHOT[0:6] = 0.0


class raw_env(TabletopAECEnv):
    """Tantrix without PettingZoo's wrappers: illegal actions raise ``IllegalActionError``.

    Args:
        num_players: 2, 3 or 4.
        teams: Doubles (4 players; seats 0 & 2 against 1 & 3, one colour per team).
        colors: the players' (teams') colours, e.g. ``("red", "yellow")``; default red, yellow,
            blue, green in seat order.
        window_radius: R, radius of the table and of the action window (default 16).
        max_steps: truncate after this many placements (``None``: no limit).
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.

    Raises:
        ParameterError: a bad argument.
    """

    metadata = {
        "name": "tantrix_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 4,
    }

    def __init__(self, num_players: int = 2, teams: bool = False, colors=None,
                 window_radius: int = DEFAULT_WINDOW_RADIUS, max_steps: int | None = None,
                 render_mode: str | None = None):
        self._kwargs = dict(num_players=num_players, teams=teams, colors=colors, window_radius=window_radius)
        probe = TantrixState(**self._kwargs, bag=list(range(1, NUM_TILES + 1)))  # validates the arguments
        self.num_players = probe.num_players
        self.num_actions = probe.num_actions
        self.window_radius = probe.window_radius
        self.H = self.W = 2 * self.window_radius + 1
        g = probe._g
        self._inside = g.inside
        self._qr = g.qr
        self._widx = g.widx
        # colour permutation per player: observer's colour first, then the others in R, Y, B, G order
        self._order = []
        for p in range(self.num_players):
            own = probe.colour_of(p) - 1
            self._order.append(np.array([own] + [c for c in range(4) if c != own]))
        super().__init__(render_mode=render_mode, max_steps=max_steps)

    def _new_state(self, rng: np.random.Generator) -> TantrixState:
        return TantrixState(**self._kwargs, rng=rng)

    def _observation_box(self) -> spaces.Dict:
        n = self.num_players
        return spaces.Dict({
            "board": spaces.Box(0.0, 1.0, shape=(self.H, self.W, NUM_PLANES), dtype=np.float32),
            "hands": spaces.Box(0.0, 1.0, shape=(n, 6, 24), dtype=np.float32),
            "globals": spaces.Box(0.0, 1.0, shape=(8 + 2 * n,), dtype=np.float32),
        })

    def action_layout(self) -> np.ndarray:
        """``int64 (36, H, W)``: the action id at (slot * 6 + rot, row, col), for spatial policy heads.

        Every action is on the grid, those of the cells outside the hexagon included (they are
        never legal, so their logits are always masked): a spatial head then needs no dense layer
        for off-grid actions.
        """
        HW = self.H * self.W
        return np.arange(36 * HW, dtype=np.int64).reshape(36, self.H, self.W)

    def action_plane_features(self) -> dict:
        """Where a factored policy head finds what each plane of :meth:`action_layout` places.

        Plane ``slot * 6 + rot`` places the tile of the observer's hand slot ``slot`` turned
        ``rot`` sixths clockwise. Its description is that tile's edge colours as placed, read
        from the observation: value ``4 * d + c`` (edge ``d`` clockwise from upper-right, colour
        ``c`` in the observer's order) is ``hands[0, slot, 4 * ((d - rot) % 6) + c]`` (edge ``d``
        of the turned tile is edge ``d - rot`` of the tile as the hand shows it).

        Returns:
            ``{"key": "hands", "index": int64 (36, 24)}``: positions in the flattened ``hands``
            entry (row 0, the observer's own hand, comes first).
        """
        index = np.zeros((36, 24), dtype=np.int64)
        for slot in range(6):
            for rot in range(6):
                for d in range(6):
                    for c in range(4):
                        index[slot * 6 + rot, 4 * d + c] = slot * 24 + 4 * ((d - rot) % 6) + c
        return {"key": "hands", "index": index}

    def _observe(self, player: int):
        st: TantrixState = self.state
        n = self.num_players
        order = self._order[player]
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
        board[27] = self._inside
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

    def _render_ansi(self) -> str:
        return str(self.state)

    def _render_rgb(self) -> np.ndarray:
        return tantrix_picture(self.state)


def env(**kwargs):
    """Tantrix wrapped as PettingZoo Classic environments are (illegal action: -1 and episode end)."""
    return wrap_classic(raw_env(**kwargs))
