"""smartrix_v0: spaces, observation contents, action layout, rendering.
(PettingZoo's api/seed/render tests, copies, illegal actions, masks and team rewards: tests/envs/test_contract.py.)"""

from __future__ import annotations

import numpy as np
import pytest

import envs.smartrix_v0 as smartrix_v0
from conftest import env_random_steps
from envs import ParameterError
from envs.smartrix import SmartrixState


def test_spaces():
    e = smartrix_v0.env(num_players=3)
    assert e.possible_agents == ["player_0", "player_1", "player_2"]
    assert e.action_space("player_0").n == 280 * 49 + 1
    obs_space = e.observation_space("player_1")["observation"]
    assert {k: v.shape for k, v in obs_space.spaces.items()} == {
        "table": (7, 7, 13),
        "hand": (70,),
        "seen": (70,),
        "players": (3, 5),
        "globals": (3,),
    }
    assert e.observation_space("player_0") is e.observation_space("player_0")
    kids = smartrix_v0.raw_env(grid_limit=False)
    assert kids.action_space("player_0").n == 280 * 441 + 1
    assert kids.observation_space("player_0")["observation"]["table"].shape == (21, 21, 13)
    with pytest.raises(ParameterError):
        smartrix_v0.env(num_players=8)
    with pytest.raises(ParameterError):
        smartrix_v0.env(teams=True)


def test_observation_contents():
    raw = smartrix_v0.raw_env(num_players=3)
    raw.reset(seed=2)
    st: SmartrixState = raw.state
    obs = raw.observe("player_0")
    o = obs["observation"]
    assert all(o[k].dtype == np.float32 for k in o) and obs["action_mask"].dtype == np.int8
    assert sorted(np.flatnonzero(o["hand"]) + 1) == st.hand(0) and o["hand"].sum() == 6
    assert np.flatnonzero(o["seen"]).tolist() == [st.table()[0][0] - 1]
    n, k, r, c = st.table()[0]
    t = o["table"]
    assert t[3, 3, 0] == 1 and t[:, :, 0].sum() == 1  # the face-up card in the window's centre
    from envs.smartrix import CARD_PATTERNS, CARD_VALUES

    assert t[3, 3, 1:9].tolist() == [(int(CARD_PATTERNS[n - 1, k]) >> i) & 1 for i in range(8)]
    assert t[3, 3, 9] == pytest.approx(CARD_VALUES[n - 1] / 8)
    assert t[:, :, 10].sum() == 49  # a single card: the whole 7x7 window is inside some 5x5 box
    p = o["players"]
    assert p[:, 1].tolist() == pytest.approx([6 / 70, 5 / 70, 5 / 70]) and p[:, 3].tolist() == [1, 0, 0]
    assert p[:, 4].tolist() == [1, 0, 0]
    assert o["globals"].tolist() == pytest.approx([(70 - 16 - 1) / 70, 1 / 70, 0.0])
    # Observer order: player_1 sees itself first, then player_2, then player_0 (to move).
    p1 = raw.observe("player_1")["observation"]["players"]
    assert p1[:, 4].tolist() == [0, 0, 1] and p1[0, 1] == pytest.approx(5 / 70)
    assert raw.observe("player_1")["action_mask"].sum() == 0
    assert np.array_equal(raw.infos["player_0"]["action_mask"], obs["action_mask"])


def test_team_observation_marks_partners():
    raw = smartrix_v0.raw_env(num_players=4, teams=True)
    raw.reset(seed=0)
    assert raw.observe("player_1")["observation"]["players"][:, 3].tolist() == [1, 0, 1, 0]


