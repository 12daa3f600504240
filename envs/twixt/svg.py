"""TwixT and Double TwixT boards as SVG, and how a person picks a move on them by clicking.

The board contract of :mod:`envs.core.svg` (``to_svg``, ``action_paths``, ``CONFIRM``,
``status``) for :class:`~envs.twixt.state.TwixtState` (env ids ``twixt_v0`` and
``double_twixt_v0``, every option). Colours are those of the Pillow pictures
(:mod:`envs.twixt.render`).

**What is drawn** (following twixtbot-ui's board): the holes as dots (the four corners do not
exist), each colour's two border lines in its colour between its border row (column) and the playing
area, the row and column labels of the notation on all four sides, the links under the pegs, the
pegs (Double TwixT: each peg carries its seat's letter, ``A`` for players 0 and 1, ``B`` for 2 and
3, as the Pillow picture does), and under the board a caption in players' words
(:func:`status_words`: whose turn, or the result; seats numbered from 1, moves counted from 1), in
Double TwixT the last peg's owner, and for a turned board whom it is turned for. Target
marks (:func:`envs.core.svg.mark`, shown by the room): a small dark green dot on every hole where
the player to move may place a peg (from the game's legal mask: never on the holes behind the
opponent's border lines), a quiet dark green ring (on hover and focus) around a peg with
``links="manual"``; never reaching a border line. The last peg placed has a yellow ring (class ``last``); with
``links="manual"`` a last action that added a link draws a yellow band under that link, one that
removed a link a dashed yellow line where it was (both class ``last``). In Double TwixT the other
pegs of the last turn of every seat but the one to move (the pegs since the mover's last peg: what
the player to move has not seen played; one round once the game is over) have a dashed yellow ring
(class ``recent``), the same for every viewer. With ``links="manual"`` a turn is several actions:
the peg and the link changes of the last completed turn (the other side's, while a turn is under
way) are marked too (class ``recent``: a dashed ring, a dashed band or a dashed line).

**Perspective** (decision). Every viewer sees its own colour connecting top to bottom, as its
observation does: a spectator (``viewer=None``) and a red seat (0, 2) see the board as it is (row
1 at the top, column ``a`` on the left); a black seat (1, 3) sees it *turned* a quarter turn
counter-clockwise, so black's border columns ``a`` and the last one lie at the bottom and the top.
The observation transposes black's board instead; a transposition is a mirror image, which no seat
at a real table ever sees, so the drawing uses the rotation (the board as seen from black's side of
the table). The labels follow the holes: on a turned board the row numbers run 1, 2, ... from left
to right along the top and bottom edges and the column letters ``a``, ``b``, ... from the bottom up
along the left and right edges. Keys and notation are always absolute (``c5`` is ``c5`` whoever
looks).

**Clicks** (:func:`action_paths`). Every hole (not the corners) is a hit shape whose key is its
name (``"c5"``), also the occupied holes and the opponent's border holes, so that a screen reader
can read every hole; its ``aria-label`` says what is there (``"c5, red peg"``, ``"a7, black
border, empty"``, ``"d5, black peg, seat B, last move"``). Paths:

* a placement ``c5``: ``("c5",)`` (kind ``place``);
* the swap: ``("swap",)`` (kind ``swap``), a button (no hole has that key);
* Double TwixT, a placement claiming the Privilege ``c5!``: ``("claim Privilege", "c5")`` (kind
  ``privilege``): the button first, then the hole. The button comes first so that an ordinary
  move stays one click (the other order would make ``("c5",)`` both a complete path and the
  prefix of ``("c5", "claim Privilege")``, and every move would ask whether to claim);
* ``links="manual"``: adding a link ``+c5e6`` is ``("c5", "e6")`` or ``("e6", "c5")`` (kind
  ``add-link``), removing one ``-c5e6`` likewise (kind ``remove-link``): click its two pegs, in
  either order. Additions (after the placement) and removals (before it) are never legal at the
  same time, and they start on a peg while a placement starts on an empty hole, so no path is the
  prefix of another. ``end`` is the button ``("end turn",)`` (kind ``end``), Double TwixT's
  ``end!`` the button ``("end turn, claim Privilege",)`` (kind ``privilege``).

Every action has its own path, so the page never cycles between actions; :data:`CONFIRM` is
``False`` (a click plays). ``pending`` still draws any legal action as played (class
``pending``: the new peg translucent with a dashed ring, new links translucent, a removed link
dashed).

Size: ``cell`` user units between neighbouring holes, ``600 // (S + 1)`` clamped to 20..60 and
made even (24x24: 24, the board 600 units wide; 8x8: 60, 540 wide; 48x48: 20, 980 wide), so every
board size from 8 to 24 is about 540-600 units wide, readable when the page scales it to ~600 px.
"""

