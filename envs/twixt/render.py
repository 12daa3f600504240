"""Pictures of TwixT positions for ``render_mode="rgb_array"``, drawn with Pillow."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw

from envs.core.render import draw_text_block
from envs.core.render import font as pil_font
from envs.twixt.geometry import COLOUR_NAMES
from envs.twixt.notation import column_label

__all__ = ["twixt_picture"]

# The board's colours, RGB tuples of int 0..255 (shared with the SVG board, envs/twixt/svg.py):
# red's pegs and links and borders, black's, the background, the empty holes and labels, the ring
# around the last peg.
RED_RGB = (205, 40, 40)
BLACK_RGB = (25, 25, 25)
BACKGROUND_RGB = (236, 224, 190)
HOLE_RGB = (120, 105, 80)
LAST_RGB = (240, 190, 20)
_SEATS = ("A", "A", "B", "B")  # Double TwixT: the seat of each player in its team


def twixt_picture(state, cell: int | None = None) -> np.ndarray:
    """Draw a TwixT position: holes, the coloured border lines, pegs and links.

    Red (player 0's colour) owns the top and bottom rows, black the left and right columns; the
    border lines are drawn in the owner's colour between the border row/column and the playing
    area. The last peg placed has a yellow ring. Under the board, the status line (whose turn,
    or the result), wrapped and sized to fit the picture's width on any board size. Double TwixT
    (four players) tells the two seats of a team apart: every peg carries its seat's letter (A:
    players 0 and 1, B: players 2 and 3) and a second line names the last peg's owner.

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
    four = state.num_players == 4
    caption_px = max(11, min(16, cell // 2))
    lines = 3 if four else 2  # room for the caption (the status line may wrap on small boards)
    foot = lines * (caption_px + max(2, caption_px // 4)) + caption_px // 2
    img = Image.new("RGB", (w, h + foot), BACKGROUND_RGB)
    draw = ImageDraw.Draw(img)
    font = pil_font(max(9, cell // 2))
    owners = _peg_owners(state) if four else {}

    def xy(r, c):
        return margin + c * cell, margin + r * cell

    # Border lines half-way between the border row/column and the next one.
    lo, hi = margin + cell // 2, margin + (s - 2) * cell + cell // 2
    width = max(2, cell // 8)
    draw.line([(lo, lo), (hi, lo)], fill=RED_RGB, width=width)
    draw.line([(lo, hi), (hi, hi)], fill=RED_RGB, width=width)
    draw.line([(lo, lo), (lo, hi)], fill=BLACK_RGB, width=width)
    draw.line([(hi, lo), (hi, hi)], fill=BLACK_RGB, width=width)
    pegs = state.pegs()
    corners = {(0, 0), (0, s - 1), (s - 1, 0), (s - 1, s - 1)}
    dot = max(1, cell // 10)
    for r in range(s):
        for c in range(s):
            if (r, c) in corners:
                continue
            x, y = xy(r, c)
            draw.ellipse([x - dot, y - dot, x + dot, y + dot], fill=HOLE_RGB)
    for (r1, c1), (r2, c2), colour in state.links():
        draw.line([xy(r1, c1), xy(r2, c2)], fill=RED_RGB if colour == 0 else BLACK_RGB, width=max(2, cell // 6))
    peg = max(3, cell // 3)
    seat_font = pil_font(max(8, int(peg * 1.2)))
    last = last_peg_hole(state)
    for r, c in zip(*np.nonzero(pegs)):
        x, y = xy(r, c)
        if (r, c) == last:
            ring = peg + max(2, cell // 10)
            draw.ellipse([x - ring, y - ring, x + ring, y + ring], outline=LAST_RGB, width=max(2, cell // 12))
        draw.ellipse(
            [x - peg, y - peg, x + peg, y + peg],
            fill=RED_RGB if pegs[r, c] == 1 else BLACK_RGB,
            outline=(250, 250, 250),
            width=1,
        )
        if (r, c) in owners:
            draw.text((x, y), _SEATS[owners[r, c]], fill=(255, 255, 255), font=seat_font, anchor="mm")
    for c in range(s):
        draw.text((xy(0, c)[0], margin // 3), column_label(c), fill=HOLE_RGB, font=font, anchor="mm")
    for r in range(s):
        draw.text((margin // 3, xy(r, 0)[1]), str(r + 1), fill=HOLE_RGB, font=font, anchor="mm")
    caption = [state.status_line()]
    if four and last is not None:
        pl = owners[last]
        caption.append(
            f"last peg: {column_label(last[1])}{last[0] + 1}, {COLOUR_NAMES[pl % 2]} {_SEATS[pl]} (player {pl})"
        )
    draw_text_block(draw, caption, (0, h - cell // 4, w, h + foot - 2), caption_px)
    return np.asarray(img, dtype=np.uint8).copy()


def last_peg_hole(state) -> tuple[int, int] | None:
    """``(row, col)`` of the last peg placed (after a swap: the swapped peg), or ``None``."""
    n = state.board_size**2
    manual = getattr(state, "linking", "auto") == "manual"
    for a in reversed(state.history):
        if a == n:  # the swap: the one peg on the board
            rows, cols = np.nonzero(state.pegs())
            return (int(rows[0]), int(cols[0])) if len(rows) else None
        if manual and a > n:  # links="manual": links and end are not pegs
            continue
        hole = a if a < n else a - n - 1
        return divmod(hole, state.board_size)
    return None


def _peg_owners(state) -> dict[tuple[int, int], int]:
    """Double TwixT: ``(row, col) -> player`` who placed each peg, by replaying the history."""
    from envs.twixt.state import TwixtState

    n = state.board_size**2
    manual = getattr(state, "linking", "auto") == "manual"
    replay = TwixtState(
        state.board_size,
        rules=state.rules,
        swap=state.swap,
        draw=state.draw,
        num_players=state.num_players,
        links=state.linking,
    )
    owners = {}
    for a in state.history:
        if not manual or a < n:  # links="manual": only actions below S*S place pegs
            hole = a if a < n else a - n - 1
            owners[divmod(hole, state.board_size)] = replay.current_player
        replay.apply(a)
    return owners
