"""results/az_results.py: the ladder (the gauntlet's games and the opponents' round robin rated together) and
the further tournaments of --against."""

import csv
import importlib.util
import json
import sys

import pytest

from conftest import REPO_ROOT

_spec = importlib.util.spec_from_file_location("az_results", REPO_ROOT / "results" / "az_results.py")
az_results = importlib.util.module_from_spec(_spec)
sys.modules["az_results"] = az_results
_spec.loader.exec_module(az_results)

FIELDS = ["agent", "opponent", "games", "wins", "draws", "losses", "score", "score_ci95_low", "score_ci95_high"]


def _write(path, rows):
    """A pairs.csv as training.evaluate writes it: both orders of every pair."""
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for a, b, wins, draws, losses in rows:
            for x, y, ww, ll in ((a, b, wins, losses), (b, a, losses, wins)):
                g = ww + draws + ll
                w.writerow(
                    {
                        "agent": x,
                        "opponent": y,
                        "games": g,
                        "wins": ww,
                        "draws": draws,
                        "losses": ll,
                        "score": (ww + draws / 2) / g,
                        "score_ci95_low": 0,
                        "score_ci95_high": 1,
                    }
                )


def _ratings(folder):
    with (folder / "ratings.csv").open(newline="") as f:
        return {r["name"]: r for r in csv.DictReader(f)}


def test_opponents_swept_by_the_agent_are_told_apart_by_their_own_games(tmp_path):
    gauntlet, opponents = tmp_path / "g.csv", tmp_path / "o.csv"
    # The agent wins every game against all three: the gauntlet alone rates them alike.
    _write(gauntlet, [("az:x", "random", 100, 0, 0), ("az:x", "greedy", 100, 0, 0), ("az:x", "alphabeta:2", 100, 0, 0)])
    _write(
        opponents,
        [("random", "greedy", 5, 0, 95), ("random", "alphabeta:2", 1, 0, 99), ("greedy", "alphabeta:2", 20, 10, 70)],
    )
    az_results._ladder(gauntlet, opponents, tmp_path / "ladder", "test")
    r = _ratings(tmp_path / "ladder")
    elo = {n: float(v["elo"]) for n, v in r.items()}
    assert elo["random"] == 0.0 and float(r["random"]["elo_ci95_low"]) == 0.0  # the anchor
    assert elo["az:x"] > elo["alphabeta:2"] > elo["greedy"] > elo["random"]
    # greedy scored (20 + 5) / 100 against alphabeta:2: about 190 Elo below it (the fit also sees the other games)
    assert 120 < elo["alphabeta:2"] - elo["greedy"] < 260
    assert float(r["greedy"]["elo_ci95_low"]) < elo["greedy"] < float(r["greedy"]["elo_ci95_high"])
    assert [v["rank"] for v in r.values()] == ["1", "2", "3", "4"] and next(iter(r)) == "az:x"
    # games, wins, draws and losses over both tournaments
    assert (r["greedy"]["games"], r["greedy"]["wins"], r["greedy"]["draws"], r["greedy"]["losses"]) == (
        "300",
        "115",
        "10",
        "175",
    )
    assert (tmp_path / "ladder" / "pairs.csv").read_text() == opponents.read_text()
    assert (tmp_path / "ladder" / "ratings.png").stat().st_size > 1000


def test_without_random_the_first_opponent_is_the_anchor(tmp_path):
    gauntlet, opponents = tmp_path / "g.csv", tmp_path / "o.csv"
    _write(gauntlet, [("az:x", "greedy", 60, 0, 40), ("az:x", "mcts:1000", 50, 0, 50)])
    _write(opponents, [("greedy", "mcts:1000", 30, 0, 70)])
    az_results._ladder(gauntlet, opponents, tmp_path / "ladder", "test")
    elo = {n: float(v["elo"]) for n, v in _ratings(tmp_path / "ladder").items()}
    assert elo["greedy"] == 0.0 and elo["mcts:1000"] > 0 and elo["az:x"] > 0


