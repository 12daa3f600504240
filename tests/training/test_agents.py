"""Baseline and trained agents (``training.agents``) and the arena (``training.arena``).

Hand-built Ataxx positions are written as board diagrams (rank 7 first, ``x`` to move unless
stated), turned into FEN by :func:`conftest.diagram`.
"""

from __future__ import annotations

import dataclasses
import math
import re
import shutil
import zipfile

import numpy as np
import pytest

from conftest import diagram, tiny_checkpoint
from envs.ataxx import PASS_ACTION, AtaxxState
from envs.registry import make_raw
from training.agents import (
    AlphaBetaAgent,
    GreedyAgent,
    MCTSAgent,
    PolicyAgent,
    RandomAgent,
    make_agent,
    parse_checkpoint_spec,
    policy_action,
)
from training.arena import head_to_head, play_game

# x (c3) can clone to d4, next to all of c5, d5 and e5: +3 stones captured, the most of any move
# (b4 and c4 capture fewer; no jump reaches a square next to three o stones).
GREEDY_FEN = diagram("""
. . . . . . .
. . . . . . .
. . o o o . .
. . . . . . .
. . x . . . .
. . . . . . .
. . . . . . o
""")

# o has two stones, a7 and c5; b6 is the only square next to both, and only x's c6 reaches it:
# the clone b6 captures every o stone and wins at once (b7, b5, d6... capture one stone at most).
WIN_FEN = diagram("""
o . . . . . .
. . x . . . .
. . o . . . .
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . x
""")

# Greedy's b5 (clone from c5, captures b6 and b4: stone difference +4) leaves b4, b5 and c5 next
# to the empty c4, which o reaches with the jump e2c4, recapturing all three (difference -2 for
# x). The jump c5a5 captures the same two stones (+3) and leaves nothing o can take back in more
# than one stone (+1 after o's best reply): alpha-beta at depth 2 plays c5a5, depth 1 plays b5.
TRAP_FEN = diagram("""
. . . . x . .
. o . x x . .
. . x . . . .
. o . . . . .
. . . . . . .
. . . . o o o
x . . o . . .
""")

# o's eight stones ring the empty d4; x's d6 jumps into it (d6d4) and captures all eight, winning
# at once. Every other move leaves x far behind.
MCTS_FEN = diagram("""
x . . . . . .
. . . x . . .
. . o o o . .
. . o . o . .
. . o o o . .
. . . . . . .
. . . . . . x
""")

# x's only stone, a1, is walled in by o: x must pass (0000), the game goes on.
PASS_FEN = diagram("""
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
o o o . . . .
o o o . . . .
x o o . . . .
""")


def _obs(state: AtaxxState) -> dict:
    """The observation of the side to move in ``state`` (through the environment)."""
    env = make_raw("ataxx_v0", fen=state.fen())
    env.reset(seed=0)
    return env.observe(env.agent_selection)


def _positions() -> list[AtaxxState]:
    """Start, PASS_FEN and positions after 4..40 random plies of seeded random games."""
    out = [AtaxxState(), AtaxxState(PASS_FEN)]
    rng = np.random.default_rng(1234)
    for plies in (4, 12, 25, 40):
        s = AtaxxState()
        for _ in range(plies):
            if s.is_terminal():
                break
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
        if not s.is_terminal():
            out.append(s)
    return out


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> str:
    """An untrained MaskablePPO checkpoint with the Ataxx spaces (as ``training.train`` saves)."""
    return str(tiny_checkpoint(tmp_path_factory.mktemp("ckpt") / "tiny.zip"))


@pytest.mark.parametrize("spec", ["random", "greedy", "mcts:10", "alphabeta:1", "alphabeta:2", "checkpoint"])
def test_every_agent_plays_legal_moves(spec, checkpoint):
    agent = make_agent(checkpoint if spec == "checkpoint" else spec, seed=7)
    for state in _positions():
        before = state.fen()
        obs = _obs(state)
        action = agent.act(state, obs)
        assert isinstance(action, int)
        assert obs["action_mask"][action] == 1, f"{spec} played illegal {action} in {before}"
        assert state.fen() == before, f"{spec} modified the state"
        if state.fen() == AtaxxState(PASS_FEN).fen():
            assert action == PASS_ACTION


def test_checkpoint_agent_is_a_policy_agent(checkpoint):
    agent = make_agent(checkpoint)
    assert isinstance(agent, PolicyAgent) and agent.deterministic and agent.name == "tiny"
    assert not make_agent(checkpoint + ":sample").deterministic


