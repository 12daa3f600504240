"""Tantrix positions as SVG for people (the play room and the documentation), and how a move is chosen
with clicks: the board contract of :mod:`envs.core.svg`.

**The drawing** (user units; a board hexagon has circumradius :data:`SIDE` = 28):

* the caption: whose turn and the turn's phase (or the result; the phase says when the three
  restrictions end), tiles placed and the tiles left in the bag (never their order);
* the table: every placed tile as a black hexagon (pointy-top, as :mod:`envs.tantrix.state` numbers
  edges) carrying its three coloured lines, each drawn over a dark stroke: a sharp curve (adjacent
  edges) is an arc of radius ``SIDE / 2`` around the shared corner, a gentle curve (edges two apart)
  an arc of radius ``1.5 * SIDE`` around the centre of the hex across the edge between them, a
  straight line joins opposite edges. The last move's tile is outlined in white (class ``last``),
  the other tiles of the last turn of every seat but the one to move (all the tiles since the
  mover's last turn, up to 13 in four-player Tantrix; one round once the game is over) in dashed
  white (class ``recent``), the same for every viewer. Empty hexes touching the table (inside the
  window) are faint outlines; those where no tile may go while the bag has tiles (restrictions 2 and
  3: the controlled sides) are shaded (class ``blocked``); each forced space carries one dot per
  player holding a tile that may fill it, in that player's colour (a white dot when nobody can:
  class ``forced``). The view fits the tiles and their empty neighbours, not the whole window;
* the hands, one row per seat: a ``▶`` and a light band on the player to move, each player's
  colour, score (the larger of the longest line and twice the largest loop, in tiles, their
  colour's) and six slots. Hands are open in Tantrix (RULES.md), so every viewer sees every
  hand; a spectator's drawing equals a seat's, except that a seat's row says "(you)" and only
  the player to move gets hit shapes.

**Marks** (:func:`envs.core.svg.mark`, shown by the room): a purple ring around each hand tile
that can be played, a thicker one around the selected tile, and a purple dot in each space where
the selected tile fits (above a forced space's dots). Colours in :data:`MARK_COLOURS`.

**Keys** (``data-key`` of the hit shapes, only in the drawing for the seat to move):
``tile:<n>`` on each tile of the mover's hand, ``hex:<q>,<r>`` on each empty hex touching the
table. Every legal action has one path ``("tile:<n>", "hex:<q>,<r>")``, shared by the legal
rotations of that tile on that hex: the page cycles through them, drawing each with ``pending``,
and waits for a confirmation (:data:`CONFIRM`).

>>> from envs.tantrix import TantrixState
>>> from envs.tantrix.svg import action_paths
>>> s = TantrixState(2, seed=0)
>>> action_paths(s, s.legal_actions()[0]).paths
(('tile:47', 'hex:0,0'),)
"""

from __future__ import annotations

import math

from envs.core.svg import (
    MovePaths,
    blend,
    esc,
    hit,
    mark,
    mark_dot,
    mark_ring,
    ply_movers,
    recent_plies,
    svg_document,
    winners_words,
)
from envs.tantrix.render import LINE_COLOURS
from envs.tantrix.state import PHASES
from envs.tantrix.tiles import COLOUR_NAMES, TR_SEG

__all__ = ["to_svg", "action_paths", "status", "CONFIRM", "SIDE", "MARK_COLOURS", "tile_label"]

