"""The early-draw rule (``draw="early"``): the "can still connect" test and the draws it declares.

``TwixtState.can_still_connect(colour)`` is maintained incrementally (a witness path per colour,
searched again on bitboards only when a move puts an opponent peg on it or a blocking link across
it). It is checked here against:

* an independent, naive implementation of the definition in ``envs/twixt/RULES.md`` (a breadth-first
  search over holes with its own knight moves and its own exact segment-crossing test, built from
  the public ``pegs()`` / ``links()`` accessors only), at every ply of many random games, both rule
  sets, both draw modes: the values must be *equal*;
* an exhaustive search over all continuations of the game (both players, until a win or a full
  board): whenever the detector says a colour cannot connect, that colour must have no winning
  continuation — the rule must never declare a draw a player could still win. Always on for
  positions with few empty holes; the slow test goes further.

Plus hand-picked positions: a 5x5 board blocked for both sides after four plies (declared drawn), the
same board one ply earlier (not drawn), and boards blocked for one side only (the game goes on).
"""

from __future__ import annotations

import sys
from collections import deque

import numpy as np
import pytest

from envs.twixt import TwixtState

KNIGHT = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]


def winning_colour(state):
    """0 (red) or 1 (black) when a colour has won, else ``None`` (game on, or a draw)."""
    w = state.winners()
    return w[0] % 2 if len(w) == state.num_players // 2 else None


def proper_cross(p, p2, q, q2) -> bool:
    """Do segments p-p2 and q-q2 cross at a point interior to both? (parametric form, integers)."""
    r = (p2[0] - p[0], p2[1] - p[1])
    s = (q2[0] - q[0], q2[1] - q[1])
    den = r[0] * s[1] - r[1] * s[0]
    if den == 0:
        return False  # parallel (knight segments never overlap collinearly)
    qp = (q[0] - p[0], q[1] - p[1])
    t = qp[0] * s[1] - qp[1] * s[0]  # t * den
    u = qp[0] * r[1] - qp[1] * r[0]  # u * den
    if den < 0:
        den, t, u = -den, -t, -u
    return 0 < t < den and 0 < u < den


def naive_can_connect(state: TwixtState, colour: int) -> bool:
    """The definition, directly: a knight path between the colour's borders through empty or own
    holes of its legal area, no step crossing a link that blocks it under the state's rules."""
    size = state.board_size
    pegs = state.pegs()
    blocking = [(a, b) for a, b, c in state.links() if state.rules == "standard" or c != colour]

    def usable(r, c):
        if not (0 <= r < size and 0 <= c < size):
            return False
        if r in (0, size - 1) and c in (0, size - 1):
            return False
        if colour == 0 and c in (0, size - 1):
            return False
        if colour == 1 and r in (0, size - 1):
            return False
        return pegs[r, c] in (0, colour + 1)

    start = [(0, c) for c in range(size)] if colour == 0 else [(r, 0) for r in range(size)]
    start = [h for h in start if usable(*h)]
    seen = set(start)
    todo = deque(start)
    while todo:
        h = todo.popleft()
        if (h[0] if colour == 0 else h[1]) == size - 1:
            return True
        for dr, dc in KNIGHT:
            nb = (h[0] + dr, h[1] + dc)
            if nb in seen or not usable(*nb):
                continue
            if any(proper_cross(h, nb, a, b) for a, b in blocking):
                continue
            seen.add(nb)
            todo.append(nb)
    return False


def possible_winners(state: TwixtState, memo: dict | None = None) -> frozenset:
    """Colours that win in at least one continuation (all moves of both sides, no early draws)."""
    if memo is None:
        memo = {}
    if state.is_terminal():
        w = winning_colour(state)
        return frozenset() if w is None else frozenset([w])
    key = state.position_key()
    hit = memo.get(key)
    if hit is not None:
        return hit
    out = set()
    for a in state.legal_actions():
        child = state.clone()
        child.apply(a)
        out |= possible_winners(child, memo)
        if len(out) == 2:
            break
    res = frozenset(out)
    memo[key] = res
    return res


