"""The batched Gumbel search (training/search/gumbel.py): equal to DeepMind mctx's
``gumbel_muzero_policy`` on tabular game trees (tests/data/mctx_gumbel_cases.json, made by
tests/data/make_mctx_cases.py; no JAX needed here), the paper's formulas worked by hand, forced wins
on real Ataxx and TwixT positions, determinism and argument errors; hidden information (Tantrix's
bag order, Smartrix's hands and pile: searched on determinizations that never read the truth) and
more than two sides (max-n values, worked by hand on a 3-seat tree, and on real 3- and 4-seat
games)."""

from __future__ import annotations

import json
import math
import os

import numpy as np
import pytest
from _dense_gumbel_reference import dense_gumbel_search
from gymnasium import spaces

import envs
from envs.core.vector import TabletopVectorEnv, VectorCore
from training.search import (
    completed_qvalues,
    considered_visit_sequence,
    gumbel_search,
    improved_policy,
    mixed_value,
    score_considered,
    seat_teams,
    uniform_evaluate,
)

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "mctx_gumbel_cases.json")


# ---------------------------------------------------------------------------- a tabular game
class TableCore(VectorCore):
    """A game given as a table of nodes (the vector contract over a node id per game): slot ``i``
    starts at ``roots[i]``; an action follows ``children``; the observation is the node id."""

    backend = "table"

    def __init__(self, forest: dict, num_envs: int, roots):
        nodes = forest["nodes"]
        self.num_envs = num_envs
        self.num_players = forest["num_players"]
        self.num_actions = forest["num_actions"]
        self.observation_space = spaces.Box(0, len(nodes), (1,), np.float32)
        self.mover = np.array([d["mover"] for d in nodes], dtype=np.int32)
        self.legal = np.array([d["legal"] for d in nodes], dtype=bool)
        self.children = np.array([d["children"] for d in nodes], dtype=np.int64)
        self.ret = np.array([d["returns"] for d in nodes], dtype=np.float32)
        self.roots = np.asarray(roots, dtype=np.int64)
        self.arrays = {"node": np.array(self.roots[:num_envs], dtype=np.int64)}
        self.steps = 0

    def reset_games(self, index, rngs):
        self.arrays["node"][index] = self.roots[index]

    def step(self, actions, active):
        node = self.arrays["node"]
        nxt = self.children[node[active], actions[active]]
        assert (nxt >= 0).all(), "an illegal action reached the core"
        node[active] = nxt
        self.steps += int(np.sum(active))

    def current_player(self):
        return self.mover[self.arrays["node"]].copy()

    def legal_action_mask(self):
        return self.legal[self.arrays["node"]].copy()

    def terminated(self):
        return self.mover[self.arrays["node"]] < 0

    def returns(self):
        node = self.arrays["node"]
        return np.where((self.mover[node] < 0)[:, None], self.ret[node], 0.0).astype(np.float32)

    def observe(self, players):
        return self.arrays["node"][:, None].astype(np.float32)

    def to_state(self, i):
        raise NotImplementedError

    def set_states(self, index, states):
        raise NotImplementedError


def table_env(forest: dict, roots) -> TabletopVectorEnv:
    core = TableCore(forest, len(roots), roots)
    env = TabletopVectorEnv(
        core,
        env_id="table",
        env_kwargs={},
        seed=0,
        autoreset="disabled",
        single_observation_space=core.observation_space,
        single_action_space=spaces.Discrete(core.num_actions),
    )
    env.reset()
    return env


def table_evaluate(forest: dict):
    logits = np.array([d["logits"] for d in forest["nodes"]], dtype=np.float32)
    values = np.array([d["value"] for d in forest["nodes"]], dtype=np.float32)
    calls = []

    def evaluate(obs, masks):
        assert obs.dtype == np.float32 and masks.dtype == bool
        node = obs[:, 0].astype(np.int64)
        assert (masks == np.array([d["legal"] for d in forest["nodes"]], dtype=bool)[node]).all()
        calls.append(len(node))
        return logits[node], values[node]

    evaluate.calls = calls
    return evaluate


with open(DATA) as _f:
    MCTX = json.load(_f)


def _case_id(c):
    return f"f{c['forest']}-S{c['num_simulations']}-m{c['max_num_considered_actions']}-g{c['gumbel_scale']:g}"


# ---------------------------------------------------------------------------- 1. equal to mctx
@pytest.mark.parametrize("case", MCTX["cases"], ids=_case_id)
def test_equals_mctx(case):
    forest = MCTX["forests"][case["forest"]]
    env = table_env(forest, forest["roots"])
    ev = table_evaluate(forest)
    g = None if case["gumbel"] is None else np.array(case["gumbel"])
    out = gumbel_search(
        env,
        ev,
        np.random.default_rng(0),
        num_simulations=case["num_simulations"],
        max_num_considered_actions=case["max_num_considered_actions"],
        gumbel_scale=0.0,
        teams=forest["teams"],
        gumbel=g,
    )
    np.testing.assert_array_equal(out.visit_counts, np.array(case["visit_counts"]))
    np.testing.assert_array_equal(out.action, np.array(case["action"]))
    np.testing.assert_allclose(out.action_weights, np.array(case["action_weights"]), atol=1e-5)
    np.testing.assert_allclose(out.root_value, np.array(case["value"]), atol=1e-5)
    np.testing.assert_allclose(out.qvalues, np.array(case["qvalues"]), atol=1e-5)
    # one evaluation call for the roots and one per simulation, never more positions than games
    assert len(ev.calls) <= 1 + case["num_simulations"] and max(ev.calls) <= len(forest["roots"])
    assert (out.visit_counts.sum(axis=1) == case["num_simulations"]).all()


def test_mctx_cases_cover_what_they_claim():
    cases = MCTX["cases"]
    assert {c["num_simulations"] for c in cases} >= {2, 4, 16, 32}
    assert {c["max_num_considered_actions"] for c in cases} >= {2, 4, 16}
    assert any(c["gumbel"] is not None for c in cases)
    for forest in MCTX["forests"]:
        mover = np.array([d["mover"] for d in forest["nodes"]])
        kids = np.array([d["children"] for d in forest["nodes"]])
        inner = np.flatnonzero(mover >= 0)
        pairs = [(mover[p], mover[c]) for p in inner for c in kids[p] if c >= 0 and mover[c] >= 0]
        assert any(a == b for a, b in pairs) and any(a != b for a, b in pairs)  # same-player turns too
        assert (mover < 0).sum() > 10  # terminal nodes
    assert MCTX["forests"][1]["teams"] == [[0, 2], [1, 3]]


