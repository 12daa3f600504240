"""Ataxx PettingZoo environment (``ataxx_v0``).

| | |
|---|---|
| Import | ``from envs import ataxx_v0`` or ``envs.make("ataxx_v0")`` |
| Agents | ``player_0`` (x, moves first), ``player_1`` (o) |
| Action space | ``Discrete(834)``: 0-48 clone to a square, 49-832 jump (16 planes x 49 destinations), 833 pass |
| Observation | ``Box(0, 1, (7, 7, 5), float32)`` + ``action_mask`` ``Box(0, 1, (834,), int8)`` |
| Rewards | +1 win, -1 loss, 0 draw, at the end only |
| Encoder | :class:`envs.ataxx.observation.AtaxxObservation` (``encode(state, player)``) |
| Action layout | ``action_layout()``: ``index (17, 7, 7)`` (clone, 16 jumps, by arrival square), ``obs_key=None``, off grid: pass |
| Batched | ``envs.make_vec("ataxx_v0", B)``: every setting, numba bitboards (:mod:`envs.ataxx.vector`) |

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
"""  # noqa: E501 - the Markdown table's rows cannot be wrapped

from __future__ import annotations

import numpy as np

from envs.ataxx.observation import AtaxxObservation
from envs.ataxx.render import ataxx_picture
from envs.ataxx.state import NUM_ACTIONS, AtaxxState
from envs.core.aec import TabletopAECEnv, wrap_classic

__all__ = ["raw_env", "env"]


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

    def __init__(
        self,
        fen: str | None = None,
        halfmove_clock: bool = True,
        max_steps: int | None = None,
        render_mode: str | None = None,
    ):
        self.num_players = 2
        self.num_actions = NUM_ACTIONS
        # Validate now so that a bad argument fails at construction, not at reset().
        self._start = AtaxxState(fen, halfmove_clock=halfmove_clock)
        self.encoder = AtaxxObservation()
        super().__init__(render_mode=render_mode, max_steps=max_steps)

    def _new_state(self, rng: np.random.Generator) -> AtaxxState:
        return self._start.clone()

    def _render_ansi(self) -> str:
        return str(self.state)

    def _render_rgb(self) -> np.ndarray:
        return ataxx_picture(self.state)


def env(**kwargs):
    """Ataxx wrapped as PettingZoo Classic environments are (illegal action: -1 and episode end)."""
    return wrap_classic(raw_env(**kwargs))
