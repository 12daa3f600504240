"""Self-play training with MaskablePPO (sb3-contrib) — the main job.

Usage::

    python -m training.train configs/ataxx.yaml [--timesteps N] [--seed S] [--out DIR] [--resume CKPT.zip]

The YAML config holds every hyperparameter (see ``configs/ataxx.yaml``, each key commented);
unknown keys are an error. The run directory (default ``runs/<config name>-<seed>``) receives:

* ``config.yaml`` — the resolved config, seed included;
* ``logs/`` — SB3 logs as CSV (``progress.csv``) and TensorBoard event files, with the periodic
  evaluation win rates under ``eval/``;
* ``checkpoints/step_<N>.zip`` — periodic checkpoints, and ``final.zip``;
* ``eval/`` — the final evaluation: a round-robin tournament of the trained agent and the
  configured opponents (:mod:`training.evaluate`: ``results.json``, ``pairs.csv``,
  ``ratings.csv``, ``ratings.png``);
* ``learning_curve.png`` — the periodic evaluation scores over timesteps;
* ``report.json`` — the trained agent's score against each opponent with 95% intervals, the
  ratings, the periodic evaluations, timings and the seed.

The learner plays a random seat of each game against opponents drawn from an
:class:`~training.selfplay.OpponentPool` (its own snapshots, its current policy, baselines).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path

import numpy as np
import yaml

__all__ = ["DEFAULTS", "load_config", "train", "final_evaluation", "plot_learning_curve", "main"]

#: Every config key with its default; a config may override any of them and nothing else.
DEFAULTS: dict = {
    "env_id": "ataxx_v0",
    "env_kwargs": {},
    "max_steps": 400,
    "seed": 0,
    "total_timesteps": 200_000,
    "n_envs": 8,
    "torch_threads": 1,
    "policy": {
        "features": "board_cnn",
        "features_kwargs": {"channels": 64, "blocks": 3, "features_dim": 0},
        "head": "spatial",
        "net_arch": {"pi": [], "vf": [64]},
    },
    "ppo": {
        "learning_rate": 3.0e-4,
        "n_steps": 256,
        "batch_size": 512,
        "n_epochs": 4,
        "gamma": 0.99,
        "gae_lambda": 0.95,
        "clip_range": 0.2,
        "ent_coef": 0.01,
        "vf_coef": 0.5,
        "max_grad_norm": 0.5,
    },
    "pool": {
        "baselines": ["random", "greedy"],
        "baseline_prob": 0.3,
        "latest_prob": 0.3,
        "max_snapshots": 10,
        "snapshot_every": 20_000,
        "partner": "latest",
    },
    "eval": {"every": 50_000, "games": 20, "opponents": ["random", "greedy"]},
    "checkpoint_every": 50_000,
    "final_eval": {"games": 200, "opponents": ["random", "greedy"]},
}


def _merge(base: dict, override: dict, path: str = "") -> dict:
    out = copy.deepcopy(base)
    for k, v in override.items():
        where = f"{path}{k}"
        if k not in base:
            raise ValueError(f"unknown config key {where!r}; known keys here: {', '.join(sorted(base))}")
        if isinstance(base[k], dict) and k not in ("env_kwargs", "features_kwargs", "net_arch"):
            if not isinstance(v, dict):
                raise ValueError(f"config key {where!r} must be a mapping, got {type(v).__name__}")
            out[k] = _merge(base[k], v, where + ".")
        else:
            out[k] = v
    return out


def load_config(path: str | Path, **overrides) -> dict:
    """Read a YAML config and merge it over :data:`DEFAULTS`.

    ``overrides`` (e.g. ``total_timesteps=...``, ``seed=...``) replace top-level keys when not
    ``None``.

    Raises:
        FileNotFoundError: no such file. ValueError: unknown key or wrong type.
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"config file {p} does not exist")
    data = yaml.safe_load(p.read_text()) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{p}: the config must be a YAML mapping, got {type(data).__name__}")
    cfg = _merge(DEFAULTS, data)
    for k, v in overrides.items():
        if v is not None:
            cfg[k] = v
    for key in ("total_timesteps", "n_envs", "seed"):
        if not isinstance(cfg[key], int) or isinstance(cfg[key], bool) or cfg[key] < (0 if key == "seed" else 1):
            raise ValueError(f"config {key!r} must be a {'non-negative' if key == 'seed' else 'positive'} integer, got {cfg[key]!r}")
    cfg["name"] = p.stem
    return cfg


