"""Behaviour-cloning warm start (training.pretrain): demonstrations, cloning, and its use by train()."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from training.pretrain import behaviour_clone, collect_demonstrations  # noqa: E402
from training.train import load_config, train  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[2]


def ataxx_cfg(**pretrain):
    cfg = load_config("configs/ataxx_quick.yaml", total_timesteps=256)
    cfg["n_envs"] = 2
    cfg["ppo"].update(n_steps=128, batch_size=128, n_epochs=1)
    cfg["eval"].update(every=10**9, games=2)
    cfg["final_eval"]["games"] = 2
    cfg["pretrain"].update(pretrain)
    return cfg


def test_demonstrations_are_the_teachers_legal_moves_with_discounted_returns():
    cfg = ataxx_cfg()
    cfg["shaping"] = 0.0
    data = collect_demonstrations(cfg, "greedy", games=3, seed=5)
    n = len(data["actions"])
    from envs.registry import make_raw

    num_actions = make_raw("ataxx_v0").action_space("player_0").n
    assert data["obs"].shape == (n, 7, 7, 5) and data["masks"].shape == (n, num_actions)
    assert data["masks"][np.arange(n), data["actions"]].all()  # every recorded action was legal
    assert sorted(set(data["game"].tolist())) == [0, 1, 2] and data["outcomes"].shape == (3,)
    gamma = cfg["ppo"]["gamma"]
    for g in range(3):
        rets = data["returns"][data["game"] == g]
        # No shaping: the only reward is the final outcome, discounted back to each decision.
        expected = data["outcomes"][g] * gamma ** np.arange(len(rets) - 1, -1, -1)
        np.testing.assert_allclose(rets, expected, rtol=1e-5)
    # Same seed, same demonstrations.
    again = collect_demonstrations(cfg, "greedy", games=3, seed=5)
    assert np.array_equal(again["actions"], data["actions"]) and np.array_equal(again["obs"], data["obs"])


def test_demonstrations_reject_bad_arguments():
    cfg = ataxx_cfg()
    with pytest.raises(ValueError, match="games must be a positive integer"):
        collect_demonstrations(cfg, "greedy", games=0, seed=0)
    with pytest.raises(ValueError, match="unknown agent spec"):
        collect_demonstrations(cfg, "gredy", games=1, seed=0)


def _policy(cfg):
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.engines.sb3.trainer import build_model
    from training.selfplay import OpponentPool, SelfPlayEnv

    pool = OpponentPool(["random"], 1.0, 0.0, 1, seed=0)
    venv = DummyVecEnv([lambda: SelfPlayEnv(cfg["env_id"], pool, env_kwargs=cfg["env_kwargs"])])
    return build_model(cfg, venv, 0).policy


def test_cloning_makes_the_policy_agree_with_the_teacher():
    cfg = ataxx_cfg()
    data = collect_demonstrations(cfg, "greedy", games=40, seed=1)
    policy = _policy(cfg)
    before = behaviour_clone(policy, data, epochs=1, batch_size=64, learning_rate=1e-12)  # no real step
    after = behaviour_clone(policy, data, epochs=8, batch_size=64, learning_rate=1e-3)
    assert before["holdout_decisions"] == after["holdout_decisions"] > 0
    assert after["loss"][-1] < after["loss"][0]
    # Ataxx greedy (most material, ties broken at random, so exact agreement says little): the
    # held-out likelihood of its moves rises more than twofold, and so does the agreement.
    assert after["holdout_nll"] < before["holdout_nll"] - 0.7
    assert after["holdout_agreement"] > before["holdout_agreement"] + 0.2
    with pytest.raises(ValueError, match="epochs must be a positive integer"):
        behaviour_clone(policy, data, epochs=0, batch_size=64, learning_rate=1e-3)
    with pytest.raises(ValueError, match="learning_rate must be > 0"):
        behaviour_clone(policy, data, epochs=1, batch_size=64, learning_rate=0.0)


def test_train_runs_the_warm_start_and_reports_it_but_not_when_resuming(tmp_path):
    cfg = ataxx_cfg(teacher="greedy", games=3, epochs=1)
    report = train(cfg, tmp_path / "a", progress_bar=False)
    saved = json.loads((tmp_path / "a" / "pretrain.json").read_text())
    assert saved["teacher"] == "greedy" and saved["games"] == 3 and saved["decisions"] > 0
    assert report["pretrain"] == saved and report["timesteps"] == 256  # imitated plies are not PPO timesteps
    # The clone alone, before self-play, is kept: a checkpoint at 0 timesteps.
    from sb3_contrib import MaskablePPO

    clone = MaskablePPO.load(tmp_path / "a" / "checkpoints" / "pretrained.zip", device="cpu")
    assert clone.num_timesteps == 0
    resumed = train(cfg, tmp_path / "b", resume=report["checkpoint"], progress_bar=False)
    assert resumed["pretrain"] is None and not (tmp_path / "b" / "pretrain.json").exists()
    assert not (tmp_path / "b" / "checkpoints" / "pretrained.zip").exists()


def test_a_resumed_run_does_not_need_the_teacher_it_never_uses(tmp_path):
    import shutil

    import yaml

    from training.config import ConfigError

    first = train(ataxx_cfg(), tmp_path / "a", progress_bar=False)
    teacher = tmp_path / "teacher.zip"
    shutil.copy(first["checkpoint"], teacher)
    cfg = ataxx_cfg(teacher=str(teacher), games=2, epochs=1)
    warm = train(cfg, tmp_path / "b", progress_bar=False)
    assert warm["pretrain"]["teacher"] == str(teacher)
    teacher.unlink()  # the teacher checkpoint is moved away after the run
    with pytest.raises(ConfigError, match="pretrain.teacher"):
        train(cfg, tmp_path / "c", progress_bar=False)  # a new run needs it, and says so
    resumed = train(cfg, tmp_path / "d", resume=warm["checkpoint"], progress_bar=False)
    assert resumed["timesteps"] == 512 and resumed["pretrain"] is None
    # the same through the config file, as `python -m training.train --resume` reads it
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump({k: v for k, v in cfg.to_dict().items() if k != "name"}))
    with pytest.raises(ValueError, match="pretrain.teacher"):
        load_config(path)
    assert load_config(path, check_teacher=False)["pretrain"]["teacher"] == str(teacher)


@pytest.mark.parametrize(
    "config, partner_moves", [("configs/ataxx_quick.yaml", False), ("configs/double_twixt_quick.yaml", True)]
)
def test_the_teacher_also_plays_its_partners_in_team_games(config, partner_moves, monkeypatch):
    import training.agents as agents

    cfg = load_config(config)
    calls, built = [], []
    real = agents.make_agent

    def spy(spec, seed=None):
        teacher = real(spec, seed=seed)
        if built:  # only the first agent built is the teacher
            return teacher
        built.append(teacher)
        act = teacher.act
        teacher.act = lambda state, obs: calls.append(state.current_player) or act(state, obs)
        return teacher

    monkeypatch.setattr(agents, "make_agent", spy)
    data = collect_demonstrations(cfg, "greedy", games=2, seed=3)
    n = len(data["actions"])
    assert n > 0 and data["masks"][np.arange(n), data["actions"]].all()
    assert set(data["outcomes"].tolist()) <= {-1.0, 0.0, 1.0}  # the teacher side's result
    # Two players: the teacher moves only for its own seat. Double TwixT: also for the partner.
    assert (len(calls) > n) == partner_moves


def test_an_alphabeta_teacher_works_without_shaping():
    cfg = ataxx_cfg()
    assert cfg["shaping"] == 0.0  # the env is not reset by shaping set-up: the teacher must not need it
    data = collect_demonstrations(cfg, "alphabeta:1", games=1, seed=0)
    n = len(data["actions"])
    assert n > 0 and data["masks"][np.arange(n), data["actions"]].all()
    assert data["outcomes"].shape == (1,) and data["outcomes"][0] in (-1.0, 0.0, 1.0)


def test_a_diverging_clone_stops_with_a_clear_error():
    cfg = ataxx_cfg()
    data = collect_demonstrations(cfg, "greedy", games=3, seed=0)
    with pytest.raises(FloatingPointError, match="behaviour cloning diverged.*lower the learning rate"):
        behaviour_clone(_policy(cfg), data, epochs=20, batch_size=8, learning_rate=1e6, max_grad_norm=1e12)


@pytest.mark.parametrize("dict_rows", [False, True])
def test_row_buffer_stacks_like_numpy_across_blocks(monkeypatch, dict_rows):
    from training.pretrain import _RowBuffer

    monkeypatch.setattr(_RowBuffer, "BLOCK", 4)
    rng = np.random.default_rng(3)
    rows = [
        {"board": rng.random((2, 3), dtype=np.float32), "hand": rng.integers(0, 9, 5)}
        if dict_rows
        else rng.random((2, 3), dtype=np.float32)
        for _ in range(10)
    ]  # 2.5 blocks
    buf = _RowBuffer()
    for r in rows:
        buf.append(r)
    out = buf.stack()
    if dict_rows:
        for k in ("board", "hand"):
            expected = np.stack([r[k] for r in rows])
            assert out[k].dtype == expected.dtype and np.array_equal(out[k], expected)
    else:
        assert out.dtype == np.float32 and np.array_equal(out, np.stack(rows))
    assert buf.blocks == [] and buf.n == 0
    buf.append(rows[0])
    with pytest.raises(ValueError, match="row 1 has shape"):
        buf.append({"board": np.zeros((1, 3)), "hand": np.zeros(5)} if dict_rows else np.zeros((1, 3)))


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in KiB on Linux only")
def test_row_buffer_peak_memory_is_about_the_data_not_twice_it():
    # 2,000 Tantrix-sized observations (125 KB each, 250 MB): np.stack of the list peaks at about
    # twice the data; the buffer at the data plus one block.
    code = (
        "import resource, numpy as np\n"
        "from training.pretrain import _RowBuffer\n"
        "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "buf = _RowBuffer()\n"
        "for i in range(2000):\n"
        "    buf.append({'board': np.full((50, 25, 25), i, np.float32), 'hands': np.zeros(30, np.float32)})\n"
        "out = buf.stack()\n"
        "assert out['board'][1999, 0, 0, 0] == 1999\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) * 1024 / out['board'].nbytes)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO_ROOT, check=True)
    assert float(res.stdout) < 1.4
