"""The networks are plain torch modules; SB3 gets thin adapters, RLlib uses them directly.

* RLlib training needs no stable-baselines3: a fresh interpreter that cannot import
  ``stable_baselines3`` or ``sb3_contrib`` imports ``training.features`` and every module of the
  RLlib path, builds the RLlib network of a game and runs it.
* The SB3 adapters (training/engines/sb3/policy.py) add nothing to the trunks: the same parameter names,
  the same weights from the same seed, the same outputs; the old import paths
  (``training.features.<name>``, which checkpoints pickle) give the adapters.
* :class:`training.features.ActorCriticNet` and :func:`training.features.spatial_action_head`:
  shapes, dtypes and errors.
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import textwrap

import gymnasium as gym
import numpy as np
import pytest
import torch

from conftest import REPO_ROOT
from envs.core.observation import ActionLayout
from training import features as nets

#: A finder that refuses stable-baselines3 and sb3-contrib, as if they were not installed.
_BLOCK_SB3 = """
import sys

class _NoSB3:
    BLOCKED = ("stable_baselines3", "sb3_contrib")

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.BLOCKED:
            raise ImportError(f"{name} is blocked in this test (as if stable-baselines3 were not installed)")
        return None

sys.meta_path.insert(0, _NoSB3())
"""


def _run_without_sb3(code: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", _BLOCK_SB3 + textwrap.dedent(code)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_blocker_refuses_stable_baselines3():
    """The check below would prove nothing if the finder let SB3 through."""
    proc = _run_without_sb3("""
        for name in ("stable_baselines3", "sb3_contrib", "stable_baselines3.common.torch_layers"):
            try:
                __import__(name)
            except ImportError:
                continue
            raise SystemExit(f"{name} was imported")
        print("BLOCKED")
    """)
    assert proc.returncode == 0 and "BLOCKED" in proc.stdout, proc.stdout + proc.stderr


def test_the_rllib_network_imports_builds_and_runs_without_stable_baselines3():
    """training.features, the RLlib module, env and config, and the RLlib agent: no SB3 needed.

    (The RLlib *trainer* is reached through ``training.train``, which still checks for the whole
    ``train`` extra at import, SB3 included: that is the engines' part of the work.)"""
    pytest.importorskip("ray.rllib")
    proc = _run_without_sb3("""
        import sys

        import torch
        import yaml

        import training.features as nets
        import training.agents.rllib
        import training.engines.rllib.config
        import training.engines.rllib.env
        import training.engines.rllib.module
        from ray.rllib.core.columns import Columns
        from training.engines.rllib.env import GameMultiAgentEnv
        from training.engines.rllib.module import module_spec

        for path, extra in (("configs/ataxx_rllib.yaml", {"features": "board_cnn", "head": "spatial"}),
                            ("configs/tantrix_rllib.yaml", {})):
            cfg = yaml.safe_load(open(path))
            policy = {"features_kwargs": {}, "net_arch": {"pi": [], "vf": [64]}, "value_head": "dense",
                      **cfg.get("policy", {}), **extra}
            cfg = {"env_id": cfg["env_id"], "env_kwargs": cfg.get("env_kwargs") or {}, "policy": policy}
            module = module_spec(cfg).build()
            env = GameMultiAgentEnv({"env_id": cfg["env_id"], "env_kwargs": cfg["env_kwargs"], "baselines": [],
                                     "baseline_prob": 0.0, "latest_prob": 1.0, "seed": 0})
            obs, _ = env.reset(seed=0)
            (aid, o), = obs.items()
            batch = torch.utils.data.default_collate([o])
            with torch.no_grad():
                logits = module.forward_inference({Columns.OBS: batch})[Columns.ACTION_DIST_INPUTS]
                values = module.compute_values({Columns.OBS: batch})
            assert logits.shape == (1, len(o["action_mask"])) and values.shape == (1,), (logits.shape, values.shape)
            assert isinstance(module.features_extractor, nets.SPATIAL_TRUNKS)
            print(path, type(module.features_extractor).__name__, type(module.value_trunk).__name__)
        loaded = [m for m in sys.modules if m.split(".")[0] in ("stable_baselines3", "sb3_contrib")]
        assert not loaded, loaded
        try:
            nets.BoardCNN  # an SB3 adapter: asking for it needs SB3
        except ImportError:
            print("RLLIB_WITHOUT_SB3_OK")
    """)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "RLLIB_WITHOUT_SB3_OK" in proc.stdout, out[-4000:]
    assert "tantrix_rllib.yaml HexBoardTrunk PooledValueTrunk" in proc.stdout, out[-4000:]


def _space(h=5, w=5, c=3):
    return gym.spaces.Dict(
        {
            "board": gym.spaces.Box(0, 1, (h, w, c), np.float32),
            "hands": gym.spaces.Box(0, 1, (2, 3), np.float32),
            "globals": gym.spaces.Box(0, 1, (2,), np.float32),
        }
    )


def _batch(space, n=4, seed=0):
    space.seed(seed)
    if isinstance(space, gym.spaces.Dict):
        return {k: torch.as_tensor(np.stack([sp.sample() for _ in range(n)])) for k, sp in space.spaces.items()}
    return torch.as_tensor(np.stack([space.sample() for _ in range(n)]))


BOX = gym.spaces.Box(0, 1, (6, 6, 4), np.float32)
#: (SB3 adapter name, plain trunk, space, kwargs)
PAIRS = [
    ("BoardCNN", nets.BoardCNNTrunk, BOX, {"channels": 8, "blocks": 2, "features_dim": 0}),
    ("BoardCNN", nets.BoardCNNTrunk, BOX, {"channels": 8, "blocks": 2}),
    ("BoardVectorNet", nets.BoardVectorTrunk, _space(), {"channels": 4, "blocks": 2, "append": ["hands"]}),
    ("HexBoardNet", nets.HexBoardTrunk, _space(), {"channels": 4, "blocks": 3, "append": ["hands"]}),
    ("CardTableNet", nets.CardTableTrunk, _space(), {"channels": 4, "blocks": 1, "features_dim": 16}),
]


@pytest.mark.parametrize("name, trunk, space, kwargs", PAIRS, ids=[f"{p[0]}-{i}" for i, p in enumerate(PAIRS)])
def test_an_sb3_adapter_is_its_trunk_and_nothing_more(name, trunk, space, kwargs):
    pytest.importorskip("sb3_contrib")
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    from training.engines.sb3 import policy as sb3_policy

    adapter = getattr(sb3_policy, name)
    assert getattr(nets, name) is adapter  # the old import path, which checkpoints pickle
    torch.manual_seed(3)
    plain = trunk(space, **kwargs)
    torch.manual_seed(3)
    sb3 = adapter(space, **kwargs)
    assert isinstance(sb3, BaseFeaturesExtractor) and isinstance(sb3, trunk)
    assert sb3.features_dim == plain.out_dim == sb3.out_dim
    a, b = plain.state_dict(), sb3.state_dict()
    assert list(a) == list(b) and all(torch.equal(a[k], b[k]) for k in a)
    obs = _batch(space)
    out = plain(obs)
    assert out.dtype == torch.float32 and out.shape == (4, plain.out_dim)
    assert torch.equal(out, sb3(obs))
    assert pickle.loads(pickle.dumps(adapter)) is adapter  # pickled by its path, training.features.<name>
    assert adapter.__module__ == "training.features"


def test_the_old_names_need_sb3_only_when_asked_for_and_others_are_attribute_errors():
    with pytest.raises(AttributeError, match="no attribute 'NoSuchNet'"):
        nets.NoSuchNet  # noqa: B018
    assert not set(nets.__all__) & {
        "BoardCNN",
        "BoardVectorNet",
        "HexBoardNet",
        "CardTableNet",
        "SpatialMaskablePolicy",
    }  # a star import stays free of SB3


def test_a_new_checkpoint_names_the_policy_class_by_its_import_path(tmp_path):
    """The policy class is pickled by reference (training.features.SpatialMaskablePolicy), not as
    a copy of its code, so a checkpoint loads with the code of the day."""
    pytest.importorskip("sb3_contrib")
    import json
    import zipfile

    from sb3_contrib import MaskablePPO

    from training.features import CardTableNet, SpatialMaskablePolicy

    class OneStep(gym.Env):
        observation_space = _space(3, 3, 2)
        action_space = gym.spaces.Discrete(18)

        def reset(self, *, seed=None, options=None):
            super().reset(seed=seed)
            return self.observation_space.sample(), {}

        def step(self, action):
            return self.observation_space.sample(), 0.0, True, False, {}

        def action_masks(self):
            return np.ones(18, dtype=bool)

    layout = ActionLayout(index=np.arange(18).reshape(2, 3, 3), num_actions=18, obs_key="board")
    model = MaskablePPO(
        SpatialMaskablePolicy,
        OneStep(),
        n_steps=16,
        batch_size=16,
        seed=0,
        device="cpu",
        policy_kwargs={
            "features_extractor_class": CardTableNet,
            "features_extractor_kwargs": {"channels": 4, "blocks": 1, "board_key": "board"},
            "net_arch": {"pi": [], "vf": [8]},
            "action_layout": layout,
        },
    )
    model.save(tmp_path / "m.zip")
    with zipfile.ZipFile(tmp_path / "m.zip") as z:
        data = json.loads(z.read("data"))
    raw = data["policy_class"][":serialized:"]
    import base64

    blob = base64.b64decode(raw)
    assert b"training.features" in blob and b"SpatialMaskablePolicy" in blob and b"_make_skeleton_class" not in blob
    loaded = MaskablePPO.load(tmp_path / "m.zip", device="cpu")
    assert type(loaded.policy) is SpatialMaskablePolicy
    a, b = model.policy.state_dict(), loaded.policy.state_dict()
    assert list(a) == list(b) and all(torch.equal(a[k], b[k]) for k in a)


LAYOUT = ActionLayout(index=np.arange(2 * 25).reshape(2, 5, 5), num_actions=51, obs_key="board")


@pytest.mark.parametrize("head, value_head", [("spatial", "dense"), ("factored", "pooled"), ("linear", "dense")])
def test_actor_critic_net_shapes_dtypes_and_initialisation(head, value_head):
    layout = LAYOUT
    kwargs = {"channels": 4, "blocks": 2, "board_key": "board"}
    if head == "factored":
        layout = ActionLayout(
            index=LAYOUT.index,
            num_actions=51,
            obs_key="board",
            plane_index=np.array([[0, 1, 2], [3, 4, 5]]),
            plane_key="hands",
        )
        kwargs["append"] = ["hands"]
    if head == "linear":
        kwargs["features_dim"] = 32
    torch.manual_seed(0)
    net = nets.ActorCriticNet(
        _space(),
        layout,
        51,
        features="card_table_net",
        features_kwargs=kwargs,
        head=head,
        net_arch={"pi": [16] if head == "linear" else [], "vf": [8]},
        value_head=value_head,
    )
    assert [n for n, _ in net.named_children()] == [
        "features_extractor",
        "policy_net",
        "action_net",
        "value_trunk",
        "value_net",
    ]
    obs = _batch(_space())
    logits, values = net(obs)
    assert logits.dtype == values.dtype == torch.float32
    assert logits.shape == (4, 51) and values.shape == (4,)
    assert torch.isfinite(logits).all() and torch.isfinite(values).all()
    assert net.action_net.weight.abs().max() < 0.05 if head == "linear" else True  # SB3's small initial logits
    if head == "factored":
        assert isinstance(net.value_trunk, nets.PooledValueTrunk)
        assert net.action_net.factored and net.action_net.plane[-1].weight.abs().max() < 0.05
        # plane p reads hands[p]: planes described alike get the same logits on every cell
        same = dict(obs, hands=obs["hands"][:, :1].expand(-1, 2, -1).contiguous())
        lg, _ = net(same)
        assert torch.allclose(lg[:, :25], lg[:, 25:50])


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(head="nope"), "head must be 'spatial', 'factored' or 'linear', got 'nope'"),
        (dict(value_head="nope"), "value_head must be 'dense' or 'pooled', got 'nope'"),
        (dict(head="linear", value_head="pooled"), "value_head 'pooled' needs a spatial or factored head"),
        (dict(features="nope"), "features must be one of"),
        (
            dict(features_kwargs={"channels": 4, "board_key": "board", "features_dim": 8}),
            "needs a convolutional features extractor",
        ),
        (
            dict(layout=ActionLayout(index=LAYOUT.index, num_actions=51, obs_key="globals")),
            "extractor's map is 'board': give it board_key='globals'",
        ),
        (
            dict(
                layout=ActionLayout(
                    index=LAYOUT.index,
                    num_actions=51,
                    obs_key="board",
                    plane_index=np.zeros((2, 1), int),
                    plane_key="hands",
                )
            ),
            "reads 'hands' from the observation: add it to the features extractor's append list",
        ),
        (dict(layout=None), "needs an ActionLayout, got NoneType"),
    ],
)
def test_actor_critic_net_refuses_pieces_that_do_not_fit(change, message):
    args = dict(
        layout=LAYOUT,
        features="card_table_net",
        features_kwargs={"channels": 4, "board_key": "board"},
        head="spatial",
        net_arch={"pi": [], "vf": [8]},
        value_head="dense",
    )
    args.update(change)
    layout = args.pop("layout")
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        nets.ActorCriticNet(_space(), layout, 51, **args)
