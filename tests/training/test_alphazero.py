"""The AlphaZero engine (training/engines/alphazero): smoke runs of every ``engine: alphazero``
config, same config + seed = same weights, a run in two parts = the run in one go, the
``az:PATH[:SIMS]`` agent spec, the replay buffer and the config's checks."""

from __future__ import annotations

import importlib.metadata
import json
import re

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from conftest import REPO_ROOT  # noqa: E402
from training.config import ConfigError  # noqa: E402
from training.environment import Environment  # noqa: E402
from training.train import load_config, main, train  # noqa: E402

AZ_CONFIGS = sorted(
    str(p.relative_to(REPO_ROOT))
    for p in (REPO_ROOT / "configs").glob("*.yaml")
    if "\nengine: alphazero" in p.read_text()
)


def tiny(config: str = "configs/ataxx_az.yaml", **overrides):
    """A smoke-size config with only ``random`` in the evaluations (fast)."""
    cfg = load_config(config).smoke()
    cfg.eval.opponents = ["random"]
    cfg.final_eval.opponents = ["random"]
    for k, v in overrides.items():
        cfg[k] = v
    return cfg


def checkpoint(path):
    return torch.load(path, map_location="cpu", weights_only=False)


def same_tensors(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_the_quick_configs_are_found():
    names = {p.split("/")[-1] for p in AZ_CONFIGS}
    assert {"ataxx_az.yaml", "twixt_az.yaml", "twixt24_az.yaml", "double_twixt_az.yaml"} <= names
    assert {
        "tantrix_az.yaml",
        "tantrix_4p_az.yaml",
        "tantrix_doubles_az.yaml",
        "smartrix_az.yaml",
        "smartrix_4p_az.yaml",
        "smartrix_teams_az.yaml",
    } <= names


@pytest.mark.parametrize("config", AZ_CONFIGS)
def test_every_alphazero_config_smoke_runs_end_to_end(tmp_path, config, monkeypatch, capsys):
    """``python -m training.train CONFIG --smoke``: self-play, learning, periodic evaluation,
    checkpoints, the final tournament and the report."""
    from training.engines.alphazero.config import SMOKE

    monkeypatch.chdir(REPO_ROOT)
    out = tmp_path / "run"
    assert main([config, "--smoke", "--out", str(out), "--no-progress"]) == 0
    cfg = load_config(config)
    report = json.loads((out / "report.json").read_text())
    assert report["smoke"] is True and report["engine"] == "alphazero" and report["env_id"] == cfg.env_id
    assert set(report["environment"]) == Environment.__required_keys__
    assert report["environment"]["packages"]["torch"] == importlib.metadata.version("torch")
    assert report["environment"]["threads"]["config"] == cfg.torch_threads
    assert report["timesteps"] == report["timesteps_this_run"] == SMOKE["positions"]
    assert report["train_steps"] > 0 and report["episodes"] > 0  # games ended, were labelled and learnt from
    warm = ["pretrained.pt"] if cfg.pretrain.teacher else []  # the clone of a warm start (warm_start.py)
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == sorted(
        ["final.pt", f"step_{SMOKE['positions']}.pt", *warm]
    )
    assert (report["pretrain"] is None) == (cfg.pretrain.teacher is None)
    assert [row["timesteps"] for row in report["periodic_eval"]] == [SMOKE["positions"]]
    assert set(report["vs"]) == set(cfg.final_eval.opponents)
    assert report["throughput"]["positions_per_s"] > 0 and report["throughput"]["evaluations_per_s"] > 0
    header = (out / "logs" / "progress.csv").read_text().splitlines()[0]
    assert "train/policy_loss" in header and "train/value_loss" in header
    saved = load_config(out / "config.yaml")
    assert saved.total_timesteps == SMOKE["positions"] and saved.engine == "alphazero"


def test_same_config_and_seed_same_weights_and_another_seed_differs(tmp_path):
    runs = []
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        train(tiny(seed=seed), tmp_path / name, progress_bar=False)
        runs.append(checkpoint(tmp_path / name / "checkpoints" / "final.pt"))
    assert runs[0]["counters"]["train_steps"] > 0
    assert same_tensors(runs[0]["network"], runs[1]["network"])
    assert np.array_equal(runs[0]["buffer"].policy, runs[1]["buffer"].policy)
    assert not same_tensors(runs[0]["network"], runs[2]["network"])


def test_a_run_in_two_parts_trains_the_same_weights_as_one_in_one_go(tmp_path):
    """The first part ends at a round boundary (16 positions: 2 games x 4 moves x 2 rounds); the
    second resumes its final checkpoint: network, optimizer, buffer, generators, games in progress."""
    train(tiny(total_timesteps=48), tmp_path / "whole", progress_bar=False)
    train(tiny(total_timesteps=16), tmp_path / "p1", progress_bar=False)
    report = train(
        tiny(total_timesteps=32),
        tmp_path / "p2",
        resume=str(tmp_path / "p1" / "checkpoints" / "final.pt"),
        progress_bar=False,
    )
    assert report["timesteps"] == 48 and report["timesteps_this_run"] == 32
    whole = checkpoint(tmp_path / "whole" / "checkpoints" / "final.pt")
    parts = checkpoint(tmp_path / "p2" / "checkpoints" / "final.pt")
    assert whole["counters"]["train_steps"] == parts["counters"]["train_steps"] > 0
    assert same_tensors(whole["network"], parts["network"])
    assert whole["rng"] == parts["rng"]
    assert np.array_equal(whole["buffer"].obs, parts["buffer"].obs)
    assert whole["selfplay"]["episodes"] == parts["selfplay"]["episodes"]


def test_the_tantrix_full_budget_resumes_the_quick_configs_checkpoint(tmp_path):
    """configs/tantrix_az_full.yaml's parts resume configs/tantrix_az.yaml's checkpoints (its
    header's recipe: the quick run is part 1): the same game, network, self-play games and buffer,
    and from there the search uses the robot's evaluation and 64 simulations in evaluations."""
    quick, full = load_config("configs/tantrix_az.yaml"), load_config("configs/tantrix_az_full.yaml")
    for key in ("env_id", "env_kwargs", "policy", "selfplay", "learn", "pretrain"):
        assert quick.to_dict()[key] == full.to_dict()[key], key
    assert (quick.search.heuristic, full.search.heuristic) == ("evaluate", "predicted")
    assert (quick.search.eval_simulations, full.search.eval_simulations) == (32, 64)
    assert (quick.search.value_scale, full.search.value_scale) == (0.03, 1.0)
    train(tiny("configs/tantrix_az.yaml", total_timesteps=16), tmp_path / "quick", progress_bar=False)
    report = train(
        tiny("configs/tantrix_az_full.yaml", total_timesteps=16),
        tmp_path / "full",
        resume=str(tmp_path / "quick" / "checkpoints" / "final.pt"),
        progress_bar=False,
    )
    assert report["timesteps"] == 32 and report["timesteps_this_run"] == 16
    data = checkpoint(tmp_path / "full" / "checkpoints" / "final.pt")
    assert data["config"]["search"]["heuristic"] == "predicted" and data["counters"]["train_steps"] > 0


def test_the_smartrix_4p_full_budget_is_the_quick_config_for_longer():
    """configs/smartrix_4p_az_full.yaml is configs/smartrix_4p_az.yaml run for 450,560 positions
    (its header: the three parts of the quick config's full budget as one run): every other
    setting is the same, so the two resume each other's checkpoints, and the budget is a multiple
    of a round's positions, so it trains what the parts trained."""
    quick = load_config("configs/smartrix_4p_az.yaml").to_dict()
    full = load_config("configs/smartrix_4p_az_full.yaml").to_dict()
    differ = {k for k in quick if quick[k] != full[k]}
    assert differ == {"name", "total_timesteps"}
    assert (quick["total_timesteps"], full["total_timesteps"]) == (163840, 450560)
    assert full["total_timesteps"] == 163840 + 163840 + 122880
    assert full["total_timesteps"] % (full["selfplay"]["games"] * full["selfplay"]["moves_per_round"]) == 0


def test_resume_refuses_another_network(tmp_path):
    train(tiny(), tmp_path / "a", progress_bar=False)
    other = tiny()
    other.policy.features_kwargs = {"channels": 8, "blocks": 1}
    with pytest.raises(ConfigError, match="the config's policy is"):
        train(other, tmp_path / "b", resume=str(tmp_path / "a" / "checkpoints" / "final.pt"), progress_bar=False)
    assert not (tmp_path / "b").exists()  # a failed start leaves nothing


def test_the_az_spec_plays_with_the_search_and_the_raw_policy(tmp_path):
    from training.agents import make_agent
    from training.agents.alphazero import AlphaZeroAgent, parse_az_spec
    from training.arena import head_to_head

    train(tiny(), tmp_path / "r", progress_bar=False)
    path = tmp_path / "r" / "checkpoints" / "final.pt"
    assert parse_az_spec(f"az:{path}") == (str(path), None, {})
    assert parse_az_spec("az:a:b.pt:3") == ("a:b.pt", 3, {})
    assert parse_az_spec("random") is None
    with pytest.raises(ValueError, match="expected az:PATH"):
        make_agent("az:")
    with pytest.raises(FileNotFoundError):
        make_agent(f"az:{tmp_path / 'missing.pt'}")
    with pytest.raises(ValueError, match="not an AlphaZero checkpoint"):
        (tmp_path / "x.pt").write_bytes(b"junk")
        make_agent(f"az:{tmp_path / 'x.pt'}")
    default = make_agent(f"az:{path}")
    assert isinstance(default, AlphaZeroAgent) and default.simulations == 2  # the smoke config's eval_simulations
    raw, searched = make_agent(f"az:{path}:0"), make_agent(f"az:{path}:3")
    assert (raw.simulations, searched.simulations) == (0, 3)
    for agent in (raw, searched):
        r = head_to_head("ataxx_v0", agent, make_agent("random", seed=1), 2, seed=0, max_steps=12)
        assert r["games"] == 2
    # the raw policy is the argmax of the legal logits
    import envs

    vec = envs.make_vec("ataxx_v0", 1, seed=0)
    step = vec.reset()
    state = vec.to_state(0)
    logits, _ = raw.evaluate(step.observation, step.action_mask)
    best = int(np.argmax(np.where(step.action_mask[0], logits[0], -np.inf)))
    assert raw.act(state, None) == best
    with pytest.raises(ValueError, match="trained on ataxx_v0"):
        raw.check_env(envs.make("twixt_v0", board_size=8))


def test_the_az_spec_overrides_the_considered_actions_value_scale_and_heuristic(tmp_path, monkeypatch):
    """``az:PATH[:SIMS][:considered=M][:value_scale=X][:heuristic_weight=W][:heuristic=NAME]``: the options
    reach the agent and its search, the agent's name is the spec that plays it again, and a bad option is
    refused by name."""
    from training.agents import make_agent
    from training.agents.alphazero import parse_az_spec

    assert parse_az_spec("az:a:b.pt:64:considered=32:value_scale=1") == (
        "a:b.pt",
        64,
        {"considered": 32, "value_scale": 1.0},
    )
    assert parse_az_spec("az:run/final.pt:value_scale=0.5") == ("run/final.pt", None, {"value_scale": 0.5})
    assert parse_az_spec("az:r.pt:8:heuristic=predicted_turn") == ("r.pt", 8, {"heuristic": "predicted_turn"})
    assert parse_az_spec("az:r.pt:heuristic_weight=0.5") == ("r.pt", None, {"heuristic_weight": 0.5})
    for bad, message in (
        (
            "az:x.pt:8:simulations=3",
            "unknown option 'simulations'; an az: spec takes considered=, value_scale=, heuristic_weight=, heuristic=",
        ),
        ("az:x.pt:considered=2:considered=3", "option 'considered' given twice"),
        ("az:x.pt:considered=2.5", "considered must be an integer, got '2.5'"),
        ("az:x.pt:considered=08", "considered must be an integer, got '08'"),
        ("az:x.pt:value_scale=big", "value_scale must be a number, got 'big'"),
        ("az:x.pt:heuristic_weight=half", "heuristic_weight must be a number, got 'half'"),
        ("az:x.pt:heuristic=Two Words", "heuristic must be an evaluation's name, got 'Two Words'"),
        ("az::considered=3", "expected az:PATH"),
    ):
        with pytest.raises(ValueError, match=re.escape(message)):
            parse_az_spec(bad)
    train(tiny(), tmp_path / "r", progress_bar=False)
    path = tmp_path / "r" / "checkpoints" / "final.pt"
    default = make_agent(f"az:{path}:3")
    tuned = make_agent(f"az:{path}:3:considered=2:value_scale=0.5:heuristic_weight=0.25:heuristic=evaluate")
    assert (default.m, default.value_scale) == (
        tiny().search["max_num_considered_actions"],
        tiny().search["value_scale"],
    )
    assert (tuned.simulations, tuned.m, tuned.value_scale) == (3, 2, 0.5)
    assert tuned.name == f"az:{path}:3:considered=2:value_scale=0.5:heuristic_weight=0.25:heuristic=evaluate"
    assert default.name == f"az:{path}:3" and default.heuristic_weight == tiny().search["heuristic_weight"]
    again = make_agent(tuned.name)
    assert (again.simulations, again.m, again.value_scale, again.heuristic_weight, again.heuristic) == (
        3,
        2,
        0.5,
        0.25,
        "evaluate",
    )
    for bad, message in (
        (f"az:{path}:3:considered=0", "max_num_considered_actions must be an integer >= 1, got 0"),
        (f"az:{path}:3:value_scale=-1", "value_scale must be a finite number >= 0, got -1.0"),
        (f"az:{path}:3:heuristic=predicted", "heuristic must be one of ['evaluate'] for ataxx_v0, got 'predicted'"),
        (f"az:{path}:3:heuristic_weight=2", "heuristic_weight must be a number in [0, 1], got 2.0"),
    ):
        with pytest.raises(ValueError, match=re.escape(message)):
            make_agent(bad)
    import envs
    import training.search as search_module

    seen = []
    original = search_module.gumbel_search

    def spy(*args, **kwargs):
        seen.append(
            (
                kwargs["max_num_considered_actions"],
                kwargs["value_scale"],
                kwargs["heuristic_weight"],
                kwargs["heuristic"],
            )
        )
        return original(*args, **kwargs)

    monkeypatch.setattr(search_module, "gumbel_search", spy)  # the agent imports it from there at each move
    vec = envs.make_vec("ataxx_v0", 1, seed=0)
    vec.reset()
    tuned.act(vec.to_state(0), None)
    default.act(vec.to_state(0), None)
    assert seen == [
        (2, 0.5, 0.25, "evaluate"),
        (default.m, default.value_scale, default.heuristic_weight, default.heuristic),
    ]


def search_key_reaches_the_agent(tmp_path, key: str, value, default, explicit):
    """Train a tiny run with ``search.<key> = value`` and one with the default: the checkpoint and
    the ``az:`` agent carry ``value``, the default run's self-play trains other weights, an explicit
    ``explicit`` wins, and a checkpoint written before the key reads ``default``. Returns the
    checkpoint of the first run."""
    from training.agents import make_agent
    from training.agents.alphazero import AlphaZeroAgent

    cfg = tiny()
    cfg.search[key] = value
    train(cfg, tmp_path / "set", progress_bar=False)
    path = tmp_path / "set" / "checkpoints" / "final.pt"
    assert checkpoint(path)["config"]["search"][key] == value
    assert getattr(make_agent(f"az:{path}:4"), key) == value
    train(tiny(), tmp_path / "default", progress_bar=False)
    plain = checkpoint(tmp_path / "default" / "checkpoints" / "final.pt")
    assert plain["config"]["search"][key] == default
    assert not same_tensors(plain["network"], checkpoint(path)["network"])
    assert getattr(AlphaZeroAgent(path, **{key: explicit}), key) == explicit
    old = checkpoint(path)
    del old["config"]["search"][key]
    torch.save(old, tmp_path / "old.pt")
    assert getattr(AlphaZeroAgent(tmp_path / "old.pt"), key) == default
    return path


def test_the_az_agent_takes_sigmas_value_scale_from_its_run(tmp_path):
    """``search.value_scale`` reaches the agent from the checkpoint (0.1, mctx's, for a checkpoint
    written before the key), an explicit one wins, a bad one is refused; at 0 the search's values
    move nothing, so the search plays the raw policy's move, which at 0.1 it does not everywhere."""
    import envs
    from training.agents.alphazero import AlphaZeroAgent

    # self-play's targets at 0 and at 0.1: other weights
    path = search_key_reaches_the_agent(tmp_path, "value_scale", 0.0, default=0.1, explicit=0.25)
    for bad in (-1.0, float("nan"), True, "0.1"):
        with pytest.raises(ValueError, match="value_scale must be a finite number >= 0"):
            AlphaZeroAgent(path, value_scale=bad)
    raw = AlphaZeroAgent(path, simulations=0)
    flat = AlphaZeroAgent(path, simulations=8, max_num_considered_actions=8)
    scaled = AlphaZeroAgent(path, simulations=8, max_num_considered_actions=8, value_scale=0.1)
    vec = envs.make_vec("ataxx_v0", 12, seed=3)
    vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(6):  # positions a few random plies in
        vec.step(np.array([int(rng.choice(np.flatnonzero(m))) for m in vec.action_mask()]))
    states = [vec.to_state(i) for i in range(12)]
    plain = raw.act_batch(states, [None] * 12)
    assert flat.act_batch(states, [None] * 12) == plain
    assert scaled.act_batch(states, [None] * 12) != plain


def test_heuristic_weight_reaches_self_play_and_the_agent(tmp_path, monkeypatch):
    """``search.heuristic_weight`` (the game's own evaluation mixed into the search's values): the
    self-play it searches trains other weights than the network alone, the checkpoint carries it to
    the ``az:`` agent (0 for a checkpoint written before the key), an explicit one wins, a bad one
    is refused, and a game without an evaluation of its own refuses a weight above 0."""
    import dataclasses

    from envs.registry import EnvSpec
    from training.agents.alphazero import AlphaZeroAgent

    path = search_key_reaches_the_agent(tmp_path, "heuristic_weight", 0.5, default=0.0, explicit=1.0)
    for bad in (-0.5, 1.5, float("nan"), True, "1"):
        with pytest.raises(ValueError, match="heuristic_weight must be a number in \\[0, 1\\]"):
            AlphaZeroAgent(path, heuristic_weight=bad)
    info = EnvSpec.game_info
    monkeypatch.setattr(EnvSpec, "game_info", lambda self: dataclasses.replace(info(self), heuristics=""))
    import yaml

    data = yaml.safe_load((REPO_ROOT / "configs" / "ataxx_az.yaml").read_text())
    data["search"]["heuristic_weight"] = 0.5
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match="'search.heuristic_weight' must be 0 for ataxx_v0: the game declares no"):
        load_config(tmp_path / "c.yaml", validate=False)
    data["search"]["heuristic_weight"] = 0.0
    (tmp_path / "c.yaml").write_text(yaml.safe_dump(data))
    assert load_config(tmp_path / "c.yaml", validate=False).search.heuristic_weight == 0.0


