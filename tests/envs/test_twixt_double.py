"""Double TwixT (four players, two teams): turn order, Privilege, team links and team rewards.

Seats in turn order: 0 red A, 1 black A, 2 red B, 3 black B (partners 0 & 2, 1 & 3). Action
``N + 1 + hole`` (``N = S * S``) places a peg *and* claims the team's Privilege, written ``c5!``:
the next opponent is skipped, the claimer's partner moves next, then the normal order resumes.
"""

from __future__ import annotations

import numpy as np
import pytest

from envs.core.state import IllegalActionError, ParameterError
from envs.twixt import TwixtState, hole_name


def new(size=8, **kw):
    return TwixtState(size, num_players=4, **kw)


def seats_after(state, moves):
    order = []
    for m in moves:
        order.append(state.current_player)
        state.push(m)
    return order


def test_action_space_and_mask_layout():
    s = new()
    n = 64
    assert s.num_actions == 2 * n + 1 and s.num_players == 4
    mask = s.legal_action_mask()
    assert mask.shape == (129,) and mask.dtype == np.int8
    assert mask[n] == 0  # swap: never legal with four players
    assert np.array_equal(mask[n + 1 :], mask[:n])  # claims mirror the placements while available
    assert int(mask.sum()) == 2 * 8 * 6
    assert s.action_to_string(n + 1 + 4 * 8 + 2) == "c5!" and s.string_to_action("C5!") == n + 1 + 34
    for a in range(s.num_actions):
        assert s.string_to_action(s.action_to_string(a)) == a
    with pytest.raises(ParameterError, match="swap"):
        TwixtState(8, num_players=4, swap=True)


def test_normal_turn_order_and_colours():
    s = new()
    order = seats_after(s, ["c3", "a4", "f3", "b6", "d6", "h4"])
    assert order == [0, 1, 2, 3, 0, 1]
    assert s.current_player == 2 and s.to_move_colour == 0
    assert [s.team_of(p) for p in range(4)] == [0, 1, 0, 1]
    pegs = s.pegs()
    assert pegs[2, 2] == 1 and pegs[3, 0] == 2 and pegs[2, 5] == 1 and pegs[5, 1] == 2
    # Seat 1 (black) may not use red's border rows, seat 2 (red) not black's columns.
    with pytest.raises(IllegalActionError, match="black's border column"):
        s.push("a5")


def test_privilege_skips_the_next_opponent_once_per_team():
    s = new()
    assert s.privilege_available(0) and s.privilege_available(1)
    order = seats_after(s, ["c3!"])  # red A claims: black A (seat 1) is skipped
    assert order == [0] and s.current_player == 2
    assert not s.privilege_available(0) and s.privilege_available(1)
    assert s.privilege_used(0) and not s.privilege_used(1)
    # Red's claim actions are gone for both red seats; black's remain.
    assert s.legal_action_mask()[65:].sum() == 0
    with pytest.raises(IllegalActionError, match="already claimed its Privilege"):
        s.push("d5!")
    order = seats_after(s, ["d5"])
    assert order == [2] and s.current_player == 3  # normal order resumes: black B
    m = s.legal_action_mask()
    assert np.array_equal(m[65:], m[:64]) and m[65:].sum() > 0
    # The other team claims on its very next move: red A (seat 0) is skipped, black A moves.
    order = seats_after(s, ["b6!"])
    assert order == [3] and s.current_player == 1
    assert not s.privilege_available(1)
    order = seats_after(s, ["g4", "f6", "g6", "e3", "b3"])
    assert order == [1, 2, 3, 0, 1]
    assert s.legal_action_mask()[65:].sum() == 0  # both teams used theirs
    assert s.moves()[:3] == ["c3!", "d5", "b6!"]


def test_partner_may_claim_for_the_team():
    s = new()
    seats_after(s, ["c3", "a4"])
    order = seats_after(s, ["f3!"])  # red B claims: black B (seat 3) is skipped
    assert order == [2] and s.current_player == 0
    seats_after(s, ["e5"])
    assert s.current_player == 1


def test_team_links_across_partners():
    s = new()
    seats_after(s, ["c3", "a6", "d5"])  # red A c3, black A a6, red B d5: one red link
    assert s.links() == [((2, 2), (4, 3), 0)]
    seats_after(s, ["b4"])  # black B b4 links to its partner's a6
    assert [(hole_name(*a), hole_name(*b), c) for a, b, c in s.links()] == [("c3", "d5", 0), ("b4", "a6", 1)]


def test_team_win_and_rewards():
    # Red A and red B build c1-d3-c5-e6 on a 6x6 board together; black plays harmlessly.
    s = new(6)
    seats_after(s, ["c1", "a2", "d3", "a4", "c5", "f2", "e6"])
    assert s.is_terminal() and s.winners() == [0, 2]
    assert s.returns().dtype == np.float64 and list(s.returns()) == [1.0, -1.0, 1.0, -1.0]
    assert s.current_player == -1 and not s.legal_action_mask().any()
    assert not s.privilege_available(0) and not s.privilege_available(1)  # game over


def test_black_team_win_rewards():
    s = new(6)
    # Red plays b2, d2, b4, b6 (no links); black A/B build a3-c4-e3-f5.
    seats_after(s, ["b2", "a3", "d2", "c4", "b4", "e3", "b6", "f5"])
    assert s.winners() == [1, 3] and list(s.returns()) == [-1.0, 1.0, -1.0, 1.0]


def test_winning_move_with_a_claim():
    s = new(6)
    seats_after(s, ["c1", "a2", "d3", "a4", "c5", "f2"])
    s.push("e6!")
    assert s.winners() == [0, 2] and list(s.returns()) == [1.0, -1.0, 1.0, -1.0]
    assert s.privilege_used(0)


def test_random_double_games_keep_turn_rules():
    rng = np.random.default_rng(2)
    for rules in ("standard", "pp"):
        for draw in ("early", "board_full"):
            for _ in range(30):
                s = new(7, rules=rules, draw=draw)
                used = [False, False]
                while not s.is_terminal():
                    p = s.current_player
                    mask = s.legal_action_mask()
                    assert mask[49] == 0
                    assert (mask[50:].sum() > 0) == (not used[p % 2])
                    la = s.legal_actions()
                    a = la[rng.integers(len(la))]
                    s.apply(a)
                    if a > 49:
                        used[p % 2] = True
                        expected = (p + 2) % 4
                    else:
                        expected = (p + 1) % 4
                    if not s.is_terminal():
                        assert s.current_player == expected
                r = s.returns()
                assert r[0] == r[2] and r[1] == r[3] and r[0] == -r[1]
