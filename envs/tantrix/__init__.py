"""Tantrix (the strategy game): rules core (:class:`TantrixState`), JSON records
(:mod:`envs.tantrix.records`), heuristics (:mod:`envs.tantrix.heuristics`), the robot
(:mod:`envs.tantrix.robot`, agent spec ``robot``), the board drawn as SVG
and its click paths for people (:mod:`envs.tantrix.svg`, reached by ``state.to_svg(viewer)`` and
``state.board_ui()``).

The environment (``tantrix_v0``) lives in :mod:`envs.tantrix.env`.

>>> import numpy as np
>>> from envs.tantrix import TantrixState
>>> s = TantrixState(2, rng=np.random.default_rng(0))
>>> s.current_player, s.phase, len(s.legal_actions())
(0, 'free', 36)
>>> s.legal_moves()[0]
't47@0,0r0'
"""

from envs.tantrix.heuristics import tantrix_greedy_action, tantrix_score_gap
from envs.tantrix.records import read_tantrix_file, record_from_state, replay, write_tantrix_file
from envs.tantrix.state import (
    DEFAULT_WINDOW_RADIUS,
    DIRS,
    PHASES,
    TantrixState,
    format_move,
    parse_move,
)
from envs.tantrix.tiles import COLOUR_NAMES, COLOURS, NUM_TILES, TILES, fitting_tiles, tile_edges

__all__ = [
    "TantrixState",
    "TILES",
    "COLOURS",
    "COLOUR_NAMES",
    "DIRS",
    "NUM_TILES",
    "PHASES",
    "DEFAULT_WINDOW_RADIUS",
    "tile_edges",
    "fitting_tiles",
    "parse_move",
    "format_move",
    "tantrix_score_gap",
    "tantrix_greedy_action",
    "record_from_state",
    "replay",
    "read_tantrix_file",
    "write_tantrix_file",
]
