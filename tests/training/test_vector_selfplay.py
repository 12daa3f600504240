"""Batched self-play (training/vector_selfplay.py): the same games as SelfPlayEnv, the opponents' moves batched.

The reference backend runs here (one rules state per game, the same code as the AEC env); a game's
batched core, where it has one, is proven equal to it by the vector differential tests.
"""

import numpy as np
import pytest

from envs.core.state import IllegalActionError
from training.agents import Agent
from training.selfplay import OpponentPool, SelfPlayEnv
from training.vector_selfplay import SelfPlaySB3VecEnv, SelfPlayVectorEnv

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

# o on a1 walled in by gaps, x free on g7: o passes every turn while x fills the board, x wins on count.
WALLED_O = "6x/7/7/7/---4/---4/o--4 x 0 1"
# x on a1 can clone to b1 and capture every o stone at once.
X_WINS_NOW = "7/7/7/7/7/oo5/x1o4 x 0 1"


@pytest.fixture(autouse=True)
def _one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


class FirstLegal(Agent):
    name = "first-legal"
    frame = "agent"

    def _act(self, state, obs):
        return int(np.flatnonzero(obs["action_mask"])[0])


class Watcher(Agent):
    """Random, from the mask; checks that it is handed the mover's own observation of the state."""

    name = "watcher"
    frame = "agent"

    def __init__(self, encoder, seed=0):
        super().__init__(seed)
        self.encoder = encoder
        self.moves = 0

    def _act(self, state, obs):
        _assert_same(obs["observation"], self.encoder.encode(state, state.current_player))
        np.testing.assert_array_equal(obs["action_mask"], state.agent_action_mask(state.current_player))
        assert obs["action_mask"].dtype == np.int8
        self.moves += 1
        return int(self.rng.choice(np.flatnonzero(obs["action_mask"])))


def pool_of(*agents, latest=None):
    pool = OpponentPool(baselines=(), baseline_prob=0.0, latest_prob=0.0)
    pool.baselines.extend(agents)
    pool.baseline_prob = 1.0
    pool.latest = latest
    return pool


def _assert_same(a, b):
    if isinstance(a, dict) or isinstance(b, dict):
        assert set(a) == set(b)
        for k in a:
            _assert_same(a[k], b[k])
    else:
        np.testing.assert_array_equal(a, b)


def _row(obs, i):
    return {k: v[i] for k, v in obs.items()} if isinstance(obs, dict) else obs[i]


def _mlp_policy(env_id, kwargs, seed=0):
    """A small untrained MaskablePPO policy for the game (an MLP: batched and single forwards agree
    bit for bit, so the policy opponents' draws are comparable exactly)."""
    from sb3_contrib import MaskablePPO

    env = SelfPlayEnv(env_id, ["random"], env_kwargs=kwargs)
    kind = "MultiInputPolicy" if hasattr(env.observation_space, "spaces") else "MlpPolicy"
    return MaskablePPO(
        kind, env, seed=seed, device="cpu", n_steps=8, batch_size=8, policy_kwargs={"net_arch": [16]}
    ).policy


# ---------------------------------------------------------------------------- rewards and ends
def test_loser_gets_minus_one_on_its_last_transition_when_the_opponent_ends_the_game():
    venv = SelfPlayVectorEnv(
        "ataxx_v0", pool_of(FirstLegal()), 2, env_kwargs={"fen": WALLED_O}, seat=1, backend="reference"
    )
    obs, infos = venv.reset(seed=3)
    assert obs.shape == (2, 7, 7, 5) and infos["seat"].tolist() == [1, 1]
    assert infos["opponents"][0].tolist() == ["first-legal"] * 2
    rewards = []
    for _step in range(38):
        mask = venv.action_masks()
        assert mask.dtype == bool and mask.shape == (2, 834) and (mask.sum(axis=1) == 1).all() and mask[:, 833].all()
        obs, r, term, trunc, infos = venv.step(np.full(2, 833))
        rewards.append(r)
    # 39 empty squares: x fills them with 39 clones, o passed after each of the first 38 (as SelfPlayEnv)
    assert term.tolist() == [True, True] and trunc.tolist() == [False, False]
    assert rewards[-1].tolist() == [-1.0, -1.0] and not np.any(rewards[:-1])
    final = infos["final_info"]
    assert infos["_final_info"].all() and final["returns"].tolist() == [[1.0, -1.0]] * 2
    assert final["plies"].tolist() == [77, 77]
    # the final observation is the learner's (o's) view of the full board; the new game has started
    assert infos["_final_obs"].all() and infos["final_obs"][0].shape == (7, 7, 5)
    _assert_same(infos["final_obs"][0], venv.raw.encoder.encode(_final_state(), 1))
    assert venv.episode_steps.tolist() == [1, 1] and infos["seat"].tolist() == [1, 1]