def test_bad_numbers_of_games_are_refused(capsys):
    with pytest.raises(SystemExit) as e:
        az_results.main(["runs/none", "--name", "x", "--opponents", "greedy", "--ladder-games", "-1"])
    assert e.value.code == 2 and "--ladder-games at least 0" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--name", "x"], "give --opponents (the final tournament) or --against SPEC --folder vs_NAME"),
        (["--name", "x", "--opponents", "greedy", "--against", "greedy"], "give --opponents"),
        (["--name", "x", "--against", "greedy"], "--against needs --folder vs_NAME"),
        (["--name", "x", "--against", "greedy", "--folder", "ppo"], "--against needs --folder vs_NAME"),
        (["--name", "x", "--opponents", "g", "--curve-opponents", "--opening-plies", "2"], "goes with --against or"),
        (["--name", "x", "--against", "greedy", "--folder", "vs_g", "--opening-plies", "-1"], "at least 0"),
    ],
)
def test_against_arguments_are_checked(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        az_results.main(["runs/none", *argv])
    assert e.value.code == 2 and message in capsys.readouterr().err


def _folder(tmp_path, final_sha256):
    folder = tmp_path / "alphazero" / "ataxx_az-0"
    folder.mkdir(parents=True)
    (folder / "run.json").write_text('{"env_id": "ataxx_v0"}')
    about = {"run": "runs/a", "final_sha256": final_sha256, "simulations": 64, "commands": [{"what": "gauntlet"}]}
    (folder / "about.json").write_text(json.dumps(about))
    return folder


def test_against_a_shipped_file_made_from_another_run_is_refused(tmp_path, monkeypatch, capsys):
    _folder(tmp_path, "0" * 64)
    monkeypatch.setattr(az_results, "RESULTS", tmp_path)
    with pytest.raises(SystemExit) as e:
        az_results.main(
            ["training/shipped/ataxx_az.pt", "--name", "ataxx_az-0", "--against", "greedy", "--folder", "vs_g"]
        )
    assert e.value.code == 2 and "is not a shipped agent made from the final.pt of" in capsys.readouterr().err


def test_against_a_shipped_file_plays_into_its_folder(tmp_path, monkeypatch):
    """The shipped agent made from the folder's final.pt: the tournament (faked here) gets the file's
    config and the folder's simulations, and its files, command and openings land in vs_NAME/."""
    from training.agents import shipped

    source = next(a.source_sha256 for a in shipped.shipped_agents() if a.name == "ataxx_az")
    folder = _folder(tmp_path, source)
    monkeypatch.setattr(az_results, "RESULTS", tmp_path)
    played = {}

    def fake_evaluate(run_cfg, agents, games, seed, out, gauntlet=True, opening_plies=0):
        played.update(env_id=run_cfg["env_id"], agents=agents, games=games, seed=seed, opening_plies=opening_plies)
        for name in ("pairs.csv", "ratings.csv"):
            (out / name).write_text(name)
        return ["python", "-m", "training.evaluate", "..."], 12.5

    monkeypatch.setattr(az_results, "_evaluate", fake_evaluate)
    argv = ["training/shipped/ataxx_az.pt", "--name", "ataxx_az-0", "--against", "ataxx_quick"]
    assert az_results.main([*argv, "--folder", "vs_ppo", "--opening-plies", "2", "--games", "10"]) == 0
    assert played == {
        "env_id": "ataxx_v0",
        "agents": ["az:training/shipped/ataxx_az.pt:64", "ataxx_quick"],
        "games": 10,
        "seed": 3,
        "opening_plies": 2,
    }
    assert (folder / "vs_ppo" / "pairs.csv").read_text() == "pairs.csv"
    written = json.loads((folder / "vs_ppo" / "settings.json").read_text())
    assert written == {
        "what": "further vs_ppo",
        "command": "python -m training.evaluate ...",
        "seconds": 12.5,
        "opening_plies": 2,
    }
    assert [c["what"] for c in json.loads((folder / "about.json").read_text())["commands"]] == [
        "gauntlet",
        "further vs_ppo",
    ]
