"""The AlphaZero engine on games with hidden information, chance and more than two sides (Tantrix,
Smartrix): a value per side beyond two (network, targets, buffer, loss), self-play storing the
mover's own observation and labelling each position from its own mover's side (Tantrix's repeated
decisions of one seat, Smartrix's four seats), the engine's checks, reproducible and resumable runs,
and the ``az:`` agent playing such checkpoints in ``training.evaluate``."""

from __future__ import annotations

import json
import types

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from test_alphazero import checkpoint, same_tensors  # noqa: E402
from test_alphazero import tiny as smoke_config  # noqa: E402

from conftest import REPO_ROOT  # noqa: E402
from training.config import ConfigError  # noqa: E402
from training.engines.alphazero.learning import ReplayBuffer, train_step, value_targets  # noqa: E402
from training.train import load_config, train  # noqa: E402

SMALL_NET = {"channels": 8, "blocks": 1}
#: A small network of Smartrix's family (as its configs name it).
SMARTRIX_NET = {
    "features": "card_table_net",
    "features_kwargs": SMALL_NET,
    "head": "factored",
    "net_arch": {"pi": [], "vf": [64]},
    "value_head": "dense",
}


def tiny(config: str, **overrides):
    """test_alphazero's smoke-size config of ``config`` (only ``random`` in the evaluations) with
    a smaller network."""
    cfg = smoke_config(str(REPO_ROOT / config), **overrides)
    cfg.policy.features_kwargs = dict(SMALL_NET)
    return cfg


# ---------------------------------------------------------------------------- values per side
def test_value_targets_are_each_sides_return_from_the_movers_side():
    # four seats alone: column j is seat (mover + j) mod 4
    returns = np.array([1.0, -1.0, 0.0, -1.0], dtype=np.float32)
    got = value_targets(returns, np.array([0, 1, 3, 3]), np.array([0, 1, 2, 3]))
    assert got.dtype == np.float32 and got.shape == (4, 4)
    assert got.tolist() == [[1, -1, 0, -1], [-1, 0, -1, 1], [-1, 1, -1, 0], [-1, 1, -1, 0]]
    # two teams of two (K = 2): the mover's return, a scalar per position, shared by partners
    got = value_targets(np.array([1, -1, 1, -1], np.float32), np.array([0, 1, 2, 3]), np.array([0, 1, 0, 1]))
    assert got.shape == (4,) and got.tolist() == [1, -1, 1, -1]
    # three teams of two (seats 0+3, 1+4, 2+5): a side's return is its first seat's; clipped to [-1, 1]
    got = value_targets(np.array([2, -1, 0, 2, -1, 0], np.float32), np.array([4, 2]), np.array([0, 1, 2, 0, 1, 2]))
    assert got.tolist() == [[-1, 0, 1], [0, 1, -1]]
    # a game cut at max_steps: zero returns, zero targets of the right shape
    assert value_targets(np.zeros(3, np.float32), np.array([2]), np.array([0, 1, 2])).tolist() == [[0, 0, 0]]


def test_the_network_has_one_value_for_two_sides_and_one_per_side_beyond():
    import envs
    from training.agents.alphazero_net import build_network, make_evaluate, num_sides, value_outputs

    policy = SMARTRIX_NET
    assert [value_outputs(k) for k in (2, 3, 4)] == [1, 3, 4]
    for kwargs, k, shape in (
        ({"num_players": 2}, 2, (3,)),
        ({"num_players": 4, "teams": True}, 2, (3,)),
        ({"num_players": 3}, 3, (3, 3)),
        ({"num_players": 4}, 4, (3, 4)),
    ):
        assert num_sides("smartrix_v0", kwargs) == k
        torch.manual_seed(0)
        net = build_network("smartrix_v0", kwargs, policy)
        assert net.net.value_net.out_features == value_outputs(k)
        vec = envs.make_vec("smartrix_v0", 3, seed=1, **kwargs)
        step = vec.reset()
        logits, values = make_evaluate(net)(step.observation, step.action_mask)
        assert logits.shape == (3, vec.num_actions) and values.shape == shape and values.dtype == np.float32
        assert np.all(np.abs(values) <= 1) and np.ptp(values) > 0  # tanh, and not a constant
    with pytest.raises(ValueError, match="value_outputs must be an integer >= 1"):
        from training.features import ActorCriticNet

        space = vec.core.observation_space
        ActorCriticNet(space, None, 5, "card_table_net", {"features_dim": 8}, "linear", None, "dense", 0)


