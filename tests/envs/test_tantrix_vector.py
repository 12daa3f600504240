"""Targeted checks of Tantrix's batched core (envs/tantrix/vector.py) against the reference state.

Positions are hand-built with ``TantrixState.from_position`` or taken from seeded reference games at
the first point where a rule edge of ``envs/tantrix/RULES.md`` applies (a forced space to fill, a
placement refused by restriction 1, 2 or 3, the forced steps after the free move, the bag running
out, a deadlock, a skip, a clipped placement at the window edge, a closed loop), loaded into the
batch with ``vec.from_states``, then every legal action there (one game per action) is stepped on
both sides and everything compared: mask, current player, every seat's observation, rewards,
``to_state``, and a few plies further.
"""

from __future__ import annotations

import numpy as np
import pytest

import envs
from envs import ParameterError
from envs.tantrix.state import TantrixState
from envs.tantrix.vector import TantrixVectorCore, vector_core


def _kw(st: TantrixState) -> dict:
    return dict(
        num_players=st.num_players,
        teams=st.team_game,
        colors=["RYBG"[c - 1] for c in st._colour_of_team],
        window_radius=st.window_radius,
    )


def _encoder(st):
    return envs.make_raw("tantrix_v0", **_kw(st)).encoder


def _compare(vec, refs, enc, rewards=None):
    cp = vec.current_player()
    assert cp.tolist() == [s.current_player for s in refs]
    mask = vec.action_mask()
    for i, s in enumerate(refs):
        want = np.zeros(vec.single_action_space.n, bool)
        want[s.legal_actions()] = True
        assert np.array_equal(mask[i], want), f"game {i}: masks differ"
        assert vec.to_state(i) == s
        if rewards is not None and s.is_terminal():
            assert np.array_equal(rewards[i], s.returns().astype(np.float32))
    for p in range(vec.num_players):
        obs = vec.observe(p)
        for i, s in enumerate(refs):
            one = enc.encode(s, p)
            for k in one:
                assert obs[k].dtype == one[k].dtype and np.array_equal(obs[k][i], one[k]), f"game {i} seat {p}: {k}"


def check_position(st: TantrixState, plies: int = 3, seed: int = 0) -> int:
    """Load ``st`` once per legal action, play that action and ``plies - 1`` random ones on both
    sides, comparing after each; returns the number of games checked."""
    enc = _encoder(st)
    legal = st.legal_actions()[:48] or [0]
    proto = envs.make_vec("tantrix_v0", 1, autoreset="disabled", **_kw(st))
    vec = proto.from_states([st] * len(legal))
    refs = [st.clone() for _ in legal]
    _compare(vec, refs, enc)
    if st.is_terminal():
        return len(legal)
    rng = np.random.default_rng(seed)
    actions = np.array(legal, dtype=np.int64)
    for ply in range(plies):
        live = np.array([not s.is_terminal() for s in refs])
        if not live.any():
            break
        if ply > 0:
            actions = np.array([rng.choice(s.legal_actions()) if not s.is_terminal() else 0 for s in refs], np.int64)
        for i, s in enumerate(refs):
            if live[i]:
                s.apply(int(actions[i]))
        out = vec.step(actions)
        _compare(vec, refs, enc, out.rewards)
        assert np.array_equal(out.terminated, np.array([s.is_terminal() for s in refs]) & live)
    return len(legal)


def _why(st: TantrixState) -> set:
    """Which restrictions refuse some colour-matching placement of the mover now."""
    out = set()
    if st.is_terminal() or not st.restrictions_active:
        return out
    p = st.current_player
    for q, r in st.candidate_cells():
        if max(abs(q), abs(r), abs(q + r)) > st.window_radius:
            continue
        for slot, t in enumerate(st.hand(p)):
            if t == -1:
                continue
            for rot in range(6):
                a = st.encode(slot, rot, q, r)
                if a in st._legal_set:
                    continue
                why = st._why_illegal(a)
                if why.startswith("restriction"):
                    out.add(why.split(":")[0])
    return out


def mine(pred, *, seeds=range(60), **kwargs) -> TantrixState:
    """The first position of a seeded random reference game where ``pred(state)`` holds."""
    for seed in seeds:
        st = TantrixState(**kwargs, rng=np.random.default_rng(seed))
        rng = np.random.default_rng(1000 + seed)
        while not st.is_terminal():
            if pred(st):
                return st
            st.apply(int(rng.choice(st.legal_actions())))
        if pred(st):
            return st
    pytest.fail("no position found")


# ---------------------------------------------------------------------------- rule edges
# (the start and the deal against the AEC env: tests/envs/test_vector_contract.py::test_spaces_and_seeding)
def test_forced_space_before_the_free_move():
    st = mine(lambda s: s.phase == "forced_before" and s.forced_spaces() and s.legal_actions())
    cells = {(q, r) for _, q, r, _ in st.placements()}
    assert cells <= set(st.forced_spaces())
    assert check_position(st) > 0