# ---------------------------------------------------------------------------- 2. by hand
def test_formulas_by_hand():
    # one node, three actions, priors p = softmax(logits), raw value v = 0.2
    logits = np.log(np.array([[0.5, 0.3, 0.2]]))
    q = np.array([[0.6, -0.4, 0.0]])
    n = np.array([[2, 1, 0]])
    v = np.array([0.2])
    # mixed value: (v + sum N * sum_visited p q / sum_visited p) / (1 + sum N)
    wq = (0.5 * 0.6 + 0.3 * -0.4) / 0.8  # 0.225
    vmix = (0.2 + 3 * wq) / 4  # 0.21875
    assert mixed_value(v, q, n, np.exp(logits))[0] == pytest.approx(vmix)
    # completed q = [0.6, -0.4, vmix]; rescaled by min/max; times (50 + max N) * 0.1 = 5.2
    cq = np.array([0.6, -0.4, vmix])
    sig = (cq + 0.4) / 1.0 * 5.2  # [5.2, 0, 3.2175]
    got = completed_qvalues(q, n, v, logits)
    np.testing.assert_allclose(got[0], sig)
    np.testing.assert_allclose(got[0], [5.2, 0.0, 3.2175])
    # without the mixed value the unvisited action takes v; without rescaling q is scaled only
    np.testing.assert_allclose(
        completed_qvalues(q, n, v, logits, use_mixed_value=False)[0], (np.array([0.6, -0.4, 0.2]) + 0.4) * 5.2
    )
    np.testing.assert_allclose(completed_qvalues(q, n, v, logits, rescale_values=False)[0], cq * 5.2)
    # the improved policy: softmax(logits + sigma), and 0 for an illegal action
    pi = np.array([0.5, 0.3, 0.2]) * np.exp(sig)
    np.testing.assert_allclose(improved_policy(logits, got, np.ones((1, 3), bool))[0], pi / pi.sum())
    pi2 = pi[:2] / pi[:2].sum()
    np.testing.assert_allclose(improved_policy(logits, got, np.array([[True, True, False]]))[0], [*pi2, 0.0])
    # the root score: g + logits - max logits + sigma where N == considered visit, -inf elsewhere
    g = np.array([[0.1, 2.0, -0.3]])
    s = score_considered(np.array([1]), g, logits, got, n)
    assert s[0, 1] == pytest.approx(2.0 + math.log(0.3 / 0.5) + 0.0)
    assert s[0, 0] == -np.inf and s[0, 2] == -np.inf
    # the sequential-halving schedule (mctx's): m = 4, S = 8 -> 4 actions once, then 2 twice
    assert considered_visit_sequence(4, 8) == (0, 0, 0, 0, 1, 1, 2, 2)
    assert considered_visit_sequence(2, 5) == (0, 0, 1, 1, 2)
    assert considered_visit_sequence(1, 3) == (0, 1, 2)
    assert considered_visit_sequence(16, 16) == (0,) * 16


def test_one_search_by_hand():
    """Two actions, one simulation each (m = 2, S = 2), uniform priors, root value 0.5: action 0
    ends the game won (reward +1), action 1 reaches an opponent node of value 0.5 (so q = -0.5)."""
    forest = dict(
        num_players=2,
        teams=[[0], [1]],
        num_actions=2,
        roots=[0],
        nodes=[
            dict(mover=0, legal=[True, True], children=[1, 2], logits=[0.0, 0.0], value=0.5, returns=[0, 0]),
            dict(mover=-1, legal=[False, False], children=[-1, -1], logits=[0, 0], value=0, returns=[1.0, -1.0]),
            dict(mover=1, legal=[True, True], children=[1, 1], logits=[0.0, 0.0], value=0.5, returns=[0, 0]),
        ],
    )
    out = gumbel_search(
        table_env(forest, [0]),
        table_evaluate(forest),
        np.random.default_rng(0),
        num_simulations=2,
        max_num_considered_actions=2,
        gumbel_scale=0.0,
        teams=[[0], [1]],
    )
    np.testing.assert_array_equal(out.visit_counts[0], [1, 1])
    np.testing.assert_allclose(out.qvalues[0], [1.0, -0.5])
    # sigma: rescaled [1, 0] times (50 + 1) * 0.1 = 5.1; weights softmax([5.1, 0])
    np.testing.assert_allclose(out.completed_qvalues[0], [5.1, 0.0], atol=1e-6)
    w = np.exp([5.1, 0.0]) / np.exp([5.1, 0.0]).sum()
    np.testing.assert_allclose(out.action_weights[0], w, atol=1e-6)
    assert out.action[0] == 0
    # root value: the mean of 0.5, 1 and -0.5
    assert out.root_value[0] == pytest.approx(1.0 / 3.0, abs=1e-6)
    assert out.raw_value[0] == pytest.approx(0.5)


# ---------------------------------------------------------------------------- 3. forced wins
def _copies(env_id: str, state, n: int, **kwargs):
    vec = envs.make_vec(env_id, 1, seed=0, autoreset="disabled", **kwargs)
    vec.reset()
    return vec.from_states([state] * n)


def _check_wins(vec, sims: int, wins: set[str], seed: int):
    """Searched without noise (evaluation play), every game's action wins at once (the vector env
    says so) and is one of ``wins``; searched with noise (self-play, each game its own draw), the
    win's q is +1 wherever it was visited and the improved policy puts most weight on the wins."""
    rows = np.arange(vec.num_envs)
    mover = vec.current_player()
    st = vec.to_state(0)
    name = lambda a: st.action_to_string(st.to_state_action(int(mover[0]), int(a)))  # noqa: E731
    win_actions = [a for a in np.flatnonzero(vec.action_mask()[0]) if name(a) in wins]
    assert {name(a) for a in win_actions} == wins
    out = gumbel_search(
        vec,
        uniform_evaluate,
        np.random.default_rng(seed),
        num_simulations=sims,
        max_num_considered_actions=vec.num_actions,
        gumbel_scale=0.0,
    )
    assert {name(a) for a in out.action} <= wins
    step = vec.take(rows).step(out.action.copy())
    assert step.terminated.all() and (step.rewards[rows, mover] == 1.0).all()
    assert (out.qvalues[rows, out.action] == 1.0).all()
    noisy = gumbel_search(
        vec,
        uniform_evaluate,
        np.random.default_rng(seed),
        num_simulations=sims,
        max_num_considered_actions=vec.num_actions,
        gumbel_scale=1.0,
    )
    assert (noisy.visit_counts[:, win_actions] > 0).all()
    assert (noisy.qvalues[:, win_actions] == 1.0).all()
    assert (noisy.action_weights[:, win_actions].sum(axis=1) > 0.5).all()
    assert not np.array_equal(noisy.gumbel[0], noisy.gumbel[1])  # each game its own noise


def test_ataxx_one_move_win():
    """x to move with two stones; o's only stone is g7: the clones to g6 and f7 take it and win,
    20 other moves do not. Uniform evaluation (zero logits and values), 48 simulations."""
    from envs.ataxx.state import AtaxxState

    vec = _copies("ataxx_v0", AtaxxState.from_fen("6o/5x1/7/7/7/7/x6 x 0 1"), 4)
    assert int(vec.action_mask()[0].sum()) == 22
    _check_wins(vec, 48, {"g6", "f7"}, seed=1)


def test_twixt_one_move_win():
    """TwixT 8x8, red to move with the chain d1-e3-d5-e7: c8 or g8 joins row 8 (2 of 44 moves)."""
    from envs.twixt.state import TwixtState

    st = TwixtState.from_moves(["d1", "a2", "e3", "a4", "d5", "a6", "e7", "h2"], board_size=8)
    vec = _copies("twixt_v0", st, 4, board_size=8)
    assert int(vec.action_mask()[0].sum()) == 44
    _check_wins(vec, 96, {"c8", "g8"}, seed=2)


def test_twixt_black_one_move_win():
    """Black to move (its actions in its transposed frame): the chain a2-b4-d5-f4 joins column h
    with h3 or h5 (2 of 44 moves)."""
    from envs.twixt.state import TwixtState

    st = TwixtState.from_moves(["c1", "a2", "e1", "b4", "g1", "d5", "c8", "f4", "e8"], board_size=8)
    vec = _copies("twixt_v0", st, 3, board_size=8)
    assert vec.current_player().tolist() == [1, 1, 1] and int(vec.action_mask()[0].sum()) == 44
    _check_wins(vec, 96, {"h3", "h5"}, seed=3)


def _wins_by_force(st, me: int, plies: int) -> bool:
    """Whether seat ``me`` wins within ``plies`` plies whatever the opponent does (brute force)."""
    if st.is_terminal():
        return bool(st.returns()[me] == 1.0)
    if plies == 0:
        return False
    results = []
    for a in st.legal_actions():
        s = st.clone()
        s.apply(a)
        results.append(_wins_by_force(s, me, plies - 1))
    return any(results) if st.current_player == me else all(results)


