"""Smartrix (``smartrix_v0``) PettingZoo environment, 2-7 players.

| | ``smartrix_v0`` |
|---|---|
| Agents | ``player_0 .. player_{n-1}`` (``num_players`` 2-7; ``teams=True``: 4, partners 0 & 2, 1 & 3) |
| Action space | ``Discrete(280 * W * W + 1)``: (card, rotation, window square), then pass; ``W = 7`` (13721 actions), kids variant ``W = window`` (default 21: 123481) |
| Observation | ``Dict`` of five ``Box(0, 1, float32)``: ``table (W, W, 13)``, ``hand (70,)``, ``seen (70,)``, ``players (n, 5)``, ``globals (3,)`` |
| Rewards | +1 sole winner (both partners with teams), 0 each of the tied first, -1 others |
| Encoder | :class:`envs.smartrix.observation.SmartrixObservation` (``encode(state, player)``) |
| Action layout | ``action_layout()``: ``index (280, W, W)``, ``obs_key="table"``, ``plane_features (280, 9)`` (spots as placed, value / 8), off grid: pass |
| Batched | ``envs.make_vec("smartrix_v0", B, ...)``: numba core :class:`envs.smartrix.vector.SmartrixVectorCore` (every setting; masks and observations exact, ``to_state`` equal to the reference) |

Rules and encodings: :mod:`envs.smartrix.state` (``envs/smartrix/RULES.md``). The draw is automatic
at the start of each turn, so the agent to move already holds its drawn card; an action places a
card of its hand or passes (always legal).

**Actions.** ``(card * 4 + rotation) * W * W + wr * W + wc`` places card index ``card`` (card number
``card + 1``) turned ``rotation * 90°`` clockwise on square ``(wr, wc)`` of the window; ``280 * W * W``
passes. The ``W x W`` window is centred on the table cards' bounding box (centre
``(floor((rmin + rmax) / 2), floor((cmin + cmax) / 2))``), on ``(0, 0)`` when the table is empty.
With the 5x5 rule every legal square is inside the 7x7 window: a new card touches a card, so its
row is within one of the table's rows ``rmin .. rmax`` (at most 5 of them), and the window spans
``m - 3 .. m + 3`` (proof in :mod:`envs.smartrix.state`).
Without the rule (kids) the table is kept inside the window by rule of this implementation (a
placement must lie in it); with the default ``window=21`` that removes a legal square in about 1%
of random-play turns (0.06% of placements; ``benchmarks/bench_smartrix.py``). Only
distinct orientations are actions (a symmetric card's repeated rotations are never legal).
``raw_env.action_layout()`` (an :class:`~envs.core.observation.ActionLayout`) gives the ``(280, W, W)``
grid of action ids for spatial heads, and each plane's card features for factored heads.

**Observation** (what the observing agent may know, nothing more; all in ``[0, 1]``):

* ``table`` ``(W, W, 13)`` over the same window as the actions: plane 0 a card is there; planes 1-8
  the card's spot on border square 0..7 (TL, T, TR, R, BR, B, BL, L) as placed; plane 9 its value / 8;
  plane 10 squares the box rule (and window) allow a new card on, ignoring adjacency and matching
  (only the centre on an empty table); planes 11-12, on each empty square next to the table
  that plane 10 allows, what a card placed there would collect from the table (it depends only
  on the square, not on the card): the number of cards of the sets it completes / 16 and their
  value / 128 (public information: the table);
* ``hand`` ``(70,)``: 1 for each card (index = number - 1) in the agent's own hand;
* ``seen`` ``(70,)``: 1 for each card everyone has seen (on the table or collected);
* ``players`` ``(n, 5)``, rows in seat order starting with the observer (self, next, ...):
  collected points / 280, hand size / 70, out, on the observer's team (self included; without teams
  only the observer's row), to move;
* ``globals`` ``(3,)``: pile size / 70, table cards / 70, end phase (pile empty).

Other players' hands and the pile order never enter an observation.

Constructor arguments: ``num_players`` (2-7), ``grid_limit`` (5x5 rule; ``False`` = kids),
``teams`` (4 players), ``window`` (kids only, odd 5-35, default 21), ``max_steps`` (truncation),
``render_mode``.

Version history: v0 — first release.
"""  # noqa: E501 - the Markdown table's rows cannot be wrapped

from __future__ import annotations

from typing import Any

import numpy as np

from envs.core.aec import TabletopAECEnv, wrap_classic
from envs.smartrix.cards import NUM_CARDS
from envs.smartrix.observation import PLAYER_FEATURES, TABLE_PLANES, SmartrixObservation
from envs.smartrix.render import smartrix_picture
from envs.smartrix.state import SmartrixState

__all__ = ["raw_env", "env", "TABLE_PLANES", "PLAYER_FEATURES"]


class raw_env(TabletopAECEnv):
    """Smartrix without PettingZoo's wrappers: illegal actions raise ``IllegalActionError``.

    Args:
        num_players: 2 to 7 (default 2).
        grid_limit: the 5x5 rule (default ``True``; ``False`` = kids variant).
        teams: team game (needs ``num_players=4``).
        window: action/observation window side for the kids variant (odd, 5-35, default 21).
        max_steps: truncate after this many actions (``None``: no limit).
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.

    Raises:
        ParameterError: a bad argument.
    """

    metadata = {
        "name": "smartrix_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 2,
    }
    _kwargs: dict[str, Any]  # the state's constructor arguments

    def __init__(
        self,
        num_players: int = 2,
        grid_limit: bool = True,
        teams: bool = False,
        window: int | None = None,
        max_steps: int | None = None,
        render_mode: str | None = None,
    ):
        self._kwargs = dict(num_players=num_players, grid_limit=grid_limit, teams=teams, window=window)
        probe = SmartrixState(**self._kwargs, deck=list(range(1, NUM_CARDS + 1)))  # validates every argument
        self.num_players = probe.num_players
        self.num_actions = probe.num_actions
        self.window = probe.window
        self.teams = probe.teams
        self.encoder = SmartrixObservation(probe)
        super().__init__(render_mode=render_mode, max_steps=max_steps)

    def _new_state(self, rng: np.random.Generator) -> SmartrixState:
        return SmartrixState(**self._kwargs, rng=rng)

    def _render_ansi(self) -> str:
        return str(self.state)

    def _render_rgb(self) -> np.ndarray:
        return smartrix_picture(self.state)


def env(**kwargs):
    """Smartrix wrapped as PettingZoo Classic environments are (illegal action: -1 and episode end)."""
    return wrap_classic(raw_env(**kwargs))