def test_the_named_heuristic_reaches_self_play_and_the_agent(tmp_path):
    """``search.heuristic`` (which of the game's evaluations the weight mixes in; Tantrix's
    ``predicted``, the robot's evaluation): self-play searching with it trains other weights than
    with the score gap, the checkpoint carries it to the ``az:`` agent (``evaluate`` for a
    checkpoint written before the key), an explicit one wins, and a name the game does not offer,
    or one at weight 0 (where it would do nothing), is refused."""
    import yaml

    from training.agents import make_agent
    from training.agents.alphazero import AlphaZeroAgent

    cfg = tiny("configs/tantrix_az.yaml")
    assert cfg.search.heuristic == "evaluate" and cfg.search.heuristic_weight == 1.0
    cfg.search.heuristic = "predicted"
    train(cfg, tmp_path / "predicted", progress_bar=False)
    path = tmp_path / "predicted" / "checkpoints" / "final.pt"
    assert checkpoint(path)["config"]["search"]["heuristic"] == "predicted"
    assert make_agent(f"az:{path}:4").heuristic == "predicted"
    train(tiny("configs/tantrix_az.yaml"), tmp_path / "gap", progress_bar=False)
    gap = checkpoint(tmp_path / "gap" / "checkpoints" / "final.pt")
    assert gap["config"]["search"]["heuristic"] == "evaluate"
    assert not same_tensors(gap["network"], checkpoint(path)["network"])
    assert AlphaZeroAgent(path, heuristic="evaluate").heuristic == "evaluate"
    old = checkpoint(path)
    del old["config"]["search"]["heuristic"]
    torch.save(old, tmp_path / "old.pt")
    assert AlphaZeroAgent(tmp_path / "old.pt").heuristic == "evaluate"
    for bad in ("nope", 3, "Predicted"):
        with pytest.raises(
            ValueError, match=r"heuristic must be one of \['evaluate', 'predicted', 'predicted_turn'\] for tantrix_v0"
        ):
            AlphaZeroAgent(path, heuristic=bad)
    for config, search, match in [
        (
            "tantrix_az",
            {"heuristic": "nope"},
            r"'search.heuristic' must be one of \['evaluate', 'predicted', 'predicted_turn'\] for tantrix_v0",
        ),
        (
            "ataxx_az",
            {"heuristic": "predicted", "heuristic_weight": 0.5},
            r"must be one of \['evaluate'\] for ataxx_v0",
        ),
        (
            "tantrix_az",
            {"heuristic": "predicted", "heuristic_weight": 0.0},
            "used only with search.heuristic_weight > 0",
        ),
        ("tantrix_az", {"heuristic": "Predicted"}, "'search.heuristic' must be an evaluation's name"),
    ]:
        data = yaml.safe_load((REPO_ROOT / "configs" / f"{config}.yaml").read_text())
        data["search"].update(search)
        (tmp_path / "c.yaml").write_text(yaml.safe_dump(data))
        with pytest.raises(ConfigError, match=match):
            load_config(tmp_path / "c.yaml", validate=False)


