"""Ataxx PGN records (envs/ataxx/records.py): exact output, round trips, the differential test
against python-ataxx 2.2's own PGN module (``ataxx.pgn``) on seeded random games, and errors."""

from __future__ import annotations

import collections

import numpy as np
import pytest

from envs.ataxx import START_FEN, AtaxxState
from envs.ataxx.records import (
    AtaxxRecord,
    iter_pgn,
    pgn_record_from_state,
    read_pgn,
    read_pgn_file,
    read_pgn_file_games,
    replay,
    write_pgn,
    write_pgn_file,
)
from envs.core.state import IllegalActionError, InvalidPositionError, ParameterError

pytest.importorskip("ataxx.pgn")  # python-ataxx, the reference these tests compare with
import ataxx.pgn  # noqa: E402

BLOCKERS = [
    "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1",
    "x5o/7/2-1-2/7/2-1-2/7/o5x o 0 1",
    "x5o/7/3-3/2-1-2/3-3/7/o5x x 0 1",
]
# Short positions that end each way within a few plies.
NO_STONES = "7/7/7/7/7/1o5/x6 x 0 1"  # a2 takes o's only stone
PASSES = "7/7/7/7/ooooooo/ooooooo/xxxxxxx x 0 1"  # x walled in: x must pass while o fills
CLOCK_99 = "x5o/7/7/7/7/7/o5x x 99 40"  # a jump brings the clock to 100: a draw


def _end_reason(s: AtaxxState) -> str:
    """Why a finished game ended, by the rules' order: no stones, board full, other blocked, clock."""
    nx, no = s.stone_counts()
    if nx == 0 or no == 0:
        return "no stones"
    if not AtaxxState(s.fen(), halfmove_clock=False).is_terminal():
        return "clock"
    return "board full" if not any(c.isdigit() for c in s.fen().split()[0]) else "no moves"


def random_game(fen: str, seed: int, *, jump_prob: float = 0.0, clock: bool = True) -> AtaxxState:
    """A seeded random game to its end (jump-heavy play, when asked, for the first 60 plies)."""
    rng = np.random.default_rng(seed)
    s = AtaxxState(fen, halfmove_clock=clock)
    while not s.is_terminal() and len(s.history) < 2000:
        acts = s.legal_actions()
        if jump_prob and len(s.history) < 60 and rng.random() < jump_prob:
            jumps = [a for a in acts if 49 <= a < 833]
            acts = jumps or acts
        s.apply(acts[rng.integers(len(acts))])
    return s


def _games():
    """(start FEN, final state) for the differential and round-trip tests: 40 games."""
    out = []
    for i in range(12):
        out.append((START_FEN, random_game(START_FEN, 100 + i)))
    for i in range(12):
        fen = BLOCKERS[i % len(BLOCKERS)]
        out.append((fen, random_game(fen, 200 + i)))
    for i in range(8):  # jump-heavy from a high clock: clock draws
        fen = START_FEN.replace(" 0 1", " 90 1") if i % 2 else BLOCKERS[0].replace(" 0 1", " 90 1")
        out.append((fen, random_game(fen, 300 + i, jump_prob=0.95)))
    for i in range(4):  # few stones: wipe-outs
        fen = "7/7/7/2x1o2/7/7/7 x 0 1"
        out.append((fen, random_game(fen, 400 + i)))
    for i in range(4):  # forced passes
        out.append((PASSES, random_game(PASSES, 500 + i)))
    return out


GAMES = _games()


def _python_ataxx_board(fen: str, moves: list[str]):
    b = ataxx.Board(fen)
    for m in moves:
        mv = ataxx.Move.from_san(m)
        assert b.is_legal(mv), m
        b.makemove(mv)
    return b


# ---------------------------------------------------------------------------- exact output
def test_write_exact_text_standard_start():
    s = AtaxxState()
    for m in ("f2", "a1c3", "g1e1"):
        s.push(m)
    text = write_pgn(s, {"White": "alice", "Black": "bob", "Event": "club", "TimeControl": "60+1"})
    assert text == (
        '[Event "club"]\n[Site "?"]\n[Date "????.??.??"]\n[Round "?"]\n[White "alice"]\n[Black "bob"]\n'
        '[Result "*"]\n[TimeControl "60+1"]\n\n1. f2 a1c3 2. g1e1 *\n'
    )


