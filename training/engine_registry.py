"""The engine registry: every trainer of ``python -m training.train`` by its config name, as an import path.

A config names its engine (``engine:``, default ``sb3``); :func:`get_engine` looks the name up in
:data:`ENGINES` and imports that package (:mod:`training.engines`) on first use, returning its
``ENGINE``, an object following :class:`Engine`.

The registry holds import paths, not imports, as :mod:`envs.core.plugins` does for a game's
plug-ins: the modules below the engines (:mod:`training.config`, :mod:`training.runs`) look an
engine up by name without importing the engine packages, which import them.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from training.agents import Agent
    from training.config import RunConfig

__all__ = ["Engine", "ENGINES", "get_engine", "engine_names"]

#: Every engine by its config name: the package whose ``ENGINE`` implements :class:`Engine`.
ENGINES: dict[str, str] = {
    "sb3": "training.engines.sb3",
    "rllib": "training.engines.rllib",
    "alphazero": "training.engines.alphazero",
}


class Engine(Protocol):
    """What ``training.train`` needs of a trainer."""

    #: The engine's name in configs (``engine: <name>``).
    name: str
    #: The engine in messages (``"an SB3 run"``, ``"an RLlib config"``).
    label: str
    #: The engine's config model (a :class:`training.config.RunConfig` subclass).
    config_model: type[RunConfig]
    #: The budgets of ``--smoke`` (``config_model.smoke`` applies them).
    smoke_budgets: dict
    #: Whether ``--address`` (a Ray cluster to join) applies.
    takes_address: bool
    #: What ``--resume`` takes, for messages (``"a checkpoint .zip (e.g. RUN/checkpoints/final.zip)"``).
    checkpoint_kind: str
    #: Errors of the engine that are the user's to fix, shown as one line by the CLI.
    user_errors: tuple[type[BaseException], ...]

    def require(self, user: str, *, as_command: bool = False) -> None:
        """Check that the engine's libraries are installed (``training.cli.require_extra``)."""

    def validate(self, cfg: RunConfig, probe) -> None:
        """Check the engine's sections against the game (``probe``: a raw env of the config's
        setting, reset); raise :class:`training.config.ConfigError`."""

    def is_checkpoint(self, path: Path) -> bool:
        """Whether ``path`` can be what ``--resume`` takes (it exists, as a file or a folder)."""

    def train_in(
        self,
        cfg: RunConfig,
        out: Path,
        *,
        resume: str | None,
        progress_bar: bool,
        started: list,
        smoke: bool,
        address: str | None,
    ) -> dict:
        """Train in the prepared run directory ``out``; append to ``started`` when training
        proper begins (from then on a failure keeps the run's files); return the report."""

    def load_agent(self, checkpoint: str | Path, **kwargs) -> Agent:
        """A checkpoint written by :meth:`train_in` as an agent."""


def engine_names() -> list[str]:
    """The registered engines' names."""
    return list(ENGINES)


def get_engine(name: str) -> Engine:
    """The engine registered as ``name``.

    Raises:
        ValueError: no engine of that name (the message lists them).
    """
    if not isinstance(name, str) or name not in ENGINES:
        raise ValueError(
            f"config key 'engine' must be one of {', '.join(repr(n) for n in ENGINES)} "
            f"(training.engines; default 'sb3'), got {name!r}"
        )
    return importlib.import_module(ENGINES[name]).ENGINE