@pytest.mark.parametrize("sims", [0, 4])
def test_the_az_agent_answers_a_batch_as_it_answers_each_position(sims):
    """``act_batch`` (one batched search over several games) = ``act`` on each position, and the
    noiseless search draws nothing from the agent's generator."""
    from envs.registry import spec
    from training.agents import make_agent
    from training.agents.alphazero import AlphaZeroAgent
    from training.agents.alphazero_net import build_network

    cfg = tiny()
    torch.manual_seed(0)
    net = build_network(cfg.env_id, cfg.env_kwargs, cfg.policy.to_dict())
    agent = AlphaZeroAgent(net, simulations=sims, max_num_considered_actions=4, trained_on=(cfg.env_id, {}))
    rnd = make_agent("random", seed=2)
    states, observations = [], []
    for seed in range(5):
        env = spec("ataxx_v0").make_raw()
        env.reset(seed=seed)
        for _ in range(seed * 3):  # positions of different lengths
            env.step(rnd.act(env.state, env.observe(env.agent_selection)))
        states.append(env.state.clone())
        observations.append(env.observe(env.agent_selection))
    before = agent.rng.bit_generator.state
    one_by_one = [agent.act(s, o) for s, o in zip(states, observations)]
    assert agent.act_batch(states, observations) == one_by_one
    assert agent.rng.bit_generator.state == before
    assert len(set(one_by_one)) > 1


