"""TwixT and Double TwixT: rules core (:class:`TwixtState`), records (:mod:`envs.twixt.records`)."""

from envs.twixt.state import (
    BLACK,
    KNIGHT_DIRS,
    MAX_SIZE,
    MIN_SIZE,
    RED,
    TwixtState,
    colour_of,
    column_label,
    geometry,
    hole_name,
    parse_hole,
    segments_cross,
)

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
]
