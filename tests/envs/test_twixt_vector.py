"""Targeted checks of the batched TwixT / Double TwixT core (envs/twixt/vector.py).

Hand-built positions (reference states, loaded with ``vec.from_states``) are stepped on the
batched core and on the reference backend in lockstep; after every step everything the vector
API returns, every seat's view and ``to_state`` are compared (``tests/vector_check.compare``), and
the rule at stake is asserted on the resulting games (links made or not, winner, draw, seats).
"""

from __future__ import annotations

import numpy as np
import pytest
from vector_check import compare, differential

import envs
from envs.core.state import ParameterError
from envs.twixt.state import TwixtState


def _pair(env_id, states, **kw):
    """The batched and the reference vector env loaded with ``states``, compared once."""
    kw.setdefault("board_size", states[0].board_size)
    fast = envs.make_vec(env_id, 1, autoreset="disabled", **kw).from_states(states)
    ref = envs.make_vec(env_id, 1, autoreset="disabled", backend="reference", **kw).from_states(states)
    assert fast.backend != "reference" and ref.backend == "reference"
    assert np.array_equal(fast.current_player(), ref.current_player())
    assert np.array_equal(fast.action_mask(), ref.action_mask())
    for p in range(fast.num_players):
        assert np.array_equal(fast.observe(p), ref.observe(p))
    for i in range(len(states)):
        assert fast.to_state(i) == ref.to_state(i) == states[i]
    return fast, ref


def _play(fast, ref, moves, step0=0):
    """Play ``moves`` (one list of move texts per game, ``None`` for "no move": the game is
    over) on both, comparing after each step; returns the last pair of results."""
    out = None
    for k in range(max(len(m) for m in moves)):
        acts = np.zeros(fast.num_envs, dtype=np.int64)
        for i, seq in enumerate(moves):
            if k < len(seq):
                st = ref.to_state(i)
                a = st.string_to_action(seq[k])
                acts[i] = st.to_agent_action(st.current_player, a)
        of, orf = fast.step(acts), ref.step(acts)
        compare(fast, ref, of, orf, step0 + k)
        out = (of, orf)
    return out


def _settings(env_id, kw):
    return dict(kw, num_players=4 if env_id == "double_twixt_v0" else 2)


# ---------------------------------------------------------------------------- links
@pytest.mark.parametrize("rules", ["standard", "pp"])
def test_crossing_links_standard_vs_pp(rules):
    kw = dict(board_size=8, rules=rules)
    # red c3-d5; black d3 then c5 would cross it (blocked under both rules); red's own d3-c5
    # (game 1) crosses red's c3-d5: blocked with "standard", made with "pp".
    s0 = TwixtState.from_moves("c3 g6 d5", **kw)
    assert s0.has_link((2, 2), (4, 3)) == 0
    fast, ref = _pair("twixt_v0", [s0, s0], **kw)
    _play(fast, ref, [["d3", "b7", "c5", "e2"], ["a7", "d3", "h2", "c5"]])
    black, red = fast.to_state(0), fast.to_state(1)
    assert black.peg_at(2, 3) == black.peg_at(4, 2) == 2
    assert black.has_link((2, 3), (4, 2)) is None  # the opponent's link always blocks
    assert red.peg_at(2, 3) == red.peg_at(4, 2) == 1
    assert red.has_link((2, 3), (4, 2)) == (None if rules == "standard" else 0)
    assert red.has_link((2, 2), (4, 3)) == 0
    # the observation's link planes agree with the rules: red's link from c5 towards d3
    obs = fast.observe(0)[1]
    assert obs[4, 2].sum() > 0  # the peg plane at least
    assert np.array_equal(obs, ref.observe(0)[1])


# ---------------------------------------------------------------------------- wins
def test_red_wins_through_links():
    s0 = TwixtState(5)
    fast, ref = _pair("twixt_v0", [s0])
    of, orf = _play(fast, ref, [["c1", "a2", "d3", "a4", "c5"]])
    assert of.terminated[0] and of.current_player[0] == -1
    assert of.rewards[0].tolist() == [1.0, -1.0]
    st = fast.to_state(0)
    assert st.has_link((0, 2), (2, 3)) == 0 and st.has_link((2, 3), (4, 2)) == 0
    assert st.returns().tolist() == [1.0, -1.0]