from __future__ import annotations

import re
import textwrap

from envs.core.checks import is_int
from envs.core.errors import IllegalActionError
from envs.core.svg import HIT_ATTRIBUTES, MovePaths, esc, mark, mark_dot, mark_ring, recent_plies, svg_document
from envs.twixt.geometry import COLOUR_NAMES
from envs.twixt.notation import column_label, hole_name, parse_hole
from envs.twixt.render import BACKGROUND_RGB, BLACK_RGB, HOLE_RGB, LAST_RGB, RED_RGB, last_peg_hole

__all__ = [
    "to_svg",
    "action_paths",
    "CONFIRM",
    "status",
    "SWAP",
    "CLAIM",
    "END",
    "END_CLAIM",
    "MARK_COLOURS",
    "is_turned",
    "cell_size",
    "status_words",
]

#: A click plays at once: every legal action has a path of its own (see the module docstring).
CONFIRM = False

#: Keys of the buttons (no hole carries them): the swap, a placement claiming the Privilege
#: (Double TwixT, first key of ``c5!``), and with ``links="manual"`` ``end`` and ``end!``.
SWAP = "swap"
CLAIM = "claim Privilege"
END = "end turn"
END_CLAIM = "end turn, claim Privilege"

_SEATS = ("A", "A", "B", "B")
_LINK_TEXT = re.compile(r"([+-])([a-z]+[0-9]+)([a-z]+[0-9]+)")


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


_C_RED, _C_BLACK, _C_BG, _C_HOLE, _C_LAST = (_hex(c) for c in (RED_RGB, BLACK_RGB, BACKGROUND_RGB, HOLE_RGB, LAST_RGB))
_C_PEG = (_C_RED, _C_BLACK)
_C_MARK = "#1d5e34"
#: Each target marker's colour and what it is drawn on (``envs.core.svg`` contract; at least 3:1):
#: a dot on an empty hole, a ring around a peg (links="manual"), on the board or the last peg's ring.
MARK_COLOURS = {"on the board": (_C_MARK, _C_BG), "on the last peg's ring": (_C_MARK, _C_LAST)}
_PENDING_LINK = ' stroke-opacity="0.55"'  # a link the pending action adds


def _f(x: float) -> str:
    """A coordinate as short SVG text (at most 2 decimals)."""
    if float(x).is_integer():
        return str(int(x))
    return f"{x:.2f}".rstrip("0").rstrip(".")


