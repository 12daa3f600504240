"""The AlphaZero engine beyond one process: self-play actors on Ray (``selfplay.actors``,
``--address``) on a two-node ``ray.cluster_utils.Cluster`` (loopback only) and on a local instance,
their exact resume, and the learner's ``learn.device`` (``cuda`` refused without a GPU; the CPU-copy
path the GPU takes, checked on the CPU).

The tests that need Ray skip without it (the ``rllib`` extra), and fail instead under CI (which
installs it). Each one that starts Ray leaves it stopped, so that the next test starts clean.
"""

from __future__ import annotations

import importlib.util
import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from conftest import REPO_ROOT  # noqa: E402
from training.config import ConfigError  # noqa: E402
from training.ray_cluster import ClusterError  # noqa: E402
from training.train import load_config, main, train  # noqa: E402

HAVE_RAY = importlib.util.find_spec("ray") is not None


@pytest.fixture
def ray_free():
    """Skip without Ray (fail under CI); Ray not running before, stopped afterwards."""
    if not HAVE_RAY:
        if os.environ.get("CI"):
            pytest.fail("Ray is not installed (CI installs .[train,test,room,rllib])")
        pytest.skip('needs Ray: pip install -e ".[rllib]"')
    import ray

    from training.ray_cluster import stop_ray

    assert not ray.is_initialized(), "a previous test left Ray running"
    yield
    stop_ray()


def tiny(total_timesteps: int | None = None, **selfplay):
    """The Ataxx config at smoke size (2 games, 4 moves a round, 32 positions unless
    ``total_timesteps``) with only ``random`` in the evaluations."""
    cfg = load_config(REPO_ROOT / "configs" / "ataxx_az.yaml").smoke()
    if total_timesteps is not None:
        cfg.total_timesteps = total_timesteps
    cfg.eval.opponents = ["random"]
    cfg.final_eval.opponents = ["random"]
    for k, v in selfplay.items():
        cfg.selfplay[k] = v
    return cfg


def checkpoint(path):
    return torch.load(path, map_location="cpu", weights_only=False)


def same_tensors(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def pending_positions(selfplay_state: dict) -> int:
    """Positions stored in the games in progress of a checkpoint's ``selfplay`` entry."""
    states = [a["selfplay"] for a in selfplay_state["actors"]] if "actors" in selfplay_state else [selfplay_state]
    return sum(len(game) for s in states for game in s["pending"])


# -- two nodes ------------------------------------------------------------------------------------


def test_two_node_cluster_plays_on_both_nodes(ray_free, tmp_path):
    """Two raylets on loopback with 1 CPU each, joined through ``train(..., address=...)``; the two
    one-CPU actors land one on each node (Ray's SPREAD). Both played; every position played is in
    the buffer or in a game still in progress; the checkpoint loads as an agent."""
    import ray
    from ray.cluster_utils import Cluster

    from training.agents import make_agent
    from training.agents.alphazero import AlphaZeroAgent

    cfg = tiny(actors=2)
    small = 80 * 1024 * 1024
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "object_store_memory": small, "include_dashboard": False}
    )
    try:
        cluster.add_node(num_cpus=1, object_store_memory=small)
        address = cluster.address
        report = train(cfg, tmp_path / "run", progress_bar=False, address=address)
        assert not ray.is_initialized()  # the run disconnected (it had connected itself)
    finally:
        cluster.shutdown()
    assert report["ray"] == {"address": address, "joined": True, "nodes": 2, "cpus": 2.0, "gpus": 0.0}
    actors = report["actors"]
    assert [a["index"] for a in actors] == [0, 1] and len({a["node"] for a in actors}) == 2
    # each round every actor plays its 2 games x 4 moves (Ataxx games of 8 plies at most: all live)
    assert [a["positions"] for a in actors] == [16, 16] and report["timesteps"] == 32
    assert all(a["episodes"] > 0 and a["evaluations"] > 0 for a in actors)
    assert sum(a["episodes"] for a in actors) == report["episodes"] and report["train_steps"] > 0
    final = checkpoint(tmp_path / "run" / "checkpoints" / "final.pt")
    assert len(final["selfplay"]["actors"]) == 2
    assert final["buffer"].added + pending_positions(final["selfplay"]) == 32
    assert final["buffer"].size == final["buffer"].added > 0
    saved = load_config(tmp_path / "run" / "config.yaml")
    assert saved.selfplay.actors == 2
    agent = make_agent(f"az:{tmp_path / 'run' / 'checkpoints' / 'final.pt'}:2")
    assert isinstance(agent, AlphaZeroAgent) and same_tensors(agent.network.state_dict(), final["network"])
    assert set(report["vs"]) == {"random"}


