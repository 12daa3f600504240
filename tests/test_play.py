"""Human-vs-agent play in the terminal (``training.play``), driven by scripted input."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from conftest import REPO_ROOT, diagram
from envs.ataxx import AtaxxState
from training.play import main, play

# x to move; o (ranks 6-7) has no empty square within reach and must pass; x fills f1 then g1,
# the board is full and x wins 35-14.
ENDGAME_FEN = diagram("""
o o o o o o o
o o o o o o o
x x x x x x x
x x x x x x x
x x x x x x x
x x x x x x x
x x x x x . .
""")


def _run(argv: list[str], script: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(argv, stdin=io.StringIO(script), stdout=out)
    return code, out.getvalue()


def test_bad_input_is_explained_and_the_game_goes_on(tmp_path):
    record = tmp_path / "game.json"
    code, text = _run(["ataxx_v0", "--opponent", "random", "--seat", "0", "--seed", "0", "--record", str(record)],
                      "hello\n\nG2\ng5\na1a3\nmoves\nhelp\ng2\nboard\nquit\n")
    assert code == 0
    assert "Illegal move: 'hello' is not an Ataxx move" in text
    assert "Illegal move: 'G2' is not a square" in text
    assert "Illegal move: illegal action" in text and "no x stone next to g5 to clone from" in text
    assert "source a1 does not hold a stone of the side to move (x)" in text
    # `moves` lists exactly the legal moves of the start position.
    legal = AtaxxState().legal_moves()
    listing = text.split(f"{len(legal)} legal moves:\n", 1)[1].split("player_0 (x) to move>", 1)[0]
    assert sorted(listing.split()) == sorted(legal)
    assert "Commands:" in text and "You play g2." in text and "player_1 (o) (random) plays" in text
    assert "You quit: the game is abandoned." in text
    data = json.loads(record.read_text())
    assert data["status"] == "abandoned" and data["moves"][0] == "g2" and len(data["moves"]) == 2
    assert data["players"] == {"player_0": "human", "player_1": "random"}
    # The board is shown at the start and after every move (plus once for `board`).
    assert text.count("  a b c d e f g\n7 ") == 1 + 2 + 1


def test_full_game_against_random(tmp_path):
    record, images = tmp_path / "rec" / "game.json", tmp_path / "frames"
    code, text = _run(["ataxx_v0", "--opponent", "random", "--seat", "0", "--seed", "1",
                       "--env-kwargs", json.dumps({"fen": ENDGAME_FEN}),
                       "--record", str(record), "--save-images", str(images)],
                      "f1\ng1\n")
    assert code == 0
    assert "player_1 (o) (random) plays 0000." in text
    assert "Game over (1-0): You win. Returns: player_0 (x) +1, player_1 (o) -1" in text
    data = json.loads(record.read_text())
    assert data["status"] == "finished" and data["moves"] == ["f1", "0000", "g1"]
    assert data["returns"] == [1.0, -1.0] and data["outcome"] == "1-0"
    replay = AtaxxState(data["start_fen"])
    assert data["start_fen"] == ENDGAME_FEN
    for move in data["moves"]:
        replay.push(move)
    assert replay.fen() == data["final_fen"] and replay.is_terminal() and replay.stone_counts() == (35, 14)
    pngs = sorted(images.glob("*.png"))
    assert [p.name for p in pngs] == ["0000.png", "0001.png", "0002.png", "0003.png"]
    assert data["images"] == [str(p) for p in pngs]
    frames = [np.asarray(Image.open(p)) for p in pngs]
    assert frames[0].ndim == 3 and frames[0].shape[2] == 3
    assert not np.array_equal(frames[0], frames[1])  # f1 appeared


def test_playing_second_and_passing():
    result = play("ataxx_v0", ["greedy"], seat=1, seed=0, env_kwargs={"fen": ENDGAME_FEN},
                  stdin=io.StringIO("f2\n0000\n0000\n0000\n"), stdout=io.StringIO())
    # greedy (x) clones f1 and g1 in turn (either order); the person (o) tried f2, then passed.
    assert sorted(result["moves"]) == ["0000", "f1", "g1"] and result["moves"][1] == "0000"
    assert result["status"] == "finished"
    assert result["returns"] == [1.0, -1.0] and result["human_seat"] == 1


def test_end_of_input_abandons_cleanly():
    code, text = _run(["ataxx_v0", "--opponent", "greedy", "--seat", "0"], "a6\n")
    assert code == 0 and "End of input: the game is abandoned." in text and "You play a6." in text


def test_random_seat_is_seeded():
    seats = {play("ataxx_v0", ["random"], seat="random", seed=s, stdin=io.StringIO(""), stdout=io.StringIO())["human_seat"]
             for s in range(8)}
    assert seats == {0, 1}
    again = [play("ataxx_v0", ["random"], seed=3, stdin=io.StringIO(""), stdout=io.StringIO())["human_seat"] for _ in range(2)]
    assert again[0] == again[1]


@pytest.mark.parametrize("argv, message", [
    (["chess_v9", "--opponent", "random"], "unknown environment id"),
    (["ataxx_v0", "--opponent", "random", "--seat", "2"], "seat must be"),
    (["ataxx_v0", "--opponent", "random", "--seat", "first"], "seat must be"),
    (["ataxx_v0", "--opponent", "random", "greedy"], "give one opponent spec"),
    (["ataxx_v0", "--opponent", "alphabeta:0"], "positive integer"),
    (["ataxx_v0", "--opponent", "missing.zip"], "does not exist"),
    (["ataxx_v0", "--opponent", "random", "--env-kwargs", '{"fen": "x5o"}'], "malformed FEN"),
    (["ataxx_v0", "--opponent", "random", "--env-kwargs", "[1]"], "JSON object"),
])
def test_cli_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv, stdin=io.StringIO(""), stdout=io.StringIO())
    assert exc.value.code == 2 and message in capsys.readouterr().err


def test_scripted_from_a_pipe():
    proc = subprocess.run([sys.executable, "-m", "training.play", "ataxx_v0", "--opponent", "random"],
                          input="g2\nquit\n", cwd=REPO_ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "the game is abandoned" in proc.stdout
