"""TwixT move notation: hole names (``c5``) and the pattern of link moves (``+c5e6``).

Holes are written column then row: column letters from the left (``a``, ``b``, ...; past ``z``,
on boards wider than 26, ``aa, ab, ..., az, ba, ...``: bijective base 26, as spreadsheets), then
the row number, row 1 at the top. Parsing is case-insensitive (``H18`` = ``h18``). The whole
move notation (``swap``, ``c5!``, ``+c5e6``, ``-c5e6``, ``end``, ``end!``) is read and written by
:meth:`envs.twixt.state.TwixtState.string_to_action` and
:meth:`~envs.twixt.state.TwixtState.action_to_string` with these helpers; the rules are in
``envs/twixt/RULES.md``.
"""

from __future__ import annotations

import re

from envs.core.state import InvalidMoveError

__all__ = ["column_label", "hole_name", "parse_hole", "LINK_RE"]

#: A link move with ``links="manual"``: sign (``+`` add, ``-`` remove) and the two end holes
#: (lower-case), e.g. ``+c5e6``.
LINK_RE = re.compile(r"([+-])([a-z]{1,2}[0-9]{1,2})([a-z]{1,2}[0-9]{1,2})")


def column_label(col: int) -> str:
    """``0 -> 'a'``, ``25 -> 'z'``, ``26 -> 'aa'``, ``27 -> 'ab'`` (bijective base 26)."""
    label = ""
    col += 1
    while col:
        col, rem = divmod(col - 1, 26)
        label = chr(97 + rem) + label
    return label


def _column_index(letters: str) -> int:
    """Inverse of :func:`column_label` (lower-case letters)."""
    v = 0
    for ch in letters:
        v = v * 26 + (ord(ch) - 96)
    return v - 1


def hole_name(row: int, col: int) -> str:
    """``(row, col) -> 'c5'``-style name; row 0 is row ``1`` (the top)."""
    return f"{column_label(col)}{row + 1}"


_HOLE_RE = re.compile(r"([a-z]{1,2})([0-9]{1,2})")


def parse_hole(text: str, board_size: int) -> tuple[int, int]:
    """``'c5' -> (4, 2)`` (row, col) on a ``board_size`` board; case-insensitive.

    Raises:
        InvalidMoveError: not a hole name, or off the board.
    """
    if not isinstance(text, str):
        raise InvalidMoveError(f"a hole must be a string like 'c5', got {type(text).__name__}")
    m = _HOLE_RE.fullmatch(text.strip().lower())
    if m is None:
        raise InvalidMoveError(f"{text!r} is not a hole: expected column letters and a row number, e.g. 'c5'")
    col = _column_index(m.group(1))
    row = int(m.group(2)) - 1
    if not (0 <= col < board_size and 0 <= row < board_size) or m.group(2).startswith("0"):
        last = hole_name(board_size - 1, board_size - 1)
        raise InvalidMoveError(f"{text!r} is not a hole of a {board_size}x{board_size} board (a1 .. {last})")
    return row, col