def test_black_wins_through_links_in_its_transposed_frame():
    s0 = TwixtState(5)
    fast, ref = _pair("twixt_v0", [s0])
    # black's agent actions are transposed: a3 (row 2, col 0) is agent action 0 * 5 + 2
    st = ref.to_state(0)
    st.apply(st.string_to_action("b5"))
    assert st.to_agent_action(1, st.string_to_action("a3")) == 2
    of, orf = _play(fast, ref, [["b5", "a3", "d5", "c2", "b1", "e3"]])
    assert of.terminated[0] and of.rewards[0].tolist() == [-1.0, 1.0]
    st = fast.to_state(0)
    assert st.has_link((2, 0), (1, 2)) == 1 and st.has_link((1, 2), (2, 4)) == 1
    # black's own view of its links is the transposed board: its peg a3 sits at (0, 2)
    v = fast.observe(1)[0]
    assert np.array_equal(v, ref.observe(1)[0])
    assert not np.array_equal(v, fast.observe(0)[0])


def test_black_mask_is_transposed():
    s0 = TwixtState.from_moves("b1", board_size=6)  # black to move; row 1 is not black's
    fast, ref = _pair("twixt_v0", [s0], board_size=6)
    m = fast.action_mask()[0]
    assert np.array_equal(m, ref.action_mask()[0])
    # black may not play on rows 1 and 6 (state frame) = columns a and f of its own frame
    grid = m[:36].reshape(6, 6)
    assert not grid[:, 0].any() and not grid[:, 5].any() and grid[1:5, 1:5].all()


# ---------------------------------------------------------------------------- swap
def test_swap_transposes_the_first_peg():
    kw = dict(board_size=8, swap=True)
    s0 = TwixtState.from_moves("b1", **kw)  # b1 is on red's border; transposed a2, black's border
    fast, ref = _pair("twixt_v0", [s0], **kw)
    assert fast.action_mask()[0, 64]  # swap is legal on ply 1
    of, orf = _play(fast, ref, [["swap"]])
    st = fast.to_state(0)
    assert st.peg_at(0, 1) == 0 and st.peg_at(1, 0) == 2
    assert of.current_player[0] == 0 and not of.action_mask[0, 64]
    assert st._ply == 2
    # black (the swapper) connects through its swapped peg: a2 - c3 - e2 - g3 - h5
    of, orf = _play(fast, ref, [["d1", "c3", "d8", "e2", "e8", "g3", "f8", "h5"]], step0=1)
    assert of.terminated[0] and of.rewards[0].tolist() == [-1.0, 1.0]


# ---------------------------------------------------------------------------- draws
@pytest.mark.parametrize(
    "moves,first",
    [
        ("d4 b4 d1 c3 b5 d2 c2 c4 d3 b3", 1),  # black loses first, then red
        ("c5 c2 b1 c3 d2 d4 b5 b3 b4 e3 d5 a2", 0),  # red first, then black
        ("d3 b3 d1 e3 c3 d4", None),  # both on the same move
    ],
)
def test_early_draw_by_reachability(moves, first):
    moves = moves.split()
    s0 = TwixtState(5)
    fast, ref = _pair("twixt_v0", [s0])
    seen = None
    for k, m in enumerate(moves):
        of, orf = _play(fast, ref, [[m]], step0=k)
        st = fast.to_state(0)
        if k < len(moves) - 1:
            assert not of.terminated[0]
            can = [st.can_still_connect(c) for c in (0, 1)]
            assert can == [ref.to_state(0).can_still_connect(c) for c in (0, 1)]
            if seen is None and not all(can):
                seen = can.index(False)
    assert seen == first
    assert of.terminated[0] and of.rewards[0].tolist() == [0.0, 0.0] and of.current_player[0] == -1
    assert st._status == 3 and st._navail[0] > 0 and st._navail[1] > 0  # holes left: an early draw


