"""The environment contract, checked on every registered environment id and each of its variants.

The cases are ``envs.ENV_IDS`` times ``envs.spec(env_id).variants`` (declared in
``envs/registry.py``: Ataxx standard and with blockers; TwixT 8x8, 24x24, pp, swap; Double TwixT;
Tantrix with 2, 3, 4 players, Doubles; Smartrix with 2, 4, 7 players, teams, kids), so a new game
is covered as soon as it is registered. For each case:

* PettingZoo's ``api_test`` (wrapped and raw), ``seed_test`` and ``render_test``;
* ``copy.deepcopy`` and ``pickle`` mid-game continue identically, and the copy is independent;
* an illegal action raises ``IllegalActionError`` and changes nothing (raw), or ends the episode
  with -1 for the offender (wrapped, as PettingZoo Classic);
* the environment's mask is the state's mask in the agent's frame (TwixT's black: transposed);
* ``clone()`` equality and independence; ``max_steps`` truncation; final rewards are the returns;
* one golden playthrough per id (tests/envs/playthrough.py, per-game hooks for extra lines).

The state-level half of the contract (history and notation replay, outcomes, teams, views,
determinization, errors) is in tests/envs/test_state_contract.py, over the same cases.
"""

from __future__ import annotations

import contextlib
import copy
import io
import pickle
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from playthrough import generate_playthrough, playthrough

import envs
from conftest import check_golden, contract_cases, env_random_steps, play_random, start_state
from envs import IllegalActionError

CASES = contract_cases()


