"""The keys of an RLlib training config (``engine: rllib``), their checks and the smoke budgets.

Importing this module does not import Ray: ``training.train`` reads, checks and shrinks configs
with it before anything starts. The meaning of each key is in ``configs/ataxx_rllib.yaml``.
"""

from __future__ import annotations

import copy

__all__ = ["RLLIB_DEFAULTS", "SMOKE", "smoke_config", "budgets", "validate_rllib"]

#: Every key of an RLlib config with its default (a config may override any of them, nothing else).
RLLIB_DEFAULTS: dict = {
    "engine": "rllib",
    "env_id": None,
    "env_kwargs": {},
    "max_steps": 400,
    "seed": 0,
    "total_timesteps": 100_000,   # timesteps of the main module (its own decisions), as SB3 counts the learner's
    "torch_threads": 1,
    "policy": None,  # the SB3 trainer's defaults, training.train.DEFAULTS["policy"] (filled in by load_config)
    "rllib": {
        "num_env_runners": 0,          # 0: sample in the driver process; N: N remote env runner actors
        "num_envs_per_env_runner": 8,
        "num_learners": 0,             # 0: update in the driver process; K: K learner actors (data parallel)
        "num_gpus_per_learner": 0,
        "sample_timeout_s": 600,
        "train_batch_size": 2048,      # env steps per training iteration (per learner)
        "minibatch_size": 512,
        "num_epochs": 4,
        "lr": 3.0e-4,
        "gamma": 0.99,
        "lambda": 0.95,
        "clip_param": 0.2,
        "entropy_coeff": 0.01,
        "vf_loss_coeff": 0.5,
        "vf_clip_param": 10.0,
        "grad_clip": 0.5,
        # any other RLlib setting by its keyword name in PPOConfig.training() / .env_runners() /
        # .learners() / .evaluation() / .reporting() / .fault_tolerance(), e.g. {num_cpus_per_env_runner: 2};
        # checked against RLlib's own signatures when the algorithm is built (training/rllib/cluster.py)
        "settings": {},
    },
    "pool": {
        "baselines": ["random", "greedy"],
        "baseline_prob": 0.3,
        "latest_prob": 0.3,
        "max_snapshots": 5,
        "partner": "latest",
        "check_every": 20_000,   # timesteps between checks of main's win rate against the pool
        "check_games": 10,       # games against each pool member per check
        "win_rate": 0.6,         # a snapshot of main joins the pool when its mean score reaches this
    },
    "eval": {"every": 50_000, "games": 20, "opponents": ["random", "greedy"]},
    "checkpoint_every": 50_000,
    "final_eval": {"games": 200, "opponents": ["random", "greedy"]},
}

#: The budgets of a smoke run: one training iteration of 64 env steps (2 envs), minibatches of
#: 32, one epoch, pool check, evaluation and checkpoint once, 2 games per check/evaluation game
#: count, 1 game per pair in the final tournament.
SMOKE: dict = {"num_envs_per_env_runner": 2, "train_batch_size": 64, "minibatch_size": 32, "num_epochs": 1,
               "check_games": 1, "eval_games": 2, "final_games": 1}


def smoke_config(cfg: dict) -> dict:
    """A copy of an RLlib ``cfg`` with every budget shrunk to :data:`SMOKE`; the network, the
    opponents, the seed and the placement (env runners, learners: a smoke run on a cluster checks
    the cluster too) kept."""
    out = copy.deepcopy(cfg)
    r = out["rllib"]
    r["num_envs_per_env_runner"] = SMOKE["num_envs_per_env_runner"]
    r["train_batch_size"] = SMOKE["train_batch_size"]
    r["minibatch_size"] = SMOKE["minibatch_size"]
    r["num_epochs"] = SMOKE["num_epochs"]
    one = SMOKE["train_batch_size"]
    out["total_timesteps"] = one
    out["checkpoint_every"] = one
    out["pool"]["check_every"] = one
    out["pool"]["check_games"] = SMOKE["check_games"]
    out["eval"]["every"] = one
    out["eval"]["games"] = SMOKE["eval_games"]
    out["final_eval"]["games"] = SMOKE["final_games"]
    return out


def budgets(cfg: dict) -> dict:
    """An RLlib config's budgets as ``report.json`` records them."""
    r = cfg["rllib"]
    return {"total_timesteps": cfg["total_timesteps"], "num_env_runners": r["num_env_runners"],
            "num_envs_per_env_runner": r["num_envs_per_env_runner"], "num_learners": r["num_learners"],
            "train_batch_size": r["train_batch_size"], "pool_check_every": cfg["pool"]["check_every"],
            "pool_check_games": cfg["pool"]["check_games"], "eval_every": cfg["eval"]["every"],
            "eval_games": cfg["eval"]["games"], "final_games": cfg["final_eval"]["games"]}


def validate_rllib(cfg: dict, probe) -> None:
    """Check the ``rllib`` and ``pool`` sections (``training.train.validate_config`` checks the
    rest and calls this). ``probe``: a raw env of the config's setting.

    Raises:
        training.train.ConfigError: the first bad value, naming its key and what was expected.
    """
    from training.train import _is_int, _is_num, _require

    r = cfg["rllib"]
    for key in ("num_env_runners", "num_learners", "num_gpus_per_learner"):
        _require(_is_num(r[key]) and r[key] >= 0 and (key == "num_gpus_per_learner" or _is_int(r[key])),
                 f"rllib.{key}", "a non-negative integer" if key != "num_gpus_per_learner" else "a number >= 0", r[key])
    for key in ("num_envs_per_env_runner", "num_epochs", "train_batch_size", "minibatch_size"):
        _require(_is_int(r[key]) and r[key] >= 1, f"rllib.{key}", "a positive integer", r[key])
    _require(r["minibatch_size"] <= r["train_batch_size"], "rllib.minibatch_size",
             f"at most rllib.train_batch_size ({r['train_batch_size']})", r["minibatch_size"])
    for key in ("lr", "clip_param", "grad_clip", "vf_clip_param", "sample_timeout_s"):
        _require(_is_num(r[key]) and r[key] > 0, f"rllib.{key}", "a positive number"
                 + (" (YAML reads 3e-4 as text: write 3.0e-4)" if isinstance(r[key], str) else ""), r[key])
    for key in ("gamma", "lambda"):
        _require(_is_num(r[key]) and 0 < r[key] <= 1, f"rllib.{key}", "a number in (0, 1]", r[key])
    for key in ("entropy_coeff", "vf_loss_coeff"):
        _require(_is_num(r[key]) and r[key] >= 0, f"rllib.{key}", "a non-negative number", r[key])
    _require(isinstance(r["settings"], dict) and all(isinstance(k, str) for k in r["settings"]), "rllib.settings",
             "a mapping of RLlib setting names to values", r["settings"])
    pool = cfg["pool"]
    for key in ("max_snapshots", "check_every", "check_games"):
        _require(_is_int(pool[key]) and pool[key] >= 1, f"pool.{key}", "a positive integer", pool[key])
    for key in ("baseline_prob", "latest_prob", "win_rate"):
        _require(_is_num(pool[key]) and 0 <= pool[key] <= 1, f"pool.{key}", "a number in [0, 1]", pool[key])
    _require(pool["baseline_prob"] + pool["latest_prob"] <= 1 + 1e-9, "pool.baseline_prob + pool.latest_prob",
             "at most 1", pool["baseline_prob"] + pool["latest_prob"])
    _require(pool["partner"] in ("latest", "pool"), "pool.partner", "'latest' or 'pool'", pool["partner"])
    probe.reset(seed=0)
