"""Smartrix tables as SVG for people, and how a move is picked with clicks (the board contract of
:mod:`envs.core.svg`).

The drawing (user units; one square of the table is :data:`CELL` = 60 units):

* a caption: whose turn and the pile's size (the result and final scores once the game is over),
  and the last move in notation with the cards it collected;
* the table around the cards (their bounding box and one square more on each side, at least 7x7;
  with the 5x5 rule exactly the action window), with row and column numbers (absolute, as in the
  notation ``17r1@-1,+2``); each card is its spot diagram (the 8 border squares of a 3x3 grid, a
  spot where the card has one, the value in the centre and the card's number, ``#17``, small under
  it: the number the notation and the move list use; spot colours as the Pillow renderer
  :mod:`envs.smartrix.render`: decoration only, the rules compare spot with no spot);
* with the 5x5 rule, the *5x5 box*: a dashed frame round the squares the rule still allows (rows
  ``rmax - 4 .. rmin + 4`` within one square of the table, columns alike);
* the last card put down outlined in gold (class ``last``), the other cards put down in the last
  turn of every seat but the one to move (since the mover's last turn; one round once the game is
  over) in dashed gold (class ``recent``), the same for every viewer; when the last move collected sets, the
  collected cards are drawn faded where they lay, framed in gold (class ``last collected``);
* the viewer's hand (seat viewers only) as cards in rotation 0; every other hand as its size. A
  spectator (``viewer=None``) sees no hand before the end; once the game is over everybody sees
  every hand;
* one line per player: cards in hand, cards and points collected, out, the final score at the end.

Marks (:func:`envs.core.svg.mark`, shown by the room): a white ring around each card of the hand
that can be played (thicker around the selected card), and a white dot with a dark halo on each
empty square where the selected card fits (hollow for a card that collects nothing). Colours in
:data:`MARK_COLOURS`.

Keys (``data-key`` of the hit shapes): ``card:<n>`` a card of the viewer's hand (card number
``1..70``), ``cell:<row>,<col>`` a square of the table (absolute, e.g. ``cell:-1,2``). A placement
is chosen with the path ``("card:<n>", "cell:<row>,<col>")``; the distinct rotations of that card
on that square share it and the page cycles through them (drawn with ``pending``), so
:data:`CONFIRM` is ``True``. Pass is the button ``"pass"``; when it is the only legal action (no
card of the hand fits anywhere, so the rules leave no choice) it has no path and plays itself.

Hidden information: nothing in a drawing depends on a card the viewer cannot see (another hand,
the pile's order), not even the number of elements: the contract test redraws every hidden card
(:meth:`SmartrixState.sample_determinization`) and compares the text.
"""

from __future__ import annotations

from envs.core.checks import is_int
from envs.core.errors import IllegalActionError
from envs.core.svg import (
    MovePaths,
    blend,
    esc,
    hit,
    mark,
    mark_ring,
    ply_movers,
    recent_plies,
    svg_document,
    winners_words,
)
from envs.smartrix.cards import CARD_PATTERNS, CARD_VALUES
from envs.smartrix.state import HAND_SIZE, SmartrixState

__all__ = ["to_svg", "action_paths", "CONFIRM", "status", "CELL", "MARK_COLOURS"]

#: A completed path waits for a confirmation (the page cycles the rotations first).
CONFIRM = True
#: Side of one table square, in user units.
CELL = 60

_HAND_CELL = 52  # side of a card in the viewer's hand
_END_CELL = 38  # side of a card in the hands shown once the game is over
_GAP = 8
_MARGIN = 26  # room for the row and column numbers
_PAD = 12
_LINE = 20  # one text line of the caption and the players' list
_MIN_SIDE = 7  # the table is drawn at least 7x7 squares