def test_write_setup_fen_and_black_numbering_when_o_starts():
    fen = "x5o/7/2-1-2/7/2-1-2/7/o5x o 3 12"
    text = write_pgn(["b2", "f2", "g7e7"], start_fen=fen)
    lines = text.splitlines()
    assert lines[6:9] == ['[Result "*"]', '[SetUp "1"]', f'[FEN "{fen}"]']
    assert lines[-1] == "12... b2 13. f2 g7e7 *"
    rec = read_pgn(text)
    assert rec.start_fen == fen and rec.moves == ["b2", "f2", "g7e7"]
    assert rec.replay().fen() == "x3o2/7/2-1-2/7/2-1-2/1o3x1/o5x x 1 14"


def test_tag_values_escaped_and_unescaped():
    text = write_pgn(["f2"], {"Event": 'say "hi" \\ bye', "Annotator": "x"})
    assert '[Event "say \\"hi\\" \\\\ bye"]' in text.splitlines()
    rec = read_pgn(text)
    assert rec.tags["Event"] == 'say "hi" \\ bye' and rec.tags["Annotator"] == "x"


# ---------------------------------------------------------------------------- round trips
def test_round_trip_random_games():
    reasons = collections.Counter()
    for fen, final in GAMES:
        text = write_pgn(final, {"White": "w", "Round": "3"}, start_fen=fen)
        rec = read_pgn(text)
        assert rec.moves == [final.action_to_string(a) for a in final.history]
        assert rec.start_fen == fen
        back = rec.replay()
        assert back.fen() == final.fen() and back.history == final.history
        assert rec.result in ("1-0", "0-1", "1/2-1/2")
        assert rec.tags["White"] == "w" and rec.tags["Round"] == "3" and rec.tags["Result"] == rec.result
        assert write_pgn(rec) == text  # a record writes back byte for byte
        assert len(text.split("\n\n")[1].splitlines()) == 1  # the movetext on one line
        reasons[_end_reason(final)] += 1
    assert sum(reasons.values()) == len(GAMES) == 40
    for why in ("no stones", "board full", "clock"):
        assert reasons[why] > 0, (why, reasons)
    assert sum(1 for _, s in GAMES for a in s.history if a == 833) > 0, "no pass was played"


def test_round_trip_clock_off_game_past_100_plies():
    s = AtaxxState("x5o/7/7/7/7/7/o5x x 95 1", halfmove_clock=False)
    for m in ["g1e1", "a1c1", "e1g1", "c1a1"] * 3:
        s.push(m)
    assert s.clock == 107 and not s.is_terminal()
    text = write_pgn(s, start_fen="x5o/7/7/7/7/7/o5x x 95 1")
    assert '[HalfmoveClock "off"]' in text.splitlines()
    rec = read_pgn(text)
    assert rec.halfmove_clock is False and rec.replay() == s
    # Read with the rule on (no tag), the 6th move meets a game already drawn.
    with pytest.raises(IllegalActionError, match=r"ply 6 \(move 3\.\.\.\) 'a1c1': .*the game is over \(1/2-1/2\)"):
        read_pgn(text.replace('[HalfmoveClock "off"]\n', ""))


