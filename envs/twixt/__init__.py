"""TwixT and Double TwixT: rules core (:class:`TwixtState`), records (:mod:`envs.twixt.records`).

The environments (``twixt_v0``, ``double_twixt_v0``) live in :mod:`envs.twixt.env`.
"""

from envs.twixt.crossing import segments_cross
from envs.twixt.geometry import BLACK, KNIGHT_DIRS, MAX_SIZE, MIN_SIZE, RED, colour_of, geometry
from envs.twixt.notation import column_label, hole_name, parse_hole
from envs.twixt.records import TwixtRecord, read_twixt_file, record_from_state, replay, write_twixt_file
from envs.twixt.state import TwixtState

__all__ = [
    "TwixtState",
    "KNIGHT_DIRS",
    "RED",
    "BLACK",
    "MIN_SIZE",
    "MAX_SIZE",
    "colour_of",
    "column_label",
    "hole_name",
    "parse_hole",
    "geometry",
    "segments_cross",
    "TwixtRecord",
    "read_twixt_file",
    "write_twixt_file",
    "replay",
    "record_from_state",
]