def test_the_az_agent_searches_tantrix_without_reading_the_bag():
    """Tantrix, 2 players (hidden bag order): the agent's batched search answers as its games one
    by one with the same generators (each game's determinization from its own), and positions
    that differ only in the bag's order get the same answers. The network is replaced by a fixed
    random projection of the observation (no training needed)."""
    from envs.registry import spec
    from training.agents import make_agent
    from training.agents.alphazero import AlphaZeroAgent

    agent = AlphaZeroAgent(
        torch.nn.Identity(), simulations=6, max_num_considered_actions=4, trained_on=("tantrix_v0", {})
    )
    proj: dict = {}

    def evaluate(obs, masks):  # logits and a value from 8 projected numbers of the observation
        flat = np.concatenate([np.asarray(obs[k], np.float64).reshape(len(masks), -1) for k in sorted(obs)], axis=1)
        if not proj:
            r = np.random.default_rng(0)
            proj.update(p=r.normal(0, flat.shape[1] ** -0.5, (flat.shape[1], 8)), h=r.normal(0, 1, (8, masks.shape[1])))
            proj["v"] = r.normal(0, 0.5, 8)
        z = flat @ proj["p"]
        return (z @ proj["h"]).astype(np.float32), np.tanh(z @ proj["v"]).astype(np.float32)

    agent.evaluate = evaluate
    rnd = make_agent("random", seed=1)
    states, observations = [], []
    for seed in range(3):
        env = spec("tantrix_v0").make_raw()
        env.reset(seed=seed)
        for _ in range(2 + seed):
            env.step(rnd.act(env.state, env.observe(env.agent_selection)))
        states.append(env.state.clone())
        observations.append(env.observe(env.agent_selection))
    gens = lambda: [np.random.default_rng(100 + i) for i in range(3)]  # noqa: E731
    batch = agent.act_batch(states, observations, gens())
    one_by_one = []
    for s, o, g in zip(states, observations, gens()):
        agent.rng = g
        one_by_one.append(agent.act(s, o))
    assert batch == one_by_one
    assert all(s.legal_action_mask()[s.to_state_action(s.current_player, a)] for s, a in zip(states, batch))
    shuffled = [s.sample_determinization(s.current_player, np.random.default_rng(7)) for s in states]
    assert all(t != s and t.bag_remaining() != s.bag_remaining() for s, t in zip(states, shuffled))
    assert agent.act_batch(shuffled, observations, gens()) == batch


