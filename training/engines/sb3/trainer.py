"""The SB3 engine's trainer: MaskablePPO (sb3-contrib) against an opponent pool.

The learner plays a random seat of each game against opponents drawn from an
:class:`~training.selfplay.OpponentPool` (its own snapshots, its current policy, baselines), in
``n_envs`` games stepped together (:class:`~training.vector_selfplay.SelfPlayVectorEnv`: one
forward pass of each policy opponent for all the games where it is to move; the game's batched
core where it has one, else one rules state per game, said in the run's first lines).
With ``pretrain.teacher`` set, a new run (not a resumed one) first imitates that agent
(:mod:`training.pretrain`). The run directory is :mod:`training.runs`'s; checkpoints are
``checkpoints/step_<N>.zip`` and ``final.zip`` (and ``pretrained.zip``: the clone alone, before
self-play, 0 timesteps, to measure what each step adds).

Reproducibility: the config's ``seed`` seeds every draw of a run: MaskablePPO's ``seed``
(Python's ``random``, numpy's global generator, which orders PPO's minibatches, and torch, which
samples the learner's actions), the games (game ``i`` gets ``seed + i``, mixed with ``seed`` as
:class:`~training.selfplay.SelfPlayEnv` does: deals, seats, opponent draws and every random
choice of the opponents; :class:`~training.vector_selfplay.SelfPlayVectorEnv`), the pool's baselines, the warm start
(:func:`training.pretrain.pretrain`), and the final tournament (``10_000 + seed``); periodic
evaluations are seeded by the timestep. With the same ``torch_threads``, machine and library
versions, two runs write byte-identical tensors in every checkpoint and identical evaluations
(``tests/test_determinism.py``); wall-clock figures differ. Another thread count, machine or
torch version may change the floating-point sums, and the runs then drift apart. A resumed run
repeats itself but differs from the uninterrupted one: games in progress, generator positions
and the pool's snapshots are not saved in a checkpoint.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from stable_baselines3.common.vec_env import VecEnv

from training.config import ConfigError
from training.runs import duration, final_report, games, make_logger, next_multiple, write_config, write_report

__all__ = ["network", "build_model", "make_callback", "training_env", "estimate_train_seconds", "train_in"]


def network(cfg) -> tuple[dict, object]:
    """The network the config's ``policy`` describes, as SB3 ``policy_kwargs`` (the feature
    extractor's class and kwargs, ``net_arch``), and the environment's :class:`ActionLayout`."""
    from envs.registry import spec
    from training.engines.sb3.policy import FEATURE_EXTRACTORS
    from training.features import extractor_kwargs

    pol = cfg["policy"]
    layout = spec(cfg["env_id"]).make_raw(**cfg["env_kwargs"]).action_layout()
    return {
        "features_extractor_class": FEATURE_EXTRACTORS[pol["features"]],
        "features_extractor_kwargs": extractor_kwargs(pol, layout),
        "net_arch": dict(pol["net_arch"]),
    }, layout


def build_model(cfg, vec_env, seed: int):
    """A new MaskablePPO of the config's network (``policy``) and hyperparameters (``ppo``) on
    ``vec_env`` (:func:`training_env`), seeded with ``seed``, on the CPU."""
    from sb3_contrib import MaskablePPO

    from training.engines.sb3.policy import SpatialMaskablePolicy

    pol = cfg["policy"]  # checked by validate_config
    policy_kwargs, layout = network(cfg)
    import gymnasium as gym

    dict_obs = isinstance(vec_env.observation_space, gym.spaces.Dict)
    policy: str | type[SpatialMaskablePolicy] = "MultiInputPolicy" if dict_obs else "MlpPolicy"
    if pol["head"] in ("spatial", "factored"):
        policy = SpatialMaskablePolicy
        policy_kwargs["action_layout"] = layout
        policy_kwargs["value_head"] = pol["value_head"]
    return MaskablePPO(
        policy,
        vec_env,
        policy_kwargs=policy_kwargs,
        seed=seed,
        verbose=0,
        device="cpu",
        **cfg["ppo"].to_dict(),
    )


def make_callback(cfg, pool, out: Path):
    """The SB3 callback of a run: snapshots into ``pool`` every ``pool.snapshot_every`` timesteps,
    checkpoints into ``out/checkpoints`` every ``checkpoint_every``, periodic evaluations every
    ``eval.every`` (its ``history``: one row per evaluation)."""
    from stable_baselines3.common.callbacks import BaseCallback

    from training.agents import PolicyAgent, make_agent
    from training.arena import head_to_head

    class SelfPlayCallback(BaseCallback):
        """Snapshots into the pool, periodic evaluation and checkpoints, by total timesteps."""

        def __init__(self):
            super().__init__()
            self.episodes = 0
            self.history: list[dict] = []

        def _on_training_start(self) -> None:
            # Each event fires at the next multiple of its period (a resumed run goes on with the
            # schedule it had).
            t = self.model.num_timesteps
            self.next_snapshot = next_multiple(t, cfg["pool"]["snapshot_every"])
            self.next_eval = next_multiple(t, cfg["eval"]["every"])
            self.next_ckpt = next_multiple(t, cfg["checkpoint_every"])

        def _on_step(self) -> bool:
            t = self.num_timesteps
            for info in self.locals.get("infos", []):
                if "returns" in info:
                    self.episodes += 1
            if t >= self.next_snapshot:
                pool.add_snapshot(self.model.policy, f"snapshot_{t}")
                self.next_snapshot = next_multiple(t, cfg["pool"]["snapshot_every"])
            if t >= self.next_ckpt:
                self.model.save(out / "checkpoints" / f"step_{t}.zip")
                self.next_ckpt = next_multiple(t, cfg["checkpoint_every"])
            if t >= self.next_eval:
                self.next_eval = next_multiple(t, cfg["eval"]["every"])
                self.evaluate(t)
            return True

        def evaluate(self, t: int) -> dict:
            agent = PolicyAgent(self.model.policy, deterministic=True, name="learner")
            row = {"timesteps": t, "episodes": self.episodes}
            for spec in cfg["eval"]["opponents"]:
                r = head_to_head(
                    cfg["env_id"],
                    agent,
                    make_agent(spec, seed=t),
                    cfg["eval"]["games"],
                    seed=t,
                    env_kwargs=cfg["env_kwargs"],
                    max_steps=cfg["max_steps"],
                )
                row[f"score_vs_{spec}"] = r["score"]
                self.logger.record(f"eval/score_vs_{spec}", r["score"])
            self.history.append(row)
            # Recorded values go out with SB3's next log row (no dump here: that would flush the
            # previous update's train/* values into this row).
            print(f"[eval] {json.dumps(row)}", flush=True)
            return row

    return SelfPlayCallback()


def training_env(cfg: dict, pool, kind: str = "vector", backend: str = "batched"):
    """The SB3 ``VecEnv`` a config trains on, seeded for its first reset (game ``i``: ``seed +
    i``, mixed with the run's seed: ``seed_salt``).

    Args:
        cfg: a validated config (``env_id``, ``env_kwargs``, ``max_steps``, ``n_envs``,
            ``pool.partner``, ``shaping``, ``ppo.gamma``, ``seed``).
        pool: the run's :class:`~training.selfplay.OpponentPool`.
        kind: ``"vector"`` (default): a :class:`~training.vector_selfplay.SelfPlaySB3VecEnv` over
            ``n_envs`` batched games, the opponents' moves batched; ``"selfplay"``: the former
            ``DummyVecEnv`` of ``n_envs`` ``Monitor(SelfPlayEnv)`` (the benchmarks' "before").
        backend: ``"batched"`` (the game's batched core where it has one, else the reference) or
            ``"reference"``; for ``kind="vector"``.
    """
    from training.selfplay import SelfPlayEnv
    from training.vector_selfplay import SelfPlaySB3VecEnv, SelfPlayVectorEnv

    common = dict(
        env_kwargs=cfg["env_kwargs"],
        max_steps=cfg["max_steps"],
        partner=cfg["pool"]["partner"],
        seed_salt=cfg["seed"],
        shaping=cfg["shaping"],
        gamma=cfg["ppo"]["gamma"],
    )
    if kind == "selfplay":
        from stable_baselines3.common.monitor import Monitor
        from stable_baselines3.common.vec_env import DummyVecEnv

        vec_env: VecEnv = DummyVecEnv(
            [lambda: Monitor(SelfPlayEnv(cfg["env_id"], pool, **common)) for _ in range(cfg["n_envs"])]
        )
    elif kind == "vector":
        vec_env = SelfPlaySB3VecEnv(SelfPlayVectorEnv(cfg["env_id"], pool, cfg["n_envs"], backend=backend, **common))
    else:
        raise ValueError(f"kind must be 'vector' or 'selfplay', got {kind!r}")
    vec_env.seed(cfg["seed"])
    return vec_env


def train_in(
    cfg, out: Path, *, resume: str | None, progress_bar: bool, started: list, smoke: bool, address: str | None = None
) -> dict:
    """Train a config in the prepared run directory ``out`` (:meth:`training.engines.Engine.train_in`,
    called by :func:`training.runs.train`); appends to ``started`` when training proper begins
    (from then on a failure keeps the run's files). ``address`` is not used (no cluster).

    ``resume``: a checkpoint ``.zip`` to continue from: its weights, optimizer state and timestep
    count; the config's ``ppo`` hyperparameters replace the checkpoint's, and ``total_timesteps``
    counts the steps to add. The checkpoint's network must be the config's ``policy``, and the
    warm start (``pretrain``) is skipped. SB3 trains in whole rollouts, so the steps trained are
    ``total_timesteps`` rounded up to a multiple of ``n_steps * n_envs``."""
    import torch
    from sb3_contrib import MaskablePPO

    from training.selfplay import OpponentPool

    torch.set_num_threads(int(cfg["torch_threads"]))
    rollout = cfg["ppo"]["n_steps"] * cfg["n_envs"]  # SB3 trains whole rollouts (also when resuming)
    steps = math.ceil(cfg["total_timesteps"] / rollout) * rollout
    print(
        f"[run] directory {out} | env {cfg['env_id']} | {steps:,} timesteps to train"
        + (
            f" ({cfg['total_timesteps']:,} asked, rounded up to whole rollouts of {rollout:,})"
            if steps != cfg["total_timesteps"]
            else ""
        ),
        flush=True,
    )
    write_config(cfg, out)
    seed = cfg["seed"]
    pc = cfg["pool"]
    pool = OpponentPool(pc["baselines"], pc["baseline_prob"], pc["latest_prob"], pc["max_snapshots"], seed=seed)
    vec_env = training_env(cfg, pool)
    note = vec_env.venv.backend_note
    print(
        f"[run] {cfg['n_envs']} games stepped together, the opponents' moves batched | backend "
        f"{vec_env.venv.backend!r}" + (f" ({note})" if note else ""),
        flush=True,
    )
    pretrain_report = None
    if resume:
        try:
            model = MaskablePPO.load(resume, env=vec_env, device="cpu", custom_objects=cfg.ppo.to_dict())
        except (ValueError, KeyError, AssertionError) as e:
            raise ConfigError(f"cannot resume from {resume}: {e}") from None
        wanted = network(cfg)[0]
        differs = [
            f"{k}: the config's {_show(v)} vs the checkpoint's {_show(model.policy_kwargs.get(k))}"
            for k, v in wanted.items()
            if model.policy_kwargs.get(k) != v
        ]
        if differs:  # the checkpoint's network would be kept while config.yaml said another
            raise ConfigError(
                f"cannot resume from {resume}: the config's policy describes another network ("
                + "; ".join(differs)
                + "); resume with the config of the run that wrote it "
                "(its config.yaml)"
            )
        reset_num_timesteps = False
        if cfg["pretrain"]["teacher"] is not None:
            print("[pretrain] skipped: a resumed run continues its checkpoint", flush=True)
    else:
        model = build_model(cfg, vec_env, seed)
        reset_num_timesteps = True
        if cfg["pretrain"]["teacher"] is not None:  # behaviour-cloning warm start (not when resuming)
            from training.pretrain import pretrain

            pretrain_report = pretrain(model.policy, cfg, seed)
            (out / "pretrain.json").write_text(json.dumps(pretrain_report, indent=2))
            model.save(out / "checkpoints" / "pretrained.zip")  # the clone alone, before self-play
            print(f"[pretrain] {json.dumps(pretrain_report)}", flush=True)
    model.set_logger(make_logger(out / "logs"))
    pool.set_latest(model.policy)
    callback = make_callback(cfg, pool, out)
    start_timesteps = int(model.num_timesteps)
    seconds, how = estimate_train_seconds(model, training_env(cfg, pool), steps)
    print(
        f"[run] estimated training time: about {duration(seconds)} ({how}; an estimate: the progress bar "
        f"shows the live rate); then the final evaluation, {games(cfg['final_eval']['games'])} per pair",
        flush=True,
    )
    started.append(True)
    t0 = time.time()
    model.learn(
        total_timesteps=cfg["total_timesteps"],
        callback=callback,
        progress_bar=progress_bar,
        reset_num_timesteps=reset_num_timesteps,
    )
    train_seconds = time.time() - t0
    final = out / "checkpoints" / "final.zip"
    model.save(final)

    report, eval_seconds = final_report(cfg, final, out, callback.history)
    report.update(
        {
            "config": cfg["name"],
            "env_id": cfg["env_id"],
            "seed": seed,
            "timesteps": int(model.num_timesteps),
            "timesteps_this_run": int(model.num_timesteps) - start_timesteps,
            "resumed_from": resume,
            "train_seconds": round(train_seconds, 1),
            "eval_seconds": eval_seconds,
            "checkpoint": str(final),
            "pretrain": pretrain_report,
            "periodic_eval": callback.history,
            "smoke": bool(smoke),
            "budgets": cfg.budgets(pretrained=resume is None),
        }
    )
    return write_report(cfg, out, report, callback.history)


def _show(value) -> str:
    """A network setting for messages: a class by its name, anything else as ``repr``."""
    return value.__name__ if isinstance(value, type) else repr(value)


def estimate_train_seconds(model, probe_env, steps: int, probe_rounds: int = 8) -> tuple[float, str]:
    """Estimate how long ``model.learn`` takes for ``steps`` timesteps, by measuring on this machine.

    Two costs are measured and scaled to the run: collecting experience (``probe_rounds`` steps
    of ``probe_env``, a vectorised env like the training one, with the policy choosing the
    learner's moves and the opponents theirs), and one minibatch update (forward and backward
    pass of ``batch_size`` samples, gradients then discarded). A rollout of ``n_steps * n_envs``
    steps is followed by ``n_epochs * ceil(rollout / batch_size)`` updates. Nothing of the run
    changes: the probe uses its own envs, the policy's argmax (no random draw) and no optimizer
    step. It does not include the periodic evaluations and checkpoints; on a machine whose cores
    are shared the estimate is rougher.

    Args:
        model: the MaskablePPO model about to learn.
        probe_env: a vectorised env like the training one (:func:`training_env`; closed here).
        steps: the timesteps to train.
        probe_rounds: vectorised steps to time (each steps every env once).

    Returns:
        ``(seconds, how)``: the estimate and a short description of what was measured.
    """
    import torch
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.utils import obs_as_tensor

    n_envs, n_steps, batch = model.n_envs, model.n_steps, model.batch_size
    probe_env.seed(0)
    obs = probe_env.reset()
    samples, masks, actions = [], [], []
    t0 = time.perf_counter()
    for _ in range(probe_rounds):
        mask = get_action_masks(probe_env)
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        samples.append(obs)
        masks.append(mask)
        actions.append(action)
        obs, _, _, _ = probe_env.step(action)
    per_step = (time.perf_counter() - t0) / (probe_rounds * n_envs)
    probe_env.close()

    def take(parts):  # ``batch`` rows, cycling through the probe's rows
        rows = np.concatenate(parts)
        return rows[np.arange(batch) % len(rows)]

    obs_batch = (
        {k: take([o[k] for o in samples]) for k in samples[0]} if isinstance(samples[0], dict) else take(samples)
    )
    policy = model.policy
    policy.set_training_mode(False)  # (the policies have no dropout or batch norm; SB3 sets the mode itself)
    obs_t = obs_as_tensor(obs_batch, policy.device)
    act_t = torch.as_tensor(take(actions), device=policy.device)
    times = []
    for _ in range(2):  # the first pass warms up; the second is timed
        t1 = time.perf_counter()
        values, log_prob, entropy = policy.evaluate_actions(obs_t, act_t, action_masks=take(masks))
        (values.mean() + log_prob.mean() + entropy.mean()).backward()
        times.append(time.perf_counter() - t1)
    policy.optimizer.zero_grad(set_to_none=True)
    rollout = n_steps * n_envs
    updates = model.n_epochs * math.ceil(rollout / batch)
    seconds = math.ceil(steps / rollout) * (rollout * per_step + updates * times[-1])
    how = (
        f"measured here: {per_step * 1000:.1f} ms per step over {probe_rounds * n_envs} probe steps, "
        f"{times[-1] * 1000:.0f} ms per minibatch update, {updates} updates per rollout of {rollout:,} steps"
    )
    return seconds, how