@pytest.mark.parametrize(
    "fen, win",
    [
        ("oxx1xx1/xxoooox/oxxxx1o/xoxooox/xxxxooo/ooxxxxo/xxxxxox x 0 1", "f5"),
        ("ox1xxox/o1oxx1x/ooxxooo/xxxxxxx/xxoxoxo/xoxooxo/xxoxoox x 0 1", "c7"),
    ],
)
def test_ataxx_two_move_forced_win(fen, win):
    """Three holes left, x to move: only one move wins by force (x, then any o reply, then x fills
    the board ahead), checked here by brute force; no move wins at once. Uniform evaluation,
    128 simulations, all moves considered, no noise: the search plays it."""
    from envs.ataxx.state import AtaxxState

    st = AtaxxState.from_fen(fen)
    forced = []
    for a in st.legal_actions():
        s = st.clone()
        s.apply(a)
        assert not s.is_terminal()
        if _wins_by_force(s, 0, 2):
            forced.append(st.action_to_string(a))
    assert forced == [win]
    vec = _copies("ataxx_v0", st, 1)
    out = gumbel_search(
        vec,
        uniform_evaluate,
        np.random.default_rng(0),
        num_simulations=128,
        max_num_considered_actions=vec.num_actions,
        gumbel_scale=0.0,
    )
    assert st.action_to_string(st.to_state_action(0, int(out.action[0]))) == win
    assert out.qvalues[0, out.action[0]] > 0.8


# ---------------------------------------------------------------------------- teams: Double TwixT
def test_double_twixt_privilege_keeps_the_value_sign():
    """Double TwixT: after a Privilege claim the claimer's partner moves, so the value passes
    without a sign change; after an ordinary move an opponent moves and it flips. The evaluation
    says red leads (+0.5 for a red mover, -0.5 for a black one: it spots red's peg d2 in the
    mover's own plane), so every visited root action of red's must have q = +0.5 exactly."""
    from envs.twixt.state import TwixtState

    st = TwixtState.from_moves(["d2", "a4", "c6", "h5"], board_size=8, num_players=4)
    vec = _copies("double_twixt_v0", st, 2, board_size=8)
    assert seat_teams(vec).tolist() == [0, 1, 0, 1]
    n_holes = 64

    def evaluate(obs, masks):
        red = obs[:, 1, 3, 0] == 1.0  # red's own peg at d2 (row 1, column 3 in red's frame)
        return np.zeros(masks.shape, np.float32), np.where(red, 0.5, -0.5).astype(np.float32)

    out = gumbel_search(vec, evaluate, np.random.default_rng(5), num_simulations=64, max_num_considered_actions=32)
    visited = out.visit_counts > 0
    assert visited[:, n_holes + 1 :].any() and visited[:, :n_holes].any()  # Privilege claims and plain moves
    np.testing.assert_allclose(out.qvalues[visited], 0.5)
    assert out.root_value == pytest.approx(0.5)


# ---------------------------------------------------------------------------- 4. determinism, batching
def _ataxx_positions(n: int, plies: int, seed: int):
    vec = envs.make_vec("ataxx_v0", n, seed=seed, autoreset="disabled")
    out = vec.reset()
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        from envs.core.vector import sample_legal

        out = vec.step(sample_legal(out.action_mask, rng.random(n)))
    return vec


def _projection_evaluate(num_actions: int, seed: int = 0):
    """A fixed random linear 'network': logits and tanh value from the flattened observation."""
    r = np.random.default_rng(seed)
    w, u = None, None

    def evaluate(obs, masks):
        nonlocal w, u
        x = obs.reshape(len(obs), -1)
        if w is None:
            w = r.normal(0, 0.3, (x.shape[1], num_actions)).astype(np.float32)
            u = r.normal(0, 0.1, x.shape[1]).astype(np.float32)
        return x @ w, np.tanh(x @ u)

    return evaluate


def _results_equal(a, b):
    for f in (
        "action",
        "action_weights",
        "root_value",
        "raw_value",
        "qvalues",
        "completed_qvalues",
        "visit_counts",
        "considered",
        "gumbel",
    ):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f), err_msg=f)


def test_same_seed_same_result_and_env_untouched():
    vec = _ataxx_positions(6, 6, seed=3)
    before = [vec.to_state(i) for i in range(6)]
    kw = dict(num_simulations=16, max_num_considered_actions=8)
    a = gumbel_search(vec, _projection_evaluate(vec.num_actions), np.random.default_rng(11), **kw)
    b = gumbel_search(vec, _projection_evaluate(vec.num_actions), np.random.default_rng(11), **kw)
    c = gumbel_search(vec, _projection_evaluate(vec.num_actions), np.random.default_rng(12), **kw)
    _results_equal(a, b)
    assert not np.array_equal(a.gumbel, c.gumbel)
    assert [vec.to_state(i) for i in range(6)] == before
    assert (a.visit_counts.sum(axis=1) == 16).all() and (a.considered.sum(axis=1) == 8).all()
    np.testing.assert_allclose(a.action_weights.sum(axis=1), 1.0, rtol=1e-5)
    assert (a.action_weights[~vec.action_mask()] == 0).all()
    assert a.num_evaluations <= 6 * 17


def test_batch_equals_games_searched_alone():
    """Lockstep batching changes nothing: each game searched alone with its row of the noise gives
    the batch's row."""
    vec = _ataxx_positions(5, 8, seed=4)
    ev = _projection_evaluate(vec.num_actions)
    kw = dict(num_simulations=12, max_num_considered_actions=4)
    batch = gumbel_search(vec, ev, np.random.default_rng(0), **kw)
    for i in range(5):
        alone = gumbel_search(vec.take([i]), ev, None, gumbel=batch.gumbel[i : i + 1], **kw)
        assert alone.action[0] == batch.action[i]
        np.testing.assert_array_equal(alone.visit_counts[0], batch.visit_counts[i])
        # (float32 matmuls of 1 and 5 rows round differently, hence the tolerance)
        np.testing.assert_allclose(alone.action_weights[0], batch.action_weights[i], rtol=1e-4, atol=1e-6)


def test_reference_backend_gives_the_same_search():
    """The trees copy games with the core's take/put: the reference rules core (one state per game)
    must give exactly the batched core's result."""
    fast = _ataxx_positions(3, 5, seed=6)
    slow = envs.make_vec("ataxx_v0", 3, seed=6, autoreset="disabled", backend="reference")
    slow.reset()
    slow = slow.from_states([fast.to_state(i) for i in range(3)])
    ev = _projection_evaluate(fast.num_actions)
    kw = dict(num_simulations=8, max_num_considered_actions=4)
    _results_equal(
        gumbel_search(fast, ev, np.random.default_rng(1), **kw), gumbel_search(slow, ev, np.random.default_rng(1), **kw)
    )


def test_finished_games_are_skipped():
    from envs.ataxx.state import AtaxxState

    over = AtaxxState.from_fen("6o/5x1/7/7/7/7/x6 x 0 1")
    over.apply(over.string_to_action("g6"))
    assert over.is_terminal()
    vec = _copies("ataxx_v0", AtaxxState.from_fen("6o/5x1/7/7/7/7/x6 x 0 1"), 1)
    vec = vec.from_states([over, vec.to_state(0)])
    calls = []

    def ev(obs, masks):
        calls.append(len(masks))
        assert masks.any(axis=1).all()
        return uniform_evaluate(obs, masks)

    out = gumbel_search(vec, ev, np.random.default_rng(0), num_simulations=4)
    assert out.action[0] == 0 and not out.action_weights[0].any() and not out.visit_counts[0].any()
    assert out.visit_counts[1].sum() == 4 and calls[0] == 1


