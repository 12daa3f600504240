"""The RLlib engine (``engine: rllib``, the ``rllib`` extra): self-play on Ray RLlib's PPO, every
registered game, any number of seats, local or on a cluster.

* :mod:`training.engines.rllib.env`: :class:`~training.engines.rllib.env.GameMultiAgentEnv`, a
  game of the registry as an RLlib ``MultiAgentEnv`` (turn-based, masked, every seat's final reward);
* :mod:`training.engines.rllib.module`: :class:`~training.engines.rllib.module.GameRLModule`, the
  networks of :mod:`training.features` as an RLModule with action masking;
* :mod:`training.engines.rllib.config`: the keys of an ``engine: rllib`` config (no Ray import);
* :mod:`training.engines.rllib.cluster`: starting or joining Ray, and its one-line errors;
* :mod:`training.engines.rllib.trainer`: the training loop behind ``python -m training.train
  configs/<game>_rllib.yaml``.

Checkpoints are agents: ``rllib:PATH`` (:class:`training.agents.rllib.RLlibAgent`).
"""

from __future__ import annotations

from pathlib import Path

from training.engines.rllib.cluster import ClusterError, require_rllib
from training.engines.rllib.config import SMOKE, RLlibConfig

__all__ = ["ENGINE", "RLlibEngine"]


class RLlibEngine:
    """:class:`training.engines.Engine` for Ray RLlib's PPO."""

    name = "rllib"
    label = "RLlib"
    config_model = RLlibConfig
    smoke_budgets = SMOKE
    takes_address = True
    checkpoint_kind = "a checkpoint directory, e.g. RUN/checkpoints/final"
    user_errors: tuple[type[BaseException], ...] = (ClusterError,)

    def require(self, user: str, *, as_command: bool = False) -> None:
        """The ``rllib`` extra (Ray): :func:`training.engines.rllib.cluster.require_rllib`."""
        require_rllib(user, as_command=as_command)

    def validate(self, cfg: RLlibConfig, probe) -> None:
        """Nothing beyond the model's checks (RLlib's own run when the algorithm is built)."""

    def is_checkpoint(self, path: Path) -> bool:
        return Path(path).is_dir()

    def train_in(
        self,
        cfg: RLlibConfig,
        out: Path,
        *,
        resume: str | None,
        progress_bar: bool,
        started: list,
        smoke: bool,
        address: str | None = None,
    ) -> dict:
        from training.engines.rllib.trainer import train_in

        return train_in(cfg, out, resume, progress_bar, started, smoke, address=address)

    def load_agent(self, checkpoint: str | Path, **kwargs):
        """A checkpoint directory as a :class:`training.agents.rllib.RLlibAgent` (``kwargs``: its options)."""
        from training.agents.rllib import RLlibAgent

        return RLlibAgent(str(checkpoint), **kwargs)


ENGINE = RLlibEngine()
