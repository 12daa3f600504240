"""The AlphaZero engine (``engine: alphazero``): Gumbel AlphaZero self-play with a replay buffer.

* :mod:`training.engines.alphazero.config`: its config (:class:`~training.engines.alphazero.config.
  AlphaZeroConfig`: ``search``, ``selfplay``, ``learn``) and the smoke budgets (no torch import);
* :mod:`training.agents.alphazero_net`: the network (a trunk and policy head of
  :mod:`training.features`, a ``tanh`` value head) and the search's batched evaluation;
* :mod:`training.engines.alphazero.trainer`: self-play with :func:`training.search.gumbel_search`,
  the replay buffer, the learning, checkpoints and resuming;
* :mod:`training.agents.alphazero`: a checkpoint as an agent, ``az:PATH[:SIMS]``
  (:class:`~training.agents.alphazero.AlphaZeroAgent`).

Checkpoints are ``.pt`` files (``RUN/checkpoints/final.pt``), one ``torch.save`` each, holding
everything a resumed run needs.

Self-play runs in the learner's process by default, or on Ray actors (``selfplay.actors``, or
``--address HOST:PORT|auto|local``: :mod:`training.ray_cluster`); the learner may train on a GPU
(``learn.device: cuda``, untested here). Both: :mod:`training.engines.alphazero.trainer`.
"""

from __future__ import annotations

from pathlib import Path

from training.cli import MissingExtraError
from training.engines.alphazero.config import SMOKE, AlphaZeroConfig
from training.ray_cluster import ClusterError

__all__ = ["ENGINE", "AlphaZeroEngine"]


class AlphaZeroEngine:
    """:class:`training.engines.Engine` for Gumbel AlphaZero self-play."""

    name = "alphazero"
    label = "AlphaZero"
    config_model = AlphaZeroConfig
    smoke_budgets = SMOKE
    takes_address = True
    checkpoint_kind = "a checkpoint .pt, e.g. RUN/checkpoints/final.pt"
    user_errors: tuple[type[BaseException], ...] = (ClusterError, MissingExtraError)

    def require(self, user: str, *, as_command: bool = False) -> None:
        """The ``train`` extra less stable-baselines3 (:data:`training.cli.TRAIN_COMMON_MODULES`:
        torch, PyYAML, pydantic, TensorBoard, ...): the engine needs no SB3."""
        from training.cli import TRAIN_COMMON_MODULES, require_extra

        require_extra("train", user, TRAIN_COMMON_MODULES, as_command=as_command)

    def validate(self, cfg: AlphaZeroConfig, probe) -> None:
        """The search must not see what the mover cannot: a game with hidden information or
        chance (:attr:`envs.core.state.GameInfo.perfect_information`, ``chance``) is searched on
        determinizations from the mover's view (:meth:`envs.core.state.GameState.determinize`,
        :func:`training.search.gumbel_search`), which the search makes where the game declares
        hidden information; a game with chance but declared of perfect information would have its
        future draws read by the tree (its copies replay the same draws), so it is refused, as is
        a game with hidden information whose state does not implement ``determinize``. Symmetries
        need the game to declare them.

        Raises:
            ConfigError: (``env_id``) a game with chance that declares perfect information, or
                with hidden information and no ``determinize``; ``selfplay.symmetries`` for a game
                without symmetries (Tantrix and Smartrix declare none).
        """
        import numpy as np

        from training.config import ConfigError

        info = probe.state.info
        if info.chance and info.perfect_information:
            raise ConfigError(
                f"config 'env_id' {cfg.env_id!r}: engine alphazero needs a game whose chance is hidden "
                "information (GameInfo.perfect_information False, searched on determinizations); this one has "
                "chance and declares perfect information, so its search would read the future draws; train it "
                "with engine sb3 or rllib"
            )
        if not info.perfect_information:
            state = probe.state
            try:
                state.determinize(int(state.current_player), np.random.default_rng(0))
            except NotImplementedError as e:
                raise ConfigError(
                    f"config 'env_id' {cfg.env_id!r}: engine alphazero searches a game with hidden information "
                    f"on determinizations from the mover's view, and this game has none ({e}); train it with "
                    "engine sb3 or rllib"
                ) from None
        if cfg.selfplay.symmetries:
            from training.engines.alphazero.symmetry import BatchSymmetries

            try:
                BatchSymmetries.for_env(str(cfg.env_id), cfg.env_kwargs)
            except ValueError as e:
                raise ConfigError(f"config 'selfplay.symmetries': {e}") from None

    def is_checkpoint(self, path: Path) -> bool:
        return Path(path).is_file()

    def train_in(
        self,
        cfg: AlphaZeroConfig,
        out: Path,
        *,
        resume: str | None,
        progress_bar: bool,
        started: list,
        smoke: bool,
        address: str | None = None,
    ) -> dict:
        from training.engines.alphazero.trainer import train_in

        return train_in(
            cfg, out, resume=resume, progress_bar=progress_bar, started=started, smoke=smoke, address=address
        )

    def load_agent(self, checkpoint: str | Path, **kwargs):
        """A checkpoint ``.pt`` as an :class:`~training.agents.alphazero.AlphaZeroAgent`
        (``kwargs``: its options, e.g. ``simulations``)."""
        from training.agents.alphazero import AlphaZeroAgent

        return AlphaZeroAgent(str(checkpoint), **kwargs)


ENGINE = AlphaZeroEngine()