# ---------------------------------------------------------------------------- chance and hidden information
def _sketch_evaluate(num_actions: int, seed: int = 0, record: list | None = None):
    """A fixed random 'network' for large observations (dicts of arrays): the flattened
    observation is projected to 8 numbers, which give the logits and a tanh value; every
    observation it is shown is appended to ``record`` (flattened, float64)."""
    r = np.random.default_rng(seed)
    head = r.normal(0.0, 1.0, (8, num_actions))
    vhead = r.normal(0.0, 0.5, 8)
    proj: dict = {}

    def evaluate(obs, masks):
        parts = [obs[k] for k in sorted(obs)] if isinstance(obs, dict) else [obs]
        flat = np.concatenate([np.asarray(x, np.float64).reshape(len(masks), -1) for x in parts], axis=1)
        if "P" not in proj:
            proj["P"] = np.random.default_rng(seed + 1).normal(0.0, flat.shape[1] ** -0.5, (flat.shape[1], 8))
        z = flat @ proj["P"]
        if record is not None:
            record.append(flat)
        return (z @ head).astype(np.float32), np.tanh(z @ vhead).astype(np.float32)

    return evaluate


def _midgame(env_id: str, n: int, plies: int, seed: int, **kwargs):
    """A vector env of ``n`` games after ``plies`` random actions each (none finished)."""
    from envs.core.vector import sample_legal

    vec = envs.make_vec(env_id, n, seed=seed, autoreset="disabled", **kwargs)
    out = vec.reset()
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        out = vec.step(sample_legal(out.action_mask, rng.random(n)))
    assert (vec.current_player() >= 0).all()
    return vec


def _other_truths(vec, seeds):
    """For each seed, the batch with what each game's mover cannot see redrawn (another bag order,
    other hands and pile): positions its movers cannot tell from ``vec``'s."""
    mover = vec.current_player()
    states = [vec.to_state(i) for i in range(vec.num_envs)]
    out = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        others = [st.sample_determinization(int(p), rng) for st, p in zip(states, mover)]
        assert all(o != st for o, st in zip(others, states))  # the hidden part really differs
        assert all(o.to_text(viewer=int(p)) == st.to_text(viewer=int(p)) for o, st, p in zip(others, states, mover))
        out.append(vec.from_states(others))
    return out


def _search_recorded(vec, seed=0, **kw):
    record: list = []
    res = gumbel_search(vec, _sketch_evaluate(vec.num_actions, record=record), np.random.default_rng(seed), **kw)
    return res, np.concatenate(record)


@pytest.mark.parametrize(
    "env_id, kwargs, plies",
    [("tantrix_v0", {}, 4), ("smartrix_v0", {}, 6)],
    ids=["tantrix-bag-order", "smartrix-hands-and-pile"],
)
def test_hidden_information_is_never_read(env_id, kwargs, plies):
    """Games whose movers cannot tell them apart (Tantrix: another order of the bag; Smartrix: the
    cards the mover has not seen dealt otherwise to the other hand and the pile) give the same
    search from the same generator: the same action, policy, q-values and visits, and the network is
    shown exactly the same observations, so nothing of the true hidden order reached it. Searched
    as they are (``determinize=False``), the same games are told apart: the test can fail."""
    vec = _midgame(env_id, 2, plies, seed=3, **kwargs)
    kw = dict(num_simulations=12, max_num_considered_actions=4)
    base, seen = _search_recorded(vec, **kw)
    assert base.num_nodes > 0 and (base.visit_counts.sum(axis=1) == 12).all()
    truths = _other_truths(vec, seeds=(21, 22))
    for other in truths:
        res, seen_other = _search_recorded(other, **kw)
        _results_equal(base, res)
        np.testing.assert_array_equal(seen_other, seen)
    # the control: without determinization the hidden part shows in the observations
    _, raw_a = _search_recorded(vec, determinize=False, **kw)
    _, raw_b = _search_recorded(truths[0], determinize=False, **kw)
    assert raw_a.shape != raw_b.shape or not np.array_equal(raw_a, raw_b)


def test_one_determinization_per_search_drawn_after_the_noise():
    """The documented draws: ``rng.gumbel(size=(B, A))``, then ``determinize(mover, rng)`` of each
    live game in game order; the tree is the search of those determinizations as they are."""
    vec = _midgame("smartrix_v0", 3, 5, seed=4)
    rng = np.random.default_rng(7)
    res = gumbel_search(vec, _sketch_evaluate(vec.num_actions), rng, num_simulations=8)
    mine = np.random.default_rng(7)
    g = mine.gumbel(size=(3, vec.num_actions))
    mover = vec.current_player()
    dets = [vec.to_state(i).determinize(int(mover[i]), mine) for i in range(3)]
    assert rng.bit_generator.state == mine.bit_generator.state  # nothing else was drawn
    same = gumbel_search(
        vec.from_states(dets), _sketch_evaluate(vec.num_actions), None, num_simulations=8, gumbel=g, determinize=False
    )
    _results_equal(res, same)


def test_each_game_its_own_determinization_generator():
    """``determinization_rngs``: game ``i``'s determinization from its own generator, so a game
    searched alone (with its row of the noise and its generator) gives the batch's row."""
    vec = _midgame("smartrix_v0", 3, 5, seed=6)
    ev = _sketch_evaluate(vec.num_actions)
    g = np.random.default_rng(0).gumbel(size=(3, vec.num_actions))
    kw = dict(num_simulations=8, max_num_considered_actions=4)
    batch = gumbel_search(
        vec, ev, None, gumbel=g, determinization_rngs=[np.random.default_rng(10 + i) for i in range(3)], **kw
    )
    for i in range(3):
        alone = gumbel_search(
            vec.take([i]), ev, None, gumbel=g[i : i + 1], determinization_rngs=[np.random.default_rng(10 + i)], **kw
        )
        assert alone.action[0] == batch.action[i]
        np.testing.assert_array_equal(alone.visit_counts[0], batch.visit_counts[i])
        np.testing.assert_allclose(alone.action_weights[0], batch.action_weights[i], rtol=1e-4, atol=1e-6)
    # the same generator for every game (a list of one object) draws as ``rng`` does
    shared = np.random.default_rng(5)
    a = gumbel_search(vec, ev, None, gumbel=g, determinization_rngs=[shared] * 3, **kw)
    _results_equal(a, gumbel_search(vec, ev, np.random.default_rng(5), gumbel=g, **kw))
    for bad in ([np.random.default_rng(0)] * 2, [0, 1, 2], np.random.default_rng(0)):
        with pytest.raises(ValueError, match="determinization_rngs must be a list of 3"):
            gumbel_search(vec, ev, np.random.default_rng(0), determinization_rngs=bad, **kw)


