"""The vector contract (``envs.make_vec``), checked on every registered id and variant, in the spirit
of Pgx's ``api_test``: spaces and dtypes, seeding (game ``i`` is the AEC env's ``reset(seed + i)``),
random play with the three autoreset modes, the end of games (rewards are the reference returns),
every seat's view, bad input (clear errors, the batch unchanged), the penalty mode, the step limit,
``take`` / ``put`` / ``from_states`` and copies.

Each case runs on the game's batched core; a setting the batched core does not cover (TwixT's box
rules) must be refused with a clear error naming ``backend="reference"``, and is then checked on
the reference backend. The step-by-step comparison of the two backends over 1,000 games per
variant is tests/envs/test_vector_differential.py.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from gymnasium import spaces
from vector_check import random_actions, views

import envs
from conftest import contract_cases, start_state
from envs import IllegalActionError, ParameterError
from envs.core.vector import obs_equal, obs_take, pack_mask, unpack_mask

CASES = contract_cases()
B = 6


def make(env_id, kwargs, n=B, **kw):
    """The batched backend where the game has one for this setting, else the reference (after
    checking that the refusal is clear)."""
    try:
        return envs.make_vec(env_id, n, **kw, **kwargs)
    except ParameterError as e:
        assert "backend='reference'" in str(e), f"unclear refusal of a batched core: {e}"
        return envs.make_vec(env_id, n, backend="reference", **kw, **kwargs)


def _in_space(obs, space) -> bool:
    if isinstance(space, spaces.Dict):
        return all(_in_space(obs[k], s) for k, s in space.spaces.items())
    return (
        obs.dtype == space.dtype
        and obs.shape[1:] == space.shape
        and bool(np.all(obs >= space.low) and np.all(obs <= space.high))
    )


def _encode(env_id, kwargs, state, player):
    raw = envs.make_raw(env_id, **kwargs)
    return raw.encoder.encode(state, player)


def _snapshot(vec) -> tuple:
    return (
        [vec.to_state(i).position_key() for i in range(vec.num_envs)],
        vec.episode_steps.tolist(),
        vec.current_player().tolist(),
        vec.action_mask().copy(),
        [vec.observe(p) for p in range(vec.num_players)],
    )


def _same(a, b) -> bool:
    return (
        a[0] == b[0]
        and a[1] == b[1]
        and a[2] == b[2]
        and np.array_equal(a[3], b[3])
        and all(obs_equal(x, y) for x, y in zip(a[4], b[4]))
    )


@pytest.mark.parametrize("env_id,kwargs", CASES)
def test_spaces_and_seeding(env_id, kwargs):
    vec = make(env_id, kwargs, seed=7)
    raw = envs.make_raw(env_id, **kwargs)
    first = raw.possible_agents[0]
    assert vec.single_observation_space == raw.observation_space(first)
    assert vec.single_action_space == raw.action_space(first)
    assert (vec.num_players, vec.num_actions) == (raw.num_players, raw.num_actions)
    out = vec.reset()
    space = raw.observation_space(first)["observation"]
    assert _in_space(out.observation, space)
    assert out.action_mask.dtype == bool and out.action_mask.shape == (B, raw.num_actions)
    assert out.current_player.dtype == np.int32 and out.current_player.shape == (B,)
    assert out.rewards.dtype == np.float32 and out.rewards.shape == (B, raw.num_players)
    assert out.terminated.dtype == bool and out.truncated.dtype == bool
    assert out.info["reset"].all() and not out.rewards.any()
    for i in range(B):  # game i is the AEC env's reset(seed=7 + i)
        ref = envs.make_raw(env_id, **kwargs)
        ref.reset(seed=7 + i)
        assert vec.to_state(i) == ref.state
        agent = ref.agent_selection
        p = ref.possible_agents.index(agent)
        assert out.current_player[i] == p
        o = ref.observe(agent)
        assert obs_equal(obs_take(out.observation, i), o["observation"])
        assert np.array_equal(out.action_mask[i], o["action_mask"].astype(bool))
    again = make(env_id, kwargs, seed=7).reset()
    assert obs_equal(again.observation, out.observation)


@pytest.mark.parametrize("env_id,kwargs", CASES)
@pytest.mark.parametrize("mode", ["next_step", "same_step", "disabled"])
def test_random_play(env_id, kwargs, mode):
    """Random legal games: consistency with the reference state at every step, the end, autoreset."""
    vec = make(env_id, kwargs, seed=3, autoreset=mode, max_steps=120)
    space = vec.single_observation_space["observation"]
    rng = np.random.default_rng(0)
    out = vec.reset()
    ends = 0
    for _step in range(150):
        live = out.current_player >= 0
        assert np.array_equal(out.action_mask.any(axis=1), live), "a live game without a legal action or the reverse"
        assert _in_space(out.observation, space)
        for i in range(B):
            st = vec.to_state(i)
            if live[i]:
                assert st.current_player == out.current_player[i]
                assert np.array_equal(out.action_mask[i], st.agent_action_mask(int(out.current_player[i])).astype(bool))
        was_over = ~live
        out = vec.step(random_actions(out.action_mask, rng))
        done = out.terminated | out.truncated
        assert not (out.terminated & out.truncated).any()
        assert not out.rewards[~done].any(), "a reward before the end"
        if mode == "next_step":
            assert np.array_equal(out.info["reset"], was_over)
            assert not out.rewards[was_over].any()
        if mode == "disabled":
            assert not out.info["reset"].any()
            assert not (done & was_over).any(), "a finished game ended again"
        if mode == "same_step":
            assert np.array_equal(out.info["reset"], done)
            if done.any():
                assert np.array_equal(out.info["_final_obs"], done)
                assert (out.current_player[done] >= 0).all(), "same_step: the new game starts at once"
        for i in np.flatnonzero(out.terminated):
            ends += 1
            if mode != "same_step":
                st = vec.to_state(i)
                assert st.is_terminal()
                assert np.array_equal(out.rewards[i], st.returns().astype(np.float32))
                assert out.current_player[i] == -1
        for i in np.flatnonzero(out.truncated):
            assert not out.rewards[i].any()
            assert vec.episode_steps[i] == 120 or mode == "same_step"
        if mode == "disabled" and (out.current_player < 0).all():
            out = vec.reset(mask=np.ones(B, dtype=bool))
            assert out.info["reset"].all()
    assert ends or vec.max_steps, "no game ended"


@pytest.mark.parametrize("env_id,kwargs", CASES)
def test_views_take_put_from_states(env_id, kwargs):
    vec = make(env_id, kwargs, seed=11, autoreset="disabled")
    rng = np.random.default_rng(1)
    out = vec.reset()
    for _ in range(int(rng.integers(3, 12))):
        out = vec.step(random_actions(out.action_mask, rng))
    # every seat's view is the encoder's on the reference state
    for i in range(B):
        st = vec.to_state(i)
        for p, o in enumerate(views(vec, i)):
            assert obs_equal(o, _encode(env_id, kwargs, st, p)), f"seat {p}'s view of game {i}"
    # take: copies, in order, repeats allowed, independent of the original
    before = _snapshot(vec)
    sub = vec.take([2, 2, 0])
    assert sub.num_envs == 3 and sub.to_state(0) == vec.to_state(2) == sub.to_state(1)
    assert sub.to_state(2) == vec.to_state(0)
    sub_out = sub.step(random_actions(sub.action_mask(), rng))
    assert _same(before, _snapshot(vec)), "stepping a copy changed the original"
    # put: the copy's games go back into other slots
    vec.put([4, 5], sub.take([0, 2]))
    assert vec.to_state(4) == sub.to_state(0) and vec.to_state(5) == sub.to_state(2)
    assert np.array_equal(vec.current_player()[4:], sub_out.current_player[[0, 2]])
    # from_states: the reference states of another run, deals included
    states = [start_state(env_id, kwargs, seed) for seed in range(3)]
    for s in states:
        for _ in range(5):
            if s.current_player < 0:
                break
            legal = s.legal_actions()
            s.apply(legal[int(rng.integers(len(legal)))])
    loaded = vec.from_states(states)
    assert loaded.num_envs == 3
    for i, s in enumerate(states):
        assert loaded.to_state(i) == s
        if s.current_player >= 0:
            assert loaded.current_player()[i] == s.current_player
            o = obs_take(loaded.observe(s.current_player), i)
            assert obs_equal(o, _encode(env_id, kwargs, s, s.current_player))
    # a deep copy and a pickle continue identically
    dup, pick = copy.deepcopy(vec), pickle.loads(pickle.dumps(vec))
    a = random_actions(vec.action_mask(), rng)
    o1, o2, o3 = vec.step(a), dup.step(a), pick.step(a)
    assert obs_equal(o1.observation, o2.observation) and obs_equal(o1.observation, o3.observation)
    assert np.array_equal(o1.action_mask, o3.action_mask) and np.array_equal(o1.rewards, o3.rewards)


@pytest.mark.parametrize("env_id,kwargs", CASES)
def test_bad_input_leaves_the_batch_unchanged(env_id, kwargs):
    vec = make(env_id, kwargs, seed=5)
    out = vec.reset()
    rng = np.random.default_rng(2)
    out = vec.step(random_actions(out.action_mask, rng))
    before = _snapshot(vec)
    good = random_actions(out.action_mask, rng)
    bad_inputs = [
        good[:-1],
        good.astype(np.float64),
        good.astype(bool),
        good.reshape(1, -1),
        list(map(float, good)),
        "0",
        None,
    ]
    for bad in bad_inputs:
        with pytest.raises(IllegalActionError, match="actions must"):
            vec.step(bad)
        assert _same(before, _snapshot(vec))
    live = np.flatnonzero(out.current_player >= 0)
    i = int(live[-1])
    for value in (-1, vec.num_actions):
        a = good.copy()
        a[i] = value
        with pytest.raises(IllegalActionError, match=f"game {i}: action {value} is out of range"):
            vec.step(a)
        assert _same(before, _snapshot(vec))
    illegal = np.flatnonzero(~out.action_mask[i])
    if illegal.size:
        a = good.copy()
        a[i] = illegal[0]
        with pytest.raises(IllegalActionError, match=f"game {i}: action {illegal[0]}.* is not legal for player_"):
            vec.step(a)
        assert _same(before, _snapshot(vec))
        # the fast mode: that game ends with -1 for its mover, the others play on
        fast = make(env_id, kwargs, seed=5, illegal="penalty")
        fo = fast.reset()
        fo = fast.step(random_actions(fo.action_mask, np.random.default_rng(2)))
        mover = int(fo.current_player[i])
        res = fast.step(a)
        assert res.terminated[i] and res.rewards[i, mover] == -1.0 and res.current_player[i] == -1
        assert np.count_nonzero(res.rewards[i]) == 1
        assert not res.action_mask[i].any()
    with pytest.raises(ParameterError):
        vec.reset(mask=np.ones(B + 1, dtype=bool))
    with pytest.raises(ParameterError):
        vec.take([B])
    with pytest.raises(ParameterError):
        vec.observe(vec.num_players)
    with pytest.raises(ParameterError):
        vec.put([0, 0], vec.take([1, 2]))
    assert _same(before, _snapshot(vec))


def test_make_vec_checks_like_make():
    with pytest.raises(KeyError, match="unknown environment id"):
        envs.make_vec("chess_v0", 2)
    with pytest.raises(ParameterError, match="num_envs"):
        envs.make_vec("ataxx_v0", 0)
    with pytest.raises(ParameterError, match="num_envs"):
        envs.make_vec("ataxx_v0", True)
    with pytest.raises(ParameterError, match="autoreset"):
        envs.make_vec("ataxx_v0", 2, autoreset="always")
    with pytest.raises(ParameterError, match="backend"):
        envs.make_vec("ataxx_v0", 2, backend="gpu")
    with pytest.raises(ParameterError, match="no argument 'size'"):
        envs.make_vec("twixt_v0", 2, size=8)
    with pytest.raises(ParameterError, match="render"):
        envs.make_vec("ataxx_v0", 2, render_mode="ansi")
    with pytest.raises(ParameterError):
        envs.make_vec("twixt_v0", 2, board_size=4)
    with pytest.raises(RuntimeError, match="reset"):
        envs.make_vec("ataxx_v0", 2).step(np.zeros(2, dtype=np.int64))


def test_pack_and_unpack_masks():
    rng = np.random.default_rng(0)
    mask = rng.random((5, 834)) < 0.1
    packed = pack_mask(mask)
    assert packed.dtype == np.uint8 and packed.shape == (5, 105)
    assert np.array_equal(unpack_mask(packed, 834), mask)
    assert packed[0, 0] & 1 == mask[0, 0] and (packed[0, 1] >> 2) & 1 == mask[0, 10]


@pytest.mark.parametrize("env_id,kwargs", CASES)
def test_heuristic_values_are_the_games_own_evaluation(env_id, kwargs):
    """``core.heuristic_values(index, seats)`` (what the search mixes into its values with
    ``heuristic_weight``) is ``tanh(evaluate(state, seat) / value_scale)`` of the game's heuristics
    module on each reference state, whether a game's core computes it itself (Tantrix's numba
    kernel) or through ``to_state`` (the default)."""
    vec = make(env_id, kwargs, seed=5, autoreset="disabled")
    rng = np.random.default_rng(2)
    out = vec.reset()
    seats = np.arange(vec.num_players)
    checked = 0
    for ply in range(24):
        live = np.flatnonzero(vec.current_player() >= 0)
        if ply % 4 == 3 and live.size:
            got = vec.core.heuristic_values(live, seats)
            assert got.shape == (live.size, seats.size) and got.dtype == np.float64
            for j, i in enumerate(live.tolist()):
                st = vec.to_state(i)
                h = st.heuristics()
                want = [np.tanh(h.evaluate(st, int(p)) / h.value_scale) for p in seats]
                np.testing.assert_allclose(got[j], want, rtol=0, atol=1e-12, err_msg=f"game {i} at ply {ply}")
                checked += 1
            # a subset of games and seats, in any order, answers the same rows
            sub = live[::-1][:2]
            rows = [int(np.flatnonzero(live == i)[0]) for i in sub]
            np.testing.assert_allclose(vec.core.heuristic_values(sub, seats[::-1]), got[rows][:, ::-1])
        if not live.size:
            break
        out = vec.step(random_actions(out.action_mask, rng))
    assert checked > 0


def test_a_core_without_heuristics_says_so(monkeypatch):
    from envs.ataxx.state import AtaxxState

    vec = envs.make_vec("ataxx_v0", 2, seed=0)
    vec.reset()
    monkeypatch.setattr(AtaxxState, "heuristics", lambda self: None)
    with pytest.raises(ValueError, match="AtaxxState declares no heuristics module"):
        vec.core.heuristic_values(np.array([0, 1]), np.array([0]))
