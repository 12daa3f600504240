"""Self-play training: MaskablePPO (sb3-contrib), or Ray RLlib's PPO for `engine: rllib` configs — the main job.

Usage::

    python -m training.train configs/ataxx_quick.yaml [--timesteps N] [--seed S] [--out DIR] [--resume CKPT.zip]
        [--final-games N] [--overwrite] [--no-progress] [--smoke]

    python -m training.train configs/tantrix_4p_quick.yaml --smoke   # every budget shrunk: seconds

    python -m training.train configs/ataxx_rllib.yaml [--address HOST:PORT|auto]   # Ray RLlib, local or a cluster

The YAML config holds every hyperparameter (see ``configs/ataxx_quick.yaml``, each key commented);
unknown keys are an error. The run directory (default ``runs/<config name>-<seed>``) receives:

* ``config.yaml`` — the resolved config, seed included;
* ``logs/`` — SB3 logs as CSV (``progress.csv``) and TensorBoard event files, with the periodic
  evaluation win rates under ``eval/``;
* ``checkpoints/step_<N>.zip`` — periodic checkpoints, and ``final.zip``; with a warm start also
  ``pretrained.zip``, the clone alone before self-play (0 timesteps), to measure what each step adds;
* ``eval/`` — the final evaluation: a round-robin tournament of the trained agent and the
  configured opponents (:mod:`training.tournament`: ``results.json``, ``pairs.csv``,
  ``ratings.csv``, ``ratings.png``);
* ``pretrain.json`` — when the config's ``pretrain.teacher`` is set: the behaviour-cloning warm
  start's figures (:mod:`training.pretrain`: decisions imitated, loss, held-out agreement);
* ``learning_curve.png`` — the periodic evaluation scores over timesteps (when at least one
  periodic evaluation ran);
* ``report.json`` — the trained agent's score against each opponent with 95% intervals, the
  ratings, the periodic evaluations, timings, the seed, and the run's budgets (``budgets``;
  ``smoke``: whether ``--smoke`` shrank them).

``--smoke`` (:func:`smoke_config`) shrinks every budget — one rollout of 64 timesteps, two
warm-start games, two games per periodic evaluation, one per pair in the final tournament,
every period one rollout — so that any config
runs end to end in seconds; ``tests/training/test_training.py`` smoke-runs every file in ``configs/``.

A config with ``engine: rllib`` (``configs/<game>_rllib.yaml``) trains on Ray RLlib instead, with
the same options and run directory: :mod:`training.rllib.trainer` (its keys:
:data:`training.rllib.config.RLLIB_DEFAULTS`; ``--resume`` then takes a checkpoint directory).

The learner plays a random seat of each game against opponents drawn from an
:class:`~training.selfplay.OpponentPool` (its own snapshots, its current policy, baselines), in
``n_envs`` games stepped together (:class:`~training.vector_selfplay.SelfPlayVectorEnv`: one
forward pass of each policy opponent for all the games where it is to move; the game's batched
core where it has one, else one rules state per game, said in the run's first lines).
With ``pretrain.teacher`` set, a new run (not a resumed one) first imitates that agent
(:mod:`training.pretrain`).

Reproducibility: the config's ``seed`` seeds every draw of a run: MaskablePPO's ``seed``
(Python's ``random``, numpy's global generator, which orders PPO's minibatches, and torch, which
samples the learner's actions), the games (game ``i`` gets ``seed + i``, mixed with ``seed`` as
:class:`~training.selfplay.SelfPlayEnv` does: deals, seats, opponent draws and every random
choice of the opponents; :class:`~training.vector_selfplay.SelfPlayVectorEnv`), the pool's baselines, the warm start
(:func:`training.pretrain.pretrain`), and the final tournament (``10_000 + seed``); periodic
evaluations are seeded by the timestep. With the same ``torch_threads``, machine and library
versions, two runs write byte-identical tensors in every checkpoint and identical evaluations
(``tests/training/test_determinism.py``); wall-clock figures differ. Another thread count, machine or
torch version may change the floating-point sums, and the runs then drift apart. A resumed run
repeats itself but differs from the uninterrupted one: games in progress, generator positions
and the pool's snapshots are not saved in a checkpoint.
"""

from __future__ import annotations

import argparse
import copy
import inspect
import json
import math
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from training.cli import require_extra

require_extra("train", "training.train", as_command=__name__ == "__main__")

import yaml  # noqa: E402  (after the check that names the missing extra)

from envs.core.records import is_int as _is_int  # noqa: E402

__all__ = ["DEFAULTS", "SMOKE", "ConfigError", "load_config", "validate_config", "smoke_config", "budgets",
           "prepare_out_dir", "train", "estimate_train_seconds", "final_evaluation", "plot_learning_curve", "main"]