def test_several_determinizations_share_the_root():
    """``num_determinizations=D``: D samples per game drawn one after the other, D trees whose root
    q-values are averaged. With m = S = 4 each tree visits the 4 considered root actions once, so
    every tree's q-values are those of a one-tree search of its sample, and the result follows from
    their mean by the paper's formulas."""
    vec = _midgame("smartrix_v0", 2, 5, seed=8)
    A = vec.num_actions
    ev = _sketch_evaluate(A)
    g = np.random.default_rng(0).gumbel(size=(2, A))
    kw = dict(num_simulations=4, max_num_considered_actions=4, gumbel=g)
    rng = np.random.default_rng(5)
    out = gumbel_search(vec, ev, rng, num_determinizations=3, **kw)
    mine = np.random.default_rng(5)
    mover = vec.current_player()
    samples = [[vec.to_state(i).determinize(int(mover[i]), mine) for _ in range(3)] for i in range(2)]
    assert rng.bit_generator.state == mine.bit_generator.state  # 3 draws per game, nothing else
    assert samples[0][0] != samples[0][1]
    singles = [
        gumbel_search(vec.from_states([samples[0][d], samples[1][d]]), ev, None, determinize=False, **kw)
        for d in range(3)
    ]
    for one in singles:
        np.testing.assert_array_equal(one.visit_counts, out.visit_counts)
        np.testing.assert_array_equal(one.considered, out.considered)
    assert (out.visit_counts.sum(axis=1) == 4).all() and (out.visit_counts.max(axis=1) == 1).all()
    q = np.mean([one.qvalues.astype(np.float64) for one in singles], axis=0)
    np.testing.assert_allclose(out.qvalues, q, atol=1e-6)
    assert not np.allclose(singles[0].qvalues, singles[1].qvalues)  # the samples do differ
    mask = vec.action_mask()
    logits, _ = ev(vec.core.observe(mover.astype(np.int32)), mask)
    logits = np.where(mask, logits.astype(np.float64), -1e30)
    sq = completed_qvalues(q, out.visit_counts, out.raw_value.astype(np.float64), logits)
    np.testing.assert_allclose(out.completed_qvalues, sq, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(out.action_weights, improved_policy(logits, sq, mask), atol=1e-5)
    np.testing.assert_allclose(out.root_value, np.mean([one.root_value for one in singles], axis=0), atol=1e-6)
    assert out.num_evaluations == sum(one.num_evaluations for one in singles)
    # and still blind to the truth
    for other in _other_truths(vec, seeds=(31,)):
        _results_equal(out, gumbel_search(other, ev, np.random.default_rng(5), num_determinizations=3, **kw))


def test_several_determinizations_need_hidden_information():
    vec = _ataxx_positions(2, 2, seed=0)
    with pytest.raises(ValueError, match="num_determinizations=2 needs a search that determinizes"):
        gumbel_search(vec, uniform_evaluate, np.random.default_rng(0), num_simulations=2, num_determinizations=2)
    with pytest.raises(ValueError, match="num_determinizations must be an integer >= 1"):
        gumbel_search(vec, uniform_evaluate, np.random.default_rng(0), num_simulations=2, num_determinizations=0)


def test_perfect_information_search_draws_only_the_noise():
    """Ataxx (perfect information): one ``gumbel`` draw from ``rng``, none with explicit noise, and
    a forced determinization (a clone) changes nothing."""
    vec = _ataxx_positions(3, 4, seed=5)
    ev = _projection_evaluate(vec.num_actions)
    rng = np.random.default_rng(3)
    a = gumbel_search(vec, ev, rng, num_simulations=8)
    mine = np.random.default_rng(3)
    mine.gumbel(size=(3, vec.num_actions))
    assert rng.bit_generator.state == mine.bit_generator.state
    _results_equal(a, gumbel_search(vec, ev, np.random.default_rng(3), num_simulations=8, determinize=True))
    rng = np.random.default_rng(3)
    gumbel_search(vec, ev, rng, num_simulations=8, gumbel=a.gumbel)
    assert rng.bit_generator.state == np.random.default_rng(3).bit_generator.state


def test_hidden_information_needs_a_generator_even_with_explicit_noise():
    vec = _midgame("smartrix_v0", 1, 2, seed=0)
    with pytest.raises(ValueError, match="determinizations"):
        gumbel_search(vec, uniform_evaluate, None, num_simulations=2, gumbel=np.zeros((1, vec.num_actions)))
    with pytest.raises(ValueError, match="determinize must be"):
        gumbel_search(vec, uniform_evaluate, np.random.default_rng(0), num_simulations=2, determinize="yes")


# ---------------------------------------------------------------------------- more than two sides: max-n
def _two_columns(evaluate):
    """The same evaluation with its values as the two sides' ``(N, 2)``: (mover's, other's)."""

    def ev(obs, masks):
        lg, v = evaluate(obs, masks)
        v = np.asarray(v)
        return lg, np.stack([v, -v], axis=1)

    return ev


def test_two_sides_as_vectors_search_exactly_as_scalars():
    """Two sides: an ``(N, 2)`` evaluation (mover's side, other side) with zero-sum values gives
    exactly the search of the scalar one, with the Privilege of Double TwixT (partners, K = 2) and
    with noise; ``root_values`` is ``(root_value, -root_value)``."""
    from envs.twixt.state import TwixtState

    double = _copies(
        "double_twixt_v0", TwixtState.from_moves(["d2", "a4", "c6", "h5"], board_size=8, num_players=4), 2, board_size=8
    )
    for vec, kw in (
        (_ataxx_positions(4, 6, seed=9), dict(num_simulations=16, max_num_considered_actions=4)),
        (double, dict(num_simulations=24, max_num_considered_actions=8)),
    ):
        ev = _projection_evaluate(vec.num_actions, seed=2)
        a = gumbel_search(vec, ev, np.random.default_rng(4), **kw)
        b = gumbel_search(vec, _two_columns(ev), np.random.default_rng(4), **kw)
        _results_equal(a, b)
        assert a.num_evaluations == b.num_evaluations and a.num_nodes == b.num_nodes
        np.testing.assert_array_equal(b.root_values, np.stack([a.root_value, -a.root_value], axis=1))


def _node(mover, children, abs_value, returns=(0, 0, 0)):
    """A node of a 3-seat table game: two actions (legal unless the game is over), uniform prior,
    ``abs_value`` the value of seats (0, 1, 2)."""
    return dict(
        mover=mover,
        legal=[mover >= 0] * 2,
        children=list(children),
        logits=[0.0, 0.0],
        abs=list(abs_value),
        returns=list(returns),
    )


# Three seats, no teams (K = 3), two actions a node. Values below are (seat 0, seat 1, seat 2),
# absolute; the evaluation returns them mover-relative (the mover's seat first, then the next ones).
THREE = dict(
    num_players=3,
    teams=[[0], [1], [2]],
    num_actions=2,
    roots=[0],
    nodes=[
        # 0: seat 0 to move; a0 -> node 1 (seat 1 to move), a1 -> node 2 (seat 2 to move)
        _node(0, (1, 2), (0, 0, 0)),
        # 1: seat 1; b0 ends the game won by seat 0, b1 won by seat 1
        _node(1, (3, 4), (0.4, 0.2, -0.6)),
        # 2: seat 2; c0 ends the game won by seat 2, c1 won by seat 0
        _node(2, (5, 6), (-0.2, -0.3, 0.5)),
        _node(-1, (-1, -1), (0, 0, 0), returns=(1, -1, -1)),
        _node(-1, (-1, -1), (0, 0, 0), returns=(-1, 1, -1)),
        _node(-1, (-1, -1), (0, 0, 0), returns=(-1, -1, 1)),
        _node(-1, (-1, -1), (0, 0, 0), returns=(1, -1, -1)),
    ],
)
for _d in THREE["nodes"]:  # the evaluation's order: the mover's seat, then the next seats
    _m = max(_d["mover"], 0)
    _d["value"] = [_d["abs"][(_m + j) % 3] for j in range(3)]


def test_three_sides_by_hand():
    """Max-n by hand (m = 2, S = 8, no noise). Sequential halving gives each root action 4 visits
    (schedule 0,0,1,1,2,2,3,3): the expansion, then 3 selections below it.

    Node 1 (seat 1 to move, raw value 0.2 for seat 1, uniform prior), by seat 1's component:
    * visit 1: nothing visited, every completed q is the raw value, sigma = 0: argmax of
      ``pi' - N / (1 + sum N)`` = (0.5, 0.5) ties to b0 -> seat 0 wins: q_1(b0) = -1.
    * visit 2: N = (1, 0); b1's completed q is the mixed value (0.2 + 1 * -1) / 2 = -0.4;
      (-1, -0.4) rescales to (0, 1), times (50 + 1) * 0.1: sigma = (0, 5.1), pi' = (0.006, 0.994);
      minus N / 2: (-0.494, 0.994) -> b1, seat 1 wins: q_1(b1) = +1.
    * visit 3: N = (1, 1), q = (-1, 1), sigma = (0, 5.1); minus N / 3 -> b1 again.
    (Backing up seat 0's value instead would send seat 1 to b0 at visit 2: the test tells.)
    Node 1's value: the mean of its raw value (0.4, 0.2, -0.6) and the returns of b0, b1, b1:
    seat 0: (0.4 + 1 - 1 - 1) / 4 = -0.15.

    Node 2 (seat 2, raw value 0.5 for seat 2): visit 1 ties to c0 (seat 2 wins, q_2 = 1); visit 2:
    c1's mixed value (0.5 + 1) / 2 = 0.75 < 1: sigma = (5.1, 0), pi' - N / 2 = (0.494, 0.006) ->
    c0; visit 3: mixed (0.5 + 2) / 3 = 0.83 < 1 -> c0. Node 2's value for seat 0: (-0.2 - 3) / 4 = -0.8.

    Root (seat 0): q = (-0.15, -0.8), both visited 4 times, sigma = rescaled (1, 0) times
    (50 + 4) * 0.1 = (5.4, 0): action a0, policy softmax(5.4, 0). Root values: the mean of
    (0, 0, 0) and the 8 backed-up vectors (the expansions of nodes 1 and 2, then the returns):
    seat 0 (0.4 + 1 - 1 - 1 - 0.2 - 3) / 9 = -3.8 / 9, seat 1 (0.2 - 1 + 1 + 1 - 0.3 - 3) / 9 =
    -2.1 / 9, seat 2 (-0.6 - 3 + 0.5 + 3) / 9 = -0.1 / 9.
    """
    ev = table_evaluate(THREE)
    out = gumbel_search(
        table_env(THREE, [0]),
        ev,
        np.random.default_rng(0),
        num_simulations=8,
        max_num_considered_actions=2,
        gumbel_scale=0.0,
        teams=THREE["teams"],
    )
    np.testing.assert_array_equal(out.visit_counts[0], [4, 4])
    np.testing.assert_allclose(out.qvalues[0], [-0.15, -0.8], atol=1e-6)
    np.testing.assert_allclose(out.completed_qvalues[0], [5.4, 0.0], atol=1e-5)
    np.testing.assert_allclose(out.action_weights[0], np.exp([5.4, 0.0]) / np.exp([5.4, 0.0]).sum(), atol=1e-6)
    assert out.action[0] == 0
    np.testing.assert_allclose(out.root_values[0], np.array([-3.8, -2.1, -0.1]) / 9, atol=1e-6)
    assert out.root_value[0] == pytest.approx(-3.8 / 9, abs=1e-6)
    assert out.raw_value[0] == 0.0
    # new nodes: node 1, node 2 and the ends after b0, b1, c0 (a finished game visited again adds none)
    assert out.num_nodes == 5 and out.num_evaluations == 3  # the root, node 1, node 2


def test_three_sides_root_of_another_seat():
    """The same tree searched from node 1 (seat 1 to move): the values come back mover-relative
    (seat 1, seat 2, seat 0), and seat 1 picks its own win b1 over seat 0's b0."""
    out = gumbel_search(
        table_env(THREE, [1]),
        table_evaluate(THREE),
        np.random.default_rng(0),
        num_simulations=4,
        max_num_considered_actions=2,
        gumbel_scale=0.0,
        teams=THREE["teams"],
    )
    np.testing.assert_array_equal(out.visit_counts[0], [2, 2])
    np.testing.assert_allclose(out.qvalues[0], [-1.0, 1.0])
    assert out.action[0] == 1
    # (raw (0.2, -0.6, 0.4) + 2 * b0 (-1, -1, 1) + 2 * b1 (1, -1, -1)) / 5, as (seat 1, seat 2, seat 0)
    np.testing.assert_allclose(out.root_values[0], np.array([0.2, -4.6, 0.4]) / 5, atol=1e-6)


def _sides_evaluate(num_actions: int, num_sides: int, seed: int = 0):
    """:func:`_sketch_evaluate` with ``(N, K)`` values: tanh of 8 projected numbers times a fixed
    ``(8, K)`` matrix."""
    base = _sketch_evaluate(num_actions, seed)
    vhead = np.random.default_rng(seed + 7).normal(0.0, 0.5, (8, num_sides))
    z_of: dict = {}

    def evaluate(obs, masks):
        lg, _ = base(obs, masks)
        parts = [obs[k] for k in sorted(obs)] if isinstance(obs, dict) else [obs]
        flat = np.concatenate([np.asarray(x, np.float64).reshape(len(masks), -1) for x in parts], axis=1)
        if "P" not in z_of:
            z_of["P"] = np.random.default_rng(seed + 1).normal(0.0, flat.shape[1] ** -0.5, (flat.shape[1], 8))
        return lg, np.tanh((flat @ z_of["P"]) @ vhead).astype(np.float32)

    return evaluate


@pytest.mark.parametrize(
    "env_id, kwargs, sides",
    [
        ("tantrix_v0", {"num_players": 3}, 3),
        ("smartrix_v0", {"num_players": 4}, 4),
        ("smartrix_v0", {"num_players": 4, "teams": True}, 2),
    ],
    ids=["tantrix-3p", "smartrix-4p", "smartrix-teams"],
)
def test_many_sides_on_real_games(env_id, kwargs, sides):
    """Real 3- and 4-seat games (and Smartrix teams: 2 sides of 2 seats) searched with ``(N, K)``
    values (uniform, then a fixed random projection): legal actions, a policy on the legal actions,
    every root visit counted, finite values in [-1, 1], and the mover's side first."""
    vec = _midgame(env_id, 2, 5, seed=1, **kwargs)
    assert len(set(seat_teams(vec).tolist())) == sides
    mask = vec.action_mask()
    for ev in (
        lambda o, m: (np.zeros(m.shape, np.float32), np.zeros((len(m), sides), np.float32)),
        _sides_evaluate(vec.num_actions, sides),
    ):
        out = gumbel_search(vec, ev, np.random.default_rng(2), num_simulations=8, max_num_considered_actions=4)
        assert mask[np.arange(2), out.action].all()
        assert (out.visit_counts.sum(axis=1) == 8).all() and (out.visit_counts[~mask] == 0).all()
        np.testing.assert_allclose(out.action_weights.sum(axis=1), 1.0, rtol=1e-5)
        assert (out.action_weights[~mask] == 0).all()
        assert out.root_values.shape == (2, sides) and np.isfinite(out.root_values).all()
        assert (np.abs(out.root_values) <= 1).all() and np.isfinite(out.qvalues).all()
        np.testing.assert_array_equal(out.root_values[:, 0], out.root_value)
        assert out.num_nodes > 0


@pytest.mark.parametrize(
    "env_id, kwargs",
    [("smartrix_v0", {"num_players": 4, "teams": True}), ("tantrix_v0", {"num_players": 3})],
    ids=["smartrix-teams", "tantrix-3p"],
)
def test_reference_backend_searches_hidden_games_alike(env_id, kwargs):
    """Determinized and searched with max-n on the batched core or on the reference rules states
    (one per game): the same result, so the determinization goes through ``to_state`` and
    ``from_states`` whole on both."""
    fast = _midgame(env_id, 3, 5, seed=6, **kwargs)
    slow = envs.make_vec(env_id, 3, seed=6, autoreset="disabled", backend="reference", **kwargs)
    slow.reset()
    slow = slow.from_states([fast.to_state(i) for i in range(3)])
    ev = _sides_evaluate(fast.num_actions, len(set(seat_teams(fast).tolist())))
    kw = dict(num_simulations=8, max_num_considered_actions=4)
    a = gumbel_search(fast, ev, np.random.default_rng(1), **kw)
    b = gumbel_search(slow, ev, np.random.default_rng(1), **kw)
    _results_equal(a, b)
    np.testing.assert_array_equal(a.root_values, b.root_values)


@pytest.mark.parametrize("num_players, teams", [(3, False), (4, True)], ids=["smartrix-3p", "smartrix-teams"])
def test_smartrix_end_phase_pass_is_scored_by_the_game(num_players, teams):
    """Smartrix's end phase: with the pile empty a pass puts the passer (with teams: both
    partners) out. From the position where the mover's pass ends the game, the search's q-value of
    the pass is exactly the game's return for the mover's side (max-n over 3 seats; with teams, 2
    sides of 2 seats), whatever the values the network gives."""
    from envs.smartrix import SmartrixState

    kwargs = {"num_players": num_players, "teams": teams}
    st = SmartrixState(num_players, seed=2, teams=teams)
    rng = np.random.default_rng(0)
    while st._pile:  # play (passing half the time) until the pile is empty
        legal = st.legal_actions()
        st.apply(st.pass_action if rng.random() < 0.5 else legal[int(rng.integers(len(legal)))])
        assert not st.is_terminal()
    for _ in range(num_players):  # then pass until the next pass ends the game
        after = st.clone()
        after.apply(after.pass_action)
        if after.is_terminal():
            break
        st = after
    assert after.is_terminal() and len(st.legal_actions()) > 1
    mover = st.current_player
    vec = _copies("smartrix_v0", st, 2, **kwargs)
    sides = len(st.teams())
    pass_action = st.to_agent_action(mover, st.pass_action)

    def evaluate(obs, masks):  # the pass first in the prior; some values for every side
        logits = np.zeros(masks.shape, np.float32)
        logits[:, pass_action] = 5.0
        return logits, np.tile(np.linspace(-0.5, 0.5, sides, dtype=np.float32), (len(masks), 1))

    out = gumbel_search(vec, evaluate, np.random.default_rng(1), num_simulations=8, max_num_considered_actions=4)
    assert (out.visit_counts[:, pass_action] > 0).all()
    np.testing.assert_array_equal(out.qvalues[:, pass_action], after.returns()[mover])
    assert out.root_values.shape == (2, sides)


@pytest.mark.parametrize(
    "values, match",
    [
        (lambda n: np.zeros((n, 2)), r"values of shape \(\d+, 2\), expected \(\d+, 3\)"),
        (lambda n: np.zeros((n, 4)), r"values of shape \(\d+, 4\), expected \(\d+, 3\)"),
        (lambda n: np.zeros((n, 3, 1)), "values of shape"),
        (lambda n: np.full((n, 3), 2.0), r"\[-1, 1\]"),
    ],
)
def test_bad_value_shapes_for_three_sides(values, match):
    vec = envs.make_vec("tantrix_v0", 1, seed=0, num_players=3)
    vec.reset()
    with pytest.raises(ValueError, match=match):
        gumbel_search(
            vec, lambda o, m: (np.zeros(m.shape), values(len(m))), np.random.default_rng(0), num_simulations=2
        )


# ---------------------------------------------------------------------------- the game's evaluation
def _heuristic_value(state, player):
    h = state.heuristics()
    return math.tanh(h.evaluate(state, player) / h.value_scale)


def _visiting_each_action_once(vec, i: int, legal: list, **kwargs) -> int:
    """The action of a noiseless search of game ``i`` with a blind network at ``heuristic_weight``
    1 that visits each of its ``legal`` actions exactly once (checked): the one whose child the
    game's evaluation (``kwargs``: ``heuristic=``) rates best."""
    n = len(legal)
    res = gumbel_search(
        vec.take([i]),
        uniform_evaluate,
        np.random.default_rng(0),
        num_simulations=n,
        max_num_considered_actions=n,
        gumbel=np.zeros((1, vec.num_actions)),
        heuristic_weight=1.0,
        **kwargs,
    )
    assert res.visit_counts[0, legal].tolist() == [1] * n
    return int(res.action[0])


def test_heuristic_weight_mixes_the_games_evaluation_into_every_value():
    """``heuristic_weight`` (AlphaGo's mixing of its value network with another evaluation): with a
    network that knows nothing (uniform priors, value 0), the root's value is ``lambda`` times the
    game's own evaluation, and at ``lambda = 1`` a search that visits every legal action once plays
    one whose child the game's evaluation rates best for the mover; at ``lambda = 0`` the game's
    evaluation is never asked for."""
    vec = envs.make_vec("ataxx_v0", 6, seed=2)
    vec.reset()
    rng = np.random.default_rng(3)
    for _ in range(9):  # a few random plies: captures make the children's material differ
        vec.step(np.array([int(rng.choice(np.flatnonzero(m))) for m in vec.action_mask()]))
    states = [vec.to_state(i) for i in range(6)]
    half = gumbel_search(vec, uniform_evaluate, np.random.default_rng(0), num_simulations=1, heuristic_weight=0.5)
    want = [0.5 * _heuristic_value(s, s.current_player) for s in states]
    np.testing.assert_allclose(half.raw_value, want, rtol=1e-6, atol=1e-7)
    assert np.abs(half.raw_value).max() > 0.01
    narrowed = 0
    for i, s in enumerate(states):
        legal = s.legal_actions()
        n = len(legal)
        chosen = _visiting_each_action_once(vec, i, legal)
        rated = {}
        for a in legal:
            child = s.clone()
            child.apply(a)
            rated[a] = _heuristic_value(child, s.current_player)
        best = {a for a, v in rated.items() if v == max(rated.values())}
        assert chosen in best, f"game {i}: {chosen} not among the best {sorted(best)}"
        narrowed += len(best) < n and legal[0] not in best
    assert narrowed > 0  # somewhere the first legal action (a blind search's) is not among the best
    calls = []
    original = VectorCore.heuristic_values

    def counting(self, index, seats, evaluator="evaluate"):
        calls.append((len(index), evaluator))
        return original(self, index, seats, evaluator)

    try:
        VectorCore.heuristic_values = counting
        gumbel_search(vec, uniform_evaluate, np.random.default_rng(0), num_simulations=4)
        assert calls == []
        gumbel_search(vec, uniform_evaluate, np.random.default_rng(0), num_simulations=4, heuristic_weight=0.25)
        assert calls and calls[0] == (6, "evaluate") and {e for _, e in calls} == {"evaluate"}
    finally:
        VectorCore.heuristic_values = original


def test_the_search_mixes_in_the_named_evaluation():
    """``heuristic="predicted"`` (Tantrix's robot evaluation, ``GameInfo.evaluators``): at
    ``lambda = 1`` a search that visits every legal action once plays one whose child that
    evaluation rates best for the mover, where the score gap would often choose otherwise; a name
    the game does not offer is refused and leaves the env as it was."""
    from envs.tantrix.robot import robot_value

    vec = envs.make_vec("tantrix_v0", 4, seed=8, num_players=2)
    vec.reset()
    rng = np.random.default_rng(9)
    for _ in range(12):
        vec.step(np.array([int(rng.choice(np.flatnonzero(m))) for m in vec.action_mask()]))
    differs = 0
    for i in range(4):
        s = vec.to_state(i)
        legal = s.legal_actions()
        picked = {name: _visiting_each_action_once(vec, i, legal, heuristic=name) for name in ("predicted", "evaluate")}
        rated = {}
        for a in legal:
            child = s.clone()
            child.apply(a)
            rated[a] = math.tanh(robot_value(child, s.current_player) / 5.0)
        top = max(rated.values())
        assert rated[picked["predicted"]] == top, f"game {i}: not among the robot evaluation's best"
        differs += rated[picked["evaluate"]] < top
    assert differs > 0
    before = vec.action_mask().copy(), vec.current_player().copy()
    with pytest.raises(ValueError, match="has no evaluation 'nope'"):
        gumbel_search(
            vec, uniform_evaluate, np.random.default_rng(0), num_simulations=2, heuristic_weight=0.5, heuristic="nope"
        )
    with pytest.raises(ValueError, match="heuristic must be the name of one of the game's evaluations, got 3"):
        gumbel_search(vec, uniform_evaluate, np.random.default_rng(0), num_simulations=2, heuristic=3)
    np.testing.assert_array_equal(vec.action_mask(), before[0])
    np.testing.assert_array_equal(vec.current_player(), before[1])


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(num_simulations=0), "num_simulations"),
        (dict(num_simulations=2.0), "num_simulations"),
        (dict(num_simulations=True), "num_simulations"),
        (dict(max_num_considered_actions=0), "max_num_considered_actions"),
        (dict(gumbel_scale=-1.0), "gumbel_scale"),
        (dict(gumbel_scale=float("nan")), "gumbel_scale"),
        (dict(value_scale=-0.1), "value_scale"),
        (dict(heuristic_weight=-0.1), "heuristic_weight must be a finite number >= 0"),
        (dict(heuristic_weight=1.5), r"heuristic_weight must be in \[0, 1\], got 1.5"),
        (dict(heuristic_weight=float("nan")), "heuristic_weight"),
        (dict(rng=0), "numpy.random.Generator"),
        (dict(evaluate=None), "callable"),
        (dict(gumbel=np.zeros((2, 3))), "gumbel"),
        (dict(teams=[[0], [1], []]), "exactly once, in non-empty teams"),
        (dict(teams=[[0, 1]]), "at least two sides"),
        (dict(teams=[[0], [0]]), "exactly once"),
    ],
)
def test_bad_arguments(kwargs, match):
    vec = envs.make_vec("ataxx_v0", 2, seed=0)
    vec.reset()
    args = dict(env=vec, evaluate=uniform_evaluate, rng=np.random.default_rng(0), num_simulations=4)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        gumbel_search(**args)