# Colours of the Pillow renderer (envs/smartrix/render.py).
_BACKGROUND = "#246e3c"
_CARD = "#f6f2e6"
_EDGE = "#3c3228"
_GRIDLINE = "#38824f"
_LABEL = "#dce6dc"
_SPOTS = ("#cd2828", "#285ac8", "#e6aa14", "#28a03c", "#963caa", "#e66e1e", "#1ea0aa", "#c83c78")
_LAST = "#ffd54a"
_PENDING = "#4fc3f7"
_TABLE = "#1c4a2c"  # around the board and behind the hands
_GHOST_OPACITY = 0.55  # a card the last move collected, drawn faded where it lay
_MARK = "#ffffff"
_HALO = "#1a1a1a"
#: Each target marker's colour and what it is drawn on (``envs.core.svg`` contract; at least 3:1):
#: a white dot on an empty square (with a dark halo, which carries the contrast on the faded card
#: of a square the last move emptied), a white ring around a card of the hand.
MARK_COLOURS = {
    "dot on an empty square": (_MARK, _BACKGROUND),
    "halo on a collected card's square": (_HALO, blend(_CARD, _BACKGROUND, _GHOST_OPACITY)),
    "ring around a hand card": (_MARK, _TABLE),
}
_SQUARE_RC = ((0, 0), (0, 1), (0, 2), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0))
_PATTERNS = CARD_PATTERNS.tolist()
_VALUES = CARD_VALUES.tolist()
_FONT = 'font-family="sans-serif"'


# ---------------------------------------------------------------------------------- checks
def _check(state, viewer, pending) -> int | None:
    """Validate ``state``, ``viewer`` and ``pending`` (as :meth:`GameState.to_svg` does)."""
    if not isinstance(state, SmartrixState):
        raise TypeError(f"envs.smartrix.svg draws a SmartrixState, got {type(state).__name__}")
    if viewer is not None and (not is_int(viewer) or not 0 <= viewer < state.num_players):
        raise ValueError(f"viewer must be None (a spectator) or a seat in [0, {state.num_players}), got {viewer!r}")
    if pending is None:
        return None
    a = state._check_action_index(pending)
    if not state.legal_action_mask()[a]:
        raise IllegalActionError(f"pending action {a} ({state.action_to_string(a)}) is not legal here")
    return a


# ---------------------------------------------------------------------------------- public exports
def action_paths(state: SmartrixState, action: int) -> MovePaths:
    """How the legal ``action`` is chosen with clicks.

    Returns:
        a placement: ``MovePaths((("card:<n>", "cell:<row>,<col>"),), kind)`` with ``kind``
        ``"collect"`` when it completes a set, else ``"place"`` (every rotation of the card on the
        square has the same path); pass: ``MovePaths((("pass",),))`` (a button), or
        ``MovePaths(())`` when it is the only legal action (it then plays itself).

    Raises:
        IllegalActionError (a ``ValueError``): ``action`` is not an action index, or not legal now.
        TypeError: ``state`` is not a :class:`SmartrixState`.
    """
    if not isinstance(state, SmartrixState):
        raise TypeError(f"envs.smartrix.svg draws a SmartrixState, got {type(state).__name__}")
    a = state._check_action_index(action)
    # the rules' own check of one placement (a few microseconds; the whole mask costs far more in
    # the kids variant's 123,481 actions, and the page asks for every legal action at each move)
    why = "the game is over" if state.is_terminal() else None if a == state.pass_action else state._why_illegal(a)
    if why is not None:
        raise IllegalActionError(
            f"action {a} ({state.action_to_string(a)}) is not legal here ({why}), so it has no path"
        )
    if a == state.pass_action:
        return MovePaths((("pass",),)) if state.legal_placements() else MovePaths(())
    placement = state.decode(a)
    assert placement is not None  # not the pass action (returned above)
    number, _, r, c = placement
    kind = "collect" if state.placement_collects(a) else "place"
    return MovePaths(((f"card:{number}", f"cell:{r},{c}"),), kind)


def status(state: SmartrixState, viewer: int | None) -> str:
    """The game's phase in one line (``""`` when there is nothing to add to the moves and result).

    Says when the pile is empty (a player who passes is then out; in the team game with their
    partner), when ``viewer`` is out, and, for the player to move only, when no card of their
    hand fits (they must pass).

    Raises:
        ValueError: ``viewer`` is neither ``None`` nor a seat. TypeError: not a SmartrixState.
    """
    _check(state, viewer, None)
    viewer = None if viewer is None else int(viewer)
    if state.is_terminal():
        return ""
    parts = []
    if viewer is not None and viewer == state.current_player and not state.legal_placements():
        parts.append("none of your cards fits: you must pass")
    if state.pile_size == 0:
        parts.append(
            "the pile is empty: a player who passes is out" + (" with their partner" if state.team_game else "")
        )
    if viewer is not None and state.is_out(viewer):
        parts.append("you are out")
    return "; ".join(parts)


