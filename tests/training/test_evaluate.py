"""Tournaments and ratings (``training.evaluate``): API, output files, CLI, n-player schedules."""

from __future__ import annotations

import copy
import csv
import json
import math
import re
import subprocess
import sys
import types
import zipfile
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces
from PIL import Image

import training.evaluate as ev
import training.ratings as ratings
import training.tournament as tournament
from conftest import REPO_ROOT, tiny_checkpoint
from envs import registry
from envs.ataxx import AtaxxState
from envs.core.aec import TabletopAECEnv, wrap_classic
from envs.core.observation import ObservationEncoder
from envs.core.state import GameInfo, GameState, IllegalActionError
from envs.registry import EnvSpec

SPECS = ["random", "greedy", "alphabeta:1"]


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """random, greedy, alphabeta:1, 4 games per pair, seed 3, written to a folder."""
    out = tmp_path_factory.mktemp("eval") / "small"
    return ev.run_tournament("ataxx_v0", SPECS, 4, seed=3, out_dir=out), out


def test_results_json_has_every_game(small):
    result, out = small
    data = json.loads((out / "results.json").read_text())
    assert data["env_id"] == "ataxx_v0" and data["seed"] == 3 and data["num_players"] == 2
    assert [a["spec"] for a in data["agents"]] == SPECS
    assert len(data["games"]) == 3 * 4 and [g["index"] for g in data["games"]] == list(range(12))
    for g in data["games"]:
        assert set(g) >= {"seats", "agents", "returns", "plies", "seed", "moves", "truncated"}
        assert len(g["seats"]) == 2 and len(g["returns"]) == 2 and sorted(g["returns"]) in ([-1, 1], [0, 0])
        # The record replays to a finished game with the same result.
        s = AtaxxState()
        for m in g["moves"]:
            s.push(m)
        assert s.is_terminal() and list(s.returns()) == g["returns"] and g["plies"] == len(g["moves"])
    # Seats are swapped: each agent of a pair plays first in half of their games.
    for a in SPECS:
        for b in SPECS:
            if a < b:
                firsts = [g["seats"][0] for g in data["games"] if set(g["seats"]) == {a, b}]
                assert sorted(firsts) == sorted([a, a, b, b])
    assert data["pairs"] == result["pairs"] and data["ratings"] == result["ratings"]
    assert data["elo_anchor"] == "random"