def test_board_full_draw():
    moves = "c2 c4 b2 b3 d4 d3 b1 a2 c5 b4 d5 c3 b5 e2 d1 a4 c1 a3 d2 e3".split()
    kw = dict(draw="board_full")
    s0 = TwixtState.from_moves(moves[:-1], board_size=5, **kw)
    assert not s0.can_still_connect(0) and not s0.can_still_connect(1) and not s0.is_terminal()
    fast, ref = _pair("twixt_v0", [s0], board_size=5, **kw)
    of, orf = _play(fast, ref, [moves[-1:]])
    st = fast.to_state(0)
    assert of.terminated[0] and of.rewards[0].tolist() == [0.0, 0.0]
    assert st._status == 3 and st._navail[0] == 0  # red, to move, has no legal hole


# ---------------------------------------------------------------------------- Double TwixT
def test_double_twixt_seats_teams_and_privilege():
    kw = dict(board_size=8)
    s0 = TwixtState(8, num_players=4)
    fast, ref = _pair("double_twixt_v0", [s0], **kw)
    assert fast.num_players == 4 and fast.action_mask().shape == (1, 2 * 64 + 1)
    of, _ = _play(fast, ref, [["c3"]])
    assert of.current_player[0] == 1
    of, _ = _play(fast, ref, [["b4"]], step0=1)
    assert of.current_player[0] == 2
    # red B claims red's Privilege with its move: its partner red A (seat 0) moves next
    assert of.action_mask[0, 65:].any()
    of, _ = _play(fast, ref, [["d5!"]], step0=2)
    assert of.current_player[0] == 0
    st = fast.to_state(0)
    assert st.privilege_used(0) and not st.privilege_used(1) and st.has_link((2, 2), (4, 3)) == 0
    assert not of.action_mask[0, 65:].any()  # red's Privilege is spent
    of, _ = _play(fast, ref, [["e7"]], step0=3)
    assert of.current_player[0] == 1 and of.action_mask[0, 65:].any()  # black's is not
    # black A claims: its partner black B (seat 3) moves next
    of, _ = _play(fast, ref, [["g2!"]], step0=4)
    assert of.current_player[0] == 3
    # red finishes its connection: d1 - c3 - d5 - e7 - g8, top to bottom
    of, _ = _play(fast, ref, [["a5", "d1", "h5", "g8"]], step0=5)
    st = fast.to_state(0)
    assert of.terminated[0], st
    assert of.rewards[0].tolist() == [1.0, -1.0, 1.0, -1.0]


# ---------------------------------------------------------------------------- observation
def test_distance_planes():
    kw = dict(board_size=8, distance_planes=True)
    s0 = TwixtState.from_moves("c3 b4 d5 g6 e7", board_size=8)
    fast, ref = _pair("twixt_v0", [s0], **kw)
    obs = fast.observe(1)
    assert obs.shape == (1, 8, 8, 27) and obs.dtype == np.float32
    assert np.array_equal(obs, ref.observe(1))
    assert len(np.unique(obs[0, :, :, -4:])) > 2  # real distances, not constant planes
    _play(fast, ref, [["b6", "f4", "c2"]])


# ---------------------------------------------------------------------------- settings
@pytest.mark.parametrize("env_id", ["twixt_v0", "double_twixt_v0"])
def test_manual_links_refused_naming_the_reference(env_id):
    with pytest.raises(ParameterError, match="backend='reference'"):
        envs.make_vec(env_id, 2, links="manual")
    vec = envs.make_vec(env_id, 2, links="manual", backend="reference")
    assert vec.backend == "reference"


def test_set_states_refuses_another_setting():
    vec = envs.make_vec("twixt_v0", 2, board_size=8)
    with pytest.raises(ParameterError, match="board_size"):
        vec.from_states([TwixtState(9)])
    with pytest.raises(ParameterError, match="rules"):
        vec.from_states([TwixtState(8, rules="pp")])


@pytest.mark.parametrize("size,games,plies", [(5, 200, None), (48, 4, 120)])
def test_board_sizes_5_and_48(size, games, plies):
    got = differential("twixt_v0", dict(board_size=size), games=games, batch=min(games, 50), seed=7, max_plies=plies)
    assert got["games"] >= games and got["plies"] > 0
