"""Ctrl+C during a tournament: the games that ended are rated and written before it stops."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import REPO_ROOT
from training.tournament import TournamentInterrupted, run_tournament


def test_an_interrupted_tournament_writes_the_games_that_ended(tmp_path):
    def progress(done, total):
        if done == 3:
            raise KeyboardInterrupt  # as Ctrl+C arriving while games are played

    with pytest.raises(TournamentInterrupted, match=r"interrupted after 3 of 20 games") as stop:
        run_tournament("ataxx_v0", ["random", "greedy"], 20, seed=1, out_dir=tmp_path / "t", progress=progress)
    saved = json.loads((tmp_path / "t" / "results.json").read_text())
    assert saved["interrupted"] == {"games_played": 3, "games_planned": 20} == stop.value.result["interrupted"]
    assert len(saved["games"]) == 3
    assert sum(p["wins"] + p["draws"] + p["losses"] for p in saved["pairs"] if p["agent"] == "greedy") == 3
    full = run_tournament("ataxx_v0", ["random", "greedy"], 20, seed=1)
    assert full["interrupted"] is None
    assert [g["returns"] for g in saved["games"]] == [g["returns"] for g in full["games"]][:3]
    with pytest.raises(KeyboardInterrupt) as plain:  # no out_dir: nothing to write, it goes through
        run_tournament("ataxx_v0", ["random", "greedy"], 20, seed=1, progress=progress)
    assert not isinstance(plain.value, TournamentInterrupted)


def test_ctrl_c_in_the_cli_keeps_the_games_that_ended(tmp_path):
    out = tmp_path / "t"
    proc = subprocess.Popen(
        [sys.executable, "-m", "training.evaluate", "ataxx_v0", "--agents", "random", "random"]
        + ["--games", "5000", "--out", str(out), "--no-progress", "--seed", "0"],
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a pytest-xdist worker ignores SIGINT, and an ignored signal stays ignored in the child
        # (Python then installs no KeyboardInterrupt handler): give the child the default
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.time() + 120
    while not out.exists() and time.time() < deadline and proc.poll() is None:  # made before the first game
        time.sleep(0.2)
    time.sleep(2.0)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "Interrupted" in stdout and "of 5000 games" in stdout
    saved = json.loads((out / "results.json").read_text())
    played = saved["interrupted"]["games_played"]
    assert 0 < played < 5000 and len(saved["games"]) == played
    assert (out / "pairs.csv").read_text().count("\n") >= 2