@pytest.fixture(autouse=True)
def _quiet():
    """PettingZoo's tests warn about Dict observations and illegal moves, and print progress."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.redirect_stdout(io.StringIO()):
            yield


def _freeze(x):
    """A comparable, hashable image of an observation (arrays, dicts of arrays), a mask or a value."""
    if isinstance(x, dict):
        return tuple((k, _freeze(v)) for k, v in sorted(x.items()))
    if isinstance(x, np.ndarray):
        return (x.dtype.str, x.shape, x.tobytes())
    return x


def _trace(env, rng: np.random.Generator, limit: int = 20_000) -> list:
    """Play to the end with random legal actions; everything observable, ply by ply."""
    out = []
    for agent in env.agent_iter(limit):
        obs, reward, term, trunc, info = env.last()
        out.append((agent, _freeze(obs), reward, term, trunc, _freeze(info.get("action_mask"))))
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    return out


def _snapshot(raw) -> tuple:
    """Everything an illegal action must leave unchanged in a raw environment."""
    st = raw.state
    return (
        st.position_key(),
        list(st.history),
        st.to_text(),
        st.returns().tolist(),
        raw.agent_selection,
        list(raw.agents),
        dict(raw.rewards),
        dict(raw._cumulative_rewards),
        dict(raw.terminations),
        dict(raw.truncations),
        raw.num_steps,
        {a: _freeze(raw.observe(a)) for a in raw.possible_agents},
        {a: _freeze(raw.infos[a].get("action_mask")) for a in raw.agents},
    )


# ----------------------------------------------------------------------------- the cases
def test_every_registered_id_is_a_case_in_each_of_its_variants():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)) == sum(len(envs.spec(e).variants) for e in envs.ENV_IDS)
    assert {
        "ataxx_v0-standard",
        "ataxx_v0-blockers",
        "twixt_v0-8x8",
        "twixt_v0-24x24",
        "twixt_v0-pp",
        "twixt_v0-swap",
        "double_twixt_v0-8x8",
        "tantrix_v0-2p",
        "tantrix_v0-3p",
        "tantrix_v0-4p",
        "tantrix_v0-doubles",
        "smartrix_v0-2p",
        "smartrix_v0-4p",
        "smartrix_v0-7p",
        "smartrix_v0-teams",
        "smartrix_v0-kids",
    } <= set(ids)
    assert {c.values[0] for c in CASES} == set(envs.ENV_IDS)
    assert envs.spec("twixt_v0").variants["24x24"] == {} and envs.make_raw("twixt_v0").board_size == 24
    counts = {c.id: envs.spec(c.values[0]).num_players(**c.values[1]) for c in CASES}
    assert [counts[f"smartrix_v0-{v}"] for v in ("2p", "4p", "7p", "teams", "kids")] == [2, 4, 7, 4, 3]
    assert [counts[f"tantrix_v0-{v}"] for v in ("2p", "3p", "4p", "doubles")] == [2, 3, 4, 4]
    assert envs.spec("smartrix_v0").initial_state(**envs.spec("smartrix_v0").variants["kids"]).grid_limit is False


def test_register_variants_default_and_checks():
    from envs import registry

    s = envs.register("variants_test_v0", "envs.ataxx_v0")
    try:
        assert s.variants == {"default": {}}
        assert envs.EnvSpec("x_v0", "envs.ataxx_v0").variants == {"default": {}}
    finally:
        del registry._REGISTRY["variants_test_v0"]
    for bad in ({}, {"": {}}, {"a": 3}, ["a"]):
        with pytest.raises(envs.ParameterError, match="variants must be"):
            envs.register("variants_bad_v0", "envs.ataxx_v0", variants=bad)
    assert "variants_bad_v0" not in envs.env_ids()


# ----------------------------------------------------------------------------- PettingZoo's tests
@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_api_test(env_id, kwargs):
    s = envs.spec(env_id)
    api_test(s.make(**kwargs), num_cycles=1000)
    raw = s.make_raw(**kwargs)
    api_test(raw, num_cycles=1000)
    # api_test played real games: the raw env's state moved from its start.
    assert raw.num_steps > 0 and len(raw.state.history) == raw.num_steps


@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_seed_test_and_reset_seed_replays(env_id, kwargs):
    s = envs.spec(env_id)
    seed_test(lambda **k: s.make(**kwargs, **k), num_cycles=1000)
    e = s.make(**kwargs)
    e.reset(seed=42)
    t1 = _trace(e, np.random.default_rng(5))
    e.reset(seed=42)  # the same env, reset with the same seed: the same game
    t2 = _trace(e, np.random.default_rng(5))
    f = s.make(**kwargs)
    f.reset(seed=42)
    t3 = _trace(f, np.random.default_rng(5))
    assert t1 == t2 == t3 and len(t1) > s.num_players(**kwargs)
    assert all(term or trunc for (_, _, _, term, trunc, _) in t1[-len(e.possible_agents) :])


@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_render_test_and_render_modes(env_id, kwargs):
    s = envs.spec(env_id)
    render_test(lambda **k: s.make(**kwargs, **k))
    a = s.make_raw(render_mode="ansi", **kwargs)
    a.reset(seed=1)
    env_random_steps(a, np.random.default_rng(1), 3)
    assert a.render() == a.state.to_text()  # ansi is the spectator's text
    r = s.make_raw(render_mode="rgb_array", **kwargs)
    r.reset(seed=1)
    img = r.render()
    assert isinstance(img, np.ndarray) and img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert img.shape[0] >= 100 and img.shape[1] >= 100 and len(np.unique(img.reshape(-1, 3), axis=0)) > 2


# ----------------------------------------------------------------------------- copies
@pytest.mark.parametrize("copier", [copy.deepcopy, lambda e: pickle.loads(pickle.dumps(e))], ids=["deepcopy", "pickle"])
@pytest.mark.parametrize("wrapped", [False, True], ids=["raw_env", "env"])
@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_copy_mid_game_continues_identically(env_id, kwargs, wrapped, copier):
    s = envs.spec(env_id)
    e = s.make(**kwargs) if wrapped else s.make_raw(**kwargs)
    e.reset(seed=3)
    assert env_random_steps(e, np.random.default_rng(3), 6) == 6
    c = copier(e)
    assert c is not e and c.unwrapped.state is not e.unwrapped.state
    assert c.unwrapped.state == e.unwrapped.state and c.unwrapped.state.history == e.unwrapped.state.history
    t1 = _trace(e, np.random.default_rng(99))
    key = e.unwrapped.state.position_key()
    t2 = _trace(c, np.random.default_rng(99))
    assert t1 == t2 and len(t1) > 2
    assert e.unwrapped.state.position_key() == key  # playing the copy left the original alone
    finals = {agent: r for (agent, _, r, term, trunc, _) in t1 if term or trunc}
    assert [finals[a] for a in e.possible_agents] == e.unwrapped.state.returns().tolist()


@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_clone_equality_and_independence(env_id, kwargs):
    st = play_random(start_state(env_id, kwargs, seed=4), seed=4, moves=5)
    c = st.clone()
    assert c == st and c is not st and type(c) is type(st)
    assert c.history == st.history and c.moves() == st.moves() and c.position_key() == st.position_key()
    assert c.to_text() == st.to_text() and c.current_player == st.current_player
    assert np.array_equal(c.legal_action_mask(), st.legal_action_mask())
    key, hist, text = st.position_key(), list(st.history), st.to_text()
    c.apply(c.legal_actions()[-1])
    assert c != st and len(c.history) == len(hist) + 1
    assert st.position_key() == key and st.history == hist and st.to_text() == text
    a, b = st.clone(), st.clone()  # chance (bags, decks) continues identically in clones
    play_random(a, seed=8)
    play_random(b, seed=8)
    assert a.is_terminal() and a == b and a.history == b.history and a.outcome() == b.outcome()
    assert st.position_key() == key and st.history == hist


# ----------------------------------------------------------------------------- illegal actions
def _illegal_in_range(raw, rng: np.random.Generator) -> list[int]:
    masked_out = np.flatnonzero(raw.observe(raw.agent_selection)["action_mask"] == 0)
    picks = {int(masked_out[0]), int(masked_out[-1])} | {int(a) for a in rng.choice(masked_out, 3)}
    return sorted(picks)


@pytest.mark.parametrize("steps", [0, 5], ids=["start", "mid_game"])
@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_illegal_action_raises_and_changes_nothing(env_id, kwargs, steps):
    raw = envs.make_raw(env_id, **kwargs)
    raw.reset(seed=2)
    rng = np.random.default_rng(2)
    assert env_random_steps(raw, rng, steps) == steps
    before = _snapshot(raw)
    twin = copy.deepcopy(raw)
    n = raw.num_actions
    in_range = _illegal_in_range(raw, rng)
    for action in [*in_range, n, -1, 2.5, True, None, "a1", np.int64(n + 5)]:
        with pytest.raises(IllegalActionError) as err:
            raw.step(action)
        assert isinstance(err.value, ValueError)
        if action in in_range:
            assert str(action) in str(err.value), f"the message names the action: {err.value}"
        assert _snapshot(raw) == before, f"illegal action {action!r} changed the environment"
    assert _trace(raw, np.random.default_rng(7)) == _trace(twin, np.random.default_rng(7))  # the game goes on


@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_wrapped_env_illegal_action_loses(env_id, kwargs):
    e = envs.make(env_id, **kwargs)
    e.reset(seed=2)
    rng = np.random.default_rng(2)
    env_random_steps(e, rng, 3)
    offender = e.agent_selection
    bad = _illegal_in_range(e.unwrapped, rng)[0]
    e.step(bad)
    assert all(e.terminations.values())  # (PettingZoo's TerminateIllegalWrapper also sets truncations)
    assert e.rewards == {a: (-1 if a == offender else 0) for a in e.possible_agents}
    seen = {}
    for agent in e.agent_iter():
        _, reward, term, trunc, _ = e.last()
        assert term or trunc
        seen[agent] = reward
        e.step(None)
    assert seen == {a: (-1.0 if a == offender else 0.0) for a in e.possible_agents} and e.agents == []


# ----------------------------------------------------------------------------- masks and frames
def _twixt_frame(state, player: int) -> np.ndarray:
    """TwixT: black seats see the board transposed (hole (r, c) at (c, r)); the swap action (index
    s*s) stays put; Double TwixT's place-and-claim block is transposed like the holes; with
    links="manual" a link's add/remove action moves to the link between the transposed holes
    (end, end! stay put)."""
    mask = state.legal_action_mask()
    if "black" not in state.seat_name(player):
        return mask
    s = state.board_size
    n = s * s
    out = mask.copy()
    out[:n] = mask[:n].reshape(s, s).T.ravel()
    if getattr(state, "linking", "auto") == "manual":  # link (r1, c1)-(r2, c2) seen as (c1, r1)-(c2, r2)
        from envs.twixt import geometry

        g = geometry(s)
        nl = g.num_links
        for lid, (p, q) in enumerate(g.link_ends):
            t = g.link_id((p % s) * s + p // s, (q % s) * s + q // s)
            out[n + 1 + t] = mask[n + 1 + lid]
            out[n + 1 + nl + t] = mask[n + 1 + nl + lid]
        return out
    if len(mask) > n + 1:
        out[n + 1 :] = mask[n + 1 :].reshape(s, s).T.ravel()
    return out


#: game (``state.info.short_name``) -> the mask of ``player`` in its own frame, written out
#: independently of the state's frame methods. Games not listed show every agent the absolute frame.
FRAMES = {"twixt": _twixt_frame}


@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_env_mask_is_the_state_mask_in_the_agents_frame(env_id, kwargs):
    raw = envs.make_raw(env_id, **kwargs)
    raw.reset(seed=6)
    rng = np.random.default_rng(6)
    frame = FRAMES.get(raw.state.info.short_name, lambda st, p: st.legal_action_mask())
    plies = 0
    while raw.agents and not (raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]):
        st = raw.state
        p = st.current_player
        assert raw.agent_selection == raw.possible_agents[p]
        mask = raw.observe(raw.agent_selection)["action_mask"]
        assert mask.dtype == np.int8 and mask.shape == (raw.num_actions,)
        assert np.array_equal(mask, st.agent_action_mask(p)) and np.array_equal(mask, frame(st, p))
        assert np.array_equal(raw.infos[raw.agent_selection]["action_mask"], mask)
        legal = np.flatnonzero(mask).tolist()
        assert sorted(st.to_state_action(p, a) for a in legal) == st.legal_actions()
        assert all(st.to_agent_action(p, st.to_state_action(p, a)) == a for a in legal)
        for other in raw.possible_agents:
            if other != raw.agent_selection:
                assert not raw.observe(other)["action_mask"].any() and not raw.infos[other]["action_mask"].any()
        a = legal[rng.integers(len(legal))]
        assert raw.string_to_action(raw.action_to_string(a)) == a  # notation helpers in the agent's frame
        raw.step(a)
        plies += 1
    assert plies > 2 and raw.state.is_terminal()
    assert all(not raw.observe(a)["action_mask"].any() for a in raw.possible_agents)


# ----------------------------------------------------------------------------- the end
@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_final_rewards_are_the_returns(env_id, kwargs):
    e = envs.make(env_id, **kwargs)
    e.reset(seed=9)
    t = _trace(e, np.random.default_rng(9))
    st = e.unwrapped.state
    finals = {agent: r for (agent, _, r, term, trunc, _) in t if term or trunc}
    assert st.is_terminal() and e.agents == []
    assert [finals[a] for a in e.possible_agents] == st.returns().tolist()
    for team in st.teams():  # partners share one result
        assert len({finals[e.possible_agents[p]] for p in team}) == 1


@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_max_steps_truncates(env_id, kwargs):
    e = envs.make(env_id, max_steps=3, **kwargs)
    e.reset(seed=0)
    assert env_random_steps(e, np.random.default_rng(0), 10) == 3
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert all(r == 0 for r in e.rewards.values()) and not e.unwrapped.state.is_terminal()
    assert all(not e.observe(a)["action_mask"].any() for a in e.possible_agents)
    done = []
    for agent in e.agent_iter():
        done.append(agent)
        e.step(None)
    assert sorted(done) == sorted(e.possible_agents) and e.agents == []


# ----------------------------------------------------------------------------- golden playthroughs
@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_golden_playthrough(env_id):
    p = playthrough(env_id)
    trace = generate_playthrough(p)
    assert trace.count("\nmove ") > 10
    check_golden(trace, p.path)


@pytest.mark.parametrize("env_id", envs.ENV_IDS)
def test_notation_helpers_before_reset_say_so(env_id):
    env = envs.make_raw(env_id)
    agent = env.possible_agents[0]
    with pytest.raises(RuntimeError, match=r"call reset\(\) before action_to_string\(\)"):
        env.action_to_string(0, agent)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before string_to_action\(\)"):
        env.string_to_action("a1", agent)
    env.reset(seed=0)  # and after reset both work, in the agent's frame
    legal = int(np.flatnonzero(env.infos[env.agent_selection]["action_mask"])[0])
    assert env.string_to_action(env.action_to_string(legal)) == legal
