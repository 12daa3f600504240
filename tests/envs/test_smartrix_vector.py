"""Smartrix's batched core (envs/smartrix/vector.py) on hand-built positions: every rule edge of
``envs/smartrix/RULES.md`` that random play may miss, loaded with ``vec.from_states``, checked
against the reference (mask, every seat's view, returns, ``to_state``) and stepped with *every*
legal action (or pass) side by side with the reference backend.

Positions come from the rules tests' builder (:func:`test_smartrix_rules.solve`: distinct cards
matching on the squares a test names)."""

from __future__ import annotations

import numpy as np
import pytest
from test_smartrix_rules import STAR, box_position, rest, solve, table_of
from vector_check import compare

import envs
from envs import ParameterError
from envs.core.vector import obs_equal
from envs.smartrix import CARD_PERIODS, CARD_VALUES, SmartrixState
from envs.smartrix.vector import SmartrixVectorCore, vector_core

ID = "smartrix_v0"


def _pair(states, kw):
    fast = envs.make_vec(ID, 1, autoreset="disabled", **kw).from_states(states)
    ref = envs.make_vec(ID, 1, autoreset="disabled", backend="reference", **kw).from_states(states)
    assert fast.backend == "numba"
    return fast, ref


def check_position(state: SmartrixState, **kw):
    """Load ``state``, compare it with the reference, then play every legal action of it in a
    batch (one game per action) on both backends and compare again. Returns the batched env
    after the step and the actions played."""
    fast, ref = _pair([state], kw)
    assert fast.to_state(0) == state
    m = fast.action_mask()
    assert np.array_equal(m[0], state.agent_action_mask(state.current_player).astype(bool))
    assert np.array_equal(m, ref.action_mask())
    for p in range(state.num_players):
        assert obs_equal(fast.observe(p), ref.observe(p)), p
    acts = np.flatnonzero(m[0])
    fast, ref = _pair([state] * acts.size, kw)
    out_f, out_r = fast.step(acts), ref.step(acts)
    compare(fast, ref, out_f, out_r, 1)
    for j, a in enumerate(acts.tolist()):  # and the reference state's own apply
        s = state.clone()
        s.apply(int(a))
        assert fast.to_state(j) == s
    return fast, acts, out_f


def squares(mask_row, state):
    """Absolute squares of the legal placements in a mask row."""
    return {state.decode(int(a))[2:] for a in np.flatnonzero(mask_row[:-1])}


# ------------------------------------------------------------------------------ matching
def test_orthogonal_and_diagonal_matching():
    s = SmartrixState.from_position(table=[(3, 1, 0, 0)], hands=[[10, 4, 70, 45], [20]])
    fast, acts, _ = check_position(s)
    ref = set(s.legal_placements())
    assert set(acts[:-1].tolist()) == ref and len(ref) > 0
    t = SmartrixState.from_position(table=[(2, 2, 0, 0)], hands=[[4, 1, 3], [20]])
    check_position(t)


def test_symmetric_cards_only_distinct_rotations():
    s = SmartrixState.from_position(table=[(1, 0, 0, 0)], hands=[[45, 40, 2, 70], [20]])
    fast, acts, _ = check_position(s)
    for a in acts[:-1].tolist():
        plane = a // 49
        card, rot = divmod(plane, 4)
        assert rot < CARD_PERIODS[card]


# ------------------------------------------------------------------------------ the 5x5 box
def test_box_and_its_drift_after_a_set():
    s, sol, table, closer, sixth = box_position()
    fast, acts, _ = check_position(s)
    sq = squares(fast.from_states([s]).action_mask()[0], s)
    assert all(-1 <= r <= 4 and 0 <= c <= 4 for r, c in sq) and (4, 0) in sq and (0, 5) not in sq
    # complete column 0: collected; the box drifts to the right
    a = s.string_to_action(f"{closer[0]}r{closer[1]}@+4,+0")
    j = int(np.flatnonzero(acts == a)[0])
    after = fast.to_state(j)
    column = sorted(sol[(r, 0)][0] for r in range(5))
    assert after.collected(0) == column and after.table() == [table[4]]
    assert after.points(0) == sum(int(CARD_VALUES[n - 1]) for n in column)
    after.apply(after.pass_action)  # player 1 passes; player 0 again
    fast2, acts2, _ = check_position(after)
    six = after.string_to_action(f"{sixth[0]}r{sixth[1]}@+0,+5")
    assert six in acts2


