"""TwixT geometry: the precomputed link and crossing tables against exact geometry.

* the crossing table of a 24x24 board equals an exact segment-intersection test (integer cross
  products, vectorised with numpy) over *all* pairs of possible links;
* every link away from the edges crosses exactly 9 others; links sharing an end peg never cross; no
  link passes through a hole;
* the link table holds every knight pair of non-corner holes exactly once;
* at the start of a 24x24 game each player has 24 * 22 = 528 legal holes.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from envs.twixt import KNIGHT_DIRS, TwixtState, geometry, segments_cross


def _all_pairs_crossing(ends: np.ndarray, size: int) -> np.ndarray:
    """Boolean (L, L) matrix: links i and j properly cross (exact integer arithmetic).

    Segments A and B properly cross iff B's ends lie strictly on opposite sides of A's line and A's
    ends strictly on opposite sides of B's line (sides by the sign of a 2-D cross product).
    """
    p = np.stack(np.divmod(ends[:, 0], size), axis=1).astype(np.int64)
    q = np.stack(np.divmod(ends[:, 1], size), axis=1).astype(np.int64)
    d = q - p

    def side(r):  # [i, j]: side of point r_j relative to link i
        rel = r[None, :, :] - p[:, None, :]
        return np.sign(d[:, None, 0] * rel[..., 1] - d[:, None, 1] * rel[..., 0])

    straddle = side(p) * side(q) < 0  # [i, j]: link j's ends on opposite sides of link i
    return straddle & straddle.T


def test_crossing_table_equals_exact_intersection_24x24():
    g = geometry(24)
    ends = np.array(g.link_ends, dtype=np.int64)
    exact = _all_pairs_crossing(ends, 24)
    table = np.zeros_like(exact)
    for lid, xs in enumerate(g.cross):
        table[lid, list(xs)] = True
    assert exact.shape == (g.num_links, g.num_links)
    assert np.array_equal(exact, exact.T)
    assert np.array_equal(table, exact)
    assert int(exact.sum()) == 2 * sum(1 for _ in _pairs(g))


def _pairs(g):
    for lid, xs in enumerate(g.cross):
        for x in xs:
            if x > lid:
                yield lid, x


def test_pure_python_segment_test_agrees_on_a_sample():
    """``segments_cross`` (used to build the pattern) agrees with the numpy test on random pairs."""
    g = geometry(12)
    ends = np.array(g.link_ends, dtype=np.int64)
    exact = _all_pairs_crossing(ends, 12)
    rng = np.random.default_rng(3)
    for i, j in rng.integers(0, g.num_links, size=(3000, 2)):
        (p, q), (u, v) = g.link_ends[i], g.link_ends[j]
        got = segments_cross(divmod(p, 12), divmod(q, 12), divmod(u, 12), divmod(v, 12))
        assert got == bool(exact[i, j])


def test_link_table_is_every_knight_pair_once():
    for size in (5, 8, 24, 27, 48):
        g = geometry(size)
        corners = {(0, 0), (0, size - 1), (size - 1, 0), (size - 1, size - 1)}
        expected = set()
        for r, c in itertools.product(range(size), repeat=2):
            for dr, dc in KNIGHT_DIRS:
                r2, c2 = r + dr, c + dc
                if 0 <= r2 < size and 0 <= c2 < size and (r, c) not in corners and (r2, c2) not in corners:
                    expected.add(frozenset((r * size + c, r2 * size + c2)))
        got = [frozenset(e) for e in g.link_ends]
        assert len(got) == len(set(got)) == g.num_links
        assert set(got) == expected
    # 24x24: 4 * (23*22) knight pairs on the full grid, minus the 2 per corner that touch a corner.
    assert geometry(24).num_links == 4 * 23 * 22 - 4 * 2


def test_interior_links_cross_exactly_nine():
    g = geometry(24)
    counts = []
    for lid, (p, q) in enumerate(g.link_ends):
        (r1, c1), (r2, c2) = divmod(p, 24), divmod(q, 24)
        if min(r1, r2, c1, c2) >= 3 and max(r1, r2, c1, c2) <= 20:
            counts.append(len(g.cross[lid]))
    assert len(counts) > 1000
    assert set(counts) == {9}
    # Near the edges some of the 9 are off the board: never more than 9 anywhere.
    assert max(len(x) for x in g.cross) == 9
    assert min(len(x) for x in g.cross) < 9


def test_links_sharing_an_end_never_cross_and_no_link_passes_through_a_hole():
    g = geometry(24)
    at = {}
    for lid, (p, q) in enumerate(g.link_ends):
        at.setdefault(p, []).append(lid)
        at.setdefault(q, []).append(lid)
    for lids in at.values():
        for i, j in itertools.combinations(lids, 2):
            assert j not in g.cross_set[i]
    for p, q in g.link_ends:
        (r1, c1), (r2, c2) = divmod(p, 24), divmod(q, 24)
        # a lattice point strictly inside the segment would need gcd(|dr|, |dc|) > 1; knight steps have gcd 1
        assert np.gcd(abs(r2 - r1), abs(c2 - c1)) == 1


def test_crossing_is_symmetric_on_every_size():
    for size in (5, 6, 7, 13, 30):
        g = geometry(size)
        for lid, xs in enumerate(g.cross):
            for x in xs:
                assert lid in g.cross_set[x]


@pytest.mark.parametrize("size", [5, 8, 24, 48])
def test_start_legal_holes(size):
    s = TwixtState(size)
    assert len(s.legal_actions()) == size * (size - 2)
    s.push("c3")
    assert s.current_player == 1
    assert len(s.legal_actions()) == size * (size - 2) - 1


def test_start_24x24_is_528_for_each_player():
    s = TwixtState(24)
    red = s.legal_action_mask()
    assert red.dtype == np.int8 and red.shape == (24 * 24 + 1,)
    assert int(red.sum()) == 528
    s.push("l12")
    black = s.legal_action_mask()
    assert int(black.sum()) == 527  # l12 is taken
    assert black[s.string_to_action("l12")] == 0
    # Black's 528 holes: everything but rows 1 and 24 (corners included in those rows).
    area = np.frombuffer(geometry(24).legal[1], dtype=np.int8).reshape(24, 24)
    assert int(area.sum()) == 528 and area[0].sum() == 0 and area[23].sum() == 0
