"""``python -m training.train configs/<game>_rllib.yaml``: smoke runs of every RLlib config, resume,
the self-play pool's snapshots and ``rllib:PATH`` agents. One local Ray instance serves the module."""

from __future__ import annotations

import importlib.metadata
import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib")
pytest.importorskip("torch")

from training.environment import Environment  # noqa: E402
from training.train import load_config, main  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parents[2]
RLLIB_CONFIGS = [f"configs/{g}_rllib.yaml" for g in ("ataxx", "twixt", "double_twixt", "tantrix", "smartrix")]
REPORT_KEYS = {
    "vs",
    "environment",  # the software and machine: training.environment
    "ratings",
    "engine",
    "config",
    "env_id",
    "seed",
    "timesteps",
    "timesteps_this_run",
    "resumed_from",
    "train_seconds",
    "eval_seconds",
    "checkpoint",
    "pretrain",
    "periodic_eval",
    "smoke",
    "budgets",
    "pool",
    "throughput",
    "ray",
}


@pytest.fixture(scope="module")
def ray_local():
    import ray

    from training.engines.rllib.trainer import start_ray

    start_ray(num_cpus=2)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def ataxx_run(ray_local, tmp_path_factory):
    """One smoke run of the Ataxx RLlib config whose pool admits a snapshot at its first check."""
    cfg_file = tmp_path_factory.mktemp("cfg") / "ataxx_pool.yaml"
    text = (REPO_ROOT / "configs/ataxx_rllib.yaml").read_text().replace("win_rate: 0.6 ", "win_rate: 0.0 ")
    assert "win_rate: 0.0 " in text
    cfg_file.write_text(text)
    out = tmp_path_factory.mktemp("runs") / "ataxx"
    assert main([str(cfg_file), "--smoke", "--out", str(out), "--no-progress"]) == 0
    return out


def test_every_rllib_config_is_a_valid_rllib_config():
    from training.engines.rllib.config import RLlibConfig

    for path in RLLIB_CONFIGS:
        cfg = load_config(REPO_ROOT / path)  # validated: the env, the network, every agent spec
        assert isinstance(cfg, RLlibConfig) and cfg["engine"] == "rllib"
        assert set(cfg.to_dict()) == set(RLlibConfig.KEY_ORDER) and "name" in RLlibConfig.KEY_ORDER


@pytest.mark.parametrize("config", RLLIB_CONFIGS)
def test_every_rllib_config_smoke_runs_end_to_end(ray_local, tmp_path, config, monkeypatch, capsys):
    from training.engines.rllib.config import SMOKE

    monkeypatch.chdir(REPO_ROOT)
    out = tmp_path / "run"
    assert main([config, "--smoke", "--out", str(out), "--no-progress"]) == 0
    cfg = load_config(config)
    report = json.loads((out / "report.json").read_text())
    assert set(report) == REPORT_KEYS
    assert report["engine"] == "rllib" and report["smoke"] is True and report["env_id"] == cfg["env_id"]
    assert set(report["environment"]) == Environment.__required_keys__
    assert report["environment"]["packages"]["ray"] == importlib.metadata.version("ray")
    one = SMOKE["train_batch_size"]
    assert report["budgets"]["total_timesteps"] == one and report["budgets"]["train_batch_size"] == one
    # one iteration of about 64 env steps; main's module steps as RLlib counts them (baselines' moves excluded)
    assert one // 2 <= report["timesteps"] == report["timesteps_this_run"] <= 2 * one
    t = report["timesteps"]
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["final", f"step_{t}"]
    for ckpt in ("final", f"step_{t}"):
        meta = json.loads((out / "checkpoints" / ckpt / "tabletop_rl.json").read_text())
        assert (meta["env_id"], meta["env_kwargs"], meta["timesteps"]) == (cfg["env_id"], cfg["env_kwargs"], t)
    assert (out / "config.yaml").is_file() and load_config(out / "config.yaml")["total_timesteps"] == one
    assert (out / "logs" / "progress.csv").is_file() and list((out / "logs").glob("events.out.tfevents.*"))
    header = (out / "logs" / "progress.csv").read_text().splitlines()[0].split(",")
    assert {"train/policy_loss", "train/vf_loss", "train/entropy", "time/env_steps_per_s"} <= set(header)
    assert (out / "learning_curve.png").is_file()
    assert [row["timesteps"] for row in report["periodic_eval"]] == [t]
    assert set(report["periodic_eval"][0]) == {"timesteps", "episodes"} | {
        f"score_vs_{s}" for s in cfg["eval"]["opponents"]
    }
    assert [c["timesteps"] for c in report["pool"]["checks"]] == [t]
    assert set(report["vs"]) == set(cfg["final_eval"]["opponents"])
    for spec in cfg["final_eval"]["opponents"]:
        r = report["vs"][spec]
        assert r["games"] == SMOKE["final_games"] and r["wins"] + r["draws"] + r["losses"] == r["games"]
    assert report["throughput"]["env_steps_sampled"] >= one and report["throughput"]["env_steps_per_s"] > 0
    by_node = report["throughput"]["env_steps_by_node"]  # one local node sampled everything
    assert len(by_node) == 1 and sum(by_node.values()) == report["throughput"]["env_steps_sampled"]
    assert (report["ray"]["nodes"], report["ray"]["cpus"], report["ray"]["joined"]) == (1, 2.0, False)  # the fixture's
    assert report["checkpoint"] == str(out / "checkpoints" / "final")
    assert f"[run] directory {out} | env {cfg['env_id']} | RLlib PPO" in capsys.readouterr().out


