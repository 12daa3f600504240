"""Every environment under third-party RL clients: TorchRL and Tianshou.

TorchRL's ``PettingZooWrapper(use_mask=True)`` (the mode for AEC environments) passes its own
``check_env_specs`` and a rollout with masked random actions; Tianshou's ``PettingZooEnv`` plays
whole episodes with its masked random policy through a ``Collector``. (TorchRL's wrapper failed
on Tantrix while its ``infos`` carried a second key beside the mask; every env now keeps only
``action_mask`` there.) Boards are small so that the file runs in seconds.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import envs

torch = pytest.importorskip("torch")

#: One small variant of every env id (and the team variants).
CASES = [
    ("ataxx_v0", {}),
    ("twixt_v0", {"board_size": 6}),
    ("double_twixt_v0", {"board_size": 6}),
    ("tantrix_v0", {"num_players": 2, "window_radius": 5}),
    ("tantrix_v0", {"num_players": 4, "teams": True, "window_radius": 5}),
    ("smartrix_v0", {"num_players": 3}),
    ("smartrix_v0", {"num_players": 4, "teams": True}),
]
IDS = [env_id + "".join(f"-{k}={v}" for k, v in kw.items()) for env_id, kw in CASES]


def test_every_env_id_is_covered():
    assert sorted({env_id for env_id, _ in CASES}) == sorted(envs.ENV_IDS)


@pytest.mark.parametrize("env_id, kwargs", CASES, ids=IDS)
def test_torchrl_wrapper_specs_and_masked_rollout(env_id, kwargs):
    pytest.importorskip("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TorchRL warns that it is tested with PettingZoo 1.24.3
        env = PettingZooWrapper(env=envs.make(env_id, **kwargs), use_mask=True, categorical_actions=True, seed=0)
    assert sorted(env.group_map) == [f"player_{i}" for i in range(env.num_agents)]
    check_env_specs(env)
    gen = torch.Generator().manual_seed(0)

    def masked_random(td):
        for group in env.group_map:
            weights = td[group, "action_mask"].float()
            weights[weights.sum(-1) == 0] = 1.0  # not this agent's turn: any action, ignored
            td[group, "action"] = torch.multinomial(weights, 1, generator=gen).squeeze(-1)
        return td

    roll = env.rollout(40, policy=masked_random, break_when_any_done=True)
    steps = roll.batch_size[0]
    assert 5 <= steps <= 40
    acted = torch.zeros(steps, dtype=torch.long)
    for group in env.group_map:
        mask = roll[group, "mask"].reshape(steps)  # the agent acting at each step
        action = roll[group, "action"].reshape(steps)
        legal = roll[group, "action_mask"].reshape(steps, -1).gather(-1, action[:, None]).squeeze(-1)
        assert legal[mask].all()  # every action taken was legal
        acted += mask.long()
    assert (acted == 1).all()  # exactly one agent acts at each step (AEC)


@pytest.mark.parametrize("env_id, kwargs", CASES, ids=IDS)
def test_tianshou_random_collector_plays_whole_episodes(env_id, kwargs):
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentPolicy
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, ReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    if env_id == "ataxx_v0":  # a short game: x to move can finish the board in a few plies
        kwargs = {"fen": "xxxxxxx/ooooooo/xxxxxxx/ooooooo/xxxxxxx/ooooooo/xxx4 x 0 1"}
    np.random.seed(0)  # Tianshou's random policy draws from numpy's global generator
    env = PettingZooEnv(envs.make(env_id, **kwargs))
    random_policy = MARLRandomDiscreteMaskedOffPolicyAlgorithm.Policy(env.action_space)  # (no algorithm to train)
    policy = MultiAgentPolicy({a: random_policy for a in env.agents})
    buffer = ReplayBuffer(5000)  # one env: a plain buffer (a VectorReplayBuffer compiles for seconds)
    collector = Collector(policy, DummyVectorEnv([lambda: PettingZooEnv(envs.make(env_id, **kwargs))]), buffer)
    collector.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = collector.collect(n_episode=2, reset_before_collect=True)
    assert stats.n_collected_episodes == 2
    assert stats.n_collected_steps == len(buffer) > 2
    batch, _ = buffer.sample(0)
    legal = np.array([mask[a] for mask, a in zip(batch.obs.mask, batch.act)])
    assert legal.all()  # the masked random policy only took legal actions
    returns = np.asarray(stats.returns)  # each episode's final reward per agent
    assert returns.shape == (2, len(env.agents)) and set(np.unique(returns)) <= {-1.0, 0.0, 1.0}
