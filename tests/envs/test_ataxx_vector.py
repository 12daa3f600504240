"""The batched Ataxx core on hand-built positions: every end rule and edge of
``envs/ataxx/RULES.md`` that random play reaches rarely or never (a forced pass, both sides stuck, no
stones, the 100-ply clock against a simultaneous win, the clock rule off, gaps, fullmove
counting), each loaded with ``from_states``, stepped on both backends and compared with the
reference rules state (:class:`envs.ataxx.state.AtaxxState`) at every step.
"""

from __future__ import annotations

import numpy as np
import pytest
from vector_check import compare

import envs
from envs.ataxx.state import NUM_ACTIONS, PASS_ACTION, AtaxxState
from envs.core.state import IllegalActionError, ParameterError


def _pair(fens, halfmove_clock=True):
    """The batched and the reference vector env, both loaded with ``fens``."""
    states = [AtaxxState(f, halfmove_clock=halfmove_clock) for f in fens]
    fast = envs.make_vec("ataxx_v0", 1, autoreset="disabled", halfmove_clock=halfmove_clock)
    ref = envs.make_vec("ataxx_v0", 1, autoreset="disabled", halfmove_clock=halfmove_clock, backend="reference")
    assert fast.backend != "reference"
    return fast.from_states(states), ref.from_states(states), states


def _play(fens, moves, halfmove_clock=True):
    """Step ``moves`` (one list of move strings per step, one per game) on both backends,
    comparing at every step; returns the batched env, the last step and the reference states
    stepped alongside by :meth:`AtaxxState.apply`."""
    fast, ref, states = _pair(fens, halfmove_clock)
    for i, s in enumerate(states):
        assert fast.to_state(i) == s
        assert np.array_equal(fast.action_mask()[i], s.legal_action_mask().astype(bool))
    out = None
    for k, row in enumerate(moves):
        actions = np.array([AtaxxState.string_to_action(m) for m in row], dtype=np.int64)
        out_f, out_r = fast.step(actions), ref.step(actions)
        compare(fast, ref, out_f, out_r, k + 1)
        for s, a in zip(states, actions):
            if not s.is_terminal():  # a finished game ignores its action
                s.apply(int(a))
        for i, s in enumerate(states):
            assert fast.to_state(i) == s, f"step {k + 1}: game {i}: {fast.to_state(i).fen()} vs {s.fen()}"
        out = out_f
    return fast, out, states


def test_forced_pass_and_fullmove_counting():
    # x (to move) on a1 is walled in by o on every square within two: x's only legal action
    # is the pass, while o can move
    fen = "7/7/7/7/ooo4/ooo4/xoo4 x 7 12"
    fast, ref, states = _pair([fen])
    mask = fast.action_mask()[0]
    assert mask.shape == (NUM_ACTIONS,) and mask.dtype == bool
    assert np.flatnonzero(mask).tolist() == [PASS_ACTION]
    fast, out, states = _play([fen], [["0000"], ["d1"]])
    s = fast.to_state(0)
    # the pass counts on the clock (7 -> 8), o's clone resets it; fullmove +1 after o's ply only
    assert s.fen().split()[1:] == ["x", "0", "13"]
    assert not out.terminated[0]


def test_pass_is_refused_when_a_move_exists():
    fast, _, _ = _pair(["x5o/7/7/7/7/7/o5x x 0 1"])
    with pytest.raises(IllegalActionError, match="action 833 \\(0000\\) is not legal for player_0 \\(16 legal"):
        fast.step(np.array([PASS_ACTION]))
    assert fast.to_state(0) == AtaxxState("x5o/7/7/7/7/7/o5x x 0 1")


def test_both_sides_stuck_ends_by_count_without_a_pass():
    # the board fills with x's clone: neither side can move, x has more stones -> x wins
    fen = "xxxxxxx/ooooooo/xxxxxxx/ooooooo/xxxxxxx/ooooooo/xxxxxx1 x 0 30"
    fast, out, states = _play([fen], [["g1"]])
    assert out.terminated[0] and fast.current_player()[0] == -1
    assert not fast.action_mask()[0].any()
    assert out.rewards[0].tolist() == [1.0, -1.0]
    assert states[0].is_terminal() and states[0].returns().tolist() == [1.0, -1.0]


