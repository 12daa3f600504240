"""Smartrix heuristics: the greedy move and the score gap use no hidden information."""

from __future__ import annotations

import numpy as np
import pytest
from test_smartrix_rules import STAR, rest, solve, table_of

from envs.smartrix import CARD_VALUES, SmartrixState
from envs.smartrix.heuristics import expected_hand_value, smartrix_greedy_action, smartrix_score_gap


def test_greedy_takes_the_biggest_collection():
    cells = STAR["row"] + STAR["col"]
    sol = solve(cells + [(2, 2)], seed=2)
    centre = sol[(2, 2)]
    spare = rest([v[0] for v in sol.values()])
    s = SmartrixState.from_position(table=table_of(sol, cells), hands=[[centre[0], spare[-1]], spare[:2]])
    a = smartrix_greedy_action(s, np.random.default_rng(0))
    assert s.decode(a)[0] == centre[0] and s.decode(a)[2:] == (2, 2)


def test_greedy_sheds_the_highest_card_then_passes():
    s = SmartrixState.from_position(table=[(1, 0, 0, 0)], hands=[[2, 70, 45], [3]])
    # Nothing collects; 70 (all spots) cannot touch the blank; 45 (T, R, B, L: value 4) can only
    # go diagonally... its corners are empty: yes. So the greedy sheds 45 (value 4) over 2 (value 1).
    for seed in range(5):
        a = smartrix_greedy_action(s, np.random.default_rng(seed))
        assert s.decode(a)[0] == 45
    t = SmartrixState.from_position(table=[(1, 0, 0, 0)], hands=[[70], [3]])
    assert smartrix_greedy_action(t, np.random.default_rng(0)) == t.pass_action


def test_greedy_ignores_other_hands():
    s = SmartrixState(3, rng=np.random.default_rng(3))
    for _ in range(10):
        s.apply(smartrix_greedy_action(s, np.random.default_rng(0)))
    me = s.current_player
    rng = np.random.default_rng(1)
    choices = {smartrix_greedy_action(s.sample_determinization(me, rng), np.random.default_rng(7)) for _ in range(10)}
    assert choices == {smartrix_greedy_action(s, np.random.default_rng(7))}


def test_score_gap_uses_public_information_only():
    s = SmartrixState(3, rng=np.random.default_rng(5))
    for _ in range(25):
        s.apply(smartrix_greedy_action(s, np.random.default_rng(1)))
    rng = np.random.default_rng(2)
    for p in range(3):
        gap = smartrix_score_gap(s, p)
        for _ in range(5):
            assert smartrix_score_gap(s.sample_determinization(p, rng), p) == pytest.approx(gap)
        unseen = s.unseen_cards(p)
        mean = CARD_VALUES[np.asarray(unseen) - 1].mean()
        est = [s.points(q) - (s.hand_value(q) if q == p else s.hand_size(q) * mean) for q in range(3)]
        assert gap == pytest.approx(est[p] - max(est[q] for q in range(3) if q != p))
        assert expected_hand_value(s, p, p) == s.hand_value(p)


def test_score_gap_for_teams_and_at_the_end():
    s = SmartrixState(4, rng=np.random.default_rng(0), teams=True)
    g0, g1 = smartrix_score_gap(s, 0), smartrix_score_gap(s, 2)
    assert isinstance(g0, float) and isinstance(g1, float)
    while not s.is_terminal():
        s.apply(smartrix_greedy_action(s, np.random.default_rng(s.turn_number)))
    ts = s.team_scores()
    assert smartrix_score_gap(s, 0) == ts[0] - ts[1] == -smartrix_score_gap(s, 3)


def test_greedy_beats_random():
    rng = np.random.default_rng(0)
    wins = 0
    for g in range(20):
        s = SmartrixState(2, rng=np.random.default_rng(100 + g))
        while not s.is_terminal():
            if s.current_player == g % 2:
                a = smartrix_greedy_action(s, rng)
            else:
                legal = s.legal_actions()
                a = legal[int(rng.integers(len(legal)))]
            s.apply(a)
        wins += s.returns()[g % 2] == 1
    assert wins >= 15