def test_a_snapshot_joins_the_pool_with_main_s_weights(ataxx_run):
    import torch

    report = json.loads((ataxx_run / "report.json").read_text())
    t = report["timesteps"]
    assert report["pool"]["snapshots_added"] == 1 and report["pool"]["active"] == [f"snapshot_{t}"]
    assert report["pool"]["checks"][0]["added"] == f"snapshot_{t}"
    assert set(report["pool"]["checks"][0]["vs"]) == {"random", "greedy"}
    meta = json.loads((ataxx_run / "checkpoints" / "final" / "tabletop_rl.json").read_text())
    assert meta["pool"]["active"] == ["snapshot_0"] and meta["pool"]["added"] == 1
    from ray.rllib.core.rl_module.rl_module import RLModule

    from training.agents.rllib import module_dir

    main_m = RLModule.from_checkpoint(module_dir(ataxx_run / "checkpoints" / "final", "main"))
    snap = RLModule.from_checkpoint(module_dir(ataxx_run / "checkpoints" / "final", "snapshot_0"))
    unused = RLModule.from_checkpoint(module_dir(ataxx_run / "checkpoints" / "final", "snapshot_1"))
    a, b, c = main_m.state_dict(), snap.state_dict(), unused.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)  # copied after the only update, at the check
    assert not all(torch.equal(a[k], c[k]) for k in a)  # a slot never filled keeps its own weights


