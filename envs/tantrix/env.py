"""Tantrix (``tantrix_v0``) PettingZoo environment, 2-4 players (Doubles: 4 players in 2 teams).

| | ``tantrix_v0`` |
|---|---|
| Agents | ``player_0 .. player_{n-1}`` (n = ``num_players``, 2-4); with ``teams=True`` seats 0 & 2 vs 1 & 3 |
| Action space | ``Discrete(36 * H * W)``, ``H = W = 2R + 1`` (R = ``window_radius``, default 16: 39204 actions) |
| Observation | ``Dict(board: Box(0, 1, (H, W, 41)), hands: Box(0, 1, (n, 6, 24)), globals: Box(0, 1, (8 + 2n,)))``, float32 |
| Rewards | +1 sole winner (team), 0 tied for first, -1 the others; 0 for all in a deadlock draw |
| Encoder | :class:`envs.tantrix.observation.TantrixObservation` (``encode(state, player)``) |
| Action layout | ``action_layout()``: ``index (36, H, W)`` (every action on the grid), ``obs_key="board"``, ``plane_key="hands"``, ``plane_index (36, 24)`` |

Rules: :mod:`envs.tantrix.state` (``envs/tantrix/RULES.md``). One environment step is one tile
placement; the same agent acts again while its turn lasts (forced moves, the free move, forced
moves).

**Actions** (state frame = agent frame): ``action = ((slot * 6 + rot) * H + row) * W + col``:
hand slot 0-5 (the observation's ``hands[0]`` row order), rotation 0-5 (clockwise sixths), and the
cell ``(q, r) = (col - R, row - R)`` of the axial window around the first tile (cells with
``|q + r| > R`` are outside the hexagon and never legal). ``raw_env.action_layout()`` (an
:class:`~envs.core.observation.ActionLayout`) gives the ``(36, H, W)`` grid of action ids for
spatial policy heads. Placements beyond the window are not
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
"""  # noqa: E501 - the Markdown table's rows cannot be wrapped

from __future__ import annotations

import numpy as np

from envs.core.aec import TabletopAECEnv, wrap_classic
from envs.tantrix.observation import NUM_PLANES, TantrixObservation
from envs.tantrix.render import tantrix_picture
from envs.tantrix.state import DEFAULT_WINDOW_RADIUS, TantrixState
from envs.tantrix.tiles import NUM_TILES

__all__ = ["raw_env", "env", "NUM_PLANES"]


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

    def __init__(
        self,
        num_players: int = 2,
        teams: bool = False,
        colors=None,
        window_radius: int = DEFAULT_WINDOW_RADIUS,
        max_steps: int | None = None,
        render_mode: str | None = None,
    ):
        self._kwargs = dict(num_players=num_players, teams=teams, colors=colors, window_radius=window_radius)
        probe = TantrixState(**self._kwargs, bag=list(range(1, NUM_TILES + 1)))  # validates the arguments
        self.num_players = probe.num_players
        self.num_actions = probe.num_actions
        self.window_radius = probe.window_radius
        self.H = self.W = 2 * self.window_radius + 1
        self.encoder = TantrixObservation(probe)
        super().__init__(render_mode=render_mode, max_steps=max_steps)

    def _new_state(self, rng: np.random.Generator) -> TantrixState:
        return TantrixState(**self._kwargs, rng=rng)

    def _render_ansi(self) -> str:
        return str(self.state)

    def _render_rgb(self) -> np.ndarray:
        return tantrix_picture(self.state)


def env(**kwargs):
    """Tantrix wrapped as PettingZoo Classic environments are (illegal action: -1 and episode end)."""
    return wrap_classic(raw_env(**kwargs))
