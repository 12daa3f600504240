"""RLlib throughput: sampling with 0, 1 and 2 env runners and several envs per runner, and RLlib
training against the SB3 trainer on the same game and network, in the same run.

Part 1 (``--skip-train`` runs only this one) builds the PPO algorithm of an RLlib config
(``training.engines.rllib.trainer.build_config``: our env, our RLModules, the self-play pool) for each
layout and times sampling alone: every env runner samples ``--sample-steps / runners`` env steps
with the policy (``EnvRunner.sample``, exploring), the remote runners in parallel; env steps/s
count every agent's move sampled by RLlib. Layouts: the driver itself (``num_env_runners: 0``,
what ``configs/ataxx_rllib.yaml`` uses on one machine) and 1 and 2 remote env runners, each with
1 env and with ``--envs`` envs per runner (one batched forward pass for all of them). Peer in the
same run: the same env (``GameMultiAgentEnv``) stepped with uniformly random legal actions and no
RLlib, the ceiling of what the game costs; ratios are given against 1 runner x 1 env.

Part 2 trains the same timesteps with ``python -m training.train``'s two engines, one after the
other in this process: SB3 MaskablePPO (``--sb3-config``, default ``configs/ataxx_quick.yaml``)
and RLlib PPO (``--config``, default ``configs/ataxx_rllib.yaml``): the same network
(``policy``), rollout (8 envs x 256 steps = 2,048 per update), minibatch (512), epochs (4) and
PPO coefficients; periodic evaluations, snapshots, pool checks and checkpoints pushed past the end
and one game per pair in the final tournament, so that ``report.json``'s ``train_seconds`` is
training alone; RLlib again with ``--more-envs`` envs per runner (the same 2,048 env steps per
iteration, fewer steps per env). Timesteps are each trainer's own count (SB3: the learner's moves; RLlib: the
``main`` module's moves), the unit of ``total_timesteps`` in both configs. Goal: RLlib / SB3 >= 0.8.

Usage::

    python benchmarks/rllib_throughput.py                      # ~6 min on 2 cores
    python benchmarks/rllib_throughput.py --skip-train --sample-steps 2000   # sampling only, quicker

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``). Ray starts locally (``address="local"``)
with every core of this machine; close other heavy jobs first.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _train_cfg(load_config, path: str, timesteps: int, seed: int) -> dict:
    """A config for a pure training measurement: ``timesteps`` to train, nothing periodic."""
    cfg = load_config(path, validate=False, check_teacher=False, seed=seed)
    cfg["total_timesteps"] = timesteps
    never = 10**12
    cfg["eval"]["every"] = never
    cfg["checkpoint_every"] = never
    cfg["final_eval"]["games"] = 1
    pool = cfg["pool"]
    for key in ("snapshot_every", "check_every"):  # SB3's snapshots, RLlib's win-rate checks
        if key in pool:
            pool[key] = never
    if cfg.get("pretrain"):
        cfg["pretrain"]["teacher"] = None
    return cfg


def measure_training(args) -> dict:
    """Part 2: train ``args.timesteps`` with each engine; ``{engine: report-derived figures}``."""
    from training.train import load_config, train

    out = {}
    runs = (
        [("sb3", args.sb3_config, None)]
        + [("rllib", args.config, None)]
        + [(f"rllib_{n}envs", args.config, n) for n in args.more_envs]
    )
    for engine, path, envs in runs:
        cfg = _train_cfg(load_config, path, args.timesteps, args.seed)
        if envs is not None:
            cfg["rllib"]["num_envs_per_env_runner"] = envs
        with tempfile.TemporaryDirectory(prefix=f"bench_{engine}_") as tmp:
            report = train(cfg, Path(tmp) / "run", progress_bar=False)
        steps, secs = report["timesteps_this_run"], report["train_seconds"]
        row = {"timesteps": steps, "seconds": secs, "timesteps_per_s": steps / secs}
        if engine.startswith("rllib"):
            thr = report.get("throughput", {})
            row["env_steps_per_s"] = thr.get("env_steps_per_s")
            row["sampling_env_steps_per_s"] = thr.get("sampling_env_steps_per_s")
        out[engine] = row
        print(
            f"  {engine:<12} {steps:>8,} timesteps in {secs:>7.1f} s: {steps / secs:>8,.0f} timesteps/s"
            + (
                f"  (sampling alone {row['sampling_env_steps_per_s']:,.0f} env steps/s)"
                if row.get("sampling_env_steps_per_s")
                else ""
            ),
            flush=True,
        )
    return out


def raw_env_rate(cfg: dict, steps: int, seed: int) -> float:
    """Env steps/s of ``GameMultiAgentEnv`` with uniformly random legal actions, no RLlib."""
    from training.engines.rllib.env import GameMultiAgentEnv
    from training.engines.rllib.trainer import env_config

    env = GameMultiAgentEnv(env_config(cfg, seed))
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    n = 0
    t0 = time.perf_counter()
    while n < steps:
        actions = {aid: int(rng.choice(np.flatnonzero(o["action_mask"]))) for aid, o in obs.items()}
        obs, _, term, trunc, _ = env.step(actions)
        n += 1
        if term.get("__all__") or trunc.get("__all__"):
            obs, _ = env.reset()
    return n / (time.perf_counter() - t0)


def sample_rate(cfg: dict, runners: int, envs: int, steps: int, seed: int) -> float:
    """Env steps/s sampled by RLlib with ``runners`` env runners (0: the driver) x ``envs`` envs."""
    from training.engines.rllib.trainer import build_config

    c = copy.deepcopy(cfg)
    c["rllib"]["num_env_runners"] = runners
    c["rllib"]["num_envs_per_env_runner"] = envs
    algo = build_config(c, seed).build_algo()
    try:

        def sample(runner, n):
            return sum(e.env_steps() for e in runner.sample(num_timesteps=n))

        if runners == 0:
            local = algo.env_runner_group.local_env_runner
            sample(local, 200)  # warm-up
            t0 = time.perf_counter()
            n = sample(local, steps)
        else:
            group = algo.env_runner_group
            group.foreach_env_runner(lambda r: sample(r, 200), local_env_runner=False)
            per = steps // runners
            t0 = time.perf_counter()
            n = sum(group.foreach_env_runner(lambda r: sample(r, per), local_env_runner=False))
        return n / (time.perf_counter() - t0)
    finally:
        algo.stop()


def measure_sampling(args) -> dict:
    """Part 1: env steps/s per layout and the raw env's; prints the table."""
    from training.train import load_config

    cfg = load_config(args.config, validate=False, seed=args.seed)
    raw = raw_env_rate(cfg, args.raw_steps, args.seed)
    layouts = [(0, 1), (0, args.envs), (1, 1), (1, args.envs), (2, 1), (2, args.envs)]
    rates = {}
    header = f"{'layout':<34} {'env steps/s':>12} {'vs 1 runner x 1 env':>20}"
    print(header)
    print("-" * len(header))
    for runners, envs in layouts:
        rates[(runners, envs)] = sample_rate(cfg, runners, envs, args.sample_steps, args.seed)
        base = rates.get((1, 1))
        where = "driver (num_env_runners 0)" if runners == 0 else f"{runners} env runner{'s' if runners > 1 else ''}"
        print(
            f"{where + f' x {envs} env' + ('s' if envs > 1 else ''):<34} {rates[(runners, envs)]:>12,.0f} "
            f"{(f'{rates[(runners, envs)] / base:.2f}x' if base else ''):>20}",
            flush=True,
        )
    print(f"{'peer: the env alone, random moves':<34} {raw:>12,.0f} {raw / rates[(1, 1)]:>19.2f}x")
    return {"raw_env_steps_per_s": raw, "layouts": {f"{r}x{e}": v for (r, e), v in rates.items()}}