@pytest.mark.parametrize(
    "answer, match",
    [
        (lambda o, m: np.zeros(m.shape), "tuple"),
        (lambda o, m: (np.zeros((len(m), 3)), np.zeros(len(m))), "logits of shape"),
        (lambda o, m: (np.zeros(m.shape), np.zeros((len(m), 1))), "values of shape"),
        (lambda o, m: (np.zeros(m.shape), np.full(len(m), 1.5)), r"\[-1, 1\]"),
        (lambda o, m: (np.zeros(m.shape), np.full(len(m), np.nan)), r"\[-1, 1\]"),
        (lambda o, m: (np.where(m, np.nan, 0.0), np.zeros(len(m))), "not finite"),
    ],
)
def test_bad_evaluate_answers(answer, match):
    vec = envs.make_vec("ataxx_v0", 2, seed=0)
    vec.reset()
    with pytest.raises(ValueError, match=match):
        gumbel_search(vec, answer, np.random.default_rng(0), num_simulations=2)


def test_bad_env():
    with pytest.raises(ValueError, match="make_vec"):
        gumbel_search(object(), uniform_evaluate, np.random.default_rng(0), num_simulations=2)
    with pytest.raises(ValueError, match="reset"):
        gumbel_search(envs.make_vec("ataxx_v0", 2), uniform_evaluate, np.random.default_rng(0), num_simulations=2)
    # three sides: a scalar value per position cannot say how the other two stand
    vec = envs.make_vec("tantrix_v0", 1, seed=0, num_players=3)
    vec.reset()
    with pytest.raises(ValueError, match=r"values of shape \(1,\), expected \(1, 3\).*3 sides"):
        gumbel_search(vec, uniform_evaluate, np.random.default_rng(0), num_simulations=2)