def test_window_follows_the_table_and_every_mask_action_is_on_the_layout():
    raw = smartrix_v0.raw_env()
    raw.reset(seed=4)
    al = raw.action_layout()
    assert al.obs_key == "table" and al.off_grid.tolist() == [raw.num_actions - 1]  # pass
    layout = al.index
    assert layout.shape == (280, 7, 7) and layout.dtype == np.int64
    assert np.array_equal(np.sort(layout.ravel()), np.arange(raw.num_actions - 1))
    rng = np.random.default_rng(0)
    for _ in range(30):
        if any(raw.terminations.values()):
            break
        st = raw.state
        o = raw.observe(raw.agent_selection)["observation"]["table"]
        # the table plane shows exactly the table cards at their window squares
        r0, c0 = st.window_origin()
        assert {(r - r0, c - c0) for _, _, r, c in st.table()} == set(zip(*np.nonzero(o[:, :, 0])))
        for a in st.legal_placements()[:20]:
            plane, wr, wc = np.argwhere(layout == a)[0]
            n, k, r, c = st.decode(a)
            assert (plane, wr, wc) == ((n - 1) * 4 + k, r - r0, c - c0)
            assert o[wr, wc, 10] == 1 and o[wr, wc, 0] == 0
        env_random_steps(raw, rng, 1)


def test_notation_helpers_on_the_env():
    raw = smartrix_v0.raw_env()
    raw.reset(seed=0)
    a = raw.state.legal_placements()[0]
    assert raw.string_to_action(raw.action_to_string(a)) == a
    assert raw.action_to_string(raw.num_actions - 1) == "pass"


def test_render_modes():
    e = smartrix_v0.env(render_mode="rgb_array")
    e.reset(seed=0)
    img = e.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.shape[1] == 7 * 60 + 60
    a = smartrix_v0.env(render_mode="ansi")
    a.reset(seed=0)
    text = a.render()
    assert "player 0 to move" in text and "table: " in text


def test_action_plane_features_describe_each_card_rotation():
    from envs.smartrix import CARD_PATTERNS, CARD_VALUES

    e = smartrix_v0.raw_env()
    al = e.action_layout()
    assert al.plane_index is None and al.plane_key is None and al.factored
    f = al.plane_features
    assert f.shape == (280, 9) and f.dtype == np.float32
    for card, rot in ((0, 0), (16, 1), (69, 3), (40, 2)):
        row = f[card * 4 + rot]
        assert row[:8].tolist() == [(int(CARD_PATTERNS[card, rot]) >> i) & 1 for i in range(8)]
        assert row[8] == pytest.approx(CARD_VALUES[card] / 8)
    assert f[:, :8].sum(axis=1).tolist() == (f[:, 8] * 8).round().tolist()  # value = number of spots


def test_collect_planes_match_what_a_placement_would_collect():
    """Planes 11-12: for every open square next to the table, the cards (and their value) that a
    card placed there would collect, as the rules' placement_collects says; zero elsewhere."""
    from envs.smartrix import CARD_VALUES

    e = smartrix_v0.raw_env(num_players=2)
    seen_sets = 0
    for seed in range(6):
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while e.agents and not any(e.terminations.values()):
            st = e.state
            obs = e.observe(e.agent_selection)
            t = obs["observation"]["table"]
            w = st.window
            for cell in range(w * w):
                wr, wc = divmod(cell, w)
                taken = st.placement_collects(cell)  # action of card index 0, rotation 0 on that square
                open_next_to_table = (
                    t[wr, wc, 10] == 1
                    and t[wr, wc, 0] == 0
                    and any(
                        t[r, c, 0]
                        for r in range(max(0, wr - 1), min(w, wr + 2))
                        for c in range(max(0, wc - 1), min(w, wc + 2))
                    )
                )
                if open_next_to_table:
                    assert t[wr, wc, 11] * 16 == pytest.approx(len(taken))
                    assert t[wr, wc, 12] * 128 == pytest.approx(sum(int(CARD_VALUES[n - 1]) for n in taken))
                    seen_sets += bool(taken)
                else:
                    assert t[wr, wc, 11] == 0 and t[wr, wc, 12] == 0
            mask = obs["action_mask"]
            e.step(int(rng.choice(np.flatnonzero(mask))))
    assert seen_sets > 20