def _final_state():
    """The WALLED_O game played to its end as above, by the reference rules."""
    env = SelfPlayEnv("ataxx_v0", pool_of(FirstLegal()), env_kwargs={"fen": WALLED_O}, seat=1)
    env.reset(seed=3)
    while True:
        _, _, term, trunc, _ = env.step(833)
        if term or trunc:
            return env.raw.state


def test_winner_gets_plus_one_on_its_own_final_move_and_truncation_gives_zero():
    from envs.ataxx import AtaxxState

    venv = SelfPlayVectorEnv(
        "ataxx_v0", pool_of(FirstLegal()), 3, env_kwargs={"fen": X_WINS_NOW}, seat=0, backend="reference"
    )
    venv.reset(seed=0)
    _, r, term, trunc, infos = venv.step(np.full(3, AtaxxState.string_to_action("b1")))
    assert r.tolist() == [1.0] * 3 and term.all() and not trunc.any()
    assert infos["final_info"]["returns"].tolist() == [[1.0, -1.0]] * 3
    venv = SelfPlayVectorEnv(
        "ataxx_v0", pool_of(FirstLegal()), 2, env_kwargs={"fen": WALLED_O}, seat=1, max_steps=10, backend="reference"
    )
    venv.reset(seed=0)
    for _ in range(5):
        _, r, term, trunc, infos = venv.step(np.full(2, 833))
    assert r.tolist() == [0.0, 0.0] and not term.any() and trunc.all()
    assert infos["final_info"]["returns"].tolist() == [[0.0, 0.0]] * 2 and infos["final_info"]["plies"].tolist() == [
        10,
        10,
    ]