def board_full_copy(state: TwixtState) -> TwixtState:
    return TwixtState.from_moves(
        state.moves(),
        board_size=state.board_size,
        rules=state.rules,
        swap=state.swap,
        num_players=state.num_players,
        draw="board_full",
    )


def empty_holes(state: TwixtState) -> int:
    return int((state.pegs() == 0).sum()) - 4  # corners are never filled


@pytest.fixture(autouse=True, scope="module")
def _deep_recursion():
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10000))
    yield
    sys.setrecursionlimit(old)


# ---------------------------------------------------------------------------- against the definition
@pytest.mark.parametrize(
    "size,rules,games",
    [(5, "standard", 60), (5, "pp", 60), (6, "standard", 40), (6, "pp", 40), (8, "standard", 15), (9, "pp", 10)],
)
def test_incremental_detector_equals_naive_definition(size, rules, games):
    rng = np.random.default_rng(size * 10 + len(rules))
    flagged = 0
    for _ in range(games):
        st = TwixtState(size, rules=rules, draw="early", swap=bool(rng.integers(2)))
        while True:
            truth = (naive_can_connect(st, 0), naive_can_connect(st, 1))
            assert (st.can_still_connect(0), st.can_still_connect(1)) == truth, st.moves()
            flagged += truth.count(False)
            if st.is_terminal():
                if winning_colour(st) is None:  # the only draws: neither can connect, or no legal hole
                    assert truth == (False, False) or not board_full_copy(st).legal_actions()
                break
            assert truth != (False, False)  # otherwise the game would be over
            la = st.legal_actions()
            st.apply(la[rng.integers(len(la))])
    assert flagged > 0


@pytest.mark.parametrize("rules", ["standard", "pp"])
def test_board_full_mode_computes_the_same_on_demand(rules):
    rng = np.random.default_rng(4)
    for _ in range(20):
        st = TwixtState(7, rules=rules, draw="board_full")
        while not st.is_terminal():
            assert st.can_still_connect(0) == naive_can_connect(st, 0)
            assert st.can_still_connect(1) == naive_can_connect(st, 1)
            la = st.legal_actions()
            st.apply(la[rng.integers(len(la))])


# ---------------------------------------------------------------------------- soundness (exhaustive)
def _soundness(size, rules, games, max_empty, seed):
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(games):
        st = TwixtState(size, rules=rules, draw="early")
        done = set()
        while not st.is_terminal():
            la = st.legal_actions()
            st.apply(la[rng.integers(len(la))])
            for c in (0, 1):
                if c in done or st.can_still_connect(c):
                    continue
                done.add(c)
                if empty_holes(st) <= max_empty:
                    winners = possible_winners(board_full_copy(st))
                    assert c not in winners, (st.moves(), c)
                    checked += 1
    return checked


@pytest.mark.parametrize(
    "size,rules,games,max_empty",
    [(5, "standard", 80, 9), (5, "pp", 80, 10), (6, "standard", 60, 10), (6, "pp", 60, 10)],
)
def test_soundness_by_exhaustive_search(size, rules, games, max_empty):
    checked = _soundness(size, rules, games, max_empty, seed=size + len(rules))
    assert checked >= 5


@pytest.mark.slow
@pytest.mark.parametrize("size,rules", [(5, "standard"), (5, "pp"), (6, "standard"), (6, "pp")])
def test_soundness_by_exhaustive_search_deeper(size, rules):
    checked = _soundness(size, rules, 150, 12, seed=100 + size + len(rules))
    assert checked >= 10


# ---------------------------------------------------------------------------- hand-picked positions
BLOCKED_5 = "c3 d4 d1 b3"  # red c3, d1 (linked); black d4, b3 (linked): nobody can connect