def _build_model(cfg: dict, vec_env, seed: int):
    from sb3_contrib import MaskablePPO

    from envs.registry import make_raw
    from training.features import FEATURE_EXTRACTORS, SpatialMaskablePolicy

    pol = cfg["policy"]
    if pol["features"] not in FEATURE_EXTRACTORS:
        raise ValueError(f"unknown policy.features {pol['features']!r}; known: {sorted(FEATURE_EXTRACTORS)}")
    policy_kwargs = {
        "features_extractor_class": FEATURE_EXTRACTORS[pol["features"]],
        "features_extractor_kwargs": dict(pol["features_kwargs"]),
        "net_arch": dict(pol["net_arch"]),
    }
    if pol["head"] == "spatial":
        raw = make_raw(cfg["env_id"], **cfg["env_kwargs"])
        if not hasattr(raw, "action_layout"):
            raise ValueError(f"policy.head 'spatial' needs an environment with action_layout(); {cfg['env_id']} has none")
        policy, policy_kwargs["action_index"] = SpatialMaskablePolicy, raw.action_layout()
    elif pol["head"] == "linear":
        policy = "MlpPolicy"
    else:
        raise ValueError(f"policy.head must be 'spatial' or 'linear', got {pol['head']!r}")
    return MaskablePPO(
        policy, vec_env, policy_kwargs=policy_kwargs, seed=seed, verbose=0, device="cpu",
        **cfg["ppo"],
    )


def _make_callback(cfg, pool, out: Path):
    from stable_baselines3.common.callbacks import BaseCallback

    from training.agents import PolicyAgent, make_agent
    from training.arena import head_to_head

    class SelfPlayCallback(BaseCallback):
        """Snapshots into the pool, periodic evaluation and checkpoints, by total timesteps."""

        def __init__(self):
            super().__init__()
            self.next_snapshot = cfg["pool"]["snapshot_every"]
            self.next_eval = cfg["eval"]["every"]
            self.next_ckpt = cfg["checkpoint_every"]
            self.episodes = 0
            self.history: list[dict] = []

        def _on_step(self) -> bool:
            t = self.num_timesteps
            for info in self.locals.get("infos", []):
                if "returns" in info:
                    self.episodes += 1
            if t >= self.next_snapshot:
                pool.add_snapshot(self.model.policy, f"snapshot_{t}")
                self.next_snapshot += cfg["pool"]["snapshot_every"]
            if t >= self.next_ckpt:
                self.model.save(out / "checkpoints" / f"step_{t}.zip")
                self.next_ckpt += cfg["checkpoint_every"]
            if t >= self.next_eval:
                self.next_eval += cfg["eval"]["every"]
                self.evaluate(t)
            return True

        def evaluate(self, t: int) -> dict:
            agent = PolicyAgent(self.model.policy, deterministic=True, name="learner")
            row = {"timesteps": t, "episodes": self.episodes}
            for spec in cfg["eval"]["opponents"]:
                r = head_to_head(cfg["env_id"], agent, make_agent(spec, seed=t), cfg["eval"]["games"], seed=t,
                                 env_kwargs=cfg["env_kwargs"], max_steps=cfg["max_steps"])
                row[f"score_vs_{spec}"] = r["score"]
                self.logger.record(f"eval/score_vs_{spec}", r["score"])
            self.model.policy.set_training_mode(False)
            self.history.append(row)
            self.logger.dump(t)
            print(f"[eval] {json.dumps(row)}", flush=True)
            return row

    return SelfPlayCallback()


