"""Feature extractors for Dict observations (board + side information) and the hexagonal kernel."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch

from envs.core.observation import ActionLayout
from training.agents import policy_action

pytest.importorskip("sb3_contrib")

from training.features import BoardVectorNet, CardTableNet, HexBoardNet, HexConv2d  # noqa: E402  (SB3 adapters)


def _space(h=5, w=5, c=3, extra=(4,)):
    return gym.spaces.Dict(
        {
            "board": gym.spaces.Box(0, 1, (h, w, c), np.float32),
            "hands": gym.spaces.Box(0, 1, extra, np.float32),
            "globals": gym.spaces.Box(0, 1, (2,), np.float32),
        }
    )


def test_hex_conv_sees_exactly_the_six_neighbours():
    torch.manual_seed(0)
    conv = HexConv2d(1, 1)
    with torch.no_grad():
        conv.weight.fill_(1.0)
        conv.bias.zero_()
    for (dr, dq), expect in {
        (0, 0): 1,
        (0, 1): 1,
        (0, -1): 1,
        (1, 0): 1,
        (-1, 0): 1,
        (-1, 1): 1,
        (1, -1): 1,
        (-1, -1): 0,
        (1, 1): 0,
    }.items():
        x = torch.zeros(1, 1, 5, 5)
        x[0, 0, 2 + dr, 2 + dq] = 1.0
        assert conv(x)[0, 0, 2, 2].item() == expect, (dr, dq)


def test_hex_conv_corners_stay_out_after_training():
    torch.manual_seed(0)
    conv = HexConv2d(2, 3)
    opt = torch.optim.SGD(conv.parameters(), lr=0.5)
    for _ in range(3):
        opt.zero_grad()
        conv(torch.randn(4, 2, 6, 6)).pow(2).sum().backward()
        opt.step()
    x = torch.zeros(1, 2, 3, 3)
    x[0, :, 0, 0] = 5.0
    x[0, :, 2, 2] = -7.0
    y0 = conv(torch.zeros(1, 2, 3, 3))[0, :, 1, 1]
    assert torch.allclose(conv(x)[0, :, 1, 1], y0)


@pytest.mark.parametrize("cls", [HexBoardNet, CardTableNet])
def test_board_vector_net_shapes_and_vector_influence(cls):
    torch.manual_seed(0)
    space = _space()
    net = cls(space, board_key="board", channels=8, blocks=2, features_dim=0)
    assert net.features_dim == 8 * 5 * 5 and (net.height, net.width, net.channels) == (5, 5, 8)
    obs = {k: torch.as_tensor(np.stack([sp.sample() for _ in range(3)])) for k, sp in space.spaces.items()}
    out = net(obs)
    assert out.shape == (3, 200)
    changed = dict(obs, hands=obs["hands"] + 1.0)
    assert not torch.allclose(net(changed), out)  # the hands reach every cell
    dense = cls(space, board_key="board", channels=8, blocks=2, features_dim=16)
    assert dense(obs).shape == (3, 16)


def test_board_vector_net_rejects_bad_spaces():
    with pytest.raises(ValueError, match="Dict observation"):
        BoardVectorNet(gym.spaces.Box(0, 1, (3, 3, 2), np.float32))
    two = gym.spaces.Dict({"a": gym.spaces.Box(0, 1, (3, 3, 2)), "b": gym.spaces.Box(0, 1, (3, 3, 2))})
    with pytest.raises(ValueError, match="give board_key"):
        BoardVectorNet(two)
    with pytest.raises(ValueError, match="board_key 'nope'"):
        BoardVectorNet(_space(), board_key="nope")
    with pytest.raises(ValueError, match="channels"):
        HexBoardNet(_space(), channels=0)


class _DictGame(gym.Env):
    """A one-step game: action (plane p, cell r, c) pays 1 when p == argmax of the hand vector."""

    def __init__(self):
        self.observation_space = _space(3, 3, 2, extra=(2,))
        self.action_space = gym.spaces.Discrete(2 * 9)
        self._obs = None

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._obs = {k: sp.sample() for k, sp in self.observation_space.spaces.items()}
        return self._obs, {}

    def step(self, action):
        best = int(np.argmax(self._obs["hands"]))
        return self._obs, float(int(action) // 9 == best), True, False, {}

    def action_masks(self):
        m = np.ones(18, dtype=bool)
        m[4] = False  # a masked action never taken
        return m


def test_spatial_policy_trains_on_dict_observations(tmp_path):
    from sb3_contrib import MaskablePPO

    from training.features import SpatialMaskablePolicy

    env = _DictGame()
    layout = ActionLayout(index=np.arange(18).reshape(2, 3, 3), num_actions=18, obs_key="board")
    model = MaskablePPO(
        SpatialMaskablePolicy,
        env,
        n_steps=64,
        batch_size=32,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={
            "features_extractor_class": CardTableNet,
            "features_extractor_kwargs": {"board_key": "board", "channels": 4, "blocks": 1, "features_dim": 0},
            "net_arch": {"pi": [], "vf": [8]},
            "action_layout": layout,
        },
    )
    model.learn(128)
    model.save(tmp_path / "m.zip")
    loaded = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    assert loaded.policy.action_layout.index.tolist() == layout.index.tolist()
    obs, _ = env.reset(seed=1)
    mask = env.action_masks().astype(np.int8)
    a = policy_action(loaded.policy, obs, mask)
    b = policy_action(model.policy, obs, mask)
    assert a == b and mask[a] == 1
    only = np.zeros(18, dtype=np.int8)
    only[7] = 1
    assert policy_action(loaded.policy, obs, only) == 7


def test_factored_head_shares_planes_and_round_trips(tmp_path):
    """Two planes with the same features get the same logits; the policy saves and loads."""
    from sb3_contrib import MaskablePPO

    from training.features import SpatialActionHead, SpatialMaskablePolicy

    torch.manual_seed(0)
    feats = np.array([[1, 0, 1], [1, 0, 1], [0, 1, 0]], dtype=np.float32)
    layout = np.arange(27).reshape(3, 3, 3)
    head = SpatialActionHead(4, 3, 3, layout, 28, plane_features=feats, plane_dim=5)
    out = head(torch.randn(2, 4 * 9))
    assert out.shape == (2, 28)
    assert torch.allclose(out[:, 0:9], out[:, 9:18]) and not torch.allclose(out[:, 0:9], out[:, 18:27])
    with pytest.raises(ValueError, match="plane_features must have shape"):
        SpatialActionHead(4, 3, 3, layout, 28, plane_features=feats[:2])

    env = _DictGame()
    model = MaskablePPO(
        SpatialMaskablePolicy,
        env,
        n_steps=64,
        batch_size=32,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={
            "features_extractor_class": CardTableNet,
            "features_extractor_kwargs": {"board_key": "board", "channels": 4, "blocks": 1},
            "net_arch": {"pi": [], "vf": [8]},
            "action_layout": ActionLayout(
                index=np.arange(18).reshape(2, 3, 3), num_actions=18, obs_key="board", plane_features=np.eye(2)
            ),
        },
    )
    model.learn(64)
    model.save(tmp_path / "f.zip")
    loaded = MaskablePPO.load(tmp_path / "f.zip", device="cpu")
    obs, _ = env.reset(seed=2)
    mask = env.action_masks().astype(np.int8)
    assert policy_action(loaded.policy, obs, mask) == policy_action(model.policy, obs, mask)
    np.testing.assert_array_equal(loaded.policy.action_net.plane_features.numpy(), np.eye(2))


def test_factored_head_reads_plane_descriptions_from_the_observation(tmp_path):
    """plane_index: plane p is described by observation values; equal values, equal logits."""
    from sb3_contrib import MaskablePPO

    from training.features import SpatialMaskablePolicy

    env = _DictGame()
    kwargs = {
        "features_extractor_class": CardTableNet,
        "features_extractor_kwargs": {"board_key": "board", "channels": 4, "blocks": 1, "append": ["hands"]},
        "net_arch": {"pi": [], "vf": [8]},
        "action_layout": ActionLayout(
            index=np.arange(18).reshape(2, 3, 3),
            num_actions=18,
            obs_key="board",
            plane_index=np.array([[0], [1]]),
            plane_key="hands",
        ),
    }
    model = MaskablePPO(
        SpatialMaskablePolicy, env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu", policy_kwargs=kwargs
    )
    model.learn(64)
    pol = model.policy
    obs, _ = env.reset(seed=3)
    obs["hands"][:] = 0.25  # both planes described alike: identical logits on every cell
    with torch.no_grad():
        t = {k: torch.as_tensor(v)[None] for k, v in obs.items()}
        logits = pol.action_net(pol.mlp_extractor.forward_actor(pol.extract_features(t, pol.pi_features_extractor)))
    assert torch.allclose(logits[0, :9], logits[0, 9:18])
    model.save(tmp_path / "d.zip")
    loaded = MaskablePPO.load(tmp_path / "d.zip", device="cpu")
    mask = env.action_masks().astype(np.int8)
    obs["hands"][:] = [0.9, 0.1]
    assert policy_action(loaded.policy, obs, mask) == policy_action(pol, obs, mask)
    bad = dict(kwargs, features_extractor_kwargs={"board_key": "board", "channels": 4, "blocks": 1})
    with pytest.raises(ValueError, match="add it to the features extractor's append list"):
        MaskablePPO(SpatialMaskablePolicy, env, n_steps=64, batch_size=32, device="cpu", policy_kwargs=bad)
    wrong_map = dict(
        kwargs, action_layout=ActionLayout(index=np.arange(18).reshape(2, 3, 3), num_actions=18, obs_key="hands")
    )
    with pytest.raises(ValueError, match="extractor's map is 'board': give it board_key='hands'"):
        MaskablePPO(SpatialMaskablePolicy, env, n_steps=64, batch_size=32, device="cpu", policy_kwargs=wrong_map)
    with pytest.raises(ValueError, match="needs action_layout, an ActionLayout"):
        MaskablePPO(
            SpatialMaskablePolicy,
            env,
            n_steps=64,
            batch_size=32,
            device="cpu",
            policy_kwargs=dict(kwargs, action_layout=np.arange(18).reshape(2, 3, 3)),
        )


def test_factored_head_initialisation_lets_both_factors_learn():
    """SB3 shrinks the action net to gain 0.01; the factored head shrinks only the plane
    embedding's last layer, so the cell embedding keeps a normal scale and gradients flow."""
    from sb3_contrib import MaskablePPO

    from training.features import SpatialMaskablePolicy

    env = _DictGame()
    model = MaskablePPO(
        SpatialMaskablePolicy,
        env,
        n_steps=64,
        batch_size=32,
        seed=0,
        device="cpu",
        policy_kwargs={
            "features_extractor_class": CardTableNet,
            "features_extractor_kwargs": {"board_key": "board", "channels": 4, "blocks": 1},
            "net_arch": {"pi": [], "vf": [8]},
            "action_layout": ActionLayout(
                index=np.arange(18).reshape(2, 3, 3), num_actions=18, obs_key="board", plane_features=np.eye(2)
            ),
        },
    )
    head = model.policy.action_net
    assert head.cell.weight.abs().max() > 0.1  # normal scale
    assert head.plane[-1].weight.abs().max() < 0.05  # small initial logits
    assert head.plane[0].weight.abs().max() > 0.1