def test_illegal_logits_are_ignored():
    """Logits of illegal actions may be anything (-inf, NaN): they are masked."""
    vec = _ataxx_positions(2, 3, seed=8)
    ev = _projection_evaluate(vec.num_actions)

    def messy(obs, masks):
        lg, v = ev(obs, masks)
        return np.where(masks, lg, np.nan), v

    _results_equal(
        gumbel_search(vec, ev, np.random.default_rng(0), num_simulations=6),
        gumbel_search(vec, messy, np.random.default_rng(0), num_simulations=6),
    )


# ---------------------------------------------------------------------------- the compact tree
def _keyed_evaluate(num_actions: int, num_sides: int, seed: int = 0):
    """A non-uniform random 'network' that answers each position alike wherever it is asked: the
    logits (normal, scale 2) and the ``(N, K)`` values (uniform in [-1, 1]) of a generator seeded by
    a CRC of the position's observation (its arrays in key order) and ``seed``."""
    import zlib

    def evaluate(obs, masks):
        parts = [obs[k] for k in sorted(obs)] if isinstance(obs, dict) else [obs]
        flat = np.concatenate([np.asarray(x, np.float32).reshape(len(masks), -1) for x in parts], axis=1)
        lg = np.empty((len(masks), num_actions), np.float32)
        values = np.empty((len(masks), num_sides), np.float32)
        for i, row in enumerate(flat):
            r = np.random.default_rng([seed, zlib.crc32(row.tobytes())])
            lg[i] = 2.0 * r.standard_normal(num_actions)
            values[i] = r.uniform(-1.0, 1.0, num_sides)
        return lg, values

    return evaluate