def test_the_buffer_and_the_loss_take_a_value_per_side():
    import envs
    from envs.core.vector import pack_mask
    from training.agents.alphazero_net import build_network

    vec = envs.make_vec("smartrix_v0", 4, seed=0, num_players=4)
    step = vec.reset()
    mask = np.asarray(step.action_mask)
    policy = (mask / mask.sum(axis=1, keepdims=True)).astype(np.float32)
    z = np.array([[1, -1, -1, -1], [-1, 1, -1, -1], [0, 0, -1, -1], [-1, -1, -1, 1]], np.float32)
    buf = ReplayBuffer(8, vec.core.observation_space, vec.num_actions, value_dim=4)
    buf.add(step.observation, pack_mask(mask), policy, z)
    assert buf.value.shape == (8, 4) and buf.size == 4
    _, _, _, got = buf.batch(np.array([2, 0]))
    assert got.tolist() == [z[2].tolist(), z[0].tolist()]
    # the value loss is the MSE averaged over positions and sides
    torch.manual_seed(0)
    net = build_network("smartrix_v0", {"num_players": 4}, SMARTRIX_NET)
    rng = np.random.default_rng(5)
    idx = np.random.default_rng(5).integers(buf.size, size=6)
    obs, _, _, target = buf.batch(idx)
    from training.agents.alphazero_net import obs_tensor

    net.train()
    with torch.no_grad():
        _, v = net(obs_tensor(obs))
    expected = float(((v.numpy() - target) ** 2).mean())
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    losses = train_step(net, opt, buf, rng, 6, 1.0)
    assert losses["value_loss"] == pytest.approx(expected, rel=1e-5)
    assert expected > 0.1  # a real error, not a vacuous zero


# ---------------------------------------------------------------------------- self-play's positions
@pytest.mark.parametrize(
    "config, kwargs",
    [
        ("configs/smartrix_4p_az.yaml", {"num_players": 4}),  # hidden hands, four sides
        ("configs/tantrix_az.yaml", {"num_players": 2, "window_radius": 6}),  # one seat's repeated decisions
        ("configs/tantrix_doubles_az.yaml", {"num_players": 4, "teams": True, "window_radius": 6}),  # teams
    ],
)
def test_selfplay_stores_the_movers_view_and_labels_each_position_from_its_mover(config, kwargs):
    """One game played to its end by :class:`SelfPlay` (a uniform evaluation, 2 simulations): each
    stored observation is the mover's own view of the position (as ``observe(mover)``; another
    seat's view differs), and each value target is the game's return of every side from that
    position's own mover's side (``K > 2``: mover-relative columns; ``K = 2``: the mover's
    return, partners sharing it)."""
    from envs.core.vector import obs_take
    from training.engines.alphazero.trainer import Chunks, SelfPlay

    cfg = tiny(config, env_kwargs=kwargs, max_steps=None)
    cfg.search.simulations = 2
    cfg.selfplay.games = 1
    sp = SelfPlay(cfg, 3)
    team_of = sp.team_of
    K = int(team_of.max()) + 1

    def evaluate(obs, masks):
        n = masks.shape[0]
        return np.zeros(masks.shape, np.float32), np.zeros((n, K) if K > 2 else n, np.float32)

    finals = []
    step = sp.env.step

    def recording_step(actions):
        out = step(actions)
        finals.append(np.array(out.rewards[0]))
        return out

    sp.env.step = recording_step
    sink, movers, views, others = Chunks(), [], [], []
    rng = np.random.default_rng(0)
    while not sink.chunks:
        mover = int(sp.env.current_player()[0])
        movers.append(mover)
        views.append(sp.env.observe(mover))
        others.append(sp.env.observe((mover + 1) % sp.env.num_players))
        sp.move(evaluate, rng, sink)
    obs, _, _, value = sink.chunks[0]
    returns = finals[-1]
    assert len(value) == len(movers) and np.abs(returns).sum() > 0  # a game decided by the rules
    for i, p in enumerate(movers):
        stored = obs_take(obs, np.array([i]))
        assert all(np.array_equal(stored[k], views[i][k]) for k in stored)
        if K > 2:
            assert value[i].tolist() == [returns[(p + j) % K] for j in range(K)]
        else:
            assert value[i] == returns[p] and value[i] == returns[np.flatnonzero(team_of == team_of[p])].max()
    assert any(any(not np.array_equal(v[k], o[k]) for k in v) for v, o in zip(views, others))
    if "tantrix" in config and K == 2 and sp.env.num_players == 2:
        assert any(a == b for a, b in zip(movers, movers[1:]))  # one seat's consecutive decisions


