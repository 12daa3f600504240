"""Self-play training on Ray RLlib (PPO, new API stack): the ``engine: rllib`` half of ``training.train``.

``python -m training.train configs/ataxx_rllib.yaml`` (``--smoke``, ``--seed``, ``--out``,
``--resume DIR``, ``--timesteps``, ``--final-games``, ``--overwrite``) writes the same run
directory as an SB3 run:

* ``config.yaml``; ``logs/`` (``progress.csv`` and TensorBoard events, written as an SB3 run's
  by :class:`training.progress_log.ProgressLogger` without stable-baselines3: RLlib's losses, entropy,
  KL, explained variance, episode returns, sampled env steps/s, the pool's win-rate checks and
  the periodic evaluations under ``eval/``);
* ``checkpoints/step_<N>/`` and ``checkpoints/final/``: RLlib algorithm checkpoints
  (``Algorithm.save_to_path``: every module's weights, the optimizer, the env runners' state)
  plus ``tabletop_rl.json`` (the setting, the timesteps, the pool); each is an agent,
  ``rllib:<dir>`` (:class:`training.agents.rllib.RLlibAgent`);
* ``eval/``: the final tournament (:func:`training.runs.final_evaluation`);
  ``learning_curve.png``; ``report.json`` (the SB3 report's keys, plus ``engine``, ``pool`` and
  ``throughput``).

Self-play (:class:`training.engines.rllib.env.GameMultiAgentEnv`): ``main`` (the only module trained,
``policies_to_train=["main"]``) plays the learner's seat and its partners; opponents are drawn
per episode among ``main`` itself, the baselines (played inside the env) and the active
snapshot modules ``snapshot_0 .. snapshot_{K-1}`` (frozen RLModules, created with the
algorithm so that a checkpoint restores them). Every ``pool.check_every`` timesteps main plays
``pool.check_games`` separate evaluation games (on the driver, :func:`training.arena.head_to_head`,
main and the snapshots sampling their moves from the masked policy, as in training) against each
pool member (baselines and active snapshots); when its mean score reaches ``pool.win_rate`` its
weights are copied into the next snapshot slot (the oldest one is overwritten once all K are
used), which becomes drawable on every env runner.

Timesteps count main's own decisions (``num_module_steps_sampled`` of ``main``), as SB3 counts
the learner's; a training iteration samples ``rllib.train_batch_size`` env steps (all modules'
moves, not the baselines'), so a run trains whole iterations and may pass ``total_timesteps``.

Reproducibility under Ray: the run seed seeds RLlib (``debugging(seed=...)``: torch, numpy and
Python's ``random`` in the driver, every env runner and learner), every env's generator
(``SeedSequence([seed, worker, vector])``: deals, seats, line-ups, baseline moves), the pool
checks and periodic evaluations (seeded by the timestep) and the final tournament
(``10_000 + seed``). With ``num_env_runners: 0`` and ``num_learners: 0`` everything runs in the
driver process in a fixed order; the figures are then repeatable on one machine up to torch's
floating-point order (thread count). With remote env runners the order in which their samples
arrive, and so the train batches, depend on timing: such runs are not bit-reproducible. A
resumed run restores the weights, optimizer state, timestep count and pool, but not the
episodes in progress or the envs' generators.

Ray is started or joined by :func:`training.engines.rllib.cluster.start_ray`: a local instance of its own
by default (never an existing one by accident), the cluster at ``address`` when given
(``--address``), or the instance the caller already connected to. Before anything is built the
config's actors are checked against the cluster's resources and RLlib's validation runs, each
failure one line (:class:`~training.engines.rllib.cluster.ClusterError`). ``report.json``'s ``ray`` says
what was used (address, nodes, CPUs, GPUs) and ``throughput.env_steps_by_node`` how many env steps
each node sampled.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

from training.config import ConfigError, RunConfig
from training.progress_log import ProgressLogger
from training.runs import final_report, next_multiple, write_config, write_report

__all__ = ["start_ray", "build_config", "build_algorithm", "env_config", "as_dict", "train_in", "META_FILE"]

from training.agents.rllib import META_FILE  # noqa: E402
from training.engines.rllib.cluster import (
    apply_rllib_settings,
    check_resources,
    quiet_logs,
    record_sampling_node,
    start_ray,  # noqa: E402
    validate_algo_config,
)

#: The RLlib settings that :func:`build_config` takes from the config's own ``rllib`` keys (or sets
#: itself); ``rllib.settings`` may not set them again.
_SET_BY_KEYS = {
    "num_env_runners": "rllib.num_env_runners",
    "num_envs_per_env_runner": "rllib.num_envs_per_env_runner",
    "sample_timeout_s": "rllib.sample_timeout_s",
    "rollout_fragment_length": None,
    "num_learners": "rllib.num_learners",
    "num_gpus_per_learner": "rllib.num_gpus_per_learner",
    "train_batch_size_per_learner": "rllib.train_batch_size",
    "train_batch_size": "rllib.train_batch_size",
    "minibatch_size": "rllib.minibatch_size",
    "num_epochs": "rllib.num_epochs",
    "lr": "rllib.lr",
    "gamma": "rllib.gamma",
    "lambda_": "rllib.lambda",
    "lambda": "rllib.lambda",
    "clip_param": "rllib.clip_param",
    "entropy_coeff": "rllib.entropy_coeff",
    "vf_loss_coeff": "rllib.vf_loss_coeff",
    "vf_clip_param": "rllib.vf_clip_param",
    "grad_clip": "rllib.grad_clip",
    "grad_clip_by": None,
    "use_kl_loss": None,
}


def env_config(cfg: dict, seed: int) -> dict:
    """The ``env_config`` of :class:`~training.engines.rllib.env.GameMultiAgentEnv` for a config."""
    pool = cfg["pool"]
    return {
        "env_id": cfg["env_id"],
        "env_kwargs": dict(cfg["env_kwargs"]),
        "max_steps": cfg["max_steps"],
        "baselines": list(pool["baselines"]),
        "baseline_prob": pool["baseline_prob"],
        "latest_prob": pool["latest_prob"],
        "max_snapshots": pool["max_snapshots"],
        "partner": pool["partner"],
        "seed": seed,
    }


def build_algorithm(cfg: dict, seed: int | None = None):
    """The PPO algorithm of a config (:func:`build_config`), built.

    Returns:
        A ``ray.rllib.algorithms.ppo.PPO``.
    """
    return build_config(cfg, seed).build_algo()


def build_config(cfg, seed: int | None = None):
    """The ``PPOConfig`` of a config (an :class:`~training.engines.rllib.config.RLlibConfig` or its
    dict): modules ``main`` (trained) and the snapshot slots (frozen), the env
    (:func:`env_config`), env runners, learners and PPO's hyperparameters.

    Returns:
        A ``ray.rllib.algorithms.ppo.PPOConfig``.
    """
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from training.engines.rllib.env import MAIN, GameMultiAgentEnv, module_of, snapshot_ids
    from training.engines.rllib.module import module_spec

    cfg = as_dict(cfg)
    seed = cfg["seed"] if seed is None else seed
    r = cfg["rllib"]
    modules = [MAIN, *snapshot_ids(cfg["pool"]["max_snapshots"])]
    spec = module_spec(cfg)
    config = (
        PPOConfig()
        .environment(GameMultiAgentEnv, env_config=env_config(cfg, seed), disable_env_checking=True)
        .multi_agent(policies=set(modules), policy_mapping_fn=module_of, policies_to_train=[MAIN])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={m: spec for m in modules}))
        .env_runners(
            num_env_runners=r["num_env_runners"],
            num_envs_per_env_runner=r["num_envs_per_env_runner"],
            sample_timeout_s=r["sample_timeout_s"],
            rollout_fragment_length="auto",
        )
        .learners(num_learners=r["num_learners"], num_gpus_per_learner=r["num_gpus_per_learner"])
        .training(
            train_batch_size_per_learner=r["train_batch_size"],
            minibatch_size=r["minibatch_size"],
            num_epochs=r["num_epochs"],
            lr=r["lr"],
            gamma=r["gamma"],
            lambda_=r["lambda"],
            clip_param=r["clip_param"],
            entropy_coeff=r["entropy_coeff"],
            vf_loss_coeff=r["vf_loss_coeff"],
            vf_clip_param=r["vf_clip_param"],
            grad_clip=r["grad_clip"],
            grad_clip_by="global_norm",
            use_kl_loss=False,
        )
        .debugging(seed=seed, log_level="ERROR")
        .callbacks(on_sample_end=record_sampling_node)  # env steps by node (report.json throughput)
    )
    return apply_rllib_settings(config, r.get("settings") or {}, where="rllib.settings", reserved=_SET_BY_KEYS)


def as_dict(cfg) -> dict:
    """A config as plain data (RLlib ships its env and module configs to its actors as such)."""
    return cfg.to_dict() if isinstance(cfg, RunConfig) else cfg


def _set_pool(algo, names: list[str]) -> None:
    """Make the snapshot slots ``names`` drawable in every env of every env runner."""

    def apply(runner, names=tuple(names)):
        env = getattr(runner, "env", None)
        if env is not None:
            for e in env.envs:
                e.unwrapped.set_snapshots(list(names))
        return None

    algo.env_runner_group.foreach_env_runner(apply)


def _copy_module(algo, source: str, target: str) -> None:
    """Copy module ``source``'s weights into ``target`` on the learners and every env runner.

    The env runners get the weights directly: ``EnvRunnerGroup.sync_weights`` from the learners
    is skipped by an env runner whose weights sequence number is already the learners' (RLlib
    counts updates, and copying a module is none), which left the snapshot modules of the
    driver's env runner at their initial weights."""
    state = algo.get_module(source).get_state()
    algo.set_state({"learner_group": {"learner": {"rl_module": {target: state}}}})

    def put(runner, state=state):
        if getattr(runner, "module", None) is not None:
            runner.module[target].set_state(state)
        return None

    algo.env_runner_group.foreach_env_runner(put)


