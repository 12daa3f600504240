"""Agents on TwixT: frames (black acts on the transposed board), the distance heuristic, greedy."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from envs.twixt import TwixtState
from envs.twixt.heuristics import UNREACHABLE, connection_distance, distance_maps
from envs.twixt.heuristics import greedy_action as twixt_greedy_action
from training.agents import make_agent
from training.arena import head_to_head, play_game


@pytest.mark.parametrize(
    "env_id, spec",
    [
        (env_id, spec)
        for env_id in ("twixt_v0", "double_twixt_v0")
        for spec in ("random", "greedy", "alphabeta:1", "mcts:20")
        if not (spec.startswith("alphabeta") and env_id == "double_twixt_v0")  # alpha-beta: two players only
    ],
)
def test_agents_answer_legal_actions_in_their_own_frame(env_id, spec):
    raw = envs.make_raw(env_id, board_size=7)
    raw.reset(seed=1)
    agent = make_agent(spec, seed=0)
    plies = 0
    while not any(raw.terminations.values()) and plies < 60:
        agent_id = raw.agent_selection
        obs = raw.observe(agent_id)
        a = agent.act(raw.state, obs)
        assert obs["action_mask"][a] == 1, (spec, agent_id, a)
        raw.step(a)
        plies += 1
    assert plies > 4


def test_connection_distance_on_known_positions():
    s = TwixtState(8)
    # Empty 8x8 board: rows 1, 3, 5, 7, 8 (or similar): five pegs for either colour.
    assert connection_distance(s, 0) == 5 and connection_distance(s, 1) == 5
    for move in ("c1", "b3", "c3", "e4", "c5"):
        s.push(move)
    # red c1, c3, c5: c1-d3-c5 needs d3, then c5-d7-(b8 or f8): three more pegs.
    assert connection_distance(s, 0) == 3
    first, second, total = distance_maps(s, 0)
    assert total == 3
    assert first[0 * 8 + 2] == 0  # c1 is a red peg on red's first border
    assert first[0] == UNREACHABLE and first[8] == UNREACHABLE  # corner a1, black's column a


def test_distance_is_zero_for_a_winner_and_unreachable_when_blocked():
    s = TwixtState(6)
    # Red builds c1-d3-c5-d6? 6x6: rows 1..6. c1 (0,2), d3 (2,3), c5 (4,2), d6 is (5,3): c5-d6 is
    # not a knight move; use b6 ((5,1)): c5-b6? (1,-1) no. Use e6 ((5,4)): c5 (4,2) -> e6 (5,4) yes.
    for red, black in (("c1", "a2"), ("d3", "a4"), ("c5", "f2"), ("e6", None)):
        s.push(red)
        if black and not s.is_terminal():
            s.push(black)
    assert s.winners() == [0]
    assert connection_distance(s, 0) == 0


def test_greedy_extends_its_shortest_connection_and_blocks_a_closer_opponent():
    s = TwixtState(8)
    s.push("d1")  # black to move; red (1 peg) is not closer than black by the measure: extend
    f1, f2, black_total = distance_maps(s, 1)
    for seed in range(5):
        a = twixt_greedy_action(s, np.random.default_rng(seed))
        assert f1[a] + f2[a] - 1 == black_total  # a hole on one of black's shortest paths
    s = TwixtState(8)
    for move in ("c1", "b3", "c3", "e4", "c5"):
        s.push(move)  # black to move; red needs 3 more pegs, black 4: block red
    assert connection_distance(s, 0) == 3 and connection_distance(s, 1) == 4
    r1, r2, red_total = distance_maps(s, 0)
    for seed in range(5):
        a = twixt_greedy_action(s, np.random.default_rng(seed))
        assert r1[a] + r2[a] - 1 == red_total  # on one of red's shortest paths


def test_greedy_beats_random_and_double_team_beats_random_team():
    r = head_to_head(
        "twixt_v0", make_agent("greedy", 1), make_agent("random", 2), 10, seed=0, env_kwargs={"board_size": 8}
    )
    assert r["wins"] == 10
    r = head_to_head(
        "double_twixt_v0", make_agent("greedy", 1), make_agent("random", 2), 8, seed=0, env_kwargs={"board_size": 8}
    )
    assert r["wins"] == 8
    res = play_game(
        "double_twixt_v0",
        [make_agent("greedy", 1), make_agent("random", 2)] * 2,
        seed=3,
        env_kwargs={"board_size": 8},
        record=True,
    )
    assert res.returns.tolist() == [1.0, -1.0, 1.0, -1.0] and len(res.moves) == res.plies


def test_alphabeta_plays_double_twixt_by_teams():
    """Two teams are two sides: alpha-beta maximises on its own team's moves, beats a random team."""
    from training.agents import make_agent
    from training.arena import head_to_head

    r = head_to_head(
        "double_twixt_v0",
        make_agent("alphabeta:1", seed=0),
        make_agent("random", seed=1),
        4,
        seed=0,
        env_kwargs={"board_size": 6},
    )
    assert r["games"] == 4 and r["wins"] >= 3, r
