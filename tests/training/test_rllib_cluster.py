"""Ray start-up, joining a cluster, and the one-line errors of ``training/engines/rllib/cluster.py`` (also
through ``python -m training.train``); a two-node Ray cluster on this machine
(``ray.cluster_utils.Cluster``, loopback only) where the RLlib trainer samples with one env runner
on each node.

The tests that need Ray skip without the ``rllib`` extra, and fail instead under CI (which installs
it). Each one that starts Ray shuts it down, so that the next test in the same worker starts clean.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from training.cli import MissingExtraError
from training.engines.rllib.cluster import (
    ClusterError,
    apply_rllib_settings,
    check_address,
    check_resources,
    parse_address,
    require_rllib,
    required_resources,
    rllib_setting_names,
    start_ray,
    stop_ray,
    validate_algo_config,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
HAVE_RLLIB = importlib.util.find_spec("ray") is not None and importlib.util.find_spec("tree") is not None


@pytest.fixture
def rllib():
    """Skip without the ``rllib`` extra (fail under CI); Ray shut down afterwards."""
    if not HAVE_RLLIB:
        if os.environ.get("CI"):
            pytest.fail("the rllib extra is not installed (CI installs .[train,test,room,rllib])")
        pytest.skip('needs the rllib extra: pip install -e ".[rllib]"')
    import ray

    assert not ray.is_initialized(), "a previous test left Ray running"
    yield
    stop_ray()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- the missing extra ------------------------------------------------------------------------------


def test_missing_extra_names_the_rllib_extra(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name in ("ray", "lz4") else real(name, *a)
    )
    with pytest.raises(MissingExtraError) as e:
        require_rllib("python -m training.train configs/x_rllib.yaml")
    msg = str(e.value)
    assert "'rllib' extra" in msg and "missing ray, lz4" in msg and 'pip install -e ".[rllib]"' in msg
    assert "\n" not in msg and e.value.name == "ray"
    with pytest.raises(MissingExtraError, match="missing ray, lz4"):  # before anything imports Ray
        start_ray()


def test_missing_extra_as_command_exits_2(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    with pytest.raises(SystemExit) as e:
        require_rllib("python -m training.train", as_command=True)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: python -m training.train needs the 'rllib' extra") and err.count("\n") == 1


# -- addresses --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        (None, "local"),
        ("local", "local"),
        ("auto", "auto"),
        (" auto ", "auto"),
        ("10.0.0.7:6379", "10.0.0.7:6379"),
        ("head-node:06379", "head-node:6379"),
        ("[::1]:6379", "[::1]:6379"),
    ],
)
def test_parse_address_accepts(text, expected):
    assert parse_address(text) == expected


@pytest.mark.parametrize(
    "text", ["head", "head:", ":6379", "head:0", "head:65536", "head:port", "ray://head:10001", ""]
)
def test_parse_address_rejects_with_the_expected_forms(text):
    with pytest.raises(ClusterError) as e:
        parse_address(text)
    msg = str(e.value)
    assert repr(text.strip()) in msg and "HOST:PORT" in msg and "'auto'" in msg and "\n" not in msg
    if text.startswith("ray://"):
        assert "ray job submit" in msg


def test_unreachable_address_fails_fast_with_one_line():
    port = free_port()  # nothing listens there now
    t = time.monotonic()
    with pytest.raises(ClusterError) as e:
        check_address(f"127.0.0.1:{port}")
    assert time.monotonic() - t < 2.0  # Ray alone retried for minutes here (module docstring)
    msg = str(e.value)
    assert msg == (
        f"no Ray cluster at 127.0.0.1:{port}: connection refused. Start one there with `ray start --head "
        f"--port={port}`, or check the address (the head's GCS port, 6379 by default)"
    )


def test_unresolvable_host_is_named():
    with pytest.raises(ClusterError, match=r"the host name 'no-such-head\.invalid' does not resolve"):
        check_address("no-such-head.invalid:6379")


def test_a_port_that_is_not_a_ray_gcs_is_bounded(rllib):
    class Quiet(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Quiet)  # like the dashboard's HTTP port
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = f"127.0.0.1:{server.server_address[1]}"
    try:
        t = time.monotonic()
        with pytest.raises(ClusterError) as e:
            check_address(address, gcs_timeout_s=4)
        took = time.monotonic() - t
    finally:
        server.shutdown()
        server.server_close()
    assert took < 4 + 2  # the child process is killed at the bound
    msg = str(e.value)
    assert msg.startswith(address) and "6379" in msg and "\n" not in msg


def test_a_cluster_with_token_authentication_is_named(rllib, monkeypatch):
    """Ray 2.60's `ray start --head` turns token authentication on when ~/.ray/auth_token exists; the
    probe's GcsClient then fails with Ray's AuthenticationError (its message, as a newcomer met it)."""
    import subprocess

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    address = f"127.0.0.1:{listener.getsockname()[1]}"
    refused = subprocess.CompletedProcess(
        [],
        1,
        stdout="",
        stderr=(
            "Traceback (most recent call last):\nray.exceptions.AuthenticationError: InvalidAuthToken: the token "
            "is missing or does not match; set RAY_AUTH_MODE 'disabled' to opt out\n"
        ),
    )
    monkeypatch.setattr("training.ray_cluster.subprocess.run", lambda *a, **k: refused)
    try:
        with pytest.raises(ClusterError) as e:
            check_address(address)
    finally:
        listener.close()
    msg = str(e.value)
    assert msg.startswith(f"the Ray cluster at {address} requires token authentication") and "\n" not in msg
    assert "RAY_AUTH_MODE=token" in msg and "RAY_AUTH_TOKEN" in msg


def test_auto_without_a_cluster_says_what_to_do(rllib, monkeypatch):
    import ray._private.services as services

    monkeypatch.delenv("RAY_ADDRESS", raising=False)

    def nothing_found(addr, temp_dir=None):  # what Ray 2.60 does when it finds no instance for "auto"
        raise ConnectionError(
            "Could not find any running Ray instance. Please specify the one to connect to by "
            "setting `--address` flag or `RAY_ADDRESS` environment variable."
        )

    monkeypatch.setattr(services, "canonicalize_bootstrap_address", nothing_found)
    with pytest.raises(ClusterError) as e:
        start_ray("auto")
    assert "no running Ray cluster found on this machine" in str(e.value) and "ray start --head" in str(e.value)
    import ray

    assert not ray.is_initialized()


def test_joining_refuses_local_resources(rllib):
    with pytest.raises(ClusterError, match="each node declares its own"):
        start_ray("10.0.0.7:6379", num_cpus=4)


# -- a local instance and its resources ---------------------------------------------------------------


def test_local_by_default_ignores_ray_address_and_checks_cpus(rllib, monkeypatch):
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig

    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{free_port()}")  # never joined: local is explicit
    info = start_ray(num_cpus=1)
    assert ray.is_initialized() and (info.joined, info.nodes, info.cpus, info.gpus) == (False, 1, 1.0, 0.0)
    assert start_ray() == info  # already initialised: used as it is (still the local instance started here)
    one = PPOConfig().env_runners(num_env_runners=1)
    assert check_resources(one) == {"CPU": 1.0}
    two = PPOConfig().env_runners(num_env_runners=2)  # Ray would wait forever for the second runner
    with pytest.raises(ClusterError) as e:
        check_resources(two)
    assert str(e.value).startswith("the RLlib config asks for 2 CPU (the cluster has 1) at once (2 env runners x 1 CPU")
    assert "rllib.num_env_runners" in str(e.value)


def test_check_resources_per_node_and_gpus(rllib):
    from ray.rllib.algorithms.ppo import PPOConfig

    two_nodes = dict(cluster={"CPU": 2.0}, nodes=[{"CPU": 1.0}, {"CPU": 1.0}])
    assert check_resources(PPOConfig().env_runners(num_env_runners=2), **two_nodes) == {"CPU": 2.0}
    fat = PPOConfig().env_runners(num_env_runners=1, num_cpus_per_env_runner=2)  # fits the total, no single node
    with pytest.raises(
        ClusterError,
        match=r"an RLlib env runner asks for 2 CPU but no node has that much "
        r"\(largest node: 1 CPU\)",
    ):
        check_resources(fat, **two_nodes)
    no_runners = PPOConfig().env_runners(num_env_runners=0)  # (PPO's default is 2)
    driver_gpu = no_runners.copy().learners(num_learners=0, num_gpus_per_learner=1)
    with pytest.raises(ClusterError, match="needs 1 GPU on the driver's node, which has 0"):
        check_resources(driver_gpu, **two_nodes)
    gpu_learners = no_runners.copy().learners(num_learners=2, num_gpus_per_learner=1)
    assert required_resources(gpu_learners) == [("learner", {"GPU": 1}), ("learner", {"GPU": 1})]
    gpu_cluster = dict(cluster={"CPU": 4.0, "GPU": 1.0}, nodes=[{"CPU": 2.0}, {"CPU": 2.0, "GPU": 1.0}])
    with pytest.raises(ClusterError, match=r"asks for 2 GPU \(the cluster has 1\) at once"):
        check_resources(gpu_learners, **gpu_cluster)
    one_gpu = no_runners.copy().learners(num_learners=1, num_gpus_per_learner=1)
    assert check_resources(one_gpu, **gpu_cluster) == {"GPU": 1.0}


# -- RLlib settings by name -------------------------------------------------------------------------


def test_unknown_rllib_key_names_it_and_the_valid_ones(rllib):
    from ray.rllib.algorithms.ppo import PPOConfig

    with pytest.raises(TypeError) as raw:  # what RLlib itself says: no list, no section
        PPOConfig().training(lrr=1e-4)
    assert str(raw.value) == "AlgorithmConfig.training() got an unexpected keyword argument 'lrr'"
    with pytest.raises(ClusterError) as e:
        apply_rllib_settings(PPOConfig(), {"lr": 1e-4, "lrr": 1e-4})
    msg = str(e.value)
    assert msg.startswith("config key 'rllib.lrr' is not an RLlib PPO setting (did you mean 'lr'?). Valid keys")
    assert "training(): " in msg and "env_runners(): " in msg and "learners(): " in msg and "\n" not in msg
    for key in (
        "lr",
        "clip_param",
        "num_env_runners",
        "num_envs_per_env_runner",
        "num_learners",
        "num_gpus_per_learner",
    ):
        assert f" {key}," in msg or f" {key};" in msg or msg.endswith(f" {key}")
    assert "num_sgd_iter" not in msg and "num_rollout_workers" not in msg  # deprecated names are not offered


def test_rllib_settings_by_name_reach_the_config(rllib):
    from ray.rllib.algorithms.ppo import PPOConfig

    names = rllib_setting_names(PPOConfig())
    assert (names["lr"], names["lambda"], names["num_env_runners"], names["num_learners"]) == (
        "training",
        "training",
        "env_runners",
        "learners",
    )
    config = apply_rllib_settings(
        PPOConfig(), {"lr": 1e-4, "lambda": 0.9, "num_env_runners": 3, "num_envs_per_env_runner": 4, "num_learners": 2}
    )
    assert (config.lr, config.lambda_, config.num_env_runners, config.num_envs_per_env_runner, config.num_learners) == (
        1e-4,
        0.9,
        3,
        4,
        2,
    )
    with pytest.raises(ClusterError) as e:  # a value RLlib's method rejects
        apply_rllib_settings(PPOConfig(), {"num_envs_per_env_runner": 0}, where="rllib")
    assert str(e.value) == (
        "config section 'rllib': RLlib rejected num_envs_per_env_runner: "
        "`num_envs_per_env_runner` (0) must be larger 0!"
    )


def test_rllib_validation_error_on_one_line(rllib):
    from ray.rllib.algorithms.ppo import PPOConfig

    config = PPOConfig().environment("CartPole-v1").training(train_batch_size_per_learner=256, minibatch_size=512)
    with pytest.raises(ClusterError) as e:
        validate_algo_config(config)
    msg = str(e.value)
    assert msg.startswith(
        "config section 'rllib': RLlib rejected the settings: `minibatch_size` (512) must be <= "
        "`train_batch_size_per_learner` (256)."
    )
    assert "\n" not in msg and "suppress" not in msg


# -- through the trainer ---------------------------------------------------------------------------


def test_train_cli_without_the_rllib_extra_names_it():
    import subprocess
    import sys

    code = (
        "import sys, runpy\nsys.modules['ray'] = None  # what an uninstalled module looks like to import\n"
        "sys.argv = ['training.train', 'configs/ataxx_rllib.yaml', '--smoke']\n"
        "runpy.run_module('training.train', run_name='__main__', alter_sys=True)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr == (
        "error: python -m training.train configs/ataxx_rllib.yaml needs the 'rllib' extra, which is "
        "not (fully) installed: missing ray. Install it from the repository root with: pip install "
        '-e ".[rllib]" (README, Training on Ray RLlib)\n'
    )


def test_train_cli_address_errors_are_one_line(capsys):
    from training.train import main

    port = free_port()
    with pytest.raises(SystemExit) as e:
        main(["configs/ataxx_quick.yaml", "--smoke", "--address", f"127.0.0.1:{port}"])
    assert e.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "python -m training.train: error: --address joins a Ray cluster: "
        "it is for RLlib and AlphaZero configs (engine: rllib, alphazero); an SB3 run trains in "
        "this process"
    )
    with pytest.raises(SystemExit):
        main(["configs/ataxx_rllib.yaml", "--address", "head-without-port"])
    assert "argument --address: Ray address 'head-without-port': expected HOST:PORT" in capsys.readouterr().err


def test_train_with_an_unreachable_address_or_too_few_cpus_leaves_nothing(rllib, tmp_path):
    from training.train import load_config, train

    cfg = load_config(REPO_ROOT / "configs" / "ataxx_rllib.yaml").smoke()
    port = free_port()
    with pytest.raises(ClusterError, match=f"no Ray cluster at 127.0.0.1:{port}: connection refused"):
        train(cfg, tmp_path / "a", progress_bar=False, address=f"127.0.0.1:{port}")
    assert not (tmp_path / "a").exists()
    start_ray(num_cpus=1)
    cfg["rllib"]["num_env_runners"] = 2
    with pytest.raises(ClusterError) as e:
        train(cfg, tmp_path / "b", progress_bar=False)
    assert str(e.value).startswith("the RLlib config asks for 2 CPU (the cluster has 1) at once (2 env runners x 1 CPU")
    cfg["rllib"].update(num_env_runners=1, settings={"num_cpus_per_env_runner": 2})
    with pytest.raises(
        ClusterError,
        match=r"^an RLlib env runner asks for 2 CPU but no node has that much \(largest "
        r"node: 1 CPU\); Ray would wait for it forever",
    ):
        train(cfg, tmp_path / "c", progress_bar=False)
    assert not (tmp_path / "b").exists() and not (tmp_path / "c").exists()


def _ataxx_smoke(**settings) -> dict:
    from training.train import load_config

    cfg = load_config(REPO_ROOT / "configs" / "ataxx_rllib.yaml").smoke()
    cfg["rllib"]["settings"] = settings
    return cfg


def test_rllib_settings_reach_the_trainer_s_config(rllib):
    from training.engines.rllib.trainer import build_config

    config = build_config(
        _ataxx_smoke(shuffle_batch_per_epoch=False, num_cpus_per_env_runner=2, metrics_num_episodes_for_smoothing=7)
    )
    assert (
        config.shuffle_batch_per_epoch,
        config.num_cpus_per_env_runner,
        config.metrics_num_episodes_for_smoothing,
    ) == (False, 2, 7)
    assert config.lr == 3.0e-4 and config.num_envs_per_env_runner == 2  # the config's own keys still apply


def test_a_setting_rllib_rejects_stops_training_with_one_line(rllib, tmp_path):
    import ray

    from training.train import train

    with pytest.raises(ClusterError) as e:
        train(_ataxx_smoke(lrr=1e-4), tmp_path / "a", progress_bar=False)
    msg = str(e.value)
    assert msg.startswith(
        "config key 'rllib.settings.lrr' is not an RLlib PPO setting (did you mean 'lr'?). Valid keys"
    )
    assert "\n" not in msg and "num_cpus_per_env_runner" in msg
    with pytest.raises(ClusterError, match=r"^config key 'rllib.settings.lr': set it with 'rllib.lr' instead$"):
        train(_ataxx_smoke(lr=1e-4), tmp_path / "b", progress_bar=False)
    with pytest.raises(
        ClusterError,
        match=r"^config key .rllib.settings.rollout_fragment_length.: the trainer sets this "
        r"RLlib setting itself$",
    ):
        train(_ataxx_smoke(rollout_fragment_length=10), tmp_path / "c", progress_bar=False)
    assert not any((tmp_path / d).exists() for d in "abc") and not ray.is_initialized()  # checked before Ray starts


def test_an_unknown_rllib_key_points_to_rllib_settings(tmp_path):
    from training.train import load_config

    text = (REPO_ROOT / "configs" / "ataxx_rllib.yaml").read_text().replace("  lr: 3.0e-4", "  lrr: 3.0e-4")
    (tmp_path / "typo.yaml").write_text(text)
    with pytest.raises(ValueError) as e:
        load_config(tmp_path / "typo.yaml")
    assert str(e.value).startswith("unknown config key 'rllib.lrr'; known keys here: clip_param, entropy_coeff, gamma,")
    assert str(e.value).endswith("; any other RLlib setting goes under rllib.settings, by its RLlib name")


# -- two nodes --------------------------------------------------------------------------------------


def test_two_node_cluster_trains_with_sampling_on_both_nodes(rllib, tmp_path):
    """Two raylets on loopback with 1 CPU each, joined by the trainer's entry point
    (``training.train.train(..., address=...)``); its 2 env runners of 1 CPU must land one on each
    node. Sampling ran on both nodes, the timesteps grew over two iterations, and the learner
    changed main's weights between the two checkpoints."""
    import ray
    import torch
    from ray.cluster_utils import Cluster
    from ray.rllib.core.rl_module.rl_module import RLModule

    from training.agents.rllib import module_dir
    from training.train import load_config, train

    cfg = load_config(REPO_ROOT / "configs" / "ataxx_rllib.yaml").smoke()
    batch = cfg["rllib"]["train_batch_size"]  # 64 env steps per iteration
    cfg["rllib"].update(num_env_runners=2, num_envs_per_env_runner=1)
    cfg["total_timesteps"] = 2 * batch  # two iterations (or three: main's steps may fall short of 64)
    cfg["eval"]["every"] = cfg["pool"]["check_every"] = 10**9  # no games on the way: time goes to the cluster
    small = 80 * 1024 * 1024
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "object_store_memory": small, "include_dashboard": False}
    )
    try:
        cluster.add_node(num_cpus=1, object_store_memory=small)
        address = cluster.address
        report = train(cfg, tmp_path / "run", progress_bar=False, address=address)
        node_ids = {n["NodeID"] for n in ray.nodes() if n["Alive"]}
    finally:
        stop_ray()
        cluster.shutdown()
    assert len(node_ids) == 2
    assert report["ray"] == {"address": address, "joined": True, "nodes": 2, "cpus": 2.0, "gpus": 0.0}
    # sampling ran on both nodes: each runner's share of every iteration (32 env steps a fragment)
    by_node = report["throughput"]["env_steps_by_node"]
    assert set(by_node) == node_ids and all(v >= batch for v in by_node.values())
    assert sum(by_node.values()) == report["throughput"]["env_steps_sampled"]
    # training progressed: main's timesteps grew iteration by iteration...
    rows = (tmp_path / "run" / "logs" / "progress.csv").read_text().splitlines()
    col = rows[0].split(",").index("time/timesteps")
    steps = [int(float(r.split(",")[col])) for r in rows[1:]]
    assert len(steps) >= 2 and steps == sorted(set(steps)) and steps[0] >= batch // 2
    assert report["timesteps"] == steps[-1] >= cfg["total_timesteps"]
    # ...and the learner moved main's weights between the first checkpoint and the final one
    ckpts = tmp_path / "run" / "checkpoints"
    first = RLModule.from_checkpoint(module_dir(ckpts / f"step_{steps[0]}")).state_dict()
    final = RLModule.from_checkpoint(module_dir(ckpts / "final")).state_dict()
    assert first.keys() == final.keys()
    assert max(float((first[k] - final[k]).abs().max()) for k in first if torch.is_floating_point(first[k])) > 1e-6