# -- a local instance ---------------------------------------------------------------------------------


def test_address_local_means_one_actor_on_a_ray_instance_of_the_run_s_own(ray_free, tmp_path, monkeypatch):
    """``python -m training.train configs/ataxx_az.yaml --smoke --address local`` with the config's
    ``actors: 0``: one actor, recorded in the run's config.yaml; Ray stopped afterwards."""
    import ray

    monkeypatch.chdir(REPO_ROOT)
    out = tmp_path / "run"
    assert main(["configs/ataxx_az.yaml", "--smoke", "--address", "local", "--out", str(out), "--no-progress"]) == 0
    assert not ray.is_initialized()
    report = json.loads((out / "report.json").read_text())
    assert report["ray"]["joined"] is False and report["ray"]["nodes"] == 1
    assert len(report["actors"]) == 1 and report["actors"][0]["positions"] == report["timesteps"] == 32
    assert load_config(out / "config.yaml").selfplay.actors == 1


def test_actors_resume_exactly_and_refuse_what_they_cannot_hold(ray_free, tmp_path):
    """On a local Ray of 2 CPUs: a run of 2 actors in two parts (16 positions a round: 2 actors x 2
    games x 4 moves; the first part ends after one round) trains the same weights, buffer and
    games in progress as one in one go, so the actor path does not depend on Ray's scheduling.
    3 actors do not fit 2 CPUs: one line, nothing left; an in-process checkpoint does not resume
    on actors."""
    import ray

    from training.ray_cluster import start_ray

    start_ray(num_cpus=2)
    train(tiny(48, actors=2), tmp_path / "whole", progress_bar=False)
    train(tiny(16, actors=2), tmp_path / "p1", progress_bar=False)
    report = train(
        tiny(32, actors=2),
        tmp_path / "p2",
        resume=str(tmp_path / "p1" / "checkpoints" / "final.pt"),
        progress_bar=False,
    )
    assert ray.is_initialized()  # the caller's instance: used, left running
    assert report["timesteps"] == 48 and report["timesteps_this_run"] == 32
    assert [a["positions"] for a in report["actors"]] == [24, 24]
    whole = checkpoint(tmp_path / "whole" / "checkpoints" / "final.pt")
    parts = checkpoint(tmp_path / "p2" / "checkpoints" / "final.pt")
    assert whole["counters"]["train_steps"] == parts["counters"]["train_steps"] > 0
    assert same_tensors(whole["network"], parts["network"]) and whole["rng"] == parts["rng"]
    assert np.array_equal(whole["buffer"].obs, parts["buffer"].obs)
    assert np.array_equal(whole["buffer"].policy, parts["buffer"].policy)
    for a, b in zip(whole["selfplay"]["actors"], parts["selfplay"]["actors"], strict=True):
        assert a["rng"] == b["rng"] and a["positions"] == b["positions"]
        assert a["selfplay"]["episodes"] == b["selfplay"]["episodes"]
    assert whole["selfplay"]["actors"][0]["rng"] != whole["selfplay"]["actors"][1]["rng"]  # own generators

    with pytest.raises(ClusterError) as e:
        train(tiny(actors=3), tmp_path / "three", progress_bar=False)
    assert str(e.value).startswith("3 self-play actors of 1 CPU each, but the cluster's 1 node(s) hold 2 (2 CPU)")
    assert "selfplay.actors" in str(e.value) and "\n" not in str(e.value)
    assert not (tmp_path / "three").exists()

    train(tiny(), tmp_path / "inproc", progress_bar=False)
    with pytest.raises(ConfigError) as e:
        train(
            tiny(actors=2),
            tmp_path / "mixed",
            resume=str(tmp_path / "inproc" / "checkpoints" / "final.pt"),
            progress_bar=False,
        )
    assert "its self-play ran in the learner's process (selfplay.actors 0, no --address)" in str(e.value)
    assert "on 2 Ray actors (selfplay.actors 2)" in str(e.value) and not (tmp_path / "mixed").exists()


