"""Hand-built positions for every rule of ``envs/ataxx/RULES.md``, with the exact expected results.

Positions are written as diagrams (rank 7 at the top, file a on the left; ``x``, ``o``, ``-`` gap,
``.`` empty) and turned into FEN by :func:`conftest.diagram`.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from conftest import diagram, perft_rows
from envs import IllegalActionError, InvalidPositionError
from envs.ataxx import NUM_ACTIONS, PASS_ACTION, START_FEN, AtaxxState, parse_square


def after(fen_or_state, *moves: str, **kw) -> AtaxxState:
    s = fen_or_state.clone() if isinstance(fen_or_state, AtaxxState) else AtaxxState(fen_or_state, **kw)
    for m in moves:
        s.push(m)
    return s


def test_diagram_helper():
    assert (
        diagram("""
        x . . . . . o
        . . . . . . .
        . . - . - . .
        . . . . . . .
        . . - . - . .
        . . . . . . .
        o . . . . . x
    """)
        == "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1"
    )


# --------------------------------------------------------------------------- board and start
def test_start_position():
    s = AtaxxState()
    assert s.fen() == START_FEN == "x5o/7/7/7/7/7/o5x x 0 1"
    assert [s.piece_at(q) for q in ("a7", "g1", "g7", "a1", "d4")] == ["x", "x", "o", "o", "."]
    assert s.turn == 0 and s.current_player == 0
    assert s.stone_counts() == (2, 2)
    assert sorted(s.legal_moves()) == sorted(
        [
            "a6",
            "b6",
            "b7",
            "f1",
            "f2",
            "g2",  # clones
            "a7a5",
            "a7b5",
            "a7c5",
            "a7c6",
            "a7c7",
            "g1e1",
            "g1e2",
            "g1e3",
            "g1f3",
            "g1g3",
        ]  # jumps
    )


def test_square_numbering():
    assert parse_square("a1") == 0 and parse_square("g1") == 6 and parse_square("a2") == 7
    assert parse_square("g7") == 48
    assert AtaxxState.action_to_string(0) == "a1"
    assert AtaxxState.action_to_string(48) == "g7"
    assert AtaxxState.action_to_string(PASS_ACTION) == "0000"
    assert AtaxxState.string_to_action("0000") == PASS_ACTION == NUM_ACTIONS - 1 == 833


# --------------------------------------------------------------------------- moves
TWO_X = diagram("""
    . . . . . . o
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . x . x . .
    . . . . . . .
    . . . . . . .
""")


def test_clone_counted_once_per_destination():
    s = AtaxxState(TWO_X)
    moves = s.legal_moves()
    clones = sorted(m for m in moves if len(m) == 2)
    # d2, d3, d4 neighbour both c3 and e3: one move each.
    assert clones == sorted(["b2", "c2", "d2", "e2", "f2", "b3", "d3", "f3", "b4", "c4", "d4", "e4", "f4"])
    assert len(moves) == len(set(moves))
    jumps = [m for m in moves if len(m) == 4]
    assert len(jumps) == 15 + 15  # each stone's 16-square ring, minus the other x stone
    assert "c3e3" not in jumps and "e3c3" not in jumps
    assert len(moves) == 43 == s.perft(1)
    assert int(s.legal_action_mask()[parse_square("d3")]) == 1
    assert int(s.legal_action_mask().sum()) == 43


def test_clone_keeps_source():
    s = after(TWO_X, "d3")
    assert s.fen() == "6o/7/7/7/2xxx2/7/7 o 0 1"
    assert s.stone_counts() == (3, 1)


def test_jump_empties_source():
    s = after("6o/7/7/7/7/7/x6 x 0 1", "a1c3")
    assert s.piece_at("a1") == "." and s.piece_at("c3") == "x"
    assert s.fen() == "6o/7/7/7/2x4/7/7 o 1 1"
    assert s.stone_counts() == (1, 1)


def test_jumps_pass_over_anything():
    walled = diagram("""
        . . . . . . o
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        - - . . . . .
        x - . . . . .
    """)
    s = AtaxxState(walled)
    assert sorted(s.legal_moves()) == ["a1a3", "a1b3", "a1c1", "a1c2", "a1c3"]


def test_moves_do_not_wrap_around_the_edges():
    s = AtaxxState(
        diagram("""
        . . . . . . .
        . . . . . . .
        . . . . . . .
        o . . . . . x
        . . . . . . .
        . . . . . . .
        . . . . . . .
    """)
    )
    assert sorted(s.legal_moves()) == sorted(
        ["f3", "f4", "f5", "g3", "g5", "g4e2", "g4e3", "g4e4", "g4e5", "g4e6", "g4f2", "g4f6", "g4g2", "g4g6"]
    )
    # A clone on the g-file must not capture on the a-file (bit g4 + 1 is a5, g4 - 1 is f4 ...).
    s = AtaxxState(
        diagram("""
        . . . . . . .
        . . . . . . .
        o . . . . . .
        o . . . . . .
        o . . . . . x
        . . . . . . .
        . . . . . . .
    """)
    )
    s.push("g4")
    assert s.fen() == "7/7/o6/o5x/o5x/7/7 o 0 1"


CAPTURE_CLONE = diagram(
    """
    . . . . . . o
    . . . . . . .
    . . . . . . .
    . . . . . . .
    o o o . . . .
    . x . . . . .
    . . o . . . .
