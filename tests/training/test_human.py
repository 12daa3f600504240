"""The person as an agent (``training.human.HumanAgent``) on the one game loop (``training.arena.play_game``)."""

from __future__ import annotations

import io

import numpy as np
import pytest

from envs.registry import make_raw
from training.agents import make_agent
from training.arena import GameAbandoned, play_game
from training.human import HumanAgent, help_text, seat_label


def _twixt_black_to_move():
    env = make_raw("twixt_v0", board_size=6)
    env.reset(seed=0)
    env.step(env.state.to_agent_action(0, env.state.string_to_action("c3")))
    return env


def test_human_move_comes_back_in_the_seat_frame():
    # TwixT's black sees the board transposed: what is typed (absolute) must come back in black's frame.
    env = _twixt_black_to_move()
    state = env.state
    assert state.current_player == 1
    typed = next(
        m
        for m in state.legal_moves()
        if state.to_agent_action(1, state.string_to_action(m)) != state.string_to_action(m)
    )
    out = io.StringIO()
    action = HumanAgent(stdin=io.StringIO(typed + "\n"), stdout=out).act(state, env.observe("player_1"))
    absolute = state.string_to_action(typed)
    assert action == state.to_agent_action(1, absolute) != absolute
    assert env.observe("player_1")["action_mask"][action] == 1
    assert out.getvalue() == f"{seat_label(state, 1)} to move> "
    env.step(action)
    assert state.history[-1] == absolute


def test_commands_illegal_moves_and_blank_lines_then_a_move():
    env = make_raw("ataxx_v0")
    env.reset(seed=0)
    out = io.StringIO()
    agent = HumanAgent(stdin=io.StringIO("\nMOVES\nboard\n?\nzz9\ng5\ng2\n"), stdout=out)
    action = agent.act(env.state, env.observe("player_0"))
    assert env.state.action_to_string(action) == "g2"
    text = out.getvalue()
    assert text.count("player_0 (x) to move> ") == 7  # one prompt per line read
    legal = env.state.legal_moves()
    assert f"{len(legal)} legal moves:" in text and help_text(env.state) in text
    assert env.state.to_text(viewer=0) in text
    assert "Illegal move: 'zz9' is not an Ataxx move" in text
    assert "Illegal move: illegal action" in text and "no x stone next to g5 to clone from" in text
    assert env.state.history == []  # nothing was played by the agent itself


@pytest.mark.parametrize(
    "script, said, reason",
    [
        ("quit\n", "You quit: the game is abandoned.", "quit"),
        ("Resign\n", "You quit: the game is abandoned.", "quit"),
        ("", "End of input: the game is abandoned.", "end of input"),
    ],
)
def test_quit_and_end_of_input_abandon_the_game(script, said, reason):
    env = make_raw("ataxx_v0")
    env.reset(seed=0)
    out = io.StringIO()
    with pytest.raises(GameAbandoned, match=f"^{reason}$"):
        HumanAgent(stdin=io.StringIO(script), stdout=out).act(env.state, env.observe("player_0"))
    assert said in out.getvalue()


def test_a_finished_game_has_no_move_to_ask_for():
    env = make_raw("ataxx_v0", fen="7/7/7/7/7/7/x6 o 0 1")  # o has no stone: the game is over
    env.reset(seed=0)
    with pytest.raises(ValueError, match="the game is over"):
        HumanAgent(stdin=io.StringIO("g2\n"), stdout=io.StringIO()).act(env.state, None)


def test_play_game_with_a_person_who_quits_after_two_moves():
    seen = []
    human = HumanAgent(stdin=io.StringIO("g2\nf1\nquit\n"), stdout=io.StringIO())
    result = play_game(
        "ataxx_v0",
        [human, make_agent("random")],
        seed=4,
        record=True,
        on_start=lambda env: seen.append(("start", env.state.history[:])),
        on_move=lambda env, p, a, n: seen.append((p, a, n)),
    )
    assert result.status == "abandoned" and result.abandoned and not result.truncated
    assert result.plies == 4 and result.moves[0] == "g2" and result.moves[2] == "f1"
    np.testing.assert_array_equal(result.returns, [0.0, 0.0])
    assert seen[0] == ("start", []) and [s[0] for s in seen[1:]] == [0, 1, 0, 1]
    assert [s[2] for s in seen[1:]] == result.moves and [s[1] for s in seen[1:]] == result.actions


def test_play_game_records_absolute_actions_that_replay():
    result = play_game(
        "twixt_v0", [make_agent("random"), make_agent("greedy")], seed=2, record=True, env_kwargs={"board_size": 6}
    )
    assert result.status == "finished" and len(result.actions) == len(result.moves) == result.plies
    replay = make_raw("twixt_v0", board_size=6)
    replay.reset(seed=2)
    for action, move in zip(result.actions, result.moves):
        assert replay.state.action_to_string(action) == move
        replay.state.apply(action)
    np.testing.assert_array_equal(replay.state.returns(), result.returns)


def test_play_game_refuses_an_env_together_with_kwargs():
    env = make_raw("ataxx_v0")
    with pytest.raises(ValueError, match="give either env"):
        play_game("ataxx_v0", [make_agent("random")] * 2, env=env, max_steps=3)