#: Every config key with its default; a config may override any of them and nothing else.
DEFAULTS: dict = {
    "env_id": None,  # required: every config names its environment
    "env_kwargs": {},
    "max_steps": 400,
    "seed": 0,
    "total_timesteps": 200_000,
    "n_envs": 8,
    "torch_threads": 1,
    "shaping": 0.0,
    "policy": {
        "features": "board_cnn",
        "features_kwargs": {"channels": 64, "blocks": 3},
        "head": "spatial",
        "value_head": "dense",
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
    "pretrain": {"teacher": None, "games": 200, "epochs": 4, "batch_size": 256, "learning_rate": 1.0e-3},
    "eval": {"every": 50_000, "games": 20, "opponents": ["random", "greedy"]},
    "checkpoint_every": 50_000,
    "final_eval": {"games": 200, "opponents": ["random", "greedy"]},
}


#: The budgets of a smoke run (``--smoke``, :func:`smoke_config`): one rollout of ``n_envs *
#: n_steps`` timesteps, two warm-start games, two games per periodic evaluation, one game per
#: pair (or group) in the final tournament, whose search opponents (``mcts:200``) cost most.
SMOKE: dict = {"n_envs": 2, "n_steps": 32, "n_epochs": 1, "pretrain_games": 2, "pretrain_epochs": 1,
               "eval_games": 2, "final_games": 1}


def smoke_config(cfg: dict) -> dict:
    """A copy of ``cfg`` with every budget shrunk to :data:`SMOKE`, so that any config runs end to
    end (warm start, training, snapshots, periodic evaluation, checkpoints, final tournament,
    report) in seconds: a check that the config and the code work, not a training run.

    What shrinks: ``n_envs`` and ``ppo.n_steps`` (one rollout of ``n_envs * n_steps`` = 64
    timesteps is ``total_timesteps``; ``ppo.batch_size`` at most that, ``ppo.n_epochs`` 1), the
    warm start's ``pretrain.games`` and ``pretrain.epochs``, ``eval.games`` and
    ``final_eval.games``; ``pool.snapshot_every``, ``eval.every`` and ``checkpoint_every``
    become the one rollout, so each fires once. Everything else stays as configured: the
    environment and its kwargs (Tantrix's window radius too), the network, the opponents (search
    agents included, with those few games), ``max_steps`` and the seed.

    Args:
        cfg: a config from :func:`load_config` (not modified).

    Returns:
        The shrunk config.
    """
    if cfg.get("engine") == "rllib":
        from training.rllib.config import smoke_config as rllib_smoke

        return rllib_smoke(cfg)
    out = copy.deepcopy(cfg)
    rollout = SMOKE["n_envs"] * SMOKE["n_steps"]
    out["n_envs"] = SMOKE["n_envs"]
    out["total_timesteps"] = rollout
    out["checkpoint_every"] = rollout
    ppo = out["ppo"]
    ppo["n_steps"] = SMOKE["n_steps"]
    ppo["n_epochs"] = SMOKE["n_epochs"]
    if _is_int(ppo["batch_size"]):
        ppo["batch_size"] = min(ppo["batch_size"], rollout)
    out["pool"]["snapshot_every"] = rollout
    out["pretrain"]["games"] = SMOKE["pretrain_games"]
    out["pretrain"]["epochs"] = SMOKE["pretrain_epochs"]
    out["eval"]["every"] = rollout
    out["eval"]["games"] = SMOKE["eval_games"]
    out["final_eval"]["games"] = SMOKE["final_games"]
    return out


def budgets(cfg: dict, pretrained: bool = True) -> dict:
    """The budgets of a config, as ``report.json`` records them: ``total_timesteps``,
    ``n_envs``, ``n_steps``, ``pretrain_games`` (``None`` without a warm start, or when
    ``pretrained`` is false: a resumed run), ``eval_every``, ``eval_games``, ``final_games`` (an
    RLlib config: :func:`training.rllib.config.budgets`)."""
    if cfg.get("engine") == "rllib":
        from training.rllib.config import budgets as rllib_budgets

        return rllib_budgets(cfg)
    return {"total_timesteps": cfg["total_timesteps"], "n_envs": cfg["n_envs"], "n_steps": cfg["ppo"]["n_steps"],
            "pretrain_games": cfg["pretrain"]["games"] if pretrained and cfg["pretrain"]["teacher"] else None,
            "eval_every": cfg["eval"]["every"], "eval_games": cfg["eval"]["games"],
            "final_games": cfg["final_eval"]["games"]}


def _merge(base: dict, override: dict, path: str = "") -> dict:
    out = copy.deepcopy(base)
    for k, v in override.items():
        where = f"{path}{k}"
        if k not in base:
            hint = ("; any other RLlib setting goes under rllib.settings, by its RLlib name"
                    if path == "rllib." and "settings" in base else "")
            raise ValueError(f"unknown config key {where!r}; known keys here: {', '.join(sorted(base))}{hint}")
        if isinstance(base[k], dict) and k not in ("env_kwargs", "features_kwargs", "net_arch", "settings"):
            if not isinstance(v, dict):
                raise ValueError(f"config key {where!r} must be a mapping, got {type(v).__name__}")
            out[k] = _merge(base[k], v, where + ".")
        else:
            out[k] = v
    return out


def load_config(path: str | Path, *, validate: bool = True, check_teacher: bool = True, **overrides) -> dict:
    """Read a YAML config and merge it over :data:`DEFAULTS`.

    ``overrides`` (e.g. ``total_timesteps=...``, ``seed=...``) replace top-level keys when not
    ``None``. The merged config is then checked by :func:`validate_config` unless ``validate`` is
    false (the CLI passes it straight to :func:`train`, which checks it itself: validating builds
    the environment and every agent, so it is done once). ``check_teacher=False`` (a resumed run,
    which never uses it) skips building ``pretrain.teacher``.

    Raises:
        FileNotFoundError: no such file. ValueError: not a YAML mapping, an empty config (no key,
        or only ``name``), an unknown key or a section that is not a mapping; with ``validate``,
        also a bad value (:class:`ConfigError`).
    """
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"config file {p} does not exist")
    if not p.is_file():
        raise ValueError(f"config path {p} is not a file")
    try:
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as e:
        raise ValueError(f"{p} is not valid YAML: {e}") from None
    if not isinstance(data, dict) and data is not None:
        raise ValueError(f"{p}: the config must be a YAML mapping, got {type(data).__name__}")
    if not data or set(data) == {"name"}:
        raise ValueError(f"{p} sets nothing (an empty file, only comments, or an empty mapping); a config sets "
                         "at least env_id and what differs from the defaults: see configs/ataxx_quick.yaml")
    name = data.pop("name", p.stem)  # a run's resolved config.yaml carries the name of its config
    if not isinstance(name, str) or not name:
        raise ValueError(f"{p}: config key 'name' must be a non-empty string, got {name!r}")
    engine = data.pop("engine", "sb3")
    if engine not in ("sb3", "rllib"):
        raise ValueError(f"{p}: config key 'engine' must be 'sb3' (the default: MaskablePPO) or 'rllib' (Ray RLlib), "
                         f"got {engine!r}")
    if engine == "rllib":  # the RLlib trainer's keys (training/rllib/config.py)
        from training.rllib.config import RLLIB_DEFAULTS

        cfg = _merge({**RLLIB_DEFAULTS, "policy": DEFAULTS["policy"]}, data)  # one network section for both engines
    else:
        cfg = _merge(DEFAULTS, data)
    for k, v in overrides.items():
        if v is not None:
            cfg[k] = v
    cfg["name"] = name
    if validate:
        validate_config(cfg, check_teacher=check_teacher)
    return cfg