def _frozen_copy(cfg: dict, algo, module_id: str):
    """A driver-side copy of a module (eval mode), for the pool's evaluation games."""
    from training.engines.rllib.module import module_spec

    module = module_spec(cfg).build()
    module.set_state(algo.get_module(module_id).get_state())
    module.eval()
    return module


def _num(value) -> float:
    """A metric of RLlib's results as a float: 0 for a missing or NaN one (RLlib reports NaN for a
    count that had nothing to count in an iteration)."""
    try:
        value = float(value)
    except (TypeError, ValueError):
        return 0.0
    return value if math.isfinite(value) else 0.0


def _main_steps(result: dict) -> int:
    """Main's sampled timesteps in one training iteration's results."""
    steps = result.get("env_runners", {}).get("num_module_steps_sampled", {})
    return int(_num(steps.get("main"))) if isinstance(steps, dict) else 0


def _write_meta(cfg: dict, path: Path, t: int, pool_state: dict, seed: int) -> None:
    meta = {
        "env_id": cfg["env_id"],
        "env_kwargs": cfg["env_kwargs"],
        "max_steps": cfg["max_steps"],
        "config": cfg["name"],
        "seed": seed,
        "timesteps": t,
        "policy": cfg["policy"],
        "pool": pool_state,
    }
    (path / META_FILE).write_text(json.dumps(meta, indent=2))


