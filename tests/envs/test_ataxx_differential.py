"""Differential tests: the Ataxx rules core against python-ataxx 2.2, ply by ply, in random games.

At every ply of every game we compare with python-ataxx (an independent implementation):

* the legal moves in UAI notation (as sorted lists, so duplicates would show too);
* the game-over flag and the result string (``outcome()`` vs ``Board.result()``);
* the FEN after the move;

and check our own consistency: ``legal_action_mask()`` against ``legal_actions()`` and
``legal_moves()``, ``string_to_action(action_to_string(a)) == a``, ``current_player`` and
``returns()`` against the outcome.

python-ataxx always applies the 100-ply clock. For games with ``halfmove_clock=False`` the boards are
compared step by step up to the first ply where the clock reaches 100; after that the game goes on
and each ply is compared with a python-ataxx board built from our FEN with the clock field set to 0
(the clock plays no part in the rules then), the clock field being checked by our own rule.

Games are seeded (``numpy.random.default_rng``) and deterministic. The whole file runs in well under
60 s on one core.
"""

from __future__ import annotations

import collections

import numpy as np
import pytest

ataxx = pytest.importorskip("ataxx")

from envs.ataxx import NUM_ACTIONS, PASS_ACTION, AtaxxState  # noqa: E402

START = "x5o/7/7/7/7/7/o5x x 0 1"
BLOCKERS = [
    "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1",
    "x5o/7/2-1-2/7/2-1-2/7/o5x o 0 1",
    "x5o/7/2-1-2/3-3/2-1-2/7/o5x x 0 1",
    "x5o/7/3-3/2-1-2/3-3/7/o5x x 0 1",
    "7/7/7/7/-------/-------/x5o x 0 1",
]
OTHERS = [
    "x5o/7/7/7/7/7/o5x o 0 1",
    "7/7/7/2x1o2/7/7/7 x 0 1",
    "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1",
    "7/7/7/7/xxxxxxx/xxxxxxx/ooooooo o 0 1",
]
MAX_PLIES = 1500  # safety net for clock-off games; random games end far sooner
JUMPY_PLIES = 40  # jump-heavy games prefer jumps for this many plies, then play uniformly (and end)


def _with_clock(fen: str, clock: int) -> str:
    board, side, _, full = fen.split()
    return f"{board} {side} {clock} {full}"


def _check_self_consistency(s: AtaxxState) -> list[str]:
    mask = s.legal_action_mask()
    assert mask.dtype == np.int8 and mask.shape == (NUM_ACTIONS,)
    assert set(np.unique(mask).tolist()) <= {0, 1}
    actions = s.legal_actions()
    assert np.flatnonzero(mask).tolist() == actions
    moves = s.legal_moves()
    assert moves == [s.action_to_string(a) for a in actions]
    for a in actions:
        assert s.string_to_action(s.action_to_string(a)) == a
    terminal = s.is_terminal()
    assert (s.current_player == -1) == terminal
    if not terminal:
        assert s.current_player == s.turn
        assert actions, "a live position always has a move (a pass at least)"
        assert PASS_ACTION not in actions or actions == [PASS_ACTION]
    expected_returns = {"1-0": [1.0, -1.0], "0-1": [-1.0, 1.0], "1/2-1/2": [0.0, 0.0], "*": [0.0, 0.0]}
    assert s.returns().tolist() == expected_returns[str(s.outcome() or "*")]
    return moves


def _compare(s: AtaxxState, ref, where: str) -> list[str]:
    moves = _check_self_consistency(s)
    theirs = sorted(str(m) for m in ref.legal_moves())
    assert sorted(moves) == theirs, f"legal moves differ at {where}"
    assert s.is_terminal() == ref.gameover(), f"game-over flag differs at {where}"
    assert str(s.outcome() or "*") == ref.result(), f"result differs at {where}"
    return moves


def _choose(rng: np.random.Generator, moves: list[str], jump_prob: float) -> str:
    if jump_prob and rng.random() < jump_prob:
        jumps = [m for m in moves if len(m) == 4]
        if jumps:
            return jumps[rng.integers(len(jumps))]
    return moves[rng.integers(len(moves))]