""",
    rest="x 7 3",
)


def test_capture_after_clone():
    s = after(CAPTURE_CLONE, "c2")
    # c2 neighbours: b3, c3 and c1 hold o and turn to x; a3 is two files away and stays o.
    assert s.fen() == "6o/7/7/7/oxx4/1xx4/2x4 o 0 3"
    assert s.stone_counts() == (5, 2)
    assert s.clock == 0


CAPTURE_JUMP = diagram(
    """
    . . . . . . .
    . . . . . . .
    . . o o o . .
    . x o . o . .
    . . o o . . .
    . . . . . . .
    . . . . . . o
""",
    rest="x 12 20",
)


def test_capture_after_jump():
    s = after(CAPTURE_JUMP, "b4d4")
    # Seven o stones around d4 change colour, b4 empties, g1 is untouched; a jump does not reset the clock.
    assert s.fen() == "7/7/2xxx2/2xxx2/2xx3/7/6o o 13 20"
    assert s.stone_counts() == (8, 1)


def test_capture_spares_gaps_and_own_stones():
    s = after(
        diagram("""
        . . . . . . o
        . . . . . . .
        . . . . . . .
        . . o . . . .
        . - x . . . .
        . . o . . . .
        . . . . . . .
    """),
        "b2",
    )
    # b2 neighbours: c2 (o) turns, b3 stays a gap, c3 stays x; c4 is two ranks away and stays o.
    assert s.fen() == "6o/7/7/2o4/1-x4/1xx4/7 o 0 1"
    assert s.stone_counts() == (3, 2)


# --------------------------------------------------------------------------- passes
X_WALLED = diagram("""
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
    o o o . . . .
    o o o . . . .
    x o o . . . .
""")


def test_forced_pass_is_the_only_move():
    s = AtaxxState(X_WALLED)
    assert not s.is_terminal() and s.outcome() is None
    assert s.legal_moves() == ["0000"]
    assert s.legal_actions() == [PASS_ACTION]
    mask = s.legal_action_mask()
    assert int(mask.sum()) == 1 and mask[PASS_ACTION] == 1
    s.push("0000")
    assert s.fen() == "7/7/7/7/ooo4/ooo4/xoo4 o 1 1"
    assert s.turn == 1 and len(s.legal_moves()) > 1 and "0000" not in s.legal_moves()


def test_pass_by_o_increments_fullmove():
    s = AtaxxState("7/7/7/7/xxx4/xxx4/oxx4 o 0 1")  # o at a1 walled in by x, o to move
    assert s.legal_moves() == ["0000"]
    s.push("0000")
    assert s.fen() == "7/7/7/7/xxx4/xxx4/oxx4 x 1 2"


def test_pass_illegal_when_moves_exist():
    s = AtaxxState()
    with pytest.raises(IllegalActionError, match="pass"):
        s.push("0000")
    with pytest.raises(IllegalActionError):
        s.apply(PASS_ACTION)
    assert s.fen() == START_FEN


BOTH_STUCK = diagram("""
    . . . . - - o
    . . . . - - -
    . . . . - - -
    . . . . . . .
    - - - . . . .
    - - - . . . .
    x - - . . . .