def test_record_from_state_and_files(tmp_path):
    fen, final = GAMES[13]
    rec = pgn_record_from_state(final, {"Black": "engine"}, start_fen=fen)
    assert isinstance(rec, AtaxxRecord) and replay(rec) == final and rec.tags == {"Black": "engine"}
    path = tmp_path / "games.pgn"
    write_pgn_file(final, path, {"Round": "1"}, start_fen=fen)
    write_pgn_file(["f2", "a1c3"], path, {"Round": "2"}, append=True)
    write_pgn_file(GAMES[0][1], path, {"Round": "3"}, append=True)
    recs = read_pgn_file_games(path)
    assert [r.tags["Round"] for r in recs] == ["1", "2", "3"]
    assert recs[1].moves == ["f2", "a1c3"] and recs[2].replay() == GAMES[0][1]
    with pytest.raises(InvalidPositionError, match="expected one game in the PGN text, found 3"):
        read_pgn_file(path)
    before = path.read_text()
    with pytest.raises(IllegalActionError):
        write_pgn_file(["f2", "f2"], path, append=True)
    assert path.read_text() == before  # a failed write leaves the file alone
    one = tmp_path / "one.pgn"
    write_pgn_file(rec, one)
    assert read_pgn_file(one).replay() == final


# ---------------------------------------------------------------------------- differential
def test_ours_read_by_python_ataxx():
    texts = []
    for fen, final in GAMES:
        text = write_pgn(final, {"White": "o-player", "Black": "x-player"}, start_fen=fen)
        texts.append(text)
        game = ataxx.pgn.parse(text)
        theirs = [str(n.move) for n in game.main_line()]
        assert theirs == [final.action_to_string(a) for a in final.history]
        board = _python_ataxx_board(game.headers.get("FEN", ataxx.FEN_STARTPOS), theirs)
        assert board.get_fen() == final.fen()
        assert game.headers["Result"] == board.result() == read_pgn(text).result
        assert game.headers["Black"] == "x-player"
    # All games in one file, split by python-ataxx's own iterator (on the Event tags).
    many = "\n".join(texts)
    theirs = list(ataxx.pgn.GameIterator(many.splitlines(keepends=True), is_string=True))
    assert len(theirs) == len(GAMES) == len(list(iter_pgn(many)))
    assert [len(list(g.main_line())) for g in theirs] == [len(s.history) for _, s in GAMES]


def test_python_ataxx_read_by_ours():
    for i, (fen, final) in enumerate(GAMES):
        moves = [final.action_to_string(a) for a in final.history]
        board = _python_ataxx_board(fen, moves)
        game = ataxx.pgn.Game()
        game.from_board(board)
        game.set_white("W")
        alts = [m for m in AtaxxState(fen).legal_moves() if m != moves[0]]
        if i % 3 == 0 and alts:  # comments and variations: skipped by our reader
            game.root.children[0].comment = "an opening ( with ) brackets"
            game.root.add_variation(ataxx.Move.from_san(alts[0]), comment="another try")
            assert "(1. " in str(game) and "{ another try }" in str(game)
        rec = read_pgn(str(game))
        assert rec.moves == moves
        assert rec.replay().fen() == board.get_fen() == final.fen()
        assert rec.result == board.result()
        assert rec.start_fen == fen and rec.tags["White"] == "W"
        assert ("FEN" in rec.tags) == (fen != START_FEN)


@pytest.mark.parametrize(
    "fen, moves, result, reason",
    [
        (NO_STONES, ["a2"], "1-0", "no stones"),
        ("xxxxxxx/xxxxxxx/xxxxxxx/ooooooo/ooooooo/ooooooo/oooooo1 o 0 1", ["g1"], "0-1", "board full"),
        (CLOCK_99, ["g1e1"], "1/2-1/2", "clock"),
        (PASSES, ["0000", "a4", "0000", "b4"], "*", None),
    ],
)
def test_each_ending_both_ways(fen, moves, result, reason):
    s = AtaxxState(fen)
    for m in moves:
        s.push(m)
    text = write_pgn(s, start_fen=fen)
    assert text.splitlines()[-1].endswith(" " + result)
    ours = read_pgn(text)
    game = ataxx.pgn.parse(text)
    assert [str(n.move) for n in game.main_line()] == ours.moves == moves
    board = _python_ataxx_board(fen, moves)
    assert board.result() == ours.result == result and board.get_fen() == ours.replay().fen() == s.fen()
    if reason:
        assert _end_reason(s) == reason
    back = ataxx.pgn.Game()
    back.from_board(board)
    assert read_pgn(str(back)).moves == moves


