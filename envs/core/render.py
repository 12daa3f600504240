"""Pictures of boards for ``render_mode="rgb_array"``, drawn with Pillow."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

__all__ = ["board_picture", "font", "PIECE_COLOURS"]

#: Fill colours of the pieces coded 1, 2, ... in a board array.
PIECE_COLOURS = {1: (200, 40, 40), 2: (40, 90, 200), 3: (40, 160, 60), 4: (220, 170, 30)}
_BACKGROUND = (238, 226, 196)
_GRID = (90, 70, 50)
_GAP = (70, 70, 70)


def font(size: int):
    """Pillow's default font at ``size`` pixels (a fixed-size bitmap font on Pillow < 10.1)."""
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def board_picture(board: np.ndarray, cell: int = 56, caption: str = "", files: str = "abcdefghijklmnopqrstuvwxyz") -> np.ndarray:
    """Draw a square-grid board.

    Args:
        board: ``int`` array ``(rows, cols)``, row 0 at the top; 0 empty, -1 blocked (drawn as a
            dark square), ``k >= 1`` a piece of colour ``PIECE_COLOURS[k]``.
        cell: side of a square in pixels.
        caption: a line of text under the board.
        files: letters for the columns (rows are numbered from the bottom, starting at 1).

    Returns:
        ``uint8`` array ``(H, W, 3)``.
    """
    rows, cols = board.shape
    margin = cell // 2
    foot = cell // 2 if caption else 0
    w, h = cols * cell + 2 * margin, rows * cell + 2 * margin + foot
    img = Image.new("RGB", (w, h), _BACKGROUND)
    draw = ImageDraw.Draw(img)
    label_font = font(max(10, cell // 3))
    for r in range(rows):
        for c in range(cols):
            x0, y0 = margin + c * cell, margin + r * cell
            v = int(board[r, c])
            if v == -1:
                draw.rectangle([x0, y0, x0 + cell, y0 + cell], fill=_GAP)
            draw.rectangle([x0, y0, x0 + cell, y0 + cell], outline=_GRID, width=2)
            if v >= 1:
                pad = cell // 8
                draw.ellipse([x0 + pad, y0 + pad, x0 + cell - pad, y0 + cell - pad],
                             fill=PIECE_COLOURS.get(v, (0, 0, 0)), outline=(20, 20, 20), width=2)
    for c in range(cols):
        draw.text((margin + c * cell + cell // 2, margin // 2), files[c], fill=_GRID, font=label_font, anchor="mm")
        draw.text((margin + c * cell + cell // 2, margin + rows * cell + margin // 2), files[c], fill=_GRID, font=label_font, anchor="mm")
    for r in range(rows):
        label = str(rows - r)
        draw.text((margin // 2, margin + r * cell + cell // 2), label, fill=_GRID, font=label_font, anchor="mm")
        draw.text((w - margin // 2, margin + r * cell + cell // 2), label, fill=_GRID, font=label_font, anchor="mm")
    if caption:
        draw.text((w // 2, h - foot // 2 - 2), caption, fill=(0, 0, 0), font=font(max(10, cell // 4)), anchor="mm")
    return np.asarray(img, dtype=np.uint8).copy()
