"""Smartrix rules core: the deck, hand-built positions for every rule of ``envs/smartrix/RULES.md``.

Positions are built with :meth:`SmartrixState.from_position`; :func:`solve` finds distinct cards
(and rotations) that match on a given set of squares, so a test only states the shape it needs.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from envs import IllegalActionError, InvalidPositionError, ParameterError
from envs.smartrix import CARD_PATTERNS, CARD_SQUARES, CARD_VALUES, SmartrixState, rotate_pattern
from envs.smartrix.state import CARD_PERIODS

# Border square i of a card -> (row, col) in its 3x3 grid (independent of the state's tables).
SQUARE_RC = ((0, 0), (0, 1), (0, 2), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0))


def facing_pairs(dr: int, dc: int):
    """(square of A, square of B) that face when B lies at (dr, dc) from A, from geometry: on the
    fine grid (3 cells per card) the two squares differ by exactly (dr, dc)."""
    out = []
    for i, (ai, aj) in enumerate(SQUARE_RC):
        for j, (bi, bj) in enumerate(SQUARE_RC):
            if (3 * dr + bi - ai, 3 * dc + bj - aj) == (dr, dc):
                out.append((i, j))
    return out


FACING = {(dr, dc): facing_pairs(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)}


def patterns_match(pa: int, pb: int, dr: int, dc: int) -> bool:
    return all((pa >> a & 1) == (pb >> b & 1) for a, b in FACING[(dr, dc)])


def solve(cells, exclude=(), seed=0):
    """Distinct cards/rotations for ``cells`` (list of (row, col)) so that every touching pair
    matches; returns {cell: (number, rotation)}. Cards in ``exclude`` are not used."""
    rng = np.random.default_rng(seed)
    options = [(n, k) for n in range(1, 71) if n not in set(exclude) for k in range(int(CARD_PERIODS[n - 1]))]
    cells = list(cells)
    chosen: dict = {}
    used = set()

    def pat(o):
        return int(CARD_PATTERNS[o[0] - 1, o[1]])

    def rec(i):
        if i == len(cells):
            return True
        r, c = cells[i]
        order = rng.permutation(len(options))
        for k in order:
            o = options[k]
            if o[0] in used:
                continue
            p = pat(o)
            if all(
                patterns_match(p, pat(chosen[(r + dr, c + dc)]), dr, dc)
                for (dr, dc) in FACING
                if (r + dr, c + dc) in chosen
            ):
                chosen[(r, c)] = o
                used.add(o[0])
                if rec(i + 1):
                    return True
                del chosen[(r, c)]
                used.discard(o[0])
        return False

    assert rec(0), "no solution"
    return chosen


def table_of(sol, cells):
    return [(sol[x][0], sol[x][1], x[0], x[1]) for x in cells]


def rest(*used):
    """Card numbers 1..70 not in any of the given lists (to account for every card)."""
    taken = {n for lst in used for n in lst}
    return [n for n in range(1, 71) if n not in taken]


def legal_strings(state):
    return {state.action_to_string(a) for a in state.legal_placements()}


# ---------------------------------------------------------------------------------------- deck
def test_deck_is_the_70_rotation_classes():
    pats = [int("".join(reversed(sq)), 2) for sq in CARD_SQUARES]  # bit i = square i
    assert len(CARD_SQUARES) == 70
    classes = [frozenset(rotate_pattern(p, k) for k in range(4)) for p in pats]
    assert len(set(classes)) == 70
    assert set().union(*classes) == set(range(256))  # every pattern is some card in some rotation
    hist = Counter(sq.count("1") for sq in CARD_SQUARES)
    assert [hist[v] for v in range(9)] == [1, 2, 8, 14, 20, 14, 8, 2, 1]
    assert int(CARD_VALUES.sum()) == 280
    assert CARD_PATTERNS[0].tolist() == [0, 0, 0, 0] and CARD_PERIODS[0] == 1 and CARD_PERIODS[69] == 1
    assert CARD_PATTERNS[9].tolist() == [0b1010, 0b101000, 0b10100000, 0b10000010]  # card 10: T, R
    # Burnside: 4 patterns fixed by 90°, 16 by 180°: 4 + 6 + 60 cards, 4 + 12 + 240 = 256 orientations.
    assert sorted(Counter(CARD_PERIODS.tolist()).items()) == [(1, 4), (2, 6), (4, 60)]
    assert int(CARD_PERIODS.sum()) == 256


def test_deck_matches_the_data_table(data_dir):
    rows = [
        line.split("\t")
        for line in (data_dir / "smartrix_cards.tsv").read_text().splitlines()
        if line and not line.startswith("#") and not line.startswith("number")
    ]
    assert [(int(n), sq, int(v)) for n, sq, v in rows] == [
        (i + 1, sq, sq.count("1")) for i, sq in enumerate(CARD_SQUARES)
    ]


def test_rotation_turns_clockwise():
    assert rotate_pattern(0b1, 1) == 0b100  # top-left -> top-right
    assert rotate_pattern(0b10, 1) == 0b1000  # top -> right
    assert rotate_pattern(0b10000000, 1) == 0b10  # left -> top


# ------------------------------------------------------------------------------ setup & turns
def test_setup_deals_five_and_player_0_draws():
    deck = list(range(1, 71))
    s = SmartrixState(3, deck=deck)
    assert s.hand(0) == [1, 2, 3, 4, 5, 17] and s.hand(1) == [6, 7, 8, 9, 10] and s.hand(2) == [11, 12, 13, 14, 15]
    assert s.table() == [(16, 0, 0, 0)] and s.pile_size == 70 - 15 - 1 - 1 and s.current_player == 0
    s.apply(s.pass_action)
    assert s.current_player == 1 and s.hand(1)[-1] == 18 and not s.is_out(0)


def test_seeded_deals_are_reproducible():
    a = SmartrixState(4, rng=np.random.default_rng(7))
    b = SmartrixState(4, rng=np.random.default_rng(7))
    c = SmartrixState(4, rng=np.random.default_rng(8))
    assert a == b and str(a) == str(b) and a != c
    assert sorted(a.start["deck"]) == list(range(1, 71))


def test_seed_keyword_matches_rng_and_is_validated():
    assert SmartrixState(3, seed=7) == SmartrixState(3, rng=np.random.default_rng(7))
    assert SmartrixState(3, seed=np.int64(7)).start == SmartrixState(3, seed=7).start
    for kw, msg in [
        (dict(seed=-1), r"seed must be an int >= 0 \(or None\), got -1"),
        (dict(seed="a"), r"seed must be an int >= 0 \(or None\), got 'a'"),
        (dict(seed=1.5), r"seed must be an int >= 0 \(or None\), got 1\.5"),
        (dict(seed=True), r"seed must be an int >= 0 \(or None\), got True"),
        (dict(seed=1, rng=np.random.default_rng(1)), r"give either seed= or rng=, not both"),
    ]:
        with pytest.raises(ParameterError, match=msg):
            SmartrixState(2, **kw)


# ------------------------------------------------------------------------------ matching
def test_orthogonal_match():
    # Card 3 (top middle spot) turned once: spot on the right middle square, at (0, 0).
    # Card 10 (top, right) turned twice has bottom and left spots: its left side is (empty, spot, empty).
    s = SmartrixState.from_position(table=[(3, 1, 0, 0)], hands=[[10, 4], [20]])
    legal = legal_strings(s)
    assert "10r2@+0,+1" in legal  # left middle spot faces the right middle spot
    assert "10r0@+0,+1" not in legal  # (T, R): its left side is empty against a spot
    assert "10r0@+0,-1" not in legal and "10r2@+0,-1" in legal  # on the left the facing side is empty
    before = str(s)
    with pytest.raises(IllegalActionError, match=r"10r0@\+0,\+1.*do not match card 3 left of it"):
        s.apply(s.string_to_action("10r0@+0,+1"))
    assert str(s) == before and s.current_player == 0
    s.apply(s.string_to_action("10r2@+0,+1"))
    assert s.table() == [(3, 1, 0, 0), (10, 2, 0, 1)] and s.hand(0) == [4]


def test_diagonal_match():
    # Card 2 (one corner spot) turned twice: the spot is bottom-right. Diagonally down-right, a new
    # card's top-left corner must hold a spot; down-left, its top-right corner must be empty.
    s = SmartrixState.from_position(table=[(2, 2, 0, 0)], hands=[[4, 1], [20]])
    legal = legal_strings(s)
    assert "4r0@+1,+1" in legal  # card 4 (TL, T): top-left spot
    assert "4r1@+1,+1" not in legal  # (TR, R): top-left empty
    assert "1r0@+1,+1" not in legal and "1r0@+1,-1" in legal  # the blank card
    assert "4r0@+1,-1" in legal and "4r1@+1,-1" not in legal  # (TR spot vs the empty bottom-left)
    with pytest.raises(IllegalActionError, match="up-left of it"):
        s.apply(s.string_to_action("1r0@+1,+1"))


def test_a_card_must_touch_the_table():
    s = SmartrixState.from_position(table=[(1, 0, 0, 0)], hands=[[70, 45], [20]])
    assert all(abs(r) <= 1 and abs(c) <= 1 for _, _, r, c in (s.decode(a) for a in s.legal_placements()))
    with pytest.raises(IllegalActionError, match="touches no card"):
        s.apply(s.string_to_action("70r0@+2,+2"))


def test_symmetric_cards_have_only_distinct_orientations():
    s = SmartrixState.from_position(table=[(1, 0, 0, 0)], hands=[[45, 40], [20]])
    # 45 = T,R,B,L (period 1); 40 = TL,TR,BR,BL... "10101010" = corners (period 1).
    rots = {(n, k) for n, k, _, _ in (s.decode(a) for a in s.legal_placements())}
    assert rots <= {(45, 0), (40, 0)}
    assert s.string_to_action("1r3@+0,+1") == s.string_to_action("1r0@+0,+1")
    with pytest.raises(IllegalActionError, match="use rotation 0"):
        s.apply(s.encode(45, 0, 0, 1) + 7 * 7)  # plane (45, rotation 1)


# ------------------------------------------------------------------------------ 5x5 rule, sets
def box_position():
    """Column 0 one card short of a set (``closer`` completes it at (4, 0)) and column 4
    started, so that a card in column 5 (``sixth``) would break the 5x5 box until the set goes.

    Returns: ``(state, sol, table, closer, sixth)``: player 0 to move holding ``closer``,
    ``sixth`` and a spare card, player 1 one spare card; ``sol`` maps each cell to its
    ``(card, rotation)``.
    """
    cells = [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (0, 4), (0, 5)]
    sol = solve(cells)
    table = table_of(sol, [(0, 0), (1, 0), (2, 0), (3, 0), (0, 4)])
    closer, sixth = sol[(4, 0)], sol[(0, 5)]
    spare = rest([v[0] for v in sol.values()])
    s = SmartrixState.from_position(table=table, hands=[[closer[0], sixth[0], spare[0]], [spare[1]]])
    return s, sol, table, closer, sixth


def test_box_refuses_a_sixth_column_until_an_edge_set_is_removed():
    s, sol, table, closer, sixth = box_position()
    six = f"{sixth[0]}r{sixth[1]}@+0,+5"
    assert six not in legal_strings(s)
    with pytest.raises(IllegalActionError, match="5x5 box"):
        s.apply(s.string_to_action(six))
    s.apply(s.string_to_action(f"{closer[0]}r{closer[1]}@+4,+0"))  # completes column 0: a set
    column = sorted(sol[(r, 0)][0] for r in range(5))
    assert s.collected(0) == column and s.points(0) == sum(int(CARD_VALUES[n - 1]) for n in column)
    assert s.table() == [table[4]] and s.last_collected == column
    s.apply(s.pass_action)  # player 1
    assert six in legal_strings(s)  # the box drifted: column 5 is fine now
    s.apply(s.string_to_action(six))
    assert s.bounding_box() == (0, 0, 4, 5)


STAR = {
    "row": [(2, 0), (2, 1), (2, 3), (2, 4)],
    "col": [(0, 2), (1, 2), (3, 2), (4, 2)],
    "diag": [(0, 0), (1, 1), (3, 3), (4, 4)],
    "anti": [(0, 4), (1, 3), (3, 1), (4, 0)],
}


@pytest.mark.parametrize(
    "lines, extra",
    [
        (("row",), []),
        (("row", "col"), []),
        (("row", "col", "diag"), [(0, 1)]),
        (("row", "col", "diag", "anti"), []),
    ],
)
def test_one_placement_collects_several_sets(lines, extra):
    cells = [c for name in lines for c in STAR[name]] + extra
    sol = solve(cells + [(2, 2)], seed=len(lines))
    centre = sol[(2, 2)]
    s = SmartrixState.from_position(
        table=table_of(sol, cells), hands=[[centre[0]], rest([v[0] for v in sol.values()])[:1]]
    )
    move = s.string_to_action(f"{centre[0]}r{centre[1]}@+2,+2")
    expect = sorted(sol[c][0] for name in lines for c in STAR[name]) + [centre[0]]
    assert sorted(s.placement_collects(move)) == sorted(expect[:-1])
    s.apply(move)  # the last card of player 0's hand: the game ends too
    assert sorted(s.collected(0)) == sorted(expect) and len(expect) == 4 * len(lines) + 1
    assert s.points(0) == sum(int(CARD_VALUES[n - 1]) for n in expect)
    assert s.table_size() == len(extra) and s.is_terminal()
    if len(lines) == 4:
        assert len(expect) == 17
        # Same position with a second card in hand: the game goes on and the table is empty, so the
        # next card must go on the centre (0, 0).
        spare = [n for n in range(1, 71) if n not in {v[0] for v in sol.values()}]
        t = SmartrixState.from_position(
            table=table_of(sol, cells), hands=[[centre[0], spare[0]], [spare[1]]], pile=spare[2:]
        )
        t.apply(t.string_to_action(f"{centre[0]}r{centre[1]}@+2,+2"))
        assert t.table() == [] and not t.is_terminal() and t.current_player == 1
        squares = {(r, c) for _, _, r, c in (t.decode(a) for a in t.legal_placements())}
        assert squares == {(0, 0)}
        hand1 = t.hand(1)
        assert len(t.legal_placements()) == sum(int(CARD_PERIODS[n - 1]) for n in hand1)
        t.apply(t.string_to_action(f"{hand1[0]}r0@+0,+0"))
        assert t.table() == [(hand1[0], 0, 0, 0)]


def test_kids_variant_collects_a_whole_long_run():
    cells = [(0, 0), (0, 1), (0, 2), (0, 4), (0, 5), (0, 6), (0, 3)]
    sol = solve(cells, seed=3)
    gap = sol[(0, 3)]
    table = table_of(sol, cells[:-1])
    with pytest.raises(InvalidPositionError, match="5x5"):
        SmartrixState.from_position(table=table, hands=[[gap[0]], rest([v[0] for v in sol.values()])[:1]])
    spare = rest([v[0] for v in sol.values()])
    s = SmartrixState.from_position(table=table, hands=[[gap[0], spare[0]], [spare[1]]], grid_limit=False)
    s.apply(s.string_to_action(f"{gap[0]}r{gap[1]}@+0,+3"))
    assert s.collected(0) == sorted(v[0] for v in sol.values()) and len(s.collected(0)) == 7 and s.table() == []


def test_kids_variant_allows_wide_tables_within_the_window():
    cells = [(0, c) for c in range(4)] + [(1, c) for c in range(4, 7)]
    sol = solve(cells + [(1, 7)], seed=5)
    last = sol[(1, 7)]
    free = rest([v[0] for v in sol.values()])
    s = SmartrixState.from_position(table=table_of(sol, cells), hands=[[last[0], free[0]], [free[1]]], grid_limit=False)
    move = f"{last[0]}r{last[1]}@+1,+7"
    assert move in legal_strings(s)
    s.apply(s.string_to_action(move))
    assert s.bounding_box() == (0, 1, 0, 7) and s.table_size() == 8
    # Outside the 21x21 window nothing is possible (the window bound of the kids variant).
    assert all(abs(c - 3) <= 10 for _, _, _, c in (s.decode(a) for a in s.legal_placements()))
    small = SmartrixState.from_position(
        table=table_of(sol, cells), hands=[[last[0], free[0]], [free[1]]], grid_limit=False, window=7
    )
    assert move not in legal_strings(small)
    with pytest.raises(IllegalActionError, match="outside the 7x7 action window"):
        small.string_to_action(move)


# ------------------------------------------------------------------------------ passing, the end
def test_pass_with_a_pile_keeps_the_player_in():
    s = SmartrixState.from_position(table=[(1, 0, 0, 0)], hands=[[2], [3], [4]], pile=None, num_players=3)
    top = s.position()["pile"][0]
    s.apply(s.pass_action)
    assert not s.is_out(0) and s.current_player == 1 and s.hand(1) == sorted([3, top])


def test_players_drop_out_after_passing_on_an_empty_pile_and_the_game_ends_when_all_are_out():
    everything = set(range(1, 71))
    hands = [[2, 3], [4, 5], [6]]
    collected = [sorted(everything - {1, 2, 3, 4, 5, 6}), [], []]
    s = SmartrixState.from_position(num_players=3, table=[(1, 0, 0, 0)], hands=hands, pile=[], collected=collected)
    s.apply(s.pass_action)
    assert s.is_out(0) and s.current_player == 1
    s.apply(s.pass_action)
    assert s.is_out(1) and s.current_player == 2
    s.apply(s.pass_action)
    assert s.is_terminal() and s.current_player == -1
    assert s.scores() == [s.points(0) - 2, -4, -2]
    assert s.returns().tolist() == [1.0, -1.0, -1.0]
    assert s.legal_action_mask().sum() == 0
    with pytest.raises(IllegalActionError, match="game is over"):
        s.apply(s.pass_action)


def test_out_players_are_skipped_and_the_last_one_keeps_playing():
    s = SmartrixState.from_position(
        num_players=3, table=[(1, 0, 0, 0)], hands=[[2, 3], [70, 69], [5, 6]], pile=None, out=[False, True, False]
    )
    s.apply(s.pass_action)
    assert s.current_player == 2
    hands = [[2, 3], [70], [5]]
    t = SmartrixState.from_position(
        num_players=3,
        table=[(1, 0, 0, 0)],
        hands=hands,
        pile=[],
        out=[False, True, True],
        collected=[[], [], rest([1], *hands)],
    )
    assert "2r1@+1,-1" not in legal_strings(t)  # top-right spot against the blank's bottom-left
    t.apply(t.string_to_action("2r0@+1,-1"))  # top-left spot: touches the blank only diagonally
    assert t.current_player == 0 and not t.is_terminal() and t.hand(0) == [3]
    t.apply(t.string_to_action("3r2@+1,+0"))  # bottom spot: its last card
    assert t.is_terminal() and t.returns().tolist() == [-1.0, -1.0, 1.0]


def test_placing_the_last_card_ends_the_game():
    s = SmartrixState.from_position(table=[(1, 0, 0, 0)], hands=[[3], [70, 69]], collected=[[], [68]])
    assert s.pile_size == 65
    with pytest.raises(IllegalActionError, match="card 1 above it"):
        s.apply(s.string_to_action("3r0@+1,+0"))  # top spot against the blank's empty bottom
    s.apply(s.string_to_action("3r2@+1,+0"))
    assert s.is_terminal() and s.current_player == -1 and s.pile_size == 65
    assert s.scores() == [0, 7 - 8 - 7] and s.returns().tolist() == [1.0, -1.0]


def test_scoring_and_ties():
    s = SmartrixState.from_position(table=[(1, 0, 0, 0)], hands=[[2], [4, 5]], collected=[[6, 7], [70]])
    # player 0 puts card 2 with its corner spot away from the blank: ends the game.
    s.apply(s.string_to_action("2r0@-1,-1"))
    assert s.is_terminal() and s.scores() == [2 + 2, 8 - 4]
    assert s.returns().tolist() == [0.0, 0.0]
    assert s.winners() == [0, 1]


def test_team_end_phase():
    # Teams: 0 & 2 against 1 & 3. Pile empty: player 0 passes -> players 0 and 2 are out; team 1
    # plays on until one of them passes (then both are out and the game ends).
    s = SmartrixState.from_position(
        num_players=4,
        teams=True,
        table=[(1, 0, 0, 0)],
        hands=[[2], [3, 70], [4], [5, 69]],
        pile=[],
        collected=[[], [], [], sorted(set(range(6, 69)))],
    )
    assert s.team_of(0) == s.team_of(2) == 0 and s.team_of(1) == s.team_of(3) == 1
    s.apply(s.pass_action)
    assert s.is_out(0) and s.is_out(2) and s.current_player == 1
    s.apply(s.pass_action)  # player 1 passes: team 1 out too -> everyone out
    assert s.is_terminal()
    scores = s.scores()
    assert s.team_scores() == [scores[0] + scores[2], scores[1] + scores[3]]
    r = s.returns().tolist()
    assert r[0] == r[2] == -1.0 and r[1] == r[3] == 1.0


def test_team_continues_after_the_other_team_is_out():
    hands = [[2], [4, 5], [6], [7, 8]]
    s = SmartrixState.from_position(
        num_players=4, teams=True, table=[(1, 0, 0, 0)], hands=hands, pile=[], collected=[rest([1], *hands), [], [], []]
    )
    s.apply(s.pass_action)  # team 0 out
    assert s.current_player == 1
    s.apply(s.pass_action if not s.legal_placements() else s.legal_placements()[0])
    assert not s.is_terminal() and s.current_player == 3


# ------------------------------------------------------------------------------ errors, notation
@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(num_players=1), "num_players"),
        (dict(num_players=8), "num_players"),
        (dict(num_players=2.0), "num_players"),
        (dict(teams=True), "4 players"),
        (dict(num_players=4, teams="yes"), "teams"),
        (dict(grid_limit=None), "grid_limit"),
        (dict(window=9), "window is 7"),
        (dict(grid_limit=False, window=4), "odd"),
        (dict(grid_limit=False, window=37), "5 to 35"),
        (dict(deck=[1, 2, 3]), "permutation"),
        (dict(deck=list(range(70))), "permutation"),
        (dict(rng=42), "Generator"),
    ],
)
def test_bad_arguments_raise_parameter_error(kwargs, match):
    with pytest.raises(ParameterError, match=match):
        SmartrixState(**kwargs)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(table=[(1, 0, 0, 0)], hands=[[1], [2]]), "twice"),
        (dict(table=[(71, 0, 0, 0)], hands=[[1], [2]]), "not a card"),
        (dict(table=[(1, 4, 0, 0)], hands=[[3], [2]]), "rotation"),
        (dict(table=[(1, 0, 0, 0), (2, 0, 0, 0)], hands=[[3], [4]]), "same square"),
        (dict(table=[(1, 0, 0, 0), (70, 0, 0, 1)], hands=[[3], [4]]), "do not match"),
        (dict(table=[(1, 0, 0, 0), (3, 0, 0, 5)], hands=[[4], [5]]), "5x5"),
        (dict(table=[(1, 0, 0, 0)], hands=[[3]]), "one entry per player"),
        (dict(table=[(1, 0, 0, 0)], hands=[[3], []]), "empty hand"),
        (dict(table=[(1, 0, 0, 0)], hands=[[3], [4]], pile=[5]), "missing"),
        (dict(table=[(1, 0, 0, 0)], hands=[[3], [4]], current_player=2), "current_player"),
        (dict(table=[(1, 0, 0, 0)], hands=[[3], [4]], out=[True, False]), "is out"),
        (dict(table=[(1, 0, 0, 0)], hands=[[3], [4]], out=[False]), "one flag"),
    ],
)
def test_bad_positions_raise_invalid_position_error(kwargs, match):
    with pytest.raises(InvalidPositionError, match=match):
        SmartrixState.from_position(**kwargs)


def test_a_complete_set_cannot_be_on_a_hand_built_table():
    cells = [(0, c) for c in range(5)]
    sol = solve(cells)
    spare = rest([v[0] for v in sol.values()])
    with pytest.raises(InvalidPositionError, match="complete set"):
        SmartrixState.from_position(table=table_of(sol, cells), hands=[spare[:1], spare[1:2]])


def test_notation_round_trip_and_errors():
    s = SmartrixState(2, rng=np.random.default_rng(3))
    for a in s.legal_actions():
        assert s.string_to_action(s.action_to_string(a)) == a
    assert s.action_to_string(s.pass_action) == "pass" and s.string_to_action(" PASS ") == s.pass_action
    assert s.num_actions == 280 * 49 + 1
    for bad, match in [
        ("17x1@0,0", "not a Smartrix move"),
        ("71r0@+0,+1", "does not exist"),
        ("17r4@+0,+1", "rotation"),
        ("17r0@+9,+0", "outside"),
        (17, "string"),
    ]:
        with pytest.raises(IllegalActionError, match=match):
            s.string_to_action(bad)
    for bad in (-1, s.num_actions, 1.0, True, "3"):
        with pytest.raises(IllegalActionError):
            s.apply(bad)


def test_illegal_actions_name_the_move_and_leave_the_state_unchanged():
    s = SmartrixState(2, rng=np.random.default_rng(11))
    mask = s.legal_action_mask()
    before = (str(s), s.position())
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match=f"illegal move {s.action_to_string(bad).replace('+', '[+]')}"):
        s.apply(bad)
    assert (str(s), s.position()) == before and s.turn_number == 0
    not_mine = s.hand(1)[0]
    with pytest.raises(IllegalActionError, match=f"card {not_mine} is not in player 0's hand"):
        s.apply(s.encode(not_mine, 0, 0, 1))
