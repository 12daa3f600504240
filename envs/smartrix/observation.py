"""Smartrix observation encoding (``smartrix_v0``): :class:`SmartrixObservation`.

``Dict`` of five ``Box(0, 1, float32)``: ``table (W, W, 13)``, ``hand (70,)``, ``seen (70,)``,
``players (n, 5)``, ``globals (3,)``; the entries and planes are listed in :mod:`envs.smartrix.env`.
Only what the observing seat may know enters (never other hands or the pile order).

Action layout: the spatial map is ``table``; plane ``card * 4 + rotation`` places that card so
turned, and its fixed description (:data:`PLANE_FEATURES`) is the card's 8 border squares as
placed and its value / 8. Pass (the last action) is off the grid.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envs.core.observation import ActionLayout, ObservationEncoder
from envs.smartrix.cards import CARD_PATTERNS, CARD_VALUES, NUM_CARDS
from envs.smartrix.state import NUM_PLANES, SmartrixState

__all__ = ["SmartrixObservation", "TABLE_PLANES", "PLAYER_FEATURES", "PLANE_FEATURES"]

TABLE_PLANES = 13
PLAYER_FEATURES = 5
# Lookups indexed by the table arrays: cell code = card index + 1 (0 empty), rotation.
_PAT_LUT = np.zeros((NUM_CARDS + 1, 4), dtype=np.int64)
_PAT_LUT[1:] = CARD_PATTERNS
_VAL_LUT = np.zeros(NUM_CARDS + 1, dtype=np.float32)
_VAL_LUT[1:] = CARD_VALUES / 8.0
_VAL8 = [0] + [int(v) for v in CARD_VALUES]  # value by cell code (card index + 1; 0 empty)
_BITS = np.arange(8)

#: ``float32 (280, 9)``: row ``card * 4 + rotation`` holds that card's 8 border squares as placed
#: (1 = spot; top-left, top, top-right, right, bottom-right, bottom, bottom-left, left) and its
#: value / 8: what each action plane places, for factored policy heads.
PLANE_FEATURES = np.concatenate(
    [(CARD_PATTERNS.reshape(-1)[:, None] >> np.arange(8)[None, :]) & 1, np.repeat(CARD_VALUES, 4)[:, None] / 8.0],
    axis=1,
).astype(np.float32)
PLANE_FEATURES.flags.writeable = False


class SmartrixObservation(ObservationEncoder):
    """Smartrix's observation for the parameters of ``probe`` (players, window side)."""

    def __init__(self, probe: SmartrixState) -> None:
        self.window = w = probe.window
        self.num_players = n = probe.num_players
        self.num_actions = probe.num_actions
        self.space = spaces.Dict(
            {
                "table": spaces.Box(0.0, 1.0, shape=(w, w, TABLE_PLANES), dtype=np.float32),
                "hand": spaces.Box(0.0, 1.0, shape=(NUM_CARDS,), dtype=np.float32),
                "seen": spaces.Box(0.0, 1.0, shape=(NUM_CARDS,), dtype=np.float32),
                "players": spaces.Box(0.0, 1.0, shape=(n, PLAYER_FEATURES), dtype=np.float32),
                "globals": spaces.Box(0.0, 1.0, shape=(3,), dtype=np.float32),
            }
        )

    def encode(self, state: SmartrixState, player: int) -> dict[str, np.ndarray]:
        """``{"table", "hand", "seen", "players", "globals"}`` float32 arrays: what seat ``player`` knows."""
        st = state
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

    def action_layout(self) -> ActionLayout:
        """The map is ``table``; ``index (280, W, W)``: plane ``card * 4 + rotation`` holds the
        action placing that card so turned on each square; pass is off the grid.
        ``plane_features`` is :data:`PLANE_FEATURES`."""
        w = self.window
        return ActionLayout(
            index=np.arange(NUM_PLANES * w * w, dtype=np.int64).reshape(NUM_PLANES, w, w),
            num_actions=self.num_actions,
            obs_key="table",
            plane_features=PLANE_FEATURES,
        )
