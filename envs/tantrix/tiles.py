"""The Tantrix tile set: the 56 tiles, their edge colours in each rotation, and which tiles fit.

Each tile carries three coloured lines, each joining two of its six edges (``envs/tantrix/RULES.md``,
"Tiles"); the set is listed in ``tests/data/tantrix_tiles.tsv``. Edges are numbered clockwise from
the upper-right side (see :mod:`envs.tantrix.state`); a tile in rotation ``k`` (0-5) shows on edge
``i`` the colour of its edge ``(i - k) % 6``. Colours are coded 1-4 (``COLOURS[code - 1]``), 0
meaning "no colour". The tables are built once at import.
"""

from __future__ import annotations

__all__ = [
    "COLOURS",
    "COLOUR_NAMES",
    "NUM_TILES",
    "TILES",
    "TR_EDGES",
    "TR_SEG",
    "tile_edges",
    "fit_table",
    "fitting_tiles",
]

#: Colour letters; colour code ``k`` (1-4) is ``COLOURS[k - 1]``; code 0 means "no colour".
COLOURS = "RYBG"
COLOUR_NAMES = ("red", "yellow", "blue", "green")
NUM_TILES = 56

# number -> edge colours clockwise from edge 0 (tests/data/tantrix_tiles.tsv).
_TILE_TEXT = (
    "YBRBRY RBYYBR RBBYYR RBRYBY YRBBRY BYBRYR BYRYRB BRYRYB BRBYRY YRBRBY RBYBYR RYBYBR BYRRYB RYYBBR "
    "GRYYRG RYGGYR YGRGRY YRGRGY RGYGYR RYGYGR GRRYYG YGRRGY GYYRRG GBRRBG BGGRRB RGBBGR RBGBGR BRRGGB "
    "RGBGBR BRGGRB GRYRYG YGYRGR GYRYRG YRYGRG RYRGYG GRBRBG BGRGRB BRGRGB BGBRGR GBGRBR GBRBRG GRGBRB "
    "YGGBBY GYGBYB YBBGGY GBYBYG BYGGYB GBYYBG YGBBGY GBGYBY YGYBGB GYBYBG YGBGBY YBGBGY BGYGYB BYGYGB"
).split()
#: ``TILES[t]`` for ``t`` in 1..56: the tile's edge colour letters clockwise from edge 0 (index 0 unused).
TILES = ("",) + tuple(_TILE_TEXT)
assert len(TILES) == NUM_TILES + 1

# TR_EDGES[t * 6 + k]: colour codes (1-4) of edges 0..5 of tile t in rotation k.
TR_EDGES: list[tuple[int, ...]] = [()] * ((NUM_TILES + 1) * 6)
# TR_SEG[t * 6 + k][c]: the two edges of colour code c (1-4), or None.
TR_SEG: list[tuple] = [()] * ((NUM_TILES + 1) * 6)
for _t in range(1, NUM_TILES + 1):
    _base = [COLOURS.index(ch) + 1 for ch in TILES[_t]]
    for _k in range(6):
        _e = tuple(_base[(i - _k) % 6] for i in range(6))
        TR_EDGES[_t * 6 + _k] = _e
        _seg: list[tuple[int, ...] | None] = [None] * 5
        for _c in range(1, 5):
            _idx = tuple(i for i in range(6) if _e[i] == _c)
            if _idx:
                _seg[_c] = _idx
        TR_SEG[_t * 6 + _k] = tuple(_seg)


def tile_edges(tile: int, rot: int = 0) -> str:
    """Edge colour letters of ``tile`` in rotation ``rot``, clockwise from edge 0."""
    return "".join(COLOURS[c - 1] for c in TR_EDGES[tile * 6 + rot])


# Fit table: requirement pattern (3 bits per edge: colour code or 0) -> tuple over tiles 0..56
# of the fitting rotations. Filled lazily; patterns repeat a lot.
_FIT: dict[int, tuple] = {}


def fit_table(pattern: int) -> tuple:
    """For a requirement ``pattern`` (3 bits per edge ``d`` at bit ``3 * d``: the colour code the
    edge must show, or 0 for any): per tile number 0..56, the tuple of its rotations that fit
    (index 0 unused, ``()``). Cached: the same tuple object for the same pattern."""
    f = _FIT.get(pattern)
    if f is None:
        req = [(d, (pattern >> (3 * d)) & 7) for d in range(6) if (pattern >> (3 * d)) & 7]
        out: list[tuple[int, ...]] = [()]
        for t in range(1, NUM_TILES + 1):
            rots = []
            for k in range(6):
                e = TR_EDGES[t * 6 + k]
                for d, c in req:
                    if e[d] != c:
                        break
                else:
                    rots.append(k)
            out.append(tuple(rots))
        f = _FIT[pattern] = tuple(out)
    return f


def fitting_tiles(edges: dict[int, str]) -> list[tuple[int, int]]:
    """Every ``(tile, rotation)`` whose edges show the given colours, e.g. ``{0: "R", 1: "Y"}``."""
    pattern = 0
    for d, ch in edges.items():
        pattern |= (COLOURS.index(ch.upper()) + 1) << (3 * d)
    f = fit_table(pattern)
    return [(t, k) for t in range(1, NUM_TILES + 1) for k in f[t]]