def test_an_illegal_learner_action_raises_and_plays_nothing():
    venv = SelfPlayVectorEnv("ataxx_v0", ["random"], 3, backend="reference")
    venv.reset(seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        SelfPlayVectorEnv("ataxx_v0", ["random"], 1, backend="reference").step(np.zeros(1, dtype=np.int64))
    good = np.argmax(venv.action_masks(), axis=1)
    bad = good.copy()
    bad[1] = int(np.flatnonzero(~venv.action_masks()[1])[0])
    before = venv.episode_steps.copy()
    with pytest.raises(IllegalActionError, match=r"game 1: action \d+ is not legal for the learner"):
        venv.step(bad)
    with pytest.raises(IllegalActionError, match=r"shape \(3,\)"):
        venv.step(good[:2])
    with pytest.raises(IllegalActionError, match="not legal"):
        venv.step(np.full(3, 10_000))
    assert (venv.episode_steps == before).all()
    venv.step(good)


# ---------------------------------------------------------------------------- seats and partners
@pytest.mark.parametrize(
    "env_id, kwargs", [("double_twixt_v0", {"board_size": 6}), ("tantrix_v0", {"num_players": 4, "teams": True})]
)
def test_seats_partners_and_every_mover_sees_its_own_observation(env_id, kwargs):
    raw = SelfPlayEnv(env_id, ["random"], env_kwargs=kwargs).raw
    partner, opponent = Watcher(raw.encoder, seed=1), Watcher(raw.encoder, seed=2)
    partner.name = "partner"
    venv = SelfPlayVectorEnv(env_id, pool_of(opponent, latest=partner), 6, env_kwargs=kwargs, backend="reference")
    _, infos = venv.reset(seed=0)
    seats, rng = set(), np.random.default_rng(0)
    for _ in range(30):
        for i in range(venv.num_envs):
            seat = int(venv.seats[i])
            seats.add(seat)
            team = next(t for t in venv._teams if seat in t)
            assert set(venv.opponents[i]) == set(range(4)) - {seat}
            for p, agent in venv.opponents[i].items():
                assert agent is (partner if p in team else opponent)  # partner="latest": the current policy
            state = venv.core.to_state(i)
            assert state.current_player == seat  # every game waits at the learner's turn
        obs = venv.observe()
        for i in range(venv.num_envs):
            _assert_same(_row(obs, i), raw.encoder.encode(venv.core.to_state(i), int(venv.seats[i])))
        masks = venv.action_masks()
        _, r, term, trunc, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        for i in np.flatnonzero(term):
            ret = infos["final_info"]["returns"][i]
            assert r[i] == ret[infos["final_info"]["seat"][i]]
    assert seats == {0, 1, 2, 3} and partner.moves > 0 and opponent.moves > 0
    # partner="pool": the partners are drawn from the pool like the opponents
    venv = SelfPlayVectorEnv(
        env_id, pool_of(opponent, latest=partner), 4, env_kwargs=kwargs, partner="pool", backend="reference"
    )
    venv.reset(seed=0)
    assert all(a is opponent for game in venv.opponents for a in game.values())


# ---------------------------------------------------------------------------- batching
def test_one_forward_per_policy_per_round(monkeypatch):
    """Every round of opponent moves calls each policy once, over all the games where it moves."""
    import training.vector_selfplay as vs

    policies = [_mlp_policy("tantrix_v0", {"num_players": 3}, seed=s) for s in range(3)]
    pool = OpponentPool([], baseline_prob=0.0, latest_prob=0.5)
    pool.set_latest(policies[0])
    pool.add_snapshot(policies[1], "s1")
    pool.add_snapshot(policies[2], "s2")
    calls = []
    real = vs.policy_logits

    def counting(policy, obs):
        calls.append((venv.stats["rounds"], id(policy), len(next(iter(obs.values())))))
        return real(policy, obs)

    monkeypatch.setattr(vs, "policy_logits", counting)
    venv = SelfPlayVectorEnv("tantrix_v0", pool, 8, env_kwargs={"num_players": 3}, backend="reference")
    venv.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(6):
        venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()]))
    per_round = {}
    for rnd, pid, _rows in calls:
        per_round.setdefault(rnd, []).append(pid)
    assert all(len(p) == len(set(p)) for p in per_round.values())  # one call per policy per round
    assert len(per_round) == venv.stats["rounds"]  # every round had policy movers (only policies)
    assert venv.stats["policy_forwards"] == len(calls)
    assert sum(r for _, _, r in calls) == venv.stats["policy_rows"] > len(calls)  # several games per call
    assert max(r for _, _, r in calls) >= 3
    assert venv.stats["state_moves"] == venv.stats["random_moves"] == 0


def test_the_policys_features_run_once_per_round_for_the_live_policy():
    policy = _mlp_policy("ataxx_v0", {})
    count = []
    policy.features_extractor.register_forward_hook(lambda *a: count.append(1))
    pool = OpponentPool([], baseline_prob=0.0, latest_prob=1.0)
    pool.set_latest(policy)
    venv = SelfPlayVectorEnv("ataxx_v0", pool, 8, backend="reference")
    venv.reset(seed=0)
    rounds0 = venv.stats["rounds"]
    assert len(count) == rounds0 <= 1  # the learners seated second: one forward for all their games
    rows0 = int((venv.seats == 1).sum())
    assert venv.stats["policy_rows"] == rows0
    for _ in range(5):
        venv.step(np.argmax(venv.action_masks(), axis=1))
    assert len(count) == venv.stats["rounds"] == rounds0 + 5  # two seats: one round per step, for all 8 games
    assert venv.stats["policy_rows"] == rows0 + 8 * 5


