"""Connection in TwixT: the union-find of the win test and the path search of the early draw.

Win detection is incremental: a union-find over the holes plus four virtual border nodes
(``N`` red top, ``N + 1`` red bottom, ``N + 2`` black left, ``N + 3`` black right), joined as links
are added; a colour has won when its two border nodes share a root (:func:`find_root`).
The early-draw test asks whether a colour can still connect: :func:`find_path` searches, on
Python-int bitboards, a knight path between its borders through the holes it may still use, no
step crossing a link that blocks it (``TwixtState.can_still_connect``, ``envs/twixt/RULES.md``).
Also the status codes of a state, which these tests decide.
"""

from __future__ import annotations

from envs.twixt.geometry import Geometry

__all__ = ["find_root", "find_path", "initial_witnesses", "STATUS_ONGOING", "STATUS_RED", "STATUS_BLACK", "STATUS_DRAW"]

#: A state's ``_status``: the game is on, red won, black won (``STATUS_RED + colour``), draw.
STATUS_ONGOING, STATUS_RED, STATUS_BLACK, STATUS_DRAW = 0, 1, 2, 3


def find_root(uf: list, x: int) -> int:
    """The root of ``x`` in the union-find list ``uf`` (``uf[x] == x`` at a root), halving the path."""
    while uf[x] != x:
        uf[x] = x = uf[uf[x]]
    return x


def find_path(g: Geometry, colour: int, allowed: int, ok):
    """Breadth-first search on bitboards for a knight path between ``colour``'s borders.

    ``allowed``: holes the path may use; ``ok[k]``: bit ``p`` set if the step from ``p`` along
    the ``k``-th canonical direction (``KNIGHT_DIRS[(2, 3, 4, 5)[k]]``, flat offset ``g.koff[k]``)
    is not blocked by an existing link. Returns ``(hole bitmask, frozenset of link
    ids)`` of one shortest path, or ``None`` if there is none.
    """
    b = g.bits()
    src = b.src[colour] & allowed
    dst = b.dst[colour] & allowed
    if not src or not dst:
        return None
    ok0, ok1, ok2, ok3 = ok
    o0, o1, o2, o3 = g.koff
    free = allowed & ~src
    frontier = src
    layers = [src]
    while not frontier & dst:
        new = (
            ((frontier & ok0) << o0)
            | ((frontier >> o0) & ok0)
            | ((frontier & ok1) << o1)
            | ((frontier >> o1) & ok1)
            | ((frontier & ok2) << o2)
            | ((frontier >> o2) & ok2)
            | ((frontier & ok3) << o3)
            | ((frontier >> o3) & ok3)
        ) & free
        if not new:
            return None
        free ^= new
        layers.append(new)
        frontier = new
    end = frontier & dst
    q = (end & -end).bit_length() - 1
    holes = 1 << q
    lids = []
    lbase, lk, adj = g.link_base, g.link_k, g.adj
    for i in range(len(layers) - 2, -1, -1):
        layer = layers[i]
        for p, lid in adj[q]:
            if (layer >> p) & 1 and (ok[lk[lid]] >> lbase[lid]) & 1:
                q = p
                holes |= 1 << p
                lids.append(lid)
                break
        else:  # pragma: no cover - BFS layers guarantee a predecessor
            raise AssertionError("broken BFS layers")
    return holes, frozenset(lids)


def initial_witnesses(g: Geometry) -> tuple:
    """Per colour, the :func:`find_path` result on the empty board of ``g`` (searched once per size)."""
    b = g.bits()
    if b.init_witness is None:
        b.init_witness = tuple(find_path(g, c, b.area[c], b.ok0) for c in (0, 1))
    return b.init_witness
