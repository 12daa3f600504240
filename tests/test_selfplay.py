"""Self-play plumbing: seats, opponents and terminal rewards reaching the right transitions."""

import numpy as np
import pytest

from envs.ataxx import AtaxxState
from training.agents import Agent
from training.selfplay import OpponentPool, SelfPlayEnv

# o on a1 walled in by gaps (no clone or jump ever), x free on g7: o must pass every turn while
# x fills the board, then x wins on count.
WALLED_O = "6x/7/7/7/---4/---4/o--4 x 0 1"
# x on a1 can clone to b1 and capture every o stone at once.
X_WINS_NOW = "7/7/7/7/7/oo5/x1o4 x 0 1"


class FirstLegal(Agent):
    name = "first-legal"

    def act(self, state, obs):
        return int(np.flatnonzero(obs["action_mask"])[0])


def pool_of(agent):
    pool = OpponentPool(baselines=(), baseline_prob=0.0, latest_prob=0.0)
    pool.baselines.append(agent)
    pool.baseline_prob = 1.0
    return pool


def test_loser_gets_minus_one_on_its_last_transition_when_opponent_ends_game():
    env = SelfPlayEnv("ataxx_v0", pool_of(FirstLegal()), env_kwargs={"fen": WALLED_O}, seat=1)
    obs, info = env.reset(seed=3)
    assert info["seat"] == 1 and info["opponents"] == {0: "first-legal"}
    assert obs.shape == (7, 7, 5)
    rewards, steps = [], 0
    while True:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.sum() == 1 and mask[833]  # forced pass only
        obs, r, term, trunc, info = env.step(833)
        rewards.append(r)
        steps += 1
        if term or trunc:
            break
    assert term and not trunc
    assert rewards[-1] == -1.0 and all(r == 0.0 for r in rewards[:-1])
    assert info["returns"] == [1.0, -1.0]
    # 39 empty squares (49 - 2 stones - 8 gaps): x fills them with 39 clones (its first legal
    # action is always a clone); o passed after each of the first 38.
    assert steps == 38 and info["plies"] == 77


def test_winner_gets_plus_one_on_its_own_final_move():
    env = SelfPlayEnv("ataxx_v0", pool_of(FirstLegal()), env_kwargs={"fen": X_WINS_NOW}, seat=0)
    env.reset(seed=0)
    action = AtaxxState.string_to_action("b1")
    assert env.action_masks()[action]
    _, r, term, trunc, info = env.step(action)
    assert (r, term, trunc) == (1.0, True, False)
    assert info["returns"] == [1.0, -1.0]


def test_seats_are_drawn_at_random_and_opponents_move_first_when_learner_is_second():
    env = SelfPlayEnv("ataxx_v0", pool_of(FirstLegal()))
    seats = set()
    for s in range(20):
        _, info = env.reset(seed=s)
        seats.add(info["seat"])
        if info["seat"] == 1:
            # The opponent (x) already played its move: o is to move with x having 3 stones.
            assert env.raw.state.turn == 1 and env.raw.state.stone_counts() == (3, 2)
    assert seats == {0, 1}


def test_truncation_gives_zero_reward():
    env = SelfPlayEnv("ataxx_v0", pool_of(FirstLegal()), env_kwargs={"fen": WALLED_O}, seat=1, max_steps=10)
    env.reset(seed=0)
    for _ in range(5):
        _, r, term, trunc, _ = env.step(833)
    assert (r, term, trunc) == (0.0, False, True)


def test_pool_probabilities_and_errors():
    pool = OpponentPool(baselines=("random", "greedy"), baseline_prob=0.5, latest_prob=0.0, seed=0)
    rng = np.random.default_rng(0)
    names = [pool.sample(rng).name for _ in range(200)]
    assert set(names) == {"random", "greedy"}  # no snapshot yet: baselines take everything
    with pytest.raises(ValueError, match="baseline_prob"):
        OpponentPool(baseline_prob=1.5)
    with pytest.raises(ValueError, match="<= 1"):
        OpponentPool(baseline_prob=0.7, latest_prob=0.7)
    with pytest.raises(ValueError, match="unknown agent spec"):
        OpponentPool(baselines=("nobody",))
    with pytest.raises(ValueError, match="seat"):
        SelfPlayEnv("ataxx_v0", pool, seat=2)


# ---------------------------------------------------------------------------- any number of seats
class Watcher(Agent):
    """A random agent that checks, at every move, that it was handed its own seat's observation.
    It picks from the observation's mask, so it thinks in its own frame."""

    name = "watcher"
    frame = "agent"

    def __init__(self, env_ref, seed=0):
        super().__init__(seed)
        self.env_ref = env_ref
        self.moves = 0

    def _act(self, state, obs):
        raw = self.env_ref[0].raw
        own = raw.observe(raw.agent_selection)
        _assert_same(obs, own)
        self.moves += 1
        return int(self.rng.choice(np.flatnonzero(obs["action_mask"])))


