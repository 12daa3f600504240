"""TwixT records: the sample files in ``tests/data/twixt`` and our own writers.

* every move of every sample record replays legally with the right settings (Little Golem ``.tsgf``:
  TwixT PP with the transposing swap; T1: standard rules, swap);
* the coordinate and colour conventions (see :mod:`envs.twixt.records`): ``b`` is the first player,
  our red; letters are column then row with ``a`` = 1. All four candidate mappings replay legally
  (every sample move is an interior hole), so the test also records the evidence that picks this one:
  each side's links run along its own direction;
* records we write read back identically, in every format, and replay to the same position.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.state import IllegalActionError, InvalidPositionError, ParameterError
from envs.twixt import TwixtState, hole_name, parse_hole
from envs.twixt.records import (
    TwixtRecord,
    format_moves,
    format_t1,
    format_tsgf,
    parse_moves,
    parse_t1,
    parse_tsgf,
    read_twixt_file,
    record_from_state,
    replay,
    write_twixt_file,
)

LG_1 = [
    "d4",
    "t8",
    "k10",
    "j16",
    "p16",
    "m13",
    "o12",
    "n11",
    "n10",
    "o14",
    "p14",
    "p18",
    "o18",
    "n19",
    "m19",
    "m7",
    "m8",
]
LG_2 = [
    "c4",
    "f7",
    "o8",
    "o16",
    "k16",
    "b7",
    "j14",
    "k10",
    "m13",
    "o10",
    "g9",
    "i8",
    "f8",
    "d6",
    "k9",
    "k8",
    "l11",
    "m9",
    "g6",
    "k19",
    "h19",
]


def _files(data_dir):
    files = sorted((data_dir / "twixt").iterdir())
    assert {f.name for f in files} >= {"lg_game2206555.tsgf", "lg_game2220939.tsgf", "sample.T1"}
    return files


def test_every_sample_record_replays_legally(data_dir):
    for path in _files(data_dir):
        rec = read_twixt_file(path)
        st = replay(rec)  # raises IllegalActionError on the first illegal move
        assert st.moves() == rec.moves and st.turn_number == len(rec.moves)
        assert not st.is_terminal()  # all three games end by resignation
        assert rec.resigned == st.current_player == 1 and rec.result == "1-0"
        if path.suffix == ".tsgf":
            assert (rec.rules, rec.swap, rec.board_size) == ("pp", True, 24)
            assert rec.source == "https://www.littlegolem.net"
        else:
            assert (rec.rules, rec.swap, rec.board_size) == ("standard", True, 24)


def test_little_golem_games_decoded(data_dir):
    r1 = read_twixt_file(data_dir / "twixt" / "lg_game2206555.tsgf")
    r2 = read_twixt_file(data_dir / "twixt" / "lg_game2220939.tsgf")
    assert r1.moves == LG_1 and r2.moves == LG_2
    assert r1.event == "twixt.DEFAULT.mc.2020.dec.1.2" and r1.players == ["", ""]
    st = replay(r2)
    pegs = st.pegs()
    r, c = parse_hole("c4", 24)  # b[cd]: column c, row d = 4; first player = red
    assert pegs[r, c] == 1 and pegs[parse_hole("f7", 24)] == 2


def test_sample_t1_decoded(data_dir):
    rec = read_twixt_file(data_dir / "twixt" / "sample.T1")
    assert rec.moves == ["e15", "swap", "f17", "h18", "p12"]
    assert rec.players == [] and rec.game_over is None
    st = replay(rec)
    pegs = st.pegs()
    # e15 = (14, 4) became a black peg on the transposed hole (4, 14) = o5.
    assert pegs[14, 4] == 0 and pegs[4, 14] == 2 and hole_name(4, 14) == "o5"
    assert pegs[parse_hole("f17", 24)] == 1 and pegs[parse_hole("h18", 24)] == 2 and pegs[parse_hole("p12", 24)] == 1
    assert st.current_player == 1  # black to move, and black resigned


def test_mapping_evidence_each_side_builds_along_its_direction(data_dir):
    along = {0: [0, 0], 1: [0, 0]}  # colour -> [links long in its own direction, all links]
    for name in ("lg_game2206555.tsgf", "lg_game2220939.tsgf"):
        st = replay(read_twixt_file(data_dir / "twixt" / name))
        for (r1, c1), (r2, c2), colour in st.links():
            own_axis = abs(r2 - r1) if colour == 0 else abs(c2 - c1)
            along[colour][0] += own_axis == 2
            along[colour][1] += 1
    assert along[0] == [8, 9] and along[1] == [6, 7]


@pytest.mark.parametrize("first_is_red", [True, False])
@pytest.mark.parametrize("transposed", [False, True])
def test_other_mappings_are_also_legal(data_dir, first_is_red, transposed):
    """Legality alone cannot pick the mapping: every sample move is an interior hole."""
    for name in ("lg_game2206555.tsgf", "lg_game2220939.tsgf"):
        moves = read_twixt_file(data_dir / "twixt" / name).moves
        if transposed:
            moves = [hole_name(*parse_hole(m, 24)[::-1]) for m in moves]
        if not first_is_red:  # give black the first move: red opens with a far-away filler
            moves = ["l1"] + moves
        st = TwixtState.from_moves(moves, rules="pp", draw="board_full")
        assert st.turn_number == len(moves)
        for m in moves:
            r, c = parse_hole(m, 24)
            assert 0 < r < 23 and 0 < c < 23 or m == "l1"


def test_lg_files_write_back_byte_for_byte(data_dir):
    for name in ("lg_game2206555.tsgf", "lg_game2220939.tsgf"):
        text = (data_dir / "twixt" / name).read_text()
        assert format_tsgf(parse_tsgf(text)) == text.strip()


def test_sample_t1_reads_back_after_writing(data_dir):
    rec = read_twixt_file(data_dir / "twixt" / "sample.T1")
    text = format_t1(rec)
    assert text.splitlines()[-1] == "resign" and "E15" in text.splitlines()
    assert parse_t1(text) == rec


# ---------------------------------------------------------------------------- our own records
def _random_game(rng, **settings):
    st = TwixtState(**settings)
    stop = int(rng.integers(5, 200))
    while not st.is_terminal() and st.turn_number < stop:
        la = st.legal_actions()
        st.apply(la[rng.integers(len(la))])
    return st


@pytest.mark.parametrize(
    "settings",
    [
        dict(board_size=24, rules="pp", swap=True),
        dict(board_size=12, rules="standard", swap=True, draw="board_full"),
        dict(board_size=8, rules="standard"),
    ],
)
def test_own_records_round_trip_in_every_format(settings, tmp_path):
    rng = np.random.default_rng(len(str(settings)))
    for i in range(12):
        st = _random_game(rng, **settings)
        resigned = st.current_player if (i % 3 == 0 and not st.is_terminal()) else None
        rec = record_from_state(st, players=["alice", "bob"], event="test", resigned=resigned)
        formats = [(format_moves, parse_moves, ".txt")]
        if settings.get("rules", "standard") == "standard":
            formats.append((format_t1, parse_t1, ".T1"))
        formats.append((format_tsgf, parse_tsgf, ".tsgf"))
        for fmt, parse, suffix in formats:
            back = parse(fmt(rec))
            if parse is parse_moves:
                assert back == rec
            else:  # tsgf / T1 cannot state the draw rule; T1 has no event, tsgf no game-over flag
                expect = TwixtRecord(**{**rec.__dict__, "draw": None})
                if parse is parse_t1:
                    expect.event = ""
                else:
                    expect.game_over = None
                assert back == expect, suffix
            assert replay(back, draw=st.draw) == st
            path = tmp_path / f"game{i}{suffix}"
            write_twixt_file(back, path)
            assert read_twixt_file(path) == back


def test_comma_separated_and_double_twixt_move_lists():
    rng = np.random.default_rng(3)
    st = _random_game(rng, board_size=9, num_players=4, rules="pp")
    rec = record_from_state(st)
    text = format_moves(rec, sep=", ")
    assert ", " in text
    back = parse_moves(text)
    assert back == rec and replay(back) == st
    assert any(m.endswith("!") for m in back.moves) or not any(a > 81 for a in st.history)
    # A bare move list with settings passed by the reader, case-insensitive, comments ignored.
    r2 = parse_moves("C3, D5 # a comment\nE4\nresign\n", board_size=8, rules="pp")
    assert r2.moves == ["c3", "d5", "e4"] and r2.rules == "pp" and r2.board_size == 8
    assert r2.resigned == 1 and r2.result == "1-0"
    r3 = parse_moves("c3! a4 d5 draw", board_size=8, num_players=4)
    assert r3.resigned is None and r3.draw_agreed and r3.result == "1/2-1/2"
    r4 = parse_moves("c3! d5 resign", board_size=8, num_players=4)
    assert r4.resigned == 3  # after a claim by seat 0, seat 2 moved; seat 3 resigns


def test_draw_offers_and_agreed_draws_in_tsgf():
    text = "(;FF[4]EV[x]PB[p]PW[q]SZ[12]SO[s];b[cd];r[swap];b[fg|draw];r[draw])"
    rec = parse_tsgf(text)
    assert rec.moves == ["c4", "swap", "f7"] and rec.draw_offers == [2] and rec.draw_agreed
    assert rec.result == "1/2-1/2" and rec.board_size == 12 and rec.players == ["p", "q"]
    assert format_tsgf(rec) == text
    st = replay(rec)
    assert st.pegs()[3, 2] == 0 and st.pegs()[2, 3] == 2  # c4 swapped to d3


def test_tsgf_rules_extension_round_trip():
    rec = TwixtRecord(moves=["c4", "d6"], board_size=10, rules="standard", swap=False)
    text = format_tsgf(rec)
    assert "RU[standard]" in text and "SW[no]" in text
    back = parse_tsgf(text)
    assert (back.rules, back.swap, back.moves) == ("standard", False, ["c4", "d6"])


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("b[cd]", "not a tsgf game"),
        ("(;FF[4]SZ[24];r[cd])", "b's turn"),
        ("(;FF[4]SZ[24];b[cd];b[ef])", "r's turn"),
        ("(;FF[4]SZ[8];b[ci])", "two letters"),
        ("(;FF[4]SZ[24];b[c])", "two letters"),
        ("(;FF[4]SZ[24];b[cd];r[resign];b[ef])", "last"),
        ("(;FF[4]SZ[24];b[cd|foo])", "annotation"),
        ("(;FF[4]SZ[x];b[cd])", "board size"),
        ("(;FF[4]SZ[30];b[cd])", "board size"),
        ("(;FF[4]SZ[24];c[cd])", "expected b"),
    ],
)
def test_malformed_tsgf(text, fragment):
    with pytest.raises(InvalidPositionError, match=fragment):
        parse_tsgf(text)


def _t1(values, moves):
    header = ["# File", "# comment"] + [f"{v} # field" for v in values]
    return "\n".join(header + moves) + "\n"


def test_t1_header_fields():
    rec = parse_t1(_t1(["1", "Ann", "Bob", "12", "12", "H", "C", "1", "V", "N", "Y"], ["C3", "d5"]))
    assert rec.board_size == 12 and rec.players == ["Ann", "Bob"] and rec.swap is False
    assert rec.game_over is True and rec.moves == ["c3", "d5"]


@pytest.mark.parametrize(
    "values, moves, fragment",
    [
        (["1", "", "", "12", "14", "", "", "1", "", "", ""], ["c3"], "square"),
        (["1", "", "", "12", "12", "", "", "2", "", "", ""], ["c3"], "starting player"),
        (["1", "", "", "12", "12", "", "", "1", "", "N", ""], ["c3", "swap"], "pie rule"),
        (["1", "", "", "12", "12", "", "", "1", "", "", ""], ["c3", "z99"], "not a hole"),
        (["1", "", "", "12", "12", "", "", "1", "", "", ""], ["c3", "resign", "d4"], "last"),
        (["1", "", "", "x", "", "", "", "1", "", "", ""], ["c3"], "board size"),
    ],
)
def test_malformed_t1(values, moves, fragment):
    with pytest.raises(InvalidPositionError, match=fragment):
        parse_t1(_t1(values, moves))


def test_malformed_move_lists_and_writer_limits():
    with pytest.raises(InvalidPositionError, match="line 2"):
        parse_moves("c3\nq99\n", board_size=8)
    with pytest.raises(InvalidPositionError, match="board_size"):
        parse_moves("# board_size=big\nc3")
    with pytest.raises(ParameterError):
        parse_moves("c3", colour="red")
    with pytest.raises(ParameterError, match="two-player"):
        format_tsgf(TwixtRecord(num_players=4))
    with pytest.raises(ParameterError, match="26"):
        format_tsgf(TwixtRecord(board_size=30))
    with pytest.raises(ParameterError, match="pp"):
        format_t1(TwixtRecord(rules="pp"))
    with pytest.raises(ParameterError, match="two-player"):
        format_t1(TwixtRecord(num_players=4))


def test_replay_reports_the_illegal_move():
    rec = TwixtRecord(moves=["c3", "d5", "c3"], board_size=8)
    with pytest.raises(IllegalActionError, match=r"move 3 \('c3'\)"):
        replay(rec)
    with pytest.raises(IllegalActionError, match="move 2"):
        replay(TwixtRecord(moves=["c3", "d1"], board_size=8))  # d1 is red's border row
