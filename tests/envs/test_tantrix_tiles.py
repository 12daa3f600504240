"""The 56 Tantrix tiles: the table matches tests/data/tantrix_tiles.tsv, the set is complete, fit counts hold."""

from __future__ import annotations

from itertools import permutations, product

import pytest
from test_tantrix_properties import tsv_tiles

from envs.tantrix import COLOURS, NUM_TILES, TILES, fitting_tiles, tile_edges


def canon(s: str) -> str:
    """Canonical form up to rotation (never reflection)."""
    return min(s[i:] + s[:i] for i in range(6))


def all_three_colour_tiles() -> set[str]:
    """Every tile with three lines in three of the four colours, up to rotation."""

    def matchings(edges):
        if not edges:
            yield []
            return
        a = edges[0]
        for b in edges[1:]:
            rest = [e for e in edges if e not in (a, b)]
            for m in matchings(rest):
                yield [(a, b)] + m

    out = set()
    for missing in COLOURS:
        cols = [c for c in COLOURS if c != missing]
        for m in matchings(list(range(6))):
            for perm in permutations(cols):
                s = [""] * 6
                for (a, b), c in zip(m, perm):
                    s[a] = s[b] = c
                out.add(canon("".join(s)))
    return out


def test_table_matches_the_data_table():
    data = tsv_tiles()
    assert len(data) == NUM_TILES
    assert all(TILES[i] == data[i] for i in range(1, NUM_TILES + 1))


def test_tiles_distinct_and_each_colour_on_two_edges():
    canons = [canon(TILES[i]) for i in range(1, NUM_TILES + 1)]
    assert len(set(canons)) == 56
    for i in range(1, NUM_TILES + 1):
        e = TILES[i]
        assert sorted(e.count(c) for c in COLOURS) == [0, 2, 2, 2]
        # no tile is symmetric under a rotation (6 distinct orientations)
        assert len({tile_edges(i, k) for k in range(6)}) == 6


def test_complete_set_minus_the_three_straight_tiles():
    full = all_three_colour_tiles()
    assert len(full) == 64
    have = {canon(TILES[i]) for i in range(1, NUM_TILES + 1)}
    missing = full - have
    assert have <= full and len(missing) == 8
    # the missing ones are exactly the three-straights: two (mirror images) per colour triple
    for s in missing:
        assert all(s[i] == s[i + 3] for i in range(3))
    assert sorted(len({c for c in s}) for s in missing) == [3] * 8
    assert len({frozenset(s) for s in missing}) == 4
    # mirror images (reversed edge order) are different tiles in the set
    mirrored = {canon(s[::-1]) for s in have}
    assert mirrored == have  # the set is closed under mirroring ...
    assert sum(canon(s[::-1]) != s for s in have) == 32  # ... but 32 tiles are chiral (mirror pairs)


def test_rotation_is_clockwise():
    # tile 1 is YBRBRY; turned one sixth clockwise, edge 1 shows what edge 0 showed
    assert tile_edges(1, 0) == "YBRBRY"
    assert tile_edges(1, 1) == "YYBRBR"


@pytest.mark.parametrize("kind, expected", [("ABC", 5), ("AAB", 6), ("ABB", 6), ("ABA", 6), ("AAA", 0)])
def test_fit_counts_of_three_consecutive_edges(kind, expected):
    for a, b, c in product(COLOURS, repeat=3):
        pattern = {
            "ABC": len({a, b, c}) == 3,
            "AAB": a == b != c,
            "ABB": a != b == c,
            "ABA": a == c != b,
            "AAA": a == b == c,
        }[kind]
        if not pattern:
            continue
        for start in range(6):
            edges = {start: a, (start + 1) % 6: b, (start + 2) % 6: c}
            fits = fitting_tiles(edges)
            assert len({t for t, _ in fits}) == expected, (a, b, c, start)
            assert len(fits) == expected  # no tile fits in two rotations