def test_the_az_agent_refuses_other_rules_with_the_same_spaces_and_too_many_simulations():
    """A setting with the training's spaces but other rules (Ataxx without the 50-move rule) is
    refused, naming the agent's setting, by ``check_env`` (before any game of training.evaluate
    and training.play) and by ``act``; too many simulations are refused."""
    from envs.registry import spec
    from training.agents.alphazero import MAX_SIMULATIONS, AlphaZeroAgent
    from training.agents.alphazero_net import build_network

    cfg = tiny()
    torch.manual_seed(0)
    net = build_network(cfg.env_id, cfg.env_kwargs, cfg.policy.to_dict())
    agent = AlphaZeroAgent(net, simulations=2, trained_on=("ataxx_v0", {}))
    env = spec("ataxx_v0").make_raw(halfmove_clock=False)
    env.reset(seed=0)
    message = (
        r"az:2 was trained on ataxx_v0 \{\} and searches by that setting's rules; "
        r"this game's rules differ \(a state with halfmove_clock=False"
    )
    with pytest.raises(ValueError, match=message):
        agent.check_env(env)
    with pytest.raises(ValueError, match=message):
        agent.act(env.state, env.observe(env.agent_selection))
    ok = spec("ataxx_v0").make_raw()
    ok.reset(seed=0)
    agent.check_env(ok)  # its own setting
    with pytest.raises(ValueError, match=f"simulations must be an integer from 0 to {MAX_SIMULATIONS}"):
        AlphaZeroAgent(net, simulations=MAX_SIMULATIONS + 1, trained_on=("ataxx_v0", {}))