def test_forced_after_the_free_move_same_seat_again():
    st = mine(lambda s: s.phase == "forced_after" and len(s.history) > 0)
    assert check_position(st) > 0


@pytest.mark.parametrize("which", ["restriction 1", "restriction 2", "restriction 3"])
def test_each_restriction_refuses_a_placement(which):
    st = mine(lambda s: which in _why(s), seeds=range(200))
    assert which in _why(st)
    assert check_position(st) > 0


def test_restrictions_lift_when_the_bag_empties():
    # the last tile is about to be drawn: after this placement the restrictions are off mid-turn
    st = mine(lambda s: s.bag_size == 1 and not s.is_terminal())
    assert st.restrictions_active
    check_position(st, plies=4)
    after = mine(lambda s: s.bag_size == 0 and not s.is_terminal() and s.blocked_spaces() == [])
    assert not after.restrictions_active
    check_position(after, plies=4)


def test_deadlock_draw():
    st = mine(lambda s: s.deadlock, window_radius=3, seeds=range(300))
    assert st.is_terminal() and st.restrictions_active
    assert check_position(st) == 1
    # the position one move before the deadlock: stepping into it gives 0 for everyone
    tiles = st.placed
    pre = mine(
        lambda s: not s.is_terminal() and len(s.placed) == len(tiles) - 1 and s.placed == tiles[:-1],
        window_radius=3,
        seeds=range(300),
    )
    check_position(pre, plies=1)


def test_skips_once_the_bag_is_empty_and_the_end():
    # 4 players on a table of radius 4 (61 hexes): the bag empties after 32 tiles, then seats skip
    st = mine(lambda s: s._skips > 0 and not s.is_terminal(), num_players=4, window_radius=4)
    assert st.bag_size == 0
    check_position(st, plies=8)
    end = mine(lambda s: s.is_terminal() and not s.deadlock and len(s.placed) < 56, num_players=4, window_radius=4)
    assert check_position(end) == 1
    assert end._skips == 4 and not end.restrictions_active
    # the last placement before such an end: stepping into it, every seat then skips
    pre = mine(lambda s: not s.is_terminal() and s.placed == end.placed[:-1], num_players=4, window_radius=4)
    check_position(pre, plies=1)


def test_clipped_placements_at_the_window_edge():
    st = mine(lambda s: s.clipped_now > 0, window_radius=3, seeds=range(200))
    vec = envs.make_vec("tantrix_v0", 1, window_radius=3).from_states([st])
    assert vec.observe(st.current_player)["globals"][0, 7] == 1.0
    check_position(st)


def test_a_loop_scores_double_and_rewards():
    st = mine(lambda s: any(s.colour_score(c)[1] > 0 for c in range(1, 5)), seeds=range(300))
    check_position(st, plies=2)


def test_doubles_and_colours():
    st = mine(lambda s: len(s.placed) == 20, num_players=4, teams=True, colors=["G", "B"])
    check_position(st)
    st = mine(lambda s: len(s.placed) == 12, num_players=3, colors="GRB")
    check_position(st)


def test_hand_built_small_game_to_its_end():
    # one tile on the table, two per hand, empty bag: the game ends when all five are placed (or
    # nobody can place), restrictions off
    st = TantrixState.from_position(
        tiles=[(1, 0, 0, 0)], hands=[[2, 3], [4, 5]], bag=[], current_player=0, phase="free"
    )
    assert st._total == 5 and not st.restrictions_active
    n = 0
    frontier = [st]
    for _ in range(4):  # play every line of the game, comparing at each step
        nxt = []
        for s in frontier:
            if s.is_terminal():
                continue
            n += check_position(s, plies=1)
            for a in s.legal_actions()[:3]:
                c = s.clone()
                c.apply(a)
                nxt.append(c)
        frontier = nxt
    assert n > 0


def test_set_states_refuses_another_setting():
    vec = envs.make_vec("tantrix_v0", 2, seed=0)
    vec.reset()
    with pytest.raises(ParameterError, match="num_players"):
        vec.from_states([TantrixState(3, seed=0)])
    with pytest.raises(ParameterError, match="window_radius"):
        vec.from_states([TantrixState(2, seed=0, window_radius=6)])
    with pytest.raises(ParameterError, match="colors"):
        vec.from_states([TantrixState(2, seed=0, colors="GB")])
    with pytest.raises(ParameterError):
        vec.from_states([object()])


