"""Human-vs-agent play in the terminal (``training.play``), driven by scripted input."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from conftest import REPO_ROOT, diagram
from envs.ataxx import AtaxxState
from envs.core import records
from envs.registry import make_raw
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
    code, text = _run(
        ["ataxx_v0", "--opponent", "random", "--seat", "0", "--seed", "0", "--record", str(record)],
        "hello\n\nh9\ng5\na1a3\nmoves\nhelp\ng2\nboard\nquit\n",
    )
    assert code == 0
    assert "Illegal move: 'hello' is not an Ataxx move" in text
    assert "Illegal move: 'h9' is not" in text  # no file h on a 7x7 board
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
    code, text = _run(
        [
            "ataxx_v0",
            "--opponent",
            "random",
            "--seat",
            "0",
            "--seed",
            "1",
            "--env-kwargs",
            json.dumps({"fen": ENDGAME_FEN}),
            "--record",
            str(record),
            "--save-images",
            str(images),
        ],
        "f1\ng1\n",
    )
    assert code == 0
    assert "player_1 (o) (random) plays 0000." in text
    assert "Game over (1-0): You win. Returns: player_0 (x) +1, player_1 (o) -1" in text
    data = json.loads(record.read_text())
    assert data["status"] == "finished" and data["moves"] == ["f1", "0000", "g1"]
    assert data["returns"] == [1.0, -1.0] and data["outcome"] == "1-0"
    assert "start_fen" not in data and "final_fen" not in data  # the start is in env_kwargs, the game in game_record
    assert data["game_record"]["env_kwargs"]["fen"] == ENDGAME_FEN
    replay = AtaxxState(ENDGAME_FEN)
    for move in data["moves"]:
        replay.push(move)
    assert replay == records.replay(data["game_record"])
    assert replay.is_terminal() and replay.stone_counts() == (35, 14)
    pngs = sorted(images.glob("*.png"))
    assert [p.name for p in pngs] == ["0000.png", "0001.png", "0002.png", "0003.png"]
    assert data["images"] == [str(p) for p in pngs]
    frames = [np.asarray(Image.open(p)) for p in pngs]
    assert frames[0].ndim == 3 and frames[0].shape[2] == 3
    assert not np.array_equal(frames[0], frames[1])  # f1 appeared


def test_playing_second_and_passing():
    result = play(
        "ataxx_v0",
        ["greedy"],
        seat=1,
        seed=0,
        env_kwargs={"fen": ENDGAME_FEN},
        stdin=io.StringIO("f2\n0000\n0000\n0000\n"),
        stdout=io.StringIO(),
    )
    # greedy (x) clones f1 and g1 in turn (either order); the person (o) tried f2, then passed.
    assert sorted(result["moves"]) == ["0000", "f1", "g1"] and result["moves"][1] == "0000"
    assert result["status"] == "finished"
    assert result["returns"] == [1.0, -1.0] and result["human_seat"] == 1


def test_end_of_input_abandons_cleanly():
    code, text = _run(["ataxx_v0", "--opponent", "greedy", "--seat", "0"], "a6\n")
    assert code == 0 and "End of input: the game is abandoned." in text and "You play a6." in text


def test_random_seat_is_seeded():
    seats = {
        play("ataxx_v0", ["random"], seat="random", seed=s, stdin=io.StringIO(""), stdout=io.StringIO())["human_seat"]
        for s in range(8)
    }
    assert seats == {0, 1}
    again = [
        play("ataxx_v0", ["random"], seed=3, stdin=io.StringIO(""), stdout=io.StringIO())["human_seat"]
        for _ in range(2)
    ]
    assert again[0] == again[1]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["chess_v9", "--opponent", "random"], "unknown environment id"),
        (["ataxx_v0", "--opponent", "random", "--seat", "2"], "seat must be"),
        (["ataxx_v0", "--opponent", "random", "--seat", "first"], "seat must be"),
        (["ataxx_v0", "--opponent", "random", "greedy"], "give one opponent spec"),
        (["ataxx_v0", "--opponent", "alphabeta:0"], "positive integer"),
        (["ataxx_v0", "--opponent", "missing.zip"], "does not exist"),
        (["ataxx_v0", "--opponent", "random", "--env-kwargs", '{"fen": "x5o"}'], "malformed FEN"),
        (["ataxx_v0", "--opponent", "random", "--env-kwargs", "[1]"], "JSON object"),
    ],
)
def test_cli_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv, stdin=io.StringIO(""), stdout=io.StringIO())
    assert exc.value.code == 2 and message in capsys.readouterr().err


def _accepts_upper_case() -> bool:
    try:
        AtaxxState().string_to_action("G2")
    except ValueError:
        return False
    return True


def test_move_text_reaches_the_rules_unchanged(monkeypatch):
    # Only the blanks around a line are stripped: the text itself (case included) is the rules' business.
    seen = []
    original = AtaxxState.string_to_action

    def spy(text):
        seen.append(text)
        return original(text.lower())

    monkeypatch.setattr(AtaxxState, "string_to_action", staticmethod(spy))
    code, text = _run(["ataxx_v0", "--opponent", "random", "--seat", "0", "--seed", "0"], "  G2 \nQUIT\n")
    assert code == 0 and seen == ["G2"]
    assert "You play g2." in text and "You quit: the game is abandoned." in text


@pytest.mark.skipif(
    not _accepts_upper_case(),
    reason="AtaxxState.string_to_action('G2') still raises: upper-case moves wait for the rules core "
    "to accept them (play.py passes the text through unchanged)",
)
def test_upper_case_move_is_accepted(tmp_path):
    record = tmp_path / "game.json"
    code, text = _run(
        ["ataxx_v0", "--opponent", "random", "--seat", "0", "--seed", "0", "--record", str(record)], "G2\nQuit\n"
    )
    assert code == 0 and "Illegal move" not in text and "You play g2." in text
    assert json.loads(record.read_text())["moves"][0] == "g2"


@pytest.mark.parametrize("seed", [-5, -1, True, 1.5, "3"])
def test_play_rejects_bad_seeds(seed):
    out = io.StringIO()
    with pytest.raises(
        ValueError, match=f"^{re.escape(f'seed must be None or a non-negative integer, got {seed!r}')}$"
    ):
        play("ataxx_v0", ["random"], seat=0, seed=seed, stdin=io.StringIO("g2\n"), stdout=out)
    assert out.getvalue() == ""  # nothing played


def test_play_accepts_numpy_seeds():
    result = play("ataxx_v0", ["random"], seed=np.int64(4), stdin=io.StringIO(""), stdout=io.StringIO())
    assert result["seed"] == 4 and type(result["seed"]) is int


@pytest.mark.parametrize("seed, shown", [("-5", "-5"), ("x", "'x'")])
def test_cli_rejects_bad_seeds(seed, shown, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["ataxx_v0", "--opponent", "random", "--seed", seed], stdin=io.StringIO("g2\n"), stdout=io.StringIO())
    err = capsys.readouterr().err
    assert exc.value.code == 2 and f"argument --seed: expected a non-negative integer, got {shown}" in err


def test_cli_negative_seed_subprocess():
    proc = subprocess.run(
        [sys.executable, "-m", "training.play", "ataxx_v0", "--opponent", "random", "--seed", "-5"],
        input="g2\nquit\n",
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "argument --seed: expected a non-negative integer, got -5" in proc.stderr and proc.stdout == ""


def _cli_path_error(argv: list[str], capsys) -> str:
    out = io.StringIO()
    with pytest.raises(SystemExit) as exc:
        main(
            ["ataxx_v0", "--opponent", "random", "--seat", "0", "--seed", "0", *argv],
            stdin=io.StringIO("g2\nquit\n"),
            stdout=out,
        )
    assert exc.value.code == 2
    assert out.getvalue() == ""  # rejected before the game started
    return capsys.readouterr().err


def test_cli_save_images_is_an_existing_file(tmp_path, capsys):
    taken = tmp_path / "taken.png"
    taken.write_bytes(b"keep")
    err = _cli_path_error(["--save-images", str(taken)], capsys)
    assert (
        f"error: --save-images folder {taken} is an existing file, not a folder: expected a folder (new or existing)"
    ) in err
    assert taken.read_bytes() == b"keep"


def test_cli_save_images_below_a_file(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    folder = tmp_path / "file" / "frames"
    err = _cli_path_error(["--save-images", str(folder)], capsys)
    assert f"error: cannot create or write the --save-images folder {folder}: " in err and "Not a directory" in err


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs the Linux /proc file system")
def test_cli_save_images_in_proc(capsys):
    err = _cli_path_error(["--save-images", "/proc/nope"], capsys)
    assert "error: cannot create or write the --save-images folder /proc/nope: " in err


def test_cli_record_is_a_folder(tmp_path, capsys):
    err = _cli_path_error(["--record", str(tmp_path)], capsys)
    assert f"error: record {tmp_path} is an existing folder: expected the path of a JSON file" in err


def test_cli_record_below_a_file(tmp_path, capsys):
    (tmp_path / "file").write_text("")
    record = tmp_path / "file" / "game.json"
    err = _cli_path_error(["--record", str(record)], capsys)
    assert (
        f"error: folder of the --record file {tmp_path / 'file'} is an existing file, not a folder: "
        "expected a folder (new or existing)"
    ) in err


def test_record_and_images_folders_are_created_before_the_game(tmp_path):
    record, images = tmp_path / "deep" / "er" / "game.json", tmp_path / "frames" / "run1"
    seen = []

    class Probe(io.StringIO):
        def readline(self, *args):
            seen.append((record.parent.is_dir(), images.is_dir()))
            return "quit\n"

    result = play(
        "ataxx_v0", ["random"], seat=0, seed=0, save_images=images, record=record, stdin=Probe(), stdout=io.StringIO()
    )
    assert seen == [(True, True)]
    assert result["status"] == "abandoned" and json.loads(record.read_text())["status"] == "abandoned"


def test_scripted_from_a_pipe():
    proc = subprocess.run(
        [sys.executable, "-m", "training.play", "ataxx_v0", "--opponent", "random"],
        input="g2\nquit\n",
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and "the game is abandoned" in proc.stdout


class _FirstLegalMove:
    """A scripted stdin: each line is the first legal move of the game being played, in notation."""

    def __init__(self, made):
        self.made = made
        self.lines = 0

    def readline(self):
        state = self.made[-1].state
        self.lines += 1
        return state.action_to_string(state.legal_actions()[0]) + "\n"


#: Every environment id with small settings, and the opponents of the other seats.
PLAY_GAMES = [
    ("ataxx_v0", {}, ["random"]),
    ("twixt_v0", {"board_size": 6}, ["greedy"]),
    ("double_twixt_v0", {"board_size": 6}, ["random", "greedy", "random"]),
    ("smartrix_v0", {"num_players": 3}, ["greedy", "random"]),
    ("smartrix_v0", {"num_players": 4, "teams": True}, ["random"]),
    ("tantrix_v0", {"num_players": 3}, ["greedy", "random"]),
    ("tantrix_v0", {"num_players": 4, "teams": True}, ["random"]),
]


@pytest.mark.parametrize("env_id, kwargs, opponents", PLAY_GAMES, ids=[g[0] + str(len(g[2])) for g in PLAY_GAMES])
def test_every_game_plays_to_the_end_from_a_script(tmp_path, monkeypatch, env_id, kwargs, opponents):
    import training.play as play_module

    made = []

    def capture(*args, **kw):
        env = make_raw(*args, **kw)
        made.append(env)
        return env

    monkeypatch.setattr(play_module, "make_raw", capture)
    stdin, out = _FirstLegalMove(made), io.StringIO()
    result = play(
        env_id,
        opponents,
        seat=1,
        seed=3,
        env_kwargs=kwargs,
        stdin=stdin,
        stdout=out,
        save_images=tmp_path / "img",
        record=tmp_path / "game.json",
    )
    env = made[-1]
    assert result["status"] == "finished" and stdin.lines > 0
    assert result["returns"] == [float(x) for x in env.state.returns()]
    assert len(result["images"]) == len(result["moves"]) + 1
    saved = json.loads((tmp_path / "game.json").read_text())
    assert saved["moves"] == result["moves"] and saved["players"]["player_1"] == "human"
    mine = result["returns"][1]
    verdict = "You win" if mine > 0 else "You lose" if mine < 0 else "Draw"  # partners share a win
    assert f": {verdict}. Returns" in out.getvalue()
    # The record replays: the same actions from the same seed give the same final returns.
    replay = make_raw(env_id, **kwargs)
    replay.reset(seed=3)
    for a in result["actions"]:
        replay.state.apply(a)
    assert replay.state.is_terminal()
    np.testing.assert_array_equal(replay.state.returns(), env.state.returns())
    # the common game record replays exactly too
    from envs.core.records import replay as replay_record

    again = replay_record(saved["game_record"])
    assert again == env.state and again.history == env.state.history and saved["game_record"]["seed"] == 3
    assert saved["game_record"]["env_id"] == env_id and saved["game_record"]["moves"] == result["moves"]
    # scores: the contract's scores() (Ataxx stone counts, Tantrix/Smartrix points; None for TwixT)
    sc = env.state.scores()
    assert saved["scores"] == (None if sc is None else [int(x) for x in sc])
    assert (saved["scores"] is None) == env_id.endswith("twixt_v0")


def test_smartrix_shows_the_person_only_their_own_hand():
    made = []

    def capture(*args, **kw):
        env = make_raw(*args, **kw)
        made.append(env)
        return env

    import training.play as play_module

    out = io.StringIO()
    stdin = io.StringIO("board\nquit\n")
    orig = play_module.make_raw
    play_module.make_raw = capture
    try:
        play("smartrix_v0", ["random"], seat=1, seed=5, env_kwargs={"num_players": 3}, stdin=stdin, stdout=out)
    finally:
        play_module.make_raw = orig
    state = made[-1].state
    text = out.getvalue()
    assert f"player 1: hand {state.hand(1)}" in text
    for other in (0, 2):
        assert str(state.hand(other)) not in text
        assert f"player {other}: {state.hand_size(other)} cards in hand (hidden)" in text


def test_play_refuses_a_render_mode_in_env_kwargs():
    out = io.StringIO()
    with pytest.raises(ValueError, match="env_kwargs must not set render_mode \\(got 'human'\\): play shows the board"):
        play("ataxx_v0", ["random"], env_kwargs={"render_mode": "human"}, stdin=io.StringIO("g2\n"), stdout=out)
    assert out.getvalue() == ""
