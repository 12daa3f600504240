"""Perft (move-path enumeration) of the Ataxx rules core against the community reference counts.

Reference: ``tests/data/ataxx_perft.tsv`` (libataxx convention: perft(0) = 1, a game-over position
gives 0 at every depth >= 1, a forced pass counts as one move, the halfmove clock is live).
Depths <= 4 run always; deeper lines are marked ``slow``.
"""

from __future__ import annotations

import pytest

from conftest import perft_rows
from envs.ataxx import START_FEN, AtaxxState

FAST_MAX_DEPTH = 4


def _cases(slow: bool):
    rows = perft_rows()
    cases = []
    for fen, counts in rows:
        for depth, expected in enumerate(counts, start=1):
            if (depth > FAST_MAX_DEPTH) != slow:
                continue
            marks = [pytest.mark.slow] if slow else []
            cases.append(pytest.param(fen, depth, expected, id=f"{fen} d{depth}", marks=marks))
    return cases


@pytest.mark.parametrize("fen, depth, expected", _cases(slow=False))
def test_perft_reference(fen, depth, expected):
    state = AtaxxState(fen)
    assert state.perft(depth) == expected
    assert state.fen() == fen, "perft must leave the position unchanged"


@pytest.mark.parametrize("fen, depth, expected", _cases(slow=True))
def test_perft_reference_deep(fen, depth, expected):
    """Every depth >= 5 line of the file (start position d5 = 4752668 and d6 = 141865520 included)."""
    assert AtaxxState(fen).perft(depth) == expected


def test_reference_file_has_the_expected_lines(data_dir):
    """Guard against a truncated or edited reference file silently shrinking the parametrisation."""
    rows = dict(perft_rows())
    assert rows[START_FEN][:5] == [16, 256, 6460, 155888, 4752668]
    assert rows["x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1"][:5] == [14, 196, 4184, 86528, 2266352]
    assert len(rows) >= 15
    assert sum(len(c) for c in rows.values()) >= 70


@pytest.mark.slow
def test_perft_start_depth5_literal():
    assert AtaxxState().perft(5) == 4752668


@pytest.mark.slow
def test_perft_blockers_depth5_literal():
    assert AtaxxState("x5o/7/3-3/2-1-2/3-3/7/o5x x 0 1").perft(5) == 3639856


@pytest.mark.parametrize("fen", [START_FEN, "7/7/7/7/7/7/7 x 0 1", "x5o/7/7/7/7/7/o5x x 100 1"])
def test_perft_zero_is_one(fen):
    """perft(0) = 1 even for a finished position."""
    assert AtaxxState(fen).perft(0) == 1


def test_perft_depth1_matches_legal_moves():
    for fen in (START_FEN, "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1", "7/7/7/2x1o2/7/7/7 x 0 1"):
        s = AtaxxState(fen)
        assert s.perft(1) == len(s.legal_moves())


def test_perft_forced_pass_counts_one_move():
    # x (to move) is walled in by o; o can move: the only move is the pass.
    s = AtaxxState("7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1")
    assert s.legal_moves() == ["0000"]
    assert s.perft(1) == 1
    assert s.perft(2) == 75


def test_perft_respects_clock_option():
    """At clock 100 the game is over with the clock on (perft 0), and goes on with it off."""
    fen = "x5o/7/7/7/7/7/o5x x 100 1"
    assert AtaxxState(fen).perft(2) == 0
    assert AtaxxState(fen, halfmove_clock=False).perft(1) == 16
    assert AtaxxState(fen, halfmove_clock=False).perft(3) == 6460
    # Clock 99 with the clock on: a jump reaches 100 and ends the game, only the 6 clones continue
    # (6 x 16 = 96 at depth 2; python-ataxx gives the same 16, 96, 2336).
    near = AtaxxState("x5o/7/7/7/7/7/o5x x 99 1")
    assert [near.perft(d) for d in (1, 2, 3)] == [16, 96, 2336]
    for move in near.legal_moves():
        child = near.clone()
        child.push(move)
        assert child.perft(1) == (16 if len(move) == 2 else 0), move


@pytest.mark.parametrize("bad", [-1, -5, 1.0, 2.5, "3", None, True, False])
def test_perft_rejects_bad_depth(bad):
    with pytest.raises(ValueError, match="depth"):
        AtaxxState().perft(bad)


def _perft_via_api(state: AtaxxState, depth: int) -> int:
    """Perft through the public API only (legal_actions / clone / apply / is_terminal)."""
    if depth == 0:
        return 1
    if state.is_terminal():
        return 0
    actions = state.legal_actions()
    if depth == 1:
        return len(actions)
    total = 0
    for a in actions:
        child = state.clone()
        child.apply(a)
        total += _perft_via_api(child, depth - 1)
    return total


def _api_cases():
    rows = perft_rows()
    return [
        pytest.param(fen, d, n, id=f"{fen} d{d}")
        for fen, counts in rows
        for d, n in enumerate(counts[:3], start=1)
        if n <= 20_000
    ]


@pytest.mark.parametrize("fen, depth, expected", _api_cases())
def test_perft_through_public_api(fen, depth, expected):
    """The bulk-counting perft and the move generator used by the environments must agree."""
    assert _perft_via_api(AtaxxState(fen), depth) == expected
