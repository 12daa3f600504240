"""The trainers behind ``python -m training.train``, one package each, on one small interface.

A config names its engine (``engine:``, default ``sb3``); :func:`get_engine` looks it up in
:data:`ENGINES` and returns the package's ``ENGINE``, an object following :class:`Engine` (the
three live in :mod:`training.engine_registry`, below the modules the engines import, and are
importable from here too):

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
2. ``"<name>": "training.engines.<name>"`` in :data:`ENGINES` (:mod:`training.engine_registry`).

Its ``train_in`` writes the run directory as the others do: ``config.yaml``
(:func:`training.runs.write_config`), ``logs/`` (:class:`training.progress_log.ProgressLogger`, or
SB3's :func:`training.runs.make_logger`),
``checkpoints/``, then the final tournament and ``report.json`` (:func:`training.runs.final_report`,
:func:`training.runs.write_report`). The configs, docs (``docs/training/config.md``) and tests pick the new
engine up from the registry.
"""

from __future__ import annotations

from training.engine_registry import ENGINES, Engine, engine_names, get_engine

__all__ = ["Engine", "ENGINES", "get_engine", "engine_names"]