def test_blocked_board_is_declared_drawn():
    st = TwixtState.from_moves(BLOCKED_5, board_size=5, draw="early")
    assert st.is_terminal() and winning_colour(st) is None and str(st.outcome()) == "1/2-1/2"
    assert list(st.returns()) == [0.0, 0.0] and st.current_player == -1
    assert not st.can_still_connect(0) and not st.can_still_connect(1)
    assert not naive_can_connect(st, 0) and not naive_can_connect(st, 1)
    assert st.status_line() == "game over after 4 plies: draw (neither side can still connect)"
    # With the board-full rule the same game goes on (and both sides are still unable to connect).
    bf = TwixtState.from_moves(BLOCKED_5, board_size=5, draw="board_full")
    assert not bf.is_terminal() and len(bf.legal_actions()) == 15 - 4  # red: 15 holes, 4 taken
    assert not bf.can_still_connect(0) and not bf.can_still_connect(1)


def test_nearly_blocked_board_is_not_drawn():
    st = TwixtState.from_moves(BLOCKED_5.rsplit(" ", 1)[0], board_size=5, draw="early")  # one ply earlier
    assert not st.is_terminal() and st.current_player == 1
    assert st.can_still_connect(0) and st.can_still_connect(1)
    # Black's b3 is the move that closes both sides; any other black move keeps the game going
    # for at least one side, and some black moves keep both.
    outcomes = {}
    for a in st.legal_actions():
        child = st.clone()
        child.apply(a)
        outcomes[child.action_to_string(a)] = child.is_terminal()
    assert outcomes["b3"] is True
    assert sum(outcomes.values()) < len(outcomes) and outcomes["a3"] is False


@pytest.mark.parametrize("moves, blocked", [("b4 d2 c2", 1), ("c3 b2 b4 d3", 0)])
def test_one_side_blocked_game_goes_on(moves, blocked):
    st = TwixtState.from_moves(moves, board_size=5, draw="early")
    assert not st.is_terminal()
    assert st.can_still_connect(blocked) is False and st.can_still_connect(1 - blocked) is True
    assert naive_can_connect(st, blocked) is False and naive_can_connect(st, 1 - blocked) is True
    # The blocked side stays blocked whatever happens next (the condition is monotone).
    rng = np.random.default_rng(0)
    while not st.is_terminal():
        la = st.legal_actions()
        st.apply(la[rng.integers(len(la))])
        assert not st.can_still_connect(blocked)
    assert winning_colour(st) != blocked


@pytest.mark.slow
def test_blocked_board_by_exhaustive_search():
    """Every continuation of BLOCKED_5 (about half a million positions) ends without a winner."""
    st = TwixtState.from_moves(BLOCKED_5, board_size=5, draw="board_full")
    assert possible_winners(st) == frozenset()


def test_early_mode_never_ends_a_game_the_board_full_mode_would_let_someone_win():
    """Along random early-draw games: every early draw position has no winning continuation when
    few holes are left (a direct consequence of soundness, checked on the final positions)."""
    rng = np.random.default_rng(21)
    checked = 0
    for _ in range(200):
        st = TwixtState(5, draw="early")
        while not st.is_terminal():
            la = st.legal_actions()
            st.apply(la[rng.integers(len(la))])
        if winning_colour(st) is None and empty_holes(st) <= 9:
            assert possible_winners(board_full_copy(st)) == frozenset(), st.moves()
            checked += 1
    assert checked >= 3


@pytest.mark.parametrize("rules", ["standard", "pp"])
def test_connection_bitboards_incremental_equals_recomputed(rules):
    """``connection_bitboards`` (maintained with draw="early", rebuilt from the links otherwise)."""
    rng = np.random.default_rng(8)
    for _ in range(15):
        early = TwixtState(9, rules=rules, draw="early")
        full = TwixtState(9, rules=rules, draw="board_full")
        while not early.is_terminal():
            for c in (0, 1):
                ok, own, allowed = early.connection_bitboards(c)
                assert (ok, own, allowed) == full.connection_bitboards(c)
                pegs = early.pegs().ravel()
                assert own == sum(1 << p for p in range(81) if pegs[p] == c + 1)
                assert allowed & ~own & sum(1 << p for p in range(81) if pegs[p]) == 0
            la = early.legal_actions()
            a = la[rng.integers(len(la))]
            early.apply(a)
            full.apply(a)
