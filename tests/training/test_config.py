"""The typed run config (training/config.py, training/engines/*/config.py) and its generated reference."""

import subprocess
import sys

import pytest

pytest.importorskip("pydantic")

from conftest import REPO_ROOT  # noqa: E402
from training.config import ConfigError, load_config  # noqa: E402


def test_docs_config_md_is_generated_from_the_models():
    """docs/training/config.md is what docs/config_reference.py writes from the models (rerun it after a change)."""
    proc = subprocess.run(
        [sys.executable, "docs/config_reference.py", "--check"], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    text = (REPO_ROOT / "docs" / "training" / "config.md").read_text()
    for key in ("`ppo.batch_size`", "`pool.baseline_prob`", "`rllib.lambda`", "`pool.win_rate`", "`pretrain.teacher`"):
        assert key in text, key


def test_every_engine_is_documented_and_looked_up_by_name():
    from training.engines import ENGINES, get_engine

    text = (REPO_ROOT / "docs" / "training" / "config.md").read_text()
    for name in ENGINES:
        engine = get_engine(name)
        assert engine.name == name and engine.config_model().engine == name
        assert f"## `engine: {name}`" in text
    with pytest.raises(ValueError, match=r"config key 'engine' must be one of 'sb3', 'rllib', 'alphazero' .*got 'tf'"):
        get_engine("tf")


def test_an_unknown_engine_in_a_config_is_an_error(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("engine: tf\nenv_id: ataxx_v0\n")
    with pytest.raises(ValueError, match=r"bad.yaml: config key 'engine' must be one of 'sb3', 'rllib'"):
        load_config(bad)


def test_the_pool_defaults_have_one_home():
    """OpponentPool's defaults are the config's (they once disagreed: 0.2 against 0.3)."""
    import inspect

    from training.engines.sb3.config import SB3PoolConfig
    from training.selfplay import POOL_DEFAULTS, OpponentPool

    params = inspect.signature(OpponentPool.__init__).parameters
    pool = SB3PoolConfig()
    for key, value in POOL_DEFAULTS.items():
        assert params[key].default == value == pool[key], key
    assert pool.baseline_prob == 0.3


def test_values_are_checked_on_assignment_too():
    cfg = load_config(REPO_ROOT / "configs" / "ataxx_quick.yaml", validate=False)
    with pytest.raises(ConfigError, match=r"config 'n_envs' must be a positive integer, got 0"):
        cfg["n_envs"] = 0
    with pytest.raises(ConfigError, match=r"config 'eval.games' must be a positive integer, got True"):
        cfg["eval"]["games"] = True
    with pytest.raises(KeyError, match="unknown config key 'gamma'"):
        cfg["gamma"] = 0.9
    assert cfg["n_envs"] == 8 and cfg["eval"]["games"] == 20


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "ppo: {learning_rate: 1e-3}\n",
            r"config 'ppo.learning_rate' must be a positive number \(YAML reads 1e-3 as text: "
            r"write 1.0e-3\), got '1e-3'",
        ),
        ("ppo: [1]\n", r"config key 'ppo' must be a mapping, got list"),
        ("ppo: {n_steps: 2.5}\n", r"config 'ppo.n_steps' must be a positive integer, got 2.5"),
        ("seed: true\n", r"config 'seed' must be a non-negative integer, got True"),
        (
            "pool: {win_rate: 0.5}\n",
            r"unknown config key 'pool.win_rate'; known keys here: baseline_prob, baselines, "
            r"latest_prob, max_snapshots, partner, snapshot_every$",
        ),
        (
            "ppo: {batch_size: 4096}\n",
            r"config 'ppo.batch_size' must be an integer in \[2, n_steps \* n_envs = 2048\], "
            r"got 4096",
        ),
        (
            "engine: rllib\nrllib: {lamda: 0.9}\n",
            r"unknown config key 'rllib.lamda'; known keys here: .*lambda.*; any other "
            r"RLlib setting goes under rllib.settings",
        ),
        (
            "engine: rllib\nrllib: {minibatch_size: 4096}\n",
            r"config 'rllib.minibatch_size' must be at most "
            r"rllib.train_batch_size \(2048\), got 4096",
        ),
        ("engine: rllib\nn_envs: 4\n", r"unknown config key 'n_envs'"),
    ],
)
def test_bad_values_name_the_key_what_was_expected_and_what_was_given(tmp_path, text, message):
    bad = tmp_path / "bad.yaml"
    bad.write_text("env_id: ataxx_v0\n" + text)
    with pytest.raises(ConfigError, match=message):
        load_config(bad, validate=False)


def test_smoke_is_a_method_of_the_config_and_keeps_the_original():
    sb3 = load_config(REPO_ROOT / "configs" / "ataxx_quick.yaml", validate=False)
    small = sb3.smoke()
    assert (small.total_timesteps, small.n_envs, small.ppo.n_steps, sb3.total_timesteps) == (64, 2, 32, 250_000)
    rllib = load_config(REPO_ROOT / "configs" / "ataxx_rllib.yaml", validate=False)
    small = rllib.smoke()
    assert (small.total_timesteps, small.rllib.train_batch_size, small.rllib["lambda"]) == (64, 64, 0.95)
    assert small.budgets()["train_batch_size"] == 64 and rllib.rllib.train_batch_size == 2048


def test_an_engine_loads_its_checkpoint_as_an_agent(tmp_path):
    pytest.importorskip("sb3_contrib")
    from conftest import tiny_checkpoint
    from training.agents import PolicyAgent
    from training.engines import get_engine

    engine = get_engine("sb3")
    ckpt = tiny_checkpoint(tmp_path / "tiny.zip")
    assert engine.is_checkpoint(ckpt) and not engine.is_checkpoint(tmp_path)
    agent = engine.load_agent(ckpt)
    assert isinstance(agent, PolicyAgent)
    rllib = get_engine("rllib")
    assert rllib.is_checkpoint(tmp_path) and not rllib.is_checkpoint(ckpt)


def test_update_checks_its_keys_together():
    cfg = load_config(REPO_ROOT / "configs" / "ataxx_rllib.yaml", validate=False)
    cfg["rllib"].update(train_batch_size=64, minibatch_size=32)  # each alone would contradict the other
    assert (cfg.rllib.train_batch_size, cfg.rllib.minibatch_size) == (64, 32)
    with pytest.raises(
        ConfigError,
        match=r"config 'rllib.minibatch_size' must be at most rllib.train_batch_size \(64\), "
        r"got 128",
    ):
        cfg["rllib"].update(minibatch_size=128)
    with pytest.raises(ConfigError, match=r"config 'rllib.lambda' must be a number in \(0, 1\], got 2"):
        cfg["rllib"].update({"lambda": 2})
    assert cfg.rllib.minibatch_size == 32 and cfg.rllib["lambda"] == 0.95


def test_validate_config_checks_sections_against_each_other_again():
    from training.config import validate_config

    cfg = load_config(REPO_ROOT / "configs" / "ataxx_quick.yaml")
    cfg["ppo"]["batch_size"] = 4096  # fine for the section alone, more than a rollout of 8 x 256
    with pytest.raises(
        ConfigError,
        match=r"config 'ppo.batch_size' must be an integer in \[2, n_steps \* n_envs = "
        r"2048\], got 4096",
    ):
        validate_config(cfg)
