"""TwixT and Double TwixT observation encoding (``twixt_v0``, ``double_twixt_v0``): :class:`TwixtObservation`.

``Box(0, 1, (S, S, 23), float32)`` (27 planes with ``distance_planes=True``), in the observing
seat's frame (black's board transposed so that every seat connects top to bottom); the planes
are listed in :mod:`envs.twixt.env`.

Action layout: plane 0 the hole placements ``row * S + col``; Double TwixT adds plane 1, the
place-and-claim-Privilege actions ``S*S + 1 + row * S + col``; the swap (``S*S``) is off the grid.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envs.core.observation import ActionLayout, ObservationEncoder
from envs.twixt.heuristics import UNREACHABLE, distance_maps
from envs.twixt.state import KNIGHT_DIRS, TwixtState

__all__ = ["TwixtObservation", "NUM_PLANES", "NUM_DISTANCE_PLANES"]

NUM_PLANES = 23
NUM_DISTANCE_PLANES = 4
# Link direction d seen transposed is direction _TRANSPOSED_DIR[d].
_TRANSPOSED_DIR = np.array([KNIGHT_DIRS.index((dc, dr)) for dr, dc in KNIGHT_DIRS])


class TwixtObservation(ObservationEncoder):
    """TwixT's observation for the parameters of ``probe`` (board size, players).

    Args:
        probe: a state with the game's parameters (only its board size, player count and action
            count are read).
        distance_planes: add the four connection-distance planes (23-26).
    """

    def __init__(self, probe: TwixtState, distance_planes: bool = False) -> None:
        s = self.board_size = probe.board_size
        self.num_players = probe.num_players
        self.num_actions = probe.num_actions
        self.distance_planes = distance_planes
        self.planes = NUM_PLANES + (NUM_DISTANCE_PLANES if distance_planes else 0)
        # Where the observing colour may ever place, in its own frame: the same for both colours
        # (every seat connects top to bottom in its frame, so the opponent's borders are the first
        # and last columns; the corners never exist).
        area = np.ones((s, s), dtype=np.float32)
        area[:, 0] = area[:, s - 1] = 0
        self.legal_area = area
        self.space = spaces.Box(0.0, 1.0, shape=(s, s, self.planes), dtype=np.float32)

    def encode(self, state: TwixtState, player: int) -> np.ndarray:
        """``float32 (S, S, planes)``: ``state`` seen by seat ``player``, in its frame."""
        st = state
        colour = player % 2
        # Planes are filled channels-first (contiguous writes) and returned as an (S, S, C) view.
        s = self.board_size
        buf = np.empty((self.planes, s, s), dtype=np.float32)
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
        buf[18] = self.legal_area
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

    def action_layout(self) -> ActionLayout:
        """``index (planes, S, S)`` in the agent's frame: plane 0 the placements ``row * S + col``;
        Double TwixT adds plane 1, place-and-claim-Privilege ``S*S + 1 + row * S + col``. The swap
        (``S*S``) is off the grid. The observation is a plain ``Box``: ``obs_key`` is ``None``."""
        s = self.board_size
        holes = np.arange(s * s).reshape(1, s, s)
        index = np.concatenate([holes, holes + s * s + 1]) if self.num_players == 4 else holes
        return ActionLayout(index=index, num_actions=self.num_actions)