def play_game(fen: str, clock_on: bool, rng: np.random.Generator, jump_prob: float = 0.0) -> dict:
    """Play one random game in lockstep with python-ataxx; return statistics for coverage checks."""
    s = AtaxxState(fen, halfmove_clock=clock_on)
    ref = ataxx.Board(fen)
    assert s.fen() == ref.get_fen() == fen
    stats = collections.Counter()
    lockstep = True  # python-ataxx board follows move by move (False after clock 100 with the clock off)
    for ply in range(MAX_PLIES):
        if lockstep and not clock_on and s.clock >= 100:
            lockstep = False
            stats["clock_off_past_100"] += 1
        if not lockstep:
            ref = ataxx.Board(_with_clock(s.fen(), 0))
        where = f"ply {ply} of a game from {fen!r} (clock {'on' if clock_on else 'off'}), FEN {s.fen()!r}"
        moves = _compare(s, ref, where)
        if s.is_terminal():
            stats["result " + str(s.outcome())] += 1
            stats["clock_draw"] += int(str(s.outcome()) == "1/2-1/2" and s.clock >= 100)
            stats["win_at_clock_100"] += int(str(s.outcome()) != "1/2-1/2" and clock_on and s.clock >= 100)
            stats["plies"] += ply
            return stats
        move = _choose(rng, sorted(moves), jump_prob if ply < JUMPY_PLIES else 0.0)
        stats["pass" if move == "0000" else "clone" if len(move) == 2 else "jump"] += 1
        before_clock, before_turn, before_full = s.clock, s.turn, s.fullmove
        s.push(move)
        ref.makemove(ataxx.Move.from_san(move))
        if lockstep:
            assert s.fen() == ref.get_fen(), f"FEN after {move} differs at {where}"
        else:
            # Same board, side and fullmove as python-ataxx; our clock by our own rule.
            ours, theirs = s.fen().split(), ref.get_fen().split()
            assert (ours[0], ours[1], ours[3]) == (theirs[0], theirs[1], theirs[3]), f"after {move} at {where}"
            assert s.clock == (0 if len(move) == 2 else before_clock + 1)
        assert s.turn == 1 - before_turn
        assert s.fullmove == before_full + (1 if before_turn == 1 else 0)
    raise AssertionError(f"game from {fen!r} did not end within {MAX_PLIES} plies")


# (id, start FENs, clock on?, games, probability of preferring a jump (first JUMPY_PLIES plies), seed)
CATEGORIES = [
    ("start-clock-on", [START], True, 150, 0.0, 1),
    ("blockers-clock-on", BLOCKERS, True, 150, 0.0, 2),
    ("other-positions-clock-on", OTHERS, True, 60, 0.0, 3),
    # Jump-heavy play from a high clock: clock draws and wins at clock 100.
    ("jumpy-clock-90-on", [_with_clock(f, 90) for f in [START] + BLOCKERS], True, 60, 0.95, 4),
    ("start-clock-off", [START] + BLOCKERS[:2], False, 30, 0.0, 5),
    # Jump-heavy play from a high clock with the clock off: games run past clock 100.
    ("jumpy-clock-90-off", [_with_clock(f, 90) for f in [START] + BLOCKERS], False, 60, 0.95, 6),
]
TOTAL_GAMES = sum(c[3] for c in CATEGORIES)


def test_at_least_500_games():
    assert TOTAL_GAMES >= 500


@pytest.mark.parametrize("name, fens, clock_on, n_games, jump_prob, seed", CATEGORIES, ids=[c[0] for c in CATEGORIES])
def test_random_games_match_python_ataxx(name, fens, clock_on, n_games, jump_prob, seed):
    total = collections.Counter()
    for g in range(n_games):
        rng = np.random.default_rng([seed, g])
        total += play_game(fens[g % len(fens)], clock_on, rng, jump_prob)
    # Coverage: the games really went through the paths this category is meant to exercise.
    assert total["clone"] > 0 and total["jump"] > 0
    assert sum(v for k, v in total.items() if k.startswith("result ")) == n_games
    if name.startswith(("start-clock-on", "blockers", "other")):
        assert total["result 1-0"] > 0 and total["result 0-1"] > 0
        assert total["pass"] > 0, "no forced pass was played"
    if name == "jumpy-clock-90-on":
        assert total["clock_draw"] > 0, "no game ended by the clock"
    if name == "jumpy-clock-90-off":
        assert total["clock_off_past_100"] > 0 and total["clock_draw"] == 0


def test_games_are_deterministic():
    """The same seed gives the same game (so a failure can be replayed)."""
    a = play_game(START, True, np.random.default_rng([1, 0]))
    b = play_game(START, True, np.random.default_rng([1, 0]))
    assert a == b and a["plies"] > 0
