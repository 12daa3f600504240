"""The RLlib layer's environment and modules, checked on RLlib's own multi-agent episodes.

Sampling runs in an RLlib ``MultiAgentEnvRunner`` (the env runner the trainer uses, in this
process): the episodes it returns — cut into chunks between ``sample()`` calls, as in training —
are what PPO learns from. One local Ray instance serves the module's tests.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

from training.engines.rllib.env import MAIN, GameMultiAgentEnv, module_of  # noqa: E402

#: One small setting per env id and variant (4 players, teams, repeated turns, hidden hands).
SETTINGS = {
    "ataxx_v0": {},
    "twixt_v0": {"board_size": 8},
    "double_twixt_v0": {"board_size": 8},
    "tantrix_v0": {"num_players": 4, "window_radius": 5},
    "smartrix_v0": {"num_players": 4, "teams": True},
}
TINY = {"features_kwargs": {"channels": 4, "blocks": 1}, "net_arch": {"pi": [], "vf": [8]}}


@pytest.fixture(scope="module")
def ray_local():
    import ray

    from training.engines.rllib.trainer import start_ray

    start_ray(num_cpus=2)
    yield
    ray.shutdown()


def _cfg(env_id: str, **pool) -> dict:
    from training.train import load_config

    name = {
        "double_twixt_v0": "double_twixt",
        "ataxx_v0": "ataxx",
        "twixt_v0": "twixt",
        "tantrix_v0": "tantrix",
        "smartrix_v0": "smartrix",
    }[env_id]
    cfg = load_config(f"configs/{name}_rllib.yaml", validate=False)
    cfg["env_kwargs"] = SETTINGS[env_id]
    cfg["max_steps"] = 400
    cfg["policy"] = {**cfg["policy"], **TINY}
    cfg["pool"].update(pool)
    return cfg


def _runner(cfg: dict, num_envs: int = 2):
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    from training.engines.rllib.trainer import build_config

    return MultiAgentEnvRunner(config=build_config(cfg, cfg["seed"]).env_runners(num_envs_per_env_runner=num_envs))


def _chunks(runner, steps: int, per_call: int = 37):
    """Sample ``steps`` env steps in calls of ``per_call`` (episodes are cut between calls)."""
    out, done = [], 0
    while done < steps:
        episodes = runner.sample(num_timesteps=per_call, explore=True)
        out += episodes
        done += sum(e.env_steps() for e in episodes)
    return out


@pytest.mark.parametrize("env_id", sorted(SETTINGS))
def test_every_seat_final_reward_reaches_its_last_transition_and_no_illegal_action_is_sampled(ray_local, env_id):
    """Summed over the chunks of each finished episode, the rewards of every RLlib agent equal
    that seat's final game return (from the env's final infos), also when the game ended on
    another seat's move (a baseline's or another agent's), and no agent gets a reward elsewhere.
    Every action RLlib's exploration sampled (recorded in its episodes) was legal by the mask the
    module saw (the env would also have raised on an illegal one)."""
    cfg = _cfg(env_id, baseline_prob=0.5, latest_prob=0.5)
    runner = _runner(cfg)
    chunks = _chunks(runner, 1200 if env_id != "tantrix_v0" else 900)
    actions_checked = 0
    for ep in chunks:
        for sa in ep.agent_episodes.values():
            actions = np.asarray(sa.get_actions())
            if len(actions) == 0:
                continue
            obs = sa.get_observations()
            masks = (
                np.asarray(obs["action_mask"]) if isinstance(obs, dict) else np.stack([o["action_mask"] for o in obs])
            )[: len(actions)]
            assert masks[np.arange(len(actions)), actions].all()
            actions_checked += len(actions)
    assert actions_checked >= 400  # (an action whose agent has not observed again is carried to the next chunk)
    rewards = defaultdict(lambda: defaultdict(float))
    final = {}
    ended_elsewhere = 0
    for ep in chunks:
        for aid, sa in ep.agent_episodes.items():
            rewards[ep.id_][aid] += float(np.sum(sa.get_rewards()))
            infos = sa.get_infos()
            if sa.is_done and infos and "returns" in infos[-1]:
                final.setdefault(ep.id_, {})[aid] = infos[-1]
    finished = [eid for eid in final]
    assert len(finished) >= 3, f"only {len(finished)} games finished"
    for eid in finished:
        for aid, info in final[eid].items():
            seat = int(aid.split("@")[1])
            assert info["seat"] == seat
            assert rewards[eid][aid] == info["returns"][seat], (env_id, aid, dict(rewards[eid]), info["returns"])
        info = next(iter(final[eid].values()))
        modules = {f"{who}@{s}" for s, who in enumerate(info["lineup"]) if who == MAIN or who.startswith("snapshot_")}
        assert set(final[eid]) <= modules and set(final[eid])  # only module seats, each with its final reward
        ended_elsewhere += any(int(aid.split("@")[1]) != info["last_mover"] for aid in final[eid])
    assert ended_elsewhere >= 1  # some seat's reward came from a game ended by another seat's move
    # rewards only at the end: no chunk of an unfinished episode carries any
    for ep in chunks:
        if ep.id_ not in final:
            assert all(float(np.sum(sa.get_rewards())) == 0.0 for sa in ep.agent_episodes.values())
    runner.stop()


def test_tantrix_repeated_turns_stay_with_one_agent():
    """Tantrix (4 players): one agent observes several steps in a row when the rules give it
    another turn; only the agent to move observes."""
    env = GameMultiAgentEnv(
        {
            "env_id": "tantrix_v0",
            "env_kwargs": {"num_players": 4, "window_radius": 5},
            "baselines": [],
            "baseline_prob": 0.0,
            "latest_prob": 1.0,
            "seed": 0,
        }
    )
    repeats = 0
    for game in range(3):
        obs, _ = env.reset(seed=game)
        last, done = None, False
        while not done:
            ((aid, o),) = obs.items()
            repeats += aid == last
            last = aid
            legal = np.flatnonzero(o["action_mask"])
            obs, rew, term, trunc, info = env.step({aid: int(legal[0])})
            done = term["__all__"] or trunc["__all__"]
            if not done:
                assert len(obs) == 1 and list(rew.values()) == [0.0]
        assert sorted(obs) == sorted(f"main@{s}" for s in range(4))  # every seat's final observation
        assert sorted(rew.values()) == sorted(info["main@0"]["returns"])
    assert repeats > 0


def test_lineups_partners_and_snapshots_are_drawn_from_the_seeded_generator():
    cfg = {
        "env_id": "double_twixt_v0",
        "env_kwargs": {"board_size": 8},
        "baselines": ["random"],
        "baseline_prob": 0.5,
        "latest_prob": 0.0,
        "max_snapshots": 3,
        "seed": 7,
    }
    env = GameMultiAgentEnv(cfg)
    lineups = []
    for _ in range(20):
        env.reset()
        lineups.append(env._names())
        partner = (env.seat + 2) % 4
        assert env._names()[env.seat] == MAIN and env._names()[partner] == MAIN  # partners share main
    assert all(set(l) <= {"main", "random"} for l in lineups)  # no snapshot before one is active
    env.set_snapshots(["snapshot_1"])
    drawn = set()
    for _ in range(20):
        env.reset()
        drawn |= set(env._names())
    assert drawn == {"main", "random", "snapshot_1"}
    again = GameMultiAgentEnv(cfg)
    assert [(again.reset(), again._names())[1] for _ in range(20)] == lineups  # same seed, same line-ups
    with pytest.raises(ValueError, match="unknown snapshot slots \\['snapshot_3'\\]"):
        env.set_snapshots(["snapshot_3"])
    assert module_of("snapshot_2@3") == "snapshot_2" and module_of("main@0") == MAIN
