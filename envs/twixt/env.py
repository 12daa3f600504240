"""TwixT (``twixt_v0``) and Double TwixT (``double_twixt_v0``) PettingZoo environments.

| | ``twixt_v0`` | ``double_twixt_v0`` |
|---|---|---|
| Agents | ``player_0`` red, ``player_1`` black | ``player_0`` red A, ``player_1`` black A, ``player_2`` red B, ``player_3`` black B |
| Action space | ``Discrete(S*S + 1)``: holes, then swap | ``Discrete(2*S*S + 1)``: holes, swap (never legal), holes + claim Privilege |
| Observation | ``Box(0, 1, (S, S, 23), float32)`` (27 planes with ``distance_planes=True``) | same |
| Action space, ``links="manual"`` | ``Discrete(S*S + 2 + 2L)``: holes, swap, add link, remove link, end | ``Discrete(S*S + 3 + 2L)``: the same, swap never legal, then end! |
| Observation, ``links="manual"`` | 2 more planes (25; 29 with distance planes) | same |
| Rewards | +1 win, -1 loss, 0 draw | team rewards: +1 both winners, -1 both losers |
| Encoder | :class:`envs.twixt.observation.TwixtObservation` (``encode(state, player)``) | same |
| Action layout | ``action_layout()``: ``index (1, S, S)``, ``obs_key=None``, off grid: swap | ``index (2, S, S)`` (place; place + Privilege), off grid: swap |
| Action layout, ``links="manual"`` | ``index (9, S, S)``: place, 4 planes add, 4 planes remove; off grid: swap, end | same; off grid: swap, end, end! |
| Batched (``envs.make_vec``) | :mod:`envs.twixt.vector` (numba; ``backend="batched"``, the default): every setting but ``links="manual"`` (``backend="reference"``) | same |

``S`` is ``board_size`` (default 24); ``L = geometry(S).num_links`` (24x24: 2,016). Rules:
:mod:`envs.twixt.state` (``envs/twixt/RULES.md``).

**Box rules** (``links="manual"``; RULES.md "Box rules"). The default ``links="auto"`` adds every
legal link from a new peg at once (the digital convention). With ``"manual"`` a turn is several
steps of the same agent: removals of own (team) links ``-c5e6`` (only before the peg), one
placement ``c5`` (or ``swap``), additions ``+c5e6`` between any two own pegs a knight's move apart
that no link blocks, then ``end`` (Double TwixT: ``end!`` claims the Privilege). The mask is
exact in every phase. Action ``S*S + 1 + lid`` adds link ``lid`` and ``S*S + 1 + L + lid``
removes it (``lid`` in the agent's frame: black's link ``(r1, c1)-(r2, c2)`` is the board's
``(c1, r1)-(c2, r2)``); ``S*S + 1 + 2L`` is ``end``, ``S*S + 2 + 2L`` ``end!``. ``max_steps``
counts every step.

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
  ``min(d, 2S - 1) / 2S`` (always below 1), and exactly 1 where no path exists. They cost four
  searches per observation (about 1.6 ms on 24x24, 0.1 ms on 8x8), so they are off by default.
* last two planes, only with ``links="manual"`` (23-24, or 27-28 with distance planes): the player
  to move has placed its peg this turn, so it may now add links or end (constant plane); and the
  hole of that peg (one 1, in the agent's frame; all zeros before the placement).

Constructor arguments: ``board_size`` (5-48), ``rules`` (``"standard"`` or ``"pp"``), ``swap``
(pie rule, two players only), ``draw`` (``"early"`` or ``"board_full"``), ``distance_planes``
(add planes 23-26), ``max_steps`` (truncation), ``render_mode``, ``links`` (``"auto"`` or
``"manual"``).

Version history: v0 — first release; option ``links="manual"`` (the box rules) added without
changing the default game.
"""  # noqa: E501 - the Markdown table's rows cannot be wrapped

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.aec import TabletopAECEnv, wrap_classic
from envs.core.checks import require_bool
from envs.twixt.observation import NUM_PLANES, TwixtObservation
from envs.twixt.render import twixt_picture
from envs.twixt.state import TwixtState

__all__ = ["raw_env", "env", "double_raw_env", "double_env", "NUM_PLANES"]


class raw_env(TabletopAECEnv):
    """TwixT without PettingZoo's wrappers: illegal actions raise ``IllegalActionError``.

    Args:
        board_size: holes per side, 5 to 48 (default 24).
        rules: ``"standard"`` (no link may cross any link) or ``"pp"`` (own links may cross).
        swap: allow the transposing swap (pie rule) on the second ply.
        draw: ``"early"`` (a draw as soon as neither side can still connect) or ``"board_full"``.
        distance_planes: add the four connection-distance planes (23-26) to the observation.
        max_steps: truncate after this many steps (``None``: no limit; with ``links="manual"`` every
            addition, removal and ``end`` is a step).
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.
        links: ``"auto"`` (every legal link from a new peg is added at once) or ``"manual"`` (the
            box rules: remove own links, place, add links, ``end``; see the module docstring).

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
    _kwargs: dict[str, Any]  # the state's constructor arguments

    def __init__(
        self,
        board_size: int = 24,
        rules: str = "standard",
        swap: bool = False,
        draw: str = "early",
        distance_planes: bool = False,
        max_steps: int | None = None,
        render_mode: str | None = None,
        links: str = "auto",
    ):
        require_bool("distance_planes", distance_planes, numpy=False)
        self.distance_planes = distance_planes
        self._kwargs = dict(
            board_size=board_size, rules=rules, swap=swap, draw=draw, num_players=self._num_players, links=links
        )
        probe = TwixtState(**self._kwargs)  # validates every argument now
        self.board_size = probe.board_size
        self.num_players = probe.num_players
        self.num_actions = probe.num_actions
        self.encoder = TwixtObservation(probe, distance_planes=distance_planes)
        super().__init__(render_mode=render_mode, max_steps=max_steps)

    def _new_state(self, rng: np.random.Generator) -> TwixtState:
        return TwixtState(**self._kwargs)

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

    def __init__(
        self,
        board_size: int = 24,
        rules: str = "standard",
        draw: str = "early",
        distance_planes: bool = False,
        max_steps: int | None = None,
        render_mode: str | None = None,
        links: str = "auto",
    ):
        super().__init__(
            board_size=board_size,
            rules=rules,
            swap=False,
            draw=draw,
            distance_planes=distance_planes,
            max_steps=max_steps,
            render_mode=render_mode,
            links=links,
        )


def env(**kwargs):
    """TwixT wrapped as PettingZoo Classic environments are (illegal action: -1 and episode end)."""
    return wrap_classic(raw_env(**kwargs))


def double_env(**kwargs):
    """Double TwixT wrapped as PettingZoo Classic environments are."""
    return wrap_classic(double_raw_env(**kwargs))