""")


def test_both_stuck_is_game_over_not_a_pass():
    s = AtaxxState(BOTH_STUCK)
    assert s.is_terminal()
    assert s.current_player == -1
    assert s.legal_moves() == [] and s.legal_actions() == []
    assert int(s.legal_action_mask().sum()) == 0
    assert str(s.outcome()) == "1/2-1/2"  # one stone each
    assert s.perft(1) == 0
    with pytest.raises(IllegalActionError, match="over"):
        s.push("0000")
    assert s.fen() == BOTH_STUCK


def test_both_stuck_goes_by_count():
    s = AtaxxState(
        diagram(
            """
        . . . . - - o
        . . . . - - -
        . . . . - - -
        . . . . . . .
        - - - - . . .
        - - - - . . .
        x x - - . . .
    """,
            rest="o 0 1",
        )
    )
    assert s.is_terminal() and s.legal_moves() == []
    assert str(s.outcome()) == "1-0" and s.returns().tolist() == [1.0, -1.0]  # 2 stones to 1


# --------------------------------------------------------------------------- end of game
@pytest.mark.parametrize(
    "fen, outcome, returns",
    [
        # Rule 1: a side has no stones (even though the other could still move).
        ("7/7/7/3o3/7/7/7 x 0 1", "0-1", [-1.0, 1.0]),
        ("7/7/7/3x3/7/7/7 o 0 1", "1-0", [1.0, -1.0]),
        ("7/7/7/3x3/7/7/7 x 0 1", "1-0", [1.0, -1.0]),
        ("7/7/7/7/7/7/7 x 0 1", "1/2-1/2", [0.0, 0.0]),
        # Rule 2: full board, by count (25 x, 24 o).
        ("xxxxxxx/xxxxxxx/xxxxxxx/xxxxooo/ooooooo/ooooooo/ooooooo o 0 1", "1-0", [1.0, -1.0]),
        ("ooooooo/ooooooo/ooooooo/ooooxxx/xxxxxxx/xxxxxxx/xxxxxxx x 0 1", "0-1", [-1.0, 1.0]),
        # Rule 2 with a gap: 24 x, 24 o, equal -> draw.
        ("xxxxxxx/xxxxxxx/xxxxxxx/xxx-ooo/ooooooo/ooooooo/ooooooo x 0 1", "1/2-1/2", [0.0, 0.0]),
        # Gaps are not counted: 12 x, 13 o, 24 gaps.
        ("-------/-------/-------/--xxxxx/xxxxxxx/ooooooo/oooooo- x 0 1", "0-1", [-1.0, 1.0]),
        # Rule 3: halfmove clock 100 -> draw.
        ("x5o/7/7/7/7/7/o5x x 100 1", "1/2-1/2", [0.0, 0.0]),
        ("x5o/7/7/7/7/7/o5x o 117 9", "1/2-1/2", [0.0, 0.0]),
        # ... but a win under rule 1 or 2 in the same position takes priority.
        ("7/7/7/3o3/7/7/7 x 100 1", "0-1", [-1.0, 1.0]),
        ("xxxxxxx/xxxxxxx/xxxxxxx/xxxxooo/ooooooo/ooooooo/ooooooo o 100 51", "1-0", [1.0, -1.0]),
        ("xxxxxxx/xxxxxxx/xxxxxxx/xxx-ooo/ooooooo/ooooooo/ooooooo x 100 1", "1/2-1/2", [0.0, 0.0]),
    ],
)
def test_end_conditions(fen, outcome, returns):
    s = AtaxxState(fen)
    assert s.is_terminal() and s.current_player == -1
    assert str(s.outcome()) == outcome
    assert s.returns().tolist() == returns
    assert s.winners() == {"1-0": [0], "0-1": [1], "1/2-1/2": [0, 1]}[outcome]
    assert s.legal_moves() == [] and int(s.legal_action_mask().sum()) == 0


def test_full_board_counts_gaps_out():
    s = AtaxxState("-------/-------/-------/--xxxxx/xxxxxxx/ooooooo/oooooo- x 0 1")
    x, o, gaps = s.bitboards()
    assert s.stone_counts() == (12, 13)
    assert gaps.bit_count() == 24


def test_clock_99_then_jump_is_a_draw_and_clone_is_not():
    fen = "x5o/7/7/7/7/7/o5x x 99 1"
    s = AtaxxState(fen)
    assert not s.is_terminal()
    jumped = after(s, "g1e3")
    assert jumped.clock == 100 and jumped.is_terminal() and str(jumped.outcome()) == "1/2-1/2"
    cloned = after(s, "g2")
    assert cloned.clock == 0 and not cloned.is_terminal() and cloned.outcome() is None


def test_win_at_clock_100_takes_priority_over_the_draw():
    # x jumps b4-d5 at clock 99, capturing o's last stone (d4): clock 100, but x has won.
    fen = diagram(
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . x . o . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
    """,
        rest="x 99 40",
    )
    s = after(fen, "b4d5")
    assert s.fen() == "7/7/3x3/3x3/7/7/7 o 100 40"
    assert str(s.outcome()) == "1-0" and s.returns().tolist() == [1.0, -1.0]
    # The same jump with an extra o stone far away: the clock draw applies.
    s = after(fen.replace("7 x 99 40", "6o x 99 40"), "b4d5")
    assert s.fen() == "7/7/3x3/3x3/7/7/6o o 100 40"
    assert str(s.outcome()) == "1/2-1/2"


