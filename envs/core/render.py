"""Pictures of boards for ``render_mode="rgb_array"``, drawn with Pillow."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

__all__ = ["board_picture", "font", "PIECE_COLOURS", "wrap_to_width", "draw_text_block", "draw_legend"]

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


def wrap_to_width(draw: ImageDraw.ImageDraw, text: str, face, width: float) -> list[str]:
    """``text`` split at spaces into lines no wider than ``width`` pixels in ``face`` (a word
    wider than that stays whole on its own line)."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for word in paragraph.split(" "):
            trial = f"{line} {word}" if line else word
            if line and draw.textlength(trial, font=face) > width:
                lines.append(line)
                line = word
            else:
                line = trial
        lines.append(line)
    return lines


def draw_text_block(
    draw: ImageDraw.ImageDraw,
    lines: list[str],
    box: tuple[int, int, int, int],
    size: int,
    fill=(0, 0, 0),
    min_size: int = 8,
) -> int:
    """Draw ``lines`` centred in ``box = (x0, y0, x1, y1)``, each wrapped to the box's width, at
    the largest font size from ``size`` down to ``min_size`` at which every wrapped line fits the
    box (width and height); returns the size used. Nothing is cut at the picture's edges: a text
    too long even at ``min_size`` keeps its first lines that fit."""
    x0, y0, x1, y1 = box
    width, height = x1 - x0 - 4, y1 - y0
    for px in range(max(size, min_size), min_size - 1, -1):
        face = font(px)
        wrapped = [w for line in lines for w in wrap_to_width(draw, line, face, width)]
        step = px + max(2, px // 4)
        fits = all(draw.textlength(w, font=face) <= width for w in wrapped)
        if fits and len(wrapped) * step <= height:
            break
    wrapped = wrapped[: max(1, height // step)]
    top = y0 + (height - len(wrapped) * step) // 2
    for i, line in enumerate(wrapped):
        draw.text(((x0 + x1) // 2, top + i * step + step // 2), line, fill=fill, font=face, anchor="mm")
    return px


def draw_legend(
    draw: ImageDraw.ImageDraw,
    items: list[tuple[tuple[int, int, int], str]],
    centre: tuple[int, int],
    size: int,
    fill=(0, 0, 0),
    max_width: float | None = None,
    min_size: int = 8,
) -> None:
    """A row of ``(colour, text)`` items, each a filled disc followed by its text, centred on
    ``centre``; the font shrinks (down to ``min_size``) until the row fits ``max_width`` pixels."""
    for px in range(max(size, min_size), min_size - 1, -1):
        face = font(px)
        widths = [px + px // 2 + draw.textlength(text, font=face) for _, text in items]
        total = sum(widths) + px * (len(items) - 1)
        if max_width is None or total <= max_width:
            break
    x, y = centre[0] - total / 2, centre[1]
    for (colour, text), w in zip(items, widths):
        draw.ellipse([x, y - px / 2, x + px, y + px / 2], fill=colour, outline=(20, 20, 20))
        draw.text((x + px + px // 2, y), text, fill=fill, font=face, anchor="lm")
        x += w + px


def board_picture(
    board: np.ndarray,
    cell: int = 56,
    caption: str = "",
    files: str = "abcdefghijklmnopqrstuvwxyz",
    legend: list[tuple[int, str]] | None = None,
) -> np.ndarray:
    """Draw a square-grid board.

    Args:
        board: ``int`` array ``(rows, cols)``, row 0 at the top; 0 empty, -1 blocked (drawn as a
            dark square), ``k >= 1`` a piece of colour ``PIECE_COLOURS[k]``.
        cell: side of a square in pixels.
        caption: a line of text under the board (wrapped to the picture's width if need be).
        files: letters for the columns (rows are numbered from the bottom, starting at 1).
        legend: ``(piece code, text)`` pairs (``-1``: the blocked-square colour) drawn as a row
            of coloured discs with their text under the caption, e.g.
            ``[(1, "x (player 0): 5"), (2, "o (player 1): 8")]``.

    Returns:
        ``uint8`` array ``(H, W, 3)``.
    """
    rows, cols = board.shape
    margin = cell // 2
    foot = (cell // 2 if caption else 0) + (cell // 2 if legend else 0)
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
                draw.ellipse(
                    [x0 + pad, y0 + pad, x0 + cell - pad, y0 + cell - pad],
                    fill=PIECE_COLOURS.get(v, (0, 0, 0)),
                    outline=(20, 20, 20),
                    width=2,
                )
    for c in range(cols):
        draw.text((margin + c * cell + cell // 2, margin // 2), files[c], fill=_GRID, font=label_font, anchor="mm")
        draw.text(
            (margin + c * cell + cell // 2, margin + rows * cell + margin // 2),
            files[c],
            fill=_GRID,
            font=label_font,
            anchor="mm",
        )
    for r in range(rows):
        label = str(rows - r)
        draw.text((margin // 2, margin + r * cell + cell // 2), label, fill=_GRID, font=label_font, anchor="mm")
        draw.text((w - margin // 2, margin + r * cell + cell // 2), label, fill=_GRID, font=label_font, anchor="mm")
    top = rows * cell + 2 * margin
    if caption:
        draw_text_block(draw, [caption], (0, top - margin // 4, w, top + cell // 2 - margin // 4), max(10, cell // 4))
        top += cell // 2
    if legend:
        draw_legend(
            draw,
            [(_GAP if k == -1 else PIECE_COLOURS.get(k, (0, 0, 0)), text) for k, text in legend],
            (w // 2, top + cell // 4 - margin // 4),
            max(10, cell // 4),
            max_width=w - margin,
        )
    return np.asarray(img, dtype=np.uint8).copy()
