"""TwixT (``twixt_v0``) and Double TwixT (``double_twixt_v0``) PettingZoo environments.

| | ``twixt_v0`` | ``double_twixt_v0`` |
|---|---|---|
| Agents | ``player_0`` red, ``player_1`` black | ``player_0`` red A, ``player_1`` black A, ``player_2`` red B, ``player_3`` black B |
| Action space | ``Discrete(S*S + 1)``: holes, then swap | ``Discrete(2*S*S + 1)``: holes, swap (never legal), holes + claim Privilege |
| Observation | ``Box(0, 1, (S, S, 23), float32)`` (27 planes with ``distance_planes=True``) | same |
| Rewards | +1 win, -1 loss, 0 draw | team rewards: +1 both winners, -1 both losers |

``S`` is ``board_size`` (default 24). Rules: :mod:`envs.twixt.state` (``envs/twixt/RULES.md``).

**Frames.** Every agent sees the board so that it connects *top to bottom*: red's observation is
the board as it is; black's is transposed (rows and columns exchanged). Actions are in the same
frame: black's action ``r * S + c`` places a peg on the absolute hole ``(c, r)`` (PettingZoo
chess mirrors both the same way). The state's ``to_state_action`` / ``to_agent_action`` convert.

Observation planes, all in the observing agent's frame (row 0 at the top):

* 0 — pegs of the agent's colour (its team's in Double TwixT);
* 1 — pegs of the other colour;
* 2-9 — links of the agent's colour: plane ``2 + d`` marks both ends of every link along
  ``KNIGHT_DIRS[d]`` (in the agent's frame);
* 10-17 — links of the other colour, likewise;
* 18 — holes where the agent's colour may place a peg (not a corner, not an opponent border);
* 19 — swap available now (constant plane);
* 20 — the agent's team may still claim its Privilege (Double TwixT; constant plane);
* 21 — the other team may still claim its Privilege (constant plane);
* 22 — it is this agent's turn (constant plane);
* 23-26 — only with ``distance_planes=True``: for every hole, the fewest empty holes on a path
  from the agent's first border (top of its frame) to it, from its second border (bottom), and
  the same two for the other colour (:func:`envs.twixt.heuristics.distance_maps`), each as
  ``min(d, 2S - 1) / 2S`` (always below 1), and exactly 1 where no path exists. They cost four searches per observation (about
  1.6 ms on 24x24, 0.1 ms on 8x8), so they are off by default.

Constructor arguments: ``board_size`` (5-48), ``rules`` (``"standard"`` or ``"pp"``), ``swap``
(pie rule, two players only), ``draw`` (``"early"`` or ``"board_full"``), ``distance_planes``
(add planes 23-26), ``max_steps`` (truncation), ``render_mode``.

Version history: v0 — first release.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envs.core.aec import TabletopAECEnv, wrap_classic
from envs.core.state import ParameterError
from envs.twixt.heuristics import UNREACHABLE, distance_maps
from envs.twixt.render import twixt_picture
from envs.twixt.state import KNIGHT_DIRS, TwixtState

__all__ = ["raw_env", "env", "double_raw_env", "double_env", "NUM_PLANES"]

NUM_PLANES = 23
NUM_DISTANCE_PLANES = 4
# Link direction d seen transposed is direction _TRANSPOSED_DIR[d].
_TRANSPOSED_DIR = np.array([KNIGHT_DIRS.index((dc, dr)) for dr, dc in KNIGHT_DIRS])


class raw_env(TabletopAECEnv):
    """TwixT without PettingZoo's wrappers: illegal actions raise ``IllegalActionError``.

    Args:
        board_size: holes per side, 5 to 48 (default 24).
        rules: ``"standard"`` (no link may cross any link) or ``"pp"`` (own links may cross).
        swap: allow the transposing swap (pie rule) on the second ply.
        draw: ``"early"`` (a draw as soon as neither side can still connect) or ``"board_full"``.
        distance_planes: add the four connection-distance planes (23-26) to the observation.
        max_steps: truncate after this many plies (``None``: no limit).
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.

    Raises:
        ParameterError: a bad argument.
    """

    metadata = {
        "name": "twixt_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 2,
    }
    _num_players = 2

    def __init__(self, board_size: int = 24, rules: str = "standard", swap: bool = False, draw: str = "early",
                 distance_planes: bool = False, max_steps: int | None = None, render_mode: str | None = None):
        if not isinstance(distance_planes, bool):
            raise ParameterError(f"distance_planes must be True or False, got {distance_planes!r}")
        self.distance_planes = distance_planes
        self._planes = NUM_PLANES + (NUM_DISTANCE_PLANES if distance_planes else 0)
        self._kwargs = dict(board_size=board_size, rules=rules, swap=swap, draw=draw, num_players=self._num_players)
        probe = TwixtState(**self._kwargs)  # validates every argument now
        self.board_size = probe.board_size
        self.num_players = probe.num_players
        self.num_actions = probe.num_actions
        self._legal_area = self._compute_legal_area(probe)
        super().__init__(render_mode=render_mode, max_steps=max_steps)

    @staticmethod
    def _compute_legal_area(state: TwixtState) -> np.ndarray:
        """``float32 (S, S)``: where the observing colour may ever place, in its own frame.

        The same for both colours: every agent connects top to bottom in its frame, so the
        opponent's border columns (red: a and the last; black: rows 1 and the last, transposed)
        are the first and last columns; the corners never exist.
        """
        s = state.board_size
        area = np.ones((s, s), dtype=np.float32)
        area[:, 0] = area[:, s - 1] = 0
        return area

    def _new_state(self, rng: np.random.Generator) -> TwixtState:
        return TwixtState(**self._kwargs)

    def _observation_box(self) -> spaces.Box:
        return spaces.Box(0.0, 1.0, shape=(self.board_size, self.board_size, self._planes), dtype=np.float32)

    def action_layout(self) -> np.ndarray:
        """Where each action sits on the observation grid (agent frame), for spatial policy heads.

        Returns:
            ``int64`` array ``(planes, S, S)``: plane 0 holds the placement actions
            ``row * S + col``; Double TwixT adds plane 1, place-and-claim-Privilege
            ``S*S + 1 + row * S + col``. The swap action (``S*S``) is not on the grid.
        """
        s = self.board_size
        holes = np.arange(s * s).reshape(1, s, s)
        if self.num_players == 4:
            return np.concatenate([holes, holes + s * s + 1])
        return holes

    def _observe(self, player: int) -> np.ndarray:
        st: TwixtState = self.state
        colour = player % 2
        # Planes are filled channels-first (contiguous writes) and returned as an (S, S, C) view.
        s = self.board_size
        buf = np.empty((self._planes, s, s), dtype=np.float32)
        pegs = st.pegs()
        links = st.link_planes()  # (2, 8, S, S), absolute frame
        if colour == 0:
            buf[0] = pegs == 1
            buf[1] = pegs == 2
            buf[2:10] = links[0]
            buf[10:18] = links[1]
        else:
            buf[0] = (pegs == 2).T
            buf[1] = (pegs == 1).T
            # Transposing the board maps direction d to _TRANSPOSED_DIR[d].
            buf[2 + _TRANSPOSED_DIR] = links[1].transpose(0, 2, 1)
            buf[10 + _TRANSPOSED_DIR] = links[0].transpose(0, 2, 1)
        buf[18] = self._legal_area
        buf[19] = float(st.swap_available())
        four = self.num_players == 4
        buf[20] = float(four and st.privilege_available(colour))
        buf[21] = float(four and st.privilege_available(1 - colour))
        buf[22] = float(st.current_player == player)
        if self.distance_planes:
            for i, c in enumerate((colour, 1 - colour)):
                first, second, _ = distance_maps(st, c)
                for j, d in enumerate((first, second)):
                    plane = np.where(d >= UNREACHABLE, 1.0, np.minimum(d, 2 * s - 1) / (2 * s)).reshape(s, s)
                    buf[23 + 2 * i + j] = plane.T if colour == 1 else plane
        return buf.transpose(1, 2, 0)

    def _render_ansi(self) -> str:
        return str(self.state)

    def _render_rgb(self) -> np.ndarray:
        return twixt_picture(self.state)


class double_raw_env(raw_env):
    """Double TwixT (four players, two teams, Privilege) without PettingZoo's wrappers.

    Same arguments as :class:`raw_env` except ``swap`` (Double TwixT has none).
    """

    metadata = dict(raw_env.metadata, name="double_twixt_v0")
    _num_players = 4

    def __init__(self, board_size: int = 24, rules: str = "standard", draw: str = "early",
                 distance_planes: bool = False, max_steps: int | None = None, render_mode: str | None = None):
        super().__init__(board_size=board_size, rules=rules, swap=False, draw=draw, distance_planes=distance_planes,
                         max_steps=max_steps, render_mode=render_mode)


def env(**kwargs):
    """TwixT wrapped as PettingZoo Classic environments are (illegal action: -1 and episode end)."""
    return wrap_classic(raw_env(**kwargs))


def double_env(**kwargs):
    """Double TwixT wrapped as PettingZoo Classic environments are."""
    return wrap_classic(double_raw_env(**kwargs))