#: The page previews a completed path (the tile turned on its hex) and waits for a confirmation.
CONFIRM = True
#: Circumradius of a board hexagon, in user units.
SIDE = 28.0
_HAND_SIDE = 17.0  # circumradius of a hand tile before the panel's scale
_SQ3 = math.sqrt(3.0)
_BACKGROUND = "#ded2b4"
_TILE = "#0c0c0c"
_TILE_EDGE = "#5a5a5a"
_OUTLINE = "#a0916f"
_BLOCKED = "#b3a27e"
_TEXT = "#2a2418"
_MARK = "#6a1b9a"  # purple: no tile line has it
_TO_MOVE = "#ffffff"  # the light band on the mover's hand row, at _TO_MOVE_OPACITY
_TO_MOVE_OPACITY = 0.35
#: Each target marker's colour and what it is drawn on (``envs.core.svg`` contract; at least 3:1):
#: a dot in an empty space of the table, a ring around a tile of the mover's hand.
MARK_COLOURS = {
    "on the table": (_MARK, _BACKGROUND),
    "on the mover's hand row": (_MARK, blend(_TO_MOVE, _BACKGROUND, _TO_MOVE_OPACITY)),
}
_FONT = 'font-family="sans-serif"'
_HEX = {
    1: "#{:02x}{:02x}{:02x}".format(*LINE_COLOURS[1]),
    2: "#{:02x}{:02x}{:02x}".format(*LINE_COLOURS[2]),
    3: "#{:02x}{:02x}{:02x}".format(*LINE_COLOURS[3]),
    4: "#{:02x}{:02x}{:02x}".format(*LINE_COLOURS[4]),
}
_SHAPE = {1: "sharp curve", 2: "gentle curve", 3: "straight"}
#: The turn's steps (state.phase_index 0, 1, 2) in words.
_PHASE_TEXT = ("forced moves before the free move", "free move", "forced moves after the free move")
assert len(_PHASE_TEXT) == len(PHASES)


def _n(x: float) -> str:
    """A coordinate as short text (2 decimals at most)."""
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _corners(x: float, y: float, s: float) -> str:
    """``points`` of a pointy-top hexagon of circumradius ``s`` centred on ``(x, y)``."""
    return " ".join(
        f"{_n(x + s * math.cos(math.radians(-90 + 60 * i)))},{_n(y + s * math.sin(math.radians(-90 + 60 * i)))}"
        for i in range(6)
    )


def _centre(q: int, r: int) -> tuple[float, float]:
    """Centre of hex ``(q, r)`` on the table (hex ``(0, 0)`` at the origin)."""
    return SIDE * _SQ3 * (q + r / 2), SIDE * 1.5 * r


def _line_path(e1: int, e2: int, s: float) -> str:
    """SVG path data of the line joining edges ``e1 < e2`` of a tile of circumradius ``s``
    centred on the origin."""
    mid = s * _SQ3 / 2

    def at(angle_deg: float, dist: float) -> tuple[float, float]:
        return dist * math.cos(math.radians(angle_deg)), dist * math.sin(math.radians(angle_deg))

    p1, p2 = at(-60 + 60 * e1, mid), at(-60 + 60 * e2, mid)
    gap = e2 - e1
    if gap == 3:
        return f"M{_n(p1[0])} {_n(p1[1])}L{_n(p2[0])} {_n(p2[1])}"
    if gap in (1, 5):  # sharp curve around the corner both edges share
        corner = e1 if gap == 1 else e2  # the corner between edge d and d + 1 lies at -30 + 60 d degrees
        centre, radius = at(-30 + 60 * corner, s), s / 2
    else:  # gentle curve around the centre of the hex across the middle edge
        middle = e1 + 1 if gap == 2 else (e2 + 1) % 6
        centre, radius = at(-60 + 60 * middle, s * _SQ3), 1.5 * s
    cross = (p1[0] - centre[0]) * (p2[1] - centre[1]) - (p1[1] - centre[1]) * (p2[0] - centre[0])
    sweep = 1 if cross > 0 else 0
    return f"M{_n(p1[0])} {_n(p1[1])}A{_n(radius)} {_n(radius)} 0 0 {sweep} {_n(p2[0])} {_n(p2[1])}"