def test_pooled_value_head_fits_where_the_dense_one_saturates(tmp_path):
    """On Tantrix (a 21x21 window: 14,400 flattened features) SB3's dense value MLP saturates its
    Tanh within a few Adam steps; the pooled trunk keeps learning the returns."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.engines.sb3.trainer import build_model
    from training.features import PooledValueTrunk
    from training.pretrain import collect_demonstrations
    from training.selfplay import OpponentPool, SelfPlayEnv
    from training.train import load_config

    torch.set_num_threads(1)
    cfg = load_config("configs/tantrix_quick.yaml")
    data = collect_demonstrations(cfg, "greedy", 12, seed=0)
    y = torch.as_tensor(data["returns"])
    found = {}
    for value_head in ("dense", "pooled"):
        cfg["policy"]["value_head"] = value_head
        pool = OpponentPool(["random"], 1.0, 0.0, 1, seed=0)
        venv = DummyVecEnv([lambda: SelfPlayEnv(cfg["env_id"], pool, env_kwargs=cfg["env_kwargs"])])  # noqa: B023 - DummyVecEnv calls it at once
        model = build_model(cfg, venv, 0)
        p = model.policy
        assert isinstance(p.mlp_extractor.value_net, PooledValueTrunk) == (value_head == "pooled")
        obs, _ = p.obs_to_tensor(data["obs"])
        opt = torch.optim.Adam(p.parameters(), lr=1e-3)
        gen = torch.Generator().manual_seed(0)
        for _ in range(25):
            idx = torch.randint(0, len(y), (128,), generator=gen)
            loss = ((p.predict_values({k: x[idx] for k, x in obs.items()}).flatten() - y[idx]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            latent = p.mlp_extractor.forward_critic(p.extract_features(obs))
            v = p.value_net(latent).flatten()
        found[value_head] = ((latent.abs() > 0.99).float().mean().item(), 1 - ((y - v).var() / y.var()).item())
        if value_head == "pooled":  # the choice survives save and load
            model.save(tmp_path / "p.zip")
            loaded = MaskablePPO.load(tmp_path / "p.zip", device="cpu")
            assert loaded.policy.value_head == "pooled"
            with torch.no_grad():
                assert torch.allclose(loaded.policy.predict_values(obs), p.predict_values(obs), atol=1e-5)
    (dense_sat, dense_ev), (pooled_sat, pooled_ev) = found["dense"], found["pooled"]
    assert dense_sat > 0.5 and pooled_sat < 0.05
    assert pooled_ev > 0.6 and pooled_ev > dense_ev + 0.3


def test_pooled_value_trunk_shapes_and_errors():
    from training.features import PooledValueTrunk

    trunk = PooledValueTrunk(4, 3, 5, extra_dim=6, sizes=[16, 8])
    x = torch.randn(7, 4 * 3 * 5 + 6)
    assert trunk(x).shape == (7, 8) and trunk.out_dim == 8
    y = x.clone()
    y[:, -1] += 1.0  # the appended features reach the output
    assert not torch.allclose(trunk(x), trunk(y))
    with pytest.raises(ValueError, match="at least one layer size"):
        PooledValueTrunk(4, 3, 5, sizes=[])
