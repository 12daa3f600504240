"""The SB3 engine (``engine: sb3``, the default): MaskablePPO of sb3-contrib against an opponent pool.

* :mod:`training.engines.sb3.config`: its config (:class:`~training.engines.sb3.config.SB3Config`:
  ``ppo``, ``pool``, ``pretrain``, ``n_envs``, ``shaping``) and the smoke budgets (no SB3 import);
* :mod:`training.engines.sb3.trainer`: the network, the model, the callback and the loop.

Checkpoints are ``.zip`` files, agents as they are (``PATH.zip``,
:class:`training.agents.PolicyAgent`).
"""

from __future__ import annotations

from pathlib import Path

from training.config import ConfigError
from training.engines.sb3.config import SMOKE, SB3Config

__all__ = ["ENGINE", "SB3Engine"]


class SB3Engine:
    """:class:`training.engines.Engine` for MaskablePPO."""

    name = "sb3"
    label = "SB3"
    config_model = SB3Config
    smoke_budgets = SMOKE
    takes_address = False
    checkpoint_kind = "a checkpoint .zip, e.g. RUN/checkpoints/final.zip"
    user_errors: tuple[type[BaseException], ...] = ()

    def require(self, user: str, *, as_command: bool = False) -> None:
        """The whole ``train`` extra, stable-baselines3 and sb3-contrib included
        (:data:`training.cli.TRAIN_MODULES`; :mod:`training.train` checks only the modules every
        engine needs)."""
        from training.cli import TRAIN_MODULES, require_extra

        require_extra("train", user, TRAIN_MODULES, as_command=as_command)

    def validate(self, cfg: SB3Config, probe) -> None:
        """Reward shaping needs a game heuristic."""
        if cfg.shaping > 0 and probe.state.heuristics() is None:
            raise ConfigError(
                f"config 'shaping' needs a game heuristic: {cfg.env_id} declares none (GameInfo.heuristics)"
            )

    def is_checkpoint(self, path: Path) -> bool:
        return Path(path).is_file()

    def train_in(
        self,
        cfg: SB3Config,
        out: Path,
        *,
        resume: str | None,
        progress_bar: bool,
        started: list,
        smoke: bool,
        address: str | None = None,
    ) -> dict:
        from training.engines.sb3.trainer import train_in

        return train_in(cfg, out, resume=resume, progress_bar=progress_bar, started=started, smoke=smoke)

    def load_agent(self, checkpoint: str | Path, **kwargs):
        """A checkpoint ``.zip`` as a :class:`training.agents.PolicyAgent` (``kwargs``: its options)."""
        from training.agents import PolicyAgent

        return PolicyAgent(str(checkpoint), **kwargs)


ENGINE = SB3Engine()
