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


@pytest.mark.parametrize(
    "env_id, kwargs", MULTI_SEAT_GAMES, ids=[g[0] + str(sorted(g[1].items())) for g in MULTI_SEAT_GAMES]
)
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


@pytest.mark.parametrize(
    "env_id, kwargs", [("smartrix_v0", {"num_players": 2}), ("tantrix_v0", {"num_players": 3}), ("ataxx_v0", {})]
)
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


# --------------------------------------------------------------------------- seeding
SEEDED_GAMES = [
    ("ataxx_v0", {}),
    ("twixt_v0", {"board_size": 6}),
    ("double_twixt_v0", {"board_size": 6}),
    ("tantrix_v0", {"num_players": 2}),  # chance: the bag
    ("smartrix_v0", {"num_players": 3}),  # chance and hidden hands
]
_IDS = [g[0] for g in SEEDED_GAMES]


def _flat(obs):
    return {k: v.copy() for k, v in obs.items()} if isinstance(obs, dict) else {None: obs.copy()}


def _episode(env, seed, plies=40, other=None):
    """(observations, masks, rewards, infos) of one episode from reset(seed) with the learner's
    actions chosen by a fixed rule; ``other`` (another env sharing the opponents) is stepped
    between the learner's moves, consuming the shared agents' own generators."""
    obs, info = env.reset(seed=seed)
    if other is not None:
        other.reset(seed=seed + 1000)
    out = [(_flat(obs), env.action_masks().copy(), 0.0, repr(info))]
    pick = np.random.default_rng(123)
    for _ in range(plies):
        legal = np.flatnonzero(env.action_masks())
        obs, r, term, trunc, info = env.step(int(legal[pick.integers(len(legal))]))
        out.append((_flat(obs), env.action_masks().copy(), r, repr(info)))
        if other is not None:
            o_legal = np.flatnonzero(other.action_masks())
            _, _, o_term, o_trunc, _ = other.step(int(o_legal[0]))
            if o_term or o_trunc:
                other.reset()
        if term or trunc:
            break
    return out


def _same(a, b):
    assert len(a) == len(b)
    for (oa, ma, ra, ia), (ob, mb, rb, ib) in zip(a, b):
        assert oa.keys() == ob.keys()
        for k in oa:
            np.testing.assert_array_equal(oa[k], ob[k])
        np.testing.assert_array_equal(ma, mb)
        assert ra == rb and ia == ib


@pytest.mark.parametrize("env_id, kwargs", SEEDED_GAMES, ids=_IDS)
def test_same_seed_and_actions_give_the_same_trajectory(env_id, kwargs):
    """reset(seed=s) reseeds the deal, the seat, the opponents drawn and the opponents' own
    random choices: the same seed and learner actions replay exactly, even when another env
    sharing the same opponent objects (and so their generators) plays in between."""
    pool = OpponentPool(["random", "greedy"], baseline_prob=1.0, latest_prob=0.0, seed=0)
    env = SelfPlayEnv(env_id, pool, env_kwargs=kwargs)
    other = SelfPlayEnv(env_id, pool, env_kwargs=kwargs)
    first = _episode(env, seed=7)
    assert len(first) > 2
    _same(first, _episode(env, seed=7, other=other))  # interleaved with another env
    fresh = SelfPlayEnv(
        env_id, OpponentPool(["random", "greedy"], baseline_prob=1.0, latest_prob=0.0, seed=99), env_kwargs=kwargs
    )
    _same(first, _episode(fresh, seed=7))  # a new env, differently seeded pool agents
    # The opponents' generators are theirs again after each move.
    assert all(a.rng is not env._opponent_rng for a in pool.baselines)
    # Another seed gives another game (over a few seeds at least one episode differs).
    assert any(repr(_episode(env, seed=s)) != repr(first) for s in (8, 9, 10))


def test_opponent_without_an_rng_attribute_is_left_without_one():
    class NoRng(FirstLegal):
        def __init__(self):  # does not call Agent.__init__: no ``rng``
            pass

    agent = NoRng()
    env = SelfPlayEnv("ataxx_v0", [agent], seat=1)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert "rng" not in vars(agent)


