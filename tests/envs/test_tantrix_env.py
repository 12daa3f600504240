"""tantrix_v0: spaces, observation, layout, rendering and the heuristics.
(PettingZoo's api/seed/render tests, copies, illegal actions and masks: tests/envs/test_contract.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import env_random_steps
from envs import ParameterError, tantrix_v0
from envs.tantrix import TantrixState
from envs.tantrix.env import NUM_PLANES
from envs.tantrix.heuristics import placement_value, tantrix_greedy_action, tantrix_score_gap


def test_spaces_and_shapes():
    e = tantrix_v0.raw_env(num_players=3)
    R, H = 16, 33
    assert e.action_space("player_0").n == 36 * H * H
    sp = e.observation_space("player_2")["observation"]
    assert sp["board"].shape == (H, H, NUM_PLANES) and sp["hands"].shape == (3, 6, 24) and sp["globals"].shape == (14,)
    assert e.observation_space("player_0") is e.observation_space("player_0")
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    for key in ("board", "hands", "globals"):
        assert obs["observation"][key].dtype == np.float32 and sp[key].contains(obs["observation"][key])
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].sum() == 36
    al = e.action_layout()
    assert al is e.action_layout() and al.obs_key == "board" and al.num_actions == e.num_actions
    assert al.off_grid.size == 0 and al.planes == 36 and (al.height, al.width) == (H, H)
    layout = al.index
    assert layout.shape == (36, H, H) and layout.dtype == np.int64 and not layout.flags.writeable
    assert sorted(layout.ravel().tolist()) == list(range(e.num_actions))  # every action on the grid, once
    outside = np.abs(np.arange(H)[:, None] + np.arange(H)[None, :] - 2 * R) > R  # |q + r| > R
    assert outside.sum() == H * H - (3 * R * (R + 1) + 1)
    rng = np.random.default_rng(0)
    while e.agents and not any(e.terminations.values()):  # outside the hexagon is never legal
        mask = e.observe(e.agent_selection)["action_mask"]
        assert not mask[layout[:, outside]].any()
        e.step(int(rng.choice(np.flatnonzero(mask))))
    assert layout[0, R, R] == e.state.encode(0, 0, 0, 0)
    slot, rot, q, r = e.state.decode(int(layout[13, 3, 20]))
    assert (slot * 6 + rot, r + R, q + R) == (13, 3, 20)
    with pytest.raises(ParameterError):
        tantrix_v0.env(num_players=1)
    with pytest.raises(ParameterError):
        tantrix_v0.env(num_players=3, teams=True)


def test_observation_is_egocentric():
    e = tantrix_v0.raw_env(num_players=2)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    env_random_steps(e, rng, 7)
    st = e.state
    R = e.window_radius
    for p in range(2):
        o = e.observe(f"player_{p}")["observation"]
        b = o["board"]
        own = st.colour_of(p)
        # every placed tile: its edge colours, own colour in slot 0 of each edge's four
        for t, q, r, k in st.placed:
            cell = b[r + R, q + R]
            assert cell[24] == 1
            from envs.tantrix.state import TR_EDGES

            for d in range(6):
                c = TR_EDGES[t * 6 + k][d]
                idx = 0 if c == own else 1 + [x for x in (1, 2, 3, 4) if x != own].index(c)
                assert cell[4 * d + idx] == 1 and cell[4 * d : 4 * d + 4].sum() == 1
        assert b[:, :, 24].sum() == len(st.placed)
        assert {(q, r) for q, r in st.forced_spaces()} == {(c - R, rr - R) for rr, c in zip(*np.nonzero(b[:, :, 25]))}
        assert b[:, :, 27].sum() == 3 * R * (R + 1) + 1
        last = st.placed[-1]
        assert b[last[2] + R, last[1] + R, 28] == 1 and b[:, :, 28].sum() == 1
        # hands: own first; slot tile one-hot
        h = o["hands"]
        assert h.shape == (2, 6, 24)
        for i, pp in enumerate([p, 1 - p]):
            for slot, t in enumerate(st.hand(pp)):
                assert h[i, slot].sum() == (6 if t != -1 else 0)
        g = o["globals"]
        assert g[0] == pytest.approx(st.bag_size / 56)
        assert g[1:4].sum() == 1 and g[1 + st.phase_index] == 1
        assert g[5] == float(st.current_player == p)
        assert g[8 + (st.current_player - p) % 2] == 1
        assert g[10] == pytest.approx(st.scores()[p] / 112)


def test_same_agent_acts_through_its_turn_and_infos():
    e = tantrix_v0.raw_env(num_players=2)
    e.reset(seed=2)
    rng = np.random.default_rng(2)
    seen_repeat = False
    prev = None
    while not all(e.terminations.values()):
        agent = e.agent_selection
        assert e.state.current_player == int(agent.split("_")[1])
        assert list(e.infos[agent]) == ["action_mask"]  # nothing else: TorchRL's wrapper needs that
        if agent == prev:
            seen_repeat = True
        prev = agent
        mask = e.observe(agent)["action_mask"]
        assert (e.infos[agent]["action_mask"] == mask).all()
        e.step(int(rng.choice(np.flatnonzero(mask))))
    assert seen_repeat  # forced moves: the same agent acted twice in a row
    assert sum(e._cumulative_rewards.values()) in (0.0,) or set(e.rewards.values()) <= {-1.0, 0.0, 1.0}


def test_render_modes():
    e = tantrix_v0.raw_env(render_mode="rgb_array")
    e.reset(seed=3)
    env_random_steps(e, np.random.default_rng(3), 20)
    img = e.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    # black tiles and the four line colours appear
    flat = img.reshape(-1, 3)
    assert ((flat < 20).all(axis=1)).sum() > 1000
    for rgb in [(225, 35, 35), (250, 215, 20), (40, 110, 235), (30, 175, 70)]:
        assert (np.abs(flat.astype(int) - rgb).sum(axis=1) < 30).any()
    a = tantrix_v0.raw_env(render_mode="ansi")
    a.reset(seed=3)
    text = a.render()
    assert text == str(a.state) and "player" in text and "bag 44" in text


def test_heuristics():
    s = TantrixState(2, seed=4)
    rng = np.random.default_rng(0)
    while not s.is_terminal():
        p = s.current_player
        a = tantrix_greedy_action(s, rng)
        assert a in s.legal_actions()
        best = max(placement_value(s, b, s.colour_of(p)) for b in s.legal_actions())
        assert placement_value(s, a, s.colour_of(p)) == best
        s.apply(a)
    sc = s.scores()
    assert tantrix_score_gap(s, 0) == sc[0] - sc[1] and tantrix_score_gap(s, 1) == sc[1] - sc[0]
    # greedy beats random more often than not
    wins = 0
    for seed in range(20):
        st = TantrixState(2, seed=seed)
        r = np.random.default_rng(seed)
        while not st.is_terminal():
            if st.current_player == 0:
                st.apply(tantrix_greedy_action(st, r))
            else:
                la = st.legal_actions()
                st.apply(la[r.integers(len(la))])
        wins += st.returns()[0] > 0
    assert wins >= 14


def test_action_plane_features_read_the_turned_hand_tile():
    """Plane (slot, rot) of the factored head describes exactly the tile that action places."""
    from envs.tantrix.state import TR_EDGES

    e = tantrix_v0.raw_env(num_players=2)
    e.reset(seed=4)
    al = e.action_layout()
    assert al.plane_key == "hands" and al.plane_index.shape == (36, 24) and al.plane_features is None
    assert al.factored
    obs = e.observe(e.agent_selection)["observation"]
    flat = obs["hands"].reshape(-1)
    st = e.state
    me = st.current_player
    own = st.colour_of(me)
    order = [own] + [c for c in (1, 2, 3, 4) if c != own]  # the observer's colour order
    for slot, tile in enumerate(st._hands[me]):
        for rot in range(6):
            got = flat[al.plane_index[slot * 6 + rot]].reshape(6, 4)
            want = np.zeros((6, 4))
            for d, colour in enumerate(TR_EDGES[tile * 6 + rot]):
                want[d, order.index(colour)] = 1
            np.testing.assert_array_equal(got, want)


def _line_length(st, q, r, entry_edge, colour):
    """Tiles on the ``colour`` line through the tile at (q, r), walked edge to edge from its
    ``entry_edge`` (an independent count: no union-find)."""
    from envs.tantrix.state import DIRS, tile_edges

    count, seen = 0, set()
    stack = [(q, r, entry_edge)]
    while stack:
        q, r, e_in = stack.pop()
        if (q, r) in seen:
            continue
        at = st.tile_at(q, r)
        if at is None:
            continue
        seen.add((q, r))
        count += 1
        edges = tile_edges(*at)
        for e in range(6):  # both ends of the colour's segment lead on
            if edges[e] == colour and e != e_in:
                dq, dr = DIRS[e]
                stack.append((q + dq, r + dr, (e + 3) % 6))
    return count


def test_line_planes_give_the_lines_entering_each_open_hex():
    from envs.tantrix.state import COLOURS, DIRS, tile_edges

    e = tantrix_v0.raw_env(num_players=2)
    checked = 0
    for seed in range(3):
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while e.agents and not any(e.terminations.values()):
            st = e.state
            me = st.current_player
            b = e.observe(e.agent_selection)["observation"]["board"]
            R = e.window_radius
            own = COLOURS[st.colour_of(me) - 1]
            other = COLOURS[st.colour_of(1 - me) - 1]
            for q, r in st.candidate_cells():
                for d in range(6):
                    dq, dr = DIRS[d]
                    at = st.tile_at(q + dq, r + dr)
                    want_own = want_other = 0.0
                    if at is not None:
                        colour = tile_edges(*at)[(d + 3) % 6]
                        length = _line_length(st, q + dq, r + dr, (d + 3) % 6, colour) / 56
                        want_own, want_other = (
                            (length, 0.0) if colour == own else (0.0, length) if colour == other else (0, 0)
                        )
                        checked += 1
                    assert b[r + R, q + R, 29 + d] == pytest.approx(want_own)
                    assert b[r + R, q + R, 35 + d] == pytest.approx(want_other)
            mask = e.observe(e.agent_selection)["action_mask"]
            e.step(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 500
