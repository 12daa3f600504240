"""TwixT's link-crossing tables, from exact segment geometry.

A link joins two holes a knight's move apart; two links cross when their open segments properly
cross (links sharing an end peg never cross). :func:`cross_pattern` lists, once, the links that
cross a link from the origin, as translations; :func:`crossing_table` lays that pattern over a
board to give, per link id, the ids of the links crossing it (``geometry(S).cross``, see
:mod:`envs.twixt.geometry`). Pure functions of their arguments: nothing here knows the board.
"""

from __future__ import annotations

from functools import cache

__all__ = ["segments_cross", "cross_pattern", "crossing_table"]


def segments_cross(a1, a2, b1, b2) -> bool:
    """Exact test: do the open segments ``a1-a2`` and ``b1-b2`` (integer points) properly cross?

    Segments sharing an end point do not cross. Used to build (and test) the crossing tables.
    """

    def orient(p, q, r):
        v = (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
        return (v > 0) - (v < 0)

    return orient(a1, a2, b1) * orient(a1, a2, b2) < 0 and orient(b1, b2, a1) * orient(b1, b2, a2) < 0


@cache
def cross_pattern(steps: tuple[tuple[int, int], ...]) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """For each step index ``k`` (``steps``: link vectors ``(drow, dcol)``, each coordinate at most
    2 in size, as knight steps): the ``(drow, dcol, k2)`` of every link (base offset, step index)
    crossing the link from ``(0, 0)`` along ``steps[k]``."""
    out = []
    for a2 in steps:
        found = []
        for dr in range(-4, 5):
            for dc in range(-4, 5):
                for k2, d2 in enumerate(steps):
                    b1 = (dr, dc)
                    b2 = (dr + d2[0], dc + d2[1])
                    if segments_cross((0, 0), a2, b1, b2):
                        found.append((dr, dc, k2))
        out.append(tuple(found))
    return tuple(out)


def crossing_table(
    size: int, link_base, link_k, lid_of: dict, dirs: tuple[int, ...], steps: tuple[tuple[int, int], ...]
) -> tuple[tuple[int, ...], ...]:
    """Per link id: the sorted ids of the links that cross it on a ``size x size`` board.

    Args:
        size: holes per side.
        link_base: per link id, its base hole ``row * size + col`` (the end with the smaller index).
        link_k: per link id, the index ``k`` of its direction in ``dirs`` / ``steps``.
        lid_of: ``(hole, direction) -> link id`` for every link end (``direction`` as in ``dirs``).
        dirs: the direction numbers of the canonical link directions (``k -> dirs[k]``).
        steps: their vectors ``(drow, dcol)``, in the same order.
    """
    pattern = cross_pattern(steps)
    s = size
    cross = []
    for lid in range(len(link_base)):
        p = link_base[lid]
        r, c = divmod(p, s)
        found = []
        for dr, dc, k2 in pattern[link_k[lid]]:
            r2, c2 = r + dr, c + dc
            if 0 <= r2 < s and 0 <= c2 < s:
                x = lid_of.get((r2 * s + c2, dirs[k2]))
                if x is not None:
                    found.append(x)
        cross.append(tuple(sorted(found)))
    return tuple(cross)