def to_svg(state: SmartrixState, viewer: int | None = None, *, pending: int | None = None) -> str:
    """The table as one standalone SVG document (see the module docstring for what it shows).

    Args:
        state: the position.
        viewer: ``None`` for a spectator (no hand before the end), or the seat whose hand is
            drawn (the other hands as their sizes). Every hand is drawn once the game is over.
        pending: a legal action drawn as if played (class ``pending``): the card on its square in
            its rotation (framed in light blue), its place in the hand left empty, the cards it
            would collect framed; for ``pass`` a note in the caption.

    Returns:
        the SVG text, ``viewBox="0 0 W H"`` in user units (a square is :data:`CELL` units).

    Raises:
        ValueError: ``viewer`` is neither ``None`` nor a seat; ``pending`` is not a legal action
            (``IllegalActionError``). TypeError: ``state`` is not a :class:`SmartrixState`.
    """
    pending = _check(state, viewer, pending)
    viewer = None if viewer is None else int(viewer)
    over = state.is_terminal()
    table = state.table()
    on_table = {(r, c): (n, k) for n, k, r, c in table}
    history = state._history
    last = history[-1] if history else None
    placed_at = _placements(state)
    ghosts = {}  # the cards the last move collected, where they lay
    for n in state.last_collected:
        k, r, c = placed_at[n]
        ghosts[(r, c)] = (n, k)
    pend = None if pending is None or pending == state.pass_action else state.decode(pending)
    pend_takes = set()
    if pend is not None:
        assert pending is not None  # pend is its decoding
        taken = set(state.placement_collects(pending))
        pend_takes = {rc for rc, (n, _) in on_table.items() if n in taken}

    # the squares drawn
    pts = list(on_table) + list(ghosts) + ([(0, 0)] if not on_table else [])
    rlo, rhi = _span([r for r, _ in pts])
    clo, chi = _span([c for _, c in pts])
    if state.grid_limit and on_table and not ghosts:
        r0, c0 = state.window_origin()
        rlo, rhi, clo, chi = r0, r0 + state.window - 1, c0, c0 + state.window - 1
    rows, cols = rhi - rlo + 1, chi - clo + 1
    board_w = cols * CELL
    width = max(_MARGIN + board_w + _PAD, _PAD * 2 + 7 * (_HAND_CELL + _GAP))
    bx = _MARGIN + (width - _MARGIN - _PAD - board_w) / 2  # board's left edge
    out: list[str] = []
    hits: list[str] = []

    # caption
    caption = _caption(state, over, bool(history), last, pending)
    y = _PAD
    for line in caption:
        y += _LINE
        out.append(f'<text x="{_PAD}" y="{y - 5}" {_FONT} font-size="15" fill="#fff">{esc(line)}</text>')
    by = y + _MARGIN  # board's top edge

    # table: squares, numbers, cards
    out.append(
        f'<rect x="{_n(bx)}" y="{by}" width="{board_w}" height="{rows * CELL}" fill="{_BACKGROUND}" '
        f'stroke="{_GRIDLINE}"/>'
    )
    grid = []
    for k in range(1, cols):
        gx = _n(bx + k * CELL)
        grid.append(f"M{gx} {by}V{by + rows * CELL}")
    for k in range(1, rows):
        grid.append(f"M{_n(bx)} {by + k * CELL}H{_n(bx + board_w)}")
    if grid:
        out.append(f'<path d="{"".join(grid)}" stroke="{_GRIDLINE}" fill="none"/>')
    for k in range(cols):
        out.append(
            f'<text x="{_n(bx + (k + 0.5) * CELL)}" y="{by - 8}" {_FONT} font-size="13" fill="{_LABEL}" '
            f'text-anchor="middle">{clo + k:+d}</text>'
        )
    for k in range(rows):
        out.append(
            f'<text x="{_n(bx - 6)}" y="{by + (k + 0.5) * CELL + 5}" {_FONT} font-size="13" fill="{_LABEL}" '
            f'text-anchor="end">{rlo + k:+d}</text>'
        )
    if state.grid_limit and not over:
        box = _box(state, on_table)
        if box is not None:
            br0, br1, bc0, bc1 = box
            out.append(
                f'<rect class="box" x="{_n(bx + (bc0 - clo) * CELL + 2)}" y="{by + (br0 - rlo) * CELL + 2}" '
                f'width="{(bc1 - bc0 + 1) * CELL - 4}" height="{(br1 - br0 + 1) * CELL - 4}" fill="none" '
                f'stroke="#fff" stroke-opacity="0.75" stroke-width="2" stroke-dasharray="8 5">'
                f"<title>the 5x5 box: where the 5x5 rule still allows a card</title></rect>"
            )
    last_rc = None if last is None else (last[2], last[3])
    for (r, c), (n, k) in sorted(on_table.items()):
        x, y0 = bx + (c - clo) * CELL, by + (r - rlo) * CELL
        cls = "card last" if (r, c) == last_rc else "card"
        frame = _LAST if (r, c) == last_rc else None
        out.append(_card(x, y0, CELL, n, k, cls, frame=frame))
        if (r, c) in pend_takes:
            out.append(
                f'<rect class="pending collect" x="{_n(x + 1)}" y="{_n(y0 + 1)}" width="{CELL - 2}" '
                f'height="{CELL - 2}" rx="6" fill="none" stroke="{_PENDING}" stroke-width="3" '
                f'stroke-dasharray="6 4"/>'
            )
    for (r, c), (n, k) in sorted(ghosts.items()):
        x, y0 = bx + (c - clo) * CELL, by + (r - rlo) * CELL
        out.append(_card(x, y0, CELL, n, k, "card last collected", opacity=_GHOST_OPACITY))
        dash = "" if (r, c) == last_rc else ' stroke-dasharray="7 4"'
        out.append(
            f'<rect class="last collected" x="{_n(x + 2)}" y="{_n(y0 + 2)}" width="{CELL - 4}" '
            f'height="{CELL - 4}" rx="6" fill="none" stroke="{_LAST}" stroke-width="4"{dash}/>'
        )
    for r, c in _recent_cells(state, on_table):
        if (r, c) == last_rc:
            continue
        x, y0 = bx + (c - clo) * CELL, by + (r - rlo) * CELL
        out.append(
            f'<rect class="recent" x="{_n(x + 3)}" y="{_n(y0 + 3)}" width="{CELL - 6}" height="{CELL - 6}" rx="6" '
            f'fill="none" stroke="{_LAST}" stroke-width="2" stroke-dasharray="6 4"/>'
        )
    if pend is not None:
        n, k, r, c = pend
        x, y0 = bx + (c - clo) * CELL, by + (r - rlo) * CELL
        out.append(_card(x, y0, CELL, n, k, "card pending", frame=_PENDING))
    for r in range(rlo, rhi + 1):
        for c in range(clo, chi + 1):
            x, y0 = bx + (c - clo) * CELL, by + (r - rlo) * CELL
            hits.append(
                hit(
                    "rect",
                    f"cell:{r},{c}",
                    _cell_label(r, c, on_table, ghosts, last_rc),
                    x=_n(x),
                    y=_n(y0),
                    width=CELL,
                    height=CELL,
                )
            )
            if viewer is not None and (r, c) not in on_table and not over:  # a seat's targets: empty squares
                cx, cy = _n(x + CELL / 2), _n(y0 + CELL / 2)
                hits.append(
                    mark(
                        f'<g><circle class="halo" cx="{cx}" cy="{cy}" r="9" fill="{_HALO}"/>'
                        f'<circle class="dot" cx="{cx}" cy="{cy}" r="6.5" fill="{_MARK}" stroke="{_MARK}" '
                        f'stroke-width="2"/></g>'
                    )
                )
    y = by + rows * CELL + _PAD

    # hands
    show = range(state.num_players) if over else ([] if viewer is None else [viewer])
    size = _END_CELL if over else _HAND_CELL
    per_row = max(1, int((width - 2 * _PAD + _GAP) // (size + _GAP)))
    for p in show:
        hand = state.hand(p)
        title = (
            f"Your hand (player {p + 1})" if p == viewer and not over else f"Player {p + 1}'s hand"
        ) + f": {len(hand)} card{'s' if len(hand) != 1 else ''}, {state.hand_value(p)} points"
        y += _LINE
        out.append(f'<text x="{_PAD}" y="{y - 5}" {_FONT} font-size="14" fill="#fff">{esc(title)}</text>')
        for i, n in enumerate(hand):
            x = _PAD + (i % per_row) * (size + _GAP)
            y0 = y + 4 + (i // per_row) * (size + _GAP)
            chosen = pend is not None and pend[0] == n and p == state.current_player
            if chosen:
                out.append(
                    f'<rect class="pending" x="{x}" y="{y0}" width="{_HAND_CELL}" height="{_HAND_CELL}" rx="6" '
                    f'fill="none" stroke="{_PENDING}" stroke-width="2" stroke-dasharray="6 4"/>'
                )
            else:
                out.append(_card(x, y0, size, n, 0, "card hand"))
            if p == viewer and not over:
                hits.append(
                    hit(
                        "rect",
                        f"card:{n}",
                        f"card {n}, {_spots(n)}, in your hand",
                        x=x,
                        y=y0,
                        width=_HAND_CELL,
                        height=_HAND_CELL,
                    )
                )
                hits.append(
                    mark(
                        mark_ring(
                            "rect", _MARK, 2.5, x=x - 4, y=y0 - 4, width=_HAND_CELL + 8, height=_HAND_CELL + 8, rx=8
                        ),
                        mark_ring(
                            "rect", _MARK, 4.5, x=x - 4, y=y0 - 4, width=_HAND_CELL + 8, height=_HAND_CELL + 8, rx=8
                        ),
                    )
                )
        y += 4 + max(1, -(-len(hand) // per_row)) * (size + _GAP)

    # players
    y += 4
    for p in range(state.num_players):
        y += _LINE
        turn = not over and p == state.current_player
        out.append(
            f'<text x="{_PAD if turn else _PAD + 16}" y="{y - 5}" {_FONT} font-size="14" fill="#fff">'
            f"{esc(_player_line(state, p, viewer, over))}</text>"
        )
    height = y + _PAD
    body = f'<rect width="{_n(width)}" height="{height}" fill="{_TABLE}"/>' + "".join(out) + "".join(hits)
    label = "Smartrix table" + ("" if viewer is None else f", seen by player {viewer + 1}")
    return svg_document(width, height, body, label, "board-smartrix")


def _recent_cells(state: SmartrixState, on_table) -> list[tuple[int, int]]:
    """The squares of the cards put down in the last turn of every seat but the one to move
    (:func:`envs.core.svg.recent_plies`: since the mover's last turn; one round once the game is
    over) that still lie there; none when the history cannot be replayed. The same for every
    viewer."""
    history = state._history
    if len(history) < 2:
        return []
    movers = ply_movers(state)
    if movers is None:
        return []
    out = []
    seat = None if state.is_terminal() else int(state.current_player)
    for i in recent_plies(movers, seat):
        h = history[i]
        if h is not None and on_table.get((h[2], h[3]), (None,))[0] == h[0]:
            out.append((h[2], h[3]))
    return out


# ---------------------------------------------------------------------------------- pieces
def _n(x) -> str:
    """A coordinate as short text (``12``, ``12.5``)."""
    if isinstance(x, int):
        return str(x)
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _span(values: list[int]) -> tuple[int, int]:
    """``(lo, hi)``: ``values``' range plus one square each side, widened to at least 7 squares."""
    lo, hi = min(values) - 1, max(values) + 1
    extra = _MIN_SIDE - (hi - lo + 1)
    if extra > 0:
        lo -= extra // 2
        hi += extra - extra // 2
    return lo, hi


def _placements(state: SmartrixState) -> dict[int, tuple[int, int, int]]:
    """Card number -> ``(rotation, row, col)`` where it was put down, from the game's start and
    its moves (public: every card put down stays face up)."""
    start = state.start
    where: dict[int, tuple[int, int, int]] = {}
    if "deck" in start:
        where[start["deck"][HAND_SIZE * state.num_players]] = (0, 0, 0)
    else:
        for n, k, r, c in start["position"]["table"]:
            where[n] = (k, r, c)
    for h in state._history:
        if h is not None:
            where[h[0]] = (h[1], h[2], h[3])
    return where


def _box(state: SmartrixState, on_table) -> tuple[int, int, int, int] | None:
    """Rows and columns ``(r0, r1, c0, c1)`` (inclusive) the 5x5 rule still allows, within one
    square of the table; the centre on an empty table."""
    if not on_table:
        return 0, 0, 0, 0
    box = state.bounding_box()
    assert box is not None  # the table has cards
    rmin, rmax, cmin, cmax = box
    return max(rmax - 4, rmin - 1), min(rmin + 4, rmax + 1), max(cmax - 4, cmin - 1), min(cmin + 4, cmax + 1)


def _spots(n: int) -> str:
    v = _VALUES[n - 1]
    return f"{v} spot{'s' if v != 1 else ''}"


def _card(
    x: float, y: float, size: int, n: int, rot: int, cls: str, frame: str | None = None, opacity: float | None = None
) -> str:
    """Card number ``n`` in rotation ``rot``, its top-left corner at ``(x, y)``: a cream square,
    a spot on each border square it has, its value in the centre and under it, small, its number
    ``#n`` (the number the notation and the move list name: ``15r0@-1,+1``, "card 15"; a group of
    class ``cls`` with ``data-card="n"``); ``frame`` outlines it in that colour; ``opacity`` fades it."""
    pattern = _PATTERNS[n - 1][rot]
    third = size / 3
    rad = third * 0.32
    fade = "" if opacity is None else f' opacity="{opacity}"'
    parts = [
        f'<g class="{cls}" data-card="{n}"{fade}>',
        f'<rect x="{_n(x + 2)}" y="{_n(y + 2)}" width="{size - 4}" height="{size - 4}" rx="5" fill="{_CARD}" '
        f'stroke="{frame or _EDGE}" stroke-width="{4 if frame else 2}"/>',
    ]
    for i, (sr, sc) in enumerate(_SQUARE_RC):
        if pattern >> i & 1:
            parts.append(
                f'<circle cx="{_n(x + (sc + 0.5) * third)}" cy="{_n(y + (sr + 0.5) * third)}" r="{_n(rad)}" '
                f'fill="{_SPOTS[i]}" stroke="{_EDGE}"/>'
            )
    parts.append(
        f'<text x="{_n(x + size / 2)}" y="{_n(y + size * 0.56)}" {_FONT} font-size="{_n(size * 0.28)}" '
        f'font-weight="bold" text-anchor="middle" fill="#000">{_VALUES[n - 1]}</text>'
        f'<text class="card-number" x="{_n(x + size / 2)}" y="{_n(y + size * 0.655)}" {_FONT} '
        f'font-size="{_n(size * 0.13)}" text-anchor="middle" fill="#333">#{n}</text></g>'
    )
    return "".join(parts)


def _cell_label(r: int, c: int, on_table, ghosts, last_rc) -> str:
    where = f"row {r:+d}, column {c:+d}"
    if (r, c) in on_table:
        n, k = on_table[(r, c)]
        return f"{where}: card {n} turned {k}, {_spots(n)}" + (", put down last" if (r, c) == last_rc else "")
    if (r, c) in ghosts:
        return f"{where}: empty, card {ghosts[(r, c)][0]} was collected from here by the last move"
    return f"{where}: empty"


def _caption(state: SmartrixState, over: bool, moved: bool, last, pending) -> list[str]:
    who = "team" if state.team_game else "player"
    if over:
        outcome = state.outcome()
        assert outcome is not None  # the game is over
        scores = state.team_scores()
        ended = f" ({outcome.termination})" if state.resignations else ""  # "... (the other sides resigned)"
        first = f"Game over: {winners_words(state, outcome.winners)}{ended}; {who} scores " + ", ".join(
            str(s) for s in scores
        )
    else:
        p = state.current_player
        team = f" (team {state.team_of(p) + 1})" if state.team_game else ""
        first = f"Turn {state.turn_number + 1}: player {p + 1}{team} to move; pile {state.pile_size}"
        if pending is not None:
            first += f"; trying {state.action_to_string(pending)}"
    lines = [first]
    if not moved:
        second = "No move yet" if "deck" in state.start else "Hand-built position"
    else:
        second = "Last move: " + state.moves()[-1]
        got = state.last_collected
        if got:
            taker = next(q for q in range(state.num_players) if got[0] in state.collected(q))
            second += f"; player {taker + 1} collected {len(got)} cards, {sum(_VALUES[n - 1] for n in got)} points"
    lines.append(second)
    return lines


def _player_line(state: SmartrixState, p: int, viewer, over: bool) -> str:
    mark = "\u25b6 " if not over and p == state.current_player else ""
    you = " (you)" if p == viewer else ""
    team = f", team {state.team_of(p) + 1}" if state.team_game else ""
    coll = len(state.collected(p))
    line = f"{mark}Player {p + 1}{you}{team}: {state.hand_size(p)} in hand; {coll} collected, {state.points(p)} pts"
    if over:
        line += f"; score {state.scores()[p]}"
    if state.is_out(p):
        line += "; out"
    return line