def cell_size(board_size: int) -> int:
    """User units between neighbouring holes on a ``board_size`` board: ``600 // (S + 1)``
    clamped to 20..60, made even (24 -> 24, 8 -> 60). The drawing is ``(S + 1) * cell`` wide."""
    cell = max(20, min(60, 600 // (board_size + 1)))
    return cell - cell % 2


def is_turned(viewer: int | None) -> bool:
    """Whether ``viewer`` sees the board turned (a black seat: 1 or 3); a spectator (``None``)
    and red seats see it as it is."""
    return viewer is not None and viewer % 2 == 1


def _check_viewer(state, viewer) -> None:
    if viewer is None:
        return
    if not is_int(viewer) or not 0 <= viewer < state.num_players:
        raise ValueError(f"viewer must be None (a spectator) or a seat 0..{state.num_players - 1}, got {viewer!r}")


def _check_legal(state, action, what: str) -> int:
    if not is_int(action):
        raise ValueError(f"{what} must be an action index (int), got {action!r}")
    a = int(action)
    if not 0 <= a < state.num_actions:
        raise IllegalActionError(f"{what} {a} is out of range: expected 0 <= action < {state.num_actions}")
    if state.is_terminal() or not state.legal_action_mask()[a]:
        raise IllegalActionError(
            f"{what} {a} ({state.action_to_string(a)}) is not legal here"
            + (" (the game is over)" if state.is_terminal() else "")
        )
    return a


def _peg_owners(state) -> dict[int, int]:
    """Double TwixT: ``hole -> player`` who placed each peg, from the history alone (the seat to
    move changes by one, or by two after a Privilege claim; with ``links="manual"`` only at
    ``end`` / ``end!``)."""
    n = state.board_size**2
    manual = state.linking == "manual"
    end = state.num_actions - 2 if manual else -1  # 4 players: end, end! are the last two actions
    owners: dict[int, int] = {}
    p = 0
    for a in state.history:
        if a < n:
            owners[a] = p
            if not manual:
                p = (p + 1) % 4
        elif manual:
            if a == end:
                p = (p + 1) % 4
            elif a == end + 1:
                p = (p + 2) % 4
        elif a > n:  # placement with a Privilege claim
            owners[a - n - 1] = p
            p = (p + 2) % 4
    return owners


def _last_turn(state) -> tuple[set[int], list[tuple[tuple, str]]]:
    """``links="manual"``: the peg holes and the link changes (``((end, end), "+" or "-")``) of the
    last completed turn (up to its ``end turn``), the other side's while a turn is under way."""
    s = state.board_size
    texts = [state.action_to_string(a) for a in state.history]
    ends = [i for i, t in enumerate(texts) if t in ("end", "end!", END, END_CLAIM)]
    if not ends:
        return set(), []
    first = ends[-2] + 1 if len(ends) > 1 else 0
    pegs, changes = set(), []
    for i in range(first, ends[-1]):
        a, m = state.history[i], _LINK_TEXT.fullmatch(texts[i])
        if m:
            changes.append((tuple(sorted(parse_hole(h, s) for h in m.group(2, 3))), m.group(1)))
        elif a < s * s:
            pegs.add(a)
        elif a > s * s and not m and texts[i].endswith("!"):  # a placement claiming the Privilege
            pegs.add(a - s * s - 1)
    return pegs, changes


def _recent_pegs(state) -> set[int]:
    """Double TwixT: the holes of the pegs placed in the last turn of every seat but the one to
    move (:func:`envs.core.svg.recent_plies` over the pegs: since the mover's last peg; one round
    once the game is over). The same for every viewer."""
    owners = _peg_owners(state)
    holes = list(owners)
    seat = None if state.is_terminal() else int(state.current_player)
    return {holes[i] for i in recent_plies(list(owners.values()), seat)}


# ---------------------------------------------------------------------------------- clicks
def action_paths(state, action: int) -> MovePaths:
    """How the legal ``action`` (state's absolute frame) is chosen with clicks (module docstring).

    Args:
        state: a :class:`~envs.twixt.state.TwixtState`, game not over.
        action: a legal action index.

    Returns:
        :class:`~envs.core.svg.MovePaths`: ``(("c5",),)`` kind ``place``; ``(("swap",),)`` kind
        ``swap``; ``(("claim Privilege", "c5"),)`` kind ``privilege``; ``links="manual"``:
        ``(("c5", "e6"), ("e6", "c5"))`` kinds ``add-link`` / ``remove-link``, ``(("end turn",),)``
        kind ``end``, ``(("end turn, claim Privilege",),)`` kind ``privilege``.

    Raises:
        ValueError: ``action`` is not an int; IllegalActionError (a ``ValueError``): it is out of
            range or not legal in ``state``.
    """
    a = _check_legal(state, action, "action")
    text = state.action_to_string(a)
    if text == "swap":
        return MovePaths(((SWAP,),), "swap")
    if text == "end":
        return MovePaths(((END,),), "end")
    if text == "end!":
        return MovePaths(((END_CLAIM,),), "privilege")
    if text.endswith("!"):
        return MovePaths(((CLAIM, text[:-1]),), "privilege")
    m = _LINK_TEXT.fullmatch(text)
    if m:
        p, q = m.group(2), m.group(3)
        return MovePaths(((p, q), (q, p)), "add-link" if m.group(1) == "+" else "remove-link")
    return MovePaths(((text,),), "place")


def status(state, viewer: int | None) -> str:
    """The game's phase in one line, ``""`` once the game is over: with ``links="manual"`` the
    step of the turn (``"before the placement: remove own links or place a peg"``, ``"peg
    placed on c5: add links or end the turn"``), ``"swap available"`` while black may swap, and
    in Double TwixT the teams whose Privilege is unclaimed (``"Privilege unclaimed: red,
    black"``), joined by ``"; "``.

    Raises:
        ValueError: ``viewer`` is neither ``None`` nor a seat.
    """
    _check_viewer(state, viewer)
    if state.is_terminal():
        return ""
    parts = []
    if state.linking == "manual":
        if state.placed:
            parts.append(f"peg placed on {hole_name(*state.last_placed)}: add links or end the turn")
        else:
            parts.append("before the placement: remove own links or place a peg")
    if state.swap_available():
        parts.append("swap available")
    if state.num_players == 4:
        left = [COLOUR_NAMES[t] for t in (0, 1) if state.privilege_available(t)]
        parts.append(f"Privilege unclaimed: {', '.join(left) if left else 'none'}")
    return "; ".join(parts)


def _player_name(state, pl: int) -> str:
    """A seat for people, numbered from 1 as the room's seat list does: ``"player 1 (red)"``,
    ``"player 3 (red B)"`` (the API's seats and :meth:`~envs.twixt.state.TwixtState.status_line`
    count from 0)."""
    return f"player {pl + 1} ({state.seat_name(pl)})"


def _moves_words(n: int) -> str:
    """``"no moves"``, ``"1 move"``, ``"16 moves"`` (plies, as players count them)."""
    return "no moves" if n == 0 else f"{n} move" + ("" if n == 1 else "s")


def status_words(state) -> str:
    """The caption's first line, in players' words: ``"move 3: player 1 (red) to move"``,
    ``"move 5: player 3 (red B) to move; Privilege unclaimed: black"``, ``"game over after 16
    moves: red won (red connected its borders)"``, ``"game over after 4 moves: draw (neither side
    can still connect)"``. Seats are numbered from 1 and moves counted as players count them (the
    rules' :meth:`~envs.twixt.state.TwixtState.status_line`, what records and the text board show,
    keeps the API's seat numbers and plies)."""
    ply = state.turn_number
    out = state.outcome()
    if out is not None:
        why = out.termination
        if out.winners and len(out.winners) < state.num_players:
            result = f"{COLOUR_NAMES[out.winners[0] % 2]} won"
        else:
            result = "draw"
        return f"game over after {_moves_words(ply)}: {result} ({why})"
    text = f"move {ply + 1}: {_player_name(state, state.current_player)} to move"
    if state.linking == "manual":
        text += (
            f", placed {hole_name(*state.last_placed)}: add links or end" if state.placed else ", before the placement"
        )
    if state.swap_available():
        text += " (swap available)"
    if state.num_players == 4:
        left = [COLOUR_NAMES[t] for t in (0, 1) if state.privilege_available(t)]
        text += f"; Privilege unclaimed: {', '.join(left) if left else 'none'}"
    return text


# ---------------------------------------------------------------------------------- drawing
def to_svg(state, viewer: int | None = None, *, pending: int | None = None, perspective: int | None = None) -> str:
    """The position as one standalone SVG document (see the module docstring for what is drawn).

    Args:
        state: a :class:`~envs.twixt.state.TwixtState` (any size, rules, link mode, 2 or 4 players).
        viewer: ``None`` (a spectator) or a seat; a black seat sees the board turned (black's
            borders at top and bottom). TwixT hides nothing, so only the perspective depends on it.
        pending: a legal action drawn as if played (class ``pending``), or ``None``.
        perspective: the seat whose side of the table the board is drawn from (a black seat:
            turned), ``None`` for the viewer's; a person holding several seats keeps their first
            seat's, so the board does not turn between their moves.

    Returns:
        SVG text, ``(S + 1) * cell`` user units wide (:func:`cell_size`; 600 for 24x24) and as
        high plus the caption; the same arguments give the same text.

    Raises:
        ValueError: ``viewer`` or ``perspective`` is neither ``None`` nor a seat; ``pending`` is
            not an int.
        IllegalActionError (a ``ValueError``): ``pending`` is out of range or not legal.
    """
    _check_viewer(state, viewer)
    _check_viewer(state, perspective)
    side = viewer if perspective is None else int(perspective)
    s = state.board_size
    n = s * s
    shown = state
    if pending is not None:
        pending = _check_legal(state, pending, "pending action")
        shown = state.clone()
        shown.apply(pending)
    turned = is_turned(side)
    cell = cell_size(s)
    half = cell // 2
    margin = cell
    width = (s + 1) * cell
    four = state.num_players == 4

    if turned:

        def xy(r, c):
            return margin + r * cell, margin + (s - 1 - c) * cell
    else:

        def xy(r, c):
            return margin + c * cell, margin + r * cell

    out = [f'<rect class="background" x="0" y="0" width="{width}" height="{{HEIGHT}}" fill="{_C_BG}"/>']
    # Border lines: half-way between each border row (column) and the next one, in the owner's colour.
    lo, hi = margin + half, margin + (s - 2) * cell + half
    bw = _f(max(2, cell / 8))
    vertical_owner = 1 if turned else 0  # the colour whose borders are at the top and bottom
    for colour, border in (
        (vertical_owner, ((lo, lo, hi, lo), (lo, hi, hi, hi))),
        (1 - vertical_owner, ((lo, lo, lo, hi), (hi, lo, hi, hi))),
    ):
        for x1, y1, x2, y2 in border:
            out.append(
                f'<line class="border {COLOUR_NAMES[colour]}" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" '
                f'stroke="{_C_PEG[colour]}" stroke-width="{bw}" stroke-linecap="round"/>'
            )
    # Labels on the four sides: the notation's letters and numbers of the holes they stand by.
    fs = _f(max(9.0, min(16.0, cell * 0.45)))
    out.append(
        f'<g class="labels" font-family="sans-serif" font-size="{fs}" fill="{_C_HOLE}" '
        f'text-anchor="middle" dominant-baseline="central">'
    )
    far = width - half
    for i in range(s):
        # display column i and display row i
        col_text = str(i + 1) if turned else column_label(i)
        row_text = column_label(s - 1 - i) if turned else str(i + 1)
        x = y = margin + i * cell
        out.append(
            f'<text x="{x}" y="{half}">{col_text}</text><text x="{x}" y="{far}">{col_text}</text>'
            f'<text x="{half}" y="{y}">{row_text}</text><text x="{far}" y="{y}">{row_text}</text>'
        )
    out.append("</g>")
    # Holes (no corners).
    dot = _f(max(1.5, cell * 0.09))
    corners = {0, s - 1, n - s, n - 1}
    out.append(f'<g class="holes" fill="{_C_HOLE}">')
    for p in range(n):
        if p not in corners:
            x, y = xy(*divmod(p, s))
            out.append(f'<circle cx="{x}" cy="{y}" r="{dot}"/>')
    out.append("</g>")
    # Links (under the pegs); the last action's link highlighted; pending links translucent.
    lw = _f(max(2, cell / 6))
    before = {(a, b): col for a, b, col in state.links()}
    after = {(a, b): col for a, b, col in shown.links()} if pending is not None else before
    last = state.history[-1] if state.history else None
    last_link = None
    if last is not None and state.linking == "manual" and last > n:
        m = _LINK_TEXT.fullmatch(state.action_to_string(last))
        if m:
            ends = tuple(sorted(parse_hole(h, s) for h in m.group(2, 3)))
            last_link = (ends, m.group(1))
    if last_link is not None:
        (a, b), sign = last_link
        (x1, y1), (x2, y2) = xy(*a), xy(*b)
        if sign == "+":
            out.append(
                f'<line class="last" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{_C_LAST}" '
                f'stroke-width="{_f(max(2, cell / 6) + max(4, cell / 6))}" stroke-linecap="round"/>'
            )
        else:
            out.append(
                f'<line class="last removed" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{_C_LAST}" '
                f'stroke-width="{lw}" stroke-dasharray="{_f(cell / 6)} {_f(cell / 6)}" '
                f'stroke-linecap="round"/>'
            )
    turn_pegs: set[int] = set()
    if state.linking == "manual":  # the links of the last completed turn (the other side's)
        turn_pegs, changes = _last_turn(state)
        for (a, b), sign in changes:
            if (a, b) == (last_link[0] if last_link else None) or (sign == "+") != ((a, b) in before):
                continue  # drawn as the last action, or undone since
            (x1, y1), (x2, y2) = xy(*a), xy(*b)
            dash = f'stroke-dasharray="{_f(cell / 4)} {_f(cell / 8)}"'
            width_ = _f(max(2, cell / 6) + max(4, cell / 6)) if sign == "+" else lw
            out.append(
                f'<line class="recent{" removed" if sign == "-" else ""}" x1="{x1}" y1="{y1}" x2="{x2}" '
                f'y2="{y2}" stroke="{_C_LAST}" stroke-width="{width_}" {dash} stroke-linecap="round"/>'
            )
    for (a, b), col in after.items():
        (x1, y1), (x2, y2) = xy(*a), xy(*b)
        new = (a, b) not in before
        out.append(
            f'<line class="link {COLOUR_NAMES[col]}{" pending" if new else ""}" x1="{x1}" y1="{y1}" '
            f'x2="{x2}" y2="{y2}" stroke="{_C_PEG[col]}" stroke-width="{lw}" stroke-linecap="round"'
            f"{_PENDING_LINK if new else ''}/>"
        )
    for (a, b), col in before.items():
        if (a, b) not in after:  # removed by the pending action
            (x1, y1), (x2, y2) = xy(*a), xy(*b)
            out.append(
                f'<line class="link {COLOUR_NAMES[col]} pending removed" x1="{x1}" y1="{y1}" x2="{x2}" '
                f'y2="{y2}" stroke="{_C_PEG[col]}" stroke-width="{lw}" stroke-opacity="0.6" '
                f'stroke-dasharray="{_f(cell / 5)} {_f(cell / 5)}"/>'
            )
    # Pegs, the last peg's ring, seat letters.
    pegs_before = state.pegs().ravel().tolist()
    pegs = shown.pegs().ravel().tolist() if pending is not None else pegs_before
    owners = _peg_owners(shown) if four else {}
    last_rc = last_peg_hole(state)
    last_hole = None if last_rc is None else last_rc[0] * s + last_rc[1]
    recent = (_recent_pegs(state) if four else set()) | turn_pegs
    recent.discard(last_hole)
    pr = cell * 0.3
    prs = _f(pr)
    letter = _f(pr * 1.15)
    for p in [p for p, v in enumerate(pegs) if v]:
        x, y = xy(*divmod(p, s))
        colour = pegs[p] - 1
        if p == last_hole and pegs_before[p]:
            out.append(
                f'<circle class="last" cx="{x}" cy="{y}" r="{_f(pr + max(2, cell * 0.12))}" fill="none" '
                f'stroke="{_C_LAST}" stroke-width="{_f(max(2, cell * 0.1))}"/>'
            )
        if p in recent and pegs_before[p]:
            out.append(
                f'<circle class="recent" cx="{x}" cy="{y}" r="{_f(pr + cell * 0.1)}" fill="none" '
                f'stroke="{_C_LAST}" stroke-width="{_f(cell * 0.05)}" '
                f'stroke-dasharray="{_f(cell / 8)} {_f(cell / 12)}"/>'
            )
        new = pegs[p] != pegs_before[p]
        extra = (
            (
                f' fill-opacity="0.6" stroke="{_C_LAST}" stroke-dasharray="{_f(cell / 10)} {_f(cell / 12)}" '
                f'stroke-width="{_f(max(1.5, cell / 16))}"'
            )
            if new
            else ' stroke="#fafafa" stroke-width="1"'
        )
        out.append(
            f'<circle class="peg {COLOUR_NAMES[colour]}{" pending" if new else ""}" cx="{x}" cy="{y}" '
            f'r="{prs}" fill="{_C_PEG[colour]}"{extra}/>'
        )
        if four and p in owners:
            out.append(
                f'<text class="seat" x="{x}" y="{y}" font-family="sans-serif" font-size="{letter}" '
                f'font-weight="bold" fill="#ffffff" text-anchor="middle" dominant-baseline="central">'
                f"{_SEATS[owners[p]]}</text>"
            )
    # Caption under the board.
    board_h = width
    caption = [status_words(state)]
    if four and last_hole is not None and last_hole in owners:
        caption.append(f"last peg: {hole_name(*divmod(last_hole, s))}, {_player_name(state, owners[last_hole])}")
    if pending is not None:
        caption.append(f"pending: {state.action_to_string(pending)} (not played yet)")
    if turned:
        caption.append(f"board turned for {state.seat_name(side)}: black connects top to bottom")
    cf = max(12.0, min(16.0, cell * 0.55))
    chars = max(20, int(width / (0.56 * cf)))
    lines = [w for line in caption for w in textwrap.wrap(line, chars)]
    step = cf * 1.3
    # room for as many lines as the caption of any position of this game has (the status up to two
    # lines, Double TwixT's last peg, the turned board's line, a pending move's), so that the drawing
    # keeps its height from move to move and a page that scales it to its box never moves the board
    reserved = 2 + four + turned + (pending is not None)
    height = board_h + max(len(lines), reserved) * step + cf * 0.4
    out.append(f'<g class="caption" font-family="sans-serif" font-size="{_f(cf)}" fill="#3c3223" text-anchor="middle">')
    for i, line in enumerate(lines):
        out.append(f'<text x="{_f(width / 2)}" y="{_f(board_h + (i + 0.8) * step)}">{esc(line)}</text>')
    out.append("</g>")
    # Hit shapes on top: one square per hole, centred on it, each followed by its mark (a ring
    # inside the hole's square, clear of the border lines; the same for every viewer).
    marks = not state.is_terminal()
    manual = state.linking == "manual"
    placeable = state.legal_action_mask()[:n] if marks else ()  # action p places a peg on hole p
    dot_mark = cell * 0.12  # a little larger than the hole's own dot (0.09): the hole turns green
    out.append('<g class="hits">')
    for p in range(n):
        if p in corners:
            continue
        r, c = divmod(p, s)
        x, y = xy(r, c)
        # as envs.core.svg.hit("rect", ...) writes it, without escaping the numbers (the hot loop)
        out.append(
            f'<rect {HIT_ATTRIBUTES} data-key="{esc(hole_name(r, c))}" '
            f'aria-label="{esc(_hole_label(s, pegs, pegs_before, p, owners, last_hole))}" '
            f'x="{x - half}" y="{y - half}" width="{cell}" height="{cell}"/>'
        )
        if marks and pegs[p] and manual:  # links="manual": a peg is clicked to add or remove a link
            out.append(
                mark(
                    mark_ring("circle", _C_MARK, cell * 0.06, cx=x, cy=y, r=cell * 0.38),
                    mark_ring("circle", _C_MARK, cell * 0.07, cx=x, cy=y, r=cell * 0.4),
                    quiet=True,
                )
            )
        elif marks and not pegs[p] and placeable[p]:
            # an empty hole the player to move may place on (the game's own legal mask: never a
            # hole behind the opponent's border lines); never selected, a placement is one click
            out.append(mark(mark_dot(x, y, dot_mark, _C_MARK)))
    out.append("</g>")
    body = "".join(out).replace("{HEIGHT}", _f(height), 1)
    name = "Double TwixT" if four else "TwixT"
    label = f"{name} {s}x{s} position"
    if turned:
        label += f", seen by {state.seat_name(side)} (turned: black connects top to bottom)"
    return svg_document(width, float(_f(height)), body, f"{label}. {status_words(state)}", "board-twixt")


def _hole_label(s: int, pegs, pegs_before, p: int, owners: dict, last_hole) -> str:
    """The ``aria-label`` of hole ``p``'s hit shape: ``"c5, red peg"``, ``"a7, black border, empty"``,
    ``"d5, black peg, seat B, last move"`` (``pegs``: the drawn position, ``pegs_before``: the
    state's, flat ``S * S`` arrays)."""
    r, c = divmod(p, s)
    parts = [hole_name(r, c)]
    if r in (0, s - 1):
        parts.append("red border")
    elif c in (0, s - 1):
        parts.append("black border")
    v = pegs[p]
    if v:
        parts.append(f"{COLOUR_NAMES[v - 1]} peg")
        if p in owners:
            parts.append(f"seat {_SEATS[owners[p]]}")
        if v != pegs_before[p]:
            parts.append("pending")
        elif p == last_hole:
            parts.append("last move")
    else:
        parts.append("empty")
    return ", ".join(parts)
