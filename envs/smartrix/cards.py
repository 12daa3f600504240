"""The Smartrix deck: the 70 cards, their patterns in each rotation, values and periods.

A card shows spots on some of its 8 border squares, numbered clockwise from the top-left corner
(0 TL, 1 T, 2 TR, 3 R, 4 BR, 5 B, 6 BL, 7 L); a pattern is an 8-bit int, bit ``i`` = square ``i``.
The deck is every such pattern up to 90° rotation (``envs/smartrix/RULES.md``; the list is also in
``tests/data/smartrix_cards.tsv``). A card is an index ``0..69`` inside the rules core and a
*number* ``1..70`` in notation and records. The tables are built once at import.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "CARD_SQUARES",
    "NUM_CARDS",
    "CARD_PATTERNS",
    "CARD_VALUES",
    "CARD_PERIODS",
    "rotate_pattern",
    "card_pattern",
]

#: The 70 cards: border squares clockwise from the top-left corner (1 = spot), card ``n`` is
#: ``CARD_SQUARES[n - 1]`` (``tests/data/smartrix_cards.tsv``).
CARD_SQUARES: tuple[str, ...] = (
    "00000000",
    "10000000",
    "01000000",
    "11000000",
    "10100000",
    "10010000",
    "10001000",
    "10000100",
    "10000001",
    "01010000",
    "01000100",
    "11100000",
    "11010000",
    "11001000",
    "11000100",
    "11000010",
    "11000001",
    "10101000",
    "10100100",
    "10100001",
    "10011000",
    "10010100",
    "10010001",
    "10000101",
    "01010100",
    "11110000",
    "11101000",
    "11100100",
    "11100010",
    "11100001",
    "11011000",
    "11010100",
    "11010010",
    "11010001",
    "11001100",
    "11001010",
    "11001001",
    "11000110",
    "11000101",
    "10101010",
    "10101001",
    "10100101",
    "10011001",
    "10010101",
    "01010101",
    "11111000",
    "11110100",
    "11110010",
    "11110001",
    "11101100",
    "11101010",
    "11101001",
    "11100110",
    "11100101",
    "11011100",
    "11011010",
    "11011001",
    "11010110",
    "11010101",
    "11111100",
    "11111010",
    "11111001",
    "11110110",
    "11110101",
    "11101110",
    "11101101",
    "11011101",
    "11111110",
    "11111101",
    "11111111",
)
NUM_CARDS = 70


def rotate_pattern(pattern: int, k: int) -> int:
    """``pattern`` turned ``k * 90°`` clockwise (square ``i`` moves to square ``i + 2k``)."""
    s = (2 * k) % 8
    return ((pattern << s) | (pattern >> (8 - s))) & 0xFF


def _base(sq: str) -> int:
    return sum(1 << i for i, ch in enumerate(sq) if ch == "1")


#: ``int (70, 4)``: the pattern of card index ``i`` in rotation ``k``.
CARD_PATTERNS = np.array([[rotate_pattern(_base(sq), k) for k in range(4)] for sq in CARD_SQUARES], dtype=np.int64)
#: ``int (70,)``: card values (number of spots).
CARD_VALUES = np.array([sq.count("1") for sq in CARD_SQUARES], dtype=np.int64)
#: ``int (70,)``: rotational period (1, 2 or 4): the distinct rotations are ``0 .. period - 1``.
CARD_PERIODS = np.array(
    [next(k for k in (1, 2, 4) if rotate_pattern(_base(sq), k) == _base(sq)) for sq in CARD_SQUARES], dtype=np.int64
)
_PAT_L = CARD_PATTERNS.tolist()


def card_pattern(number: int, rotation: int = 0) -> int:
    """The 8-bit pattern of card *number* (1..70) in ``rotation``."""
    return _PAT_L[number - 1][rotation % 4]