def train(cfg: dict, out: Path, resume: str | None = None, progress_bar: bool = True) -> dict:
    """Run self-play training and the final evaluation; return the report dict.

    Args:
        cfg: a config from :func:`load_config`.
        out: the run directory (created).
        resume: a checkpoint ``.zip`` to continue from (its weights and optimizer state).
        progress_bar: show SB3's progress bar.
    """
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.selfplay import OpponentPool, SelfPlayEnv

    torch.set_num_threads(int(cfg["torch_threads"]))
    out.mkdir(parents=True, exist_ok=True)
    (out / "checkpoints").mkdir(exist_ok=True)
    (out / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    seed = cfg["seed"]
    pc = cfg["pool"]
    pool = OpponentPool(pc["baselines"], pc["baseline_prob"], pc["latest_prob"], pc["max_snapshots"], seed=seed)

    def make_env(i):
        def _f():
            e = SelfPlayEnv(cfg["env_id"], pool, env_kwargs=cfg["env_kwargs"], max_steps=cfg["max_steps"],
                            partner=pc["partner"])
            e = Monitor(e)
            e.reset(seed=seed * 1000 + i)
            return e
        return _f

    vec_env = DummyVecEnv([make_env(i) for i in range(cfg["n_envs"])])
    vec_env.seed(seed)
    if resume:
        if not Path(resume).exists():
            raise FileNotFoundError(f"checkpoint to resume from {resume} does not exist")
        model = MaskablePPO.load(resume, env=vec_env, device="cpu")
        reset_num_timesteps = False
    else:
        model = _build_model(cfg, vec_env, seed)
        reset_num_timesteps = True
    model.set_logger(configure(str(out / "logs"), ["csv", "tensorboard"]))
    pool.set_latest(model.policy)
    callback = _make_callback(cfg, pool, out)
    t0 = time.time()
    model.learn(total_timesteps=cfg["total_timesteps"], callback=callback, progress_bar=progress_bar,
                reset_num_timesteps=reset_num_timesteps)
    train_seconds = time.time() - t0
    final = out / "checkpoints" / "final.zip"
    model.save(final)

    t1 = time.time()
    report = final_evaluation(cfg, final, out / "eval")
    report.update({
        "config": cfg["name"], "env_id": cfg["env_id"], "seed": seed, "timesteps": int(model.num_timesteps),
        "train_seconds": round(train_seconds, 1), "eval_seconds": round(time.time() - t1, 1),
        "checkpoint": str(final), "periodic_eval": callback.history,
    })
    (out / "report.json").write_text(json.dumps(report, indent=2))
    if callback.history:
        plot_learning_curve(callback.history, out / "learning_curve.png", title=f"{cfg['name']} (seed {seed})")
    return report


def plot_learning_curve(history: list[dict], path: Path, title: str = "") -> None:
    """Score against each evaluation opponent over training timesteps, as a PNG (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    steps = [row["timesteps"] for row in history]
    for key in history[0]:
        if key.startswith("score_vs_"):
            ax.plot(steps, [row[key] for row in history], marker="o", label=key[len("score_vs_"):])
    ax.set_xlabel("timesteps")
    ax.set_ylabel("score (wins + draws/2) / games")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(title="vs")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def final_evaluation(cfg: dict, checkpoint: Path, out: Path) -> dict:
    """Round-robin tournament of the trained agent and the configured opponents.

    Uses :func:`training.evaluate.run_tournament` (seats swapped, OpenSkill and Elo ratings,
    Wilson intervals) and writes its ``results.json``, ``pairs.csv``, ``ratings.csv`` and
    ``ratings.png`` into ``out``.

    Returns:
        ``{"vs": {spec: {"wins", "draws", "losses", "games", "score", "score_ci95_low",
        "score_ci95_high"}}, "ratings": [...]}`` from the trained agent's side.
    """
    from training.evaluate import run_tournament

    fe = cfg["final_eval"]
    specs = [str(checkpoint), *fe["opponents"]]
    result = run_tournament(cfg["env_id"], specs, fe["games"], seed=10_000 + cfg["seed"], out_dir=out,
                            max_steps=cfg["max_steps"], env_kwargs=cfg["env_kwargs"], record_moves=False)
    me = result["agents"][0]["name"]
    names = {a["name"]: a["spec"] for a in result["agents"]}
    keys = ("wins", "draws", "losses", "games", "score", "score_ci95_low", "score_ci95_high")
    vs = {names[p["opponent"]]: {k: p[k] for k in keys} for p in result["pairs"] if p["agent"] == me}
    ratings = [{k: r[k] for k in ("name", "mu", "sigma", "elo")} for r in result["ratings"]]
    return {"vs": vs, "ratings": ratings}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.train", description=__doc__.split("\n\n")[0])
    parser.add_argument("config", help="YAML config, e.g. configs/ataxx.yaml")
    parser.add_argument("--timesteps", type=int, default=None, help="override total_timesteps")
    parser.add_argument("--seed", type=int, default=None, help="override seed")
    parser.add_argument("--out", default=None, help="run directory (default runs/<config>-<seed>)")
    parser.add_argument("--resume", default=None, help="checkpoint .zip to continue training from")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    args = parser.parse_args(argv)
    try:
        cfg = load_config(args.config, total_timesteps=args.timesteps, seed=args.seed)
    except (FileNotFoundError, ValueError) as e:
        parser.error(str(e))
    out = Path(args.out) if args.out else Path("runs") / f"{cfg['name']}-{cfg['seed']}"
    report = train(cfg, out, resume=args.resume, progress_bar=not args.no_progress)
    print(f"\nRun directory: {out}")
    print(f"Trained {report['timesteps']} timesteps in {report['train_seconds']} s")
    for spec, r in report["vs"].items():
        print(f"  vs {spec:<14} score {r['score']:.3f} [95% {r['score_ci95_low']:.3f}, {r['score_ci95_high']:.3f}]"
              f"  (W {r['wins']} / D {r['draws']} / L {r['losses']} of {r['games']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
