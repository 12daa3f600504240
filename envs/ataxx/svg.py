"""Ataxx boards as SVG, and how a person picks a move on them (the board contract of
:mod:`envs.core.svg`, declared in ``AtaxxState.info.board``).

Drawing (:func:`to_svg`): the 7x7 board as standard notation prints it, never flipped (file ``a``
on the left, rank ``1`` at the bottom, for every viewer), files a-g labelled above and below,
ranks 1-7 on both sides; x stones red and o stones blue, gaps (blocked squares) dark grey, the
colours of the Pillow picture (:mod:`envs.ataxx.render`, ``envs.core.render.PIECE_COLOURS``).
Under the board a caption: each side's stone count, then whose turn it is (and the halfmove
clock when the 100-ply draw rule is on) or the result and why the game ended; a seat's drawing
adds which side the viewer plays (``you: blue``) and the root's class says who looks
(``spectator``, ``viewer-x``, ``viewer-o``). The document's ``aria-label`` says the same and
names the last move (and the pending one).

* **Last move** (class ``last``, yellow): a clone highlights its square only (a clone has no
  source in notation, and any adjacent stone could have been its source); a jump highlights its
  source and its target and joins them with a line; a pass (``0000``) highlights nothing. The
  stones it converted (:attr:`~envs.ataxx.state.AtaxxState.last_converted`) carry a yellow ring
  inside the stone (class ``last converted``). With two sides taking turns, the last ply is the
  whole of the other side's last turn.
* **Marks** (:func:`envs.core.svg.mark`, shown by the room): a dark green dot in an empty target
  square; a ring around a movable stone (quiet: on hover, focus, or once a stone is selected),
  a thicker ring around the selected stone. Colours in :data:`MARK_COLOURS`.
* **Pending** (``pending=action``, class ``pending``, green): the position after the action,
  drawn over the current one: the new stone and the stones it would convert in the mover's
  colour with a dashed outline, a jump's emptied source as a dashed ring.
* **Hit shapes**: one square per board square, gaps included (``data-key`` the square's name,
  ``"c3"``; ``aria-label`` ``"c3, red stone"``, ``"c3, empty"``, ``"c3, gap"``).

Paths (:func:`action_paths`): a jump ``c3e5`` is ``("c3", "e5")`` (kind ``"jump"``); a clone to
``b2`` has one path ``(source, "b2")`` per stone of the mover next to ``b2``, sources in square
order a1, b1, ..., g7 (kind ``"clone"``): click any neighbour, then the target. The pass, legal
only when it is the only legal action (``envs/ataxx/RULES.md``), has no path and plays itself.
A completed path plays at once (:data:`CONFIRM` is ``False``).

Rules: ``envs/ataxx/RULES.md``. Sizes are SVG user units (1 unit = 1 px at scale 1): the document
is ``WIDTH`` x ``HEIGHT`` (504 x 548), each square ``CELL`` (64) units wide.
"""

from __future__ import annotations

from envs.ataxx.state import (
    FILES,
    JUMP_OFFSETS,
    NEAR,
    NUM_SQUARES,
    PASS_ACTION,
    SIZE,
    AtaxxState,
    iter_bits,
    square_name,
)
from envs.core.checks import is_int
from envs.core.errors import IllegalActionError
from envs.core.svg import MovePaths, blend, esc, hit, mark, mark_dot, mark_ring, svg_document

__all__ = ["to_svg", "action_paths", "status", "CONFIRM", "COLOURS", "MARK_COLOURS", "CELL", "WIDTH", "HEIGHT"]

#: A completed path plays at once: no preview, no confirmation.
CONFIRM = False

#: Side of one square, in user units.
CELL = 64
_MARGIN = 28  # room for the file and rank labels
_CAPTION = 44  # height of the caption under the board
_BOARD = SIZE * CELL
#: Size of the document in user units.
WIDTH = _BOARD + 2 * _MARGIN
HEIGHT = _BOARD + 2 * _MARGIN + _CAPTION

#: Colours (CSS hex), those of the Pillow picture (``envs.core.render``): ``x`` and ``o`` stones
#: (``PIECE_COLOURS[1]``, ``[2]``), the board, the grid and labels, the gaps, the last move's
#: highlight and the pending move's.
COLOURS = {
    "x": "#c82828",
    "o": "#285ac8",
    "board": "#eee2c4",
    "grid": "#5a4632",
    "gap": "#464646",
    "outline": "#141414",
    "last": "#f2c94c",
    "last-line": "#d9a21b",
    "pending": "#7fc98a",
    "pending-line": "#3f9a4d",
    "mark": "#1d5e34",
}
#: Each target marker's colour and what it is drawn on (``envs.core.svg`` contract; at least 3:1):
#: a dot in an empty square or a ring around a stone, on the board or on the last move's square.
MARK_COLOURS = {
    "on the board": (COLOURS["mark"], COLOURS["board"]),
    "on the last move's square": (COLOURS["mark"], blend(COLOURS["last"], COLOURS["board"], 0.8)),
}
_SIDE = "xo"  # the seats' names (FEN letters), the CSS classes of the stones
_NAME = ("red", "blue")  # the seats' colours: what the caption and the labels say (x is red, o blue)
_WON = {"1-0": "red won", "0-1": "blue won"}
_RADIUS = CELL * 0.38