def test_clock_off_never_ends_the_game():
    s = AtaxxState("x5o/7/7/7/7/7/o5x x 100 1", halfmove_clock=False)
    assert not s.is_terminal() and s.outcome() is None and len(s.legal_moves()) == 16
    s.push("g1e3")
    s.push("g7e5")
    assert s.fen() == "x6/7/4o2/7/4x2/7/o6 x 102 2"
    assert not s.is_terminal()
    # Decisive results are unchanged by the option.
    assert AtaxxState("7/7/7/3o3/7/7/7 x 100 1", halfmove_clock=False).outcome().result == "0-1"


# --------------------------------------------------------------------------- clock and fullmove
def test_clock_reset_only_by_clones():
    s = AtaxxState(
        diagram(
            """
        . . . . . . o
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . o . . . .
        . . . . . . .
        x . . . . . x
    """,
            rest="x 5 1",
        )
    )
    s.push("a1b3")  # capturing jump: c3 turns, the clock still runs
    assert s.piece_at("c3") == "x" and s.clock == 6
    s.push("f6")  # clone
    assert s.clock == 0 and s.fullmove == 2
    s.push("g1e1")  # jump
    assert s.clock == 1
    s.push("f6d4")  # capturing jump by o: c3 turns back
    assert s.piece_at("c3") == "o" and s.clock == 2 and s.fullmove == 3
    s.push("c2")  # capturing clone: reset
    assert s.piece_at("c3") == "x" and s.clock == 0
    assert s.fen() == "6o/7/7/3o3/1xx4/2x4/4x2 o 0 3"


def test_clock_counts_passes():
    s = AtaxxState(X_WALLED.replace("x 0 1", "x 41 7"))
    s.push("0000")
    assert s.clock == 42 and s.fullmove == 7 and s.turn == 1


def test_fullmove_increments_after_o():
    s = AtaxxState()
    s.push("g2")
    assert s.fullmove == 1
    s.push("f7")
    assert s.fullmove == 2
    s.push("a7c5")
    assert s.fullmove == 2
    s.push("g7e5")
    assert s.fullmove == 3
    assert s.fen() == "5o1/7/2x1o2/7/7/6x/o5x x 2 3"


# --------------------------------------------------------------------------- gaps
GAPPY = diagram("""
    x - . . . . o
    - - . . . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
    . . . . . . .
    o . . . . . x
""")


def test_gaps_never_occupied():
    s = AtaxxState(GAPPY)
    moves = s.legal_moves()
    assert not any(m[-2:] in ("b7", "a6", "b6") for m in moves)
    assert sorted(m for m in moves if m.startswith("a7")) == ["a7a5", "a7b5", "a7c5", "a7c6", "a7c7"]
    for bad in ("b7", "a6", "b6"):
        with pytest.raises(IllegalActionError, match="gap"):
            s.push(bad)
    with pytest.raises(IllegalActionError, match="gap"):
        after("x5o/7/2-4/7/7/7/o5x x 0 1", "a7c5")
    assert s.fen() == GAPPY
    assert s.stone_counts() == (2, 2)


