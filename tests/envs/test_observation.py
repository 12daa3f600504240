"""Observations and action layouts, for every env id and variant.

The observation hashes in ``tests/golden/observation_hashes.json`` were recorded from the
per-env ``_observe`` methods before the encoders moved into the games' packages
(``envs/<game>/observation.py``); these tests prove the encodings stayed bit-identical.
"""

from __future__ import annotations

import copy
import json
import pickle
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from obs_golden_cases import CASES, GOLDEN, observation_hash

import envs
from envs.core.observation import ActionLayout, ObservationEncoder

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = json.loads(GOLDEN.read_text())


def test_every_case_has_a_recorded_hash():
    assert sorted(EXPECTED) == sorted(name for name, *_ in CASES)
    assert {env_id for _, env_id, _, _ in CASES} == set(envs.ENV_IDS)


@pytest.mark.parametrize("name,env_id,kwargs,plies", CASES, ids=[c[0] for c in CASES])
def test_observations_are_bit_identical_to_the_recorded_ones(name, env_id, kwargs, plies):
    assert observation_hash(env_id, kwargs, plies) == EXPECTED[name]


@pytest.mark.parametrize("name,env_id,kwargs,plies", CASES, ids=[c[0] for c in CASES])
def test_every_env_speaks_one_encoder_and_layout_api(name, env_id, kwargs, plies):
    raw = envs.make_raw(env_id, **kwargs)
    enc = raw.encoder
    assert isinstance(enc, ObservationEncoder)
    assert raw.observation_space("player_0")["observation"] is enc.space
    assert "_observe" not in type(raw).__dict__ and "_observation_box" not in type(raw).__dict__
    layout = raw.action_layout()
    assert isinstance(layout, ActionLayout) and layout is raw.action_layout()
    assert layout.num_actions == raw.num_actions
    obs_space = enc.space
    if layout.obs_key is None:
        assert obs_space.shape[:2] == (layout.height, layout.width)
    else:
        assert obs_space[layout.obs_key].shape[:2] == (layout.height, layout.width)
    if layout.plane_key is not None:
        size = int(np.prod(obs_space[layout.plane_key].shape))
        assert layout.plane_index.max() < size
    on_grid = layout.index[layout.index >= 0]
    assert on_grid.size + layout.off_grid.size == raw.num_actions
    # encode(state, player) is what observe() returns, and a copied env keeps its encoder working
    raw.reset(seed=3)
    agent = raw.agent_selection
    got = raw.observe(agent)["observation"]
    again = enc.encode(raw.state, raw.possible_agents.index(agent))
    for k in got if isinstance(got, dict) else [None]:
        a, b = (got[k], again[k]) if k else (got, again)
        assert a.dtype == np.float32 and np.array_equal(a, b)
    twin = pickle.loads(pickle.dumps(raw))
    assert twin.action_layout().index.tolist() == layout.index.tolist()
    assert copy.deepcopy(raw).encoder.space == obs_space


def test_ataxx_layout_puts_each_move_on_its_arrival_square():
    raw = envs.make_raw("ataxx_v0")
    layout = raw.action_layout()
    assert layout.index.shape == (17, 7, 7) and layout.off_grid.tolist() == [833]  # the pass
    raw.reset(seed=0)
    # the observation's row 0 is rank 7: "a7" is cell (0, 0); a clone onto b6 is plane 0 at (1, 1)
    assert raw.action_to_string(int(layout.index[0, 1, 1])) == "b6"
    mask = raw.observe("player_0")["action_mask"]
    obs = raw.observe("player_0")["observation"]
    legal_clone_cells = {
        tuple(int(v) for v in np.argwhere(layout.index[0] == a)[0]) for a in np.flatnonzero(mask) if a < 49
    }
    # every legal clone lands on an empty square of the observation (plane 3)
    assert legal_clone_cells and all(obs[r, c, 3] == 1 for r, c in legal_clone_cells)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        (dict(index=np.zeros((2, 2)), num_actions=4), "index must be an int array"),
        (dict(index=np.zeros((1, 2, 2), dtype=np.int64), num_actions=4), "distinct action ids"),
        (dict(index=np.arange(4).reshape(1, 2, 2), num_actions=3), r"distinct action ids in \[0, 3\)"),
        (dict(index=np.arange(4).reshape(1, 2, 2), num_actions=0), "num_actions must be a positive integer"),
        (
            dict(index=np.arange(4).reshape(1, 2, 2), num_actions=4, plane_features=np.zeros((2, 3))),
            r"plane_features must have shape \(1, F\)",
        ),
        (
            dict(index=np.arange(4).reshape(1, 2, 2), num_actions=4, plane_index=np.zeros((1, 3), dtype=int)),
            "plane_index and plane_key go together",
        ),
        (
            dict(
                index=np.arange(4).reshape(1, 2, 2),
                num_actions=4,
                plane_index=np.zeros((1, 3), dtype=int),
                plane_key="h",
                plane_features=np.zeros((1, 3)),
            ),
            "not both",
        ),
        (
            dict(
                index=np.arange(4).reshape(1, 2, 2),
                num_actions=4,
                plane_index=-np.ones((1, 3), dtype=int),
                plane_key="h",
            ),
            "plane_index must be non-negative ints",
        ),
    ],
)
def test_action_layout_rejects_malformed_fields(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ActionLayout(**kwargs)


def test_action_layout_derived_fields_and_read_only_arrays():
    idx = np.array([[[0, 1], [-1, 3]]])
    layout = ActionLayout(index=idx, num_actions=6, obs_key="board", plane_features=[[1.0, 2.0]])
    assert (layout.planes, layout.height, layout.width) == (1, 2, 2)
    assert layout.off_grid.tolist() == [2, 4, 5] and layout.factored
    assert layout.plane_features.dtype == np.float32 and layout.index.dtype == np.int64
    idx[0, 0, 0] = 5  # a copy: the caller's array does not change it
    assert layout.index[0, 0, 0] == 0
    with pytest.raises(ValueError):
        layout.index[0, 0, 0] = 2
    assert not ActionLayout(index=idx, num_actions=6).factored


def test_no_module_outside_a_game_reads_its_private_state_fields():
    out = subprocess.run(
        ["grep", "-rnE", r"\b(st|state|s)\._[a-z]", "training/", "envs/core/"], cwd=ROOT, capture_output=True, text=True
    )
    assert out.stdout == ""
    for game in ("ataxx", "twixt", "tantrix", "smartrix"):  # env.py only calls the encoder
        text = (ROOT / "envs" / game / "env.py").read_text()
        assert not re.search(r"\b(st|state|s|probe)\._[a-z]", text), game


def test_an_env_without_an_encoder_is_a_clear_error():
    from envs.core.aec import TabletopAECEnv

    class NoEncoder(TabletopAECEnv):
        def __init__(self):
            self.num_players, self.num_actions = 2, 3
            super().__init__()

    with pytest.raises(TypeError, match="NoEncoder must set self.encoder"):
        NoEncoder()
