"""Boards as SVG, and how a person picks a move on them: the contract of ``envs/<game>/svg.py``.

Every game draws itself for people in a module ``envs/<game>/svg.py`` (its path declared once, in
``GameInfo.board``) that exports:

* ``to_svg(state, viewer=None, *, pending=None) -> str``: the position as one standalone SVG
  document (the play room shows it, the documentation's pictures are made with it). A drawing
  that turns with the viewer (TwixT) also takes ``perspective=None`` (see below).

  - ``viewer``: ``None`` is a spectator, who sees only what is public until the game is over
    (unlike ``to_text(None)``, which may print every hand for logs); a seat number draws exactly
    what that seat may see (as ``to_text(seat)``): a hidden hand is drawn as its size only, the
    order of a bag or pile never. Perspective belongs to the viewer too (TwixT turns the board so
    the viewer's colour is at the bottom).
  - ``perspective`` (optional keyword, only for a drawing that turns with the viewer): the seat
    whose side of the table the board is drawn from, ``None`` for the viewer's. A person holding
    several seats sees each mover's hand (``viewer``) but keeps one orientation (their first
    seat's), so the board does not turn under the pointer between their moves. A module whose
    ``to_svg`` lacks the keyword draws the same board for every seat (:attr:`BoardUI.perspective`
    is ``False``), and :meth:`GameState.to_svg` ignores the argument for it.
  - ``pending``: a legal action (state's absolute frame) drawn as if played, with the class
    ``pending``, for the room's preview before a confirmation. It reveals nothing that playing the
    move would reveal later (no card or tile drawn from a bag).
  - the last move is drawn highlighted (class ``last``), with inline attributes so that a
    static picture shows it too; a game where several plies pass between a seat's turns (more
    than two seats, or several plies a turn) also marks, more lightly (class ``recent``), the
    other plies of the last turn of every seat but the one to move (:func:`recent_plies` for the
    seat to move: what its player has not seen played since their last turn; one round once the
    game is over), the same for every viewer (a drawing differs between viewers only by what
    they may see and by perspective);
  - every element a person can click to choose a move is a *hit shape* (``class="hit"``) with a
    ``data-key`` attribute (the *key*, see below) and an ``aria-label`` saying what it is. Hit
    shapes are drawn on top, filled but invisible (``fill="#fff" fill-opacity="0"``) so the whole
    area takes clicks; the room's stylesheet marks them (classes ``target``, ``target-KIND``,
    ``selected`` added by the page), nothing in the SVG depends on those classes;
  - a hit shape whose key can be a target is followed at once (its next sibling) by its *mark*
    (:func:`mark`): a group drawn hidden (``visibility="hidden"``, no pointer events) holding a
    small target marker (a dot on an empty place, a ring around a piece or tile: never a box,
    never a tint, never over a border line or a piece) and the ring that marks it selected. The
    room's stylesheet shows the marker of a target and the ring of a selected key (``+ .mark``),
    so a static picture shows neither. Each marker's colour has a contrast of at least
    :data:`MIN_CONTRAST` (3:1, WCAG) against what it is drawn on: the module declares the pairs
    in ``MARK_COLOURS`` (``{place: (marker colour, background colour)}``), the tests check them
    (:func:`contrast_ratio`). A mark with the class ``quiet`` shows its marker on hover and focus
    only, and all at once while something is selected (TwixT's hundreds of empty holes, Ataxx's
    movable stones);
  - no script, no external reference, no ``foreignObject``; every text goes through :func:`esc`;
    the same state and arguments give the same text (deterministic, so it can be tested).

* ``action_paths(state, action) -> MovePaths``: how a legal action is chosen with clicks. A
  *path* is the sequence of keys clicked for it, e.g. Ataxx ``("c3", "d5")`` (source, then
  target); a clone into ``b2`` has one path per own stone next to ``b2``. Several actions may share
  one path: the page then cycles through them (the Tantrix rotations of one tile on one space,
  each shown with ``pending``) before the confirmation. A key that is not the ``data-key`` of any
  hit shape is offered as a button whose text is the key (``"swap"``, ``"pass"``,
  ``"claim Privilege"``), so every legal action can be chosen even by a game that draws no hit
  shape. An action with no path (``MovePaths(())``) plays itself when it is the only legal one (a
  forced pass); otherwise the page offers it as a button labelled with its notation.

* ``CONFIRM: bool``: whether a completed path is previewed (``pending``) and waits for a
  confirmation before it is sent (Tantrix, Smartrix: yes; Ataxx, TwixT: a click plays).

* ``status(state, viewer) -> str``: one line about the game's phase that the move list and the
  result do not say (Tantrix: "forced moves before the free move"), ``""`` when there is none.

Consumers reach them through the state: ``state.board_ui()`` returns a :class:`BoardUI` (a plain
text drawing, :func:`text_board`, for a game that declares no module), so nothing outside the
game's package names the module.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING
from xml.sax.saxutils import escape

if TYPE_CHECKING:
    from envs.core.state import GameState

__all__ = [
    "BoardUI",
    "MovePaths",
    "load_board_ui",
    "text_board",
    "esc",
    "svg_document",
    "hit",
    "mark",
    "mark_dot",
    "mark_ring",
    "HIT_ATTRIBUTES",
    "MIN_CONTRAST",
    "contrast_ratio",
    "relative_luminance",
    "blend",
    "ply_movers",
    "recent_plies",
    "winners_words",
]

#: Attributes of every hit shape: filled (so the whole area takes clicks) but invisible.
HIT_ATTRIBUTES = 'class="hit" fill="#fff" fill-opacity="0" pointer-events="all"'


@dataclass(frozen=True)
class MovePaths:
    """How one legal action is chosen with clicks.

    Attributes:
        paths: the click sequences (tuples of keys) that choose the action; ``()`` for an action
            that plays itself when it is the only legal one.
        kind: a word for the page's stylesheet (class ``target-KIND`` on the last key's hit
            shape), e.g. ``"clone"`` or ``"jump"``; ``""`` for none.
    """

    paths: tuple[tuple[str, ...], ...]
    kind: str = ""

    def __post_init__(self):
        if not isinstance(self.paths, tuple) or not all(
            isinstance(p, tuple) and p and all(isinstance(k, str) and k for k in p) for p in self.paths
        ):
            raise TypeError(
                f"MovePaths.paths must be a tuple of non-empty tuples of non-empty strings, got {self.paths!r}"
            )
        if not isinstance(self.kind, str) or not all(c.isalnum() or c == "-" for c in self.kind):
            raise TypeError(f"MovePaths.kind must be a word of letters, digits and '-', got {self.kind!r}")


@dataclass(frozen=True)
class BoardUI:
    """The exports of a game's ``svg`` module (see the module docstring).

    Attributes:
        to_svg: ``f(state, viewer=None, *, pending=None) -> str``.
        action_paths: ``f(state, action) -> MovePaths``.
        confirm: whether a completed path waits for a confirmation.
        status: ``f(state, viewer) -> str``.
        module: the module's dotted path (``""`` for the plain text drawing).
        perspective: whether ``to_svg`` takes the ``perspective`` keyword (a drawing that turns
            with the viewer).
    """

    to_svg: Callable[..., str]
    action_paths: Callable[[GameState, int], MovePaths]
    confirm: bool
    status: Callable[[GameState, int | None], str]
    module: str = ""
    perspective: bool = False


_CACHE: dict[str, BoardUI] = {}


def load_board_ui(module: str) -> BoardUI:
    """The :class:`BoardUI` exported by the module at dotted path ``module`` (cached).

    Raises:
        ImportError: the module does not exist.
        TypeError: it lacks ``to_svg``, ``action_paths``, ``CONFIRM`` or ``status``, or one has
            the wrong kind (the message names the module and what is wrong).
    """
    if module in _CACHE:
        return _CACHE[module]
    mod = importlib.import_module(module)
    names = ("to_svg", "action_paths", "CONFIRM", "status")
    missing = [n for n in names if not hasattr(mod, n)]
    if missing:
        raise TypeError(f"board module {module} must export {', '.join(names)}; it lacks {', '.join(missing)}")
    if not all(callable(getattr(mod, n)) for n in ("to_svg", "action_paths", "status")) or not isinstance(
        mod.CONFIRM, bool
    ):
        raise TypeError(
            f"board module {module}: to_svg, action_paths and status must be functions and CONFIRM "
            f"a bool, got CONFIRM={mod.CONFIRM!r}"
        )
    try:
        takes_perspective = "perspective" in inspect.signature(mod.to_svg).parameters
    except (TypeError, ValueError):  # a builtin without a signature
        takes_perspective = False
    ui = BoardUI(mod.to_svg, mod.action_paths, mod.CONFIRM, mod.status, module, takes_perspective)
    _CACHE[module] = ui
    return ui


# ---------------------------------------------------------------------------------- drawing helpers
def esc(text) -> str:
    """``str(text)`` escaped for SVG text and attribute values (``& < > " '``)."""
    return escape(str(text), {'"': "&quot;", "'": "&#39;"})


def svg_document(width: float, height: float, body: str, label: str, css_class: str = "") -> str:
    """A standalone SVG document ``width`` x ``height`` user units (pixels at scale 1) around
    ``body`` (SVG elements), with ``role="img"``, ``aria-label`` and ``<title>`` set to ``label``
    (escaped here) and the classes ``board`` and ``css_class``."""
    cls = f"board {css_class}".strip()
    w, h = _num(width), _num(height)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {w} {h}" width="{w}" height="{h}" '
        f'class="{esc(cls)}" role="img" aria-label="{esc(label)}"><title>{esc(label)}</title>{body}</svg>'
    )