def test_greedy_takes_the_most_stones():
    state = AtaxxState(GREEDY_FEN)
    for seed in range(5):
        assert state.action_to_string(GreedyAgent(seed).act(state, _obs(state))) == "d4"


@pytest.mark.parametrize("depth", [1, 2])
def test_alphabeta_finds_the_winning_capture(depth):
    state = AtaxxState(WIN_FEN)
    action = AlphaBetaAgent(depth, seed=0).act(state, _obs(state))
    assert state.action_to_string(action) == "b6"
    state.apply(action)
    assert state.is_terminal() and state.winners() == [0]


def test_alphabeta_2_avoids_the_recapture():
    state = AtaxxState(TRAP_FEN)
    for seed in range(3):
        assert state.action_to_string(GreedyAgent(seed).act(state, None)) == "b5"
        assert state.action_to_string(AlphaBetaAgent(1, seed=seed).act(state, None)) == "b5"
        assert state.action_to_string(AlphaBetaAgent(2, seed=seed).act(state, _obs(state))) == "c5a5"
    # The reason, move by move: after b5, o's e2c4 takes back three stones.
    trap = state.clone()
    trap.push("b5")
    assert trap.stone_counts() == (8, 4)
    trap.push("e2c4")
    assert trap.stone_counts() == (5, 7)


def test_mcts_finds_the_win_in_one():
    state = AtaxxState(MCTS_FEN)
    for seed in range(2):
        action = MCTSAgent(200, seed=seed).act(state, _obs(state))
        assert state.action_to_string(action) == "d6d4"
    assert make_agent("mcts:200", seed=2).act(state, None) == state.string_to_action("d6d4")


def test_make_agent_specs():
    assert isinstance(make_agent("random"), RandomAgent)
    assert isinstance(make_agent("greedy"), GreedyAgent)
    m = make_agent("mcts:50")
    assert isinstance(m, MCTSAgent) and m.simulations == 50 and m.name == "mcts:50"
    assert make_agent("mcts").simulations == 200
    ab = make_agent("alphabeta:3")
    assert isinstance(ab, AlphaBetaAgent) and ab.depth == 3 and ab.name == "alphabeta:3"
    assert make_agent("alphabeta").depth == 2


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nonsense", "unknown agent spec"),
        ("random:3", "unknown agent spec"),
        ("", "non-empty string"),
        ("mcts:abc", "expected an integer"),
        ("mcts:0", "positive integer"),
        ("alphabeta:0", "positive integer"),
        ("alphabeta:-1", r"expected an integer after ':' \(digits 0-9, no sign or leading zero\), got '-1'$"),
    ],
)
def test_make_agent_rejects_bad_specs(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec)


