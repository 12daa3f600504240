"""The config of the AlphaZero engine (``engine: alphazero``): the ``search``, ``selfplay`` and
``learn`` sections and the smoke budgets (no torch import).

Budgets count *positions*: moves played in self-play, over every game of the batch
(``total_timesteps``, ``eval.every`` and ``checkpoint_every`` are in positions, so ``--timesteps``
sets the budget as for the other engines). The meaning of each key is in ``configs/ataxx_az.yaml``.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import Field, model_validator

from training.config import (
    ConfigError,
    Expect,
    NonNegativeNumber,
    PositiveInt,
    PositiveNumber,
    PretrainConfig,
    Probability,
    RunConfig,
    Section,
)

__all__ = ["SMOKE", "SearchConfig", "PlayoutCapConfig", "SelfPlayConfig", "LearnConfig", "AlphaZeroConfig"]

#: The budgets of a smoke run (``--smoke``, :meth:`AlphaZeroConfig.smoke`): 2 games in lockstep,
#: 4 simulations, rounds of 4 moves and 2 training steps of 16 positions, 32 positions in all,
#: 2 games per periodic evaluation and 1 per pair of the final tournament, games cut at 8 plies
#: (so that games end, their positions are labelled and the learning runs within the 32 positions).
SMOKE: dict = {
    "max_steps": 8,
    "games": 2,
    "simulations": 4,
    "moves_per_round": 4,
    "train_steps": 2,
    "batch_size": 16,
    "positions": 32,
    "eval_games": 2,
    "final_games": 1,
    "eval_simulations": 2,
    "pretrain_games": 2,
}


class PlayoutCapConfig(Section):
    """``search.playout_cap``: playout cap randomisation (KataGo, Wu 2019, arXiv 1902.10565 section 3.1).

    Each lockstep move is searched in full (``search.simulations``) with probability ``full_prob``,
    else with ``cheap_simulations``; only the positions of full searches are stored for training.
    ``full_prob: 1`` turns it off (every move searched in full and stored)."""

    full_prob: Probability = Field(1.0, description="probability that a move is searched in full (1: no playout cap)")
    cheap_simulations: PositiveInt = Field(
        2, description="simulations of a cheap search (its positions are not stored)"
    )


class SearchConfig(Section):
    """``search``: the Gumbel search of self-play (:func:`training.search.gumbel_search`)."""

    simulations: PositiveInt = Field(16, description="simulations per move of self-play (a full search)")
    max_num_considered_actions: PositiveInt = Field(
        16, description="actions sampled at the root by Gumbel-top-k (mctx's default 16)"
    )
    gumbel_scale: NonNegativeNumber = Field(
        1.0, description="scale of the root's Gumbel noise in self-play (1: the paper's)"
    )
    eval_simulations: Annotated[int, Field(strict=True, ge=0), Expect("a non-negative integer")] = Field(
        16, description="simulations of the trained agent in evaluations (0: the raw policy's argmax)"
    )
    value_scale: NonNegativeNumber = Field(
        0.1,
        description="sigma's c_scale: the completed Q-values, rescaled to [0, 1], times (50 + max visits) times "
        "this, are added to the prior's logits (mctx's value_scale 0.1); lower it while the value head is poor",
    )
    heuristic_weight: Probability = Field(
        0.0,
        description="weight in [0, 1] of the game's own evaluation (its heuristics module's evaluate, as "
        "tanh(evaluate / VALUE_SCALE)) in the value of every searched position: (1 - w) * network + w * game, as "
        "AlphaGo mixed its value network with rollouts; 0: the network alone. Self-play, the periodic and final "
        "evaluations and the az: agent all search so",
    )
    heuristic: Annotated[str, Field(strict=True, pattern=r"^[a-z][a-z0-9_]*$"), Expect("an evaluation's name")] = Field(
        "evaluate",
        description="which of the game's evaluations heuristic_weight mixes in: 'evaluate' (its heuristics "
        "module's own) or one of the names its GameInfo.evaluators declares (Tantrix: 'predicted', the robot's "
        "predicted final score gap, a numba pass of ~10 µs a position; 'predicted_turn', the same once the mover "
        "has played out its turn by the robot's choices, ~1 ms); used only with heuristic_weight > 0",
    )
    playout_cap: PlayoutCapConfig = Field(default_factory=PlayoutCapConfig, description="playout cap randomisation")


class SelfPlayConfig(Section):
    """``selfplay``: the games played in lockstep, the replay buffer, and the self-play actors.

    ``actors``: 0 (the default) plays the ``games`` in the learner's process, alternating with the
    learning; N >= 1 plays on N Ray actors of one CPU each, each with its own ``games`` games
    (``games * N`` in all), on a local Ray instance of the run's own or on the cluster of
    ``--address``. ``--address`` with ``actors: 0`` means 1 actor
    (:mod:`training.engines.alphazero.trainer`)."""

    games: PositiveInt = Field(64, description="games played in lockstep (one batched network call per simulation)")
    moves_per_round: PositiveInt = Field(16, description="lockstep moves of self-play per round (then train_steps)")
    buffer_size: PositiveInt = Field(50_000, description="positions kept in the replay buffer (the oldest leave first)")
    symmetries: bool = Field(False, description="augment each training sample by a random board symmetry of the game")
    actors: Annotated[int, Field(strict=True, ge=0, le=1024), Expect("an integer from 0 to 1024")] = Field(
        0,
        description="self-play actors on Ray, each playing its own `games` games (0: self-play in the learner's "
        "process, unless --address is given, which means 1)",
    )


class LearnConfig(Section):
    """``learn``: the network's training on the replay buffer (Adam, cross-entropy + MSE).

    ``device``: where the learner's network and its minibatches live (``cuda``: a user's GPU,
    untested on a GPU here; refused where torch sees none). Self-play and the evaluations search
    on the CPU with a copy of the weights."""

    train_steps: PositiveInt = Field(16, description="Adam steps per round (one minibatch each)")
    batch_size: PositiveInt = Field(256, description="positions per minibatch, drawn uniformly from the buffer")
    learning_rate: PositiveNumber = Field(1.0e-3, description="Adam's step size")
    weight_decay: NonNegativeNumber = Field(1.0e-4, description="L2 penalty on the weights (Adam's weight_decay)")
    value_weight: NonNegativeNumber = Field(
        1.0,
        description="weight of the value MSE in the loss (policy CE weight 1); with more than two sides the MSE "
        "is averaged over the sides' values",
    )
    min_positions: PositiveInt = Field(1_000, description="positions in the buffer before training starts")
    device: Annotated[Literal["cpu", "cuda"], Expect("'cpu' or 'cuda'")] = Field(
        "cpu",
        description="the learner's torch device (cuda: untested here; the self-play searches stay on the CPU)",
    )


class AlphaZeroConfig(RunConfig):
    """A config of the AlphaZero engine (Gumbel AlphaZero self-play)."""

    KEY_ORDER: ClassVar[tuple[str, ...]] = (
        "engine",
        "env_id",
        "env_kwargs",
        "max_steps",
        "seed",
        "total_timesteps",
        "torch_threads",
        "policy",
        "search",
        "selfplay",
        "learn",
        "pretrain",
        "eval",
        "checkpoint_every",
        "final_eval",
        "name",
    )
    BUDGET_UNIT: ClassVar[str] = "self-play positions"

    engine: Annotated[Literal["alphazero"], Expect("'alphazero'")] = Field(
        "alphazero", description="the trainer: Gumbel AlphaZero self-play (training.engines.alphazero)"
    )
    search: SearchConfig = Field(default_factory=SearchConfig, description="the Gumbel search")
    selfplay: SelfPlayConfig = Field(default_factory=SelfPlayConfig, description="the lockstep games and the buffer")
    learn: LearnConfig = Field(default_factory=LearnConfig, description="the network's training")
    pretrain: PretrainConfig = Field(
        default_factory=PretrainConfig,
        description="the warm start: imitate a teacher agent before self-play (training.engines.alphazero.warm_start)",
    )

    @model_validator(mode="after")
    def _batch_fits_the_buffer(self):
        if self.learn.batch_size > self.selfplay.buffer_size:
            raise ConfigError(
                f"config 'learn.batch_size' must be at most selfplay.buffer_size = "
                f"{self.selfplay.buffer_size}, got {self.learn.batch_size!r}"
            )
        if self.learn.min_positions > self.selfplay.buffer_size:
            raise ConfigError(
                f"config 'learn.min_positions' must be at most selfplay.buffer_size = "
                f"{self.selfplay.buffer_size}, got {self.learn.min_positions!r}"
            )
        sc = self.search
        from envs.core.heuristics import DEFAULT_EVALUATOR, offered_evaluators

        if sc.heuristic_weight > 0 or sc.heuristic != DEFAULT_EVALUATOR:
            import envs
            from envs.core.errors import UnknownEnvError

            try:
                info = envs.spec(self.env_id).game_info()
            except UnknownEnvError:
                info = None  # the env_id's own check reports an unknown game
            if info is not None and not info.heuristics and sc.heuristic_weight > 0:
                raise ConfigError(
                    f"config 'search.heuristic_weight' must be 0 for {self.env_id}: the game declares no "
                    f"heuristics module (no evaluation of its own), got {sc.heuristic_weight!r}"
                )
            if sc.heuristic != DEFAULT_EVALUATOR:
                if sc.heuristic_weight == 0:
                    raise ConfigError(
                        f"config 'search.heuristic' is used only with search.heuristic_weight > 0: leave it "
                        f"'evaluate' or set a weight, got {sc.heuristic!r} at weight 0"
                    )
                names = offered_evaluators(info) if info is not None else []
                if info is not None and sc.heuristic not in names:
                    raise ConfigError(
                        f"config 'search.heuristic' must be one of {names} for {self.env_id} (the heuristics "
                        f"module's evaluate and the game's GameInfo.evaluators), got {sc.heuristic!r}"
                    )
        return self

    def agent_specs(self, check_teacher: bool = True) -> list[tuple[str, list[str]]]:
        """No opponent pool (self-play): the warm start's teacher and the evaluation opponents."""
        teacher = [self.pretrain.teacher] if self.pretrain.teacher is not None and check_teacher else []
        return [
            ("pretrain.teacher", teacher),
            ("eval.opponents", self.eval.opponents),
            ("final_eval.opponents", self.final_eval.opponents),
        ]

    def smoke(self) -> AlphaZeroConfig:
        """A copy with every budget shrunk to :data:`SMOKE` (a check that the config runs end to end,
        not training): 32 positions of 2 lockstep games, 4 simulations (2 when evaluating), rounds of
        4 moves and 2 Adam steps of 16 positions once 16 are stored, every period one of 32
        positions, 2 games per periodic evaluation, 1 per final pair, and ``max_steps`` at most 8
        plies (a game cut there is a draw), so that games end and the learning runs. The game, the
        network, the opponents and the seed stay as configured."""
        out = self.model_dump(by_alias=True)
        n = SMOKE["positions"]
        out.update(
            total_timesteps=n,
            checkpoint_every=n,
            max_steps=min(out["max_steps"] or SMOKE["max_steps"], SMOKE["max_steps"]),
        )
        out["search"].update(simulations=SMOKE["simulations"], eval_simulations=SMOKE["eval_simulations"])
        out["search"]["playout_cap"]["cheap_simulations"] = min(
            out["search"]["playout_cap"]["cheap_simulations"], SMOKE["simulations"]
        )
        out["selfplay"].update(
            games=SMOKE["games"],
            moves_per_round=SMOKE["moves_per_round"],
            buffer_size=max(SMOKE["batch_size"], min(out["selfplay"]["buffer_size"], 1024)),
        )
        out["learn"].update(
            train_steps=SMOKE["train_steps"], batch_size=SMOKE["batch_size"], min_positions=SMOKE["batch_size"]
        )
        out["eval"].update(every=n, games=SMOKE["eval_games"])
        out["final_eval"]["games"] = SMOKE["final_games"]
        out["pretrain"].update(games=min(out["pretrain"]["games"], SMOKE["pretrain_games"]), epochs=1)
        return type(self).model_validate(out)

    def budgets(self, pretrained: bool = True) -> dict:
        """``total_timesteps`` (positions), ``games``, ``simulations``, ``eval_every``, ``eval_games``,
        ``final_games``, ``pretrain_games`` (``None`` without a teacher, or when ``pretrained`` is
        false: a resumed run)."""
        return {
            "total_timesteps": self.total_timesteps,
            "games": self.selfplay.games,
            "simulations": self.search.simulations,
            "eval_every": self.eval.every,
            "eval_games": self.eval.games,
            "final_games": self.final_eval.games,
            "pretrain_games": self.pretrain.games if pretrained and self.pretrain.teacher else None,
        }