def _tile_body(t: int, k: int) -> str:
    """The elements of tile ``t`` in rotation ``k`` centred on the origin, circumradius SIDE."""
    w = 0.22 * SIDE
    out = [f'<polygon points="{_corners(0, 0, SIDE - 0.5)}" fill="{_TILE}" stroke="{_TILE_EDGE}" stroke-width="1"/>']
    seg = TR_SEG[t * 6 + k]
    for col in range(1, 5):
        if seg[col]:
            d = _line_path(seg[col][0], seg[col][1], SIDE)
            out.append(
                f'<path d="{d}" fill="none" stroke="{_TILE}" stroke-width="{_n(w + 3)}"/>'
                f'<path d="{d}" fill="none" stroke="{_HEX[col]}" stroke-width="{_n(w)}"/>'
            )
    return "".join(out)


#: _BODIES[t * 6 + k]: the drawing of tile t in rotation k at the origin (computed once).
_BODIES = [""] * (57 * 6)
for _t in range(1, 57):
    for _k in range(6):
        _BODIES[_t * 6 + _k] = _tile_body(_t, _k)


def tile_label(tile: int, rot: int = 0) -> str:
    """Words for a tile, e.g. ``"tile 23: red sharp curve, yellow gentle curve, blue straight"``
    (its lines by colour code; the shapes do not depend on ``rot``)."""
    seg = TR_SEG[tile * 6 + rot]
    parts = []
    for col in range(1, 5):
        if seg[col]:
            gap = min((seg[col][1] - seg[col][0]) % 6, (seg[col][0] - seg[col][1]) % 6)
            parts.append(f"{COLOUR_NAMES[col - 1]} {_SHAPE[gap]}")
    return f"tile {tile}: " + ", ".join(parts)


def _player_name(state, p: int) -> str:
    """A seat for people, numbered from 1 (``"P1 red"``, ``"P2 yellow (team 2)"``; the API's seats
    and the rules' result texts count from 0)."""
    name = f"P{p + 1} {COLOUR_NAMES[state.colour_of(p) - 1]}"
    return name + (f" (team {state.team_of(p) + 1})" if state.team_game else "")


def _check(state, viewer, pending) -> tuple[int, int, int, int] | None:
    """Validate ``viewer`` and ``pending``; return the pending placement ``(tile, q, r, rot)``."""
    if viewer is not None:
        state._check_seat(viewer, "viewer")
    if pending is None:
        return None
    a = state._check_action_index(pending)
    if a not in state._legal_set:
        raise ValueError(f"pending action {a} is not legal here (legal: {len(state._legal)} placements)")
    slot, rot, q, r = state.decode(a)
    return state.hand(state.current_player)[slot], q, r, rot