# ---------------------------------------------------------------------------- import format
def test_comments_nags_variations_escapes_and_annotations_skipped():
    text = """% an escape line: skipped, even with [brackets] and {braces
[Event "x"]
[Result "*"]

{ before the first move } 1.f2! $1 a1c3?! ; a rest-of-line comment with ) and (
2. g1e1 (2. g2 {alt} (2. e2) b1) (2. f1 $4) 2... b4 { a { inside: braces do not nest, 3. 0000 }
*
"""
    rec = read_pgn(text)
    assert rec.moves == ["f2", "a1c3", "g1e1", "b4"]
    assert rec.result == "*" and rec.tags == {"Event": "x", "Result": "*"}


def test_movetext_over_several_lines_and_games_without_tags_or_marker():
    wrapped = '[Event "?"]\n[Result "*"]\n\n1. f2 a1c3\n2. g1e1\nb4 *\n'
    assert read_pgn(wrapped).moves == ["f2", "a1c3", "g1e1", "b4"]
    # Why write_pgn keeps the movetext on one line: python-ataxx's reader starts every movetext
    # line again at the root, so the second line becomes a variation of the first move.
    assert [str(n.move) for n in ataxx.pgn.parse(wrapped).main_line()] == ["f2", "a1c3"]
    assert read_pgn("f2 a1c3").moves == ["f2", "a1c3"]  # no tags, no marker: result '*'
    assert read_pgn("1.F2 A1C3 2.G1E1\r\n1-0").moves == ["f2", "a1c3", "g1e1"]  # upper case, CRLF
    games = list(iter_pgn('1. f2 1-0\n1. g2 0-1 [Event "third"]\n1. f1\n[Event "fourth"]\n'))
    assert [g.moves for g in games] == [["f2"], ["g2"], ["f1"], []]
    assert [g.result for g in games] == ["1-0", "0-1", "*", "*"]
    assert games[2].tags == {"Event": "third"} and games[3].tags == {"Event": "fourth"}
    assert list(iter_pgn("  \n% nothing\n")) == []


