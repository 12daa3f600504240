"""The games' board symmetries (``encoder.symmetries()``, :class:`envs.core.observation.Symmetry`):
each maps a position's observation and legal mask exactly as the position built transformed.

A game played with random legal moves from a start position and, beside it, the same game played
from the transformed start with every move transformed: at every ply the transformed game's
observation (every seat's view) and mask are the first one's gathered by the symmetry's indices.
"""

from __future__ import annotations

import numpy as np
import pytest

import envs
from envs.ataxx.state import AtaxxState
from envs.core.observation import Symmetry, grid_symmetry
from envs.registry import spec


def _ataxx_fen_mapped(fen: str, cell_map: np.ndarray) -> str:
    """The FEN of the position whose square at observation cell ``cell_map[r, c]`` is the square at
    ``(r, c)`` of ``fen`` (row 0 = rank 7, column 0 = file a)."""
    board, rest = fen.split(" ", 1)
    grid = []
    for rank in board.split("/"):
        row = []
        for ch in rank:
            row.extend(["."] * int(ch) if ch.isdigit() else [ch])
        grid.append(row)
    flat = np.array(grid).reshape(-1)
    new = np.empty_like(flat)
    new[cell_map.reshape(-1)] = flat
    ranks = []
    for r in range(7):
        text, run = "", 0
        for ch in new[r * 7 : (r + 1) * 7]:
            if ch == ".":
                run += 1
                continue
            text += (str(run) if run else "") + ch
            run = 0
        ranks.append(text + (str(run) if run else ""))
    return "/".join(ranks) + " " + rest


def _cell_map_of(sym: Symmetry, size: int, channels: int) -> np.ndarray:
    """The cell map a symmetry applies (read back from its observation index, plane 0)."""
    src = sym.obs_index.reshape(size * size, channels)[:, 0] // channels  # new cell <- old cell
    cell_map = np.empty(size * size, dtype=np.int64)
    cell_map[src] = np.arange(size * size)
    return cell_map.reshape(size, size)


def _play_side_by_side(env_id, kwargs, start_a, start_b, sym: Symmetry, plies: int, seed: int) -> int:
    template = envs.make_vec(env_id, 1, seed=0, **kwargs)
    template.reset()
    a = template.from_states([start_a])
    b = template.from_states([start_b])
    inverse = np.argsort(sym.action_index)  # action of the mapped position for each action of the first
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(plies):
        for seat in range(a.num_players):
            oa, ob = a.observe(seat), b.observe(seat)
            assert np.array_equal(ob.reshape(-1), oa.reshape(-1)[sym.obs_index]), (sym.name, seat)
        ma, mb = np.asarray(a.action_mask()), np.asarray(b.action_mask())
        assert np.array_equal(mb[0], ma[0][sym.action_index]), sym.name
        assert a.current_player()[0] == b.current_player()[0]
        if not ma[0].any():
            break
        act = int(rng.choice(np.flatnonzero(ma[0])))
        a.step(np.array([act]))
        b.step(np.array([inverse[act]]))
        checked += 1
    return checked


ATAXX_STARTS = ["x5o/7/7/7/7/7/o5x x 0 1", "x5o/7/1-5/7/2-4/4-2/o5x x 0 1", "x4oo/1x5/7/3-3/7/-6/o4xx o 3 5"]


@pytest.mark.parametrize("fen", ATAXX_STARTS)
def test_ataxx_dihedral_symmetries_map_the_position_and_its_mask(fen):
    raw = spec("ataxx_v0").make_raw()
    syms = raw.encoder.symmetries()
    assert [s.name for s in syms][0] == "identity" and len(syms) == 8
    assert len({tuple(s.action_index) for s in syms}) == 8  # eight distinct maps
    checked = 0
    for i, sym in enumerate(syms):
        mapped = _ataxx_fen_mapped(fen, _cell_map_of(sym, 7, 5))
        checked += _play_side_by_side("ataxx_v0", {}, AtaxxState(fen), AtaxxState(mapped), sym, 40, seed=i)
        assert sym.action_index[833] == 833  # the pass stays
    assert checked >= 8 * 20  # (a random game may end early)


@pytest.mark.parametrize(
    "env_id, kwargs",
    [
        ("twixt_v0", {"board_size": 8}),
        ("twixt_v0", {"board_size": 9, "distance_planes": True}),
        ("double_twixt_v0", {"board_size": 8}),
    ],
)
def test_twixt_rotation_maps_the_position_and_its_mask(env_id, kwargs):
    raw = spec(env_id).make_raw(**kwargs)
    syms = raw.encoder.symmetries()
    assert [s.name for s in syms] == ["identity", "rot180"]
    raw.reset(seed=0)
    start = raw.state.clone()
    checked = 0
    for seed in range(3):  # the empty board is its own rotation; random games bring links and the swap
        checked += _play_side_by_side(env_id, kwargs, start, start.clone(), syms[1], 30, seed=seed)
    assert checked >= 3 * 10
    n = kwargs["board_size"] ** 2
    assert syms[1].action_index[0] == n - 1 and syms[1].action_index[n] == n  # a corner hole; the swap stays


def test_manual_links_declare_no_symmetry_and_other_games_none_by_default():
    assert spec("twixt_v0").make_raw(board_size=8, links="manual").encoder.symmetries() == []
    assert spec("tantrix_v0").make_raw().encoder.symmetries() == []


def test_a_symmetry_must_be_made_of_permutations():
    with pytest.raises(ValueError, match="permutation"):
        Symmetry("bad", np.array([0, 0]), np.array([0, 1]))
    layout = spec("twixt_v0").make_raw(board_size=8).action_layout()
    with pytest.raises(ValueError, match="cell_map must be"):
        grid_symmetry("bad", layout, 23, np.arange(10), np.arange(23), [0])
