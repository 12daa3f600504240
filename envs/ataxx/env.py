"""Ataxx PettingZoo environment (``ataxx_v0``).

| | |
|---|---|
| Import | ``from envs import ataxx_v0`` or ``envs.make("ataxx_v0")`` |
| Agents | ``player_0`` (x, moves first), ``player_1`` (o) |
| Action space | ``Discrete(834)``: 0-48 clone to a square, 49-832 jump (16 planes x 49 destinations), 833 pass |
| Observation | ``Box(0, 1, (7, 7, 5), float32)`` + ``action_mask`` ``Box(0, 1, (834,), int8)`` |
| Rewards | +1 win, -1 loss, 0 draw, at the end only |

Observation planes (row 0 = rank 7, column 0 = file a, as the board is printed), from the point
of view of the observing agent:

0. the agent's own stones; 1. the opponent's stones; 2. blocked squares (gaps); 3. empty squares;
4. the halfmove clock divided by 100 (the same value on every square; ``min(clock, 100) / 100``).

Action encoding: see :mod:`envs.ataxx.state` (square index ``rank * 7 + file``, ``a1`` = 0;
jump ``k`` arriving on ``d`` from ``d - JUMP_OFFSETS[k]`` is ``49 * (1 + k) + d``).

Constructor arguments: ``fen`` (start position, default the standard start), ``halfmove_clock``
(default ``True``: 100 plies without a clone is a draw), ``max_steps`` (truncation, default
``None``), ``render_mode``.

Version history: v0 — first release.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from envs.ataxx.state import CLOCK_LIMIT, FULL, JUMP_OFFSETS, NUM_ACTIONS, SIZE, AtaxxState
from envs.core.aec import TabletopAECEnv, wrap_classic
from envs.ataxx.render import ataxx_picture

__all__ = ["raw_env", "env"]

_PLANES = 5
# _OBS_INDEX[row, col, p]: the bit of plane p (own, opponent, gaps, empty; 49 bits each) that
# observation cell (row, col) shows, row 0 being rank 7.
_OBS_INDEX = (np.arange(4)[None, None, :] * SIZE * SIZE
              + ((SIZE - 1 - np.arange(SIZE))[:, None] * SIZE + np.arange(SIZE)[None, :])[:, :, None])


class raw_env(TabletopAECEnv):
    """Ataxx without PettingZoo's wrappers: illegal actions raise ``IllegalActionError``.

    Args:
        fen: starting position (FEN or ``"startpos"``); validated here.
        halfmove_clock: enable the 100-ply draw rule (``envs/ataxx/RULES.md``).
        max_steps: truncate after this many plies (``None``: no limit).
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` or ``"human"``.

    Raises:
        InvalidPositionError: malformed ``fen``. ParameterError: other bad arguments.
    """

    metadata = {
        "name": "ataxx_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, fen: str | None = None, halfmove_clock: bool = True, max_steps: int | None = None,
                 render_mode: str | None = None):
        self.num_players = 2
        self.num_actions = NUM_ACTIONS
        # Validate now so that a bad argument fails at construction, not at reset().
        self._start = AtaxxState(fen, halfmove_clock=halfmove_clock)
        super().__init__(render_mode=render_mode, max_steps=max_steps)

    def _new_state(self, rng: np.random.Generator) -> AtaxxState:
        return self._start.clone()

    def _observation_box(self) -> spaces.Box:
        return spaces.Box(0.0, 1.0, shape=(SIZE, SIZE, _PLANES), dtype=np.float32)

    def _observe(self, player: int) -> np.ndarray:
        x, o, gaps = self.state.bitboards()
        own, opp = (x, o) if player == 0 else (o, x)
        empty = FULL & ~(x | o | gaps)
        big = own | (opp << 49) | (gaps << 98) | (empty << 147)
        bits = np.unpackbits(np.frombuffer(big.to_bytes(25, "little"), dtype=np.uint8), bitorder="little")
        out = np.empty((SIZE, SIZE, _PLANES), dtype=np.float32)
        out[:, :, :4] = bits[_OBS_INDEX]
        out[:, :, 4] = min(self.state.clock, CLOCK_LIMIT) / CLOCK_LIMIT
        return out

    def action_layout(self) -> np.ndarray:
        """Where each action sits on the observation's grid, for spatial policy heads.

        Returns:
            ``int64`` array ``(17, 7, 7)``: entry ``[p, row, col]`` is the action of plane ``p``
            (0 clone, ``1 + k`` jump ``k``) arriving on the square at ``(row, col)`` of the
            observation (row 0 = rank 7). The pass (833) is not on the grid.
        """
        rows = np.arange(SIZE)[:, None]
        cols = np.arange(SIZE)[None, :]
        square = (SIZE - 1 - rows) * SIZE + cols
        planes = np.arange(1 + len(JUMP_OFFSETS))[:, None, None]
        return planes * SIZE * SIZE + square[None]

    def _render_ansi(self) -> str:
        return str(self.state)

    def _render_rgb(self) -> np.ndarray:
        return ataxx_picture(self.state)


def env(**kwargs):
    """Ataxx wrapped as PettingZoo Classic environments are (illegal action: -1 and episode end)."""
    return wrap_classic(raw_env(**kwargs))