# ---------------------------------------------------------------------------------- the contract
def to_svg(state, viewer: int | None = None, *, pending: int | None = None) -> str:
    """Draw ``state`` (a :class:`~envs.tantrix.state.TantrixState`) as one standalone SVG document
    (see the module docstring for what is drawn).

    Args:
        state: the position (not changed).
        viewer: ``None`` (a spectator) or a seat; every hand is public in Tantrix, so the viewer
            changes only the "(you)" mark and whether hit shapes are drawn (for the seat to move).
        pending: a legal action drawn as if played (class ``pending``, a dashed outline in the
            mover's colour): its tile on its hex, its hand slot empty. Nothing is drawn from the
            bag, and forced spaces and scores stay those of ``state``.

    Returns:
        The SVG text (``viewBox`` sized to the tiles; about 600 user units wide mid-game).

    Raises:
        ValueError: ``viewer`` is neither ``None`` nor a seat; ``pending`` is not a legal action.
    """
    pend = _check(state, viewer, pending)
    over = state.is_terminal()
    mover = state.current_player
    active = (not over) and viewer is not None and viewer == mover
    R = state.window_radius
    placed = state.placed
    cand = [(q, r) for q, r in state.candidate_cells() if max(abs(q), abs(r), abs(q + r)) <= R] if not over else []
    forced = set(state.forced_spaces()) if not over else set()
    blocked = set(state.blocked_spaces()) if not over else set()

    # ---- geometry: the board's extent, then the panel scale
    cells = [(q, r) for _, q, r, _ in placed] + cand
    xs = [_centre(q, r)[0] for q, r in cells] or [0.0]
    ys = [_centre(q, r)[1] for q, r in cells] or [0.0]
    margin = 0.5 * SIDE
    bx0, bx1 = min(xs) - SIDE * _SQ3 / 2 - margin, max(xs) + SIDE * _SQ3 / 2 + margin
    by0, by1 = min(ys) - SIDE - margin, max(ys) + SIDE + margin
    board_w, board_h = bx1 - bx0, by1 - by0
    if over:
        out = state.outcome()
        caption = (
            f"Game over: {winners_words(state, out.winners, lambda w: _player_name(state, w))} ({out.termination})"
        )
    else:
        caption = f"{_player_name(state, mover)} to move · {_PHASE_TEXT[state.phase_index]}"
    # what a player needs: the bag's tiles (once it is empty the restrictions end, which the phase
    # line says: "restrictions off: the bag is empty")
    bag = f"tiles left in the bag: {state.bag_size}" if state.bag_size else "the bag is empty"
    counts = f"tiles placed: {len(placed)} · {bag}"
    k = max(1.0, board_w / 640)  # text and hands grow with a large table so they stay readable
    hs = _HAND_SIDE * k
    font = 14 * k
    pad = 10 * k
    label_w = 215 * k
    slot_w = hs * _SQ3 + 5 * k
    panel_w = label_w + 6 * slot_w + pad
    width = max(board_w, panel_w, 0.56 * font * len(caption)) + 2 * pad  # about 0.56 em per letter
    cap_h = font * 3.1
    ox = pad + (width - 2 * pad - board_w) / 2 - bx0  # table origin in the document
    oy = cap_h - by0
    row_h = 2 * hs + 16 * k
    hands_y = cap_h + board_h + 4 * k
    height = hands_y + state.num_players * row_h + pad

    body = [f'<rect width="{_n(width)}" height="{_n(height)}" fill="{_BACKGROUND}"/>']
    hits = []

    # ---- caption
    body.append(
        f'<text x="{_n(pad)}" y="{_n(font * 1.35)}" font-size="{_n(font)}" {_FONT} fill="{_TEXT}">'
        f"{esc(caption)}</text>"
        f'<text x="{_n(pad)}" y="{_n(font * 2.55)}" font-size="{_n(0.85 * font)}" {_FONT} fill="{_TEXT}">'
        f"{esc(counts)}</text>"
    )

    # ---- the table
    body.append(f'<g class="table" transform="translate({_n(ox)} {_n(oy)})">')
    pend_hex = (pend[1], pend[2]) if pend else None
    fillers: dict[tuple[int, int], list[int]] = {}
    for q, r in cand:
        x, y = _centre(q, r)
        shaded = (q, r) in blocked
        cls = "space blocked" if shaded else "space"
        fill = f'fill="{_BLOCKED}"' if shaded else 'fill="none"'
        body.append(
            f'<polygon class="{cls}" points="{_corners(x, y, SIDE - 1.5)}" {fill} stroke="{_OUTLINE}" '
            f'stroke-width="1"/>'
        )
        if (q, r) in forced:
            fillers[(q, r)] = [p for p in range(state.num_players) if state.fitting_placements(p, q, r)]
    last = placed[-1] if placed and state.history else None
    for t, q, r, rot in placed:
        x, y = _centre(q, r)
        body.append(
            f'<g class="tile" aria-label="t{t} at {q},{r}" transform="translate({_n(x)} {_n(y)})">'
            f"{_BODIES[t * 6 + rot]}</g>"
        )
    for _t, q, r, _rot in _recent_tiles(state):
        x, y = _centre(q, r)
        body.append(
            f'<polygon class="recent" points="{_corners(x, y, SIDE - 2.5)}" fill="none" stroke="#ffffff" '
            f'stroke-width="2" stroke-dasharray="5 3"/>'
        )
    if last is not None:
        x, y = _centre(last[1], last[2])
        body.append(
            f'<polygon class="last" points="{_corners(x, y, SIDE - 1.5)}" fill="none" stroke="#ffffff" '
            f'stroke-width="3"/>'
        )
    for (q, r), who in fillers.items():
        if (q, r) == pend_hex:
            continue
        x, y = _centre(q, r)
        dot = 0.16 * SIDE
        if not who:
            body.append(
                f'<circle class="forced" cx="{_n(x)}" cy="{_n(y)}" r="{_n(dot)}" fill="#ffffff" '
                f'stroke="{_TEXT}" stroke-width="1.5"/>'
            )
        step = 2.4 * dot
        for i, p in enumerate(who):
            cx = x + (i - (len(who) - 1) / 2) * step
            body.append(
                f'<circle class="forced" cx="{_n(cx)}" cy="{_n(y)}" r="{_n(dot)}" '
                f'fill="{_HEX[state.colour_of(p)]}" stroke="{_TEXT}" stroke-width="1.5"/>'
            )
    if pend:
        t, q, r, rot = pend
        x, y = _centre(q, r)
        body.append(
            f'<g class="tile pending" aria-label="t{t} at {q},{r}, rotation {rot}, not yet played" '
            f'transform="translate({_n(x)} {_n(y)})">{_BODIES[t * 6 + rot]}'
            f'<polygon points="{_corners(0, 0, SIDE - 1.5)}" fill="none" '
            f'stroke="{_HEX[state.colour_of(mover)]}" stroke-width="3" stroke-dasharray="6 4"/></g>'
        )
    if active:
        for q, r in cand:
            x, y = _centre(q, r)
            words = f"hex {q},{r}, empty"
            if (q, r) in fillers:
                who = fillers[(q, r)]
                words += ", forced space" + (
                    ": " + ", ".join(_player_name(state, p) for p in who) + " can fill it"
                    if who
                    else ", nobody can fill it"
                )
            elif (q, r) in blocked:
                words += ", controlled: no tile may go here"
            hits.append(hit("polygon", f"hex:{q},{r}", words, points=_corners(ox + x, oy + y, SIDE)))
            # the marker: a dot at the centre, above the forced space's dots when it has some
            my = oy + y - (0.5 * SIDE if (q, r) in fillers else 0)
            hits.append(mark(mark_dot(ox + x, my, 0.13 * SIDE, _MARK), mark_dot(ox + x, my, 0.18 * SIDE, _MARK)))
    body.append("</g>")

    # ---- the hands
    scores = state.scores()
    for p in range(state.num_players):
        y0 = hands_y + p * row_h
        cy = y0 + row_h / 2
        if p == mover:
            body.append(
                f'<rect class="to-move" x="{_n(pad / 2)}" y="{_n(y0)}" width="{_n(width - pad)}" '
                f'height="{_n(row_h)}" rx="{_n(4 * k)}" fill="{_TO_MOVE}" fill-opacity="{_TO_MOVE_OPACITY}"/>'
            )
            body.append(
                f'<text x="{_n(pad)}" y="{_n(cy + font * 0.35)}" font-size="{_n(font)}" {_FONT} fill="{_TEXT}">▶</text>'
            )
        col = state.colour_of(p)
        body.append(
            f'<circle cx="{_n(pad + 1.6 * font)}" cy="{_n(cy)}" r="{_n(0.5 * font)}" fill="{_HEX[col]}" '
            f'stroke="{_TEXT}" stroke-width="1"/>'
        )
        line, loop = state.colour_score(col)
        name = _player_name(state, p) + (" (you)" if viewer == p else "")
        detail = f"score {scores[p]}: line {line}" + (f", loop {loop}×2" if loop else "")
        weight = ' font-weight="bold"' if p == mover else ""
        tx = pad + 2.4 * font
        body.append(
            f'<text x="{_n(tx)}" y="{_n(cy - 0.2 * font)}" font-size="{_n(font)}" {_FONT}{weight} '
            f'fill="{_TEXT}">{esc(name)}</text>'
        )
        body.append(
            f'<text x="{_n(tx)}" y="{_n(cy + 0.95 * font)}" font-size="{_n(0.85 * font)}" {_FONT} '
            f'fill="{_TEXT}">{esc(detail)}</text>'
        )
        for slot, t in enumerate(state.hand(p)):
            x = pad + label_w + slot * slot_w + slot_w / 2
            lifted = pend is not None and p == mover and t == pend[0]
            if t == -1 or lifted:
                body.append(
                    f'<polygon class="slot{" pending" if lifted else ""}" points="{_corners(x, cy, hs - 1)}" '
                    f'fill="none" stroke="{_OUTLINE}" stroke-width="1" stroke-dasharray="3 3"/>'
                )
            else:
                body.append(
                    f'<g class="hand-tile" aria-label="{esc(tile_label(t))}" '
                    f'transform="translate({_n(x)} {_n(cy)}) scale({_n(hs / SIDE)})">{_BODIES[t * 6]}</g>'
                    f'<text x="{_n(x)}" y="{_n(cy + hs + 7.5 * k)}" font-size="{_n(8 * k)}" {_FONT} '
                    f'text-anchor="middle" fill="{_TEXT}">{t}</text>'
                )
            if active and p == mover and t != -1:
                hits.append(hit("polygon", f"tile:{t}", f"{tile_label(t)}, in your hand", points=_corners(x, cy, hs)))
                hits.append(
                    mark(
                        mark_ring(
                            "polygon", _MARK, 1.6 * k, points=_corners(x, cy, hs + 1.2 * k), stroke_linejoin="round"
                        ),
                        mark_ring(
                            "polygon", _MARK, 2.6 * k, points=_corners(x, cy, hs + 1.6 * k), stroke_linejoin="round"
                        ),
                    )
                )

    body.extend(hits)
    label = f"Tantrix position: {caption}"
    return svg_document(round(width, 2), round(height, 2), "".join(body), label, "board-tantrix")