def test_gap_count_in_every_perft_position(data_dir):
    rows = perft_rows()
    assert len(rows) >= 15
    for fen, _ in rows:
        s = AtaxxState(fen)
        x, o, gaps = s.bitboards()
        assert gaps.bit_count() == fen.split()[0].count("-")


# --------------------------------------------------------------------------- FEN
def _fen_cases():
    rows = perft_rows()
    return [pytest.param(fen, id=fen) for fen, _ in rows]


@pytest.mark.parametrize("fen", _fen_cases())
def test_fen_round_trip_perft_positions(fen):
    s = AtaxxState(fen)
    assert s.fen() == fen
    assert AtaxxState(s.fen()).fen() == fen
    assert AtaxxState.from_fen(fen) == s


@pytest.mark.parametrize(
    "text, expected",
    [
        ("startpos", START_FEN),
        ("  startpos ", START_FEN),
        ("x5o/7/7/7/7/7/o5x o", "x5o/7/7/7/7/7/o5x o 0 1"),
        ("x5o/7/7/7/7/7/o5x x 12", "x5o/7/7/7/7/7/o5x x 12 1"),
        ("x41o/7/7/7/7/7/o32x x 0 1", START_FEN),  # digit runs are normalised
    ],
)
def test_fen_aliases_and_defaults(text, expected):
    assert AtaxxState(text).fen() == expected


def test_startpos_alias_equals_default():
    assert AtaxxState("startpos") == AtaxxState() == AtaxxState(None)
    assert AtaxxState.from_fen("startpos").fen() == START_FEN


@pytest.mark.parametrize(
    "fen, message",
    [
        ("x5o/7/7/7/7/o5x x 0 1", "7 ranks"),  # 6 ranks
        ("x5o/7/7/7/7/7/7/o5x x 0 1", "7 ranks"),  # 8 ranks
        ("x5o/7/7/7/7/7/o5y x 0 1", "unexpected character 'y'"),
        ("x5o/7/7/8/7/7/o5x x 0 1", "unexpected character '8'"),
        ("x5o/7/7/07/7/7/o5x x 0 1", "unexpected character '0'"),
        ("x5o/7/7/7/7/7/o5X x 0 1", "unexpected character 'X'"),
        ("x6o/7/7/7/7/7/o5x x 0 1", "rank 7 .* covers 8 squares"),  # too long
        ("x5o/7/7/7/7/7/o5xx x 0 1", "rank 1 .* covers 8 squares"),
        ("x5o/7/7/7/7/7/o4x x 0 1", "rank 1 .* covers 6 squares"),  # too short
        ("x5o/7/7//7/7/o5x x 0 1", "rank 4 .* covers 0 squares"),
        ("x5o/7/7/7/7/7/o5x w 0 1", "side to move"),
        ("x5o/7/7/7/7/7/o5x X 0 1", "side to move"),
        ("x5o/7/7/7/7/7/o5x x -1 1", "halfmove clock"),
        ("x5o/7/7/7/7/7/o5x x ten 1", "halfmove clock"),
        ("x5o/7/7/7/7/7/o5x x 1.5 1", "halfmove clock"),
        ("x5o/7/7/7/7/7/o5x x 0 0", "fullmove"),
        ("x5o/7/7/7/7/7/o5x x 0 -3", "fullmove"),
        ("x5o/7/7/7/7/7/o5x x 0 one", "fullmove"),
        ("x5o/7/7/7/7/7/o5x x 0 1 extra", "fields"),
        ("x5o/7/7/7/7/7/o5x", "fields"),
        ("", "fields"),
        ("   ", "fields"),
    ],
)
def test_malformed_fen_raises(fen, message):
    with pytest.raises(InvalidPositionError, match=message) as info:
        AtaxxState(fen)
    assert isinstance(info.value, ValueError)
    assert repr(fen) in str(info.value), "the message should quote the FEN"


@pytest.mark.parametrize("clock", ["\u00b2", "\u0663", "\u0661\u0660"])
def test_fen_clock_fields_accept_only_ascii_digits(clock):
    """Unicode digits ('²', Arabic-Indic '٣') pass ``str.isdigit`` but are not FEN numbers.

    '²' currently crashes ``int()`` with a bare ValueError instead of InvalidPositionError, and
    '١٠' is silently read as 10 (envs/ataxx/state.py, ``_set_fen``, the isdigit checks).
    """
    for fen in (f"x5o/7/7/7/7/7/o5x x {clock} 1", f"x5o/7/7/7/7/7/o5x x 0 {clock}"):
        with pytest.raises(InvalidPositionError):
            AtaxxState(fen)