class ConfigError(ValueError):
    """A bad config value, run directory or checkpoint to resume from (raised before training)."""


def _require(cond: bool, key: str, expected: str, value) -> None:
    if not cond:
        raise ConfigError(f"config {key!r} must be {expected}, got {value!r}")


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def validate_config(cfg: dict, check_teacher: bool = True) -> None:
    """Check every value of a merged config before anything runs.

    Builds the environment and every agent spec once, so a typo fails here and not hours into a
    run. With ``check_teacher=False`` (a resumed run: the warm start is skipped) ``pretrain.teacher``
    must still be null or a string, but is not built, so a teacher checkpoint that has since been
    moved does not block resuming.

    Raises:
        ConfigError (a ``ValueError``): the first bad value, naming its key and what was expected.
    """
    from envs.registry import env_ids, spec
    from training.agents import make_agent
    from training.features import FEATURE_EXTRACTORS, extractor_kwargs

    rllib = cfg.get("engine") == "rllib"  # an RLlib config: its own sections checked at the end
    _require(isinstance(cfg["env_id"], str) and cfg["env_id"] != "", "env_id",
             f"a registered environment id ({', '.join(env_ids())})", cfg["env_id"])
    for key in ("total_timesteps", "torch_threads", "checkpoint_every") + (() if rllib else ("n_envs",)):
        _require(_is_int(cfg[key]) and cfg[key] >= 1, key, "a positive integer", cfg[key])
    _require(_is_int(cfg["seed"]) and cfg["seed"] >= 0, "seed", "a non-negative integer", cfg["seed"])
    _require(cfg["max_steps"] is None or (_is_int(cfg["max_steps"]) and cfg["max_steps"] >= 1), "max_steps",
             "null or a positive integer", cfg["max_steps"])
    _require(isinstance(cfg["env_kwargs"], dict), "env_kwargs", "a mapping", cfg["env_kwargs"])
    _require("render_mode" not in cfg["env_kwargs"], "env_kwargs.render_mode",
             "absent (training draws nothing; watch a checkpoint with python -m training.play)",
             cfg["env_kwargs"].get("render_mode"))
    shaping = cfg.get("shaping", 0.0)  # (not a key of RLlib configs)
    _require(_is_num(shaping) and shaping >= 0, "shaping", "a number >= 0 (0: no reward shaping)", shaping)
    try:  # the registry checks the id and the kwargs (its messages, prefixed with the config keys)
        probe = spec(cfg["env_id"]).make_raw(**{**cfg["env_kwargs"], "max_steps": cfg["max_steps"]})
    except ValueError as e:
        raise ConfigError(f"config env_id/env_kwargs: {e}") from None

    if _is_num(shaping) and shaping > 0:
        probe.reset(seed=0)
        if probe.state.heuristics() is None:
            raise ConfigError(f"config 'shaping' needs a game heuristic: {cfg['env_id']} declares none "
                              "(GameInfo.heuristics)")

    if not rllib:
        ppo = cfg["ppo"]
        for key in ("n_steps", "n_epochs"):
            _require(_is_int(ppo[key]) and ppo[key] >= 1, f"ppo.{key}", "a positive integer", ppo[key])
        rollout = ppo["n_steps"] * cfg["n_envs"]
        _require(_is_int(ppo["batch_size"]) and 2 <= ppo["batch_size"] <= rollout, "ppo.batch_size",
                 f"an integer in [2, n_steps * n_envs = {rollout}]", ppo["batch_size"])
        for key in ("learning_rate", "clip_range", "max_grad_norm"):
            _require(_is_num(ppo[key]) and ppo[key] > 0, f"ppo.{key}", "a positive number"
                     + (" (YAML reads 3e-4 as text: write 3.0e-4)" if isinstance(ppo[key], str) else ""), ppo[key])
        for key in ("gamma", "gae_lambda"):
            _require(_is_num(ppo[key]) and 0 < ppo[key] <= 1, f"ppo.{key}", "a number in (0, 1]", ppo[key])
        for key in ("ent_coef", "vf_coef"):
            _require(_is_num(ppo[key]) and ppo[key] >= 0, f"ppo.{key}", "a non-negative number", ppo[key])

    pol = cfg["policy"]
    _require(isinstance(pol["features"], str) and pol["features"] in FEATURE_EXTRACTORS, "policy.features",
             f"one of {sorted(FEATURE_EXTRACTORS)}", pol["features"])
    _require(pol["head"] in ("spatial", "factored", "linear"), "policy.head", "'spatial', 'factored' or 'linear'",
             pol["head"])
    _require(pol["value_head"] in ("dense", "pooled"), "policy.value_head", "'dense' or 'pooled'", pol["value_head"])
    _require(pol["value_head"] == "dense" or pol["head"] != "linear", "policy.value_head",
             "'dense' with head 'linear' (the pooled value trunk needs the spatial policy)", pol["value_head"])
    _require(pol["value_head"] == "dense" or (isinstance(pol["net_arch"], dict) and pol["net_arch"].get("vf")),
             "policy.net_arch", "a non-empty vf list with value_head 'pooled' (e.g. {pi: [], vf: [64]})",
             pol["net_arch"])
    fe_params = [n for n in inspect.signature(FEATURE_EXTRACTORS[pol["features"]].__init__).parameters
                 if n not in ("self", "observation_space")]
    _require(isinstance(pol["features_kwargs"], dict) and set(pol["features_kwargs"]) <= set(fe_params),
             "policy.features_kwargs", f"a mapping with keys among {fe_params}", pol["features_kwargs"])
    layout = probe.action_layout()
    _require(pol["head"] == "linear" or layout is not None, "policy.head",
             f"'linear' for {cfg['env_id']} (its actions have no grid layout for a spatial head)", pol["head"])
    _require(pol["head"] != "factored" or layout.factored, "policy.head",
             f"'spatial' or 'linear' for {cfg['env_id']} (its action layout describes no planes for a factored "
             f"head)", pol["head"])
    if pol["head"] != "linear":
        default = inspect.signature(FEATURE_EXTRACTORS[pol["features"]].__init__).parameters["features_dim"].default
        fdim = pol["features_kwargs"].get("features_dim", 0)
        _require(fdim == 0, "policy.features_kwargs.features_dim",
                 f"0 or absent with head {pol['head']!r} (it reads the whole convolution map; {pol['features']} "
                 f"defaults to {default} for a linear head)", fdim)
        if "board_key" in pol["features_kwargs"]:
            _require(pol["features_kwargs"]["board_key"] == layout.obs_key, "policy.features_kwargs.board_key",
                     f"absent or {layout.obs_key!r} (the observation entry {cfg['env_id']}'s action layout lies on)",
                     pol["features_kwargs"]["board_key"])
    kwargs = extractor_kwargs(pol, layout)
    space = probe.observation_space(probe.possible_agents[0])["observation"]
    try:  # the extractor must be able to read this game's observation
        FEATURE_EXTRACTORS[pol["features"]](space, **kwargs)
    except (ValueError, TypeError, KeyError, AssertionError) as e:
        raise ConfigError(f"config 'policy.features' {pol['features']!r} cannot read the observation of "
                          f"{cfg['env_id']}: {e}") from None
    arch = pol["net_arch"]
    _require(isinstance(arch, dict) and set(arch) <= {"pi", "vf"}
             and all(isinstance(v, list) and all(_is_int(u) and u >= 1 for u in v) for v in arch.values()),
             "policy.net_arch", "a mapping {pi: [sizes], vf: [sizes]} of positive integers", arch)

    pool = cfg["pool"]
    pre = cfg.get("pretrain") or {"teacher": None}
    if not rllib:
        for key in ("max_snapshots", "snapshot_every"):
            _require(_is_int(pool[key]) and pool[key] >= 1, f"pool.{key}", "a positive integer", pool[key])
        for key in ("baseline_prob", "latest_prob"):
            _require(_is_num(pool[key]) and 0 <= pool[key] <= 1, f"pool.{key}", "a probability in [0, 1]", pool[key])
        _require(pool["baseline_prob"] + pool["latest_prob"] <= 1 + 1e-9, "pool.baseline_prob + pool.latest_prob",
                 "at most 1", pool["baseline_prob"] + pool["latest_prob"])
        _require(pool["partner"] in ("latest", "pool"), "pool.partner", "'latest' or 'pool'", pool["partner"])
        _require(pre["teacher"] is None or isinstance(pre["teacher"], str), "pretrain.teacher",
                 "null (no warm start) or an agent spec", pre["teacher"])
        for key in ("games", "epochs", "batch_size"):
            _require(_is_int(pre[key]) and pre[key] >= 1, f"pretrain.{key}", "a positive integer", pre[key])
        _require(_is_num(pre["learning_rate"]) and 0 < pre["learning_rate"] <= 1, "pretrain.learning_rate",
                 "a number in (0, 1]" + (" (YAML reads 1e-3 as text: write 1.0e-3)" if isinstance(pre["learning_rate"], str)
                                         else ""), pre["learning_rate"])
    for section in ("eval", "final_eval"):
        games = cfg[section]["games"]
        _require(_is_int(games) and games >= 1, f"{section}.games", "a positive integer", games)
        _require(isinstance(cfg[section]["opponents"], list) and cfg[section]["opponents"], f"{section}.opponents",
                 "a non-empty list of agent specs", cfg[section]["opponents"])
    _require(_is_int(cfg["eval"]["every"]) and cfg["eval"]["every"] >= 1, "eval.every", "a positive integer",
             cfg["eval"]["every"])
    teacher = [pre["teacher"]] if isinstance(pre["teacher"], str) and check_teacher else []
    for key, specs in (("pretrain.teacher", teacher), ("pool.baselines", pool["baselines"]),
                       ("eval.opponents", cfg["eval"]["opponents"]),
                       ("final_eval.opponents", cfg["final_eval"]["opponents"])):
        _require(isinstance(specs, list), key, "a list of agent specs", specs)
        for spec in specs:
            try:
                agent = make_agent(spec)
            except (ValueError, FileNotFoundError) as e:
                raise ConfigError(f"config {key!r}: {e}") from None
            # it must be able to play this game (alpha-beta: two sides; a checkpoint: its shapes; a game's
            # own agent: that game), or the run would stop at its first game with it, perhaps hours in
            probe.reset(seed=0)
            try:
                agent.check_env(probe)
            except ValueError as e:
                raise ConfigError(f"config {key!r} {spec!r} cannot play {cfg['env_id']} with these "
                                  f"env_kwargs: {e}") from None
    if rllib:
        from training.rllib.config import validate_rllib

        validate_rllib(cfg, probe)