@pytest.mark.parametrize(
    "env_id, kwargs, plies, search",
    [
        ("ataxx_v0", {}, 6, {}),
        ("ataxx_v0", {}, 6, {"gumbel_scale": 0.0, "use_mixed_value": False}),
        ("tantrix_v0", {"window_radius": 3}, 4, {}),
        ("tantrix_v0", {"window_radius": 3}, 4, {"num_determinizations": 2, "rescale_values": False}),
        ("smartrix_v0", {"num_players": 4}, 3, {}),
    ],
    ids=["ataxx", "ataxx-no-noise-no-mix", "tantrix-2p", "tantrix-2p-2-determinizations", "smartrix-4p"],
)
def test_compact_tree_equals_the_dense_search(env_id, kwargs, plies, search):
    """The search's tree holds each node's legal actions only; the dense search it replaced (tree
    arrays over all ``A`` actions, kept as tests/training/_dense_gumbel_reference.py) gives the same
    result on the same positions, noise and evaluation: a perfect-information game (Ataxx), a
    determinized one (Tantrix, 2 players, small window) and 4 sides (Smartrix, max-n)."""
    vec = _midgame(env_id, 5, plies, seed=3, **kwargs)
    sides = len(set(seat_teams(vec).tolist()))
    ev = _keyed_evaluate(vec.num_actions, sides)
    kw = dict(num_simulations=24, max_num_considered_actions=8, **search)
    got = gumbel_search(vec, ev, np.random.default_rng(11), **kw)
    want = dense_gumbel_search(vec, ev, np.random.default_rng(11), **kw)
    assert (vec.action_mask().sum(axis=1) < vec.num_actions).all()  # the illegal actions count in sigma
    assert got.num_nodes == want.num_nodes and got.num_evaluations == want.num_evaluations
    for f in ("action", "visit_counts", "considered", "gumbel"):
        np.testing.assert_array_equal(getattr(got, f), getattr(want, f), err_msg=f)
    for f in ("action_weights", "qvalues", "completed_qvalues", "root_value", "raw_value", "root_values"):
        np.testing.assert_allclose(getattr(got, f), getattr(want, f), rtol=1e-9, atol=0, err_msg=f)
    assert not np.allclose(got.qvalues, 0.0) and len(np.unique(got.action_weights)) > 10  # not a uniform search