@pytest.mark.parametrize("bad", [123, b"x5o/7/7/7/7/7/o5x x 0 1", ["x5o/7/7/7/7/7/o5x", "x"]])
def test_fen_must_be_a_string(bad):
    with pytest.raises(InvalidPositionError, match="string"):
        AtaxxState(bad)


@pytest.mark.parametrize("bad", ["yes", 1, 0, None])
def test_halfmove_clock_option_must_be_bool(bad):
    with pytest.raises(ValueError, match="halfmove_clock"):
        AtaxxState(halfmove_clock=bad)


# --------------------------------------------------------------------------- illegal moves
@pytest.mark.parametrize(
    "fen, move, message",
    [
        (START_FEN, "a7", "not empty"),  # clone onto own stone
        (START_FEN, "g7", "not empty"),  # clone onto an o stone
        (START_FEN, "d4", "no x stone next to d4"),  # clone with no neighbour
        (START_FEN, "c3e5", "source c3"),  # jump from an empty square
        (START_FEN, "a1c1", "source a1"),  # jump with the opponent's stone
        ("6o/7/7/7/2x4/7/x6 x 0 1", "a1c3", "not empty"),  # jump onto an occupied square
        (START_FEN, "0000", "pass"),  # pass while moves exist
        (START_FEN, "a1b2", "distance 1"),  # 4-character move at distance 1
        (START_FEN, "a7b6", "distance 1"),
        (START_FEN, "a7a7", "distance 0"),
        (START_FEN, "a7d7", "distance 3"),
        (START_FEN, "h1", "not an Ataxx move.*files a-g and ranks 1-7"),
        (START_FEN, "a8", "not an Ataxx move.*files a-g and ranks 1-7"),
        (START_FEN, "None", "'None' is not an Ataxx move"),
        (START_FEN, "g1e3x", "not an Ataxx move"),
        (START_FEN, "", "not an Ataxx move"),
        ("7/7/7/3o3/7/7/7 x 0 1", "0000", "game is over"),  # move after game over
        ("x5o/7/7/7/7/7/o5x x 100 1", "g2", "game is over"),
    ],
)
def test_illegal_moves_raise_and_leave_state_unchanged(fen, move, message):
    s = AtaxxState(fen)
    before, history, mask = s.fen(), list(s.history), s.legal_action_mask().copy()
    with pytest.raises(IllegalActionError, match=message):
        s.push(move)
    assert s.fen() == before and s.history == history
    assert np.array_equal(s.legal_action_mask(), mask)


@pytest.mark.parametrize(
    "action, message",
    [
        (NUM_ACTIONS, "out of range"),
        (-1, "out of range"),
        (10**6, "out of range"),
        (1.0, "integer"),
        ("g2", "integer"),
        (None, "integer"),
        (True, "integer"),
        (np.float32(5), "integer"),
    ],
)
def test_illegal_action_index_raises(action, message):
    s = AtaxxState()
    with pytest.raises(IllegalActionError, match=message):
        s.apply(action)
    assert s.fen() == START_FEN and s.history == []


def test_numpy_integer_actions_accepted():
    s = AtaxxState()
    s.apply(np.int64(AtaxxState.string_to_action("g2")))
    assert s.fen() == "x5o/7/7/7/7/6x/o5x o 0 1"
    assert s.history == [parse_square("g2")]


def test_every_non_legal_action_is_rejected():
    """Over the whole action space of a few positions: apply succeeds iff the mask says legal."""
    for fen in (START_FEN, X_WALLED, TWO_X, GAPPY, BOTH_STUCK):
        s = AtaxxState(fen)
        mask = s.legal_action_mask()
        for a in range(NUM_ACTIONS):
            c = s.clone()
            if mask[a]:
                c.apply(a)
                assert c.history == [a]
            else:
                with pytest.raises(IllegalActionError):
                    c.apply(a)
                assert c.fen() == fen