def main(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--config", default=str(ROOT / "configs" / "ataxx_rllib.yaml"), help="RLlib config")
    p.add_argument(
        "--sb3-config",
        default=str(ROOT / "configs" / "ataxx_quick.yaml"),
        help="SB3 config of the same game and network (part 2)",
    )
    p.add_argument("--sample-steps", type=int, default=4000, help="env steps sampled per layout (default 4000)")
    p.add_argument("--envs", type=int, default=8, help="envs per env runner in the batched layouts (default 8)")
    p.add_argument("--raw-steps", type=int, default=5000, help="env steps of the random-play peer (default 5000)")
    p.add_argument("--timesteps", type=int, default=8192, help="timesteps trained by each engine (default 8192)")
    p.add_argument(
        "--more-envs",
        type=lambda t: [int(x) for x in t.split(",") if x],
        default=[32],
        help="part 2: also train RLlib with these numbers of envs per runner (default 32; '' for none)",
    )
    p.add_argument("--skip-train", action="store_true", help="part 1 only")
    p.add_argument("--skip-sample", action="store_true", help="part 2 only")
    p.add_argument("--json", default=None, help="also write the figures to this JSON file")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    warnings.filterwarnings("ignore")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    from training.engines.rllib.cluster import require_rllib

    require_rllib("benchmarks/rllib_throughput.py", as_command=True)
    figures = {"cpus": os.cpu_count()}
    if not args.skip_train:  # first, before Ray runs: SB3 needs no Ray
        print(
            f"Training throughput, {args.timesteps:,} timesteps each (same game, network, rollout, minibatch, epochs)"
        )
        figures["training"] = measure_training(args)
        ratio = figures["training"]["rllib"]["timesteps_per_s"] / figures["training"]["sb3"]["timesteps_per_s"]
        figures["training"]["ratio_rllib_sb3"] = ratio
        print(f"ratio RLlib / SB3: {ratio:.2f}  (goal >= 0.8: {'met' if ratio >= 0.8 else 'NOT met'})")
        for n in args.more_envs:
            r = figures["training"][f"rllib_{n}envs"]["timesteps_per_s"] / figures["training"]["sb3"]["timesteps_per_s"]
            figures["training"][f"ratio_rllib_{n}envs_sb3"] = r
            print(f"ratio RLlib with {n} envs per runner / SB3: {r:.2f}")
        print()
    if not args.skip_sample:
        from training.engines.rllib.cluster import start_ray

        info = start_ray()
        print(
            f"Sampling throughput, {args.sample_steps:,} env steps per layout (Ray: {info.cpus:g} CPUs; the policy "
            "samples every move of the RLlib modules, baseline opponents move inside the env)"
        )
        figures["sampling"] = measure_sampling(args)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