def test_make_agent_missing_checkpoint(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        make_agent(str(tmp_path / "nowhere.zip"))


def _not_a_checkpoint(path: str) -> str:
    return re.escape(f"{path} is not a MaskablePPO checkpoint written by training.train: ")


def test_empty_zip_is_not_a_checkpoint(tmp_path):
    path = tmp_path / "empty.zip"
    zipfile.ZipFile(path, "w").close()
    with pytest.raises(ValueError, match=_not_a_checkpoint(str(path)) + "No data found in the saved file") as exc:
        make_agent(str(path))
    assert isinstance(exc.value.__cause__, AssertionError)  # what SB3 raised, kept as the cause
    with pytest.raises(ValueError, match=_not_a_checkpoint(str(path))):
        PolicyAgent(path)


def test_foreign_files_are_not_checkpoints(tmp_path):
    text = tmp_path / "notes.zip"
    text.write_text("not a zip at all")
    with pytest.raises(ValueError, match=_not_a_checkpoint(str(text))):
        make_agent(str(text))
    foreign = tmp_path / "foreign.zip"
    with zipfile.ZipFile(foreign, "w") as z:
        z.writestr("data", "{}")
    with pytest.raises(ValueError, match=_not_a_checkpoint(str(foreign))):
        make_agent(str(foreign) + ":sample")
    folder = tmp_path / "folder.zip"
    folder.mkdir()
    with pytest.raises(ValueError, match=f"^checkpoint {re.escape(str(folder))} is not a file$"):
        make_agent(str(folder))


@pytest.mark.parametrize(
    "spec, parsed",
    [
        ("/tmp/a:b/final.zip", ("/tmp/a:b/final.zip", False)),
        ("/tmp/a:b/final.zip:sample", ("/tmp/a:b/final.zip", True)),
        ("runs/x.zip", ("runs/x.zip", False)),
        ("runs/x.zip:sample", ("runs/x.zip", True)),
        ("C:/models/M.ZIP", ("C:/models/M.ZIP", False)),
        ("a.zip:sample:sample", None),  # ends in neither .zip nor .zip:sample
        ("mcts:200", None),
        ("random", None),
    ],
)
def test_parse_checkpoint_spec(spec, parsed):
    assert parse_checkpoint_spec(spec) == parsed


def test_checkpoint_spec_with_a_bad_option():
    with pytest.raises(
        ValueError, match=re.escape("checkpoint spec 'm.zip:fast': the only option is ':sample', got 'fast'")
    ):
        make_agent("m.zip:fast")


def test_checkpoint_path_with_a_colon(checkpoint, tmp_path):
    folder = tmp_path / "a:b"
    folder.mkdir()
    path = folder / "final.zip"
    shutil.copy(checkpoint, path)
    agent = make_agent(str(path))
    assert isinstance(agent, PolicyAgent) and agent.deterministic and agent.name == "final"
    sampled = make_agent(f"{path}:sample")
    assert isinstance(sampled, PolicyAgent) and not sampled.deterministic
    state = AtaxxState()
    obs = _obs(state)
    assert obs["action_mask"][agent.act(state, obs)] == 1
    with pytest.raises(FileNotFoundError, match=re.escape(f"checkpoint {folder / 'other.zip'} does not exist")):
        make_agent(str(folder / "other.zip:sample"))


FINISHED_FEN = "xxxxxxx/7/7/7/7/7/7 x 0 1"  # o has no stone left: the game is over


@pytest.mark.parametrize("spec", ["random", "greedy", "mcts:10", "alphabeta:1", "alphabeta:2", "checkpoint"])
def test_agents_refuse_to_move_in_a_finished_game(spec, checkpoint):
    agent = make_agent(checkpoint if spec == "checkpoint" else spec, seed=0)
    state = AtaxxState(FINISHED_FEN)
    assert state.current_player == -1
    expected = f"{agent.name} cannot choose an action: the game is over (state.current_player is -1)"
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        agent.act(state, _obs(state))
    if spec != "checkpoint":
        with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
            agent.act(state, None)


@pytest.mark.parametrize("spec", ["random", "greedy", "mcts:10", "alphabeta:1", "checkpoint"])
def test_agents_refuse_an_empty_action_mask(spec, checkpoint):
    agent = make_agent(checkpoint if spec == "checkpoint" else spec, seed=0)
    state = AtaxxState()
    obs = _obs(state)
    obs = {"observation": obs["observation"], "action_mask": np.zeros_like(obs["action_mask"])}
    expected = (
        f"{agent.name} cannot choose an action: no legal action in this position "
        "(the game is over, or the action mask is empty)"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        agent.act(state, obs)


def test_policy_agent_needs_the_observation(checkpoint):
    agent = make_agent(checkpoint)
    with pytest.raises(ValueError, match=re.escape("tiny: a policy agent needs the observation dict, got obs=None")):
        agent.act(AtaxxState(), None)
    obs = _obs(AtaxxState())
    with pytest.raises(ValueError, match="the action mask has no legal action"):
        policy_action(agent.policy, obs["observation"], np.zeros_like(obs["action_mask"]))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"value_scale": 0}, "MCTS value_scale must be None or a finite number > 0, got 0"),
        ({"value_scale": -1.0}, "MCTS value_scale must be None or a finite number > 0, got -1.0"),
        ({"value_scale": math.inf}, "MCTS value_scale must be None or a finite number > 0, got inf"),
        ({"value_scale": "10"}, "MCTS value_scale must be None or a finite number > 0, got '10'"),
        ({"value_scale": True}, "MCTS value_scale must be None or a finite number > 0, got True"),
        ({"determinizations": 0}, "MCTS determinizations must be a positive integer, got 0"),
        ({"determinizations": True}, "MCTS determinizations must be a positive integer, got True"),
        ({"c": -5}, "MCTS exploration constant c must be a finite number >= 0, got -5"),
        ({"c": math.nan}, "MCTS exploration constant c must be a finite number >= 0, got nan"),
        ({"c": None}, "MCTS exploration constant c must be a finite number >= 0, got None"),
        ({"rollout_limit": True}, "MCTS rollout_limit must be None or a non-negative integer, got True"),
        ({"rollout_limit": -1}, "MCTS rollout_limit must be None or a non-negative integer, got -1"),
        ({"rollout_limit": 2.5}, "MCTS rollout_limit must be None or a non-negative integer, got 2.5"),
        ({"simulations": 0}, "MCTS simulations must be a positive integer, got 0"),
        ({"simulations": True}, "MCTS simulations must be a positive integer, got True"),
    ],
)
def test_mcts_rejects_bad_parameters(kwargs, message):
    args = {"simulations": 10, **kwargs}
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        MCTSAgent(**args)