# ---------------------------------------------------------------------------- the engine's checks
def test_the_engine_takes_hidden_information_and_refuses_what_it_cannot_search(tmp_path):
    import yaml

    from training.engines.alphazero import ENGINE

    data = yaml.safe_load((REPO_ROOT / "configs" / "tantrix_az.yaml").read_text())
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump(data))
    cfg = load_config(p)  # validated: a game with hidden information and chance is searched on determinizations
    assert cfg.env_id == "tantrix_v0"
    data["selfplay"]["symmetries"] = True
    p.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match="'selfplay.symmetries'.*declares no board symmetries"):
        load_config(p)

    def probe(chance, perfect, determinize=None):
        state = types.SimpleNamespace(
            info=types.SimpleNamespace(chance=chance, perfect_information=perfect),
            current_player=0,
            determinize=determinize,
        )
        return types.SimpleNamespace(state=state)

    with pytest.raises(ConfigError, match="'env_id' 'tantrix_v0'.*chance and declares perfect information"):
        ENGINE.validate(cfg, probe(True, True))

    def missing(player, rng):
        raise NotImplementedError("no determinize here")

    with pytest.raises(ConfigError, match="'env_id' 'tantrix_v0'.*hidden information.*no determinize here"):
        ENGINE.validate(cfg, probe(False, False, missing))
    ENGINE.validate(cfg, probe(False, False, lambda player, rng: None))  # a game that determinizes: accepted


# ---------------------------------------------------------------------------- reproducible, resumable
def test_same_config_and_seed_same_weights_with_determinized_searches(tmp_path):
    """Tantrix (the bag's draws in every search's determinization): same seed, same weights and
    buffer; another seed differs."""
    runs = []
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        train(tiny("configs/tantrix_az.yaml", seed=seed, total_timesteps=16), tmp_path / name, progress_bar=False)
        runs.append(checkpoint(tmp_path / name / "checkpoints" / "final.pt"))
    assert runs[0]["counters"]["train_steps"] > 0
    assert same_tensors(runs[0]["network"], runs[1]["network"])
    assert np.array_equal(runs[0]["buffer"].policy, runs[1]["buffer"].policy)
    assert not same_tensors(runs[0]["network"], runs[2]["network"])


def test_a_four_seat_run_in_two_parts_trains_the_same_weights_as_one_in_one_go(tmp_path):
    """Smartrix, 4 seats (hidden hands, a shuffled pile, 4 values a position): the first part ends
    at a round boundary; the second resumes its checkpoint (network, optimizer, buffer of 4-value
    targets, generators, games in progress) and ends where the run in one go ends."""
    cfg = "configs/smartrix_4p_az.yaml"
    train(tiny(cfg, total_timesteps=48), tmp_path / "whole", progress_bar=False)
    train(tiny(cfg, total_timesteps=16), tmp_path / "p1", progress_bar=False)
    report = train(
        tiny(cfg, total_timesteps=32),
        tmp_path / "p2",
        resume=str(tmp_path / "p1" / "checkpoints" / "final.pt"),
        progress_bar=False,
    )
    assert report["timesteps"] == 48 and report["timesteps_this_run"] == 32
    whole = checkpoint(tmp_path / "whole" / "checkpoints" / "final.pt")
    parts = checkpoint(tmp_path / "p2" / "checkpoints" / "final.pt")
    assert whole["buffer"].value.shape[1:] == (4,)
    assert whole["counters"]["train_steps"] == parts["counters"]["train_steps"] > 0
    assert same_tensors(whole["network"], parts["network"])
    assert whole["rng"] == parts["rng"]
    assert np.array_equal(whole["buffer"].obs["hand"], parts["buffer"].obs["hand"])
    assert np.array_equal(whole["buffer"].policy, parts["buffer"].policy)


