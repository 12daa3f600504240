"""The PettingZoo environment ``ataxx_v0``: spaces, observations, masks, rewards, truncation,
registry and constructor validation. (PettingZoo's api/seed/render tests, copies, illegal actions
and masks: tests/envs/test_contract.py.)"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import envs
from conftest import REPO_ROOT, diagram
from envs import InvalidPositionError, ParameterError, ataxx_v0
from envs.ataxx import NUM_ACTIONS, PASS_ACTION, AtaxxState

AGENTS = ["player_0", "player_1"]


def raw(**kw):
    e = ataxx_v0.raw_env(**kw)
    e.reset(seed=0)
    return e


def wrapped(**kw):
    e = ataxx_v0.env(**kw)
    e.reset(seed=0)
    return e


def move(e, text: str) -> None:
    e.step(AtaxxState.string_to_action(text))


# --------------------------------------------------------------------------- PettingZoo test suite
def test_render_modes_output():
    e = raw(render_mode="ansi")
    text = e.render()
    assert isinstance(text, str) and "a b c d e f g" in text and "x to move" in text
    img = raw(render_mode="rgb_array").render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.shape[0] > 100


# --------------------------------------------------------------------------- registry
def test_registry():
    assert "ataxx_v0" in envs.ENV_IDS and isinstance(envs.ENV_IDS, tuple)
    e = envs.make("ataxx_v0")
    assert isinstance(e.unwrapped, ataxx_v0.raw_env)
    assert e.metadata["name"] == "ataxx_v0"
    assert e.metadata["is_parallelizable"] is False
    assert set(e.metadata["render_modes"]) == {"ansi", "rgb_array", "human"}
    e.reset(seed=1)
    assert e.agents == AGENTS and e.possible_agents == AGENTS and e.agent_selection == "player_0"
    r = envs.make_raw("ataxx_v0", fen="startpos", max_steps=10)
    assert isinstance(r, ataxx_v0.raw_env) and r.max_steps == 10


def test_versioned_module_reachable_from_package():
    """``import envs; envs.ataxx_v0.env()``: every versioned module is an attribute of the package
    without importing it first (``envs.__getattr__``).

    Run in a fresh interpreter: in this process another test may already have imported the
    submodule, which makes the attribute appear. (Regression: the attribute used to be missing
    until someone imported the submodule.)
    """
    code = "import envs; e = envs.ataxx_v0.env(); e.reset(seed=0); print(e.agent_selection)"
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout.strip() == "player_0"


def test_make_passes_kwargs():
    e = envs.make("ataxx_v0", fen="7/7/7/2x1o2/7/7/7 x 0 1")
    e.reset()
    assert int(e.observe("player_0")["action_mask"].sum()) == 23


@pytest.mark.parametrize("bad", ["ataxx_v1", "Ataxx_v0", "", "chess_v6"])
def test_unknown_id(bad):
    with pytest.raises(KeyError, match="ataxx_v0"):
        envs.make(bad)
    with pytest.raises(KeyError):
        envs.make_raw(bad)


# --------------------------------------------------------------------------- spaces and observations
def test_spaces_are_stable_objects():
    e = wrapped()
    for agent in AGENTS:
        assert e.observation_space(agent) is e.observation_space(agent)
        assert e.action_space(agent) is e.action_space(agent)
        assert e.action_space(agent).n == NUM_ACTIONS == 834
        obs_space = e.observation_space(agent)
        assert obs_space["observation"].shape == (7, 7, 5) and obs_space["observation"].dtype == np.float32
        assert obs_space["action_mask"].shape == (834,) and obs_space["action_mask"].dtype == np.int8


KNOWN = diagram(
    """
    x . . . . . o
    . . . . . . .
    . . . . . . .
    . . . - . . .
    . . . . . . .
    . . . . . x .
    o . . . . . x