def test_error_message_names_the_move():
    with pytest.raises(IllegalActionError, match=r"d4") as info:
        AtaxxState().push("d4")
    assert "illegal action" in str(info.value)


# --------------------------------------------------------------------------- returns, clone, copies
def test_returns_shape_and_values():
    live = AtaxxState()
    r = live.returns()
    assert r.dtype == np.float64 and r.shape == (2,) and r.tolist() == [0.0, 0.0]
    assert AtaxxState("7/7/7/3x3/7/7/7 o 0 1").returns().tolist() == [1.0, -1.0]
    assert AtaxxState("7/7/7/3o3/7/7/7 x 0 1").returns().tolist() == [-1.0, 1.0]
    assert AtaxxState("x5o/7/7/7/7/7/o5x x 100 1").returns().tolist() == [0.0, 0.0]


def test_clone_is_independent():
    s = after(AtaxxState(halfmove_clock=False), "g2", "a1c3")
    c = s.clone()
    assert c == s and c is not s and c.history == s.history and c.halfmove_clock is False
    c.push("a7c5")
    assert s.fen() == "x5o/7/7/7/2o4/6x/6x x 1 2"
    assert c.fen() == "6o/7/2x4/7/2o4/6x/6x o 2 2"
    assert s.history == [parse_square("g2"), AtaxxState.string_to_action("a1c3")]
    assert len(c.history) == 3
    # The original goes on exactly as the clone does.
    s.push("a7c5")
    assert s.fen() == c.fen()


@pytest.mark.parametrize(
    "copier",
    [copy.deepcopy, lambda s: pickle.loads(pickle.dumps(s)), AtaxxState.clone],
    ids=["deepcopy", "pickle", "clone"],
)
def test_copies_continue_identically(copier):
    s = after("x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1", "b6", "g7f5", halfmove_clock=False)
    c = copier(s)
    assert c.fen() == s.fen() and c.halfmove_clock is False and c.history == s.history
    rng = np.random.default_rng(7)
    for _ in range(60):
        if s.is_terminal():
            break
        acts = s.legal_actions()
        assert c.legal_actions() == acts
        a = acts[rng.integers(len(acts))]
        s.apply(a)
        c.apply(a)
        assert c.fen() == s.fen()
    assert c.history == s.history


def test_state_equality():
    assert AtaxxState() == AtaxxState(START_FEN)
    assert AtaxxState() != AtaxxState(halfmove_clock=False)
    assert AtaxxState() != AtaxxState("x5o/7/7/7/7/7/o5x o 0 1")
    assert AtaxxState().__eq__("x") is NotImplemented


def test_shallow_copy_does_not_corrupt_the_original():
    """``copy.copy(state)`` must not share the mutable board list or history with the original.

    Today ``copy.copy`` goes through ``__getstate__``/``__setstate__`` and shares ``_bb`` and
    ``history``: a move on the copy moves the original's stones (but not its side to move), leaving
    the original in a position that never happened (envs/ataxx/state.py: no ``__copy__``).
    """
    s = AtaxxState()
    c = copy.copy(s)
    c.push("g2")
    assert s.fen() == START_FEN
    assert s.history == []
    assert c.fen() == "x5o/7/7/7/7/6x/o5x o 0 1"


def test_notation_is_case_insensitive_and_numpy_ints_are_accepted():
    s = AtaxxState()
    assert s.string_to_action("G2") == s.string_to_action("g2") == 13
    assert s.string_to_action("A1C3") == s.string_to_action("a1c3")
    assert s.perft(np.int64(2)) == 256
    s.apply(np.array(13))  # 0-d integer array, as SB3's predict() returns
    assert s.fen() == "x5o/7/7/7/7/6x/o5x o 0 1"


@pytest.mark.parametrize("bad", [1.7, True, None])
def test_piece_at_and_action_to_string_reject_non_integers(bad):
    s = AtaxxState()
    with pytest.raises(ValueError):
        s.piece_at(bad)
    with pytest.raises(IllegalActionError):
        s.action_to_string(bad)


def test_from_fen_requires_a_string_and_states_have_no_stray_attributes():
    with pytest.raises(InvalidPositionError, match="FEN must be a string"):
        AtaxxState.from_fen(None)
    with pytest.raises(AttributeError):
        AtaxxState().foo = 1