def _assert_same(a, b):
    if isinstance(a, dict):
        assert set(a) == set(b)
        for k in a:
            _assert_same(a[k], b[k])
    else:
        np.testing.assert_array_equal(a, b)


#: (env id, constructor arguments): multi-seat and team games.
MULTI_SEAT_GAMES = [
    ("ataxx_v0", {}),
    ("twixt_v0", {"board_size": 6}),
    ("double_twixt_v0", {"board_size": 6}),
    ("smartrix_v0", {"num_players": 3}),
    ("smartrix_v0", {"num_players": 4, "teams": True}),
    ("tantrix_v0", {"num_players": 3}),
    ("tantrix_v0", {"num_players": 4, "teams": True}),
]


@pytest.mark.parametrize("env_id, kwargs", MULTI_SEAT_GAMES, ids=[g[0] + str(sorted(g[1].items())) for g in MULTI_SEAT_GAMES])
def test_every_seat_gets_its_own_return_and_observation(env_id, kwargs):
    """Fixed seats in turn: the learner's only nonzero reward is its seat's final return, on its
    last transition; partners share it; every seat is handed its own observation only."""
    ref = []
    watcher = Watcher(ref)
    pool = pool_of(watcher)
    pool.latest = watcher  # partners (team games) play the same agent
    env = SelfPlayEnv(env_id, pool, env_kwargs=kwargs, seat=0)
    ref.append(env)
    rng = np.random.default_rng(0)
    for seat in range(env.num_players):
        for game in range(3):
            env.fixed_seat = seat
            obs, info = env.reset(seed=10 * seat + game)
            assert info["seat"] == seat and env.learner == f"player_{seat}"
            rewards = []
            while True:
                _assert_same(obs, env.raw.observe(env.learner)["observation"])
                mask = env.action_masks()
                obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
                rewards.append(r)
                if term or trunc:
                    break
            returns = info["returns"]
            state = env.raw.state
            assert term and not trunc
            assert rewards[-1] == returns[seat] and all(r == 0.0 for r in rewards[:-1])
            np.testing.assert_array_equal(returns, state.returns())
            two_sides = len({state.team_of(p) for p in range(env.num_players)}) == 2
            for p in range(env.num_players):
                if state.team_of(p) == state.team_of(seat):
                    assert returns[p] == returns[seat]  # partners share the team's result
                elif two_sides:
                    assert returns[p] == -returns[seat]  # zero-sum between two sides
    assert watcher.moves > 0


def test_smartrix_learner_sees_only_its_own_hand():
    """Hidden information: the learner's observation holds its own hand, never another seat's."""
    pool = pool_of(FirstLegal())
    env = SelfPlayEnv("smartrix_v0", pool, env_kwargs={"num_players": 3})
    rng = np.random.default_rng(1)
    for game in range(4):
        obs, info = env.reset(seed=game)
        seat = info["seat"]
        while True:
            state = env.raw.state
            assert sorted(np.flatnonzero(obs["hand"]) + 1) == state.hand(seat)
            others = {c for p in range(3) if p != seat for c in state.hand(p)}
            assert not any(obs["hand"][c - 1] for c in others)
            obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            if term or trunc:
                break


@pytest.mark.parametrize("env_id, kwargs", [("smartrix_v0", {"num_players": 2}), ("tantrix_v0", {"num_players": 3}),
                                            ("ataxx_v0", {})])
def test_potential_shaping_telescopes_to_the_game_return(env_id, kwargs):
    """With gamma = 1 the shaped rewards of an episode sum to the game's return minus phi(s0)."""
    k = 0.05
    env = SelfPlayEnv(env_id, pool_of(FirstLegal()), env_kwargs=kwargs, shaping=k, gamma=1.0)
    h = env.raw.state.heuristics().evaluate
    rng = np.random.default_rng(0)
    for game in range(2):
        _, info = env.reset(seed=game)
        phi0 = k * h(env.raw.state, info["seat"])
        total, steps = 0.0, 0
        while True:
            before = k * h(env.raw.state, env.seat)
            _, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            total += r
            steps += 1
            if term or trunc:
                break
            assert r == pytest.approx(k * h(env.raw.state, env.seat) - before)  # no game reward before the end
        assert total == pytest.approx(info["returns"][info["seat"]] - phi0)
    plain = SelfPlayEnv(env_id, pool_of(FirstLegal()), env_kwargs=kwargs)
    plain.reset(seed=0)
    assert plain.shaping == 0.0
    with pytest.raises(ValueError, match="shaping must be a finite number >= 0"):
        SelfPlayEnv(env_id, pool_of(FirstLegal()), env_kwargs=kwargs, shaping=-1)
