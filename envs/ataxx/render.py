"""Pictures of Ataxx positions for ``render_mode="rgb_array"``, drawn with Pillow (and
:func:`to_svg`, the SVG drawing of :mod:`envs.ataxx.svg`, re-exported)."""

from __future__ import annotations

import numpy as np

from envs.ataxx.svg import to_svg
from envs.core.render import board_picture

__all__ = ["ataxx_picture", "to_svg"]


def ataxx_picture(state, cell: int = 56) -> np.ndarray:
    """Draw an :class:`~envs.ataxx.state.AtaxxState`: the board (files a-g, ranks 1-7; gaps as
    dark squares), the status line (side to move or result, stone counts, halfmove clock, move
    number) and a legend of the colours: red = x (player 0, moves first), blue = o (player 1),
    each with its stone count, and the gaps when the position has some.

    Returns:
        ``uint8`` array ``(H, W, 3)``; the size depends only on ``cell`` (and on whether the
        position has gaps, which never changes during a game).
    """
    board = state.board_array()
    nx, no = state.stone_counts()
    legend = [(1, f"x (player 0): {nx} stones"), (2, f"o (player 1): {no} stones")]
    if (board == -1).any():
        legend.append((-1, "gap (blocked)"))
    return board_picture(board, cell=cell, caption=str(state).splitlines()[-1], legend=legend)
