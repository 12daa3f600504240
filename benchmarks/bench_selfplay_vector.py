"""Training throughput: MaskablePPO on the batched self-play env against the former ``DummyVecEnv`` of ``SelfPlayEnv``.

For each config, the same run twice in this process: the same model (seed, network, PPO
settings), the same opponent pool and the same games (both envs deal and seat game ``i`` from
``seed + i`` and the run's seed, so they play the same games until the policy opponents' batched
forward passes differ from single ones in the last bits), trained for ``--timesteps`` by
``model.learn`` with the trainer's own callback (snapshots, checkpoints and evaluations fire on
their periods, so keep ``--timesteps`` under ``eval.every`` to time self-play alone):

* **before**: ``training_env(cfg, pool, kind="selfplay")``, a ``DummyVecEnv`` of ``n_envs``
  ``Monitor(SelfPlayEnv)``: every opponent move is its own forward pass;
* **after**: ``training_env(cfg, pool, kind="vector", backend=...)``, a ``SelfPlaySB3VecEnv`` over
  a ``SelfPlayVectorEnv``: one forward pass per policy per round of opponent moves, on the
  game's batched core (``--backend batched``, the default, falling back to the reference state
  where the game has none, as the trainer does and says) or the reference (``--backend
  reference``).

The pool starts with ``--snapshots`` frozen copies of the initial policy (default 3), so that the
opponents are drawn as in the middle of a run (the live policy, the baselines and several
snapshots, each its own network); the warm start (``pretrain``) is not run. Printed per config:
timesteps per second of the whole ``learn`` (rollouts and PPO updates), the part spent stepping
the env (the opponents' moves included), and the ratio after/before. Runs alternate before/after
``--repeat`` times; the best time of each counts. Torch runs one thread.

    python benchmarks/bench_selfplay_vector.py                                    # ataxx_quick, twixt_quick
    python benchmarks/bench_selfplay_vector.py --configs tantrix_quick --timesteps 4096
    python benchmarks/bench_selfplay_vector.py --backend reference --json out.json

Wall-clock figures: on a shared machine compare only the ratio within one run (and say the load).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

torch.set_num_threads(1)

from training.engines.sb3.trainer import build_model, make_callback, training_env  # noqa: E402
from training.selfplay import OpponentPool  # noqa: E402
from training.train import load_config  # noqa: E402


def run_once(cfg: dict, kind: str, backend: str, timesteps: int, snapshots: int) -> dict:
    """One ``model.learn(timesteps)`` of ``cfg`` on the env ``kind``; its timings."""
    seed = cfg["seed"]
    pc = cfg["pool"]
    pool = OpponentPool(pc["baselines"], pc["baseline_prob"], pc["latest_prob"], pc["max_snapshots"], seed=seed)
    env = training_env(cfg, pool, kind=kind, backend=backend)
    model = build_model(cfg, env, seed)
    pool.set_latest(model.policy)
    for k in range(snapshots):
        pool.add_snapshot(model.policy, f"snapshot_{k}")
    env_seconds = [0.0]
    step_wait = env.step_wait

    def timed_step_wait():
        t = time.perf_counter()
        try:
            return step_wait()
        finally:
            env_seconds[0] += time.perf_counter() - t

    env.step_wait = timed_step_wait
    with tempfile.TemporaryDirectory() as out:
        (Path(out) / "checkpoints").mkdir()
        callback = make_callback(cfg, pool, Path(out))
        t0 = time.perf_counter()
        model.learn(total_timesteps=timesteps, callback=callback)
        seconds = time.perf_counter() - t0
    row = {
        "kind": kind,
        "timesteps": int(model.num_timesteps),
        "seconds": seconds,
        "env_seconds": env_seconds[0],
        "episodes": callback.episodes,
    }
    if kind == "vector":
        venv = env.venv
        row.update(backend=venv.backend, backend_note=venv.backend_note, stats=dict(venv.stats))
    env.close()
    return row


def bench_config(
    name: str, backend: str, timesteps: int | None, snapshots: int, repeat: int, n_envs: int | None = None
) -> dict:
    cfg = load_config(ROOT / "configs" / f"{name}.yaml", n_envs=n_envs)
    rollout = cfg["n_envs"] * cfg["ppo"]["n_steps"]
    steps = timesteps or 2 * rollout
    best: dict[str, dict] = {}
    for _ in range(repeat):
        for kind in ("selfplay", "vector"):
            row = run_once(cfg, kind, backend, steps, snapshots)
            if kind not in best or row["seconds"] < best[kind]["seconds"]:
                best[kind] = row
    before, after = best["selfplay"], best["vector"]
    out = {
        "config": name,
        "env_id": cfg["env_id"],
        "env_kwargs": cfg["env_kwargs"],
        "n_envs": cfg["n_envs"],
        "timesteps": before["timesteps"],
        "snapshots": snapshots,
        "repeat": repeat,
        "before": before,
        "after": after,
        "before_ts_per_s": before["timesteps"] / before["seconds"],
        "after_ts_per_s": after["timesteps"] / after["seconds"],
        "before_env_ts_per_s": before["timesteps"] / before["env_seconds"],
        "after_env_ts_per_s": after["timesteps"] / after["env_seconds"],
    }
    out["ratio"] = out["after_ts_per_s"] / out["before_ts_per_s"]
    out["env_ratio"] = out["after_env_ts_per_s"] / out["before_env_ts_per_s"]
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--configs",
        nargs="+",
        default=["ataxx_quick", "twixt_quick"],
        help="config names in configs/ (default: ataxx_quick twixt_quick)",
    )
    parser.add_argument(
        "--backend",
        choices=("batched", "reference"),
        default="batched",
        help="the vector env's games (default batched: the game's batched core where it has one)",
    )
    parser.add_argument("--timesteps", type=int, default=None, help="timesteps per run (default: two rollouts)")
    parser.add_argument("--snapshots", type=int, default=3, help="frozen snapshots in the pool from the start")
    parser.add_argument(
        "--n-envs",
        type=int,
        default=None,
        help="override the configs' n_envs (games per rollout; not the config's run then)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="alternate before/after this many times, keep the best")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"torch {torch.__version__}, {torch.get_num_threads()} thread(s), load average {load:.2f} at start")
    results = []
    for name in args.configs:
        r = bench_config(name, args.backend, args.timesteps, args.snapshots, args.repeat, args.n_envs)
        results.append(r)
        a, b = r["after"], r["before"]
        s = a["stats"]
        print(
            f"{name}: {r['timesteps']:,} timesteps, {r['n_envs']} games, backend {a['backend']}"
            + (f" ({a['backend_note']})" if a["backend_note"] else "")
        )
        print(
            f"  before (DummyVecEnv of SelfPlayEnv): {r['before_ts_per_s']:7.1f} timesteps/s "
            f"({b['seconds']:.1f} s, env steps {b['env_seconds']:.1f} s)"
        )
        print(
            f"  after  (SelfPlayVectorEnv):          {r['after_ts_per_s']:7.1f} timesteps/s "
            f"({a['seconds']:.1f} s, env steps {a['env_seconds']:.1f} s; "
            f"{s['policy_rows'] / max(1, s['policy_forwards']):.1f} games per policy forward)"
        )
        print(f"  ratio after/before: {r['ratio']:.2f} (env steps alone: {r['env_ratio']:.2f})", flush=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load:.2f} at the end")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