def _xy(sq: int) -> tuple[int, int]:
    """Top-left corner of square ``sq`` (rank 7 at the top, file a on the left)."""
    return _MARGIN + (sq % SIZE) * CELL, _MARGIN + (SIZE - 1 - sq // SIZE) * CELL


def _centre(sq: int) -> tuple[float, float]:
    x, y = _xy(sq)
    return x + CELL / 2, y + CELL / 2


def _source(action: int) -> int | None:
    """The source square of a jump action, ``None`` for a clone or the pass."""
    plane = action // NUM_SQUARES
    if action == PASS_ACTION or plane == 0:
        return None
    df, dr = JUMP_OFFSETS[plane - 1]
    d = action % NUM_SQUARES
    return d - dr * SIZE - df


def _check_state(state) -> AtaxxState:
    if not isinstance(state, AtaxxState):
        raise TypeError(f"envs.ataxx.svg draws an AtaxxState, got {type(state).__name__}")
    return state


def _check_legal(state: AtaxxState, action) -> int:
    """``action`` as an int, checked legal in ``state``.

    Raises:
        IllegalActionError: not an integer in ``[0, 834)``, or not legal here (with the reason).
    """
    text = state.action_to_string(action)  # raises for a non-integer or out-of-range action
    a = int(action)
    why = state._why_illegal(a)
    if why is not None:
        raise IllegalActionError(f"action {a} ({text}) is not legal here: {why}")
    return a


def _stone(sq: int, side: int, pending: bool = False) -> str:
    """A stone of ``side`` on ``sq``; a pending move's stones have a dashed outline."""
    cx, cy = _centre(sq)
    css, line = (
        ("stone %s pending", 'stroke-width="3" stroke-dasharray="6 4"') if pending else ("stone %s", 'stroke-width="2"')
    )
    return (
        f'<circle class="{css % _SIDE[side]}" cx="{cx:g}" cy="{cy:g}" r="{_RADIUS:g}" '
        f'fill="{COLOURS[_SIDE[side]]}" stroke="{COLOURS["outline"]}" {line}/>'
    )


def _square_mark(sq: int, css: str, colour: str) -> str:
    x, y = _xy(sq)
    return (
        f'<rect class="{css}" x="{x + 2}" y="{y + 2}" width="{CELL - 4}" height="{CELL - 4}" '
        f'fill="{colour}" fill-opacity="0.8"/>'
    )


def _move_marks(action: int, css: str) -> list[str]:
    """The highlight of ``action``'s squares (target; a jump's source too, and a line between)."""
    if action == PASS_ACTION:
        return []
    d, s = action % NUM_SQUARES, _source(action)
    colour, line = COLOURS[css], COLOURS[f"{css}-line"]
    out = [_square_mark(d, css, colour)]
    if s is not None:
        out.append(_square_mark(s, css, colour))
        (x1, y1), (x2, y2) = _centre(s), _centre(d)
        out.append(
            f'<line class="{css}" x1="{x1:g}" y1="{y1:g}" x2="{x2:g}" y2="{y2:g}" stroke="{line}" '
            f'stroke-width="5" stroke-linecap="round"/>'
        )
    return out


def _caption(state: AtaxxState, viewer: int | None) -> str:
    """The caption's text after the stone counts: the turn (and the halfmove clock when the
    100-ply rule is on) or the result and why the game ended; a seat's side."""
    out = state.outcome()
    if out is not None:
        why = f"{_NAME[state.resignations[0][1]]} resigned" if state.resignations else out.termination
        text = f"{_WON.get(out.result, 'a draw')}: {why}"  # players' words; the code ("1-0") is the record's
    else:
        text = f"{_NAME[state.turn]} to move"
        if state.halfmove_clock:
            text += f" \u00b7 clock {state.clock}/100"
    if viewer is not None:
        text += f" \u00b7 you: {_NAME[viewer]}"
    return text


#: Room for the turn or result text, in user units: from after the stone counts to the board's right edge.
_TEXT_ROOM = _BOARD - 190


def _fit(text: str) -> str:
    """The caption's font size for ``text``: 16, or smaller for a text too long for
    :data:`_TEXT_ROOM` at 16 (about 6.8 units a letter in a sans-serif font), so that it never runs
    into the stone counts."""
    width = 6.8 * len(text)
    return "16" if width <= _TEXT_ROOM else f"{16 * _TEXT_ROOM / width:.1f}"


def to_svg(state: AtaxxState, viewer: int | None = None, *, pending: int | None = None) -> str:
    """The position as one standalone SVG document (see the module docstring for what is drawn).

    Args:
        state: the position (:class:`~envs.ataxx.state.AtaxxState`); its ``history`` gives the
            last move.
        viewer: ``None`` (a spectator) or the seat ``0`` (x) / ``1`` (o) looking; Ataxx hides
            nothing, so the board is the same for all, and a seat's caption names its side.
        pending: a legal action drawn as if played (class ``pending``), or ``None``.

    Returns:
        ``str``: an ``<svg>`` document, viewBox ``0 0 504 548`` (user units), deterministic.

    Raises:
        TypeError: ``state`` is not an ``AtaxxState``.
        ValueError: ``viewer`` is neither ``None`` nor 0 or 1.
        IllegalActionError (a ``ValueError``): ``pending`` is not an integer in ``[0, 834)`` or
            not legal in ``state``.
    """
    _check_state(state)
    if viewer is not None:
        if not is_int(viewer) or not 0 <= viewer < 2:
            raise ValueError(f"viewer must be None (a spectator) or a seat 0 (x) or 1 (o), got {viewer!r}")
        viewer = int(viewer)
    if pending is not None:
        pending = _check_legal(state, pending)
    x_bb, o_bb, gaps = state.bitboards()
    c = COLOURS
    body = [
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="{c["board"]}"/>',
        f'<rect x="{_MARGIN}" y="{_MARGIN}" width="{_BOARD}" height="{_BOARD}" fill="{c["board"]}" '
        f'stroke="{c["grid"]}" stroke-width="3"/>',
    ]
    # gaps, then the grid lines over them
    for sq in iter_bits(gaps):
        x, y = _xy(sq)
        body.append(f'<rect class="gap" x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{c["gap"]}"/>')
    lines = []
    for i in range(1, SIZE):
        p = _MARGIN + i * CELL
        lines.append(f"M{p} {_MARGIN}V{_MARGIN + _BOARD}M{_MARGIN} {p}H{_MARGIN + _BOARD}")
    body.append(f'<path d="{"".join(lines)}" stroke="{c["grid"]}" stroke-width="2" fill="none"/>')
    # labels: files above and below, ranks on both sides
    font = f'font-family="sans-serif" font-size="16" fill="{c["grid"]}" text-anchor="middle"'
    for f in range(SIZE):
        x = _MARGIN + f * CELL + CELL // 2
        for y in (_MARGIN - 9, _MARGIN + _BOARD + 20):
            body.append(f'<text class="label" x="{x}" y="{y}" {font}>{FILES[f]}</text>')
    for r in range(SIZE):
        y = _MARGIN + (SIZE - 1 - r) * CELL + CELL // 2 + 6
        for x in (_MARGIN // 2, _MARGIN + _BOARD + _MARGIN // 2):
            body.append(f'<text class="label" x="{x}" y="{y}" {font}>{r + 1}</text>')
    # the last move, under the stones
    last = state.history[-1] if state.history else None
    if last is not None:
        body.extend(_move_marks(last, "last"))
    if pending is not None:
        body.extend(_move_marks(pending, "pending"))
    # stones
    for side, bb in enumerate((x_bb, o_bb)):
        for sq in iter_bits(bb):
            body.append(_stone(sq, side))
    if last is not None:
        for sq in iter_bits(state.last_converted):
            cx, cy = _centre(sq)
            body.append(
                f'<circle class="last converted" cx="{cx:g}" cy="{cy:g}" r="{_RADIUS * 0.55:g}" fill="none" '
                f'stroke="{c["last"]}" stroke-width="4"/>'
            )
    if pending is not None and pending != PASS_ACTION:
        mover = state.turn
        d, s = pending % NUM_SQUARES, _source(pending)
        converted = NEAR[d] & (o_bb if mover == 0 else x_bb)
        for sq in sorted([d, *iter_bits(converted)]):
            body.append(_stone(sq, mover, pending=True))
        if s is not None:
            cx, cy = _centre(s)
            body.append(
                f'<circle class="pending vacated" cx="{cx:g}" cy="{cy:g}" r="{_RADIUS:g}" fill="{c["board"]}" '
                f'fill-opacity="0.8" stroke="{c[_SIDE[mover]]}" stroke-width="2" stroke-dasharray="6 4"/>'
            )
    # caption: the stone counts, then the turn or the result
    nx, no = state.stone_counts()
    cy = _MARGIN * 2 + _BOARD + _CAPTION // 2 - 8
    text = _caption(state, viewer)
    cap = f'font-family="sans-serif" font-size="16" fill="{c["outline"]}"'
    cap_text = cap.replace('font-size="16"', f'font-size="{_fit(text)}"')
    body.append(
        f'<g class="caption">'
        f'<circle cx="{_MARGIN + 9}" cy="{cy}" r="9" fill="{c["x"]}" stroke="{c["outline"]}"/>'
        f'<text x="{_MARGIN + 24}" y="{cy + 6}" {cap}>red {nx}</text>'
        f'<circle cx="{_MARGIN + 92}" cy="{cy}" r="9" fill="{c["o"]}" stroke="{c["outline"]}"/>'
        f'<text x="{_MARGIN + 107}" y="{cy + 6}" {cap}>blue {no}</text>'
        f'<text x="{_MARGIN + _BOARD}" y="{cy + 6}" text-anchor="end" {cap_text}>{esc(text)}</text></g>'
    )
    # hit shapes, on top, each followed by its mark (the same for every viewer)
    marks = not state.is_terminal()
    for sq in range(NUM_SQUARES):
        x, y = _xy(sq)
        name = square_name(sq)
        what = state.piece_at(sq)
        desc = {"x": "red stone", "o": "blue stone", "-": "gap", ".": "empty"}[what]
        body.append(hit("rect", name, f"{name}, {desc}", x=x, y=y, width=CELL, height=CELL))
        cx, cy = _centre(sq)
        if not marks:
            continue
        if what == ".":
            body.append(
                mark(
                    mark_dot(cx, cy, CELL * 0.12, c["mark"]),
                    mark_ring("circle", c["mark"], 4, cx=cx, cy=cy, r=CELL * 0.3),
                )
            )
        elif what != "-":
            ring = _RADIUS + 4
            body.append(
                mark(
                    mark_ring("circle", c["mark"], 3, cx=cx, cy=cy, r=ring),
                    mark_ring("circle", c["mark"], 4, cx=cx, cy=cy, r=ring + 0.5),
                    quiet=True,
                )
            )
    label = f"Ataxx position: red (x) {nx} stones, blue (o) {no} stones; {text}"
    if last is not None:
        label += f"; last move {state.action_to_string(last)}"
        turned = state.last_converted.bit_count()
        if turned:
            label += f", {turned} stone{'s' if turned != 1 else ''} converted"
    if pending is not None:
        label += f"; pending {state.action_to_string(pending)}"
    view = "spectator" if viewer is None else f"viewer-{_SIDE[viewer]}"
    return svg_document(WIDTH, HEIGHT, "".join(body), label, f"board-ataxx {view}")


def action_paths(state: AtaxxState, action: int) -> MovePaths:
    """How the legal ``action`` is chosen with clicks on :func:`to_svg`'s squares.

    Returns:
        :class:`~envs.core.svg.MovePaths`: a jump ``(("c3", "e5"),)``, kind ``"jump"``; a clone to
        ``b2`` one path ``(source, "b2")`` per stone of the mover next to ``b2``, sources in square
        order (a1, b1, ..., g7), kind ``"clone"``; the pass ``()`` (it plays itself: it is legal
        only when it is the only legal action).

    Raises:
        TypeError: ``state`` is not an ``AtaxxState``.
        IllegalActionError (a ``ValueError``): ``action`` is not an integer in ``[0, 834)`` or
            not legal in ``state`` (the message says why).
    """
    _check_state(state)
    a = _check_legal(state, action)
    if a == PASS_ACTION:
        return MovePaths(())
    d = a % NUM_SQUARES
    target = square_name(d)
    s = _source(a)
    if s is not None:
        return MovePaths(((square_name(s), target),), kind="jump")
    own = state.bitboards()[state.turn]
    return MovePaths(tuple((square_name(src), target) for src in iter_bits(NEAR[d] & own)), kind="clone")


def status(state: AtaxxState, viewer: int | None) -> str:
    """One line the move list and the result do not say, ``""`` when there is none.

    * ``"red has no move: it passes (0000)"`` when the side to move must pass;
    * ``"clock 93/100: a draw in 7 moves without a clone"`` (moves as players count them: plies)
      from 80 plies on, when the 100-ply draw rule is on (``envs/ataxx/RULES.md``, rule 3).

    Args:
        state: the position. viewer: ``None`` or a seat (the line is the same for all).

    Raises:
        TypeError: ``state`` is not an ``AtaxxState``.
    """
    _check_state(state)
    if state.is_terminal():
        return ""
    side = _NAME[state.turn]
    if state.legal_actions() == [PASS_ACTION]:
        return f"{side} has no move: it passes (0000)"
    if state.halfmove_clock and state.clock >= 80:
        left = 100 - state.clock
        return f"clock {state.clock}/100: a draw in {left} {'move' if left == 1 else 'moves'} without a clone"
    return ""