def test_pairs_csv(small):
    result, out = small
    with open(out / "pairs.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 6  # ordered pairs
    by = {(r["agent"], r["opponent"]): r for r in rows}
    for (a, b), r in by.items():
        w, d, l, n = (int(r[k]) for k in ("wins", "draws", "losses", "games"))
        assert w + d + l == n == 4
        other = by[(b, a)]
        assert (int(other["wins"]), int(other["draws"]), int(other["losses"])) == (l, d, w)
        score = float(r["score"])
        assert score == pytest.approx((w + d / 2) / n)
        assert 0 <= float(r["score_ci95_low"]) <= score <= float(r["score_ci95_high"]) <= 1
    # Every game counted once per ordered pair.
    for (a, b), r in by.items():
        games = [g for g in result["games"] if {a, b} <= set(g["seats"])]
        wins = sum(g["returns"][g["seats"].index(a)] > g["returns"][g["seats"].index(b)] for g in games)
        assert int(r["wins"]) == wins
    assert by[("greedy", "random")]["wins"] == "4"


def test_wilson_interval_matches_scipy():
    from scipy.stats import binomtest

    ci = binomtest(3, 4).proportion_ci(method="wilson")
    assert ratings.wilson(3, 4) == pytest.approx((ci.low, ci.high))
    lo, hi = ratings.wilson(2.5, 4)  # half points: spans the intervals of 2 and 3
    assert lo == pytest.approx(binomtest(2, 4).proportion_ci(method="wilson").low)
    assert hi == pytest.approx(binomtest(3, 4).proportion_ci(method="wilson").high)


def test_ratings_csv_and_png(small):
    result, out = small
    with open(out / "ratings.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["rank"]) for r in rows] == [1, 2, 3]
    by = {r["name"]: r for r in rows}
    assert set(by) == set(SPECS)
    assert float(by["greedy"]["mu"]) > float(by["random"]["mu"])
    assert float(by["alphabeta:1"]["mu"]) > float(by["random"]["mu"])
    assert rows[-1]["name"] == "random"
    for r in rows:
        mu, sigma = float(r["mu"]), float(r["sigma"])
        assert float(r["ci95_low"]) == pytest.approx(mu - 1.96 * sigma, abs=1e-3)
        assert float(r["ci95_high"]) == pytest.approx(mu + 1.96 * sigma, abs=1e-3)
        assert int(r["wins"]) + int(r["draws"]) + int(r["losses"]) == int(r["games"]) == 8
    assert float(by["random"]["elo"]) == 0.0 and float(by["greedy"]["elo"]) > 100
    with Image.open(out / "ratings.png") as img:
        assert img.format == "PNG" and img.width > 300 and img.height > 150


def test_two_player_ladder_is_ranked_by_elo_with_intervals(small):
    result, out = small
    elos = [r["elo"] for r in result["ratings"]]
    assert elos == sorted(elos, reverse=True)  # ranked by Elo, not by the order-dependent OpenSkill mu
    with open(out / "ratings.csv", newline="") as f:
        rows = {r["name"]: r for r in csv.DictReader(f)}
    assert float(rows["random"]["elo_ci95_low"]) == float(rows["random"]["elo_ci95_high"]) == 0.0  # the anchor
    for n in ("greedy", "alphabeta:1"):
        lo, elo, hi = (float(rows[n][k]) for k in ("elo_ci95_low", "elo", "elo_ci95_high"))
        assert lo < elo < hi and hi - lo > 100  # 8 games each: wide


def _pairs(table: dict) -> list[dict]:
    """pair_table-like rows from ``{(a, b): (wins of a, draws, wins of b)}``."""
    rows = []
    for (a, b), (w, d, l) in table.items():
        rows.append({"agent": a, "opponent": b, "wins": w, "draws": d, "losses": l})
        rows.append({"agent": b, "opponent": a, "wins": l, "draws": d, "losses": w})
    return rows


def test_elo_interval_of_two_agents_is_the_wald_interval_of_the_logit_score():
    # Two agents: the fit is the logit of the score (virtual draw included) and the standard
    # error 1 / sqrt(n s (1 - s)) -- the textbook Wald interval for a binomial log-odds.
    w, d, l = 60, 10, 30
    r = ev.elo_ratings_with_intervals(["a", "b"], _pairs({("a", "b"): (w, d, l)}), "b")
    n, s = w + d + l + 1, (w + d / 2 + 0.5) / (w + d + l + 1)
    logit = math.log(s / (1 - s))
    se = 1 / math.sqrt(n * s * (1 - s))
    k = 400 / math.log(10)
    assert r["a"]["elo"] == pytest.approx(k * logit, rel=1e-4)
    assert r["a"]["elo_ci95_low"] == pytest.approx(k * (logit - 1.959964 * se), rel=1e-4)
    assert r["a"]["elo_ci95_high"] == pytest.approx(k * (logit + 1.959964 * se), rel=1e-4)
    assert r["b"] == {"elo": 0.0, "elo_ci95_low": 0.0, "elo_ci95_high": 0.0}
    assert ev.elo_ratings(["a", "b"], _pairs({("a", "b"): (w, d, l)}), "b") == {"a": r["a"]["elo"], "b": 0.0}


def test_elo_intervals_cover_the_true_ratings_about_95_percent_of_the_time():
    # Simulated round robins among four agents of known Elo (anchor 0): the 95 % intervals
    # should hold the true value in about 95 % of tournaments.
    rng = np.random.default_rng(0)
    true = {"anchor": 0.0, "b": 150.0, "c": 300.0, "d": -100.0}
    names = list(true)
    hits = total = 0
    for _ in range(300):
        table = {}
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                p = 1 / (1 + 10 ** ((true[b] - true[a]) / 400))
                wins = int(rng.binomial(200, p))
                table[(a, b)] = (wins, 0, 200 - wins)
        r = ev.elo_ratings_with_intervals(names, _pairs(table), "anchor", prior_draws=0.0)
        for n in names[1:]:
            hits += r[n]["elo_ci95_low"] <= true[n] <= r[n]["elo_ci95_high"]
            total += 1
    assert 0.92 <= hits / total <= 0.98


def test_elo_intervals_of_agents_not_joined_to_the_anchor_are_nan():
    r = ev.elo_ratings_with_intervals(["a", "b", "c", "d"], _pairs({("a", "b"): (5, 0, 5), ("c", "d"): (7, 0, 3)}), "a")
    assert r["b"]["elo"] == pytest.approx(0.0, abs=1e-3) and math.isfinite(r["b"]["elo_ci95_low"])
    for n in ("c", "d"):  # their games say nothing about their rating relative to a
        assert all(math.isnan(v) for v in r[n].values())
    lonely = ev.elo_ratings_with_intervals(["a", "b", "e"], _pairs({("a", "b"): (5, 0, 5)}), "a")
    assert all(math.isnan(v) for v in lonely["e"].values())  # met nobody
    # An agent that lost every game did play: it gets a rating (finite with the default prior).
    shut_out = ev.elo_ratings_with_intervals(["a", "b"], _pairs({("a", "b"): (10, 0, 0)}), "a")
    assert shut_out["b"]["elo"] < -300 and shut_out["b"]["elo_ci95_low"] < shut_out["b"]["elo_ci95_high"] < 0
    alone = ev.elo_ratings_with_intervals(["a"], [], "a")  # a single agent: nothing to fit
    assert math.isnan(alone["a"]["elo"])


def test_same_seed_same_tournament():
    a = ev.run_tournament("ataxx_v0", ["random", "greedy"], 2, seed=11)
    b = ev.run_tournament("ataxx_v0", ["random", "greedy"], 2, seed=11)
    assert a["games"] == b["games"] and a["ratings"] == b["ratings"] and a["out_dir"] is None


def test_duplicate_specs_get_distinct_names():
    r = ev.run_tournament("ataxx_v0", ["random", "random"], 2, seed=0, record_moves=False)
    assert [a["name"] for a in r["agents"]] == ["random", "random#2"]
    assert "moves" not in r["games"][0]


def test_max_steps_truncates_to_draws():
    r = ev.run_tournament("ataxx_v0", ["random", "greedy"], 2, seed=0, max_steps=2)
    assert all(g["truncated"] and g["plies"] == 2 and g["returns"] == [0.0, 0.0] for g in r["games"])
    assert all(p["draws"] == 2 for p in r["pairs"])


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"games": 0}, ValueError, "positive integer"),
        ({"agent_specs": ["random"]}, ValueError, "at least two agents"),
        ({"agent_specs": ["random", "mcts:abc"]}, ValueError, "expected an integer"),
        ({"agent_specs": ["random", "nonsense"]}, ValueError, "unknown agent spec"),
        ({"agent_specs": ["random", "missing/model.zip"]}, FileNotFoundError, "does not exist"),
        ({"env_kwargs": {"fen": "bad"}}, ValueError, "malformed FEN"),
        # env id and kwargs: the registry's messages (envs/registry.py), the one place they are checked
        ({"env_id": "chess_v9"}, ValueError, r"^unknown environment id 'chess_v9'; known ids: ataxx_v0, "),
        (
            {"env_kwargs": {"colour": "red"}},
            ValueError,
            r"^ataxx_v0 has no argument 'colour'; its arguments are: fen, halfmove_clock, max_steps, render_mode$",
        ),
        ({"env_kwargs": {"max_steps": -4}}, ValueError, r"^max_steps must be None or a positive integer, got -4$"),
        ({"max_steps": 0}, ValueError, r"^max_steps must be None or a positive integer, got 0$"),
        ({"seed": -1}, ValueError, "seed"),
        ({"games": True}, ValueError, "positive integer"),
        ({"games": 1.5}, ValueError, "positive integer"),
        ({"games": -3}, ValueError, "positive integer"),
    ],
)
def test_api_errors(kwargs, error, message):
    args = {"env_id": "ataxx_v0", "agent_specs": ["random", "greedy"], "games": 2, "seed": 0, **kwargs}
    with pytest.raises(error, match=message):
        ev.run_tournament(**args)