def test_cuteataxx_style_fen_without_setup_and_final_fen():
    text = (
        '[Event "m"]\n[Site "CuteAtaxx"]\n[Result "0-1"]\n[FEN "x5o/7/7/7/7/7/o5x o 0 1"]\n'
        '[FinalFEN "x5o/7/7/7/7/1o5/o5x x 0 2"]\n[Adjudicated "Out of time"]\n\n1... b2 0-1\n'
    )
    rec = read_pgn(text)  # adjudicated: the result stands on an unfinished position
    assert rec.moves == ["b2"] and rec.result == "0-1" and rec.start_fen == "x5o/7/7/7/7/7/o5x o 0 1"
    with pytest.raises(InvalidPositionError, match="tag FinalFEN 'x5o/7/7/7/7/7/o5x x 0 2' differs"):
        read_pgn(text.replace("1o5/o5x x 0 2", "7/o5x x 0 2"))
    # python-ataxx reads the same game alike
    assert [str(n.move) for n in ataxx.pgn.parse(text).main_line()] == ["b2"]


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "text, error, message",
    [
        ('[Event "x"\n1. f2 *', InvalidPositionError, r"game 1, line 1: malformed tag '\[Event \"x\"'"),
        ('[Event "a"]\n[Event "b"]\n*', InvalidPositionError, r"tag 'Event' appears twice \(first on line 1\)"),
        ("1. f2 { never closed\n*", InvalidPositionError, r"line 1: comment '\{' is never closed"),
        ("1. f2 (1. g2\n*", InvalidPositionError, r"result '\*' inside a variation \(opened on line 1\)"),
        ("1. f2 (1. g2", InvalidPositionError, r"game 1, line 1: variation '\(' is never closed"),
        ("1. f2 ) *", InvalidPositionError, r"line 1: '\)' closes no variation"),
        ("(1. g2) 1. f2 *", InvalidPositionError, r"a variation '\(' before the first move"),
        ("1. f2 a1c3 &", InvalidPositionError, r"unexpected character '&' in the movetext"),
        (
            '[Result "1-0"]\n1. f2 0-1',
            InvalidPositionError,
            r"tag Result '1-0' differs from the movetext's result '0-1'",
        ),
        ('[Result "2-0"]\n1. f2', InvalidPositionError, r"tag Result must be one of"),
        ('[SetUp "1"]\n1. f2 *', InvalidPositionError, r"tag SetUp \"1\" but no FEN tag"),
        ('[FEN "x5o/7/7 x 0 1"]\n*', InvalidPositionError, r"game 1 \(line 1\): FEN tag: malformed FEN"),
        ('[HalfmoveClock "maybe"]\n*', InvalidPositionError, r"HalfmoveClock must be \"on\" or \"off\""),
        (
            f'[FEN "{NO_STONES}"]\n1. a2 0-1',
            InvalidPositionError,
            r"the result '0-1' contradicts the final position .* over with 1-0 \(x 3 stones, o 0\)",
        ),
        (
            "1. f2 a1c3\n2. h9 *",
            IllegalActionError,
            r"game 1, line 2, ply 3 \(move 2\.\) 'h9': 'h9' is not an Ataxx move",
        ),
        (
            "1. f2 a1b2 *",
            IllegalActionError,
            r"ply 2 \(move 1\.\.\.\) 'a1b2': 'a1b2': a 4-character move must be a jump",
        ),
        (
            "1. f2 a1c3 2. f2 *",
            IllegalActionError,
            r"game 1, line 1, ply 3 \(move 2\.\) 'f2': illegal action 12 \(f2\) for x: destination f2 is not empty",
        ),
        ("1. f2 0000 *", IllegalActionError, r"ply 2 \(move 1\.\.\.\) '0000': .*a pass is legal only when"),
        (
            f'[FEN "{NO_STONES}"]\n1. a2 g7 *',
            IllegalActionError,
            r"ply 2 \(move 1\.\.\.\) 'g7': .*the game is over \(1-0\)",
        ),
        ('[Event "1"]\n1. f2 *\n[Event "2"]\n1. f2 a1c5 *', IllegalActionError, r"game 2, line 4, ply 2"),
    ],
)
def test_malformed_and_illegal_input(text, error, message):
    with pytest.raises(error, match=message):
        read_pgn(text)


def test_read_pgn_needs_exactly_one_game_and_text():
    with pytest.raises(InvalidPositionError, match="expected one game in the PGN text, found 0$"):
        read_pgn("% only an escape line\n")
    with pytest.raises(InvalidPositionError, match="found 2; iter_pgn"):
        read_pgn("f2 *\ng2 *")
    with pytest.raises(InvalidPositionError, match="PGN text must be a string, got bytes"):
        read_pgn(b"f2 *")


def test_writer_errors():
    s = AtaxxState(BLOCKERS[0])
    s.push("f2")
    with pytest.raises(ParameterError, match=r"reaches .* not the state's position .*pass start_fen="):
        write_pgn(s)  # started from the blocker position, not the standard one
    with pytest.raises(ParameterError, match=r"tag 'Result' is derived from the game: pass result="):
        write_pgn(["f2"], {"Result": "1-0"})
    with pytest.raises(ParameterError, match=r"tag name 'Bad Name' is not a PGN tag name"):
        write_pgn(["f2"], {"Bad Name": "v"})
    with pytest.raises(ParameterError, match=r"tag 'Event': the value must be a one-line string"):
        write_pgn(["f2"], {"Event": "two\nlines"})
    with pytest.raises(ParameterError, match=r"result must be one of \['1-0', '0-1', '1/2-1/2', '\*'\], got 'win'"):
        write_pgn(["f2"], result="win")
    with pytest.raises(InvalidPositionError, match=r"the result '0-1' contradicts .* over with 1-0"):
        write_pgn(["a2"], start_fen=NO_STONES, result="0-1")
    with pytest.raises(ParameterError, match="needs an AtaxxState, an AtaxxRecord or a list of moves"):
        write_pgn("f2 a1c3")
    with pytest.raises(IllegalActionError, match=r"ply 2 \(move 1\.\.\.\) 834: action 834 is out of range"):
        write_pgn([12, 834])
    with pytest.raises(InvalidPositionError, match=r"^start FEN: malformed FEN 'x5o x 0 1': expected 7 ranks"):
        write_pgn(["f2"], start_fen="x5o x 0 1")
    with pytest.raises(ParameterError, match="a record has its own start_fen"):
        write_pgn(AtaxxRecord(moves=["f2"]), start_fen=START_FEN)
    # An unfinished game takes any declared result (adjudication, resignation).
    assert write_pgn(["f2"], result="0-1").endswith("1. f2 0-1\n")