def hit(shape: str, key: str, label: str, **attributes) -> str:
    """One hit shape: ``<shape ...>`` (``"rect"``, ``"circle"``, ``"polygon"``, ``"path"``) with
    :data:`HIT_ATTRIBUTES`, ``data-key=key``, ``aria-label=label`` and the geometry in
    ``attributes`` (``cx=10, cy=10, r=5``; an underscore in a name becomes ``-``)."""
    geometry = " ".join(
        f'{k.replace("_", "-")}="{esc(_num(v) if isinstance(v, float) else v)}"' for k, v in attributes.items()
    )
    return f'<{shape} {HIT_ATTRIBUTES} data-key="{esc(key)}" aria-label="{esc(label)}" {geometry}/>'


#: The least contrast ratio (WCAG 2, non-text graphics) between a target marker and what it is
#: drawn on.
MIN_CONTRAST = 3.0


def mark(target: str, selected: str = "", *, quiet: bool = False) -> str:
    """The mark of the hit shape drawn just before it (its next sibling): ``target``, SVG
    elements shown while its key is a target (the room adds the class ``target`` to the hit
    shape), and ``selected``, shown instead while its key is selected; hidden otherwise, and never
    taking a click. ``quiet``: the target marker shows on hover and focus only, and all at once
    while something is selected (for a board with many targets at once). Use :func:`mark_dot` and
    :func:`mark_ring` for the elements; one element gets the class ``tgt`` (``sel``) itself,
    several are grouped in a ``<g class="tgt">`` (``sel``). A lone target element without
    ``selected`` is the mark itself (``class="mark tgt ..."``: a key that is never selected, on a
    board with hundreds of them)."""
    cls = "mark quiet" if quiet else "mark"
    hidden = ' display="none"'
    if not selected and _single(target):
        return target.replace(' class="', f' visibility="hidden" pointer-events="none" class="{cls} tgt ', 1)
    return (
        f'<g class="{cls}" visibility="hidden" pointer-events="none">'
        f"{_part(target, 'tgt', '')}{_part(selected, 'sel', hidden)}</g>"
    )