def test_the_az_agent_plays_where_only_what_agents_observe_differs_and_refuses_another_board():
    """Trained with TwixT's distance planes (27 observation planes), it plays a game without them
    (23 planes): the search observes from the rules state in its own setting. Another board size
    is refused by its action space."""
    from envs.registry import spec
    from training.agents.alphazero import AlphaZeroAgent
    from training.agents.alphazero_net import build_network

    cfg = tiny("configs/twixt_az.yaml")
    kwargs = {**cfg.env_kwargs, "distance_planes": True}
    torch.manual_seed(0)
    net = build_network(cfg.env_id, kwargs, cfg.policy.to_dict())
    agent = AlphaZeroAgent(net, simulations=2, trained_on=("twixt_v0", kwargs))
    plain = spec("twixt_v0").make_raw(**cfg.env_kwargs)
    plain.reset(seed=0)
    assert plain.observation_space("player_0")["observation"].shape[-1] == 23
    agent.check_env(plain)
    action = agent.act(plain.state, plain.observe(plain.agent_selection))
    assert plain.state.legal_action_mask()[action]
    other = spec("twixt_v0").make_raw(board_size=10)
    other.reset(seed=0)
    with pytest.raises(ValueError, match=r"its action space \(\d+ actions\) differs from this environment's"):
        agent.check_env(other)