# ---------------------------------------------------------------------------- the agent
@pytest.mark.parametrize(
    "config, env_kwargs",
    [
        ("configs/tantrix_az.yaml", {"num_players": 2, "window_radius": 10}),
        ("configs/smartrix_4p_az.yaml", {"num_players": 4}),
    ],
)
def test_training_evaluate_plays_a_hidden_information_az_checkpoint(tmp_path, config, env_kwargs):
    from training.evaluate import main as evaluate_main

    train(tiny(config, total_timesteps=16), tmp_path / "r", progress_bar=False)
    path = tmp_path / "r" / "checkpoints" / "final.pt"
    env_id = load_config(REPO_ROOT / config).env_id
    args = [env_id, "--env-kwargs", json.dumps(env_kwargs), "--agents", f"az:{path}:2", "random", "--games", "2"]
    args += ["--max-steps", "12", "--seed", "0", "--out", str(tmp_path / "ev"), "--no-progress"]
    assert evaluate_main(args) == 0
    results = json.loads((tmp_path / "ev" / "results.json").read_text())
    assert len(results["games"]) == 2
    assert all(len(g["returns"]) == env_kwargs["num_players"] for g in results["games"])


# ---------------------------------------------------------------------------- the warm start
def test_the_warm_start_labels_four_seat_games_per_side_and_fits_them():
    """The teacher's games of Smartrix, 4 seats (greedy in every seat, played to their end): each
    decision's value target is every seat's return from its mover's side; the imitation trains the
    4-value network on them."""
    from training.agents.alphazero_net import build_network
    from training.engines.alphazero.warm_start import imitate, teacher_games

    cfg = tiny("configs/smartrix_4p_az.yaml", max_steps=None)
    cfg.selfplay.games = 2
    cfg.pretrain.epochs, cfg.pretrain.batch_size = 1, 32
    data = teacher_games(cfg, "greedy", 2, seed=1)
    n = len(data["action"])
    assert data["value"].shape == (n, 4) and data["value"].dtype == np.float32
    assert np.abs(data["outcomes"]).sum() > 0  # decided games
    for g in (0, 1):
        rows = np.flatnonzero(data["game"] == g)
        first = data["value"][rows[0]]  # seat 0 moves first: the absolute order
        assert first.tolist() == data["outcomes"][g].tolist()
        for r in rows:  # some seat's row is a rotation of the outcomes
            rotations = [np.roll(data["outcomes"][g], -j).tolist() for j in range(4)]
            assert data["value"][r].tolist() in rotations
    torch.manual_seed(0)
    net = build_network(cfg.env_id, cfg.env_kwargs, cfg.policy.to_dict())
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    fit = imitate(net, opt, data, cfg, seed=1)
    assert fit["steps"] > 0 and np.isfinite(fit["last_loss"]) and 0 < fit["holdout_value_mse"] < 4


def test_a_self_play_actor_returns_a_value_per_side(monkeypatch):
    """The Ray actors' class, run in this process: the chunks of its finished games (Smartrix, 4
    seats, played to their end) carry 4 values a position, each row a rotation of the game's
    returns, and the learner's buffer takes them."""
    import envs
    from training.agents.alphazero_net import build_network
    from training.engines.alphazero.trainer import SelfPlayActor

    monkeypatch.setattr("training.threads.set_torch_threads", lambda n, **kw: True)
    cfg = tiny("configs/smartrix_4p_az.yaml", max_steps=None)
    torch.manual_seed(0)
    weights = build_network(cfg.env_id, cfg.env_kwargs, cfg.policy.to_dict()).state_dict()
    actor = SelfPlayActor(cfg, 1)
    out = actor.play(weights, 70)
    assert out["positions"] == 140 and len(out["chunks"]) == 2  # both games ended (about 60 plies)
    probe = envs.make_vec(cfg.env_id, 1, seed=0, **cfg.env_kwargs)
    buf = ReplayBuffer(256, probe.core.observation_space, probe.num_actions, value_dim=4)
    for chunk in out["chunks"]:
        value = chunk[3]
        assert value.shape == (len(chunk[2]), 4) and value.any()
        assert all(any(np.array_equal(row, np.roll(value[0], j)) for j in range(4)) for row in value)
        buf.add(*chunk)
    assert buf.size == sum(len(c[3]) for c in out["chunks"])
