"""Tantrix rules on hand-built positions (``TantrixState.from_position``), one test per rule.

Positions are found by a small search (:func:`solve`) over the tile set so that every touching
edge matches; each test then states its geometry explicitly and checks the legality verdicts
(and the reasons given) of the rules core, cross-checked with the brute-force checker.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_tantrix_properties import DIRS, brute_placements, position_violations, rotated

from envs import IllegalActionError, InvalidPositionError, ParameterError
from envs.tantrix import TantrixState, fitting_tiles, format_move

ALL = set(range(1, 57))


def nb(c, d):
    return (c[0] + DIRS[d][0], c[1] + DIRS[d][1])


def solve(cells, require=None, used=(), accept=None, board=None):
    """First assignment ``[(tile, q, r, rot)]`` of distinct tiles to ``cells`` (in order) with
    matching edges, ``require[cell] = {edge: colour}`` honoured, no restriction broken, and
    ``accept(assignment)`` true."""
    require = require or {}
    board = dict(board or {})
    used = set(used)
    out = []

    def rec(i):
        if i == len(cells):
            return accept is None or accept(out)
        c = cells[i]
        need = dict(require.get(c, {}))
        for d in range(6):
            n = nb(c, d)
            if n in board:
                need[d] = board[n][(d + 3) % 6]
        for t, k in fitting_tiles(need):
            if t in used:
                continue
            board[c] = rotated(t, k)
            if not position_violations(board):
                used.add(t)
                out.append((t, c[0], c[1], k))
                if rec(i + 1):
                    return True
                out.pop()
                used.discard(t)
            del board[c]
        return False

    assert rec(0), "no position found"
    return list(out)


def edges_of(assign):
    return {(q, r): rotated(t, k) for t, q, r, k in assign}


def fits_at(board, cell, tiles, extra=None):
    need = dict(extra or {})
    for d in range(6):
        n = nb(cell, d)
        if n in board:
            need[d] = board[n][(d + 3) % 6]
    return [(t, k) for t, k in fitting_tiles(need) if t in tiles]


def rule1_ok(board, cell, e):
    """Whether a tile showing edges ``e`` on ``cell`` keeps restriction 1 (no hex with three
    same-coloured edges)."""
    b = dict(board)
    b[cell] = e
    for d in range(6):
        h = nb(cell, d)
        if h in b:
            continue
        cols = [b[n][(j + 3) % 6] for j in range(6) if (n := nb(h, j)) in b]
        if any(cols.count(x) >= 3 for x in "RYBG"):
            return False
    return True


def rest(*groups):
    used = set()
    for g in groups:
        used |= {x if isinstance(x, int) else x[0] for x in g}
    return sorted(ALL - used)


# ---------------------------------------------------------------- setup and basic placement
def test_setup_highest_tile_starts_and_hands_of_six():
    for seed in range(20):
        s = TantrixState(3, seed=seed)
        bag = s.initial_bag
        first = bag[:3]
        assert s.current_player == int(np.argmax(first))
        for p in range(3):
            assert s.hand(p) == [first[p]] + bag[3 + 5 * p : 8 + 5 * p]
        assert s.bag_size == 56 - 18
        assert {q_r for _, q_r in [(0, (q, r)) for _, q, r, _ in s.placements()]} == {(0, 0)}
        assert len(s.legal_actions()) == 36  # six tiles x six rotations on the centre


def test_seeded_bag_and_explicit_bag():
    a = TantrixState(2, rng=np.random.default_rng(5))
    b = TantrixState(2, rng=np.random.default_rng(5))
    assert a.initial_bag == b.initial_bag and sorted(a.initial_bag) == list(range(1, 57))
    c = TantrixState(2, bag=a.initial_bag)
    assert c.position_key() == a.position_key()


def test_bad_arguments_raise_parameter_error():
    for kw, msg in [
        (dict(num_players=5), "num_players"),
        (dict(num_players=2, teams=True), "teams"),
        (dict(num_players=2, colors=("red", "red")), "distinct"),
        (dict(num_players=2, colors=("red", "pink")), "unknown colour"),
        (dict(num_players=3, colors=("red", "blue")), "one per player"),
        (dict(num_players=2, window_radius=2), "window_radius"),
        (dict(num_players=2, bag=[1, 2, 3]), "bag"),
        (dict(num_players=2, rng=42), "rng"),
    ]:
        with pytest.raises(ParameterError, match=msg):
            TantrixState(**kw)


@pytest.mark.parametrize(
    "kw, msg",
    [
        (dict(seed=-1), r"seed must be an int >= 0 \(or None\), got -1"),
        (dict(seed="a"), r"seed must be an int >= 0 \(or None\), got 'a'"),
        (dict(seed=1.5), r"seed must be an int >= 0 \(or None\), got 1\.5"),
        (dict(seed=True), r"seed must be an int >= 0 \(or None\), got True"),
        (dict(seed=1, rng=np.random.default_rng(1)), r"give either seed= or rng=, not both"),
    ],
)
def test_bad_seed_raises_parameter_error(kw, msg):
    with pytest.raises(ParameterError, match=msg):
        TantrixState(2, **kw)


def test_seed_equals_default_rng_of_that_seed():
    assert TantrixState(3, seed=9).initial_bag == TantrixState(3, rng=np.random.default_rng(9)).initial_bag
    assert TantrixState(3, seed=np.int64(9)).initial_bag == TantrixState(3, seed=9).initial_bag


def test_colours_and_teams():
    s = TantrixState(4, teams=True, colors=("green", "blue"), seed=0)
    assert [s.team_of(p) for p in range(4)] == [0, 1, 0, 1]
    assert [s.colour_of(p) for p in range(4)] == [4, 3, 4, 3]
    s = TantrixState(3, colors="GBY", seed=0)
    assert [s.colour_of(p) for p in range(3)] == [4, 3, 2]
    assert [TantrixState(2, seed=0).colour_of(p) for p in range(2)] == [1, 2]


def test_illegal_actions_raise_and_leave_state_unchanged():
    s = TantrixState(2, seed=1)
    key = s.position_key()
    hand = s.hand(s.current_player)
    with pytest.raises(IllegalActionError, match="touches no tile|first tile"):
        s.push(format_move(hand[0], 1, 0, 0))
    with pytest.raises(IllegalActionError, match="out of range"):
        s.apply(s.num_actions)
    with pytest.raises(IllegalActionError, match="not in player"):
        s.push(format_move(rest(hand)[0], 0, 0, 0))
    with pytest.raises(IllegalActionError, match="not a Tantrix move"):
        s.string_to_action("banana")
    assert s.position_key() == key
    s.push(format_move(hand[0], 0, 0, 0))
    # a colour mismatch on a touching edge
    p = s.current_player
    t0 = s.tile_at(0, 0)
    board = {(0, 0): rotated(*t0)}
    for t in s.hand(p):
        for k in range(6):
            if rotated(t, k)[4] != board[(0, 0)][1]:
                key = s.position_key()
                with pytest.raises(IllegalActionError, match="edge 4 shows"):
                    s.push(format_move(t, 1, 0, k))
                assert s.position_key() == key
                return
    pytest.fail("no mismatching tile found")


def test_notation_round_trip():
    s = TantrixState(2, seed=3)
    for a in s.legal_actions():
        text = s.action_to_string(a)
        assert s.string_to_action(text) == a
        assert text.startswith("t") and "@0,0r" in text
    assert s.string_to_action(f" t{s.hand(s.current_player)[1]} @ (0, 0) r 2") == s.encode(1, 2, 0, 0)


def test_notation_accepts_plus_signs_and_prints_none():
    from envs.tantrix.state import parse_move

    assert parse_move("t47@+0,+0r0") == (47, 0, 0, 0)
    assert parse_move("t47@(+3, -2)r5") == (47, 3, -2, 5)
    assert format_move(47, 3, 0, 5) == "t47@3,0r5"
    s = TantrixState(2, seed=3)
    t = s.hand(s.current_player)[0]
    assert s.string_to_action(f"t{t}@+0,+0r1") == s.string_to_action(f"t{t}@0,0r1")
    assert all("+" not in m for m in s.legal_moves())
    for bad in ("t47@++0,0r0", "t47@+-1,0r0", "t47@+,0r0"):
        with pytest.raises(IllegalActionError, match="is not a Tantrix move: expected t<tile>@<q>,<r>r<rot>"):
            parse_move(bad)


# ---------------------------------------------------------------- restriction 1
def _r1_position():
    """A on (0,0) and B on (1,-1) both show colour X into the empty hex H = (1,0)."""
    H = (1, 0)

    def ok(out):
        b = edges_of(out)
        return b[(0, 0)][1] == b[(1, -1)][2]

    assign = solve([(0, 0), (1, -1)], accept=ok)
    X = edges_of(assign)[(0, 0)][1]
    return assign, H, X


def test_restriction_1_rejects_a_third_edge_of_the_same_colour():
    assign, H, X = _r1_position()
    board = edges_of(assign)
    C = (0, 1)  # touches A and H; its edge 0 faces H
    pool = rest(assign)
    bad = [(t, k) for t, k in fits_at(board, C, pool) if rotated(t, k)[0] == X]
    good = [(t, k) for t, k in fits_at(board, C, pool) if rotated(t, k)[0] != X]
    assert bad and good
    hand = [bad[0][0]] + [t for t, _ in good if t != bad[0][0]][:1]
    s = TantrixState.from_position(tiles=assign, hands=[hand, []], bag=rest(assign, hand)[:10], phase="free")
    legal = set(s.placements())
    assert (good[0][0], C[0], C[1], good[0][1]) in legal or hand[1] != good[0][0]
    assert not any(rotated(t, k)[0] == X for t, q, r, k in legal if (q, r) == C)
    with pytest.raises(IllegalActionError, match="restriction 1"):
        s.push(format_move(bad[0][0], C[0], C[1], bad[0][1]))
    assert legal == brute_placements(s)[0]


# ---------------------------------------------------------------- restriction 2
def test_restriction_2_rejects_a_fourth_neighbour():
    H = (1, 0)
    assign = solve([(0, 0), (1, -1), (2, -1)])  # H now has three neighbours (a forced space)
    board = edges_of(assign)
    into_h = [board[(0, 0)][1], board[(1, -1)][2], board[(2, -1)][3]]
    E = (2, 0)  # touches (2,-1) and H
    pool = rest(assign)
    cand = [(t, k) for t, k in fits_at(board, E, pool) if into_h.count(rotated(t, k)[4]) < 2]
    free = [(t, k) for t, k in fits_at(board, (0, -1), pool)]
    hand = [cand[0][0]] + [t for t, _ in free if t != cand[0][0]][:1]
    s = TantrixState.from_position(tiles=assign, hands=[hand, []], bag=rest(assign, hand)[:10], phase="free")
    assert s.forced_spaces() == [H]
    with pytest.raises(IllegalActionError, match="restriction 2"):
        s.push(format_move(cand[0][0], E[0], E[1], cand[0][1]))
    cells = {(q, r) for _, q, r, _ in s.placements()}
    assert E not in cells and (0, -1) in cells  # a placement away from H is fine
    assert set(s.placements()) == brute_placements(s)[0]


# ---------------------------------------------------------------- restriction 3: controlled side
def test_controlled_side_along_a_straight_edge_of_six_tiles():
    row = [(q, 0) for q in range(6)]
    cells = row + [(-1, 0), (-1, -1)]
    assign = solve(cells)
    s0 = TantrixState.from_position(tiles=assign, hands=[[], []], bag=[], phase="free")
    assert s0.forced_spaces() == [(0, -1)]  # the forced space at one end of the edge
    board = edges_of(assign)
    pool = rest(assign)
    edge_hexes = [(q, -1) for q in range(1, 7)]
    for target in edge_hexes + [(6, 0)]:
        fits = [(t, k) for t, k in fits_at(board, target, pool) if rule1_ok(board, target, rotated(t, k))]
        assert fits, target
        t, k = fits[0]
        s = TantrixState.from_position(
            tiles=assign, hands=[[t], [pool[-1]]], bag=[x for x in pool if x not in (t, pool[-1])][:5], phase="free"
        )
        cells_legal = {(q, r) for _, q, r, _ in s.placements()}
        if target == (6, 0):
            assert (t, 6, 0, k) in s.placements()  # extending the row is fine
        else:
            assert target not in cells_legal
            with pytest.raises(IllegalActionError, match="restriction [23]"):
                s.push(format_move(t, target[0], target[1], k))
        assert set(s.placements()) == brute_placements(s)[0]
    # every hex along the edge but the first (next to the forced space) is rule 3 alone
    checked = 0
    for q in range(2, 7):
        fits = [(t, k) for t, k in fits_at(board, (q, -1), pool) if rule1_ok(board, (q, -1), rotated(t, k))]
        t, k = fits[0]
        s = TantrixState.from_position(tiles=assign, hands=[[t], []], bag=[x for x in pool if x != t][:5], phase="free")
        with pytest.raises(IllegalActionError, match="restriction 3"):
            s.push(format_move(t, q, -1, k))
        checked += 1
    assert checked == 5


# ---------------------------------------------------------------- forced moves
def _forced_c_position():
    """A (0,0) and B (1,-1) show X into H = (1,0); P (-1,1), Q (-1,2) make C = (0,1) a forced
    space (neighbours A, P, Q) whose edge 0 faces H. Some fills of C show X towards H (restriction
    1), others do not."""
    C = (0, 1)

    def ok(out):
        b = edges_of(out)
        if b[(0, 0)][1] != b[(1, -1)][2]:
            return False
        X = b[(0, 0)][1]
        f = fits_at(b, C, rest(out))
        return any(rotated(t, k)[0] == X for t, k in f) and any(rotated(t, k)[0] != X for t, k in f)

    assign = solve([(0, 0), (1, -1), (-1, 1), (-1, 2)], accept=ok)
    board = edges_of(assign)
    X = board[(0, 0)][1]
    fits = fits_at(board, C, rest(assign))
    bad = sorted({t for t, k in fits if rotated(t, k)[0] == X} - {t for t, k in fits if rotated(t, k)[0] != X})
    good = sorted({t for t, k in fits if rotated(t, k)[0] != X})
    return assign, board, C, X, bad, good


def test_forced_fill_that_breaks_a_restriction_is_not_offered():
    assign, board, C, X, bad, good = _forced_c_position()
    assert bad and good
    nofit = [t for t in rest(assign) if not fits_at(board, C, [t])]
    hand = [bad[0], good[0]] + nofit[:4]
    s = TantrixState.from_position(tiles=assign, hands=[hand, nofit[4:10]], bag=nofit[10:20], phase="forced_before")
    assert s.forced_spaces() == [C] and s.phase == "forced_before" and s.current_player == 0
    legal = s.placements()
    assert legal and {(q, r) for _, q, r, _ in legal} == {C}
    assert all(t == good[0] and rotated(t, k)[0] != X for t, _, _, k in legal)
    assert set(legal) == brute_placements(s)[0]
    # with only restriction-breaking fills in hand, there is no forced move: the free move follows
    s2 = TantrixState.from_position(
        tiles=assign, hands=[[bad[0]] + nofit[:5], nofit[5:11]], bag=nofit[11:20], phase="forced_before"
    )
    assert s2.phase == "free" and s2.current_player == 0
    assert C not in {(q, r) for _, q, r, _ in s2.placements()}


def test_free_move_is_compulsory_and_forced_moves_follow_it():
    assign, board, C, X, bad, good = _forced_c_position()
    without_q = assign[:3]
    q_tile = assign[3]
    nofit = [t for t in rest(assign) if not fits_at(board, C, [t])]
    hand = [q_tile[0], good[0]] + nofit[:4]
    s = TantrixState.from_position(tiles=without_q, hands=[hand, nofit[4:10]], bag=nofit[10:20])
    # no forced space yet: the turn starts with the free move, which cannot be skipped
    assert s.phase == "free" and s.current_player == 0 and s.forced_spaces() == []
    assert len(s.legal_actions()) > 0 and s.num_actions == 36 * 33 * 33
    s.push(format_move(*q_tile))  # the free move makes C a forced space
    assert s.current_player == 0 and s.phase == "forced_after"
    assert C in s.forced_spaces()
    legal = s.placements()
    assert {(q, r) for _, q, r, _ in legal} <= set(s.forced_spaces()) and any((q, r) == C for _, q, r, _ in legal)
    t, q, r, k = next(m for m in legal if (m[1], m[2]) == C)
    s.push(format_move(t, q, r, k))
    # the drawn tile replaced the placed one in its slot
    assert t == good[0] and s.hand(0)[0] == nofit[10] and s.hand(0)[1] == nofit[11]
    if s.current_player == 0:
        assert s.phase == "forced_after"
    else:
        assert s.current_player == 1 and s.phase in ("forced_before", "free")


def test_restrictions_lapse_mid_turn_when_the_bag_empties():
    assign, board, C, X, bad, good = _forced_c_position()
    pool = [t for t in rest(assign) if t not in (bad[0],)]
    hand = [bad[0]] + pool[:5]
    last = pool[5]
    s = TantrixState.from_position(tiles=assign, hands=[hand, pool[6:12]], bag=[last], phase="free")
    assert s.restrictions_active
    bad_moves = [m for m in s.placements() if (m[1], m[2]) == C and m[0] == bad[0]]
    assert not bad_moves
    # a free move away from C and H; drawing the last tile lifts the restrictions at once
    move = next(
        m
        for m in s.placements()
        if m[0] != bad[0]
        and max(abs(m[1] - 0), abs(m[2] - 1), abs(m[1] + m[2] - 1)) >= 2
        and max(abs(m[1] - 1), abs(m[2]), abs(m[1] + m[2] - 1)) >= 2
    )
    s.push(format_move(*move))
    assert s.bag_size == 0 and not s.restrictions_active
    assert s.current_player == 0 and s.phase == "forced_after"
    assert any(m[0] == bad[0] and (m[1], m[2]) == C and rotated(m[0], m[3])[0] == X for m in s.placements())
    assert set(s.placements()) == brute_placements(s)[0]


# ---------------------------------------------------------------- deadlock, skipping, end
def test_deadlock_before_the_bag_is_empty_is_a_draw():
    assign = solve([(0, 0), (1, 0)])
    pool = rest(assign)
    s = TantrixState.from_position(tiles=assign, hands=[[], pool[:6]], bag=pool[6:10], phase="forced_before")
    assert s.is_terminal() and s.deadlock and str(s.outcome()) == "deadlock draw"
    assert s.current_player == -1 and (s.returns() == 0).all() and s.legal_action_mask().sum() == 0


def test_end_phase_skips_a_player_who_cannot_place():
    assign = solve([(0, 0), (1, 0)])
    pool = rest(assign)
    s = TantrixState.from_position(tiles=assign, hands=[[], pool[:2], [pool[2]]], bag=[], phase="forced_before")
    assert not s.is_terminal() and s.current_player == 1  # player 0 skipped
    while not s.is_terminal():
        assert s.current_player != 0
        s.apply(s.legal_actions()[0])
    assert len(s.placed) == 5 and not s.deadlock


def test_game_ends_when_nobody_can_place():
    """Window of radius 4 in random play: tiles left that fit nowhere inside end the game."""
    rng = np.random.default_rng(5)
    s = TantrixState(2, window_radius=4, rng=np.random.default_rng(1005))
    while not s.is_terminal():
        legal = s.legal_actions()
        s.apply(legal[rng.integers(len(legal))])
    assert len(s.placed) < 56 and not s.deadlock and s.bag_size == 0
    assert any(t != -1 for p in range(2) for t in s.hand(p))


# ---------------------------------------------------------------- scoring
def _ring(centre, radius):
    cells = {
        (centre[0] + q, centre[1] + r)
        for q in range(-radius, radius + 1)
        for r in range(-radius, radius + 1)
        if max(abs(q), abs(r), abs(q + r)) == radius
    }
    order = [(0, 0)]
    while len(order) < len(cells):
        cur = order[-1]
        order.append(next(n for d in range(6) if (n := nb(cur, d)) in cells and n not in order))
    return order


def _path_solve(cells, colour, closed, used=(), board=None, avoid_first=None):
    """Tiles for ``cells`` whose ``colour`` lines join consecutive cells (and last to first if
    ``closed``); edges match; distinct tiles."""
    board = dict(board or {})
    used = set(used)
    out = []
    n = len(cells)

    def dir_to(a, b):
        return next(d for d in range(6) if nb(a, d) == b)

    def rec(i):
        if i == n:
            return True
        c = cells[i]
        ends = set()
        if i > 0 or closed:
            ends.add(dir_to(c, cells[i - 1]))
        if i < n - 1 or closed:
            ends.add(dir_to(c, cells[(i + 1) % n]))
        need = {}
        for d in range(6):
            m = nb(c, d)
            if m in board:
                need[d] = board[m][(d + 3) % 6]
        for t, k in fitting_tiles(need):
            if t in used:
                continue
            e = rotated(t, k)
            if not all(e[d] == colour for d in ends):
                continue
            if i == 0 and avoid_first is not None and e[avoid_first] == colour:
                continue
            board[c] = e
            used.add(t)
            out.append((t, c[0], c[1], k))
            if rec(i + 1):
                return True
            out.pop()
            used.discard(t)
            del board[c]
        return False

    assert rec(0)
    return out


def _line_solve(start, length, colour, used, board, avoid_first, attempts=5000):
    """A ``colour`` line of ``length`` tiles from ``start`` (a snake; every touching edge
    matches, so the line's colour joins only consecutive tiles), its first tile showing no
    ``colour`` on edge ``avoid_first``. Random walks with restarts (seeded): bounded time."""
    rng = np.random.default_rng(0)
    for _ in range(attempts):
        b = dict(board)
        u = set(used)
        out = []
        c, came_from = start, None
        while len(out) < length:
            last = len(out) == length - 1
            need = {d: b[m][(d + 3) % 6] for d in range(6) if (m := nb(c, d)) in b}
            steps = [None] if last else [d for d in range(6) if nb(c, d) not in b]
            options = []
            for nxt in steps:
                for t, k in fitting_tiles(need):
                    e = rotated(t, k)
                    if t in u or (came_from is not None and e[came_from] != colour):
                        continue
                    if (nxt is not None and e[nxt] != colour) or (came_from is None and e[avoid_first] == colour):
                        continue
                    options.append((nxt, t, k))
            if not options:
                break
            nxt, t, k = options[int(rng.integers(len(options)))]
            b[c] = rotated(t, k)
            u.add(t)
            out.append((t, c[0], c[1], k))
            if nxt is not None:
                c, came_from = nb(c, nxt), (nxt + 3) % 6
        if len(out) == length:
            return out
    raise AssertionError("no line found")


def test_scoring_12_tile_loop_beats_23_tile_line():
    ring = _ring((-2, 0), 2)
    assert len(ring) == 12
    loop = _path_solve(ring, "R", closed=True)
    # a yellow line of 23 tiles snaking away from the loop, touching nothing but its own
    # neighbours and, at its start, one loop tile (on an edge that is not yellow)
    board = edges_of(loop)
    inner = {(-2 + q, r) for q in range(-1, 2) for r in range(-1, 2) if abs(q + r) <= 1}
    start, toward = next(
        (c, d)
        for c in sorted({nb(x, d) for x in board for d in range(6)} - set(board) - inner)
        for d in range(6)
        if sum(nb(c, j) in board for j in range(6)) == 1 and nb(c, d) in board and board[nb(c, d)][(d + 3) % 6] != "Y"
    )
    line = _line_solve(start, 23, "Y", used={t for t, *_ in loop}, board=board, avoid_first=toward)
    tiles = loop + line
    s = TantrixState.from_position(tiles=tiles, hands=[[], []], bag=[], window_radius=24, colors=("red", "yellow"))
    assert s.is_terminal()
    assert s.colour_score(1)[1] == 12  # red loop of 12 tiles
    assert s.colour_score(2)[0] == 23  # yellow line of 23 tiles
    assert s.scores() == [24, 23]
    assert list(s.returns()) == [1.0, -1.0] and str(s.outcome()) == "player 0 won"
    # the same table with the colours swapped: yellow's line of 23 loses to red's loop
    s2 = TantrixState.from_position(tiles=tiles, hands=[[], []], bag=[], window_radius=24, colors=("yellow", "red"))
    assert s2.scores() == [23, 24] and list(s2.returns()) == [-1.0, 1.0]


def test_scoring_lines_and_ties():
    tile = 1  # YBRBRY: missing green
    s = TantrixState.from_position(tiles=[(tile, 0, 0, 0)], hands=[[], [], []], bag=[], colors="RYG")
    assert s.is_terminal() and s.scores() == [1, 1, 0]
    assert list(s.returns()) == [0.0, 0.0, -1.0] and str(s.outcome()) == "draw"
    # a line of two red tiles
    assign = solve([(0, 0), (1, 0)], accept=lambda out: edges_of(out)[(0, 0)][1] == "R")
    s = TantrixState.from_position(tiles=assign, hands=[[], []], bag=[], colors="RY")
    assert s.colour_score(1) == (2, 0) and s.scores()[0] == 2


def test_teams_share_results():
    assign = solve([(0, 0), (1, 0)], accept=lambda out: edges_of(out)[(0, 0)][1] == "R")
    s = TantrixState.from_position(tiles=assign, hands=[[], [], [], []], bag=[], teams=True, colors=("red", "green"))
    sc = s.scores()
    assert sc[0] == sc[2] == 2 and sc[1] == sc[3]
    r = s.returns()
    assert r[0] == r[2] and r[1] == r[3] and r[0] == (1.0 if sc[0] > sc[1] else 0.0 if sc[0] == sc[1] else -1.0)


def test_from_position_validation():
    assign = solve([(0, 0), (1, 0)])
    with pytest.raises(InvalidPositionError, match="first tile"):
        TantrixState.from_position(tiles=[(assign[0][0], 1, 0, 0)], hands=[[], []])
    with pytest.raises(InvalidPositionError, match="twice"):
        TantrixState.from_position(tiles=assign, hands=[[assign[0][0]], []])
    t, q, r, k = assign[1]
    with pytest.raises(InvalidPositionError, match="touches no"):
        TantrixState.from_position(tiles=[assign[0], (t, 3, 0, k)], hands=[[], []])
    bad_rot = next(j for j in range(6) if rotated(t, j)[4] != rotated(assign[0][0], assign[0][3])[1])
    with pytest.raises(InvalidPositionError, match="colours"):
        TantrixState.from_position(tiles=[assign[0], (t, 1, 0, bad_rot)], hands=[[], []])
    with pytest.raises(InvalidPositionError, match="phase"):
        TantrixState.from_position(tiles=assign, hands=[[], []], phase="later")


@pytest.mark.parametrize(
    "seed, tiles, broken",
    [
        (0, 53, "restriction 1 at (2, 3)"),  # a hex into which three edges of one colour lead
        (4, 52, "restriction 2 at (-1, 4)"),  # a hex bordered by four tiles
    ],
)
def test_a_position_breaking_a_restriction_is_refused_while_the_bag_has_tiles(seed, tiles, broken):
    """Decision (RULES.md, 'Positions given by hand'): such a table cannot arise while the bag has
    tiles (every placement then keeps the restrictions), so from_position refuses it; with an empty
    bag the restrictions are off and the same table is a legal start."""
    from conftest import play_random

    table = list(play_random(TantrixState(2, seed=seed), seed).placed)[:tiles]  # late tiles: bag already empty
    free = sorted(set(range(1, 57)) - {t for t, *_ in table})
    start = TantrixState.from_position(tiles=table, hands=[[free[0]], [free[1]]], bag=[], phase="free")
    assert broken in start.violations() and not start.restrictions_active
    with pytest.raises(
        InvalidPositionError,
        match=r"the table breaks the restrictions while the bag still has tiles \(.*" + re.escape(broken),
    ):
        TantrixState.from_position(tiles=table, hands=[[free[0]], [free[1]]], bag=free[2:5], phase="free")