@pytest.mark.parametrize("module", ["training.evaluate", "training.play"])
def test_evaluate_and_play_take_the_az_spec(tmp_path, module):
    from training.agents.specs import spec_forms

    assert "az:PATH[:SIMS][:considered=M][:value_scale=X][:heuristic_weight=W][:heuristic=NAME]" in spec_forms()
    parser = __import__(module, fromlist=["_parser"])._parser()
    # argparse wraps the help at the terminal's width, cutting a token this long: compare without whitespace
    assert "az:PATH[:SIMS][:considered=M][:value_scale=X][:heuristic_weight=W][:heuristic=NAME]" in "".join(
        parser.format_help().split()
    )


def test_training_evaluate_and_play_run_an_az_checkpoint(tmp_path, capsys, monkeypatch):
    from training.evaluate import main as evaluate_main

    train(tiny(), tmp_path / "r", progress_bar=False)
    path = tmp_path / "r" / "checkpoints" / "final.pt"
    assert (
        evaluate_main(
            [
                "ataxx_v0",
                "--agents",
                f"az:{path}:2",
                "random",
                "--games",
                "2",
                "--max-steps",
                "10",
                "--seed",
                "0",
                "--out",
                str(tmp_path / "ev"),
                "--no-progress",
            ]
        )
        == 0
    )
    results = json.loads((tmp_path / "ev" / "results.json").read_text())
    assert len(results["games"]) == 2
    # training.play: the agent moves first, then the person quits
    import io

    from training.play import main as play_main

    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    play_main(["ataxx_v0", "--opponent", f"az:{path}:2", "--seat", "1", "--seed", "0"])
    assert "plays" in capsys.readouterr().out


