"""Property tests (hypothesis) for invariants of the TwixT rules core.

Hypothesis draws the settings (board size 5-10, rules, swap, draw rule, 2 or 4 players) and a
sequence of choices; each choice picks one of the legal actions (index modulo their number), so
every drawn game is legal. After every ply:

* every link joins two pegs of its colour a knight's move apart; no two links cross with
  ``rules="standard"``; no two links of different colours cross with ``"pp"``;
* automatic linking is complete: two pegs of one colour a knight's move apart are linked unless an
  existing link blocking them (any link / an opponent's) crosses the pair;
* ``link_planes()`` and ``pegs()`` agree with ``links()`` and the move history;
* the winner is what a flood fill over the links says, and the game is over exactly when someone won
  or a draw rule applies;
* the mask is exactly the empty holes of the mover's legal area (plus swap / Privilege);
* ``clone()``, ``pickle`` and notation round-trips give equal states.
"""

from __future__ import annotations

import pickle

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from envs.twixt import KNIGHT_DIRS, TwixtState, segments_cross

SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def winning_colour(state):
    """0 (red) or 1 (black) when a colour has won, else ``None`` (game on, or a draw)."""
    w = state.winners()
    return w[0] % 2 if len(w) == state.num_players // 2 else None


@st.composite
def games(draw):
    size = draw(st.integers(5, 10))
    players = draw(st.sampled_from([2, 4]))
    kw = dict(
        board_size=size,
        rules=draw(st.sampled_from(["standard", "pp"])),
        draw=draw(st.sampled_from(["early", "board_full"])),
        num_players=players,
        swap=draw(st.booleans()) if players == 2 else False,
    )
    choices = draw(st.lists(st.integers(0, 10_000), min_size=size * size // 3, max_size=size * size))
    return kw, choices


def _check_links(state):
    s = state.board_size
    pegs = state.pegs()
    links = state.links()
    linked = set()
    for (r1, c1), (r2, c2), colour in links:
        assert pegs[r1, c1] == pegs[r2, c2] == colour + 1
        assert {abs(r2 - r1), abs(c2 - c1)} == {1, 2}
        linked.add(frozenset(((r1, c1), (r2, c2))))
    for i, (a1, a2, ca) in enumerate(links):
        for b1, b2, cb in links[i + 1 :]:
            if state.rules == "standard" or ca != cb:
                assert not segments_cross(a1, a2, b1, b2)
    # Completeness of automatic linking.
    for r in range(s):
        for c in range(s):
            v = pegs[r, c]
            if not v:
                continue
            for dr, dc in KNIGHT_DIRS:
                r2, c2 = r + dr, c + dc
                if 0 <= r2 < s and 0 <= c2 < s and pegs[r2, c2] == v:
                    if frozenset(((r, c), (r2, c2))) in linked:
                        continue
                    assert any(
                        segments_cross((r, c), (r2, c2), b1, b2)
                        for b1, b2, cb in links
                        if state.rules == "standard" or cb != v - 1
                    ), ((r, c), (r2, c2))
    planes = state.link_planes()
    assert int(planes.sum()) == 2 * len(links)
    for (r1, c1), (r2, c2), colour in links:
        d = KNIGHT_DIRS.index((r2 - r1, c2 - c1))
        assert planes[colour, d, r1, c1] == 1 and planes[colour, (d + 4) % 8, r2, c2] == 1


def _flood_winner(state):
    s = state.board_size
    parent = {}

    def find(x):
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for a, b, colour in state.links():
        parent[find((colour, a))] = find((colour, b))
    pegs = state.pegs()
    for colour in (0, 1):
        ends = [[], []]
        for i in range(s):
            for j, edge in ((0, 0), (1, s - 1)):
                h = (edge, i) if colour == 0 else (i, edge)
                if pegs[h] == colour + 1:
                    ends[j].append(find((colour, h)))
        if set(ends[0]) & set(ends[1]):
            return colour
    return None


@SETTINGS
@given(games())
def test_invariants_along_random_games(game):
    kw, choices = game
    state = TwixtState(**kw)
    n = kw["board_size"] ** 2
    for choice in choices:
        if state.is_terminal():
            break
        mask = state.legal_action_mask()
        colour = state.to_move_colour
        pegs = state.pegs().ravel()
        s = kw["board_size"]
        for a in range(n):
            r, c = divmod(a, s)
            corner = r in (0, s - 1) and c in (0, s - 1)
            border = c in (0, s - 1) if colour == 0 else r in (0, s - 1)
            assert mask[a] == int(pegs[a] == 0 and not corner and not border)
        assert mask[n] == int(state.swap_available())
        if kw["num_players"] == 4:
            assert np.array_equal(mask[n + 1 :], mask[:n] * state.privilege_available(colour))
        legal = state.legal_actions()
        action = legal[choice % len(legal)]
        assert state.string_to_action(state.action_to_string(action)) == action
        before = state.clone()
        state.apply(action)
        assert before != state
        _check_links(state)
        w = _flood_winner(state)
        assert winning_colour(state) == w
        if w is not None:
            assert state.is_terminal()
        elif state.is_terminal():
            assert str(state.outcome()) == "1/2-1/2"
            if state.draw == "early":
                assert (
                    not state.can_still_connect(0)
                    and not state.can_still_connect(1)
                    or not np.any(
                        TwixtState.from_moves(state.moves(), **{**kw, "draw": "board_full"}).legal_action_mask()
                    )
                )
        assert int((state.pegs() > 0).sum()) == state.turn_number - (1 if "swap" in state.moves() else 0)
    assert state.clone() == state
    assert pickle.loads(pickle.dumps(state)) == state
    assert TwixtState.from_moves(state.moves(), **kw) == state
    r = state.returns()
    assert r.shape == (kw["num_players"],) and r.dtype == np.float64 and float(r.sum()) == 0.0
