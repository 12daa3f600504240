"""The Tantrix robot (envs/tantrix/robot.py) and the game-offered agent spec ``robot``."""

from __future__ import annotations

import re

import numpy as np
import pytest

from envs.registry import game_agent_names, game_agents, spec
from envs.tantrix.heuristics import tantrix_greedy_action
from envs.tantrix.robot import GROWTH_ONE, GROWTH_TWO, TantrixRobot, line_prospects, predict_scores, robot_value
from envs.tantrix.state import NUM_TILES, TILES, TantrixState
from room.agents import RoomAgents
from training.agents import make_agent
from training.agents.game import GameAgent

RED, YELLOW = 1, 2
# Tile 2 on (0, 0) turned 1 and tile 3 on (1, 0) turned 5 make a red sharp curve whose two ends
# both face (1, -1); tile 11 turned 3 there closes the three-tile red loop.
TWO = [(2, 0, 0, 1), (3, 1, 0, 5)]
CLOSER = (11, 1, -1, 3)


def _rest(*used):
    return [t for t in range(1, NUM_TILES + 1) if t not in used]


def _greedy_position(seed: int, plies: int) -> TantrixState:
    s, rng = TantrixState(2, seed=seed), np.random.default_rng(0)
    for _ in range(plies):
        s.apply(tantrix_greedy_action(s, rng))
    return s


# ----------------------------------------------------------------------------- the evaluator
def test_a_closed_loop_scores_double_and_nothing_is_left_to_grow():
    s = TantrixState.from_position(tiles=TWO + [CLOSER], hands=[[], []], bag=[], num_players=2)
    assert s.is_terminal() and s.scores() == [6, 1]
    assert predict_scores(s) == {RED: 6.0, YELLOW: 1.0}
    red = [d for d in line_prospects(s) if d["colour"] == RED]
    assert red == [{"colour": RED, "first": 2, "tiles": 3, "loop": True, "ends": [], "closes_at": None, "value": 6.0}]
    # nothing left to place: every yellow end is dead, each one-tile line is worth its length
    assert [
        (d["tiles"], d["value"], [e[1] for e in d["ends"]]) for d in line_prospects(s) if d["colour"] == YELLOW
    ] == [(1, 1.0, [0.0, 0.0])] * 3


def test_two_ends_facing_one_space_are_a_loop_in_waiting():
    s = TantrixState.from_position(tiles=TWO, hands=[[], []], bag=_rest(2, 3), num_players=2)
    red = [d for d in line_prospects(s) if d["colour"] == RED]
    assert len(red) == 1 and red[0]["closes_at"] == (1, -1) and red[0]["tiles"] == 2
    assert red[0]["ends"] == [((1, -1), 1.0, False)] * 2
    # every tile that fits (1, -1) closes the loop: 2 x 3 tiles, whatever happens elsewhere
    assert red[0]["value"] == 6.0 and predict_scores(s)[RED] == 6.0


def test_a_live_line_grows_by_its_owners_fair_share_of_the_tiles_left():
    s = TantrixState.from_position(tiles=TWO, hands=[[], []], bag=_rest(2, 3), num_players=2)
    pool = _rest(2, 3)
    yellow_tiles = sum(1 for t in pool if "Y" in TILES[t])
    growth = GROWTH_TWO * (len(pool) / 2) * (yellow_tiles / len(pool))
    rows = [d for d in line_prospects(s) if d["colour"] == YELLOW]
    assert [d["tiles"] for d in rows] == [1, 1]
    for d in rows:  # two live ends each, no forced space
        assert [e[1:] for e in d["ends"]] == [(1.0, False), (1.0, False)]
        assert d["value"] == pytest.approx(1 + growth)
    assert predict_scores(s)[YELLOW] == pytest.approx(1 + growth)
    assert GROWTH_ONE < GROWTH_TWO


def test_ends_facing_blocked_spaces_are_dead_and_forced_ends_extend():
    s = _greedy_position(3, 30)
    blocked, forced = set(s.blocked_spaces()), set(s.forced_spaces())
    assert len(blocked) == 7 and len(forced) == 2 and s.bag_size > 0
    rows = line_prospects(s)
    ends = [e for d in rows for e in d["ends"]]
    for cell, weight, is_forced in ends:
        if cell in blocked:
            assert weight == 0.0 and not is_forced
        if cell in forced:
            assert is_forced
    # a yellow line of two tiles whose both ends face blocked spaces has no prospect: worth its length
    dead = [d for d in rows if d["colour"] == YELLOW and d["ends"] and all(e[0] in blocked for e in d["ends"])]
    assert [(d["tiles"], d["value"]) for d in dead] == [(2, 2.0)]
    # a line with one dead end grows at the one-end rate
    pool = [t for p in range(2) for t in s.hand(p) if t != -1] + s.bag_remaining()
    red_share = sum(1 for t in pool if "R" in TILES[t]) / len(pool)
    one = [d for d in rows if d["colour"] == RED and d["tiles"] == 10]
    assert len(one) == 1 and [e[1:] for e in one[0]["ends"]] == [(0.0, False), (1.0, False)]
    assert one[0]["value"] == pytest.approx(10 + GROWTH_ONE * len(pool) / 2 * red_share)