# -- without Ray ----------------------------------------------------------------------------------


def test_actors_and_device_keys_are_checked(tmp_path):
    import yaml

    from training.runs import check_run_options

    check_run_options(tiny(), address="local")  # the AlphaZero engine takes --address
    data = yaml.safe_load((REPO_ROOT / "configs" / "ataxx_az.yaml").read_text())
    for section, key, value, message in [
        ("selfplay", "actors", -1, "'selfplay.actors' must be an integer from 0 to 1024"),
        ("learn", "device", "gpu", "'learn.device' must be 'cpu' or 'cuda'"),
    ]:
        bad = json.loads(json.dumps(data))
        bad[section][key] = value
        (tmp_path / "c.yaml").write_text(yaml.safe_dump(bad))
        with pytest.raises(ConfigError, match=message):
            load_config(tmp_path / "c.yaml", validate=False)


def test_cuda_without_a_gpu_stops_at_once(tmp_path, monkeypatch, capsys):
    """``learn.device: cuda`` where torch sees no GPU (always so here; the GPU path itself is
    untested on this machine): one line, nothing left behind."""
    import yaml

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    cfg = tiny()
    cfg.learn.device = "cuda"
    with pytest.raises(ConfigError, match=r"^config 'learn.device' is 'cuda' but torch finds no CUDA GPU here"):
        train(cfg, tmp_path / "a", progress_bar=False)
    assert not (tmp_path / "a").exists()
    data = yaml.safe_load((REPO_ROOT / "configs" / "ataxx_az.yaml").read_text())
    data["learn"]["device"] = "cuda"
    (tmp_path / "gpu.yaml").write_text(yaml.safe_dump(data))
    with pytest.raises(SystemExit) as e:
        main([str(tmp_path / "gpu.yaml"), "--smoke", "--out", str(tmp_path / "b"), "--no-progress"])
    assert e.value.code == 2 and not (tmp_path / "b").exists()
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("python -m training.train: error: config 'learn.device' is 'cuda' but torch finds no")
    assert "set learn.device: cpu" in last


def test_the_device_path_trains_the_same_weights_on_the_cpu(tmp_path, monkeypatch):
    """The path ``learn.device: cuda`` takes (minibatches moved to the device, self-play and the
    evaluations on a CPU copy refreshed after every round's learning), run with the CPU as the
    device: the same weights, buffer and generator as the ordinary run, so the copy is refreshed
    where the learner's own network would be used."""
    from training.engines.alphazero import trainer

    train(tiny(), tmp_path / "plain", progress_bar=False)
    monkeypatch.setattr(trainer, "_device", lambda cfg: torch.device("cpu"))
    train(tiny(), tmp_path / "device", progress_bar=False)
    a = checkpoint(tmp_path / "plain" / "checkpoints" / "final.pt")
    b = checkpoint(tmp_path / "device" / "checkpoints" / "final.pt")
    assert a["counters"]["train_steps"] == b["counters"]["train_steps"] > 0
    assert same_tensors(a["network"], b["network"]) and a["rng"] == b["rng"]
    assert np.array_equal(a["buffer"].policy, b["buffer"].policy)

    def without_times(history):  # the periodic evaluations, less their wall times
        return [{k: v for k, v in row.items() if k != "elapsed_s"} for row in history]

    assert without_times(a["counters"]["history"]) == without_times(b["counters"]["history"])


def test_actors_without_ray_name_the_extra_in_one_line(tmp_path, monkeypatch, capsys):
    """``--address`` (or ``selfplay.actors``) where Ray is not installed: exit status 2, one line
    naming the ``rllib`` extra, before Ray is imported; nothing left behind."""
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    monkeypatch.chdir(REPO_ROOT)
    with pytest.raises(SystemExit) as e:
        main(["configs/ataxx_az.yaml", "--smoke", "--address", "local", "--out", str(tmp_path / "a"), "--no-progress"])
    assert e.value.code == 2 and not (tmp_path / "a").exists()
    last = capsys.readouterr().err.splitlines()[-1]
    assert "AlphaZero self-play on Ray actors (selfplay.actors 1, --address) needs the 'rllib' extra" in last
    assert "missing ray" in last and 'pip install -e ".[rllib]"' in last
