"""Tantrix property tests over seeded random games, against an independent brute-force rules check.

:func:`brute_placements` re-derives the legal placements of a position from its public description
alone (tiles on the table, the mover's hand, bag size, turn phase), straight from the rules text:
edge matching against ``tests/data/tantrix_tiles.tsv`` read here, the three restrictions (the
controlled-side test as simultaneous rounds of virtual fills), forced spaces and the window.
The rules core's mask must equal it at every step.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from envs.tantrix import TantrixState
from envs.tantrix.records import record_from_state, record_to_json, replay

TSV = Path(__file__).resolve().parents[1] / "data" / "tantrix_tiles.tsv"
_FALLBACK = None


def tsv_tiles() -> dict[int, str]:
    """number -> edge letters from ``tests/data/tantrix_tiles.tsv`` (read here, independently of the module)."""
    out = {}
    for line in TSV.read_text().splitlines():
        if line.startswith("#") or line.startswith("number") or not line.strip():
            continue
        num, edges, _missing = line.split("\t")
        out[int(num)] = edges
    return out


TILE = tsv_tiles()
DIRS = [(1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1)]


def rotated(t: int, k: int) -> str:
    e = TILE[t]
    return "".join(e[(i - k) % 6] for i in range(6))


def _nbrs(c):
    return [(c[0] + dq, c[1] + dr) for dq, dr in DIRS]


def closure_conflict(occupied: set) -> bool:
    """Controlled-side test: rounds of filling every empty hex with exactly three occupied
    neighbours; a conflict is an empty hex with >= 4 neighbours or two adjacent forced hexes."""
    occ = set(occupied)
    while True:
        empties = {n for c in occ for n in _nbrs(c) if n not in occ}
        counts = {e: sum(n in occ for n in _nbrs(e)) for e in empties}
        if any(v >= 4 for v in counts.values()):
            return True
        forced = {e for e, v in counts.items() if v == 3}
        if any(n in forced for f in forced for n in _nbrs(f)):
            return True
        if not forced:
            return False
        occ |= forced


def position_violations(board: dict) -> bool:
    """Whether a table breaks a restriction (1: three same-coloured edges into a hex; 2: a hex
    with four neighbours; 3: the controlled-side test)."""
    empties = {n for c in board for n in _nbrs(c) if n not in board}
    for e in empties:
        cols = [board[n][(d + 3) % 6] for d, n in enumerate(_nbrs(e)) if n in board]
        if len(cols) >= 4 or any(cols.count(x) >= 3 for x in "RYBG"):
            return True
    return closure_conflict(set(board))


def board_of(state: TantrixState) -> dict:
    return {(q, r): rotated(t, k) for t, q, r, k in state.placed}


def brute_placements(state: TantrixState) -> tuple[set, int]:
    """(legal placements inside the window as {(tile, q, r, rot)}, number outside)."""
    board = board_of(state)
    R = state.window_radius
    hand = [t for t in state.hand(state.current_player) if t != -1]
    if board:
        cells = {n for c in board for n in _nbrs(c) if n not in board}
    else:
        cells = {(0, 0)}
    forced_only = state.phase != "free"
    restricted = state.bag_size > 0
    legal, outside = set(), 0
    for cell in cells:
        cnt = sum(n in board for n in _nbrs(cell))
        if forced_only and cnt < 3:
            continue
        for t in hand:
            for k in range(6):
                e = rotated(t, k)
                if any(n in board and board[n][(d + 3) % 6] != e[d] for d, n in enumerate(_nbrs(cell))):
                    continue
                if restricted:
                    b2 = dict(board)
                    b2[cell] = e
                    if position_violations(b2):
                        continue
                if max(abs(cell[0]), abs(cell[1]), abs(cell[0] + cell[1])) > R:
                    outside += 1
                else:
                    legal.add((t, cell[0], cell[1], k))
    return legal, outside


def random_game(seed: int, num_players: int = 2, check=None, **kw) -> TantrixState:
    rng = np.random.default_rng(seed)
    s = TantrixState(num_players, rng=np.random.default_rng(seed + 1000), **kw)
    while not s.is_terminal():
        if check:
            check(s)
        legal = s.legal_actions()
        s.apply(legal[rng.integers(len(legal))])
    return s


def _check_step(s: TantrixState) -> None:
    legal, outside = brute_placements(s)
    assert set(s.placements()) == legal, f"mask differs from brute force at\n{s}"
    assert s.clipped_now == outside
    mask = s.legal_action_mask()
    assert mask.dtype == np.int8 and mask.sum() == len(legal) > 0
    # every masked action applies on a clone
    for a in np.flatnonzero(mask)[:: max(1, int(mask.sum()) // 5)]:
        c = s.clone()
        c.apply(int(a))
    # invariants
    n_hand = sum(t != -1 for p in range(s.num_players) for t in s.hand(p))
    assert len(s.placed) + n_hand + s.bag_size == 56
    if s.bag_size > 0:
        assert all(t != -1 for p in range(s.num_players) for t in s.hand(p))
        assert not position_violations(board_of(s))
        assert s.violations() == []
    if s.phase == "free":  # forced_before ran dry (or the position started free)
        pass


@pytest.mark.parametrize("seed, players", [(0, 2), (1, 3), (2, 4)])
def test_mask_matches_brute_force(seed, players):
    s = random_game(seed, players, check=_check_step)
    assert s.is_terminal() and len(s.placed) == 56


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3, 23))
def test_mask_matches_brute_force_many(seed):
    random_game(seed, 2 + seed % 3, check=_check_step, teams=(seed % 3 == 2 and seed % 2 == 0))


def test_mask_matches_brute_force_small_window():
    """A small window clips often: clipped placements are counted and never offered."""
    clipped = []

    def chk(s):
        _check_step(s)
        clipped.append(s.clipped_now)

    s = random_game(5, 2, check=chk, window_radius=4)
    # the counter also counts forced steps that ended because their only fills lay outside
    assert sum(clipped) > 0 and s.clipped_placements >= sum(c > 0 for c in clipped) > 0
    assert all(max(abs(q), abs(r), abs(q + r)) <= 4 for _, q, r, _ in s.placed)


def test_many_random_games_invariants():
    """Cheaper invariants over more games: tiles conserved, hands full while the bag lasts,
    no restriction broken before the endgame, same player through a turn's phases."""
    for seed in range(30):
        rng = np.random.default_rng(seed)
        s = TantrixState(2 + seed % 3, teams=(seed % 3 == 2 and seed % 2 == 0), rng=np.random.default_rng(seed))
        while not s.is_terminal():
            p, ph = s.current_player, s.phase
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
            if s.bag_size > 0:
                assert all(t != -1 for q in range(s.num_players) for t in s.hand(q))
                assert s.violations() == []
            if not s.is_terminal() and ph == "free" and s.bag_size > 0:  # (no skips before the end phase)
                # after the free move: forced moves by the same player, or the next player's turn
                assert (s.current_player == p and s.phase == "forced_after") or (
                    s.current_player == (p + 1) % s.num_players and s.phase in ("forced_before", "free")
                )
        n_hand = sum(t != -1 for q in range(s.num_players) for t in s.hand(q))
        assert len(s.placed) + n_hand + s.bag_size == 56
        assert len({m[0] for m in s.placed}) == len(s.placed)


def test_records_replay_to_identical_states():
    for seed in range(4):
        s = random_game(seed, 2 + seed % 3)
        rec = json.loads(record_to_json(record_from_state(s)))
        r = replay(rec)
        assert r.position_key() == s.position_key() and r.moves() == s.moves()
        assert r.scores() == s.scores() and (r.returns() == s.returns()).all()


def test_record_replay_mid_game_states_match():
    rng = np.random.default_rng(9)
    s = TantrixState(3, rng=np.random.default_rng(9))
    for _ in range(25):
        legal = s.legal_actions()
        s.apply(legal[rng.integers(len(legal))])
    r = replay(record_from_state(s))
    assert str(r) == str(s) and r.position_key() == s.position_key()
    assert (r.legal_action_mask() == s.legal_action_mask()).all()
