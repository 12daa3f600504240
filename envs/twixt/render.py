"""Pictures of TwixT positions for ``render_mode="rgb_array"``, drawn with Pillow."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from envs.core.render import font as pil_font

from envs.twixt.state import column_label

__all__ = ["twixt_picture"]

_RED = (205, 40, 40)
_BLACK = (25, 25, 25)
_BACKGROUND = (236, 224, 190)
_HOLE = (120, 105, 80)


def twixt_picture(state, cell: int | None = None) -> np.ndarray:
    """Draw a TwixT position: holes, the coloured border lines, pegs and links.

    Red (player 0's colour) owns the top and bottom rows, black the left and right columns; the
    border lines are drawn in the owner's colour between the border row/column and the playing
    area.

    Args:
        state: a :class:`~envs.twixt.state.TwixtState`.
        cell: pixels between neighbouring holes (default: about 560 px for the whole board).

    Returns:
        ``uint8`` array ``(H, W, 3)``.
    """
    s = state.board_size
    cell = cell or max(16, min(48, 560 // s))
    margin = cell
    w = h = 2 * margin + (s - 1) * cell
    img = Image.new("RGB", (w, h + cell), _BACKGROUND)
    draw = ImageDraw.Draw(img)
    font = pil_font(max(9, cell // 2))

    def xy(r, c):
        return margin + c * cell, margin + r * cell

    # Border lines half-way between the border row/column and the next one.
    lo, hi = margin + cell // 2, margin + (s - 2) * cell + cell // 2
    width = max(2, cell // 8)
    draw.line([(lo, lo), (hi, lo)], fill=_RED, width=width)
    draw.line([(lo, hi), (hi, hi)], fill=_RED, width=width)
    draw.line([(lo, lo), (lo, hi)], fill=_BLACK, width=width)
    draw.line([(hi, lo), (hi, hi)], fill=_BLACK, width=width)
    pegs = state.pegs()
    corners = {(0, 0), (0, s - 1), (s - 1, 0), (s - 1, s - 1)}
    dot = max(1, cell // 10)
    for r in range(s):
        for c in range(s):
            if (r, c) in corners:
                continue
            x, y = xy(r, c)
            draw.ellipse([x - dot, y - dot, x + dot, y + dot], fill=_HOLE)
    for (r1, c1), (r2, c2), colour in state.links():
        draw.line([xy(r1, c1), xy(r2, c2)], fill=_RED if colour == 0 else _BLACK, width=max(2, cell // 6))
    peg = max(3, cell // 3)
    for r, c in zip(*np.nonzero(pegs)):
        x, y = xy(r, c)
        draw.ellipse([x - peg, y - peg, x + peg, y + peg], fill=_RED if pegs[r, c] == 1 else _BLACK,
                     outline=(250, 250, 250), width=1)
    for c in range(s):
        draw.text((xy(0, c)[0], margin // 3), column_label(c), fill=_HOLE, font=font, anchor="mm")
    for r in range(s):
        draw.text((margin // 3, xy(r, 0)[1]), str(r + 1), fill=_HOLE, font=font, anchor="mm")
    draw.text((w // 2, h + cell // 2 - 4), state.status_line()[:120], fill=(0, 0, 0), font=pil_font(max(10, cell // 2)), anchor="mm")
    return np.asarray(img, dtype=np.uint8).copy()