def _recent_tiles(state) -> list[tuple[int, int, int, int]]:
    """The tiles placed in the last turn of every seat but the one to move
    (:func:`envs.core.svg.recent_plies`: since the mover's last turn; one round once the game is
    over), the last tile excluded (it is drawn as ``last``); none when the history cannot be
    replayed (a position set up by hand). The same for every viewer."""
    h = len(state.history)
    placed = state.placed
    if h < 2 or len(placed) < h:
        return []
    movers = ply_movers(state)
    if movers is None:
        return []
    first = len(placed) - h  # tiles on the table before the history began
    seat = None if state.is_terminal() else int(state.current_player)
    return [placed[first + i] for i in recent_plies(movers, seat) if i != h - 1]


def action_paths(state, action: int) -> MovePaths:
    """How a legal placement is clicked: ``MovePaths((("tile:<n>", "hex:<q>,<r>"),), kind)``,
    the same path for every legal rotation of that tile on that hex (the page cycles through
    them), ``kind`` ``"forced"`` during the forced steps and ``"free"`` for the free move.

    O(1) per action (no search), so the page may ask for every legal action at every move.

    Raises:
        ValueError: ``action`` is not a legal action of ``state`` (an ``IllegalActionError`` for a
            bad type or index).
    """
    a = state._check_action_index(action)
    if a not in state._legal_set:
        raise ValueError(f"action {a} is not legal here, so it has no click path")
    slot, _rot, q, r = state.decode(a)
    t = state._hands[state._player][slot]
    return MovePaths(((f"tile:{t}", f"hex:{q},{r}"),), "free" if state.phase_index == 1 else "forced")


def status(state, viewer: int | None) -> str:
    """The turn's phase: ``"forced moves before the free move"``, ``"free move"`` or ``"forced
    moves after the free move"``, followed by ``" (restrictions off: the bag is empty)"`` once
    the last tile has been drawn; ``""`` when the game is over. The same for every viewer.

    Raises:
        ValueError: ``viewer`` is neither ``None`` nor a seat.
    """
    if viewer is not None:
        state._check_seat(viewer, "viewer")
    if state.is_terminal():
        return ""
    text = _PHASE_TEXT[state.phase_index]
    if not state.restrictions_active:
        text += " (restrictions off: the bag is empty)"
    return text