def test_stuck_position_loaded_is_over():
    # gaps fill every other square: nobody can move, over at once, decided by count (o has 4, x 1)
    fen = "ooo----/x-o----/-------/-------/-------/-------/------- x 0 1"
    fast, ref, states = _pair([fen])
    assert states[0].is_terminal()
    assert fast.current_player()[0] == -1 and not fast.action_mask()[0].any()
    assert ref.current_player()[0] == -1


def test_no_stones_ends_the_game_for_the_other_side():
    # o clones next to x's last stone, capturing it: o wins at once (rule 1)
    fen = "7/7/7/7/7/1o5/x6 o 5 3"
    fast, out, states = _play([fen], [["a2"]])
    assert out.terminated[0]
    assert out.rewards[0].tolist() == [-1.0, 1.0]
    assert fast.to_state(0).stone_counts() == (0, 3)


def test_clock_reaching_100_is_a_draw_but_a_simultaneous_win_stands():
    # game 0: at clock 99 x jumps (clock -> 100) without ending the game: a draw (rule 3)
    # game 1: at clock 99 x jumps next to o's last stone, capturing it: x wins (rule 1 first)
    fens = ["x6/7/7/7/7/7/6o x 99 60", "x6/7/7/3o3/7/7/7 x 99 60"]
    fast, out, states = _play(fens, [["a7c5", "a7c5"]])
    assert out.terminated.tolist() == [True, True]
    assert out.rewards.tolist() == [[0.0, 0.0], [1.0, -1.0]]
    assert [s.clock for s in states] == [100, 100]


def test_clock_rule_off_plays_on_past_100():
    fen = "x6/7/7/7/7/7/6o x 150 90"
    fast, out, states = _play([fen], [["a7c5"], ["g1e3"]], halfmove_clock=False)
    assert not out.terminated[0] and fast.current_player()[0] == 0
    assert fast.to_state(0).clock == 152
    assert fast.to_state(0).fen().endswith(" x 152 91")
    # the same position with the rule on is over before anyone moves
    assert AtaxxState(fen).is_terminal()


def test_gaps_are_never_destinations_and_block_nothing():
    # x on a1 with gaps on b1, a2, b2: no clone; jumps over gaps are legal (Ataxx jumps)
    fen = "6o/7/7/7/2-4/--5/x-5 x 0 1"
    fast, ref, states = _pair([fen])
    legal = {AtaxxState.action_to_string(int(a)) for a in np.flatnonzero(fast.action_mask()[0])}
    assert legal == {"a1a3", "a1b3", "a1c2", "a1c1"}  # c3 is a gap
    fast, out, _ = _play([fen], [["a1c2"], ["g7e5"]])
    s = fast.to_state(0)
    assert s.piece_at("a1") == "." and s.piece_at("c2") == "x" and s.piece_at("c3") == "-"


def test_a_state_of_another_clock_rule_or_game_is_refused():
    fast = envs.make_vec("ataxx_v0", 2)
    fast.reset(seed=0)
    before = [fast.to_state(i).fen() for i in range(2)]
    with pytest.raises(ParameterError, match="halfmove_clock"):
        fast.from_states([AtaxxState(halfmove_clock=False)])
    with pytest.raises(ParameterError, match="2\\*\\*62"):
        fast.from_states([AtaxxState("x5o/7/7/7/7/7/o5x x 0 " + str(1 << 63))])
    assert [fast.to_state(i).fen() for i in range(2)] == before


def test_blockers_start_and_many_games_in_one_batch():
    # a batch mixing the positions above, stepped together, including games already over
    fens = [
        "7/7/7/7/ooo4/ooo4/xoo4 x 7 12",
        "x6/7/7/3o3/7/7/7 x 99 60",
        "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1",
        "ooo----/x-o----/-------/-------/-------/-------/------- x 0 1",
    ]
    fast, out, states = _play(fens, [["0000", "a7c5", "f2", "0000"]])
    # terminated is what ended on this step: game 3 was over when loaded (no player to move)
    assert out.terminated.tolist() == [False, True, False, False]
    assert fast.current_player().tolist() == [1, -1, 1, -1]
