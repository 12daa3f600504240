"""The trainers behind ``python -m training.train``, one package each, on one small interface.

A config names its engine (``engine:``, default ``sb3``); :func:`get_engine` looks it up in
:data:`ENGINES` and returns the package's ``ENGINE``, an object following :class:`Engine`:

* ``sb3`` (:mod:`training.engines.sb3`): MaskablePPO of sb3-contrib, the learner's seat against an
  opponent pool, ``n_envs`` games stepped together;
* ``rllib`` (:mod:`training.engines.rllib`): Ray RLlib's PPO, local or on a cluster.

What every run shares is not here: the config's common sections (:mod:`training.config`), and
the run directory's life, the final tournament, the plots and ``report.json``
(:mod:`training.runs`, whose :func:`~training.runs.train` calls the engine).

Adding an engine (e.g. a search-based self-play trainer) is one new package and one line:

1. ``training/engines/<name>/__init__.py`` defining ``ENGINE``, with
   ``config_model``: a :class:`training.config.RunConfig` subclass holding the engine's own
   sections, its ``KEY_ORDER``, ``smoke()`` and ``budgets()``; and the methods of :class:`Engine`
   (import heavy libraries inside the methods: looking an engine up must stay cheap, and
   ``require`` names a missing extra before anything imports it);
2. ``"<name>": "training.engines.<name>"`` in :data:`ENGINES`.

Its ``train_in`` writes the run directory as the others do: ``config.yaml``
(:func:`training.runs.write_config`), ``logs/`` (:class:`training.progress_log.ProgressLogger`, or
SB3's :func:`training.runs.make_logger`),
``checkpoints/``, then the final tournament and ``report.json`` (:func:`training.runs.final_report`,
:func:`training.runs.write_report`). The configs, docs (``docs/config.md``) and tests pick the new
engine up from the registry.
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

    def train_in(self, cfg: RunConfig, out: Path, *, resume: str | None, progress_bar: bool, started: list,
                 smoke: bool, address: str | None) -> dict:
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
        raise ValueError(f"config key 'engine' must be one of {', '.join(repr(n) for n in ENGINES)} "
                         f"(training.engines; default 'sb3'), got {name!r}")
    return importlib.import_module(ENGINES[name]).ENGINE
