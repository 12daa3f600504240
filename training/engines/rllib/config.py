"""The config of the RLlib engine (``engine: rllib``): the ``rllib`` and ``pool`` sections and the smoke budgets.

Importing this module does not import Ray: ``training.train`` reads, checks and shrinks configs
with it before anything starts. The meaning of each key is in ``configs/ataxx_rllib.yaml`` and
``docs/training/config.md``.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, model_validator

from training.config import (
    PARTNER_DOC,
    ConfigError,
    Expect,
    NonNegativeNumber,
    Partner,
    PoolConfig,
    PositiveInt,
    PositiveNumber,
    Probability,
    RunConfig,
    Section,
    UnitNumber,
)

__all__ = ["SMOKE", "RLlibSection", "RLlibPoolConfig", "RLlibConfig"]

#: The budgets of a smoke run: one training iteration of 64 env steps (2 envs), minibatches of
#: 32, one epoch, pool check, evaluation and checkpoint once, 2 games per check/evaluation game
#: count, 1 game per pair in the final tournament.
SMOKE: dict = {
    "num_envs_per_env_runner": 2,
    "train_batch_size": 64,
    "minibatch_size": 32,
    "num_epochs": 1,
    "check_games": 1,
    "eval_games": 2,
    "final_games": 1,
}

_NonNegativeInt = Annotated[int, Field(strict=True, ge=0), Expect("a non-negative integer")]


class RLlibSection(Section):
    """``rllib``: RLlib's placement and PPO's hyperparameters (RLlib's names)."""

    UNKNOWN_KEY_HINT: ClassVar[str] = "; any other RLlib setting goes under rllib.settings, by its RLlib name"

    num_env_runners: _NonNegativeInt = Field(0, description="0: sample in the driver process; N: N env runner actors")
    num_envs_per_env_runner: PositiveInt = Field(8, description="envs stepped together by each env runner")
    num_learners: _NonNegativeInt = Field(0, description="0: update in the driver process; K: K learner actors")
    num_gpus_per_learner: Annotated[NonNegativeNumber, Expect("a number >= 0")] = Field(
        0, description="GPUs of each learner"
    )
    sample_timeout_s: PositiveNumber = Field(600, description="seconds an env runner may take to sample")
    train_batch_size: PositiveInt = Field(2048, description="env steps per training iteration (per learner)")
    minibatch_size: PositiveInt = Field(512, description="minibatch size, at most train_batch_size")
    num_epochs: PositiveInt = Field(4, description="passes over each train batch")
    lr: PositiveNumber = Field(3.0e-4, description="Adam's step size")
    gamma: UnitNumber = Field(0.99, description="discount factor")
    lambda_: UnitNumber = Field(0.95, alias="lambda", description="GAE's lambda")
    clip_param: PositiveNumber = Field(0.2, description="PPO's clip range")
    entropy_coeff: NonNegativeNumber = Field(0.01, description="entropy bonus coefficient")
    vf_loss_coeff: NonNegativeNumber = Field(0.5, description="value loss coefficient")
    vf_clip_param: PositiveNumber = Field(10.0, description="value loss clip")
    grad_clip: PositiveNumber = Field(0.5, description="global gradient norm clip")
    settings: Annotated[dict[str, Any], Expect("a mapping of RLlib setting names to values")] = Field(
        default_factory=dict,
        description="any other RLlib setting by its keyword name in PPOConfig.training() / .env_runners() / "
        ".learners() / .evaluation() / .reporting() / .fault_tolerance(); checked against RLlib's "
        "signatures when the algorithm is built",
    )

    @model_validator(mode="after")
    def _minibatch_fits(self):
        if self.minibatch_size > self.train_batch_size:
            raise ConfigError(
                f"config 'rllib.minibatch_size' must be at most rllib.train_batch_size "
                f"({self.train_batch_size}), got {self.minibatch_size!r}"
            )
        return self


class RLlibPoolConfig(PoolConfig):
    """``pool``: the opponents of main's seats and the snapshots that join them."""

    max_snapshots: PositiveInt = Field(
        5, description="snapshot slots (RLlib modules snapshot_0.., not trained); the oldest is overwritten"
    )
    partner: Partner = Field("latest", description=PARTNER_DOC)
    check_every: PositiveInt = Field(20_000, description="timesteps between checks of main's score against the pool")
    check_games: PositiveInt = Field(10, description="games against each pool member per check")
    win_rate: Probability = Field(0.6, description="a snapshot of main joins the pool when its mean score reaches this")


class RLlibConfig(RunConfig):
    """A config of the RLlib engine (Ray RLlib's PPO)."""

    KEY_ORDER: ClassVar[tuple[str, ...]] = (
        "engine",
        "env_id",
        "env_kwargs",
        "max_steps",
        "seed",
        "total_timesteps",
        "torch_threads",
        "policy",
        "rllib",
        "pool",
        "eval",
        "checkpoint_every",
        "final_eval",
        "name",
    )

    engine: Annotated[Literal["rllib"], Expect("'rllib'")] = Field(
        "rllib", description="the trainer: Ray RLlib's PPO (training.engines.rllib)"
    )
    total_timesteps: PositiveInt = Field(
        100_000, description="timesteps of the main module (its own decisions), as SB3 counts the learner's"
    )
    rllib: RLlibSection = Field(default_factory=RLlibSection, description="RLlib's settings")
    pool: RLlibPoolConfig = Field(default_factory=RLlibPoolConfig, description="the opponent pool")

    def smoke(self) -> RLlibConfig:
        """A copy with every budget shrunk to :data:`SMOKE`; the network, the opponents, the seed and
        the placement (env runners, learners: a smoke run on a cluster checks the cluster too) kept."""
        out = self.model_dump(by_alias=True)
        one = SMOKE["train_batch_size"]
        out["rllib"].update(
            {k: SMOKE[k] for k in ("num_envs_per_env_runner", "train_batch_size", "minibatch_size", "num_epochs")}
        )
        out.update(total_timesteps=one, checkpoint_every=one)
        out["pool"].update(check_every=one, check_games=SMOKE["check_games"])
        out["eval"].update(every=one, games=SMOKE["eval_games"])
        out["final_eval"]["games"] = SMOKE["final_games"]
        return type(self).model_validate(out)

    def budgets(self, pretrained: bool = True) -> dict:
        """The budgets as ``report.json`` records them (``pretrained``: unused, no warm start)."""
        r = self.rllib
        return {
            "total_timesteps": self.total_timesteps,
            "num_env_runners": r.num_env_runners,
            "num_envs_per_env_runner": r.num_envs_per_env_runner,
            "num_learners": r.num_learners,
            "train_batch_size": r.train_batch_size,
            "pool_check_every": self.pool.check_every,
            "pool_check_games": self.pool.check_games,
            "eval_every": self.eval.every,
            "eval_games": self.eval.games,
            "final_games": self.final_eval.games,
        }
