"""Ataxx: rules core (:class:`AtaxxState`) and its environment (``envs.ataxx_v0``).

Importing the package also imports :mod:`envs.ataxx.records`, which registers the ``.pgn``
record import (``envs.core.records.import_record``)."""

from envs.ataxx import records as _records  # noqa: F401  (registers the .pgn import format)
from envs.ataxx.state import (
    JUMP_OFFSETS,
    NUM_ACTIONS,
    PASS_ACTION,
    START_FEN,
    AtaxxState,
    parse_square,
    square_name,
)

__all__ = ["AtaxxState", "NUM_ACTIONS", "PASS_ACTION", "JUMP_OFFSETS", "START_FEN", "square_name", "parse_square"]
