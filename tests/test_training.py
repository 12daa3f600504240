"""End-to-end smoke test of the main job: self-play training, checkpoints, evaluation report."""

import json

import pytest

pytest.importorskip("sb3_contrib")

from training.train import load_config, main, train  # noqa: E402


def small_config(tmp_path):
    cfg = load_config("configs/ataxx.yaml", total_timesteps=1024)
    cfg["n_envs"] = 4
    cfg["ppo"].update(n_steps=128, batch_size=128, n_epochs=1)
    cfg["pool"]["snapshot_every"] = 512
    cfg["eval"].update(every=512, games=2)
    cfg["checkpoint_every"] = 512
    cfg["final_eval"]["games"] = 4
    cfg["max_steps"] = 200
    return cfg


def test_training_smoke_writes_checkpoints_and_report(tmp_path):
    cfg = small_config(tmp_path)
    out = tmp_path / "run"
    report = train(cfg, out, progress_bar=False)
    assert report["timesteps"] == 1024
    assert (out / "checkpoints" / "final.zip").is_file()
    assert (out / "checkpoints" / "step_512.zip").is_file()
    assert (out / "config.yaml").is_file() and "seed: 0" in (out / "config.yaml").read_text()
    assert (out / "logs" / "progress.csv").is_file()
    assert (out / "learning_curve.png").stat().st_size > 1000
    for name in ("results.json", "pairs.csv", "ratings.csv", "ratings.png"):
        assert (out / "eval" / name).is_file(), name
    saved = json.loads((out / "report.json").read_text())
    assert saved["seed"] == 0 and saved["env_id"] == "ataxx_v0"
    for spec in ("random", "greedy"):
        r = saved["vs"][spec]
        assert r["games"] == 4 and r["wins"] + r["draws"] + r["losses"] == 4
    assert [row["timesteps"] for row in saved["periodic_eval"]] == [512, 1024]


def test_resume_continues_the_timestep_count(tmp_path):
    cfg = small_config(tmp_path)
    cfg["total_timesteps"] = 512
    cfg["eval"]["every"] = 10**9
    first = train(cfg, tmp_path / "a", progress_bar=False)
    second = train(cfg, tmp_path / "b", resume=first["checkpoint"], progress_bar=False)
    assert second["timesteps"] == 1024


def test_config_errors(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("env_id: ataxx_v0\nppo: {learning_rat: 0.1}\n")
    with pytest.raises(ValueError, match="unknown config key 'ppo.learning_rat'"):
        load_config(bad)
    with pytest.raises(FileNotFoundError):
        load_config(tmp_path / "missing.yaml")
    with pytest.raises(SystemExit):
        main([str(bad)])