def _network(cfg: dict) -> tuple[dict, object]:
    """The network the config's ``policy`` describes, as SB3 ``policy_kwargs`` (the feature
    extractor's class and kwargs, ``net_arch``), and the environment's :class:`ActionLayout`."""
    from envs.registry import spec
    from training.features import extractor_kwargs
    from training.sb3_policy import FEATURE_EXTRACTORS

    pol = cfg["policy"]
    layout = spec(cfg["env_id"]).make_raw(**cfg["env_kwargs"]).action_layout()
    return {
        "features_extractor_class": FEATURE_EXTRACTORS[pol["features"]],
        "features_extractor_kwargs": extractor_kwargs(pol, layout),
        "net_arch": dict(pol["net_arch"]),
    }, layout


def _build_model(cfg: dict, vec_env, seed: int):
    from sb3_contrib import MaskablePPO

    from training.sb3_policy import SpatialMaskablePolicy

    pol = cfg["policy"]  # checked by validate_config
    policy_kwargs, layout = _network(cfg)
    import gymnasium as gym

    dict_obs = isinstance(vec_env.observation_space, gym.spaces.Dict)
    policy = "MultiInputPolicy" if dict_obs else "MlpPolicy"
    if pol["head"] in ("spatial", "factored"):
        policy = SpatialMaskablePolicy
        policy_kwargs["action_layout"] = layout
        policy_kwargs["value_head"] = pol["value_head"]
    return MaskablePPO(
        policy, vec_env, policy_kwargs=policy_kwargs, seed=seed, verbose=0, device="cpu",
        **cfg["ppo"],
    )