def test_mcts_accepts_edge_parameters():
    state = AtaxxState(MCTS_FEN)
    for kwargs in ({"c": 0}, {"rollout_limit": None}, {"rollout_limit": 3, "value_scale": 0.5}, {"c": np.float64(2)}):
        agent = MCTSAgent(30, seed=0, **kwargs)
        assert agent.act(state, None) in state.legal_actions()


def test_greedy_beats_random():
    result = head_to_head("ataxx_v0", make_agent("greedy", seed=0), make_agent("random", seed=0), games=20, seed=0)
    assert result == {"wins": 20, "draws": 0, "losses": 0, "games": 20, "score": 1.0}


def test_play_game_is_reproducible_and_records():
    seats = [make_agent("random", 1), make_agent("greedy", 2)]
    a = play_game("ataxx_v0", seats, seed=5, record=True)
    b = play_game("ataxx_v0", seats, seed=5, record=True)
    assert a.moves == b.moves and a.plies == len(a.moves) and list(a.returns) == list(b.returns)
    replay = AtaxxState()
    for move in a.moves:
        replay.push(move)
    assert replay.is_terminal() and list(replay.returns()) == list(a.returns)


def test_play_game_max_steps_in_env_kwargs():
    seats = [make_agent("random", 1), make_agent("random", 2)]
    res = play_game("ataxx_v0", seats, seed=1, env_kwargs={"max_steps": 5})
    assert res.truncated and res.plies == 5 and list(res.returns) == [0.0, 0.0]
    res = play_game("ataxx_v0", seats, seed=1, env_kwargs={"max_steps": 5}, max_steps=3)
    assert res.truncated and res.plies == 3


def test_play_game_wrong_number_of_seats():
    with pytest.raises(ValueError, match="2 seats"):
        play_game("ataxx_v0", [make_agent("random")], seed=0)


def test_mcts_searches_determinizations_not_the_true_state():
    """In a game without perfect information, MCTS plans only on sampled states."""
    from envs.ataxx import AtaxxState

    calls = []

    class Hidden(AtaxxState):
        __slots__ = ()
        info = dataclasses.replace(AtaxxState.info, perfect_information=False)

        def clone(self):
            raise AssertionError("MCTS cloned the true state of a hidden-information game")

        def sample_determinization(self, player, rng):
            calls.append(player)
            return AtaxxState(self.fen())

    state = Hidden()
    agent = MCTSAgent(simulations=30, determinizations=4, seed=0)
    action = agent.act(state, None)
    assert calls == [0, 0, 0, 0]
    assert state.legal_action_mask()[action] == 1
    calls.clear()
    MCTSAgent(simulations=3, determinizations=8, seed=0).act(state, None)
    assert len(calls) == 3  # never more trees than simulations


def test_alphabeta_searches_a_sampled_deal_in_hidden_information_games():
    from envs.ataxx import AtaxxState

    calls = []

    class Hidden(AtaxxState):
        __slots__ = ()
        info = dataclasses.replace(AtaxxState.info, perfect_information=False)

        def clone(self):
            raise AssertionError("alpha-beta cloned the true state of a hidden-information game")

        def sample_determinization(self, player, rng):
            calls.append(player)
            return AtaxxState(self.fen())

    state = Hidden()
    action = AlphaBetaAgent(2, seed=0).act(state, None)
    assert calls == [0] and state.legal_action_mask()[action] == 1


def test_checkpoint_in_an_environment_of_other_settings_is_refused_clearly(tmp_path):
    from training.evaluate import run_tournament

    ckpt = tiny_checkpoint(tmp_path / "ataxx.zip")  # Ataxx spaces: (7, 7, 5) and 834 actions
    with pytest.raises(
        ValueError,
        match=re.escape(f"ataxx ({ckpt}) was trained on") + r" observations \(7, 7, 5\) and 834 actions, but this "
        r"environment has \(8, 8, 23\) and 65.*config.yaml",
    ):
        run_tournament("twixt_v0", [str(ckpt), "random"], 1, seed=0, env_kwargs={"board_size": 8})
    agent = make_agent(str(ckpt))
    raw = make_raw("twixt_v0", board_size=8)
    raw.reset(seed=0)
    with pytest.raises(ValueError, match="create it with the settings of the training run"):
        agent.act(raw.state, raw.observe(raw.agent_selection))