def test_the_prediction_reads_the_bag_as_a_set_only():
    s = _greedy_position(5, 20)
    t = TantrixState.from_position(
        tiles=s.placed,
        hands=[s.hand(p) for p in range(2)],
        bag=list(reversed(s.bag_remaining())),
        current_player=s.current_player,
        phase=s.phase,
    )
    assert predict_scores(s) == predict_scores(t)
    assert robot_value(s, 0) == robot_value(t, 0) == -robot_value(s, 1)


# ----------------------------------------------------------------------------- the robot
def _with_bag(s: TantrixState, bag) -> TantrixState:
    return TantrixState.from_position(
        tiles=s.placed,
        hands=[s.hand(p) for p in range(s.num_players)],
        bag=bag,
        current_player=s.current_player,
        phase=s.phase,
        num_players=s.num_players,
    )


@pytest.mark.parametrize("plies", [0, 9, 24])
def test_the_robot_never_reads_the_true_bag_order(plies):
    s = _greedy_position(11, plies)
    rest = s.bag_remaining()
    a, b = _with_bag(s, rest), _with_bag(s, rest[::-1])
    robot = TantrixRobot()
    for seed in range(3):
        assert robot.choose(a, np.random.default_rng(seed)) == robot.choose(b, np.random.default_rng(seed))
    assert s.bag_remaining() == rest  # not modified


def test_the_robot_is_deterministic_with_a_seed_and_plays_legal_moves_only():
    def game(seed):
        s = TantrixState(2, seed=seed)
        agents = [GameAgent("robot", seed=7), make_agent("random", seed=1)]
        moves = []
        while not s.is_terminal() and len(moves) < 30:
            action = agents[s.current_player].act(s, None)  # Agent.act checks legality too
            assert action in s.legal_actions()
            moves.append(action)
            s.apply(action)
        return moves, s.placed

    m1, p1 = game(3)
    m2, p2 = game(3)
    assert m1 == m2 and p1 == p2 and len(m1) == 30


def test_the_robot_refuses_bad_parameters_and_finished_games():
    with pytest.raises(ValueError, match=r"^robot width must be an integer >= 0, got -1$"):
        TantrixRobot(width=-1)
    with pytest.raises(ValueError, match=r"^robot samples must be an integer >= 1, got 0$"):
        TantrixRobot(samples=0)
    over = TantrixState.from_position(tiles=TWO + [CLOSER], hands=[[], []], bag=[], num_players=2)
    with pytest.raises(ValueError, match="the game is over"):
        TantrixRobot().choose(over, np.random.default_rng(0))


def test_the_robot_beats_greedy_on_fixed_deals():
    """Ten games (seats alternating), the robot's whole-turn lookahead alone (width 0, its
    cheapest setting, to keep the suite fast): it wins at least seven (measured: 10 of 10; the
    README's results give the full robot's 400-game figures)."""
    robot = TantrixRobot(samples=1, width=0)
    wins = 0
    for g in range(10):
        s, me, rng = TantrixState(2, seed=100 + g), g % 2, np.random.default_rng(g)
        while not s.is_terminal():
            if s.current_player == me:
                act = robot.choose(s, rng)
                assert act in s.legal_actions()
            else:
                act = tantrix_greedy_action(s, rng)
            s.apply(act)
        wins += s.returns()[me] > 0
    assert wins >= 7


@pytest.mark.parametrize("kwargs", [{"num_players": 3}, {"num_players": 4, "teams": True}])
def test_the_robot_plays_three_players_and_doubles(kwargs):
    s = TantrixState(**kwargs, seed=2)
    robot, rng = TantrixRobot(samples=1, width=2, reply_width=3), np.random.default_rng(0)
    for _ in range(12):
        a = robot.choose(s, rng)
        assert a in s.legal_actions()
        s.apply(a)
    assert len(s.placed) >= 12


