"""GameRLModule: the networks of training/features.py as RLlib RLModules, with masking."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from ray.rllib.core.columns import Columns  # noqa: E402

from training.engines.rllib.module import MASKED_LOGIT, module_spec  # noqa: E402

#: (config, policy overrides): a spatial head (Box), a factored head with the pooled value trunk
#: (Dict, hex), a factored card-table head (Dict, hidden hands), and SB3's linear head.
CASES = [
    ("configs/ataxx_rllib.yaml", {}),
    ("configs/tantrix_rllib.yaml", {}),
    ("configs/smartrix_rllib.yaml", {}),
    (
        "configs/twixt_rllib.yaml",
        {
            "head": "linear",
            "features_kwargs": {"channels": 8, "blocks": 1, "features_dim": 32},
            "net_arch": {"pi": [16], "vf": [16]},
        },
    ),
]


def _cfg(path, overrides):
    from training.train import load_config

    cfg = load_config(path, validate=False)
    cfg["policy"] = {**cfg["policy"], **overrides}
    return cfg


def _sb3_policy(cfg):
    """The policy the SB3 trainer builds from the same ``policy:`` section (training.train)."""
    import gymnasium as gym
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy, MaskableMultiInputActorCriticPolicy

    from envs.registry import spec
    from training.engines.sb3.trainer import network
    from training.features import SpatialMaskablePolicy

    kwargs, layout = network(cfg)
    raw = spec(cfg["env_id"]).make_raw(**cfg["env_kwargs"])
    first = raw.possible_agents[0]
    space = raw.observation_space(first)["observation"]
    cls = MaskableMultiInputActorCriticPolicy if isinstance(space, gym.spaces.Dict) else MaskableActorCriticPolicy
    if cfg["policy"]["head"] != "linear":
        cls = SpatialMaskablePolicy
        kwargs.update(action_layout=layout, value_head=cfg["policy"]["value_head"])
    return cls(space, raw.action_space(first), lambda _: 3e-4, **kwargs)


def _shapes(named):
    rename = {"mlp_extractor.policy_net": "policy_net", "mlp_extractor.value_net": "value_trunk"}
    out = {}
    for name, p in named:
        for old, new in rename.items():
            if name.startswith(old):
                name = new + name[len(old) :]
        out[name] = tuple(p.shape)
    return out


@pytest.mark.parametrize(
    "path, overrides", CASES, ids=[c[0].split("/")[1] + ("-linear" if c[1] else "") for c in CASES]
)
def test_rllib_and_sb3_build_the_same_network_from_one_policy_section(path, overrides):
    cfg = _cfg(path, overrides)
    module = module_spec(cfg).build()
    sb3 = _sb3_policy(cfg)
    sb3_params = {
        n: p for n, p in sb3.named_parameters() if not n.startswith(("pi_features_extractor", "vf_features_extractor"))
    }
    mine, theirs = _shapes(module.named_parameters()), _shapes(sb3_params.items())
    assert mine == theirs
    assert sum(p.numel() for p in module.parameters()) == sum(p.numel() for p in sb3.parameters())
    # RLlib uses the plain trunk, SB3 its adapter of that very trunk (training/engines/sb3/policy.py)
    assert isinstance(sb3.features_extractor, type(module.features_extractor))
    assert type(module.action_net) is type(sb3.action_net)


def _batch(cfg, n=6, seed=0):
    from training.engines.rllib.env import GameMultiAgentEnv

    env = GameMultiAgentEnv(
        {
            "env_id": cfg["env_id"],
            "env_kwargs": cfg["env_kwargs"],
            "baselines": [],
            "baseline_prob": 0.0,
            "latest_prob": 1.0,
            "seed": seed,
        }
    )
    rows = []
    obs, _ = env.reset(seed=seed)
    while len(rows) < n:
        ((aid, o),) = obs.items()
        rows.append(o)
        legal = np.flatnonzero(o["action_mask"])
        obs, _, term, trunc, _ = env.step({aid: int(legal[len(rows) % len(legal)])})
        if term["__all__"] or trunc["__all__"]:
            obs, _ = env.reset()

    def stack(items):
        if isinstance(items[0], dict):
            return {k: stack([i[k] for i in items]) for k in items[0]}
        return torch.as_tensor(np.stack(items))

    return stack(rows)


@pytest.mark.parametrize("path, overrides", CASES[:3], ids=["ataxx", "tantrix", "smartrix"])
def test_illegal_actions_get_the_masked_logit_in_every_forward_pass(path, overrides):
    cfg = _cfg(path, overrides)
    module = module_spec(cfg).build()
    obs = _batch(cfg)
    mask = obs["action_mask"].numpy() > 0
    for forward in (module.forward_inference, module.forward_exploration, module.forward_train):
        with torch.no_grad():
            out = forward({Columns.OBS: obs})
        logits = out[Columns.ACTION_DIST_INPUTS].numpy()
        assert logits.shape == mask.shape
        assert (logits[~mask] == np.float32(MASKED_LOGIT)).all() and (logits[mask] > -1e6).all()
        assert mask[np.arange(len(mask)), logits.argmax(1)].all()
    with torch.no_grad():
        values = module.compute_values({Columns.OBS: obs})
    assert values.shape == (len(mask),) and torch.isfinite(values).all()
    # 2,000 draws from RLlib's own distribution class: all legal
    dist = module.get_exploration_action_dist_cls().from_logits(torch.as_tensor(logits))
    draws = torch.stack([dist.sample() for _ in range(2000 // len(mask))]).numpy()
    assert mask[np.arange(len(mask))[None, :].repeat(len(draws), 0), draws].all()
    # a row without any legal action (a final observation) stays finite: uniform, no NaN
    empty = {**obs, "action_mask": torch.zeros_like(obs["action_mask"])}
    with torch.no_grad():
        out = module.forward_train({Columns.OBS: empty})
    logp = torch.log_softmax(out[Columns.ACTION_DIST_INPUTS], -1)
    assert torch.isfinite(logp).all()