@pytest.mark.parametrize("lines", [("row",), ("row", "col"), ("row", "col", "diag"), ("row", "col", "diag", "anti")])
def test_one_placement_collects_several_sets(lines):
    cells = [c for name in lines for c in STAR[name]]
    sol = solve(cells + [(2, 2)], seed=len(lines))
    centre = sol[(2, 2)]
    spare = rest([v[0] for v in sol.values()])
    s = SmartrixState.from_position(
        table=table_of(sol, cells), hands=[[centre[0], spare[0]], [spare[1]]], pile=spare[2:]
    )
    fast, acts, out = check_position(s)
    a = s.string_to_action(f"{centre[0]}r{centre[1]}@+2,+2")
    j = int(np.flatnonzero(acts == a)[0])
    after = fast.to_state(j)
    assert len(after.collected(0)) == 4 * len(lines) + 1
    # planes 11-12 before the move: what the centre square would collect
    obs = fast.from_states([s]).observe(0)
    r0, c0 = s.window_origin()
    assert obs["table"][0, 2 - r0, 2 - c0, 11] == np.float32(4 * len(lines) / 16.0)
    if len(lines) == 4:  # the table is empty: the next card goes on the centre (0, 0)
        assert after.table() == [] and after.current_player == 1
        fast2, acts2, _ = check_position(after)
        m2 = fast2.from_states([after]).action_mask()[0]
        assert squares(m2, after) == {(0, 0)}
        assert int(m2[:-1].sum()) == sum(int(CARD_PERIODS[n - 1]) for n in after.hand(1))
        o = fast2.from_states([after]).observe(1)["table"][0]
        assert o[..., 10].sum() == 1.0 and o[3, 3, 10] == 1.0 and o[..., 0].sum() == 0.0
        place = acts2[0]
        assert fast2.to_state(0).table() == [(after.decode(int(place))[0], after.decode(int(place))[1], 0, 0)]


def test_last_card_completing_sets_ends_the_game():
    cells = STAR["row"] + STAR["col"]
    sol = solve(cells + [(2, 2)], seed=2)
    centre = sol[(2, 2)]
    s = SmartrixState.from_position(
        table=table_of(sol, cells), hands=[[centre[0]], rest([v[0] for v in sol.values()])[:1]]
    )
    fast, acts, out = check_position(s)
    j = int(np.flatnonzero(acts == s.string_to_action(f"{centre[0]}r{centre[1]}@+2,+2"))[0])
    assert out.terminated[j] and out.current_player[j] == -1
    assert out.rewards[j].tolist() == [1.0, -1.0]


# ------------------------------------------------------------------------------ kids
def test_kids_collects_a_whole_long_run():
    cells = [(0, 0), (0, 1), (0, 2), (0, 4), (0, 5), (0, 6), (0, 3)]
    sol = solve(cells, seed=3)
    gap = sol[(0, 3)]
    spare = rest([v[0] for v in sol.values()])
    s = SmartrixState.from_position(
        table=table_of(sol, cells[:-1]), hands=[[gap[0], spare[0]], [spare[1]]], grid_limit=False
    )
    fast, acts, _ = check_position(s, grid_limit=False)
    j = int(np.flatnonzero(acts == s.string_to_action(f"{gap[0]}r{gap[1]}@+0,+3"))[0])
    after = fast.to_state(j)
    assert len(after.collected(0)) == 7 and after.table() == []


@pytest.mark.parametrize("window", [7, 21])
def test_kids_wide_table_within_the_window(window):
    cells = [(0, c) for c in range(4)] + [(1, c) for c in range(4, 7)]
    sol = solve(cells + [(1, 7)], seed=5)
    last = sol[(1, 7)]
    free = rest([v[0] for v in sol.values()])
    s = SmartrixState.from_position(
        table=table_of(sol, cells), hands=[[last[0], free[0]], [free[1]]], grid_limit=False, window=window
    )
    fast, acts, _ = check_position(s, grid_limit=False, window=window)
    sq = squares(fast.from_states([s]).action_mask()[0], s)
    assert ((1, 7) in sq) == (window == 21)
    if window == 21:
        j = int(np.flatnonzero(acts == s.string_to_action(f"{last[0]}r{last[1]}@+1,+7"))[0])
        after = fast.to_state(j)
        assert after.bounding_box() == (0, 1, 0, 7)
        check_position(after, grid_limit=False, window=window)


# ------------------------------------------------------------------------------ passing, the end
def test_pass_with_a_pile_draws_for_the_next_player():
    s = SmartrixState.from_position(table=[(1, 0, 0, 0)], hands=[[2], [3], [4]], num_players=3)
    fast, acts, out = check_position(s, num_players=3)
    j = int(np.flatnonzero(acts == s.pass_action)[0])
    t = fast.to_state(j)
    assert not t.is_out(0) and t.current_player == 1 and t.hand_size(1) == 2 and t.pile_size == s.pile_size - 1


def test_players_go_out_on_an_empty_pile_until_the_end():
    everything = set(range(1, 71))
    hands = [[2, 3], [4, 5], [6]]
    collected = [sorted(everything - {1, 2, 3, 4, 5, 6}), [], []]
    s = SmartrixState.from_position(num_players=3, table=[(1, 0, 0, 0)], hands=hands, pile=[], collected=collected)
    vec = envs.make_vec(ID, 1, num_players=3, autoreset="disabled").from_states([s])
    for k in range(3):
        check_position(s, num_players=3)
        out = vec.step(np.array([s.pass_action]))
        s.apply(s.pass_action)
        assert vec.to_state(0) == s and s.is_out(k)
    assert out.terminated[0] and out.rewards[0].tolist() == [1.0, -1.0, -1.0] and out.current_player[0] == -1
    assert not vec.action_mask().any()


