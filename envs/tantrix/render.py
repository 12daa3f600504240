"""Pictures of Tantrix positions for ``render_mode="rgb_array"``, drawn with Pillow.

Tiles are black hexagons (pointy-top) carrying their three coloured lines: a sharp curve between
adjacent edges, a gentle curve between edges two apart, a straight line between opposite edges.
Forced spaces carry a white dot; other empty hexes touching a tile are outlined faintly. The
picture is centred on the tiles and scaled to fit; every frame has the same size. Under the
board: the status line (whose turn, or the result), each player's colour and score (the longest
line, or twice the largest loop, in that colour; final at the end) and the hands.
"""

from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageDraw

from envs.core.render import draw_text_block
from envs.tantrix.tiles import COLOUR_NAMES, TR_EDGES, TR_SEG

__all__ = ["tantrix_picture", "LINE_COLOURS"]

#: RGB of colour codes 1-4 (red, yellow, blue, green).
LINE_COLOURS = {1: (225, 35, 35), 2: (250, 215, 20), 3: (40, 110, 235), 4: (30, 175, 70)}
_BACKGROUND = (222, 210, 180)
_TILE = (12, 12, 12)
_OUTLINE = (160, 145, 115)
_SQ3 = math.sqrt(3.0)


def _bezier(p0, p1, p2, n=14):
    return [
        (
            (1 - t) ** 2 * p0[0] + 2 * (1 - t) * t * p1[0] + t * t * p2[0],
            (1 - t) ** 2 * p0[1] + 2 * (1 - t) * t * p1[1] + t * t * p2[1],
        )
        for t in (i / n for i in range(n + 1))
    ]


def tantrix_picture(state, size: int | None = None) -> np.ndarray:
    """Draw ``state`` (a :class:`~envs.tantrix.state.TantrixState`); ``size`` is the hexagon's
    circumradius in pixels (default: the largest that fits the tiles and their empty
    neighbours in 800 x 800 pixels; the picture's size is fixed). Returns ``uint8 (H, W, 3)``."""
    canvas = 800
    shown = [(q, r) for _, q, r, _ in state.placed] + state.candidate_cells()
    xs = [_SQ3 * (q + r / 2) for q, r in shown]
    ys = [1.5 * r for q, r in shown]
    span = max(max(xs) - min(xs) + 2, max(ys) - min(ys) + 2, 6.0)
    size = size or int(min(48, (canvas - 20) / span))
    width = height = canvas
    foot = 66
    img = Image.new("RGB", (width, height + foot), _BACKGROUND)
    draw = ImageDraw.Draw(img)
    ox, oy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    cx, cy = width / 2 - ox * size, height / 2 - oy * size

    def centre(q, r):
        return cx + size * _SQ3 * (q + r / 2), cy + size * 1.5 * r

    def corners(x, y, s):
        return [
            (x + s * math.cos(math.radians(-90 + 60 * i)), y + s * math.sin(math.radians(-90 + 60 * i)))
            for i in range(6)
        ]

    mid = [
        (math.cos(math.radians(-60 + 60 * d)) * _SQ3 / 2, math.sin(math.radians(-60 + 60 * d)) * _SQ3 / 2)
        for d in range(6)
    ]
    lw = max(2, size // 4)
    for q, r in state.candidate_cells():
        x, y = centre(q, r)
        draw.polygon(corners(x, y, size - 1), outline=_OUTLINE)
    for q, r in state.forced_spaces():
        x, y = centre(q, r)
        d = max(2, size // 5)
        draw.ellipse([x - d, y - d, x + d, y + d], fill=(255, 255, 255), outline=(0, 0, 0))
    last = state.placed[-1] if state.placed else None
    for t, q, r, k in state.placed:
        x, y = centre(q, r)
        draw.polygon(
            corners(x, y, size - 0.5), fill=_TILE, outline=(90, 90, 90) if (t, q, r, k) != last else (255, 255, 255)
        )
        seg = TR_SEG[t * 6 + k]
        for col in range(1, 5):
            if not seg[col]:
                continue
            e1, e2 = seg[col]
            p0 = (x + mid[e1][0] * size, y + mid[e1][1] * size)
            p2 = (x + mid[e2][0] * size, y + mid[e2][1] * size)
            if (e2 - e1) % 6 in (1, 5):  # sharp curve: bend towards the shared corner
                c = e1 if (e2 - e1) % 6 == 1 else e2
                ang = math.radians(-30 + 60 * c)
                ctrl = (x + math.cos(ang) * size * 0.25, y + math.sin(ang) * size * 0.25)
            else:  # gentle curve or straight line: through the centre's side
                ctrl = (x, y)
            draw.line(_bezier(p0, ctrl, p2), fill=LINE_COLOURS[col], width=lw, joint="curve")
        _ = TR_EDGES  # (edge colours are implied by the segments)
    scores = state.scores()
    score_line = "scores: " + "   ".join(
        f"P{p} {COLOUR_NAMES[state.colour_of(p) - 1]} {scores[p]}" for p in range(state.num_players)
    )
    hands = "   ".join(
        f"P{p}: " + (" ".join(str(t) for t in state.hand(p) if t != -1) or "-") for p in range(state.num_players)
    )
    draw_text_block(
        draw, [state.status_line(), score_line, "hands: " + hands], (0, height, width, height + foot - 2), 13
    )
    return np.asarray(img, dtype=np.uint8).copy()