# ---------------------------------------------------------------------------- the same games as SelfPlayEnv
PARITY_GAMES = [
    ("ataxx_v0", {}, 0.0),
    ("twixt_v0", {"board_size": 6}, 0.0),
    ("double_twixt_v0", {"board_size": 6}, 0.0),
    ("tantrix_v0", {"num_players": 4, "teams": True}, 0.05),  # teams, chance, Dict observations, shaping
    ("smartrix_v0", {"num_players": 3}, 0.05),  # hidden hands, a pile, shaping
]


PARITY_CASES = [(*g, False) for g in PARITY_GAMES] + [
    # the code path of a batched core (whole-batch observe / masks / to_state), on the reference states
    ("ataxx_v0", {}, 0.0, True),
    ("tantrix_v0", {"num_players": 4, "teams": True}, 0.05, True),
]


@pytest.mark.parametrize(
    "env_id, kwargs, shaping, generic",
    PARITY_CASES,
    ids=[g[0] + str(g[1]) + ("-generic" if g[3] else "") for g in PARITY_CASES],
)
def test_the_sb3_env_plays_exactly_the_games_of_a_dummy_vec_env_of_selfplay_envs(env_id, kwargs, shaping, generic):
    """Same seeds and learner actions: the SB3 view of the vector env returns what a
    ``DummyVecEnv`` of ``Monitor(SelfPlayEnv)`` returns, step by step (observations, rewards,
    dones, masks, infos with terminal observations and episode statistics), with random, greedy
    and policy opponents (the live policy, a snapshot) and partners. ``generic``: through the
    core's batch methods only, as with a game's batched core (the reference backend otherwise
    reads its states directly)."""
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    pool = OpponentPool(["random", "greedy"], baseline_prob=0.4, latest_prob=0.3, seed=0)
    pool.set_latest(_mlp_policy(env_id, kwargs, seed=0))
    pool.add_snapshot(_mlp_policy(env_id, kwargs, seed=1), "s1")
    common = dict(env_kwargs=kwargs, seed_salt=3, shaping=shaping)
    n = 3
    old = DummyVecEnv([lambda: Monitor(SelfPlayEnv(env_id, pool, **common)) for _ in range(n)])
    new = SelfPlaySB3VecEnv(SelfPlayVectorEnv(env_id, pool, n, backend="reference", **common))
    if generic:
        new.venv._states = None
    old.seed(5)
    new.seed(5)
    _assert_same(old.reset(), new.reset())
    assert old.reset_infos == new.reset_infos
    pick, episodes = np.random.default_rng(0), 0
    for _ in range(40):
        masks = get_action_masks(new)
        np.testing.assert_array_equal(get_action_masks(old), masks)
        actions = np.array([pick.choice(np.flatnonzero(m)) for m in masks])
        o1, r1, d1, i1 = old.step(actions)
        o2, r2, d2, i2 = new.step(actions)
        _assert_same(o1, o2)
        assert r1.dtype == r2.dtype and r1.tolist() == r2.tolist() and d1.tolist() == d2.tolist()
        for a, b in zip(i1, i2):
            if "episode" in a:
                episodes += 1
                assert {k: v for k, v in a.pop("episode").items() if k != "t"} == {
                    k: v for k, v in b.pop("episode").items() if k != "t"
                }
                _assert_same(a.pop("terminal_observation"), b.pop("terminal_observation"))
            assert a == b
        assert old.reset_infos == new.reset_infos
    assert episodes > 0 or env_id == "ataxx_v0"
    stats = new.venv.stats
    assert stats["policy_forwards"] > 0 and stats["random_moves"] + stats["state_moves"] > 0