def test_replay_buffer_is_a_ring():
    from gymnasium import spaces

    from training.engines.alphazero.trainer import ReplayBuffer

    buf = ReplayBuffer(5, spaces.Box(0, 1, (2,), np.float32), 10)
    for start in (0, 3, 6):
        n = 3
        obs = np.arange(start, start + n, dtype=np.float32)[:, None].repeat(2, axis=1)
        mask = np.zeros((n, 10), dtype=bool)
        mask[:, 1] = True
        policy = np.zeros((n, 10), dtype=np.float32)
        policy[:, 1] = 1.0
        buf.add(obs, np.packbits(mask, axis=1, bitorder="little"), policy, np.full(n, start, np.float32))
    assert buf.size == 5 and buf.added == 9
    assert sorted(buf.obs[:, 0].tolist()) == [4, 5, 6, 7, 8]  # the oldest left first
    obs, mask, policy, value = buf.batch(np.arange(5))
    assert obs.dtype == np.float32 and mask.shape == (5, 10) and mask[:, 1].all() and policy[:, 1].sum() == 5


@pytest.mark.parametrize(
    "section, key, value, message",
    [
        ("learn", "batch_size", 10_000_000, "'learn.batch_size' must be at most selfplay.buffer_size"),
        ("search", "simulations", 0, "'search.simulations' must be a positive integer"),
        ("search", "eval_simulations", -1, "'search.eval_simulations' must be a non-negative integer"),
        ("search", "value_scale", -0.5, "'search.value_scale' must be a non-negative number"),
        ("search", "heuristic_weight", 1.5, "'search.heuristic_weight' must be a probability in [0, 1], got 1.5"),
        ("search", "heuristic_weight", "x", "'search.heuristic_weight' must be a probability in [0, 1], got 'x'"),
        ("selfplay", "games", 0, "'selfplay.games' must be a positive integer"),
    ],
)
def test_bad_values_are_clear_errors(tmp_path, section, key, value, message):
    import yaml

    data = yaml.safe_load((REPO_ROOT / "configs" / "ataxx_az.yaml").read_text())
    data[section][key] = value
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(p, validate=False)


def test_symmetries_map_each_row_by_its_own_draw_and_train(tmp_path):
    import envs
    from envs.registry import spec
    from training.engines.alphazero.symmetry import BatchSymmetries

    syms = spec("ataxx_v0").make_raw().encoder.symmetries()
    batch = BatchSymmetries(syms)
    vec = envs.make_vec("ataxx_v0", 3, seed=0)
    step = vec.reset()
    step = vec.step(np.argmax(step.action_mask, axis=1))
    obs, mask = step.observation, np.asarray(step.action_mask)
    policy = mask / mask.sum(axis=1, keepdims=True)
    k = np.array([1, 6, 0])
    new_obs, new_mask, new_policy = batch.apply(k, obs, mask, policy)
    for i, j in enumerate(k):
        assert np.array_equal(new_obs[i].reshape(-1), obs[i].reshape(-1)[syms[j].obs_index])
        assert np.array_equal(new_mask[i], mask[i][syms[j].action_index])
        assert np.array_equal(new_policy[i], policy[i][syms[j].action_index])
    with pytest.raises(ValueError, match="declares no board symmetries"):
        BatchSymmetries.for_env("tantrix_v0", {})
    cfg = tiny()
    cfg.selfplay.symmetries = True
    report = train(cfg, tmp_path / "sym", progress_bar=False)
    assert report["train_steps"] > 0


def test_playout_cap_stores_only_full_searches(tmp_path):
    """KataGo's playout cap randomisation: moves searched cheaply are played but not stored."""
    never = tiny()
    never.search.playout_cap.full_prob = 0.0
    report = train(never, tmp_path / "never", progress_bar=False)
    assert report["episodes"] > 0 and report["train_steps"] == 0
    assert checkpoint(tmp_path / "never" / "checkpoints" / "final.pt")["buffer"].added == 0
    half = tiny()
    half.search.playout_cap.full_prob = 0.5
    train(half, tmp_path / "half", progress_bar=False)
    always = tiny()
    train(always, tmp_path / "always", progress_bar=False)
    stored_half = checkpoint(tmp_path / "half" / "checkpoints" / "final.pt")["buffer"].added
    stored_all = checkpoint(tmp_path / "always" / "checkpoints" / "final.pt")["buffer"].added
    assert 0 < stored_half < stored_all


def test_az_prefix_on_a_ppo_zip_says_how_to_give_it(monkeypatch):
    from training.agents import make_agent

    monkeypatch.chdir(REPO_ROOT)
    with pytest.raises(FileNotFoundError, match=r"a MaskablePPO \.zip is given without a prefix: training/shipped/"):
        make_agent("az:training/shipped/ataxx_quick.zip")