def _next_multiple(t: int, period: int) -> int:
    """The first multiple of ``period`` strictly after ``t``."""
    return (t // period + 1) * period


def _make_callback(cfg, pool, out: Path):
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
            self.next_snapshot = _next_multiple(t, cfg["pool"]["snapshot_every"])
            self.next_eval = _next_multiple(t, cfg["eval"]["every"])
            self.next_ckpt = _next_multiple(t, cfg["checkpoint_every"])

        def _on_step(self) -> bool:
            t = self.num_timesteps
            for info in self.locals.get("infos", []):
                if "returns" in info:
                    self.episodes += 1
            if t >= self.next_snapshot:
                pool.add_snapshot(self.model.policy, f"snapshot_{t}")
                self.next_snapshot = _next_multiple(t, cfg["pool"]["snapshot_every"])
            if t >= self.next_ckpt:
                self.model.save(out / "checkpoints" / f"step_{t}.zip")
                self.next_ckpt = _next_multiple(t, cfg["checkpoint_every"])
            if t >= self.next_eval:
                self.next_eval = _next_multiple(t, cfg["eval"]["every"])
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
            self.history.append(row)
            # Recorded values go out with SB3's next log row (no dump here: that would flush the
            # previous update's train/* values into this row).
            print(f"[eval] {json.dumps(row)}", flush=True)
            return row

    return SelfPlayCallback()


def prepare_out_dir(out: Path, overwrite: bool = False) -> None:
    """Make ``out`` an empty run directory.

    Raises:
        ConfigError (a ``ValueError``): ``out`` is a file, cannot be created or written
            (:func:`training.cli.ensure_writable_dir`), or is a non-empty folder and ``overwrite``
            is false (files of an earlier run would mix with this one's: old checkpoints, two
            TensorBoard logs).
    """
    from training.cli import ensure_writable_dir

    out = Path(out)
    if out.is_dir() and any(out.iterdir()):
        if not overwrite:
            raise ConfigError(f"run directory {out} is not empty (an earlier run?): choose another --out, "
                             "or pass --overwrite to delete it first")
        shutil.rmtree(out)
    try:
        ensure_writable_dir(out, "run directory")  # the same check (and message) as every output folder
    except ValueError as e:
        raise ConfigError(str(e)) from None


def train(cfg: dict, out: Path, resume: str | None = None, progress_bar: bool = True,
          overwrite: bool = False, smoke: bool = False, address: str | None = None) -> dict:
    """Run self-play training and the final evaluation; return the report dict.

    Args:
        cfg: a config from :func:`load_config`.
        out: the run directory (must be empty or absent; see ``overwrite``).
        resume: a checkpoint ``.zip`` to continue from: its weights, optimizer state and timestep
            count; the config's ``ppo`` hyperparameters replace the checkpoint's, and
            ``total_timesteps`` counts the steps to add. The network (``policy``) is the
            checkpoint's, whatever the config says, and the warm start (``pretrain``) is
            skipped. SB3 trains in whole rollouts, so the steps trained are
            ``total_timesteps`` rounded up to a multiple of ``n_steps * n_envs``.
        progress_bar: show SB3's progress bar.
        overwrite: delete a non-empty ``out`` first.
        smoke: only recorded in the report (``"smoke"``); the caller shrinks ``cfg`` with
            :func:`smoke_config`.
        address: an RLlib config only: the Ray cluster to join (``"HOST:PORT"`` or ``"auto"``,
            :func:`training.rllib.cluster.start_ray`); default a local Ray instance of its own.

    Returns:
        The report (also written to ``out/report.json``): ``vs`` and ``ratings`` (from
        :func:`final_evaluation`), ``config``, ``env_id``, ``seed``, ``timesteps``,
        ``timesteps_this_run``, ``resumed_from``, ``train_seconds``, ``eval_seconds``,
        ``checkpoint``, ``pretrain``, ``periodic_eval``, ``smoke`` and ``budgets``
        (:func:`budgets`).

    A start that fails (a checkpoint that cannot be resumed, an error in the warm start, an
    interrupt before training proper begins) leaves nothing behind: the run directory is
    removed if this call created it, emptied otherwise, so the same command can be run again.
    Once training proper has begun, checkpoints and logs are kept whatever happens.

    Raises:
        FileNotFoundError: ``resume`` does not exist. ValueError: a bad config or ``out``, or a
        checkpoint that cannot be resumed with this config (:class:`ConfigError`).
    """
    validate_config(cfg, check_teacher=resume is None)
    rllib = cfg.get("engine") == "rllib"
    if address is not None and not rllib:
        raise ConfigError("--address joins a Ray cluster: it is for RLlib configs (engine: rllib); an SB3 run "
                          "trains in this process")
    if rllib:
        from training.rllib.cluster import require_rllib

        require_rllib("training.train with an RLlib config")
    if resume and not (Path(resume).is_dir() if rllib else Path(resume).is_file()):
        raise FileNotFoundError(f"checkpoint to resume from {resume} does not exist"
                                + (" (an RLlib run resumes from a checkpoint directory)" if rllib else ""))
    created = not out.exists()
    prepare_out_dir(out, overwrite)
    started = []  # _train_in appends once training proper begins
    try:
        if rllib:  # the same run directory, written by the RLlib trainer
            from training.rllib.trainer import train_in as rllib_train_in

            return rllib_train_in(cfg, out, resume, progress_bar, started, smoke, address=address)
        return _train_in(cfg, out, resume, progress_bar, started, smoke)
    except BaseException:
        if not started:  # a failed start (bad checkpoint, warm start, Ctrl-C...) leaves nothing
            if created:
                shutil.rmtree(out, ignore_errors=True)
            else:
                for child in out.iterdir():
                    shutil.rmtree(child) if child.is_dir() else child.unlink()
        raise


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

    common = dict(env_kwargs=cfg["env_kwargs"], max_steps=cfg["max_steps"], partner=cfg["pool"]["partner"],
                  seed_salt=cfg["seed"], shaping=cfg["shaping"], gamma=cfg["ppo"]["gamma"])
    if kind == "selfplay":
        from stable_baselines3.common.monitor import Monitor
        from stable_baselines3.common.vec_env import DummyVecEnv

        vec_env = DummyVecEnv([lambda: Monitor(SelfPlayEnv(cfg["env_id"], pool, **common))
                               for _ in range(cfg["n_envs"])])
    elif kind == "vector":
        vec_env = SelfPlaySB3VecEnv(SelfPlayVectorEnv(cfg["env_id"], pool, cfg["n_envs"], backend=backend, **common))
    else:
        raise ValueError(f"kind must be 'vector' or 'selfplay', got {kind!r}")
    vec_env.seed(cfg["seed"])
    return vec_env


def _train_in(cfg: dict, out: Path, resume: str | None, progress_bar: bool, started: list, smoke: bool) -> dict:
    """The body of :func:`train`, in the prepared run directory ``out``; appends to ``started``
    when training proper begins (from then on a failure keeps the run's files)."""
    import torch
    from sb3_contrib import MaskablePPO

    from training.selfplay import OpponentPool

    torch.set_num_threads(int(cfg["torch_threads"]))
    rollout = cfg["ppo"]["n_steps"] * cfg["n_envs"]  # SB3 trains whole rollouts (also when resuming)
    steps = math.ceil(cfg["total_timesteps"] / rollout) * rollout
    print(f"[run] directory {out} | env {cfg['env_id']} | {steps:,} timesteps to train"
          + (f" ({cfg['total_timesteps']:,} asked, rounded up to whole rollouts of {rollout:,})"
             if steps != cfg["total_timesteps"] else ""), flush=True)
    (out / "checkpoints").mkdir(exist_ok=True)
    (out / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    seed = cfg["seed"]
    pc = cfg["pool"]
    pool = OpponentPool(pc["baselines"], pc["baseline_prob"], pc["latest_prob"], pc["max_snapshots"], seed=seed)
    vec_env = training_env(cfg, pool)
    note = vec_env.venv.backend_note
    print(f"[run] {cfg['n_envs']} games stepped together, the opponents' moves batched | backend "
          f"{vec_env.venv.backend!r}" + (f" ({note})" if note else ""), flush=True)
    pretrain_report = None
    if resume:
        try:
            model = MaskablePPO.load(resume, env=vec_env, device="cpu", custom_objects=dict(cfg["ppo"]))
        except (ValueError, KeyError, AssertionError) as e:
            raise ConfigError(f"cannot resume from {resume}: {e}") from None
        wanted = _network(cfg)[0]
        differs = [f"{k}: the config's {_show(v)} vs the checkpoint's {_show(model.policy_kwargs.get(k))}"
                   for k, v in wanted.items() if model.policy_kwargs.get(k) != v]
        if differs:  # the checkpoint's network would be kept while config.yaml said another
            raise ConfigError(f"cannot resume from {resume}: the config's policy describes another network ("
                              + "; ".join(differs) + "); resume with the config of the run that wrote it "
                              "(its config.yaml)")
        reset_num_timesteps = False
        if cfg["pretrain"]["teacher"] is not None:
            print("[pretrain] skipped: a resumed run continues its checkpoint", flush=True)
    else:
        model = _build_model(cfg, vec_env, seed)
        reset_num_timesteps = True
        if cfg["pretrain"]["teacher"] is not None:  # behaviour-cloning warm start (not when resuming)
            from training.pretrain import pretrain

            pretrain_report = pretrain(model.policy, cfg, seed)
            (out / "pretrain.json").write_text(json.dumps(pretrain_report, indent=2))
            model.save(out / "checkpoints" / "pretrained.zip")  # the clone alone, before self-play
            print(f"[pretrain] {json.dumps(pretrain_report)}", flush=True)
    model.set_logger(_make_logger(out / "logs"))
    pool.set_latest(model.policy)
    callback = _make_callback(cfg, pool, out)
    start_timesteps = int(model.num_timesteps)
    seconds, how = estimate_train_seconds(model, training_env(cfg, pool), steps)
    print(f"[run] estimated training time: about {_duration(seconds)} ({how}; an estimate: the progress bar "
          f"shows the live rate); then the final evaluation, {_games(cfg['final_eval']['games'])} per pair", flush=True)
    started.append(True)
    t0 = time.time()
    model.learn(total_timesteps=cfg["total_timesteps"], callback=callback, progress_bar=progress_bar,
                reset_num_timesteps=reset_num_timesteps)
    train_seconds = time.time() - t0
    final = out / "checkpoints" / "final.zip"
    model.save(final)

    if not callback.history:
        print(f"[eval] no periodic evaluation: the run is shorter than eval.every = {cfg['eval']['every']} "
              "timesteps, so no learning_curve.png", flush=True)
    print(f"[final_eval] {_games(cfg['final_eval']['games'])} per pair of the trained agent and "
          f"{', '.join(cfg['final_eval']['opponents'])} (--final-games to change)", flush=True)
    t1 = time.time()
    report = final_evaluation(cfg, final, out / "eval")
    report.update({
        "config": cfg["name"], "env_id": cfg["env_id"], "seed": seed, "timesteps": int(model.num_timesteps),
        "timesteps_this_run": int(model.num_timesteps) - start_timesteps, "resumed_from": resume,
        "train_seconds": round(train_seconds, 1), "eval_seconds": round(time.time() - t1, 1),
        "checkpoint": str(final), "pretrain": pretrain_report, "periodic_eval": callback.history,
        "smoke": bool(smoke), "budgets": budgets(cfg, pretrained=resume is None),
    })
    (out / "report.json").write_text(json.dumps(report, indent=2))
    if callback.history:
        plot_learning_curve(callback.history, out / "learning_curve.png", title=f"{cfg['name']} (seed {seed})")
    return report


def _show(value) -> str:
    """A network setting for messages: a class by its name, anything else as ``repr``."""
    return value.__name__ if isinstance(value, type) else repr(value)


def _games(n: int) -> str:
    """``"1 game"``, ``"4 games"``: a count of games for the run's messages."""
    return f"{n} game" if n == 1 else f"{n} games"


def _make_logger(folder: Path):
    """SB3's logger writing ``progress.csv`` and TensorBoard event files to ``folder``, as
    ``configure(folder, ["csv", "tensorboard"])`` does, except that the CSV columns come in sorted
    order: SB3's CSV writer adds new columns in the order of a ``set`` of key strings, which
    changes with Python's hash randomisation (``PYTHONHASHSEED``), so two identical runs wrote the
    same values under differently ordered headers."""
    from stable_baselines3.common.logger import CSVOutputFormat, Logger, TensorBoardOutputFormat

    class _SortedKeys(list):
        def extend(self, keys):  # CSVOutputFormat.write extends its columns with a set of new keys
            super().extend(sorted(keys))

    folder.mkdir(parents=True, exist_ok=True)
    csv = CSVOutputFormat(str(folder / "progress.csv"))
    csv.keys = _SortedKeys()
    return Logger(folder=str(folder), output_formats=[csv, TensorBoardOutputFormat(str(folder))])


def _duration(seconds: float) -> str:
    """``"45 s"``, ``"12 min"``, ``"1 h 05 min"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


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

    obs_batch = ({k: take([o[k] for o in samples]) for k in samples[0]} if isinstance(samples[0], dict)
                 else take(samples))
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
    how = (f"measured here: {per_step * 1000:.1f} ms per step over {probe_rounds * n_envs} probe steps, "
           f"{times[-1] * 1000:.0f} ms per minibatch update, {updates} updates per rollout of {rollout:,} steps")
    return seconds, how


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


def final_evaluation(cfg: dict, checkpoint: Path, out: Path, agent_spec: str | None = None) -> dict:
    """Tournament of the trained agent and the configured opponents.

    Uses :func:`training.tournament.run_tournament` (seats rotated, OpenSkill ratings, Elo for
    two players, Wilson intervals). Two-player games: one round robin of the trained agent and
    every opponent, written to ``out``. Games with more seats (teams): one two-agent tournament
    per opponent, written to ``out/vs_<opponent>``, so that the trained agent always holds a
    whole team against the opponent's team (a tournament of three or more agents in a
    four-seat game would mix them within teams).

    ``agent_spec``: the trained agent's spec (default: ``str(checkpoint)``, an SB3 checkpoint;
    the RLlib trainer passes ``rllib:<checkpoint>``).

    Returns:
        ``{"vs": {spec: {"wins", "draws", "losses", "games", "score", "score_ci95_low",
        "score_ci95_high"}}, "ratings": [...]}`` from the trained agent's side.
    """
    from envs.registry import spec
    from training.tournament import run_tournament

    fe = cfg["final_eval"]
    keys = ("wins", "draws", "losses", "games", "score", "score_ci95_low", "score_ci95_high")
    num_players = spec(cfg["env_id"]).num_players(**cfg["env_kwargs"])
    common = dict(seed=10_000 + cfg["seed"], max_steps=cfg["max_steps"], env_kwargs=cfg["env_kwargs"],
                  record_moves=False)
    groups = ([(out, fe["opponents"])] if num_players == 2 else
              [(out / f"vs_{spec.replace('/', '_').replace(':', '_')}", [spec]) for spec in fe["opponents"]])
    vs, ratings = {}, []
    for folder, opponents in groups:
        result = run_tournament(cfg["env_id"], [agent_spec or str(checkpoint), *opponents], fe["games"], out_dir=folder, **common)
        me = result["agents"][0]["name"]
        names = {a["name"]: a["spec"] for a in result["agents"]}
        vs.update({names[p["opponent"]]: {k: p[k] for k in keys} for p in result["pairs"] if p["agent"] == me})
        ratings.append([{k: r[k] for k in ("name", "mu", "sigma", "elo", "elo_ci95_low", "elo_ci95_high")}
                        for r in result["ratings"]])
    return {"vs": vs, "ratings": ratings[0] if num_players == 2 else ratings}


def main(argv: list[str] | None = None) -> int:
    from training.cli import non_negative_int, positive_int
    from training.rllib.cluster import ClusterError, address_arg, require_rllib

    parser = argparse.ArgumentParser(prog="python -m training.train", description=__doc__.split("\n\n")[0])
    parser.add_argument("config", help="YAML config, e.g. configs/ataxx_quick.yaml")
    parser.add_argument("--timesteps", type=positive_int, default=None, help="override total_timesteps")
    parser.add_argument("--seed", type=non_negative_int, default=None, help="override seed (an integer >= 0)")
    parser.add_argument("--out", default=None, help="run directory (default runs/<config>-<seed>)")
    parser.add_argument("--resume", default=None,
                        help="checkpoint .zip to continue from (an RLlib config: a checkpoint directory); --timesteps "
                             "then counts the steps to add")
    parser.add_argument("--overwrite", action="store_true", help="delete a non-empty run directory first")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument("--final-games", type=positive_int, default=None,
                        help="override final_eval.games (games per pair in the final tournament)")
    parser.add_argument("--address", type=address_arg, default=None, metavar="HOST:PORT|auto",
                        help="RLlib configs: join the Ray cluster whose head is at HOST:PORT (`ray start --head` "
                             "prints it), or 'auto' (the one started on this machine); default: a local Ray "
                             "instance of this run's own")
    parser.add_argument("--smoke", action="store_true",
                        help=f"shrink every budget (one rollout of {SMOKE['n_envs'] * SMOKE['n_steps']} timesteps, "
                             f"{SMOKE['pretrain_games']} warm-start games, {SMOKE['eval_games']} games per periodic evaluation, "
                             f"{SMOKE['final_games']} per final pair) to check a config end to end in seconds; --timesteps and --final-games still "
                             "win; default run directory runs/<config>-<seed>-smoke")
    args = parser.parse_args(argv)
    try:
        cfg = load_config(args.config, validate=False, seed=args.seed)
    except (FileNotFoundError, ValueError) as e:
        parser.error(str(e))
    if cfg.get("engine") == "rllib":  # before anything imports Ray
        require_rllib(f"python -m training.train {args.config}", as_command=True)
    elif args.address is not None:
        parser.error("--address joins a Ray cluster: it is for RLlib configs (engine: rllib); an SB3 run trains in "
                     "this process")
    if args.smoke or args.timesteps is not None or args.final_games is not None:
        # The values that --smoke / --timesteps / --final-games replace are checked as written too, so
        # a config that passes a smoke run does not fail on its real run. (train() checks the result.)
        try:
            validate_config(cfg, check_teacher=False)
        except ConfigError as e:
            parser.error(f"{args.config}: {e}")
    if args.smoke:
        cfg = smoke_config(cfg)
    if args.timesteps is not None:
        cfg["total_timesteps"] = args.timesteps
    if args.final_games is not None:
        cfg["final_eval"]["games"] = args.final_games  # checked with the rest by train()
    out = Path(args.out) if args.out else Path("runs") / f"{cfg['name']}-{cfg['seed']}{'-smoke' if args.smoke else ''}"
    rllib = cfg.get("engine") == "rllib"
    if args.resume and not (Path(args.resume).is_dir() if rllib else Path(args.resume).is_file()):
        parser.error(f"--resume: checkpoint {args.resume} does not exist"
                     + (" (an RLlib run resumes from a checkpoint directory, e.g. RUN/checkpoints/final)" if rllib else ""))
    try:
        report = train(cfg, out, resume=args.resume, progress_bar=not args.no_progress, overwrite=args.overwrite,
                       smoke=args.smoke, address=args.address)
    except (ConfigError, ClusterError) as e:
        parser.error(str(e))
    print(f"\nRun directory: {out}")
    print(f"Trained {report['timesteps_this_run']} timesteps in {report['train_seconds']} s"
          + (f" (total {report['timesteps']})" if args.resume else ""))
    for spec, r in report["vs"].items():
        print(f"  vs {spec:<14} score {r['score']:.3f} [95% {r['score_ci95_low']:.3f}, {r['score_ci95_high']:.3f}]"
              f"  (W {r['wins']} / D {r['draws']} / L {r['losses']} of {r['games']})")
    return 0


if __name__ == "__main__":
    # Run the imported module's main, not this __main__ copy's: the RLlib trainer raises
    # training.train.ConfigError, which this copy's own ConfigError class would not catch.
    from training import train as _train

    sys.exit(_train.main())
