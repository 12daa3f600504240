"""Pictures of Smartrix tables for ``render_mode="rgb_array"``, drawn with Pillow.

Each card is a square split 3x3: its 8 border squares hold a coloured spot or nothing, the centre
shows its value. The picture covers the action window (the area where cards can go); underneath
are the status line (whose turn and the pile's size, or the final scores) and every player's
points (the value of the cards collected) and hand size (never the cards: hands are hidden).
"""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from envs.core.render import draw_text_block
from envs.core.render import font as pil_font

__all__ = ["smartrix_picture"]

_BACKGROUND = (36, 110, 60)
_CARD = (246, 242, 230)
_EDGE = (60, 50, 40)
_GRIDLINE = (56, 130, 80)
# Spot colours are decoration only (the rules compare spot / no spot); one per border square.
_SPOTS = (
    (205, 40, 40),
    (40, 90, 200),
    (230, 170, 20),
    (40, 160, 60),
    (150, 60, 170),
    (230, 110, 30),
    (30, 160, 170),
    (200, 60, 120),
)
# Border square i -> (row, col) in the card's 3x3 grid.
_SQUARE_RC = ((0, 0), (0, 1), (0, 2), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0))


def smartrix_picture(state, cell: int = 60) -> np.ndarray:
    """Draw the table of a :class:`~envs.smartrix.state.SmartrixState` over its action window.

    Returns:
        ``uint8`` array ``(H, W, 3)``.
    """
    from envs.smartrix.cards import CARD_PATTERNS, CARD_VALUES

    w = state.window
    margin = cell // 2
    foot = cell + cell // 2
    size = w * cell + 2 * margin
    img = Image.new("RGB", (size, size + foot), _BACKGROUND)
    draw = ImageDraw.Draw(img)
    small = pil_font(max(9, cell // 5))
    value_font = pil_font(max(10, cell // 3))
    r0, c0 = state.window_origin()
    for k in range(w + 1):
        x = margin + k * cell
        draw.line([(x, margin), (x, margin + w * cell)], fill=_GRIDLINE, width=1)
        draw.line([(margin, x), (margin + w * cell, x)], fill=_GRIDLINE, width=1)
    for k in range(w):
        draw.text(
            (margin + k * cell + cell // 2, margin // 2), f"{c0 + k:+d}", fill=(220, 230, 220), font=small, anchor="mm"
        )
        draw.text(
            (margin // 2, margin + k * cell + cell // 2), f"{r0 + k:+d}", fill=(220, 230, 220), font=small, anchor="mm"
        )
    third = cell / 3
    for number, rot, r, c in state.table():
        wr, wc = r - r0, c - c0
        x0, y0 = margin + wc * cell, margin + wr * cell
        draw.rectangle([x0 + 2, y0 + 2, x0 + cell - 2, y0 + cell - 2], fill=_CARD, outline=_EDGE, width=2)
        pattern = int(CARD_PATTERNS[number - 1, rot])
        rad = max(2, int(third * 0.32))
        for i, (sr, sc) in enumerate(_SQUARE_RC):
            if pattern >> i & 1:
                cx, cy = x0 + (sc + 0.5) * third, y0 + (sr + 0.5) * third
                draw.ellipse([cx - rad, cy - rad, cx + rad, cy + rad], fill=_SPOTS[i], outline=_EDGE)
        draw.text(
            (x0 + cell / 2, y0 + cell / 2),
            str(int(CARD_VALUES[number - 1])),
            fill=(0, 0, 0),
            font=value_font,
            anchor="mm",
        )
    players = "   ".join(
        f"P{p}: {state.points(p)} points, {state.hand_size(p)} cards" for p in range(state.num_players)
    )
    draw_text_block(
        draw,
        [state.status_line(), players],
        (0, size - margin // 2, size, size + foot - 2),
        max(10, cell // 4),
        fill=(255, 255, 255),
    )
    return np.asarray(img, dtype=np.uint8).copy()