def _save(algo, cfg: dict, path: Path, t: int, pool_state: dict, seed: int) -> Path:
    algo.save_to_path(str(path.resolve()))
    _write_meta(cfg, path, t, pool_state, seed)
    return path


def train_in(
    model: RunConfig,
    out: Path,
    resume: str | None,
    progress_bar: bool,
    started: list,
    smoke: bool,
    address: str | None = None,
) -> dict:
    """The body of :func:`training.runs.train` for an RLlib config, in the prepared run
    directory ``out``; appends to ``started`` when training proper begins. ``address``: the Ray
    cluster to join (:func:`training.engines.rllib.cluster.start_ray`; default a local instance)."""
    import torch

    from training.agents import make_agent
    from training.agents.rllib import ModuleAgent
    from training.arena import head_to_head
    from training.engines.rllib.env import MAIN, snapshot_ids

    torch.set_num_threads(int(model["torch_threads"]))
    cfg = as_dict(model)
    seed = cfg["seed"]
    meta: dict[str, Any] | None = None
    if resume:
        meta_file = Path(resume) / META_FILE
        if not meta_file.is_file():
            raise ConfigError(
                f"cannot resume from {resume}: not an RLlib checkpoint of training.train (no {META_FILE})"
            )
        meta = json.loads(meta_file.read_text())
        differs = [k for k in ("env_id", "env_kwargs", "policy") if meta.get(k) != cfg[k]]
        if meta.get("pool", {}).get("slots", cfg["pool"]["max_snapshots"]) != cfg["pool"]["max_snapshots"]:
            differs.append("pool.max_snapshots")
        if differs:
            raise ConfigError(
                f"cannot resume from {resume}: the config's {', '.join(differs)} differ from the "
                "checkpoint's; resume with the config of the run that wrote it (its config.yaml)"
            )
    write_config(model, out)
    quiet_logs()
    config = build_config(cfg, seed)  # rllib.settings checked by name
    validate_algo_config(config)  # RLlib's own checks, before Ray starts
    ray_info = start_ray(address)
    check_resources(config)  # Ray would wait forever for actors no node can hold
    algo = config.build_algo()
    slots = snapshot_ids(cfg["pool"]["max_snapshots"])
    pool_state: dict[str, Any] = {"slots": len(slots), "active": [], "added": 0, "names": {}}
    t = 0
    if resume:
        try:
            algo.restore_from_path(str(Path(resume).resolve()))
        except Exception as e:  # RLlib raises many kinds for a damaged or foreign checkpoint
            algo.stop()
            raise ConfigError(f"cannot resume from {resume}: {type(e).__name__}: {e}") from None
        assert meta is not None  # read above
        t = int(meta["timesteps"])
        pool_state = dict(meta["pool"])
        _set_pool(algo, pool_state["active"])
    start_t = t
    target = start_t + cfg["total_timesteps"]
    pc = cfg["pool"]
    baselines = {s: make_agent(s) for s in pc["baselines"]}
    # In the pool's checks main and the snapshots sample their moves, as they play in training (two
    # argmax players would repeat the same few games in a game without chance, and main's argmax
    # against sampling snapshots would win every game, admitting a snapshot at every check).
    snapshots = {
        slot: ModuleAgent(_frozen_copy(cfg, algo, slot), deterministic=False, name=pool_state["names"].get(slot, slot))
        for slot in pool_state["active"]
    }
    logger = ProgressLogger(out / "logs")  # SB3's files, without SB3
    history: list[dict] = []
    checks: list[dict] = []
    next_check = next_multiple(t, pc["check_every"])
    next_eval = next_multiple(t, cfg["eval"]["every"])
    next_ckpt = next_multiple(t, cfg["checkpoint_every"])
    common = dict(env_kwargs=cfg["env_kwargs"], max_steps=cfg["max_steps"])
    r = cfg["rllib"]
    print(
        f"[run] directory {out} | env {cfg['env_id']} | RLlib PPO | {cfg['total_timesteps']:,} timesteps of main to "
        f"train | {r['num_env_runners']} env runners x {r['num_envs_per_env_runner']} envs, "
        f"{r['train_batch_size']:,} env steps per iteration | Ray: "
        f"{'cluster at ' + ray_info.address if ray_info.joined else 'local instance'}, {ray_info.nodes} "
        f"node{'s' if ray_info.nodes != 1 else ''}, {ray_info.cpus:g} CPUs, {ray_info.gpus:g} GPUs",
        flush=True,
    )
    started.append(True)
    t0 = time.time()
    env_steps = episodes = 0
    by_node: dict[str, int] = {}
    sample_seconds = 0.0
    last_print = 0.0
    try:
        while t < target:
            result = algo.train()
            steps = _main_steps(result)
            if steps <= 0:
                raise RuntimeError(
                    "an RLlib training iteration sampled no timestep of main (sample_timeout_s too "
                    "short for the env runners?)"
                )
            t += steps
            er = result.get("env_runners", {})
            env_steps += int(_num(er.get("num_env_steps_sampled")))
            for node, n in (er.get("sampled_on_node") or {}).items():
                by_node[node] = by_node.get(node, 0) + int(_num(n))
            episodes += int(_num(er.get("num_episodes")))  # (NaN in an iteration where no episode ended)
            sample_seconds += _num(er.get("sample"))
            learner = result.get("learners", {}).get(MAIN, {})
            for key in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss", "vf_explained_var", "total_loss"):
                if key in learner:
                    logger.record(f"train/{key}", float(learner[key]))
            main_return = er.get("module_episode_returns_mean", {})
            if isinstance(main_return, dict) and MAIN in main_return:  # main's mean return per episode (all its seats)
                logger.record("rollout/main_return_mean", float(main_return[MAIN]))
            if "episode_len_mean" in er:
                logger.record("rollout/ep_len_mean", float(er["episode_len_mean"]))
            elapsed = time.time() - t0
            logger.record("time/env_steps_per_s", env_steps / max(elapsed, 1e-9))
            logger.record("time/timesteps", t)
            logger.record("pool/snapshots", len(pool_state["active"]))
            if t >= next_check:  # main against the pool in separate games: a snapshot when it wins enough
                next_check = next_multiple(t, pc["check_every"])
                agent = ModuleAgent(algo.get_module(MAIN), deterministic=False, name=MAIN)
                members = {**{s: a for s, a in baselines.items()}, **{a.name: a for a in snapshots.values()}}
                scores = {
                    name: head_to_head(cfg["env_id"], agent, member, pc["check_games"], seed=t, **common)["score"]
                    for name, member in members.items()
                }
                mean = sum(scores.values()) / len(scores)
                row = {"timesteps": t, "score": mean, "vs": scores, "added": None}
                if mean >= pc["win_rate"]:
                    slot = slots[pool_state["added"] % len(slots)]
                    _copy_module(algo, MAIN, slot)
                    name = f"snapshot_{t}"
                    pool_state["names"][slot] = name
                    if slot not in pool_state["active"]:
                        pool_state["active"].append(slot)
                    pool_state["added"] += 1
                    snapshots[slot] = ModuleAgent(_frozen_copy(cfg, algo, slot), deterministic=False, name=name)
                    _set_pool(algo, pool_state["active"])
                    row["added"] = name
                checks.append(row)
                logger.record("pool/win_rate", mean)
                print(f"[pool] {json.dumps(row)}", flush=True)
            if t >= next_ckpt:
                next_ckpt = next_multiple(t, cfg["checkpoint_every"])
                _save(algo, cfg, out / "checkpoints" / f"step_{t}", t, pool_state, seed)
            if t >= next_eval:
                next_eval = next_multiple(t, cfg["eval"]["every"])
                agent = ModuleAgent(algo.get_module(MAIN), name=MAIN)
                row = {"timesteps": t, "episodes": episodes}
                for spec in cfg["eval"]["opponents"]:
                    res = head_to_head(
                        cfg["env_id"], agent, make_agent(spec, seed=t), cfg["eval"]["games"], seed=t, **common
                    )
                    row[f"score_vs_{spec}"] = res["score"]
                    logger.record(f"eval/score_vs_{spec}", res["score"])
                history.append(row)
                print(f"[eval] {json.dumps(row)}", flush=True)
            logger.dump(step=t)
            if progress_bar and (time.time() - last_print > 20 or t >= target):
                last_print = time.time()
                print(
                    f"[train] {t - start_t:,}/{cfg['total_timesteps']:,} timesteps, {elapsed:.0f} s, "
                    f"{env_steps / max(elapsed, 1e-9):.0f} env steps/s",
                    flush=True,
                )
        train_seconds = time.time() - t0
        final = _save(algo, cfg, out / "checkpoints" / "final", t, pool_state, seed)
    finally:
        logger.close()
        algo.stop()
    report, eval_seconds = final_report(model, final, out, history, agent_spec=f"rllib:{final}")
    report.update(
        {
            "engine": "rllib",
            "config": cfg["name"],
            "env_id": cfg["env_id"],
            "seed": seed,
            "timesteps": t,
            "timesteps_this_run": t - start_t,
            "resumed_from": resume,
            "train_seconds": round(train_seconds, 1),
            "eval_seconds": eval_seconds,
            "checkpoint": str(final),
            "pretrain": None,
            "periodic_eval": history,
            "smoke": bool(smoke),
            "budgets": model.budgets(),
            "pool": {
                "snapshots_added": pool_state["added"],
                "active": [pool_state["names"][s] for s in pool_state["active"]],
                "checks": checks,
            },
            "throughput": {
                "env_steps_sampled": env_steps,
                "env_steps_per_s": round(env_steps / max(train_seconds, 1e-9), 1),
                "sampling_env_steps_per_s": round(env_steps / sample_seconds, 1) if sample_seconds > 0 else None,
                "env_steps_by_node": by_node,
            },
            "ray": {
                "address": ray_info.address,
                "joined": ray_info.joined,
                "nodes": ray_info.nodes,
                "cpus": ray_info.cpus,
                "gpus": ray_info.gpus,
            },
        }
    )
    return write_report(model, out, report, history)
