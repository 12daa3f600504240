"""Property tests (hypothesis) for invariants of the Ataxx rules core.

Positions: any board is a legal Ataxx position, so hypothesis draws whole boards (each square x, o,
gap or empty), the side to move, the clock, the fullmove number and the clock option; then a
sequence of move choices (indices into the legal list) is played from it, and the invariants are
checked at every ply. Example counts are modest so the file stays fast.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import board_fen
from envs.ataxx import NUM_ACTIONS, PASS_ACTION, AtaxxState

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def positions(draw, max_clock: int = 120):
    # Weighted squares: mostly empty, some stones, a few gaps (sometimes none, sometimes full boards).
    density = draw(st.sampled_from(["sparse", "normal", "dense", "full"]))
    weights = {"sparse": "......xo", "normal": "....xxoo-", "dense": ".xxxooo-", "full": "xo"}[density]
    cells = draw(st.lists(st.sampled_from(weights), min_size=49, max_size=49))
    side = draw(st.sampled_from("xo"))
    clock = draw(st.integers(0, max_clock))
    fullmove = draw(st.integers(1, 300))
    return f"{board_fen(cells)} {side} {clock} {fullmove}"


start_positions = st.one_of(
    positions(),
    st.sampled_from(
        [
            "x5o/7/7/7/7/7/o5x x 0 1",
            "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1",
            "x5o/7/3-3/2-1-2/3-3/7/o5x x 0 1",
            "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1",
        ]
    ),
)
choices = st.lists(st.integers(0, 10_000), min_size=0, max_size=60)


def _check_invariants(s: AtaxxState, gaps0: int) -> None:
    x, o, gaps = s.bitboards()
    assert x & o == 0 and x & gaps == 0 and o & gaps == 0
    assert gaps == gaps0, "gaps never change"
    nx, no = s.stone_counts()
    board = s.board_array()
    n_empty = int((board == 0).sum())
    assert nx + no + n_empty + gaps.bit_count() == 49
    assert (nx, no) == (int((board == 1).sum()), int((board == 2).sum()))
    # Mask and legal actions.
    mask = s.legal_action_mask()
    assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
    actions = s.legal_actions()
    assert np.flatnonzero(mask).tolist() == actions
    assert len(s.legal_moves()) == len(actions) == s.perft(1)
    assert (not actions) == s.is_terminal()
    if PASS_ACTION in actions:
        assert actions == [PASS_ACTION]
    # FEN round trip.
    fen = s.fen()
    back = AtaxxState(fen, halfmove_clock=s.halfmove_clock)
    assert back == s and back.fen() == fen
    assert back.legal_actions() == actions and back.outcome() == s.outcome()


def _play(fen: str, clock_on: bool, picks: list[int]):
    s = AtaxxState(fen, halfmove_clock=clock_on)
    gaps0 = s.bitboards()[2]
    yield s, gaps0
    for p in picks:
        actions = s.legal_actions()
        if not actions:
            return
        s.apply(actions[p % len(actions)])
        yield s, gaps0


@SETTINGS
@given(fen=start_positions, clock_on=st.booleans(), picks=choices)
def test_invariants_along_random_sequences(fen, clock_on, picks):
    for s, gaps0 in _play(fen, clock_on, picks):
        _check_invariants(s, gaps0)


@SETTINGS
@given(fen=start_positions, clock_on=st.booleans(), picks=choices, pick=st.integers(0, 10_000))
def test_apply_and_clone_commute(fen, clock_on, picks, pick):
    for s, _ in _play(fen, clock_on, picks):  # noqa: B007 - s is the last state, used after the loop
        pass
    actions = s.legal_actions()
    if not actions:
        return
    a = actions[pick % len(actions)]
    before = s.fen()
    c = s.clone()
    c.apply(a)  # apply on the clone ...
    assert s.fen() == before  # ... leaves the original alone
    s.apply(a)
    assert s == c and s.history == c.history
    assert s.legal_actions() == c.legal_actions()
    assert s.clone() == s


@SETTINGS
@given(fen=start_positions, picks=choices)
def test_move_effects(fen, picks):
    """Stone totals: a clone adds one stone, a jump or pass none; the clock obeys its rule."""
    s = AtaxxState(fen)
    for p in picks:
        actions = s.legal_actions()
        if not actions:
            break
        a = actions[p % len(actions)]
        total, clock, turn = sum(s.stone_counts()), s.clock, s.turn
        mover_before = s.stone_counts()[turn]
        s.apply(a)
        kind = "pass" if a == PASS_ACTION else "clone" if a < 49 else "jump"
        assert sum(s.stone_counts()) == total + (kind == "clone")
        assert s.clock == (0 if kind == "clone" else clock + 1)
        assert s.turn == 1 - turn
        assert s.stone_counts()[turn] >= mover_before + (kind == "clone")


@SETTINGS
@given(fen=positions(max_clock=99), pick=st.integers(0, 10_000))
def test_random_positions_match_python_ataxx(fen, pick):
    """Arbitrary boards (empty, full, one-sided, walled in) against python-ataxx: moves, end, result."""
    ataxx = pytest.importorskip("ataxx")
    s, b = AtaxxState(fen), ataxx.Board(fen)
    assert s.fen() == b.get_fen()
    assert sorted(s.legal_moves()) == sorted(str(m) for m in b.legal_moves())
    assert s.is_terminal() == b.gameover() and str(s.outcome() or "*") == b.result()
    moves = s.legal_moves()
    if moves:
        m = moves[pick % len(moves)]
        s.push(m)
        b.makemove(ataxx.Move.from_san(m))
        assert s.fen() == b.get_fen()
        assert str(s.outcome() or "*") == b.result()