def _single(elements: str) -> bool:
    return elements.count("<") == 1 and elements.startswith("<") and ' class="' in elements


def _part(elements: str, cls: str, extra: str) -> str:
    if not elements:
        return ""
    if _single(elements):
        return elements.replace(' class="', f'{extra} class="{cls} ', 1)
    return f'<g class="{cls}"{extra}>{elements}</g>'


def mark_dot(cx: float, cy: float, r: float, colour: str) -> str:
    """A target dot (a circle of radius ``r`` filled and outlined in ``colour``; the room's
    stylesheet hollows it for a second kind of target)."""
    w = _num(max(1.0, r / 2.5))
    return (
        f'<circle class="dot" cx="{_num(cx)}" cy="{_num(cy)}" r="{_num(r)}" fill="{colour}" '
        f'stroke="{colour}" stroke-width="{w}"/>'
    )


def mark_ring(shape: str, colour: str, line: float, /, **geometry) -> str:
    """An outline ``<shape>`` (``"circle"``, ``"polygon"``, ``"rect"``) in ``colour``, ``line``
    units wide, around a piece or a tile, or inside an empty place (the room's stylesheet dashes
    it for a second kind of target). ``geometry``: its attributes (``cx=, cy=, r=``; ``x=, y=,
    width=, height=``; an underscore in a name becomes ``-``: ``stroke_linejoin="round"``)."""
    attrs = " ".join(
        f'{k.replace("_", "-")}="{_num(v) if isinstance(v, (int, float)) else esc(v)}"' for k, v in geometry.items()
    )
    return f'<{shape} class="ring" {attrs} fill="none" stroke="{colour}" stroke-width="{_num(line)}"/>'