def test_take_put_and_the_core_arrays():
    vec = envs.make_vec("tantrix_v0", 4, seed=3)
    out = vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(10):
        a = np.array([rng.choice(np.flatnonzero(m)) for m in out.action_mask])
        out = vec.step(a)
    t = vec.take([2, 2, 0])
    assert t.to_state(0) == vec.to_state(2) and t.to_state(2) == vec.to_state(0)
    vec.put([1], t.take([2]))
    assert vec.to_state(1) == vec.to_state(0)
    core = vector_core(2, num_players=4)
    assert isinstance(core, TantrixVectorCore) and core.num_actions == 39204
    assert all(v.shape[0] == 2 for v in core.arrays.values())
    with pytest.raises(ParameterError):
        vector_core(2, num_players=5)


def _after_random_plies(n: int, plies: int, seed: int, rng_seed: int, **kw):
    """A vector env of ``n`` Tantrix games (setting ``kw``) after ``plies`` uniformly random legal
    actions each (action 0 in a game that is over), and the indices of the games not over (some)."""
    vec = envs.make_vec("tantrix_v0", n, seed=seed, autoreset="disabled", **kw)
    out = vec.reset()
    rng = np.random.default_rng(rng_seed)
    for _ in range(plies):
        m = out.action_mask
        out = vec.step(np.array([int(rng.choice(np.flatnonzero(r))) if r.any() else 0 for r in m]))
    live = np.flatnonzero(vec.current_player() >= 0)
    assert live.size
    return vec, live


@pytest.mark.parametrize(
    "kw",
    [dict(num_players=2), dict(num_players=3), dict(num_players=4, teams=True), dict(num_players=2, window_radius=5)],
)
def test_the_predicted_kernel_is_the_robots_evaluator_through_whole_games(kw):
    """The core's numba pass for ``"predicted"`` against :func:`envs.tantrix.robot.robot_value` of
    the reference state, every seat, at every ply of whole random games: while the restrictions
    hold and after the bag is empty, and at the end (1000 x the result plus the score gap). The
    positions checked include a line whose two ends face one space (a loop in waiting) and an end
    facing a forced space, the evaluator's special cases."""
    from envs.tantrix.robot import line_prospects, robot_value

    vec = envs.make_vec("tantrix_v0", 3, seed=11, autoreset="disabled", **kw)
    out = vec.reset()
    rng = np.random.default_rng(12)
    seats = np.arange(vec.num_players)
    seen = {"restricted": 0, "bag empty": 0, "over": 0, "loop in waiting": 0, "forced end": 0}
    while True:
        got = vec.core.heuristic_values(np.arange(3), seats, "predicted")
        for i in range(3):
            st = vec.to_state(i)
            want = [np.tanh(robot_value(st, int(p)) / 5.0) for p in seats]
            np.testing.assert_allclose(got[i], want, rtol=0, atol=1e-12)
            if st.is_terminal():
                seen["over"] += 1
                continue
            seen["restricted" if st.restrictions_active else "bag empty"] += 1
            rows = line_prospects(st)
            seen["loop in waiting"] += any(r["closes_at"] is not None for r in rows)
            seen["forced end"] += any(f and w > 0 for r in rows for _, w, f in r["ends"])
        if vec.current_player().max() < 0:
            break
        m = out.action_mask
        out = vec.step(np.array([int(rng.choice(np.flatnonzero(r))) if r.any() else 0 for r in m]))
    assert min(seen.values()) > 0, seen


