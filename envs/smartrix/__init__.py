"""Smartrix: rules core (:class:`SmartrixState`), records (:mod:`envs.smartrix.records`),
heuristics (:mod:`envs.smartrix.heuristics`). The environment (``smartrix_v0``) lives in
:mod:`envs.smartrix.env`.
"""

from envs.smartrix.cards import (
    CARD_PATTERNS,
    CARD_PERIODS,
    CARD_SQUARES,
    CARD_VALUES,
    NUM_CARDS,
    card_pattern,
    rotate_pattern,
)
from envs.smartrix.records import read_smartrix_file, record_from_state, replay, write_smartrix_file
from envs.smartrix.state import HAND_SIZE, SmartrixState

__all__ = [
    "SmartrixState",
    "CARD_SQUARES",
    "CARD_PATTERNS",
    "CARD_VALUES",
    "CARD_PERIODS",
    "NUM_CARDS",
    "HAND_SIZE",
    "card_pattern",
    "rotate_pattern",
    "record_from_state",
    "read_smartrix_file",
    "write_smartrix_file",
    "replay",
]
