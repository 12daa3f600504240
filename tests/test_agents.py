"""Baseline and trained agents (``training.agents``) and the arena (``training.arena``).

Hand-built Ataxx positions are written as board diagrams (rank 7 first, ``x`` to move unless
stated), turned into FEN by :func:`conftest.diagram`.
"""

from __future__ import annotations

import numpy as np
import pytest

from conftest import diagram
from envs.ataxx import PASS_ACTION, AtaxxState
from envs.registry import make_raw
from training.agents import AlphaBetaAgent, GreedyAgent, MCTSAgent, PolicyAgent, RandomAgent, make_agent
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
    gym = pytest.importorskip("gymnasium")
    sb3c = pytest.importorskip("sb3_contrib")
    raw = make_raw("ataxx_v0")

    class Spaces(gym.Env):
        observation_space = raw.observation_space("player_0")["observation"]
        action_space = raw.action_space("player_0")

        def reset(self, seed=None, options=None):
            return self.observation_space.sample(), {}

        def step(self, action):
            return self.observation_space.sample(), 0.0, True, False, {}

        def action_masks(self):
            return np.ones(self.action_space.n, dtype=bool)

    model = sb3c.MaskablePPO("MlpPolicy", Spaces(), n_steps=8, batch_size=8, seed=0, device="cpu",
                             policy_kwargs={"net_arch": [16]})
    path = tmp_path_factory.mktemp("ckpt") / "tiny.zip"
    model.save(path)
    return str(path)


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
    assert state.is_terminal() and state.winner() == 0


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


@pytest.mark.parametrize("spec, message", [
    ("nonsense", "unknown agent spec"),
    ("random:3", "unknown agent spec"),
    ("", "non-empty string"),
    ("mcts:abc", "expected an integer"),
    ("mcts:0", "positive integer"),
    ("alphabeta:0", "positive integer"),
    ("alphabeta:-1", "positive integer"),
])
def test_make_agent_rejects_bad_specs(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec)


def test_make_agent_missing_checkpoint(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        make_agent(str(tmp_path / "nowhere.zip"))


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