def test_out_players_are_skipped():
    s = SmartrixState.from_position(
        num_players=3, table=[(1, 0, 0, 0)], hands=[[2, 3], [70, 69], [5, 6]], out=[False, True, False]
    )
    fast, acts, out = check_position(s, num_players=3)
    assert out.current_player[-1] == 2
    hands = [[2, 3], [70], [5]]
    t = SmartrixState.from_position(
        num_players=3,
        table=[(1, 0, 0, 0)],
        hands=hands,
        pile=[],
        out=[False, True, True],
        collected=[[], [], rest([1], *hands)],
    )
    fast, acts, out = check_position(t, num_players=3)
    assert set(out.current_player.tolist()) <= {0, -1}


def test_scores_and_a_tie():
    s = SmartrixState.from_position(table=[(1, 0, 0, 0)], hands=[[2], [4, 5]], collected=[[6, 7], [70]])
    fast, acts, out = check_position(s)
    j = int(np.flatnonzero(acts == s.string_to_action("2r0@-1,-1"))[0])
    assert out.terminated[j] and out.rewards[j].tolist() == [0.0, 0.0]
    assert fast.core.returns()[j].tolist() == [0.0, 0.0]


def test_teams_go_out_together_and_team_scores():
    s = SmartrixState.from_position(
        num_players=4,
        teams=True,
        table=[(1, 0, 0, 0)],
        hands=[[2], [3, 70], [4], [5, 69]],
        pile=[],
        collected=[[], [], [], sorted(set(range(6, 69)))],
    )
    kw = dict(num_players=4, teams=True)
    fast, acts, out = check_position(s, **kw)
    j = int(np.flatnonzero(acts == s.pass_action)[0])
    t = fast.to_state(j)
    assert t.is_out(0) and t.is_out(2) and t.current_player == 1
    fast, acts, out = check_position(t, **kw)
    j = int(np.flatnonzero(acts == t.pass_action)[0])
    assert out.terminated[j] and out.rewards[j].tolist() == [-1.0, 1.0, -1.0, 1.0]
    # team 0 out, team 1 plays on
    hands = [[2], [4, 5], [6], [7, 8]]
    u = SmartrixState.from_position(
        num_players=4, teams=True, table=[(1, 0, 0, 0)], hands=hands, pile=[], collected=[rest([1], *hands), [], [], []]
    )
    fast, acts, out = check_position(u, **kw)
    v = fast.to_state(int(np.flatnonzero(acts == u.pass_action)[0]))
    assert v.current_player == 1 and v.is_out(2)
    check_position(v, **kw)


# ------------------------------------------------------------------------------ hidden information
def test_views_hide_other_hands_and_the_pile_order():
    vec = envs.make_vec(ID, 2, num_players=4, seed=3)
    vec.reset()
    s = vec.to_state(0)
    other = s.sample_determinization(1, np.random.default_rng(0))  # same for seat 1, different hands/pile
    assert other != s
    two = vec.from_states([s, other])
    v1 = two.observe(1)
    assert all(np.array_equal(v1[k][0], v1[k][1]) for k in v1)
    v0 = two.observe(0)
    assert not np.array_equal(v0["hand"][0], v0["hand"][1])
    assert v0["hand"][0].sum() == s.hand_size(0) == 6


# ------------------------------------------------------------------------------ the core itself
def test_deal_matches_the_reference_constructor():
    core = vector_core(3, num_players=7)
    core.reset_games(np.arange(3), [np.random.default_rng(k) for k in range(3)])
    for k in range(3):
        assert core.to_state(k) == SmartrixState(7, rng=np.random.default_rng(k))


def test_set_states_refuses_other_settings():
    core = vector_core(1)
    with pytest.raises(ParameterError, match="cannot join"):
        core.set_states(np.array([0]), [SmartrixState(3, rng=np.random.default_rng(0))])
    with pytest.raises(ParameterError, match="cannot join"):
        core.set_states(np.array([0]), [SmartrixState(2, grid_limit=False, rng=np.random.default_rng(0))])
    with pytest.raises(ParameterError):
        core.set_states(np.array([0]), ["not a state"])


@pytest.mark.parametrize(
    "kwargs", [{"num_players": 8}, {"teams": True}, {"window": 9}, {"grid_limit": False, "window": 4}]
)
def test_bad_settings_raise_parameter_error(kwargs):
    with pytest.raises(ParameterError):
        SmartrixVectorCore(1, **kwargs)


def test_take_put_copy_whole_games():
    vec = envs.make_vec(ID, 4, seed=1)
    vec.reset()
    rng = np.random.default_rng(0)
    from envs.core.vector import sample_legal

    for _ in range(20):
        vec.step(sample_legal(vec.action_mask(), rng.random(4)))
    twin = vec.take(np.array([2, 2]))
    assert twin.to_state(0) == twin.to_state(1) == vec.to_state(2)
    vec.put(np.array([0]), twin.take(np.array([1])))
    assert vec.to_state(0) == vec.to_state(2)
    assert vec.core.memory_per_game() == 16 * 16 + 70 * (4 + 2 * 4) + 4 * 4 + 2 * 4 * 2 + 2 + 1 + 16  # 1147 bytes
