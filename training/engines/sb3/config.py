"""The config of the SB3 engine (``engine: sb3``, the default): MaskablePPO's sections and the smoke budgets.

Importing this module does not import stable-baselines3. The meaning of each key is in
``configs/ataxx_quick.yaml`` and ``docs/training/config.md``.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

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
    PretrainConfig,
    RunConfig,
    Section,
    UnitNumber,
)

__all__ = ["SMOKE", "PPOConfig", "SB3PoolConfig", "PretrainConfig", "SB3Config"]

#: The budgets of a smoke run (``--smoke``, :meth:`SB3Config.smoke`): one rollout of ``n_envs *
#: n_steps`` timesteps, two warm-start games, two games per periodic evaluation, one game per
#: pair (or group) in the final tournament, whose search opponents (``mcts:200``) cost most.
SMOKE: dict = {
    "n_envs": 2,
    "n_steps": 32,
    "n_epochs": 1,
    "pretrain_games": 2,
    "pretrain_epochs": 1,
    "eval_games": 2,
    "final_games": 1,
}


class PPOConfig(Section):
    """``ppo``: MaskablePPO's hyperparameters (passed to it by these names)."""

    learning_rate: PositiveNumber = Field(3.0e-4, description="Adam's step size")
    n_steps: PositiveInt = Field(256, description="steps per game and rollout (a rollout: n_steps * n_envs)")
    batch_size: Annotated[int, Field(strict=True), Expect("an integer in [2, n_steps * n_envs]")] = Field(
        512, description="minibatch size, at most a rollout"
    )
    n_epochs: PositiveInt = Field(4, description="passes over each rollout")
    gamma: UnitNumber = Field(0.99, description="discount factor")
    gae_lambda: UnitNumber = Field(0.95, description="GAE's lambda")
    clip_range: PositiveNumber = Field(0.2, description="PPO's clip range")
    ent_coef: NonNegativeNumber = Field(0.01, description="entropy bonus coefficient")
    vf_coef: NonNegativeNumber = Field(0.5, description="value loss coefficient")
    max_grad_norm: PositiveNumber = Field(0.5, description="gradient norm clip")


class SB3PoolConfig(PoolConfig):
    """``pool``: the opponents of the learner's seat (:class:`training.selfplay.OpponentPool`)."""

    snapshot_every: PositiveInt = Field(20_000, description="timesteps between snapshots of the learner into the pool")
    partner: Partner = Field("latest", description=PARTNER_DOC)


class SB3Config(RunConfig):
    """A config of the SB3 engine (MaskablePPO)."""

    KEY_ORDER: ClassVar[tuple[str, ...]] = (
        "env_id",
        "env_kwargs",
        "max_steps",
        "seed",
        "total_timesteps",
        "n_envs",
        "torch_threads",
        "shaping",
        "policy",
        "ppo",
        "pool",
        "pretrain",
        "eval",
        "checkpoint_every",
        "final_eval",
        "name",
    )

    engine: Annotated[Literal["sb3"], Expect("'sb3' (or absent)")] = Field(
        "sb3", description="the trainer: MaskablePPO of sb3-contrib (training.engines.sb3)"
    )
    n_envs: PositiveInt = Field(8, description="games stepped together")
    shaping: Annotated[NonNegativeNumber, Expect("a number >= 0 (0: no reward shaping)")] = Field(
        0.0, description="weight of the potential-based shaping by the game's heuristic (0: none)"
    )
    ppo: PPOConfig = Field(default_factory=PPOConfig, description="MaskablePPO's hyperparameters")
    pool: SB3PoolConfig = Field(default_factory=SB3PoolConfig, description="the opponent pool")
    pretrain: PretrainConfig = Field(default_factory=PretrainConfig, description="the warm start")

    @model_validator(mode="after")
    def _batch_fits_a_rollout(self):
        rollout = self.ppo.n_steps * self.n_envs
        if not 2 <= self.ppo.batch_size <= rollout:
            raise ConfigError(
                f"config 'ppo.batch_size' must be an integer in [2, n_steps * n_envs = {rollout}], "
                f"got {self.ppo.batch_size!r}"
            )
        return self

    def agent_specs(self, check_teacher: bool = True) -> list[tuple[str, list[str]]]:
        teacher = [self.pretrain.teacher] if self.pretrain.teacher is not None and check_teacher else []
        return [("pretrain.teacher", teacher), *super().agent_specs(check_teacher)]

    def smoke(self) -> SB3Config:
        """A copy with every budget shrunk to :data:`SMOKE`, so that the config runs end to end
        (warm start, training, snapshots, periodic evaluation, checkpoints, final tournament,
        report) in seconds: a check that the config and the code work, not a training run.

        What shrinks: ``n_envs`` and ``ppo.n_steps`` (one rollout of ``n_envs * n_steps`` = 64
        timesteps is ``total_timesteps``; ``ppo.batch_size`` at most that, ``ppo.n_epochs`` 1), the
        warm start's ``pretrain.games`` and ``pretrain.epochs``, ``eval.games`` and
        ``final_eval.games``; ``pool.snapshot_every``, ``eval.every`` and ``checkpoint_every``
        become the one rollout, so each fires once. Everything else stays as configured: the
        environment and its kwargs (Tantrix's window radius too), the network, the opponents
        (search agents included, with those few games), ``max_steps`` and the seed.
        """
        out = self.model_dump(by_alias=True)
        rollout = SMOKE["n_envs"] * SMOKE["n_steps"]
        out.update(n_envs=SMOKE["n_envs"], total_timesteps=rollout, checkpoint_every=rollout)
        out["ppo"].update(
            n_steps=SMOKE["n_steps"], n_epochs=SMOKE["n_epochs"], batch_size=min(out["ppo"]["batch_size"], rollout)
        )
        out["pool"]["snapshot_every"] = rollout
        out["pretrain"].update(games=SMOKE["pretrain_games"], epochs=SMOKE["pretrain_epochs"])
        out["eval"].update(every=rollout, games=SMOKE["eval_games"])
        out["final_eval"]["games"] = SMOKE["final_games"]
        return type(self).model_validate(out)

    def budgets(self, pretrained: bool = True) -> dict:
        """``total_timesteps``, ``n_envs``, ``n_steps``, ``pretrain_games`` (``None`` without a
        warm start, or when ``pretrained`` is false: a resumed run), ``eval_every``,
        ``eval_games``, ``final_games``."""
        return {
            "total_timesteps": self.total_timesteps,
            "n_envs": self.n_envs,
            "n_steps": self.ppo.n_steps,
            "pretrain_games": self.pretrain.games if pretrained and self.pretrain.teacher else None,
            "eval_every": self.eval.every,
            "eval_games": self.eval.games,
            "final_games": self.final_eval.games,
        }