def test_cli_main(tmp_path, capsys):
    out = tmp_path / "cli"
    argv = [
        "ataxx_v0",
        "--agents",
        "random",
        "greedy",
        "--games",
        "2",
        "--seed",
        "5",
        "--out",
        str(out),
        "--no-progress",
        "--env-kwargs",
        '{"halfmove_clock": true}',
    ]
    assert ev.main(argv) == 0
    printed = capsys.readouterr().out
    assert "wins-draws-losses" in printed and "Ladder" in printed and "2-0-0" in printed
    assert sorted(p.name for p in out.iterdir()) == ["pairs.csv", "ratings.csv", "ratings.png", "results.json"]
    data = json.loads((out / "results.json").read_text())
    assert data["command"].endswith(" ".join(argv[:-1]) + " '{\"halfmove_clock\": true}'")
    assert data["env_kwargs"] == {"halfmove_clock": True} and data["seed"] == 5


@pytest.mark.parametrize(
    "argv, message",
    [
        (["chess_v9", "--agents", "random", "greedy", "--games", "2"], "unknown environment id"),
        (["ataxx_v0", "--agents", "random", "greedy", "--games", "0"], "at least 1"),
        (["ataxx_v0", "--agents", "random", "bogus", "--games", "2"], "unknown agent spec"),
        (["ataxx_v0", "--agents", "random", "nowhere.zip", "--games", "2"], "does not exist"),
        (["ataxx_v0", "--agents", "random", "greedy", "--games", "2", "--env-kwargs", "{oops"], "not valid JSON"),
        (
            ["ataxx_v0", "--agents", "random", "greedy", "--games", "2", "--env-kwargs", '{"colour": 1}'],
            "error: ataxx_v0 has no argument 'colour'; its arguments are: fen, halfmove_clock, max_steps, render_mode",
        ),
        (
            ["ataxx_v0", "--agents", "random", "greedy", "--games", "2", "--max-steps", "0"],
            "argument --max-steps: expected a positive integer (at least 1), got 0",
        ),
        (
            ["chess_v9", "--agents", "random", "greedy", "--games", "2"],
            "argument env_id: unknown environment id 'chess_v9'; known ids: ataxx_v0, twixt_v0",
        ),
    ],
)
def test_cli_errors(argv, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        ev.main(argv + ["--out", str(tmp_path / "x"), "--no-progress"])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


@pytest.fixture()
def no_games(monkeypatch):
    """Fail the test if any game is played."""

    def refuse(*args, **kwargs):
        raise AssertionError("a game was played before the error was raised")

    monkeypatch.setattr(tournament, "play_games", refuse)


def _cli_error(argv, capsys) -> str:
    with pytest.raises(SystemExit) as exc:
        ev.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_cli_zip_that_is_not_a_checkpoint(tmp_path, capsys, no_games):
    path = tmp_path / "empty.zip"
    zipfile.ZipFile(path, "w").close()
    out = tmp_path / "out"
    err = _cli_error(
        ["ataxx_v0", "--agents", "random", str(path), "--games", "2", "--out", str(out), "--no-progress"], capsys
    )
    assert f"error: {path} is not a MaskablePPO checkpoint written by training.train: No data found" in err
    assert not out.exists()  # nothing written


def test_cli_zip_that_is_not_a_checkpoint_subprocess(tmp_path):
    path = tmp_path / "empty.zip"
    zipfile.ZipFile(path, "w").close()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "training.evaluate",
            "ataxx_v0",
            "--agents",
            "random",
            str(path),
            "--games",
            "2",
            "--no-progress",
            "--out",
            str(tmp_path / "out"),
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"{path} is not a MaskablePPO checkpoint written by training.train" in proc.stderr


def test_cli_out_is_an_existing_file(tmp_path, capsys, no_games):
    out = tmp_path / "taken"
    out.write_text("keep me")
    err = _cli_error(
        ["ataxx_v0", "--agents", "random", "greedy", "--games", "2", "--out", str(out), "--no-progress"], capsys
    )
    assert f"error: output folder {out} is an existing file, not a folder: expected a folder (new or existing)" in err
    assert out.read_text() == "keep me"


def test_cli_out_holding_an_earlier_tournament_needs_overwrite(tmp_path, capsys):
    """Found by a newcomer: a second tournament into the same --out silently replaced the first."""
    out = tmp_path / "t"
    argv = ["ataxx_v0", "--agents", "random", "greedy", "--games", "2", "--out", str(out), "--no-progress"]
    assert ev.main(argv) == 0
    first = (out / "results.json").read_text()
    err = _cli_error(argv, capsys)
    assert (
        f"error: --out {out} already holds an earlier tournament's results.json, pairs.csv, ratings.csv, "
        "ratings.png: give another folder, or --overwrite to replace them"
    ) in err
    assert (out / "results.json").read_text() == first  # untouched
    assert ev.main([*argv, "--overwrite", "--seed", "3"]) == 0
    assert json.loads((out / "results.json").read_text())["seed"] == 3


def test_cli_out_below_a_file(tmp_path, capsys, no_games):
    parent = tmp_path / "file"
    parent.write_text("")
    out = parent / "sub"
    err = _cli_error(
        ["ataxx_v0", "--agents", "random", "greedy", "--games", "2", "--out", str(out), "--no-progress"], capsys
    )
    assert f"error: cannot create or write the output folder {out}: " in err and "Not a directory" in err


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs the Linux /proc file system")
def test_cli_out_in_proc(capsys, no_games):
    err = _cli_error(
        ["ataxx_v0", "--agents", "random", "greedy", "--games", "2", "--out", "/proc/nope", "--no-progress"], capsys
    )
    assert "error: cannot create or write the output folder /proc/nope: " in err


def test_out_dir_holding_a_folder_named_like_an_output(tmp_path, no_games):
    (tmp_path / "ratings.png").mkdir()
    with pytest.raises(
        ValueError, match=re.escape(f"output folder {tmp_path}: {tmp_path / 'ratings.png'} is a folder")
    ):
        ev.run_tournament("ataxx_v0", ["random", "greedy"], 2, seed=0, out_dir=tmp_path)


def test_api_out_dir_is_a_file_fails_before_playing(tmp_path, no_games):
    out = tmp_path / "taken.txt"
    out.write_text("")
    with pytest.raises(ValueError, match=re.escape(f"output folder {out} is an existing file, not a folder")):
        ev.run_tournament("ataxx_v0", ["random", "greedy"], 2, seed=0, out_dir=out)


def test_api_bad_spec_leaves_no_output_folder(tmp_path, no_games):
    out = tmp_path / "new"
    with pytest.raises(ValueError, match="unknown agent spec"):
        ev.run_tournament("ataxx_v0", ["random", "bogus"], 2, seed=0, out_dir=out)
    assert not out.exists()


@pytest.mark.parametrize("seed, shown", [("-1", "-1"), ("-5", "-5"), ("x", "'x'")])
def test_cli_rejects_bad_seeds(seed, shown, tmp_path, capsys, no_games):
    err = _cli_error(
        [
            "ataxx_v0",
            "--agents",
            "random",
            "greedy",
            "--games",
            "2",
            "--seed",
            seed,
            "--out",
            str(tmp_path / "o"),
            "--no-progress",
        ],
        capsys,
    )
    assert f"argument --seed: expected a non-negative integer, got {shown}" in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        ((0, 2, 1), "schedule: num_agents must be a positive integer, got 0"),
        ((2, 0, 1), "schedule: num_seats must be a positive integer, got 0"),
        ((2, 2, 0), "schedule: games must be a positive integer, got 0"),
        ((2, 2, True), "schedule: games must be a positive integer, got True"),
    ],
)
def test_schedule_rejects_bad_arguments(args, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        ev.schedule(*args)


def test_cli_checkpoint_with_a_colon_and_a_long_path(tmp_path, capsys):
    folder = tmp_path / "a:b" / ("very-long-experiment-folder-name-" * 3 + "seed0")
    ckpt = tiny_checkpoint(folder / "final.zip")
    out = tmp_path / "out"
    specs = ["random", str(ckpt), f"{ckpt}:sample"]
    assert (
        ev.main(
            [
                "ataxx_v0",
                "--agents",
                *specs,
                "--games",
                "1",
                "--seed",
                "0",
                "--max-steps",
                "6",
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    data = json.loads((out / "results.json").read_text())
    assert [a["spec"] for a in data["agents"]] == specs and [a["name"] for a in data["agents"]] == specs
    with open(out / "ratings.csv", newline="") as f:
        assert sorted(r["name"] for r in csv.DictReader(f)) == sorted(specs)  # full names in the CSV
    # ... and short ones in the chart: the folder and the file stem, cut to their last 39 characters after '…'.
    labels = dict(zip((r["name"] for r in data["ratings"]), ev.chart_labels(data["ratings"])))
    assert labels == {
        "random": "random",
        str(ckpt): "…" + f"{folder.name}/final"[-39:],
        f"{ckpt}:sample": "…" + f"{folder.name}/final:sample"[-39:],
    }
    assert labels[str(ckpt)].endswith("-seed0/final") and len(labels[str(ckpt)]) == ev.MAX_LABEL == 40
    with Image.open(out / "ratings.png") as img:
        assert img.format == "PNG"


def test_chart_labels():
    ratings = [
        {"name": "random", "spec": "random"},
        {"name": "/home/me/runs/ataxx-1/final.zip", "spec": "/home/me/runs/ataxx-1/final.zip"},
        {"name": "/home/me/runs/ataxx-1/final.zip#2", "spec": "/home/me/runs/ataxx-1/final.zip"},
        {"name": "/tmp/a:b/best.zip:sample", "spec": "/tmp/a:b/best.zip:sample"},
        {"name": "model.zip", "spec": "model.zip"},
        {"name": "/x/run/final.zip", "spec": "/x/run/final.zip"},
        {"name": "/y/run/final.zip", "spec": "/y/run/final.zip"},
    ]
    assert ev.chart_labels(ratings) == [
        "random",
        "ataxx-1/final",
        "ataxx-1/final#2",
        "a:b/best:sample",
        "model",
        "/x/run/final.zip",
        "/y/run/final.zip",  # equal short labels: full names instead
    ]
    long = "/data/" + "x" * 80 + "/final.zip"
    (label,) = ev.chart_labels([{"name": long, "spec": long}])
    assert len(label) == ev.MAX_LABEL and label == "…" + "x" * 33 + "/final"


def test_chart_shows_short_labels_inside_the_picture(small, tmp_path):
    result = copy.deepcopy(small[0])
    long_dir = "/home/someone/experiments/" + "ataxx-selfplay-with-a-very-long-run-name-" * 2
    renames = {r["name"]: f"{long_dir}/{r['name'].replace(':', '-')}.zip" for r in result["ratings"]}
    for r in result["ratings"]:
        r["name"] = r["spec"] = renames[r["name"]]
    fig = ev.plot_ratings(result, tmp_path / "ratings.png")
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ev.chart_labels(result["ratings"])
    assert all(len(t) <= ev.MAX_LABEL for t in labels)
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    for text in [*ax.get_yticklabels(), ax.xaxis.label, ax.title]:
        ext = text.get_window_extent(renderer)
        assert ext.x0 >= box.x0 - 1 and ext.x1 <= box.x1 + 1 and ext.y0 >= box.y0 - 1 and ext.y1 <= box.y1 + 1, (
            f"{text.get_text()!r} is clipped"
        )
    with Image.open(tmp_path / "ratings.png") as img:
        assert img.format == "PNG"


def test_cli_subprocess_error_exit_status():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "training.evaluate",
            "ataxx_v0",
            "--agents",
            "random",
            "mcts:abc",
            "--games",
            "2",
            "--no-progress",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "expected an integer" in proc.stderr and "Traceback" not in proc.stderr


# ---------------------------------------------------------------------------- n-player games
def test_schedule_two_players():
    plan = ev.schedule(3, 2, 3)
    assert len(plan) == 9
    assert plan[:4] == [(0, [0, 1]), (1, [0, 2]), (2, [1, 2]), (0, [1, 0])]
    assert [s for g, s in plan if g == 0] == [[0, 1], [1, 0], [0, 1]]


def test_schedule_more_agents_than_seats():
    plan = ev.schedule(4, 3, 3)
    assert len(plan) == 4 * 3  # C(4, 3) groups of 3 games
    for group in range(4):
        seatings = [s for g, s in plan if g == group]
        assert len({tuple(sorted(s)) for s in seatings}) == 1 and all(len(set(s)) == 3 for s in seatings)
        # every agent of the group sits once in every seat over the 3 games
        for seat in range(3):
            assert len({s[seat] for s in seatings}) == 3


def test_schedule_fewer_agents_than_seats():
    assert ev.schedule(2, 3, 2) == [(0, [0, 1, 0]), (0, [1, 0, 1])]


class _BidState(GameState):
    """Toy 3-player game: each player in turn bids 0, 1 or 2; returns are ``bid - 1``."""

    info = GameInfo(
        short_name="bid",
        long_name="Bid",
        perfect_information=True,
        chance=False,
        min_players=3,
        max_players=6,
        teams=True,
        seat_names=(),
        notation="0, 1 or 2",
    )
    num_players = 3
    num_actions = 3

    def __init__(self):
        self.bids = []

    @property
    def current_player(self):
        return -1 if self.is_terminal() else len(self.bids)

    def legal_action_mask(self):
        return np.full(3, 0 if self.is_terminal() else 1, dtype=np.int8)

    def apply(self, action):
        a = self._check_action_index(action)
        if self.is_terminal():
            raise IllegalActionError("game over")
        self.bids.append(a)

    def is_terminal(self):
        return len(self.bids) == 3

    def returns(self):
        return np.array(self.bids, dtype=np.float64) - 1.0 if self.is_terminal() else np.zeros(3)

    def clone(self):
        c = _BidState()
        c.bids = list(self.bids)
        return c

    def action_to_string(self, action):
        return str(int(action))

    def string_to_action(self, text):
        return int(text)

    def position_key(self):
        return tuple(self.bids)


class _BidObservation(ObservationEncoder):
    space = spaces.Box(0, 2, shape=(3,), dtype=np.float32)

    def encode(self, state, player):
        return np.zeros(3, dtype=np.float32)


class _BidEnv(TabletopAECEnv):
    metadata = {
        "name": "bid3_v0",
        "render_modes": ["ansi", "rgb_array", "human"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(self, max_steps=None, render_mode=None):
        self.num_players, self.num_actions = 3, 3
        self.encoder = _BidObservation()
        super().__init__(render_mode=render_mode, max_steps=max_steps)

    def _new_state(self, rng):
        return _BidState()

    def _render_ansi(self):
        return str(self.state.bids)

    def _render_rgb(self):
        return np.zeros((8, 8, 3), dtype=np.uint8)


@pytest.fixture()
def bid3(monkeypatch):
    module = types.ModuleType("_bid3_v0")
    module.raw_env = _BidEnv
    module.env = lambda **kw: wrap_classic(_BidEnv(**kw))
    monkeypatch.setitem(sys.modules, "_bid3_v0", module)
    monkeypatch.setitem(registry._REGISTRY, "bid3_v0", EnvSpec("bid3_v0", "_bid3_v0"))
    return "bid3_v0"


def test_three_player_tournament(bid3, tmp_path):
    specs = ["random", "mcts:30", "random", "mcts:30"]
    r = ev.run_tournament(bid3, specs, 3, seed=0, out_dir=tmp_path)
    assert r["num_players"] == 3 and len(r["games"]) == 4 * 3
    assert all(len(g["seats"]) == 3 and len(set(g["seats"])) == 3 for g in r["games"])
    # MCTS always bids 2; its rating is above random's.
    mu = {x["name"]: x["mu"] for x in r["ratings"]}
    assert min(mu["mcts:30"], mu["mcts:30#2"]) > max(mu["random"], mu["random#2"])
    assert all(x["elo"] is None for x in r["ratings"]) and r["elo_anchor"] is None
    by = {(p["agent"], p["opponent"]): p for p in r["pairs"]}
    assert by[("mcts:30", "mcts:30#2")]["draws"] == by[("mcts:30", "mcts:30#2")]["games"] == 6
    assert (tmp_path / "ratings.png").is_file() and "elo" in (tmp_path / "ratings.csv").read_text()


def test_three_seats_two_agents(bid3):
    r = ev.run_tournament(bid3, ["random", "mcts:30"], 4, seed=1)
    assert [g["seats"] for g in r["games"][:2]] == [["random", "mcts:30", "random"], ["mcts:30", "random", "mcts:30"]]
    for g in r["games"]:
        for name, value in g["results"].items():
            assert value == pytest.approx(np.mean([x for s, x in zip(g["seats"], g["returns"]) if s == name]))
    assert sum(p["games"] for p in r["pairs"]) == 2 * 4


# ---------------------------------------------------------------------------- team games
TEAMS_2X2 = [[0, 2], [1, 3]]


def test_schedule_two_teams_of_two():
    plan = ev.schedule(3, 4, 2, teams=TEAMS_2X2)
    assert plan == [
        (0, [0, 1, 0, 1]),
        (1, [0, 2, 0, 2]),
        (2, [1, 2, 1, 2]),
        (0, [1, 0, 1, 0]),
        (1, [2, 0, 2, 0]),
        (2, [2, 1, 2, 1]),
    ]
    # The same rotation as a two-player round robin, each seat of a player copied to its partner.
    assert [(g, [s[0], s[1], s[0], s[1]]) for g, s in ev.schedule(3, 2, 2)] == plan
    # Four agents: the C(4, 2) = 6 pairs, never the single four-agent group of the seat schedule.
    plan4 = ev.schedule(4, 4, 1, teams=TEAMS_2X2)
    assert [tuple(s[:2]) for _, s in plan4] == [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    assert ev.schedule(4, 4, 1) == [(0, [0, 1, 2, 3])]  # without teams: seats, as before


def test_schedule_three_teams():
    teams = [[0, 3], [1, 4], [2, 5]]
    plan = ev.schedule(4, 6, 3, teams=teams)
    assert len(plan) == 4 * 3  # C(4, 3) groups of 3 games
    for _, s in plan:
        assert s[:3] == s[3:] and len(set(s)) == 3  # partners: the same agent; three agents
    for group in range(4):
        seatings = [s for g, s in plan if g == group]
        for team in range(3):  # every agent of the group holds every team once
            assert len({s[team] for s in seatings}) == 3
    # Fewer agents than teams: the teams are filled in rotation.
    assert ev.schedule(2, 6, 2, teams=teams) == [(0, [0, 1, 0, 0, 1, 0]), (0, [1, 0, 1, 1, 0, 1])]
    # Teams given for a game where every seat is alone: the seat schedule.
    assert ev.schedule(3, 3, 2, teams=[[0], [1], [2]]) == ev.schedule(3, 3, 2)


@pytest.mark.parametrize("teams", [[[0, 2], [1]], [[0, 1], [1, 2, 3]], [[0, 1, 2, 3], []], [[0, 1], [2, 4]], []])
def test_schedule_rejects_bad_teams(teams):
    with pytest.raises(ValueError, match=r"^schedule: teams must split the seats 0\.\.3 into non-empty teams"):
        ev.schedule(2, 4, 1, teams=teams)


def test_teams_come_from_the_env_spec():
    # The tournament asks the registry's spec (the state's teams()) for the sides, not its own table.
    r = ev.run_tournament(
        "double_twixt_v0", ["random", "greedy"], 1, seed=0, env_kwargs={"board_size": 6}, record_moves=False
    )
    assert r["teams"] == TEAMS_2X2 == registry.spec("double_twixt_v0").teams(board_size=6)
    assert ev.run_tournament("ataxx_v0", ["random", "greedy"], 1, seed=0)["teams"] == [[0], [1]]


@pytest.fixture(scope="module")
def double_twixt(tmp_path_factory):
    """random, greedy, random on a 6x6 Double TwixT board, 4 games per pair, written to a folder."""
    out = tmp_path_factory.mktemp("eval") / "double"
    specs = ["random", "greedy", "random"]
    return ev.run_tournament("double_twixt_v0", specs, 4, seed=7, out_dir=out, env_kwargs={"board_size": 6}), out


def test_double_twixt_each_agent_holds_a_whole_team(double_twixt):
    r, out = double_twixt
    names = ["random", "greedy", "random#2"]
    assert r["num_players"] == 4 and r["teams"] == TEAMS_2X2 and r["num_teams"] == 2
    assert len(r["games"]) == 3 * 4
    pairs_seen = {}
    for g in r["games"]:
        a, b = g["seats"][0], g["seats"][1]
        assert g["seats"] == [a, b, a, b] and a != b  # one agent on seats {0, 2}, another on {1, 3}
        assert g["sides"] == [a, b] and g["agents"] == [a, b]
        # Partners share their return; an agent's result is its team's return.
        assert g["returns"][0] == g["returns"][2] and g["returns"][1] == g["returns"][3]
        assert g["results"] == {a: g["returns"][0], b: g["returns"][1]}
        assert g["returns"][0] == -g["returns"][1] and g["returns"][0] in (-1.0, 0.0, 1.0)
        pairs_seen.setdefault(frozenset((a, b)), []).append((a, b))
    # All three pairs, 4 games each, the sides alternating from one game of a pair to the next.
    assert set(pairs_seen) == {
        frozenset(p) for p in [("random", "greedy"), ("random", "random#2"), ("greedy", "random#2")]
    }
    for (x, y), (x1, y1), (x2, y2), (x3, y3) in pairs_seen.values():
        assert (x1, y1) == (y, x) and (x2, y2) == (x, y) and (x3, y3) == (y, x)
    assert [tuple(g["sides"]) for g in r["games"][:3]] == [
        ("random", "greedy"),
        ("random", "random#2"),
        ("greedy", "random#2"),
    ]
    # Every agent holds red (seats 0, 2) in exactly half of its 8 games.
    for n in names:
        assert sum(g["sides"][0] == n for g in r["games"]) == 4
        assert sum(n in g["agents"] for g in r["games"]) == 8


def test_double_twixt_results_and_ratings(double_twixt):
    r, out = double_twixt
    names = ["random", "greedy", "random#2"]
    by = {(p["agent"], p["opponent"]): p for p in r["pairs"]}
    assert len(by) == 6
    for (a, b), p in by.items():
        games = [g for g in r["games"] if {a, b} == set(g["agents"])]
        wins = sum(g["results"][a] > g["results"][b] for g in games)
        draws = sum(g["results"][a] == g["results"][b] for g in games)
        assert (p["games"], p["wins"], p["draws"], p["losses"]) == (4, wins, draws, 4 - wins - draws)
        assert 0 <= p["score_ci95_low"] <= p["score"] <= p["score_ci95_high"] <= 1
    # OpenSkill: each game is a two-agent match (one agent per team), not a four-seat one.
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {n: model.rating(name=n) for n in names}
    for g in r["games"]:
        a, b = g["sides"]
        ra, rb = g["results"][a], g["results"][b]
        ranks = [1 + (rb > ra), 1 + (ra > rb)]
        (ratings[a],), (ratings[b],) = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
    rows = {x["name"]: x for x in r["ratings"]}
    for n in names:
        assert rows[n]["mu"] == pytest.approx(ratings[n].mu) and rows[n]["sigma"] == pytest.approx(ratings[n].sigma)
        assert rows[n]["games"] == 8 and rows[n]["wins"] + rows[n]["draws"] + rows[n]["losses"] == 8
    # Elo: two teams, so fitted, anchored at the first random agent, and equal to a fit of the pairs.
    assert r["elo_anchor"] == "random" and rows["random"]["elo"] == 0.0
    assert {n: rows[n]["elo"] for n in names} == pytest.approx(ev.elo_ratings(names, r["pairs"], "random"))
    assert all(math.isfinite(rows[n]["elo"]) for n in names)
    # The output files.
    data = json.loads((out / "results.json").read_text())
    assert data["teams"] == TEAMS_2X2 and data["games"] == r["games"]
    with open(out / "ratings.csv", newline="") as f:
        assert all(row["elo"] != "" for row in csv.DictReader(f))
    with open(out / "pairs.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == 6
    with Image.open(out / "ratings.png") as img:
        assert img.format == "PNG"


def test_double_twixt_two_agents_as_in_final_evaluation():
    """training.train's final evaluation plays one two-agent tournament per opponent."""
    r = ev.run_tournament(
        "double_twixt_v0", ["greedy", "random"], 3, seed=1, env_kwargs={"board_size": 6}, record_moves=False
    )
    assert [g["seats"] for g in r["games"]] == [
        ["greedy", "random"] * 2,
        ["random", "greedy"] * 2,
        ["greedy", "random"] * 2,
    ]
    assert [p["games"] for p in r["pairs"]] == [3, 3]
    assert r["elo_anchor"] == "random" and all(x["elo"] is not None for x in r["ratings"])


def test_non_team_games_keep_the_seat_schedule(small, bid3):
    result, _ = small
    assert result["teams"] == [[0], [1]] and result["num_teams"] == 2
    assert all(g["sides"] == g["seats"] for g in result["games"])
    r = ev.run_tournament(bid3, ["random", "random", "random", "random"], 1, seed=0, record_moves=False)
    assert r["teams"] == [[0], [1], [2]] and r["num_teams"] == 3
    assert [g["seats"] for g in r["games"]] == [
        [n for n in ["random", "random#2", "random#3", "random#4"] if n not in drop]
        for drop in (["random#4"], ["random#3"], ["random#2"], ["random"])
    ]


class _TeamBidState(_BidState):
    """Toy 6-seat game of 3 teams (seats ``i`` and ``i + 3``): each seat bids 0, 1 or 2 in turn;
    both seats of a team get the mean of the team's bids minus 1."""

    num_players = 6

    @property
    def current_player(self):
        return -1 if self.is_terminal() else len(self.bids)

    def is_terminal(self):
        return len(self.bids) == 6

    def returns(self):
        if not self.is_terminal():
            return np.zeros(6)
        b = np.array(self.bids, dtype=np.float64)
        team = (b[:3] + b[3:]) / 2 - 1.0
        return np.concatenate([team, team])

    def team_of(self, player):
        return player % 3

    def clone(self):
        c = _TeamBidState()
        c.bids = list(self.bids)
        return c


class _TeamBidEnv(_BidEnv):
    metadata = {**_BidEnv.metadata, "name": "teambid_v0"}

    def __init__(self, max_steps=None, render_mode=None):
        self.num_players, self.num_actions = 6, 3
        self.encoder = _BidObservation()
        TabletopAECEnv.__init__(self, render_mode=render_mode, max_steps=max_steps)

    def _new_state(self, rng):
        return _TeamBidState()


@pytest.fixture()
def teambid(monkeypatch):
    module = types.ModuleType("_teambid_v0")
    module.raw_env = _TeamBidEnv
    module.env = lambda **kw: wrap_classic(_TeamBidEnv(**kw))
    monkeypatch.setitem(sys.modules, "_teambid_v0", module)
    monkeypatch.setitem(registry._REGISTRY, "teambid_v0", EnvSpec("teambid_v0", "_teambid_v0"))
    return "teambid_v0"


def test_three_team_tournament(teambid):
    r = ev.run_tournament(teambid, ["random", "mcts:30", "random", "mcts:30"], 3, seed=0, record_moves=False)
    assert r["teams"] == [[0, 3], [1, 4], [2, 5]] and r["num_teams"] == 3 and len(r["games"]) == 4 * 3
    for g in r["games"]:
        assert g["seats"][:3] == g["seats"][3:] == g["sides"] and len(set(g["sides"])) == 3
        assert g["results"] == {n: g["returns"][t] for t, n in enumerate(g["sides"])}
    mu = {x["name"]: x["mu"] for x in r["ratings"]}
    assert min(mu["mcts:30"], mu["mcts:30#2"]) > max(mu["random"], mu["random#2"])
    assert all(x["elo"] is None for x in r["ratings"]) and r["elo_anchor"] is None
    # Two agents for three teams: the teams are filled in rotation.
    r2 = ev.run_tournament(teambid, ["random", "mcts:10"], 2, seed=0, record_moves=False)
    assert [g["seats"] for g in r2["games"]] == [
        ["random", "mcts:10", "random"] * 2,
        ["mcts:10", "random", "mcts:10"] * 2,
    ]
    assert [g["sides"] for g in r2["games"]] == [["random", "mcts:10", "random"], ["mcts:10", "random", "mcts:10"]]


@pytest.mark.parametrize("mode", ["human", "rgb_array", "ansi", None])
def test_render_mode_in_env_kwargs_is_refused_as_play_refuses_it(tmp_path, mode, capsys):
    """One behaviour for evaluate, play and train: the tool decides what is drawn."""
    from training.evaluate import main, run_tournament

    with pytest.raises(ValueError, match=f"env_kwargs must not set render_mode \\(got {mode!r}\\): a tournament plays"):
        run_tournament("ataxx_v0", ["random", "random"], 1, seed=0, env_kwargs={"render_mode": mode})
    with pytest.raises(SystemExit) as e:
        main(
            [
                "ataxx_v0",
                "--agents",
                "random",
                "random",
                "--games",
                "1",
                "--out",
                str(tmp_path / "o"),
                "--env-kwargs",
                json.dumps({"render_mode": mode}),
            ]
        )
    assert e.value.code == 2
    assert "must not set render_mode" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


# ------------------------------------------------------------------ gauntlets and concurrent games


def test_schedule_gauntlet_keeps_only_the_first_agents_groups():
    assert ev.schedule(4, 2, 2, gauntlet=True) == [
        (0, [0, 1]),
        (1, [0, 2]),
        (2, [0, 3]),
        (0, [1, 0]),
        (1, [2, 0]),
        (2, [3, 0]),
    ]
    # Two teams of two: agent 0's team against each other agent's team, sides rotating.
    assert ev.schedule(3, 4, 2, teams=TEAMS_2X2, gauntlet=True) == [
        (0, [0, 1, 0, 1]),
        (1, [0, 2, 0, 2]),
        (0, [1, 0, 1, 0]),
        (1, [2, 0, 2, 0]),
    ]


def test_gauntlet_tournament_plays_no_game_between_the_others():
    r = ev.run_tournament("ataxx_v0", ["greedy", "random", "alphabeta:1"], 2, seed=4, gauntlet=True, max_steps=30)
    assert r["gauntlet"] is True and len(r["games"]) == 4
    assert all("greedy" in g["agents"] for g in r["games"])
    played = {(p["agent"], p["opponent"]): p["games"] for p in r["pairs"]}
    assert played[("greedy", "random")] == played[("greedy", "alphabeta:1")] == 2
    assert played.get(("random", "alphabeta:1"), 0) == 0


@pytest.mark.parametrize("env_id,kwargs", [("ataxx_v0", {}), ("double_twixt_v0", {"board_size": 8})])
def test_concurrent_games_give_the_games_played_one_by_one(env_id, kwargs):
    """``concurrency`` changes nothing for agents that draw from their generator (random, mcts,
    alpha-beta's tie-breaks, greedy's): each game keeps its own generators."""
    specs = ["random", "greedy", "mcts:12"]
    one = ev.run_tournament(env_id, specs, 3, seed=11, env_kwargs=kwargs, max_steps=40)
    side = ev.run_tournament(env_id, specs, 3, seed=11, env_kwargs=kwargs, max_steps=40, concurrency=4)
    assert [g["moves"] for g in side["games"]] == [g["moves"] for g in one["games"]]
    assert [g["returns"] for g in side["games"]] == [g["returns"] for g in one["games"]]
    assert side["pairs"] == one["pairs"] and len({tuple(g["moves"]) for g in one["games"]}) > 1


def test_play_games_asks_a_batching_agent_once_per_move_for_all_its_games():
    from training.agents import make_agent
    from training.agents.base import Agent
    from training.arena import play_game, play_games

    class FirstLegal(Agent):
        """Plays the first legal action; counts its batched calls."""

        frame = "state"

        def __init__(self):
            super().__init__(0)
            self.name, self.calls, self.sizes = "first", 0, []

        def _act(self, state, obs):
            return int(np.flatnonzero(state.legal_action_mask())[0])

        def _act_batch(self, states, observations):
            self.calls += 1
            self.sizes.append(len(states))
            return [self._act(s, o) for s, o in zip(states, observations)]

    first, rnd = FirstLegal(), make_agent("random")
    games = [([first, rnd], 5), ([rnd, first], 6), ([first, rnd], 7)]
    alone = [play_game("ataxx_v0", list(seats), seed=seed, max_steps=20, record=True) for seats, seed in games]
    ended = []
    together = play_games(
        "ataxx_v0", games, max_steps=20, record=True, concurrency=3, on_result=lambda i, r: ended.append(i)
    )
    assert [r.moves for r in together] == [r.moves for r in alone]
    assert sorted(ended) == [0, 1, 2]
    assert first.calls > 0 and max(first.sizes) >= 2  # its games were answered in one call
    with pytest.raises(ValueError, match=r"^concurrency must be an integer >= 1, got 0$"):
        play_games("ataxx_v0", games, concurrency=0)


def test_act_batch_checks_its_arguments():
    from training.agents import make_agent

    agent = make_agent("random")
    with pytest.raises(ValueError, match=r"^act_batch: one state, one observation"):
        agent.act_batch([None], [])
