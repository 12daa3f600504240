"""twixt_v0 and double_twixt_v0: egocentric frames, teams, Privilege, rendering.
(PettingZoo's api/seed/render tests, copies, illegal actions and masks: tests/envs/test_contract.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import envs
from conftest import env_random_steps
from envs import IllegalActionError, ParameterError
from envs.twixt import KNIGHT_DIRS, TwixtState


def test_spaces_and_registry():
    e = envs.make("twixt_v0")
    assert e.unwrapped.num_players == 2
    assert e.action_space("player_0").n == 24 * 24 + 1
    assert e.observation_space("player_1")["observation"].shape == (24, 24, 23)
    assert e.observation_space("player_0") is e.observation_space("player_0")
    d = envs.make("double_twixt_v0", board_size=8)
    assert d.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    assert d.action_space("player_3").n == 2 * 64 + 1
    assert {"twixt_v0", "double_twixt_v0"} <= set(envs.ENV_IDS)
    with pytest.raises(ParameterError, match="no argument 'swap'"):
        envs.make("double_twixt_v0", swap=True)
    with pytest.raises(ParameterError):
        envs.make("twixt_v0", board_size=4)


def test_black_sees_and_acts_on_the_transposed_board():
    raw = envs.make_raw("twixt_v0", board_size=8)
    raw.reset(seed=0)
    s = 8
    raw.step(raw.string_to_action("c4"))  # red: row 4, column c -> absolute hole (3, 2)
    red_obs = raw.observe("player_0")["observation"]
    black_obs = raw.observe("player_1")["observation"]
    assert red_obs[3, 2, 0] == 1 and red_obs[:, :, 0].sum() == 1  # own peg for red
    assert black_obs[2, 3, 1] == 1 and black_obs[:, :, 1].sum() == 1  # opponent peg, transposed
    # Black's mask in its own frame: its forbidden rows 1 and 8 became columns 0 and 7.
    mask = raw.observe("player_1")["action_mask"]
    grid = mask[: s * s].reshape(s, s)
    assert grid[:, 0].sum() == 0 and grid[:, 7].sum() == 0 and grid[0, 1] == 1
    assert grid[2, 3] == 0  # the red peg's hole, transposed
    # Black's action at (row 3, col 4) of its frame is the absolute hole (4, 3), written d5.
    action = 3 * s + 4
    assert raw.action_to_string(action) == "d5"
    raw.step(action)
    assert raw.state.pegs()[4, 3] == 2
    # Both agents see their own pegs on plane 0 and the legal area identically shaped.
    assert raw.observe("player_1")["observation"][3, 4, 0] == 1
    assert np.array_equal(
        raw.observe("player_0")["observation"][:, :, 18], raw.observe("player_1")["observation"][:, :, 18]
    )


def test_link_planes_follow_the_frame():
    raw = envs.make_raw("twixt_v0", board_size=8)
    raw.reset(seed=0)
    for move in ("c3", "b2", "d5", "g7"):  # red c3 and d5 are a knight's move apart: linked
        raw.step(raw.state.to_agent_action(raw.state.current_player, raw.state.string_to_action(move)))
    assert raw.state.links() == [((2, 2), (4, 3), 0)]
    red = raw.observe("player_0")["observation"]
    d = KNIGHT_DIRS.index((2, 1))
    assert red[2, 2, 2 + d] == 1 and red[4, 3, 2 + KNIGHT_DIRS.index((-2, -1))] == 1
    assert red[:, :, 2:10].sum() == 2 and red[:, :, 10:18].sum() == 0
    black = raw.observe("player_1")["observation"]
    # For black the red link is an opponent link on the transposed holes (2,2) and (3,4).
    assert black[2, 2, 10 + KNIGHT_DIRS.index((1, 2))] == 1
    assert black[3, 4, 10 + KNIGHT_DIRS.index((-1, -2))] == 1
    assert black[:, :, 10:18].sum() == 2


def test_privilege_skips_the_next_opponent_and_team_rewards():
    raw = envs.make_raw("double_twixt_v0", board_size=8)
    raw.reset(seed=0)
    s = 8
    assert raw.observe("player_0")["observation"][0, 0, 20] == 1  # own team's Privilege available
    claim = s * s + 1 + 3 * s + 2  # place on (3, 2) = c4 and claim
    raw.step(claim)
    assert raw.state.pegs()[3, 2] == 1
    assert raw.agent_selection == "player_2"  # player_1 (black A) skipped, red B moves
    obs = raw.observe("player_2")["observation"]
    assert obs[0, 0, 20] == 0 and obs[0, 0, 21] == 1  # red used it, black still has it
    assert not raw.observe("player_2")["action_mask"][s * s + 1 :].any()  # red cannot claim again


def test_team_rewards_reach_all_four_agents():
    raw = envs.make_raw("double_twixt_v0", board_size=6)
    raw.reset(seed=1)
    rng = np.random.default_rng(1)
    env_random_steps(raw, rng, 500)
    assert all(raw.terminations.values())
    r = [raw._cumulative_rewards[a] for a in raw.possible_agents]
    assert r[0] == r[2] and r[1] == r[3] and r[0] == -r[1]
    assert r == raw.state.returns().tolist()


def test_illegal_action_messages_name_both_frames():
    """(The generic illegal-action checks are in tests/envs/test_contract.py.)"""
    raw = envs.make_raw("twixt_v0", board_size=8)
    raw.reset(seed=0)
    with pytest.raises(IllegalActionError):
        raw.step(0)  # a corner
    with pytest.raises(IllegalActionError):
        raw.step(64)  # swap while swap is off
    raw.step(18)  # red c3
    with pytest.raises(IllegalActionError, match="player_1's action 8 \\(in its own frame; 1 in the board's\\)"):
        raw.step(8)  # black's (1, 0) is the absolute b1, in red's border row
    assert raw.state.pegs().sum() == 1 and raw.agent_selection == "player_1"


def test_rgb_and_ansi_render():
    e = envs.make("twixt_v0", board_size=8, render_mode="rgb_array")
    e.reset(seed=0)
    img = e.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    red_pixels = ((img[:, :, 0] > 180) & (img[:, :, 1] < 80)).sum()
    assert red_pixels > 50  # red border lines drawn
    a = envs.make("twixt_v0", board_size=8, render_mode="ansi")
    a.reset(seed=0)
    assert str(TwixtState(8)) == a.render()


def test_action_layout_covers_every_hole_action_once():
    d = envs.make_raw("double_twixt_v0", board_size=8)
    al = d.action_layout()
    assert al.obs_key is None and not al.factored and al.off_grid.tolist() == [64]  # the swap
    assert al.index.shape == (2, 8, 8)
    assert sorted(al.index.ravel().tolist()) == [a for a in range(129) if a != 64]
    t = envs.make_raw("twixt_v0", board_size=6).action_layout()
    assert t.index.shape == (1, 6, 6) and t.off_grid.tolist() == [36]
    assert t.index[0, 2, 5] == 2 * 6 + 5  # agent frame: row * S + col


def test_distance_planes_option():
    raw = envs.make_raw("twixt_v0", board_size=8, distance_planes=True)
    assert raw.observation_space("player_0")["observation"].shape == (8, 8, 27)
    raw.reset(seed=0)
    raw.step(raw.string_to_action("d1"))  # red peg on its own first border, absolute (0, 3)
    red = raw.observe("player_0")["observation"]
    black = raw.observe("player_1")["observation"]
    assert red[0, 3, 23] == 0  # own peg on the first border: distance 0
    assert red[0, 1, 23] == 1 / 16  # an empty hole of the first border: 1 (planes are d / 2S)
    assert red[0, 0, 23] == 1.0  # the corner: unreachable
    assert black[3, 0, 25] == 0  # the red peg seen by black (transposed), opponent's first border
    assert black[0, 1, 23] == 1 / 16  # black's own first border is the top row of its frame
    plain = envs.make_raw("twixt_v0", board_size=8)
    plain.reset(seed=0)
    plain.step(plain.string_to_action("d1"))
    assert np.array_equal(red[:, :, :23], plain.observe("player_0")["observation"])  # first 23 planes unchanged
    with pytest.raises(ParameterError, match="distance_planes"):
        envs.make_raw("twixt_v0", distance_planes="yes")


def test_accessors_validate_their_arguments():
    s = TwixtState(8)
    for bad in (2, -1, True):
        with pytest.raises(ValueError, match="team must be 0"):
            s.privilege_used(bad)
    for r, c in ((-1, 0), (8, 0), (0, 1.5)):
        with pytest.raises(ValueError, match="must be an integer in 0..7"):
            s.peg_at(r, c)
    s.push("c3")
    assert s.peg_at(2, 2) == 1 and s.privilege_used(0) is False
