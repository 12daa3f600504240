"""Ataxx: rules core (:class:`AtaxxState`) and its environment (``envs.ataxx_v0``)."""

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