""",
    rest="o 30 12",
)


def _expected_planes(me: str) -> np.ndarray:
    """Planes of KNOWN for the player with stones ``me``, written out square by square."""
    them = "o" if me == "x" else "x"
    stones = {"a7": "x", "g7": "o", "d4": "-", "f2": "x", "a1": "o", "g1": "x"}
    out = np.zeros((7, 7, 5), dtype=np.float32)
    for r in range(7):
        for f in range(7):
            sq = "abcdefg"[f] + str(7 - r)
            piece = stones.get(sq, ".")
            out[r, f, 0] = piece == me
            out[r, f, 1] = piece == them
            out[r, f, 2] = piece == "-"
            out[r, f, 3] = piece == "."
    out[:, :, 4] = 0.30
    return out


def test_observation_planes_both_players():
    e = raw(fen=KNOWN)
    assert e.agent_selection == "player_1"
    for agent, me in (("player_0", "x"), ("player_1", "o")):
        obs = e.observe(agent)["observation"]
        assert obs.dtype == np.float32 and obs.shape == (7, 7, 5)
        np.testing.assert_allclose(obs, _expected_planes(me), atol=1e-7)
        assert e.observation_space(agent).contains(e.observe(agent))
    p0, p1 = e.observe("player_0")["observation"], e.observe("player_1")["observation"]
    # Own stones first for each agent: x's a7 is plane 0 for player_0, plane 1 for player_1.
    assert p0[0, 0, 0] == 1 and p0[0, 0, 1] == 0 and p1[0, 0, 0] == 0 and p1[0, 0, 1] == 1
    assert p0[6, 0, 1] == 1 and p1[6, 0, 0] == 1  # o's a1
    assert p0[3, 3, 2] == p1[3, 3, 2] == 1 and p0[3, 3, 3] == 0  # the gap d4
    assert p0[:, :, :4].sum() == 49  # each square in exactly one of the first four planes


def test_clock_plane_is_capped():
    e = raw(fen="x5o/7/7/7/7/7/o5x x 130 1", halfmove_clock=False)
    assert np.all(e.observe("player_0")["observation"][:, :, 4] == 1.0)
    e = raw()
    assert np.all(e.observe("player_0")["observation"][:, :, 4] == 0.0)
    move(e, "g1e3")
    assert np.allclose(e.observe("player_1")["observation"][:, :, 4], 0.01)


def test_action_mask_only_for_agent_to_move():
    e = wrapped()
    state = AtaxxState()
    for ply in range(6):
        mover = AGENTS[ply % 2]
        other = AGENTS[1 - ply % 2]
        assert e.agent_selection == mover
        m_mover, m_other = e.observe(mover)["action_mask"], e.observe(other)["action_mask"]
        assert m_mover.dtype == np.int8 and m_other.dtype == np.int8
        assert m_mover.shape == m_other.shape == (NUM_ACTIONS,)
        assert np.array_equal(m_mover, state.legal_action_mask())
        assert m_mover.sum() == len(state.legal_actions()) > 0
        assert m_other.sum() == 0
        assert np.array_equal(e.infos[mover]["action_mask"], m_mover)
        assert np.array_equal(e.infos[other]["action_mask"], m_other)
        obs, _, _, _, info = e.last()
        assert np.array_equal(obs["action_mask"], m_mover) and np.array_equal(info["action_mask"], m_mover)
        a = state.legal_actions()[ply % len(state.legal_actions())]
        state.apply(a)
        e.step(a)


def test_pass_mask_in_env():
    e = raw(fen="7/7/7/7/ooo4/ooo4/xoo4 x 0 1")
    mask = e.observe("player_0")["action_mask"]
    assert mask.sum() == 1 and mask[PASS_ACTION] == 1
    e.step(PASS_ACTION)
    assert e.agent_selection == "player_1" and e.state.fen() == "7/7/7/7/ooo4/ooo4/xoo4 o 1 1"


# --------------------------------------------------------------------------- illegal actions
# --------------------------------------------------------------------------- rewards, truncation
ONE_FROM_WIN = "7/7/7/1x1o3/7/7/7 x 0 1"  # any x move next to d4 captures o's last stone


@pytest.mark.parametrize("make", [raw, wrapped], ids=["raw_env", "env"])
def test_terminal_rewards_reach_both_agents(make):
    e = make(fen=ONE_FROM_WIN)
    assert e.agent_selection == "player_0"
    move(e, "c4")
    assert e.unwrapped.state.fen() == "7/7/7/1xxx3/7/7/7 o 0 1"
    assert e.unwrapped.state.outcome().result == "1-0"
    assert e.terminations == {"player_0": True, "player_1": True}
    assert e.truncations == {"player_0": False, "player_1": False}
    assert e.rewards == {"player_0": 1.0, "player_1": -1.0}
    seen = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        seen[agent] = reward
        assert term and not trunc
        assert obs["action_mask"].sum() == 0 and info["action_mask"].sum() == 0
        e.step(None)
    assert seen == {"player_0": 1.0, "player_1": -1.0}


def test_draw_by_clock_gives_zero():
    e = raw(fen="x5o/7/7/7/7/7/o5x x 99 1")
    move(e, "g1e3")
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0}


def test_clock_off_keeps_playing():
    e = raw(fen="x5o/7/7/7/7/7/o5x x 99 1", halfmove_clock=False)
    move(e, "g1e3")
    assert not any(e.terminations.values()) and e.agent_selection == "player_1"
    assert e.observe("player_1")["action_mask"].sum() == 16


def test_max_steps_truncation():
    e = raw(max_steps=3)
    for m in ("g2", "f7", "a7c5"):
        assert not any(e.truncations.values())
        move(e, m)
    assert e.truncations == {"player_0": True, "player_1": True}
    assert e.terminations == {"player_0": False, "player_1": False}
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert e.observe("player_1")["action_mask"].sum() == 0
    assert e.infos["player_1"]["action_mask"].sum() == 0
    seen = []
    for agent in e.agent_iter():
        _, reward, term, trunc, _ = e.last()
        assert trunc and not term and reward == 0
        seen.append(agent)
        e.step(None)
    assert sorted(seen) == AGENTS and e.agents == []


def test_max_steps_does_not_override_a_result():
    e = raw(fen=ONE_FROM_WIN, max_steps=1)
    move(e, "c4")
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert e.rewards == {"player_0": 1.0, "player_1": -1.0}


@pytest.mark.parametrize("make", [ataxx_v0.raw_env, ataxx_v0.env], ids=["raw_env", "env"])
def test_reset_on_a_finished_position(make):
    """A FEN that is already over: reset works and reports the end (and the result) to both agents.

    Regression: reset() used not to set ``agent_selection`` when the loaded position was terminal
    (``last()`` raised AttributeError), fixed in envs/core/aec.py.
    """
    e = make(fen="7/7/7/3x3/7/7/7 o 0 1")
    e.reset(seed=0)
    assert e.agent_selection in AGENTS
    assert e.terminations == {"player_0": True, "player_1": True}
    assert e.rewards == {"player_0": 1.0, "player_1": -1.0}
    seen = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        assert term and not trunc
        assert obs["action_mask"].sum() == 0 and info["action_mask"].sum() == 0
        seen[agent] = reward
        e.step(None)
    assert e.agents == []
    assert seen == {"player_0": 1.0, "player_1": -1.0}
    # A second reset of the same env behaves the same way.
    e.reset()
    assert e.agent_selection in AGENTS and all(e.terminations.values())


# --------------------------------------------------------------------------- copies and seeding
def test_reset_restores_the_start_position():
    e = raw(fen="x5o/7/3-3/2-1-2/3-3/7/o5x o 3 7")
    move(e, "a1c2")
    e.reset()
    assert e.state.fen() == "x5o/7/3-3/2-1-2/3-3/7/o5x o 3 7"
    assert e.agent_selection == "player_1" and e.agents == AGENTS
    assert not any(e.terminations.values()) and e.num_steps == 0


# --------------------------------------------------------------------------- constructor validation
@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"fen": "x5o/7/7/7/7/7 x 0 1"}, InvalidPositionError),
        ({"fen": "not a fen"}, InvalidPositionError),
        ({"fen": 17}, InvalidPositionError),
        ({"max_steps": 0}, ParameterError),
        ({"max_steps": -5}, ParameterError),
        ({"max_steps": 2.5}, ParameterError),
        ({"max_steps": True}, ParameterError),
        ({"render_mode": "bogus"}, ParameterError),
        ({"render_mode": "rgb"}, ParameterError),
        ({"halfmove_clock": "yes"}, ParameterError),
        ({"halfmove_clock": 1}, ParameterError),
    ],
)
@pytest.mark.parametrize(
    "factory",
    [ataxx_v0.env, ataxx_v0.raw_env, lambda **kw: envs.make("ataxx_v0", **kw)],
    ids=["env", "raw_env", "make"],
)
def test_bad_constructor_args(factory, kwargs, error):
    with pytest.raises(error) as info:
        factory(**kwargs)
    assert isinstance(info.value, ValueError)
    name = next(iter(kwargs))
    assert (name in str(info.value)) or name == "fen", f"message should name {name!r}: {info.value}"


def test_unknown_kwarg_is_a_type_error():
    with pytest.raises(TypeError):
        ataxx_v0.env(board_size=9)


def test_action_notation_helpers():
    e = raw()
    assert e.action_to_string(PASS_ACTION) == "0000"
    for a in np.flatnonzero(e.observe("player_0")["action_mask"]):
        assert e.string_to_action(e.action_to_string(int(a))) == a
    assert sorted(e.action_to_string(int(a)) for a in np.flatnonzero(e.observe("player_0")["action_mask"])) == sorted(
        AtaxxState().legal_moves()
    )


def test_unknown_constructor_argument_lists_the_valid_ones():
    with pytest.raises(
        envs.ParameterError, match="ataxx_v0 has no argument 'foo'; its arguments are: fen, halfmove_clock"
    ):
        envs.make("ataxx_v0", foo=1)
    with pytest.raises(ValueError, match="no argument 'colour'"):
        envs.make_raw("ataxx_v0", colour="red")


def test_zero_dimensional_int_array_actions_and_numpy_max_steps():
    raw = envs.make_raw("ataxx_v0", max_steps=np.int64(3))
    with pytest.raises(RuntimeError, match="call reset\\(\\) before last\\(\\)"):
        raw.last()
    raw.reset(seed=0)
    raw.step(np.array(13))  # what MaskablePPO.predict() returns for one observation
    assert raw.state.fen() == "x5o/7/7/7/7/6x/o5x o 0 1"
    wrapped = envs.make("ataxx_v0")
    wrapped.reset(seed=0)
    wrapped.step(np.array(13))
    assert wrapped.unwrapped.state.fen() == "x5o/7/7/7/7/6x/o5x o 0 1"


def test_step_and_last_after_the_episode_say_it_is_over():
    import envs

    for wrapped in (False, True):
        e = envs.make("ataxx_v0") if wrapped else envs.make_raw("ataxx_v0")
        e.reset(seed=0)
        rng = np.random.default_rng(0)
        for _ in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        with pytest.raises(RuntimeError, match=r"last\(\): the episode is over .*call reset\(\)"):
            e.last()
        if not wrapped:  # the wrapped env() only warns on step, as PettingZoo's wrapper does
            with pytest.raises(RuntimeError, match=r"step\(\): the episode is over"):
                e.step(0)
    assert type(envs.make("ataxx_v0")).__name__ == "OrderEnforcingWrapper"
