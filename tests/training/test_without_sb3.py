"""The RLlib and AlphaZero engines need no stable-baselines3: ``python -m training.train configs/ataxx_rllib.yaml
--smoke`` runs end to end (config, validation, training, periodic and final evaluation with the
checkpoint loaded as an ``rllib:`` agent, report) in a Python where ``stable_baselines3`` and
``sb3_contrib`` cannot be imported, and writes the same ``logs/`` as an SB3 run; an SB3 config
there names the missing extra."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from conftest import REPO_ROOT

pytest.importorskip("ray.rllib")
pytest.importorskip("torch")

#: Runs ``training.train`` as ``python -m`` does, with a finder that refuses stable-baselines3 and
#: sb3-contrib (as if they were not installed), then prints the SB3 modules loaded.
_RUN_WITHOUT_SB3 = textwrap.dedent("""
    import runpy, sys

    class _NoSB3:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("stable_baselines3", "sb3_contrib"):
                raise ImportError(f"{name} is blocked in this test (as if stable-baselines3 were not installed)")
            return None

    sys.meta_path.insert(0, _NoSB3())
    sys.argv = ["training.train", *sys.argv[1:]]
    try:
        runpy.run_module("training.train", run_name="__main__", alter_sys=True)
    finally:
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("stable_baselines3", "sb3_contrib"))
        print("SB3 modules loaded:", loaded, flush=True)
""")


def _train_without_sb3(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", _RUN_WITHOUT_SB3, *args], cwd=REPO_ROOT, capture_output=True, text=True, timeout=600
    )


def test_an_rllib_smoke_run_needs_no_stable_baselines3(tmp_path):
    out = tmp_path / "run"
    proc = _train_without_sb3("configs/ataxx_rllib.yaml", "--smoke", "--out", str(out), "--no-progress")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "SB3 modules loaded: []" in proc.stdout
    report = json.loads((out / "report.json").read_text())
    assert report["engine"] == "rllib" and report["smoke"] is True
    assert set(report["vs"]) == {"random", "greedy"}  # the final tournament loaded rllib:<final>
    assert all(r["games"] == 1 for r in report["vs"].values())
    assert [row["timesteps"] for row in report["periodic_eval"]] == [report["timesteps"]]
    assert (out / "checkpoints" / "final" / "tabletop_rl.json").is_file()
    lines = (out / "logs" / "progress.csv").read_text().splitlines()
    assert lines[0].split(",") == sorted(lines[0].split(","))  # the keys of the first dump, sorted as SB3's logger
    assert {"train/policy_loss", "time/timesteps", "pool/win_rate", "eval/score_vs_random"} <= set(lines[0].split(","))
    header, row = lines[0].split(","), lines[1].split(",")
    assert len(lines) == 2 and row[header.index("time/timesteps")] == str(report["timesteps"])
    assert list((out / "logs").glob("events.out.tfevents.*"))


def test_an_sb3_config_without_stable_baselines3_names_the_train_extra(tmp_path):
    proc = _train_without_sb3("configs/ataxx_quick.yaml", "--smoke", "--out", str(tmp_path / "run"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: python -m training.train configs/ataxx_quick.yaml needs the 'train' extra")
    assert "missing stable_baselines3, sb3_contrib." in proc.stderr and 'pip install -e ".[train]"' in proc.stderr
    assert not (tmp_path / "run").exists()


def test_an_alphazero_smoke_run_needs_no_stable_baselines3(tmp_path):
    """The search engine neither: its network, search, logs and final tournament are SB3-free."""
    out = tmp_path / "run"
    proc = _train_without_sb3("configs/ataxx_az.yaml", "--smoke", "--out", str(out), "--no-progress")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "SB3 modules loaded: []" in proc.stdout
    report = json.loads((out / "report.json").read_text())
    assert report["engine"] == "alphazero" and report["smoke"] is True
    assert (out / "checkpoints" / "final.pt").is_file()
    header = (out / "logs" / "progress.csv").read_text().splitlines()[0].split(",")
    assert {"selfplay/episodes", "train/loss"} <= set(header)
    assert list((out / "logs").glob("events.out.tfevents.*"))