# ---------------------------------------------------------------------------- the play room's upload import
def test_python_ataxx_pgn_imported_as_common_records():
    """PGN files python-ataxx writes, read by envs.core.records.import_record (the play room's uploads)."""
    from envs.core.records import import_record
    from envs.core.records import replay as common_replay

    for fen, final in GAMES[::5]:
        moves = [final.action_to_string(a) for a in final.history]
        game = ataxx.pgn.Game()
        game.from_board(_python_ataxx_board(fen, moves))
        game.set_black("x engine")
        text = str(game)
        for data in (text, text.encode("utf-8")):
            rec = import_record("Game 1.PGN", data)
            assert rec["env_id"] == "ataxx_v0" and rec["moves"] == moves and rec["deal"] is None
            assert rec["env_kwargs"] == ({} if fen == START_FEN else {"fen": fen})
            assert rec["result"]["result"] == final.outcome().result == game.headers["Result"]
            assert rec["result"]["scores"] == final.scores()
            assert rec["meta"]["imported_from"] == "PGN" and rec["meta"]["pgn_tags"]["Black"] == "x engine"
            back = common_replay(rec)
            assert back == final and back.history == final.history


def test_pgn_import_unfinished_clock_off_and_adjudicated():
    from envs.core.records import import_formats, import_record
    from envs.core.records import replay as common_replay

    assert import_formats()[".pgn"] == "Ataxx PGN"
    s = AtaxxState("x5o/7/7/7/7/7/o5x x 95 1", halfmove_clock=False)
    for m in ["g1e1", "a1c1", "e1g1", "c1a1"] * 3:
        s.push(m)
    rec = import_record("long.pgn", write_pgn(s, start_fen="x5o/7/7/7/7/7/o5x x 95 1", result="0-1"))
    assert rec["env_kwargs"] == {"fen": "x5o/7/7/7/7/7/o5x x 95 1", "halfmove_clock": False}
    assert rec["result"] is None and rec["meta"]["pgn_result"] == "0-1"  # adjudicated: not over by the rules
    back = common_replay(rec)
    assert back == s and back.clock == 107 and not back.halfmove_clock


@pytest.mark.parametrize(
    "text, message",
    [
        (write_pgn(["f2"]) + "\n" + write_pgn(["g2"]), "expected one game in the PGN text, found 2"),
        ("1. f2 d4 *", r"'bad.pgn': game 1, line 1, ply 2 \(move 1\.\.\.\) 'd4': .*no o stone next to d4"),
        ('[FEN "x5o/7/7 x 0 1"]\n\n1. f2 *', r"game 1 \(line 1\): FEN tag: malformed FEN .* expected 7 ranks"),
        ("1. f2 {open", "comment '{' is never closed"),
        ("", "expected one game in the PGN text, found 0"),
    ],
)
def test_pgn_import_errors(text, message):
    from envs.core.records import import_record

    with pytest.raises(InvalidPositionError, match=message):
        import_record("bad.pgn", text)


def test_pgn_import_registered_by_the_registry_alone():
    """A program that never imports envs.ataxx still reads .pgn uploads (the registry loads every game)."""
    import subprocess
    import sys

    from conftest import REPO_ROOT

    code = "from envs.core.records import import_record; print(import_record('g.pgn', '1. f2 a1c3 *')['moves'])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT)
    assert out.stdout.strip() == "['f2', 'a1c3']"