def test_resume_continues_the_timestep_count_and_the_pool(ataxx_run, tmp_path, monkeypatch):
    monkeypatch.chdir(REPO_ROOT)
    first = json.loads((ataxx_run / "report.json").read_text())
    out = tmp_path / "resumed"
    cfg_file = ataxx_run / "config.yaml"
    assert (
        main(
            [
                str(cfg_file),
                "--resume",
                str(ataxx_run / "checkpoints" / "final"),
                "--timesteps",
                "64",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    report = json.loads((out / "report.json").read_text())
    assert report["resumed_from"] == str(ataxx_run / "checkpoints" / "final")
    assert report["timesteps"] == first["timesteps"] + report["timesteps_this_run"]
    assert report["timesteps_this_run"] >= 32  # main's share of one iteration (a snapshot opponent takes the rest)
    assert report["pool"]["snapshots_added"] == 2  # the restored pool goes on (win_rate 0: one more)
    import torch
    from ray.rllib.core.rl_module.rl_module import RLModule

    from training.agents.rllib import module_dir

    def weights(run, module_id):
        return RLModule.from_checkpoint(module_dir(run / "checkpoints" / "final", module_id)).state_dict()

    before, after = weights(ataxx_run, "snapshot_0"), weights(out, "snapshot_0")
    assert all(torch.equal(before[k], after[k]) for k in before)  # a snapshot is never trained
    main_before, main_after = weights(ataxx_run, "main"), weights(out, "main")
    assert not all(torch.equal(main_before[k], main_after[k]) for k in main_before)  # main is
    # another network cannot resume from this checkpoint
    other = tmp_path / "other.yaml"
    other.write_text(cfg_file.read_text().replace("channels: 64", "channels: 32"))
    with pytest.raises(SystemExit):
        main([str(other), "--resume", str(ataxx_run / "checkpoints" / "final"), "--out", str(tmp_path / "x")])
    assert not (tmp_path / "x").exists()


def test_an_rllib_checkpoint_is_an_agent_that_plays_legal_games_and_refuses_other_settings(ataxx_run, tmp_path):
    from envs.registry import spec
    from training.agents import make_agent
    from training.arena import play_game

    final = ataxx_run / "checkpoints" / "final"
    agent = make_agent(f"rllib:{final}", seed=0)
    assert agent.name == f"rllib:{final}" and agent.deterministic
    assert make_agent(f"rllib:{final}:sample", seed=0).deterministic is False
    raw = spec("ataxx_v0").make_raw()
    raw.reset(seed=0)
    agent.check_env(raw)
    result = play_game("ataxx_v0", [agent, make_agent("random", seed=1)], seed=3, record=True)
    assert result.status in ("finished", "truncated") and len(result.actions) == result.plies > 10
    # training.evaluate takes the spec
    from training.evaluate import main as evaluate_main

    assert (
        evaluate_main(
            [
                "ataxx_v0",
                "--agents",
                f"rllib:{final}",
                "random",
                "--games",
                "2",
                "--seed",
                "0",
                "--out",
                str(tmp_path / "ev"),
                "--no-progress",
            ]
        )
        == 0
    )
    results = json.loads((tmp_path / "ev" / "results.json").read_text())
    assert len(results["games"]) == 2
    other = spec("twixt_v0").make_raw(board_size=8)
    other.reset(seed=0)
    with pytest.raises(ValueError, match=r"was trained on ataxx_v0 with its default settings.*not on twixt_v0"):
        agent.check_env(other)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        make_agent(f"rllib:{tmp_path / 'missing'}")
    broken = tmp_path / "broken"
    shutil.copytree(final, broken)
    (broken / "tabletop_rl.json").unlink()
    with pytest.raises(ValueError, match="is not an RLlib checkpoint of training.train"):
        make_agent(f"rllib:{broken}")


def test_training_play_takes_an_rllib_opponent(ataxx_run, tmp_path):
    import io

    from training.play import main as play_main

    final = ataxx_run / "checkpoints" / "final"
    out = io.StringIO()
    record = tmp_path / "game.json"
    assert (
        play_main(
            ["ataxx_v0", "--opponent", f"rllib:{final}", "--seat", "1", "--seed", "0", "--record", str(record)],
            stdin=io.StringIO("quit\n"),
            stdout=out,
        )
        == 0
    )
    game = json.loads(record.read_text())
    assert len(game["moves"]) == 1  # the RLlib agent (seat 0) moved, then the person quit
    with pytest.raises(SystemExit):  # another setting: refused before the game
        play_main(
            ["twixt_v0", "--env-kwargs", '{"board_size": 8}', "--opponent", f"rllib:{final}"],
            stdin=io.StringIO("quit\n"),
            stdout=io.StringIO(),
        )


def test_the_room_takes_an_rllib_agent(ataxx_run):
    from room.agents import RoomAgents

    final = ataxx_run / "checkpoints" / "final"
    room = RoomAgents({"rl": f"rllib:{final}"})
    from envs.registry import spec

    raw = spec("ataxx_v0").make_raw()
    raw.reset(seed=0)
    agent = room.make("rl", raw, "ataxx_v0", {}, seed=0)
    action = agent.act(raw.state, raw.observe(raw.agent_selection))
    assert raw.observe(raw.agent_selection)["action_mask"][action] == 1
    other = spec("twixt_v0").make_raw(board_size=8)
    other.reset(seed=0)
    with pytest.raises(ValueError, match="trained on ataxx_v0"):
        room.make("rl", other, "twixt_v0", {"board_size": 8}, seed=0)


def test_rllib_counts_that_are_nan_or_missing_count_as_zero():
    """RLlib reports NaN for ``num_episodes`` in an iteration where no episode ended (a 1,024-timestep
    smoke run of Ataxx crashed on it)."""
    from training.engines.rllib.trainer import _main_steps, _num

    assert [_num(float("nan")), _num(None), _num("x"), _num(3), _num(2.5)] == [0.0, 0.0, 0.0, 3.0, 2.5]
    assert _main_steps({"env_runners": {"num_module_steps_sampled": {"main": 70, "snapshot_0": 12}}}) == 70
    assert _main_steps({"env_runners": {"num_module_steps_sampled": {"main": float("nan")}}}) == 0
    assert _main_steps({}) == 0


def test_a_copied_snapshot_reaches_the_env_runner_that_samples(ray_local):
    """A snapshot's weights reach the driver's env runner (which samples with 0 remote env
    runners), not only the learner: RLlib's ``sync_weights`` skips a runner whose weights sequence
    number is the learner's, and did so for every snapshot before the copy was made direct."""
    import torch

    from training.engines.rllib.trainer import _copy_module, build_algorithm

    cfg = load_config(REPO_ROOT / "configs/ataxx_rllib.yaml", validate=False)
    cfg["policy"]["features_kwargs"] = {"channels": 4, "blocks": 1}
    cfg["rllib"].update(train_batch_size=64, minibatch_size=32, num_envs_per_env_runner=2)
    algo = build_algorithm(cfg, 0)
    try:
        algo.train()

        def same(a, b):
            a, b = a.state_dict(), b.state_dict()
            return all(torch.equal(a[k], b[k]) for k in a)

        runner = algo.env_runner.module
        assert not same(runner["snapshot_0"], runner["main"])
        _copy_module(algo, "main", "snapshot_0")
        assert same(runner["snapshot_0"], runner["main"])
        assert same(algo.learner_group._learner.module["snapshot_0"], runner["main"])
        assert not same(runner["snapshot_1"], runner["main"])
    finally:
        algo.stop()


def test_the_command_resumes_from_a_relative_path_in_a_new_process(ataxx_run, tmp_path):
    """The command line as a user runs it: a new process (RLlib's restored metrics then name the
    first process's Ray node), relative paths (RLlib reads checkpoints through pyarrow, which needs
    absolute ones: the final tournament loads the relative ``rllib:`` spec), and a config error
    raised inside the RLlib trainer printed as one line under ``python -m``."""
    import subprocess
    import sys

    shutil.copytree(ataxx_run, tmp_path / "first")
    env = {**__import__("os").environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "training.train",
            "first/config.yaml",
            "--resume",
            "first/checkpoints/final",
            "--timesteps",
            "64",
            "--final-games",
            "1",
            "--out",
            "second",
            "--no-progress",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads((tmp_path / "second" / "report.json").read_text())
    first = json.loads((ataxx_run / "report.json").read_text())
    assert report["timesteps"] == first["timesteps"] + report["timesteps_this_run"] > first["timesteps"]
    assert sum(report["vs"][o]["games"] for o in report["vs"]) == 2  # the final tournament ran on the relative path
    bad = tmp_path / "bad.yaml"
    import re

    bad.write_text(
        re.sub(r"minibatch_size: \d+", "minibatch_size: 4096", (tmp_path / "first" / "config.yaml").read_text())
    )
    assert "minibatch_size: 4096" in bad.read_text()
    done = subprocess.run(
        [sys.executable, "-m", "training.train", "bad.yaml", "--out", "bad_run"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "minibatch_size" in done.stderr.strip().splitlines()[-1]
    assert not (tmp_path / "bad_run").exists()
