"""Hand-built TwixT positions for every rule of ``envs/twixt/RULES.md`` (two players), plus the API.

Boards are small (mostly 8x8): columns a-h left to right, rows 1-8 top to bottom; a hole ``c5`` is
column c, row 5, i.e. ``(row, col) = (4, 2)``, action ``4 * 8 + 2``. Red (player 0, ``x``) connects
row 1 to row 8 and may not use columns a and h; black (player 1, ``o``) connects column a to
column h and may not use rows 1 and 8.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from envs.core.state import GameState, IllegalActionError, ParameterError
from envs.twixt import KNIGHT_DIRS, TwixtState, colour_of, column_label, hole_name, parse_hole


def winning_colour(state):
    """0 (red) or 1 (black) when a colour has won, else ``None`` (game on, or a draw)."""
    w = state.winners()
    return w[0] % 2 if len(w) == state.num_players // 2 else None


def play(moves, **kw):
    kw.setdefault("board_size", 8)
    return TwixtState.from_moves(moves, **kw)


def link_set(state):
    """Links as a set of (frozenset of the two hole names, colour)."""
    return {(frozenset((hole_name(*a), hole_name(*b))), c) for a, b, c in state.links()}


def L(a, b, colour):  # noqa: N802 - a link literal for the sets above
    return (frozenset((a, b)), colour)


def snapshot(state):
    return (
        state.clone(),
        list(state.history),
        state.legal_action_mask().copy(),
        state.pegs(),
        state.link_planes(),
        state.current_player,
        state.turn_number,
        str(state),
    )


def assert_unchanged(state, snap):
    clone, history, mask, pegs, planes, player, ply, text = snap
    assert state == clone
    assert state.history == history
    assert np.array_equal(state.legal_action_mask(), mask)
    assert np.array_equal(state.pegs(), pegs)
    assert np.array_equal(state.link_planes(), planes)
    assert state.current_player == player and state.turn_number == ply
    assert str(state) == text


# ---------------------------------------------------------------------------- construction
def test_defaults_and_interface():
    s = TwixtState()
    assert isinstance(s, GameState)
    assert (s.board_size, s.rules, s.swap, s.draw, s.num_players) == (24, "standard", False, "early", 2)
    assert s.num_actions == 24 * 24 + 1
    assert s.current_player == 0 and s.to_move_colour == 0 and s.turn_number == 0
    assert not s.is_terminal() and winning_colour(s) is None
    assert s.returns().dtype == np.float64 and list(s.returns()) == [0.0, 0.0]
    assert s.pegs().dtype == np.int8 and s.pegs().shape == (24, 24) and not s.pegs().any()
    planes = s.link_planes()
    assert planes.dtype == np.uint8 and planes.shape == (2, 8, 24, 24) and not planes.any()
    assert s.links() == [] and s.history == []
    assert not s.swap_available() and not s.privilege_available(0) and not s.privilege_available(1)
    assert s.can_still_connect(0) and s.can_still_connect(1)
    assert [colour_of(p) for p in range(4)] == [0, 1, 0, 1]
    assert len(KNIGHT_DIRS) == 8 and len(set(KNIGHT_DIRS)) == 8
    assert all({abs(dr), abs(dc)} == {1, 2} for dr, dc in KNIGHT_DIRS)
    assert all(KNIGHT_DIRS[(d + 4) % 8] == (-dr, -dc) for d, (dr, dc) in enumerate(KNIGHT_DIRS))


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        (dict(board_size=4), "board_size"),
        (dict(board_size=49), "board_size"),
        (dict(board_size="24"), "board_size"),
        (dict(board_size=24.0), "board_size"),
        (dict(board_size=True), "board_size"),
        (dict(rules="PP"), "rules"),
        (dict(rules=None), "rules"),
        (dict(draw="full"), "draw"),
        (dict(swap="yes"), "swap"),
        (dict(swap=1), "swap"),
        (dict(num_players=3), "num_players"),
        (dict(num_players=2.0), "num_players"),
        (dict(num_players=True), "num_players"),
        (dict(num_players=4, swap=True), "swap"),
    ],
)
def test_bad_constructor_arguments(kwargs, fragment):
    with pytest.raises(ParameterError, match=fragment):
        TwixtState(**kwargs)


def test_board_size_bounds_and_numpy_int():
    assert TwixtState(5).num_actions == 26 and TwixtState(48).num_actions == 48 * 48 + 1
    assert TwixtState(np.int64(10)).board_size == 10
    assert TwixtState(6, num_players=4).num_actions == 2 * 36 + 1


# ---------------------------------------------------------------------------- notation
def test_notation_round_trip_and_frame():
    s = TwixtState(8)
    assert s.string_to_action("a1") == 0 and s.string_to_action("h8") == 63
    assert s.string_to_action("c5") == 4 * 8 + 2
    assert s.string_to_action(" C5 ") == 4 * 8 + 2  # case-insensitive, stripped
    assert s.action_to_string(4 * 8 + 2) == "c5" and s.action_to_string(64) == "swap"
    assert s.string_to_action("SWAP") == 64
    for a in range(s.num_actions):
        assert s.string_to_action(s.action_to_string(a)) == a
    assert parse_hole("c5", 8) == (4, 2) and hole_name(4, 2) == "c5"


def test_notation_beyond_26_columns():
    assert [column_label(i) for i in (0, 25, 26, 27, 51, 52, 47)] == ["a", "z", "aa", "ab", "az", "ba", "av"]
    s = TwixtState(48)
    for a in range(s.num_actions):
        assert s.string_to_action(s.action_to_string(a)) == a
    assert s.action_to_string(47 * 48 + 47) == "av48"
    assert s.string_to_action("aa1") == 26


@pytest.mark.parametrize("text", ["", "c", "5", "c0", "c9", "i1", "c05x", "cc5", "3c", "c 5", "c5!", "pass", None, 5])
def test_malformed_notation(text):
    with pytest.raises(IllegalActionError):
        TwixtState(8).string_to_action(text)


def test_action_to_string_out_of_range():
    with pytest.raises(IllegalActionError, match="out of range"):
        TwixtState(8).action_to_string(65)


# ---------------------------------------------------------------------------- borders and corners
def test_border_ownership():
    s = TwixtState(8)
    mask = s.legal_action_mask()
    # Red: may use its own border rows (1 and 8) but never columns a and h.
    for name in ("b1", "g1", "d8", "c4"):
        assert mask[s.string_to_action(name)] == 1, name
    for name in ("a2", "a7", "h4", "h5"):
        assert mask[s.string_to_action(name)] == 0, name
    s.push("d8")  # red on its own far border row
    mask = s.legal_action_mask()
    # Black: columns a and h yes, rows 1 and 8 never.
    for name in ("a2", "a7", "h4", "c4"):
        assert mask[s.string_to_action(name)] == 1, name
    for name in ("b1", "g1", "c8", "e8"):
        assert mask[s.string_to_action(name)] == 0, name
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match="red's border row"):
        s.push("c1")
    assert_unchanged(s, before)
    s.push("a4")
    with pytest.raises(IllegalActionError, match="black's border column"):
        s.push("h3")


def test_corners_never_legal():
    for size in (5, 8, 24):
        s = TwixtState(size)
        corners = [0, size - 1, size * (size - 1), size * size - 1]
        assert not s.legal_action_mask()[corners].any()
        s.apply(s.legal_actions()[len(s.legal_actions()) // 2])
        assert not s.legal_action_mask()[corners].any()
        with pytest.raises(IllegalActionError, match="corner"):
            s.apply(corners[0])


# ---------------------------------------------------------------------------- links
def test_link_made_between_knight_pegs_and_planes():
    s = play("c3 f4 d5")
    assert link_set(s) == {L("c3", "d5", 0)}
    assert s.has_link((2, 2), (4, 3)) == 0 and s.has_link((4, 3), (2, 2)) == 0
    assert s.has_link((2, 2), (3, 5)) is None
    planes = s.link_planes()
    d = KNIGHT_DIRS.index((2, 1))
    assert planes[0, d, 2, 2] == 1 and planes[0, (d + 4) % 8, 4, 3] == 1
    assert int(planes.sum()) == 2 and not planes[1].any()
    pegs = s.pegs()
    assert pegs[2, 2] == 1 and pegs[4, 3] == 1 and pegs[3, 5] == 2 and int((pegs > 0).sum()) == 3


def test_no_link_between_different_colours_or_non_knight_pegs():
    s = play("c3 d5 d4 f3")  # c3 (red) and d5 (black) are a knight apart: different colours
    assert s.links() == []  # d4 red is not a knight from c3; f3 black not from d5


def test_auto_linking_makes_several_links_at_once():
    # Red c2, e2, c6 are each a knight's move from d4: placing d4 adds three links in one move.
    s = play("c2 g3 e2 g5 c6 b4")
    assert s.links() == []
    s.push("d4")
    assert link_set(s) == {L("c2", "d4", 0), L("e2", "d4", 0), L("d4", "c6", 0)}
    assert len(s.links()) == 3


def test_opponent_link_blocks_in_both_rule_sets():
    # Red c3-d5 (a link), then black c5 and d3: the black link c5-d3 would cross it.
    for rules in ("standard", "pp"):
        s = play("c3 c5 d5 d3", rules=rules)
        assert link_set(s) == {L("c3", "d5", 0)}, rules
        assert s.has_link((4, 2), (2, 3)) is None


def test_own_crossing_links_standard_vs_pp():
    moves = "c3 g2 d5 g4 c5 g6 d3"  # red c3-d5, then red c5 and d3: c5-d3 crosses c3-d5
    std = play(moves, rules="standard")
    pp = play(moves, rules="pp")
    assert link_set(std) == {L("c3", "d5", 0)}
    assert link_set(pp) == {L("c3", "d5", 0), L("c5", "d3", 0)}
    # Crossing own links are not connected where they cross: still two separate groups in pp.
    assert not pp.is_terminal()


def test_unmade_link_is_no_barrier():
    # Black c5 and d3 stay unlinked (red c3-d5 blocks them); red c4-d6 crosses the unmade
    # c5-d3 and is made: a link that was not made is no barrier.
    s = play("c3 c5 d5 d3 c4 g4 d6")
    assert link_set(s) == {L("c3", "d5", 0), L("c4", "d6", 0)}


def test_link_blocked_stays_blocked_later():
    # Black's c5-d3 is blocked by red c3-d5; later black pegs link to c5 but never "repair" c5-d3.
    s = play("c3 c5 d5 d3 f1 b7")
    assert link_set(s) == {L("c3", "d5", 0), L("c5", "b7", 1)}
    assert s.has_link((4, 2), (2, 3)) is None


# ---------------------------------------------------------------------------- win detection
RED_WIN_6 = "c1 a2 d3 a4 c5 f2 e6"  # c1-d3-c5-e6: row 1 to row 6 on a 6x6 board


def test_red_win_6x6():
    s = play(RED_WIN_6, board_size=6)
    assert s.is_terminal() and s.winners() == [0] and str(s.outcome()) == "1-0"
    assert list(s.returns()) == [1.0, -1.0]
    assert s.current_player == -1 and s.to_move_colour == -1
    assert not s.legal_action_mask().any() and s.legal_actions() == []
    assert len(s.links()) == 3
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match="game is over"):
        s.push("d2")
    assert_unchanged(s, before)
    # One move earlier the chain is one link short.
    t = play(RED_WIN_6.rsplit(" ", 1)[0], board_size=6)
    assert not t.is_terminal() and winning_colour(t) is None


def test_black_win_is_the_transposed_game():
    # Transposing every hole of a red win and letting black play it wins for black.
    reds = ["c1", "d3", "c5", "e6"]

    def tr(name):
        r, c = parse_hole(name, 6)
        return hole_name(c, r)

    moves = []
    fillers = ["b2", "d2", "b4", "b6"]  # red moves that make no link
    for f, b in zip(fillers, reds):
        moves += [f, tr(b)]
    s = play(moves, board_size=6)
    assert s.winners() == [1] and str(s.outcome()) == "0-1" and list(s.returns()) == [-1.0, 1.0]
    assert link_set(s) == {L("a3", "c4", 1), L("c4", "e3", 1), L("e3", "f5", 1)}


def test_pegs_on_both_borders_without_links_do_not_win():
    s = play("c1 b2 c6 b4 d3", board_size=6)
    # c1-d3 linked, d3-c6? (2,3)->(5,2) is not a knight step: no chain.
    assert not s.is_terminal()


def test_win_needs_the_links_not_just_the_pegs():
    # The red pegs of RED_WIN_6, but black's link b4-d5 is made before red c5 arrives: red's
    # d3-c5 would cross it and is not made, so the chain is broken.
    s = play("c1 b4 d3 d5 c5 a2 e6", board_size=6)
    assert link_set(s) == {L("c1", "d3", 0), L("b4", "d5", 1), L("a2", "b4", 1), L("c5", "e6", 0)}
    assert s.has_link((2, 3), (4, 2)) is None
    assert s.pegs()[0, 2] == 1 and s.pegs()[5, 4] == 1  # red pegs on both border rows...
    assert not s.is_terminal() and winning_colour(s) is None  # ...but no chain of links


def test_win_detection_matches_flood_fill_in_random_games():
    rng = np.random.default_rng(7)
    for size, rules in [(5, "standard"), (6, "pp"), (8, "standard"), (10, "pp")]:
        for _ in range(40):
            s = TwixtState(size, rules=rules, draw="board_full")
            while True:
                assert _flood_winner(s) == winning_colour(s)
                if s.is_terminal():
                    break
                la = s.legal_actions()
                s.apply(la[rng.integers(len(la))])


def _flood_winner(s):
    size = s.board_size
    adj = {}
    for a, b, c in s.links():
        adj.setdefault((a, c), []).append(b)
        adj.setdefault((b, c), []).append(a)
    for colour in (0, 1):
        pegs = s.pegs()
        start = (
            [(0, c) for c in range(size) if pegs[0, c] == 1]
            if colour == 0
            else [(r, 0) for r in range(size) if pegs[r, 0] == 2]
        )
        seen = set(start)
        todo = list(start)
        while todo:
            h = todo.pop()
            if (colour == 0 and h[0] == size - 1) or (colour == 1 and h[1] == size - 1):
                return colour
            for nb in adj.get((h, colour), []):
                if nb not in seen:
                    seen.add(nb)
                    todo.append(nb)
    return None


# ---------------------------------------------------------------------------- swap
def test_swap_transposes_and_red_moves_again():
    s = TwixtState(8, swap=True)
    assert not s.swap_available() and s.legal_action_mask()[64] == 0
    with pytest.raises(IllegalActionError, match="second ply"):
        s.push("swap")
    s.push("b4")  # (3, 1)
    assert s.swap_available() and s.legal_action_mask()[64] == 1 and 64 in s.legal_actions()
    assert "swap" in s.legal_moves()
    s.push("swap")
    pegs = s.pegs()
    assert pegs[3, 1] == 0 and pegs[1, 3] == 2 and int((pegs > 0).sum()) == 1  # black peg on d2
    assert s.turn_number == 2 and s.current_player == 0 and s.to_move_colour == 0
    assert s.history == [3 * 8 + 1, 64] and s.moves() == ["b4", "swap"]
    assert not s.swap_available() and s.legal_action_mask()[64] == 0
    assert s.legal_action_mask()[3 * 8 + 1] == 1  # b4 is free again
    assert s.legal_action_mask()[1 * 8 + 3] == 0  # d2 is taken
    s.push("e5")
    assert s.current_player == 1
    with pytest.raises(IllegalActionError, match="second ply"):
        s.push("swap")


def test_swap_of_a_border_peg_lands_on_blacks_border():
    s = play("c1 swap", swap=True)  # red c1 (0, 2) -> black a3 (2, 0), on black's own border column
    assert s.pegs()[2, 0] == 2 and s.peg_at(0, 2) == 0
    t = play("c1 swap e4 c4", swap=True)
    assert link_set(t) == {L("a3", "c4", 1)}


def test_swap_off_or_declined():
    s = play("b4")
    assert not s.swap_available()
    with pytest.raises(IllegalActionError, match="swap=False"):
        s.push("swap")
    t = play("b4 e5", swap=True)  # black declines by placing
    assert not t.swap_available() and t.current_player == 0
    with pytest.raises(IllegalActionError):
        t.push("swap")


def test_swap_then_links_form_normally():
    s = play("b4 swap c5 f3 d7", swap=True)  # red c5 and d7 link; black d2 and f3 link
    assert link_set(s) == {L("c5", "d7", 0), L("d2", "f3", 1)}


# ---------------------------------------------------------------------------- illegal actions
@pytest.mark.parametrize(
    "action, fragment",
    [
        (-1, "out of range"),
        (65, "out of range"),
        (True, "integer"),
        (3.0, "integer"),
        ("c3", "integer"),
        (None, "integer"),
    ],
)
def test_bad_action_values(action, fragment):
    s = play("c3 f4")
    before = snapshot(s)
    with pytest.raises(IllegalActionError, match=fragment):
        s.apply(action)
    assert_unchanged(s, before)


def test_illegal_moves_leave_state_unchanged():
    s = play("c3 f4 d5")
    for move, fragment in [
        ("c3", "already holds a red peg"),
        ("f4", "already holds a black peg"),
        ("a1", "corner"),
        ("h8", "corner"),
        ("d1", "red's border row"),
        ("swap", "swap=False"),
    ]:
        before = snapshot(s)
        with pytest.raises(IllegalActionError, match=fragment):
            s.push(move)
        assert_unchanged(s, before)
    assert s.current_player == 1
    s.push("a4")
    assert s.current_player == 0


def test_numpy_integer_actions_accepted():
    s = TwixtState(8)
    s.apply(np.int64(19))
    s.apply(np.int32(29))
    assert s.history == [19, 29]


# ---------------------------------------------------------------------------- pickle, eq
# (clone equality and independence: tests/envs/test_contract.py::test_clone_equality_and_independence)
@pytest.mark.parametrize(
    "kw",
    [
        dict(draw="early"),
        dict(draw="board_full", rules="pp"),
        dict(num_players=4),
        dict(swap=True, draw="early", rules="pp"),
    ],
)
def test_pickle_round_trip_continues_identically(kw):
    rng = np.random.default_rng(11)
    s = TwixtState(10, **kw)
    for _ in range(15):
        la = s.legal_actions()
        s.apply(la[rng.integers(len(la))])
    t = pickle.loads(pickle.dumps(s))
    assert t == s and repr(t) == repr(s) and str(t) == str(s)
    assert t.can_still_connect(0) == s.can_still_connect(0) and t.can_still_connect(1) == s.can_still_connect(1)
    while not s.is_terminal():
        assert np.array_equal(s.legal_action_mask(), t.legal_action_mask())
        la = s.legal_actions()
        a = la[rng.integers(len(la))]
        s.apply(a)
        t.apply(a)
        assert t == s
    assert t.is_terminal() and list(t.returns()) == list(s.returns())


def test_eq_is_about_the_position():
    a = play("c3 f4 d5 b6")
    b = play("d5 b6 c3 f4")  # same pegs and links, other order
    assert a == b
    assert a != play("c3 f4 d5 b6", rules="pp")
    assert a != play("c3 f4 d5")
    assert (a == "c3") is False


def test_repr_and_str():
    s = play("c3 f4 d5", rules="pp")
    assert repr(s) == "TwixtState.from_moves('c3 f4 d5', board_size=8, rules='pp', swap=False, draw='early')"
    assert eval(repr(s), {"TwixtState": TwixtState}) == s
    text = str(s)
    lines = text.splitlines()
    assert lines[0].split() == list("abcdefgh")
    assert lines[3].split() == ["3", ".", ".", "x", ".", ".", ".", ".", ".", "3"]
    assert lines[1].split() == ["1", ".", ".", ".", ".", ".", ".", "1"]  # corners are blank
    assert "red (x) links: c3-d5" in text and "black (o) links: none" in text
    assert lines[-1] == "ply 3: black (player 1) to move"
    w = play(RED_WIN_6, board_size=6)
    assert str(w).splitlines()[-1] == "game over after 7 plies: red won (1-0)"


# ---------------------------------------------------------------------------- frames (environment hooks)
def test_agent_frames_transpose_for_black():
    s = play("c3")
    assert s.team_of(0) == 0 and s.team_of(1) == 1
    a = s.string_to_action("f4")  # (3, 5)
    assert s.to_state_action(0, a) == a
    assert s.to_state_action(1, 5 * 8 + 3) == a  # black's (5, 3) is the board's (3, 5)
    assert s.to_agent_action(1, a) == 5 * 8 + 3
    assert s.to_state_action(1, 64) == 64
    mask = s.agent_action_mask(1)
    board = s.legal_action_mask()
    for act in range(64):
        assert mask[act] == board[s.to_state_action(1, act)]
    # In its own frame black may not use columns a and h (its borders are now rows 1 and 8).
    grid = mask[:64].reshape(8, 8)
    assert not grid[:, 0].any() and not grid[:, 7].any() and grid[0, 1:7].all()


def test_mask_matches_empty_legal_holes_in_random_games():
    rng = np.random.default_rng(5)
    for rules in ("standard", "pp"):
        s = TwixtState(9, rules=rules, swap=True)
        while not s.is_terminal():
            mask = s.legal_action_mask()
            pegs = s.pegs().ravel()
            colour = s.to_move_colour
            for a in range(81):
                r, c = divmod(a, 9)
                corner = r in (0, 8) and c in (0, 8)
                border = (c in (0, 8)) if colour == 0 else (r in (0, 8))
                assert mask[a] == int(pegs[a] == 0 and not corner and not border)
            assert mask[81] == int(s.swap_available())
            assert s.legal_actions() == list(np.flatnonzero(mask))
            la = s.legal_actions()
            s.apply(la[rng.integers(len(la))])