# ---------------------------------------------------------------------------- API checks
def test_gymnasium_vector_conventions():
    """check_env-like checks: spaces, dtypes, infos, same_step autoreset, determinism, fresh arrays."""
    import gymnasium as gym
    from gymnasium.vector import AutoresetMode

    venv = SelfPlayVectorEnv("smartrix_v0", ["random", "greedy"], 4, env_kwargs={"num_players": 3}, backend="reference")
    assert isinstance(venv, gym.vector.VectorEnv) and venv.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert venv.observation_space == gym.vector.utils.batch_space(venv.single_observation_space, 4)
    assert isinstance(venv.single_action_space, gym.spaces.Discrete) and venv.action_space.shape == (4,)
    obs, infos = venv.reset(seed=1)
    assert venv.observation_space.contains(obs) and infos["_seat"].all()
    again, infos2 = SelfPlayVectorEnv(
        "smartrix_v0", ["random", "greedy"], 4, env_kwargs={"num_players": 3}, backend="reference"
    ).reset(seed=1)
    _assert_same(obs, again)
    assert infos["seat"].tolist() == infos2["seat"].tolist()
    rng, ended = np.random.default_rng(0), 0
    for _ in range(80):
        prev = obs
        obs, r, term, trunc, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in venv.action_masks()]))
        assert venv.observation_space.contains(obs)
        assert all(obs[k] is not prev[k] for k in obs)  # not reused
        assert r.shape == (4,) and r.dtype == np.float64 and term.dtype == bool and trunc.dtype == bool
        done = term | trunc
        if done.any():
            ended += 1
            assert infos["_final_obs"].tolist() == done.tolist() == infos["_final_info"].tolist()
            for i in np.flatnonzero(done):
                assert venv.single_observation_space.contains(infos["final_obs"][i])
        assert (venv.action_masks().sum(axis=1) > 0).all()  # every game at the learner's turn
    assert ended > 0
    venv.close()
    assert venv.closed


def test_the_sb3_vec_env_api():
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import VecEnv

    env = SelfPlaySB3VecEnv(SelfPlayVectorEnv("ataxx_v0", ["random"], 3, backend="reference"))
    assert isinstance(env, VecEnv) and env.num_envs == 3 and env.render_mode is None
    assert is_masking_supported(env) and env.env_is_wrapped(Monitor) == [True] * 3
    assert env.get_attr("env_id") == ["ataxx_v0"] * 3 and env.get_attr("backend", [0]) == ["reference"]
    assert not env.has_attr("nothing_like_this")
    env.seed(0)
    obs = env.reset()
    assert obs.shape == (3, 7, 7, 5) and [i["seat"] for i in env.reset_infos] == env.venv.seats.tolist()
    masks = get_action_masks(env)
    assert masks.shape == (3, 834) and masks.dtype == bool
    assert len(env.env_method("action_masks", indices=[2])) == 1
    with pytest.raises(AttributeError, match="only action_masks"):
        env.env_method("render")
    obs, rewards, dones, infos = env.step(np.argmax(masks, axis=1))
    assert rewards.dtype == np.float32 and dones.dtype == bool and len(infos) == 3
    assert all(info["TimeLimit.truncated"] is False and "opponents" in info for info in infos)
    env.close()


def test_the_batched_backend_falls_back_to_the_reference_and_says_why():
    venv = SelfPlayVectorEnv("twixt_v0", ["random"], 2, env_kwargs={"board_size": 6, "links": "manual"})
    assert venv.backend == "reference"
    assert (
        venv.backend_note.startswith("fell back from backend='batched': ")
        and "backend='reference'" in venv.backend_note
    )
    venv.reset(seed=0)
    venv.step(np.argmax(venv.action_masks(), axis=1))
    assert (
        SelfPlayVectorEnv("twixt_v0", ["random"], 2, env_kwargs={"board_size": 6}, backend="reference").backend_note
        is None
    )
    with pytest.raises(ValueError, match="backend must be"):
        SelfPlayVectorEnv("ataxx_v0", ["random"], 2, backend="numba")
    with pytest.raises(ValueError, match="num_envs must be a positive integer"):
        SelfPlayVectorEnv("ataxx_v0", ["random"], 0)
    with pytest.raises(ValueError, match="board_size"):  # any other bad argument is an error, not a fallback
        SelfPlayVectorEnv("twixt_v0", ["random"], 2, env_kwargs={"board_size": 1})