def test_opponents_given_as_a_list_of_specs():
    env = SelfPlayEnv("ataxx_v0", ["greedy", "random"], seat=0)
    assert [a.name for a in env.pool.baselines] == ["greedy", "random"]
    assert (env.pool.baseline_prob, env.pool.latest_prob) == (1.0, 0.0)
    names = {env.reset(seed=s)[1]["opponents"][1] for s in range(12)}
    assert names == {"greedy", "random"}


class LegalOnly:
    """Test wrapper factory: replaces an action that the mask forbids with the first legal one,
    which is all that masking changes for Gymnasium's checker (see the next test)."""

    @staticmethod
    def wrap(env):
        import gymnasium as gym

        class _Legal(gym.ActionWrapper):
            def action(self, action):
                mask = self.env.unwrapped.action_masks()
                return int(action) if mask[int(action)] else int(np.flatnonzero(mask)[0])

        return _Legal(env)


@pytest.mark.parametrize("env_id, kwargs", SEEDED_GAMES, ids=_IDS)
def test_gymnasium_check_env_passes_apart_from_masking(env_id, kwargs):
    """Gymnasium's checker passes (spaces, reset and step determinism, data not reused) once its
    random actions are legal: it draws them with ``action_space.sample()``, which does not know
    the mask, and an illegal action is an error."""
    import warnings

    from gymnasium.utils.env_checker import check_env

    env = SelfPlayEnv(env_id, ["random", "greedy"], env_kwargs=kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(LegalOnly.wrap(env), skip_render_check=True)
    # The only warning: the checker was handed a wrapper rather than the env itself.
    assert [str(w.message) for w in caught if "unwrapped" not in str(w.message)] == []


def test_gymnasium_check_env_fails_only_on_an_unmasked_action():
    from gymnasium.utils.env_checker import check_env

    from envs.core.state import IllegalActionError

    env = SelfPlayEnv("ataxx_v0", ["random"])
    env.action_space.seed(0)
    with pytest.raises(IllegalActionError):
        check_env(env, skip_render_check=True)


def test_readme_single_agent_example_trains_and_plays():
    """The single-agent example of the site's "Single-agent use" page, run as written."""
    pytest.importorskip("sb3_contrib")
    from conftest import REPO_ROOT

    section = (REPO_ROOT / "docs" / "usage" / "single-agent.md").read_text(encoding="utf-8")
    code = section[section.index("```python\n") + len("```python\n") :]
    code = code[: code.index("```")]
    assert 'SelfPlayEnv("ataxx_v0", ["greedy"], seat=0)' in code and "model.learn(256)" in code
    import torch

    threads = torch.get_num_threads()
    scope: dict = {}
    try:
        exec(compile(code, "docs/usage/single-agent.md (single-agent example)", "exec"), scope)
    finally:
        torch.set_num_threads(threads)
    env, model = scope["env"], scope["model"]
    assert model.num_timesteps == 256
    assert [a.name for a in env.pool.baselines] == ["greedy"] and scope["info"]["seat"] == 0
    assert scope["info"]["opponents"] == {1: "greedy"}
    assert not scope["terminated"] or scope["reward"] in (-1.0, 0.0, 1.0)


def test_opponents_that_cannot_play_the_game_are_refused_at_construction():
    """Found by a newcomer: alpha-beta in a 3-player game was accepted and failed at the first step."""
    with pytest.raises(ValueError, match="alpha-beta needs a game of two players or two teams, this one has 3 players"):
        SelfPlayEnv("tantrix_v0", ["alphabeta:1"], env_kwargs={"num_players": 3}, seat=0)
    for bad in ([], "greedy"):
        with pytest.raises(ValueError, match=r"ataxx_v0: give the opponents as a non-empty list of agent specs"):
            SelfPlayEnv("ataxx_v0", bad)
    env = SelfPlayEnv("ataxx_v0", ["alphabeta:1"], seat=1)  # a two-player game: fine
    obs, info = env.reset(seed=0)
    assert obs.shape == (7, 7, 5) and env.action_masks().sum() > 0