# ----------------------------------------------------------------------------- the agent spec
def test_the_robot_spec_builds_for_tantrix_and_refuses_other_games():
    assert game_agents() == {"robot": ["Tantrix"]} and game_agent_names() == ["robot"]
    agent = make_agent("robot", seed=0)
    assert isinstance(agent, GameAgent) and agent.name == "robot"
    for kwargs in ({}, {"num_players": 3}, {"num_players": 4}, {"num_players": 4, "teams": True}):
        env = spec("tantrix_v0").make_raw(**kwargs)
        env.reset(seed=0)
        agent.check_env(env)
        player = env.state.current_player
        assert env.state.agent_action_mask(player)[agent.act(env.state, None)] == 1
    for env_id in ("ataxx_v0", "smartrix_v0"):
        env = spec(env_id).make_raw()
        env.reset(seed=0)
        name = env.state.info.long_name
        with pytest.raises(ValueError, match=f"^agent 'robot' is offered by Tantrix only, not by {name}$"):
            agent.check_env(env)
        with pytest.raises(ValueError, match=f"^agent 'robot' is offered by Tantrix only, not by {name}$"):
            agent.act(env.state, None)
    with pytest.raises(ValueError, match=r"^no game offers an agent named 'nobot'; game agents: robot$"):
        GameAgent("nobot")


def test_robot_w_sets_the_search_width_and_refuses_bad_settings():
    env = spec("tantrix_v0").make_raw()
    env.reset(seed=3)
    for text, width in (("robot", 2), ("robot:0", 0), ("robot:4", 4)):
        agent = make_agent(text, seed=0)
        agent.check_env(env)
        assert agent._player.width == width
        assert env.state.agent_action_mask(env.state.current_player)[agent.act(env.state, None)] == 1
    # width 0 is the whole-turn lookahead alone: the same choice as TantrixRobot(width=0) with the same generator
    s = _greedy_position(4, 6)
    want = TantrixRobot(width=0).choose(s, np.random.default_rng(7))
    got = GameAgent("robot", seed=0, arg=0)
    got.rng = np.random.default_rng(7)
    assert got.act(s, None) == want
    # width 1 plays as width 0 (one candidate: its answer cannot change the choice), at the same cost
    for seed in range(3):
        p = _greedy_position(seed, 8)
        assert TantrixRobot(width=1).choose(p, np.random.default_rng(seed)) == TantrixRobot(width=0).choose(
            p, np.random.default_rng(seed)
        )
    with pytest.raises(ValueError, match=r"^agent spec 'robot:-1': robot width must be an integer >= 0, got -1$"):
        GameAgent("robot", arg=-1)
    # one way to write each setting (found by a newcomer's test: int() took all of these)
    for bad in ("two", "-1", "+1", "01", "1_0", " 1", "1 ", "\u0663", ""):
        with pytest.raises(
            ValueError,
            match=f"^agent spec {re.escape(repr('robot:' + bad))}: expected an integer "
            r"after ':' \(digits 0-9, no sign or leading zero\), got ",
        ):
            make_agent("robot:" + bad, seed=0)
    for bad in ("mcts:0200", "alphabeta:+2"):
        with pytest.raises(ValueError, match="no sign or leading zero"):
            make_agent(bad, seed=0)
    with pytest.raises(ValueError, match=r"^agent 'robot': its setting must be an integer, got True$"):
        GameAgent("robot", arg=True)


def test_a_game_agent_without_a_setting_refuses_one(monkeypatch):
    import envs.registry as registry

    def plain():
        """An agent that takes no setting."""

    monkeypatch.setattr(registry, "_GAME_AGENTS", {"plain": {"Tantrix": plain}})
    assert registry.game_agent_factories("plain") == {"Tantrix": plain}
    assert registry.game_agent_factories("nobody") == {}
    with pytest.raises(ValueError, match=r"^agent 'plain' of Tantrix takes no setting, got plain:3$"):
        make_agent("plain:3", seed=0)


def test_the_room_lists_the_robot_for_tantrix_only(monkeypatch):
    room = RoomAgents()
    monkeypatch.setattr(room, "_shipped", lambda env_id, env_kwargs: [])  # no checkpoint loading: fast
    # which agents a game lists, not how fast this machine is: without this, the room's speed probe may
    # drop alpha-beta from a Tantrix menu when the cores are busy (seen once beside the suite's other worker)
    monkeypatch.setattr(room, "_too_slow", lambda agent, env, key: None)
    for env_id, kwargs, offered in (
        ("tantrix_v0", {}, True),
        ("tantrix_v0", {"num_players": 4, "teams": True}, True),
        ("ataxx_v0", {}, False),
    ):
        env = spec(env_id).make_raw(**kwargs)
        env.reset(seed=0)
        names = [m.name for m in room.menu(env, env_id, kwargs)]
        assert names[:3] == ["random", "greedy", "alphabeta:2"] and ("robot" in names) is offered
    assert room.summary("robot").startswith("Tantrix robot: predicts each colour's final score")
    assert room.spec_of("robot", "tantrix_v0", {}) == "robot"