def test_opponents_that_cannot_play_are_refused_at_construction():
    with pytest.raises(ValueError, match="alpha-beta needs a game of two players or two teams"):
        SelfPlayVectorEnv("tantrix_v0", ["alphabeta:1"], 2, env_kwargs={"num_players": 3}, backend="reference")
    with pytest.raises(ValueError, match="give the opponents as a non-empty list"):
        SelfPlayVectorEnv("ataxx_v0", [], 2, backend="reference")
    with pytest.raises(ValueError, match="seat must be"):
        SelfPlayVectorEnv("ataxx_v0", ["random"], 2, seat=2, backend="reference")


# ---------------------------------------------------------------------------- training on it
def _learn(env_id, kwargs, seed):
    from sb3_contrib import MaskablePPO

    pool = OpponentPool(["random", "greedy"], baseline_prob=0.3, latest_prob=0.3, seed=seed)
    env = SelfPlaySB3VecEnv(SelfPlayVectorEnv(env_id, pool, 2, env_kwargs=kwargs, seed_salt=seed, backend="reference"))
    env.seed(seed)
    kind = "MultiInputPolicy" if hasattr(env.observation_space, "spaces") else "MlpPolicy"
    model = MaskablePPO(
        kind, env, seed=seed, device="cpu", n_steps=32, batch_size=32, n_epochs=1, policy_kwargs={"net_arch": [32]}
    )
    pool.set_latest(model.policy)
    pool.add_snapshot(model.policy, "s0")
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(128)
    assert model.num_timesteps == 128
    assert any((a != b).any() for a, b in zip(before, model.policy.parameters()))
    return model, env


@pytest.mark.parametrize(
    "env_id, kwargs", [("ataxx_v0", {"fen": "x5o/7/7/7/7/7/o5x x 0 1"}), ("double_twixt_v0", {"board_size": 8})]
)
def test_maskable_ppo_learns_on_it_and_a_fixed_seed_repeats_the_weights(env_id, kwargs):
    model, env = _learn(env_id, kwargs, seed=0)
    stats = env.venv.stats
    assert stats["policy_forwards"] > 0
    if env_id == "double_twixt_v0":  # short games with teams: episodes ended and reached Monitor's buffer
        assert len(model.ep_info_buffer) > 0 and all(e["r"] in (-1.0, 0.0, 1.0) for e in model.ep_info_buffer)
    again, _ = _learn(env_id, kwargs, seed=0)
    for a, b in zip(model.policy.state_dict().values(), again.policy.state_dict().values()):
        assert torch.equal(a, b)


def test_the_same_seed_replays_the_games_and_another_seed_does_not():
    def trajectory(seed):
        pool = OpponentPool(["random", "greedy"], baseline_prob=0.5, latest_prob=0.5, seed=0)
        pool.set_latest(_mlp_policy("tantrix_v0", {"num_players": 2}))
        venv = SelfPlayVectorEnv("tantrix_v0", pool, 3, env_kwargs={"num_players": 2}, backend="reference")
        obs, _ = venv.reset(seed=seed)
        out, pick = [obs], np.random.default_rng(1)
        for _ in range(20):
            obs, r, term, trunc, _ = venv.step(np.array([pick.choice(np.flatnonzero(m)) for m in venv.action_masks()]))
            out.append((obs, r, term, trunc, venv.seats.copy()))
        return out

    def same(a, b):
        if isinstance(a, (list, tuple)):
            return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        if isinstance(a, dict):
            return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        return np.array_equal(a, b)

    first = trajectory(7)
    assert same(first, trajectory(7))
    assert not same(first, trajectory(8))