def _rgb(colour: str) -> tuple[int, int, int]:
    text = colour.strip().lower()
    if not (text.startswith("#") and len(text) in (4, 7) and all(c in "0123456789abcdef" for c in text[1:])):
        raise ValueError(f"a colour must be CSS hex, '#rgb' or '#rrggbb', got {colour!r}")
    if len(text) == 4:
        text = "#" + "".join(c * 2 for c in text[1:])
    return int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16)


def relative_luminance(colour: str) -> float:
    """WCAG 2 relative luminance of a CSS hex colour (``"#c82828"``, ``"#fff"``), in [0, 1].

    Raises:
        ValueError: not a CSS hex colour.
    """

    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in _rgb(colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two CSS hex colours, from 1 (the same) to 21 (black on white).

    Raises:
        ValueError: either is not a CSS hex colour.
    """
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def blend(top: str, bottom: str, opacity: float) -> str:
    """The colour seen where ``top`` is painted with ``opacity`` (0-1) over ``bottom`` (CSS hex):
    what a translucent layer sits on, for :func:`contrast_ratio`.

    Raises:
        ValueError: a colour is not CSS hex, or ``opacity`` is not in [0, 1].
    """
    if not 0 <= opacity <= 1:
        raise ValueError(f"opacity must be in [0, 1], got {opacity!r}")
    mixed = (round(t * opacity + u * (1 - opacity)) for t, u in zip(_rgb(top), _rgb(bottom)))
    return "#{:02x}{:02x}{:02x}".format(*mixed)


def winners_words(state: GameState, winners, seat_name: Callable[[int], str] | None = None) -> str:
    """A finished game's winners for a board's caption: ``"a draw"`` (no winners, or every seat),
    ``"team 2 won"`` (a team game: :meth:`GameState.team_of` of a winner, numbered from 1), or the
    winning seats joined by "and", ``"player 2 won"`` (seats numbered from 1 unless ``seat_name``
    names them, e.g. by colour).

    Args:
        state: the game (its seats and teams).
        winners: the winning seats (``outcome.winners``).
        seat_name: a seat's name for people (default ``"player N"``, N from 1).
    """
    winners = list(winners)
    if not winners or len(winners) == state.num_players:
        return "a draw"
    if any(len(t) > 1 for t in state.teams()):
        return f"team {state.team_of(winners[0]) + 1} won"
    name = seat_name or (lambda w: f"player {w + 1}")
    return " and ".join(name(w) for w in winners) + " won"


def ply_movers(state: GameState) -> list[int] | None:
    """The seat that played each action of ``state.history``, found by replaying the history
    from the start of the same deal (``state.with_deal(state.deal())``); ``None`` when that start
    cannot be rebuilt (a position set up by hand, a game without chance whose start is not kept)
    or the replay does not reach ``state``.

    O(plies) applies: for a drawing, which the room caches.
    """
    try:
        start = state.with_deal(state.deal())
    except Exception:  # noqa: BLE001 - no start to replay from: the caller falls back to the last ply
        return None
    out = []
    try:
        for a in state.history:
            out.append(int(start.current_player))
            start.apply(a)
    except Exception:  # noqa: BLE001 - the history does not replay from this start
        return None
    return out if start == state else None


def recent_plies(movers: list[int], viewer: int | None) -> list[int]:
    """Indices (ascending) of the plies of the last turn of every seat other than ``viewer``,
    given ``movers[i]``, the seat that played ply ``i``:

    * a seat: the plies of the other seats since the viewer's last turn (when the viewer played
      the last ply, those before that turn, back to the turn before it);
    * a spectator (``None``): one round, the plies since the last mover's previous turn.

    With ``movers = [1, 0, 1, 2, 0]``: viewer 0 gets ``[2, 3]``, viewer 1 ``[3, 4]``, viewer 2
    ``[4]``, a spectator ``[2, 3, 4]``.
    """
    n = len(movers)
    if viewer is None:
        if not n:
            return []
        last, i = movers[-1], n - 1
        while i >= 0 and movers[i] == last:
            i -= 1
        while i >= 0 and movers[i] != last:
            i -= 1
        return list(range(i + 1, n))
    j = n - 1
    while j >= 0 and movers[j] == viewer:
        j -= 1
    end = j + 1
    while j >= 0 and movers[j] != viewer:
        j -= 1
    return list(range(j + 1, end))


def _num(x) -> str:
    """A number as short SVG text: ``12``, ``12.5``, ``0.333`` (3 decimals at most)."""
    if isinstance(x, int):
        return str(x)
    s = f"{float(x):.3f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


# ---------------------------------------------------------------------------------- the fallback
_LINE = 16  # px per text line of the fallback drawing


def _text_svg(state: GameState, viewer: int | None = None, *, pending: int | None = None) -> str:
    if viewer is None and not state.info.perfect_information and not state.is_terminal():
        # to_text(None) may show hidden parts (every hand): a spectator gets only the moves
        lines = [f"{state.info.long_name}: {len(state.history)} moves", *state.moves()[-20:]]
    else:
        lines = state.to_text(viewer).splitlines()
    if pending is not None:
        lines.append(f"pending: {state.action_to_string(pending)}")
    width = 8 * max([len(line) for line in lines] + [20]) + 16
    body = [f'<rect width="{width}" height="{_LINE * len(lines) + 16}" fill="#f4efe1"/>']
    for i, line in enumerate(lines):
        body.append(
            f'<text x="8" y="{8 + _LINE * (i + 1) - 4}" font-family="monospace" font-size="13" '
            f'xml:space="preserve">{esc(line)}</text>'
        )
    return svg_document(
        width,
        _LINE * len(lines) + 16,
        "".join(body),
        f"{state.info.long_name} position",
        f"board-{state.info.short_name}",
    )


def _text_paths(state: GameState, action: int) -> MovePaths:
    return MovePaths(((state.action_to_string(action),),))


def _no_status(state: GameState, viewer: int | None) -> str:
    return ""


#: The drawing of a game that declares no board module: its :meth:`GameState.to_text` as SVG
#: text (a spectator of a game with hidden information, before the end, sees only the last
#: moves), every move a button labelled with its notation, no confirmation.
text_board = BoardUI(_text_svg, _text_paths, False, _no_status, "")
