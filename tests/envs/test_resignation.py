"""Resignation in games of more than two sides (``GameState.resign``; the decisions of
``envs/tantrix/RULES.md`` and ``envs/smartrix/RULES.md``, section "Resignation"): the side is out,
play goes on without it, it ranks last and the rest are ranked by the rules' scoring; records keep
the resignations and replay them; games without resignations are unchanged."""

from __future__ import annotations

import numpy as np
import pytest

from envs.ataxx import AtaxxState
from envs.core.errors import IllegalActionError, InvalidPositionError
from envs.core.records import record_from_state, replay
from envs.registry import spec
from envs.smartrix import SmartrixState
from envs.tantrix import TantrixState

GAMES = {"tantrix_v0": TantrixState, "smartrix_v0": SmartrixState}


def _play(state, rng, plies=None):
    """Random legal moves (``plies`` of them, or to the end); the seats that moved."""
    movers = set()
    k = 0
    while not state.is_terminal() and (plies is None or k < plies):
        movers.add(state.current_player)
        state.apply(int(rng.choice(state.legal_actions())))
        k += 1
    return movers


@pytest.mark.parametrize("env_id", sorted(GAMES))
@pytest.mark.parametrize("n", [3, 4])
def test_a_resigned_player_is_out_and_play_goes_on_to_the_rules_result(env_id, n):
    st = GAMES[env_id](n, seed=5)
    rng = np.random.default_rng(1)
    _play(st, rng, plies=6)
    quitter = st.current_player
    ply = len(st.history)
    st.resign(quitter)
    assert not st.is_terminal() and st.current_player != quitter
    assert st.resignations == ((ply, quitter),)
    movers = _play(st, rng)
    assert quitter not in movers and len(movers) == n - 1  # the others all played on
    out = st.outcome()
    assert out is not None and out.returns[quitter] == -1.0 and quitter not in out.winners
    live = [p for p in range(n) if p != quitter]
    best = max(st.scores()[p] for p in live)
    assert set(out.winners) == {p for p in live if st.scores()[p] == best}  # the rules' scoring of the rest
    if len(out.winners) == 1:
        assert out.result == f"player {out.winners[0]} won"
    # the record keeps the resignation and replays to the same state and result
    rec = record_from_state(st, env_id, {"num_players": n})
    assert rec["resignations"] == [[ply, quitter]]
    again = replay(rec)
    assert again == st and again.outcome() == out
    assert replay(rec, upto=ply).resignations == ((ply, quitter),) and replay(rec, upto=ply - 1).resignations == ()


@pytest.mark.parametrize("env_id", sorted(GAMES))
def test_with_one_side_left_it_wins_at_once(env_id):
    st = GAMES[env_id](3, seed=2)
    _play(st, np.random.default_rng(0), plies=3)
    st.resign(0)
    st.resign(2)
    out = st.outcome()
    assert out.winners == (1,) and out.result == "player 1 won" and out.termination == "the other sides resigned"
    assert out.returns == (-1.0, 1.0, -1.0) and st.current_player == -1 and not st.legal_actions()


@pytest.mark.parametrize("env_id", sorted(GAMES))
def test_a_team_resigns_as_one(env_id):
    st = GAMES[env_id](4, teams=True, seed=4)
    _play(st, np.random.default_rng(0), plies=4)
    st.resign(3)  # the team of seats 1 and 3
    out = st.outcome()
    assert out.result == "team 0 won" and out.winners == (0, 2) and out.returns == (1.0, -1.0, 1.0, -1.0)
    assert out.termination == "the other sides resigned"


@pytest.mark.parametrize("env_id", sorted(GAMES))
def test_refused_resignations_change_nothing(env_id):
    st = GAMES[env_id](3, seed=1)
    st.resign(1)
    before = st.clone()
    with pytest.raises(IllegalActionError, match="already"):
        st.resign(1)
    with pytest.raises(ValueError):
        st.resign(3)
    assert st == before and st.resignations == before.resignations
    st.resign(0)
    with pytest.raises(IllegalActionError, match="over"):
        st.resign(2)


@pytest.mark.parametrize("env_id", sorted(GAMES))
def test_without_resignation_nothing_changes(env_id):
    st = GAMES[env_id](3, seed=3)
    _play(st, np.random.default_rng(2), plies=5)
    assert st.resignations == () and "resignations" not in record_from_state(st, env_id, {"num_players": 3})
    key = st.position_key()
    c = st.clone()
    c.resign(0)
    assert c.position_key() != key and st.position_key() == key and st.resignations == ()  # the clone only


def test_a_game_without_a_resignation_rule_says_so():
    from envs.core.state import GameState

    with pytest.raises(NotImplementedError, match="Ataxx has no resignation rule"):
        GameState.resign(AtaxxState(), 0)  # the contract's default


@pytest.mark.parametrize(
    ("env_id", "kwargs", "termination"),
    [
        ("ataxx_v0", {}, "o resigned"),
        ("twixt_v0", {"board_size": 8}, "black resigned"),
        ("double_twixt_v0", {"board_size": 8}, "black resigned"),
    ],
)
def test_in_a_game_of_two_sides_a_resignation_ends_it(env_id, kwargs, termination):
    env = spec(env_id).make_raw(**kwargs)
    env.reset(seed=0)
    st = env.state
    st.apply(st.legal_actions()[0])
    st.resign(st.num_players - 1)  # o, black (black B: the black team)
    out = st.outcome()
    assert out.result == "1-0" and out.termination == termination and out.winners[0] == 0
    assert st.current_player == -1 and not st.legal_action_mask().any()
    svg = st.to_svg(None)
    assert "to move" not in svg and ("1-0" in svg or "red won" in svg)  # the caption gives the result
    rec = record_from_state(st, env_id, kwargs)
    assert rec["resignations"] == [[1, st.num_players - 1]] and replay(rec) == st
    with pytest.raises(IllegalActionError, match="over"):
        st.resign(0)


def test_records_with_impossible_resignations_are_refused():
    rec = record_from_state(AtaxxState(), "ataxx_v0")
    for bad in ([[5, 1]], [[0, 2]], [[0, 0], [0, 1]], [[1, 0], [0, 1]], [[0]], "x"):
        rec["resignations"] = bad
        with pytest.raises(InvalidPositionError, match="resignations"):
            replay(rec)


def test_the_environment_passes_the_turn_and_ends_the_episode():
    env = spec("tantrix_v0").make_raw(num_players=3)
    env.reset(seed=7)
    first = env.agent_selection
    env.resign(first)
    assert env.agent_selection != first and not any(env.terminations.values())
    assert env.infos[first]["action_mask"].sum() == 0
    others = [a for a in env.possible_agents if a != first]
    env.resign(others[0])
    assert all(env.terminations.values())
    assert env.rewards[others[1]] == 1.0 and env.rewards[first] == -1.0 and env.rewards[others[0]] == -1.0
