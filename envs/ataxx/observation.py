"""Ataxx observation encoding (``ataxx_v0``): :class:`AtaxxObservation`.

``Box(0, 1, (7, 7, 5), float32)``; row 0 = rank 7, column 0 = file a (the board as printed), from
the observing seat's point of view: plane 0 its own stones, 1 the opponent's, 2 blocked squares
(gaps), 3 empty squares, 4 the halfmove clock ``min(clock, 100) / 100`` on every square.

Action layout: 17 planes (0 clone, ``1 + k`` jump ``k`` of :data:`envs.ataxx.state.JUMP_OFFSETS`)
of the arrival square; the pass (833) is off the grid.

Symmetries (:meth:`AtaxxObservation.symmetries`): the square's 8 (the dihedral group D4); the rules
are invariant under them (a position with its gaps and stones mapped plays the same).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envs.ataxx.state import CLOCK_LIMIT, FULL, JUMP_OFFSETS, NUM_ACTIONS, SIZE, AtaxxState
from envs.core.observation import ActionLayout, ObservationEncoder, Symmetry, grid_symmetry

__all__ = ["AtaxxObservation", "NUM_PLANES", "DIHEDRAL"]

#: The 8 symmetries of the square on observation coordinates ``(row, col)`` of a 7x7 board:
#: ``name -> (a, b, c, d)``, the linear part ``(row, col) -> (a*row + b*col, c*row + d*col)`` about
#: the centre square.
DIHEDRAL: dict[str, tuple[int, int, int, int]] = {
    "identity": (1, 0, 0, 1),
    "rot90": (0, 1, -1, 0),
    "rot180": (-1, 0, 0, -1),
    "rot270": (0, -1, 1, 0),
    "flip_cols": (1, 0, 0, -1),
    "flip_rows": (-1, 0, 0, 1),
    "transpose": (0, 1, 1, 0),
    "antitranspose": (0, -1, -1, 0),
}

NUM_PLANES = 5
# _OBS_INDEX[row, col, p]: the bit of plane p (own, opponent, gaps, empty; 49 bits each) that
# observation cell (row, col) shows, row 0 being rank 7.
_OBS_INDEX = (
    np.arange(4)[None, None, :] * SIZE * SIZE
    + ((SIZE - 1 - np.arange(SIZE))[:, None] * SIZE + np.arange(SIZE)[None, :])[:, :, None]
)


class AtaxxObservation(ObservationEncoder):
    """Ataxx's observation (module docstring); the same for every start position."""

    def __init__(self) -> None:
        self.space = spaces.Box(0.0, 1.0, shape=(SIZE, SIZE, NUM_PLANES), dtype=np.float32)

    def encode(self, state: AtaxxState, player: int) -> np.ndarray:
        """``float32 (7, 7, 5)``: ``state`` seen by seat ``player`` (0 = x, 1 = o)."""
        x, o, gaps = state.bitboards()
        own, opp = (x, o) if player == 0 else (o, x)
        empty = FULL & ~(x | o | gaps)
        big = own | (opp << 49) | (gaps << 98) | (empty << 147)
        bits = np.unpackbits(np.frombuffer(big.to_bytes(25, "little"), dtype=np.uint8), bitorder="little")
        out = np.empty((SIZE, SIZE, NUM_PLANES), dtype=np.float32)
        out[:, :, :4] = bits[_OBS_INDEX]
        out[:, :, 4] = min(state.clock, CLOCK_LIMIT) / CLOCK_LIMIT
        return out

    def action_layout(self) -> ActionLayout:
        """``index (17, 7, 7)``: entry ``[p, row, col]`` is the action of plane ``p`` (0 clone,
        ``1 + k`` jump ``k``) arriving on the square at ``(row, col)`` (row 0 = rank 7); the pass
        (833) is off the grid. The observation is a plain ``Box``: ``obs_key`` is ``None``."""
        rows = np.arange(SIZE)[:, None]
        cols = np.arange(SIZE)[None, :]
        square = (SIZE - 1 - rows) * SIZE + cols
        planes = np.arange(1 + len(JUMP_OFFSETS))[:, None, None]
        return ActionLayout(index=planes * SIZE * SIZE + square[None], num_actions=NUM_ACTIONS)

    def symmetries(self) -> list[Symmetry]:
        """The 8 symmetries of :data:`DIHEDRAL` (identity first): a cell moves about the centre, a
        jump's offset turns with the board (jump ``k`` becomes the jump of the mapped offset), the
        planes stay (own, opponent, gaps, empty, clock); the pass stays."""
        layout = self.action_layout()
        centre = (SIZE - 1) // 2
        rows, cols = np.meshgrid(np.arange(SIZE), np.arange(SIZE), indexing="ij")
        out = []
        for name, (a, b, c, d) in DIHEDRAL.items():
            r0, c0 = rows - centre, cols - centre
            cell_map = (a * r0 + b * c0 + centre) * SIZE + (c * r0 + d * c0 + centre)
            plane_map = [0]
            for df, dr in JUMP_OFFSETS:  # (file, rank) -> observation (row, col) = (-dr, df)
                drow, dcol = -dr, df
                nrow, ncol = a * drow + b * dcol, c * drow + d * dcol
                plane_map.append(1 + JUMP_OFFSETS.index((ncol, -nrow)))
            out.append(grid_symmetry(name, layout, NUM_PLANES, cell_map, np.arange(NUM_PLANES), plane_map))
        return out