@pytest.mark.parametrize("kw", [dict(num_players=2, window_radius=10), dict(num_players=4, teams=True)])
def test_the_turn_end_kernel_is_the_robots_whole_turn_lookahead(kw, monkeypatch):
    """``heuristic_values(index, seats, "predicted_turn")`` is ``tanh(turn_end_value(state, seat) / 5)``
    of each reference state (:func:`envs.tantrix.robot.turn_end_value`: the mover plays the rest
    of its turn by the robot's one-placement choices, then the robot's evaluator), at a turn's
    start and halfway through one (the seat to move moved last), with the robot's budget and with
    a small one that stops turns early (the budget patched into the core). Without a budget the
    reference is the robot's own turn completion (``_finish_turn``) followed by ``robot_value``."""
    import envs.tantrix.vector as tv
    from envs.tantrix.robot import _finish_turn, robot_value, turn_end_value

    vec = envs.make_vec("tantrix_v0", 2, seed=21, autoreset="disabled", **kw)
    out = vec.reset()
    rng = np.random.default_rng(22)
    seats = np.arange(vec.num_players)
    last = np.full(2, -1)
    seen = {"turn start": 0, "mid-turn": 0, "budget matters": 0, "differs from predicted": 0}
    ply = 0
    while vec.current_player().max() >= 0:
        live = np.flatnonzero(vec.current_player() >= 0)
        if ply % 4 == 1:
            full = vec.core.heuristic_values(live, seats, "predicted_turn")
            monkeypatch.setattr(tv, "TURN_BUDGET", 40)
            small = vec.core.heuristic_values(live, seats, "predicted_turn")
            monkeypatch.undo()
            plain = vec.core.heuristic_values(live, seats, "predicted")
            for j, i in enumerate(live.tolist()):
                st = vec.to_state(i)
                want = [np.tanh(turn_end_value(st, int(p)) / 5.0) for p in seats]
                np.testing.assert_allclose(full[j], want, rtol=0, atol=1e-12)
                want40 = [np.tanh(turn_end_value(st, int(p), budget=40) / 5.0) for p in seats]
                np.testing.assert_allclose(small[j], want40, rtol=0, atol=1e-12)
                seen["budget matters"] += bool(np.abs(full[j] - small[j]).max() > 1e-9)
                seen["differs from predicted"] += bool(np.abs(full[j] - plain[j]).max() > 1e-9)
                seen["mid-turn" if last[i] == st.current_player else "turn start"] += 1
                if ply % 12 == 1:
                    done = st.clone()
                    _finish_turn(done, st.current_player)
                    unlimited = [turn_end_value(st, int(p), budget=10**9) for p in seats]
                    assert unlimited == [robot_value(done, int(p)) for p in seats]
        last = vec.current_player().copy()
        m = out.action_mask
        out = vec.step(np.array([int(rng.choice(np.flatnonzero(r))) if r.any() else 0 for r in m]))
        ply += 1
    assert min(seen.values()) > 0, seen


def test_turn_end_value_refuses_a_bad_budget_and_leaves_the_state_alone():
    """A budget that is not an integer >= 0 is refused by name; the state is never changed; with
    budget 0 a choice ends the turn at once (the robot's evaluator of the position as it stands)."""
    from envs.tantrix.robot import robot_value, turn_end_value

    vec, live = _after_random_plies(1, 7, seed=8, rng_seed=9)
    st = vec.to_state(0)
    before = st.clone()
    assert len(st.legal_actions()) > 1
    assert turn_end_value(st, 0, budget=0) == robot_value(st, 0)
    turn_end_value(st, 1)
    assert st == before and st.legal_actions() == before.legal_actions()
    for bad in (-1, 2.5, True, "3"):
        with pytest.raises(ValueError, match=r"turn_end_value budget must be an integer >= 0, got"):
            turn_end_value(st, 0, budget=bad)


@pytest.mark.parametrize("kw", [dict(num_players=2), dict(num_players=3), dict(num_players=4, teams=True)])
def test_the_kernels_score_gap_is_the_reference_scores(kw):
    """The core's own ``heuristic_values`` (one numba pass over the line tables) against the
    reference state's ``scores()``: ``tanh((own score - best other side's score) / 5)`` per seat,
    partners not counted as opponents; mid-game, where the gaps are not all 0."""
    vec, live = _after_random_plies(8, 40, seed=3, rng_seed=4, **kw)
    n = vec.num_players
    got = vec.core.heuristic_values(live, np.arange(n))
    for j, i in enumerate(live.tolist()):
        st = vec.to_state(i)
        sc = st.scores()
        team = [p % 2 if kw.get("teams") else p for p in range(n)]
        gaps = [sc[p] - max(sc[q] for q in range(n) if team[q] != team[p]) for p in range(n)]
        np.testing.assert_allclose(got[j], np.tanh(np.array(gaps) / 5.0), rtol=0, atol=1e-12)
    assert np.abs(got).max() > 0.1


@pytest.mark.parametrize("kw", [dict(num_players=2), dict(num_players=4, teams=True)])
def test_the_predicted_evaluation_is_the_robots(kw):
    """``heuristic_values(index, seats, "predicted")`` (the evaluation ``search.heuristic:
    predicted`` mixes in) is ``tanh(robot_value(state, seat) / 5)`` of each reference state, the
    robot's predicted final score gap (:func:`envs.tantrix.robot.robot_value`), which differs from
    the score gap mid-game; an evaluation the game does not offer is refused by name."""
    from envs.tantrix.robot import robot_value

    vec, live = _after_random_plies(6, 24, seed=5, rng_seed=6, **kw)
    seats = np.arange(vec.num_players)[::-1]
    got = vec.core.heuristic_values(live, seats, "predicted")
    want = np.array([[np.tanh(robot_value(vec.to_state(i), int(p)) / 5.0) for p in seats] for i in live.tolist()])
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert np.abs(got - vec.core.heuristic_values(live, seats)).max() > 0.05
    with pytest.raises(
        ValueError, match=r"has no evaluation 'nope'; expected one of \['evaluate', 'predicted', 'predicted_turn'\]"
    ):
        vec.core.heuristic_values(live, seats, "nope")
