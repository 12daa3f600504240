"""Smartrix (``smartrix_v0``) PettingZoo environment, 2-7 players.

| | ``smartrix_v0`` |
|---|---|
| Agents | ``player_0 .. player_{n-1}`` (``num_players`` 2-7; ``teams=True``: 4, partners 0 & 2, 1 & 3) |
| Action space | ``Discrete(280 * W * W + 1)``: (card, rotation, window square), then pass; ``W = 7`` (13721 actions), kids variant ``W = window`` (default 21: 123481) |
| Observation | ``Dict`` of five ``Box(0, 1, float32)``: ``table (W, W, 13)``, ``hand (70,)``, ``seen (70,)``, ``players (n, 5)``, ``globals (3,)`` |
| Rewards | +1 sole winner (both partners with teams), 0 each of the tied first, -1 others |

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
:meth:`raw_env.action_layout` gives the ``(280, W, W)`` grid of action ids for spatial heads.

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
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envs.core.aec import TabletopAECEnv, wrap_classic
from envs.smartrix.render import smartrix_picture
from envs.smartrix.state import CARD_PATTERNS, CARD_VALUES, NUM_CARDS, NUM_PLANES, SmartrixState

__all__ = ["raw_env", "env", "TABLE_PLANES", "PLAYER_FEATURES"]

TABLE_PLANES = 13
PLAYER_FEATURES = 5
# Lookups indexed by the table arrays: cell code = card index + 1 (0 empty), rotation.
_PAT_LUT = np.zeros((NUM_CARDS + 1, 4), dtype=np.int64)
_PAT_LUT[1:] = CARD_PATTERNS
_VAL_LUT = np.zeros(NUM_CARDS + 1, dtype=np.float32)
_VAL_LUT[1:] = CARD_VALUES / 8.0
_VAL8 = [0] + [int(v) for v in CARD_VALUES]  # value by cell code (card index + 1; 0 empty)
_BITS = np.arange(8)


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

    def __init__(self, num_players: int = 2, grid_limit: bool = True, teams: bool = False, window: int | None = None,
                 max_steps: int | None = None, render_mode: str | None = None):
        self._kwargs = dict(num_players=num_players, grid_limit=grid_limit, teams=teams, window=window)
        probe = SmartrixState(**self._kwargs, deck=list(range(1, NUM_CARDS + 1)))  # validates every argument
        self.num_players = probe.num_players
        self.num_actions = probe.num_actions
        self.window = probe.window
        self.teams = probe.teams
        super().__init__(render_mode=render_mode, max_steps=max_steps)

    def _new_state(self, rng: np.random.Generator) -> SmartrixState:
        return SmartrixState(**self._kwargs, rng=rng)

    def _observation_box(self) -> spaces.Dict:
        w, n = self.window, self.num_players
        return spaces.Dict({
            "table": spaces.Box(0.0, 1.0, shape=(w, w, TABLE_PLANES), dtype=np.float32),
            "hand": spaces.Box(0.0, 1.0, shape=(NUM_CARDS,), dtype=np.float32),
            "seen": spaces.Box(0.0, 1.0, shape=(NUM_CARDS,), dtype=np.float32),
            "players": spaces.Box(0.0, 1.0, shape=(n, PLAYER_FEATURES), dtype=np.float32),
            "globals": spaces.Box(0.0, 1.0, shape=(3,), dtype=np.float32),
        })

    def action_layout(self) -> np.ndarray:
        """Where each placement action sits on the observation window, for spatial policy heads.

        Returns:
            ``int64 (280, W, W)``: plane ``card * 4 + rotation`` holds the action placing that card
            with that rotation on each square. Pass (the last action) is not on the grid.
        """
        w = self.window
        return np.arange(NUM_PLANES * w * w, dtype=np.int64).reshape(NUM_PLANES, w, w)

    def action_plane_features(self) -> np.ndarray:
        """What each plane of :meth:`action_layout` places, for factored policy heads.

        Returns:
            ``float32 (280, 9)``: row ``card * 4 + rotation`` holds that card's 8 border squares
            as placed (1 = spot; top-left, top, top-right, right, bottom-right, bottom,
            bottom-left, left) and its value / 8.
        """
        bits = (CARD_PATTERNS.reshape(-1)[:, None] >> np.arange(8)[None, :]) & 1
        return np.concatenate([bits, np.repeat(CARD_VALUES, 4)[:, None] / 8.0], axis=1).astype(np.float32)

    def _observe(self, player: int) -> dict[str, np.ndarray]:
        st: SmartrixState = self.state
        w = st.window
        r0, c0 = st._origin()
        sl = (slice(r0, r0 + w), slice(c0, c0 + w))
        cards = st._card_v[sl]
        table = np.zeros((TABLE_PLANES, w, w), dtype=np.float32)
        table[0] = cards > 0
        pats = _PAT_LUT[cards, st._rot_v[sl]]
        table[1:9] = (pats[None] >> _BITS[:, None, None]) & 1
        table[9] = _VAL_LUT[cards]
        rlo, rhi, clo, chi = st._allowed_area(r0, c0)
        table[10, rlo:rhi, clo:chi] = 1.0
        # Planes 11-12: what a card placed on each open square next to the table would collect
        # (it depends only on the square): the cards of the sets it completes / 16, their value / 128.
        g = st._G
        ncnt = st._ncnt_v[sl]
        for wr, wc in zip(*np.nonzero((ncnt[rlo:rhi, clo:chi] > 0) & (cards[rlo:rhi, clo:chi] == 0))):
            wr, wc = int(wr) + rlo, int(wc) + clo
            run = set(st._runs((r0 + wr) * g + (c0 + wc)))
            if run:
                table[11, wr, wc] = len(run) / 16.0
                table[12, wr, wc] = sum(_VAL8[st._card[j]] for j in run) / 128.0
        where = np.frombuffer(st._where, dtype=np.uint8)
        hand = np.zeros(NUM_CARDS, dtype=np.float32)
        hand[st._hands[player]] = 1.0
        seen = (where >= 2).astype(np.float32)
        n = st.num_players
        players = np.zeros((n, PLAYER_FEATURES), dtype=np.float32)
        cur = st.current_player
        for k in range(n):
            q = (player + k) % n
            players[k, 0] = st._points[q] / 280.0
            players[k, 1] = len(st._hands[q]) / 70.0
            players[k, 2] = st._out[q]
            players[k, 3] = st.team_of(q) == st.team_of(player)
            players[k, 4] = q == cur
        glob = np.array([len(st._pile) / 70.0, len(st._cells) / 70.0, float(not st._pile)], dtype=np.float32)
        return {"table": table.transpose(1, 2, 0), "hand": hand, "seen": seen, "players": players, "globals": glob}

    def _render_ansi(self) -> str:
        return str(self.state)

    def _render_rgb(self) -> np.ndarray:
        return smartrix_picture(self.state)


def env(**kwargs):
    """Smartrix wrapped as PettingZoo Classic environments are (illegal action: -1 and episode end)."""
    return wrap_classic(raw_env(**kwargs))
