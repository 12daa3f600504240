"""RLlib checkpoints as agents: ``rllib:PATH[:sample]``.

:class:`RLlibAgent` plays the ``main`` RLModule (:class:`training.engines.rllib.module.GameRLModule`) of
a checkpoint written by the RLlib trainer (``training.train`` with an ``engine: rllib``
config): a directory holding ``tabletop_rl.json`` (the setting it was trained on) and RLlib's
checkpoint tree. The module is restored on the CPU with ``RLModule.from_checkpoint``: no Ray
cluster is started. :class:`ModuleAgent` plays a live module (the trainer's evaluations).

The agent thinks in the acting agent's frame (:attr:`Agent.frame` ``"agent"``): it reads the
observation and its action mask, as the trained module did.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np

from training.agents.base import Agent
from training.agents.policy import setting_words

if TYPE_CHECKING:
    from ray.rllib.core.rl_module.torch import TorchRLModule

__all__ = ["ModuleAgent", "RLlibAgent", "parse_rllib_spec", "META_FILE", "module_dir"]

#: The file the trainer writes into each checkpoint directory: the training setting.
META_FILE = "tabletop_rl.json"
_MODULE_PATH = ("learner_group", "learner", "rl_module")


def parse_rllib_spec(spec: str) -> tuple[str, bool] | None:
    """``"rllib:PATH"`` -> ``(PATH, False)``, ``"rllib:PATH:sample"`` -> ``(PATH, True)``; another
    spec -> ``None``.

    Raises:
        ValueError: ``rllib:`` with no path.
    """
    if not spec.startswith("rllib:"):
        return None
    path = spec[len("rllib:") :]
    sample = False
    if path.endswith(":sample"):
        path, sample = path[: -len(":sample")], True
    if not path:
        raise ValueError(f"agent spec {spec!r}: expected rllib:PATH (an RLlib checkpoint directory of training.train)")
    return path, sample


def module_dir(checkpoint: Path, module_id: str = "main") -> Path:
    """The directory of RLModule ``module_id`` inside an algorithm checkpoint."""
    return Path(checkpoint).joinpath(*_MODULE_PATH, module_id)


class ModuleAgent(Agent):
    """A :class:`~training.engines.rllib.module.GameRLModule` (or any RLModule taking the same
    ``{"observations", "action_mask"}`` dict) as an agent: the most probable legal action, or with
    ``deterministic=False`` a draw from the masked policy with ``self.rng``.

    Args:
        module: the RLModule (put in eval mode; not copied).
        deterministic: argmax (default) or sample.
        seed: seed of the sampling generator.
        name: the agent's name.
        trained_on: ``(env_id, env_kwargs)``: :meth:`check_env` refuses another setting.
    """

    frame = "agent"

    def __init__(
        self,
        module,
        deterministic: bool = True,
        seed: int | None = None,
        name: str = "rllib",
        trained_on: tuple[str, dict] | None = None,
    ):
        super().__init__(seed)
        self.module = module
        self.deterministic = deterministic
        self.name = name
        self.trained_on = trained_on

    def check_env(self, env) -> None:
        """Refuse an environment of another id or other spaces than the module's (as
        :meth:`training.agents.PolicyAgent.check_env` does).

        Raises:
            ValueError: naming the agent and the setting it was trained on.
        """
        raw = getattr(env, "unwrapped", env)
        first = raw.possible_agents[0]
        if self.trained_on is not None:
            env_id = self.trained_on[0]
            name = raw.metadata.get("name")
            if name != env_id:
                raise ValueError(f"{self.name} was trained on {self._setting()}, not on {name}: play it there")
        space = self.module.observation_space["observations"]
        theirs = raw.observation_space(first)["observation"]
        n = int(raw.action_space(first).n)

        def shapes(sp):
            return {k: shapes(v) for k, v in sp.spaces.items()} if hasattr(sp, "spaces") else tuple(sp.shape)

        if shapes(space) != shapes(theirs) or int(self.module.action_space.n) != n:
            setting = (
                f"{self._setting()} (observations {shapes(space)}, {int(self.module.action_space.n)} actions)"
                if self.trained_on
                else f"observations {shapes(space)} and {int(self.module.action_space.n)} actions"
            )
            raise ValueError(
                f"{self.name} was trained on {setting}, but this environment has observations "
                f"{shapes(theirs)} and {n} actions: create it with the settings of the training run "
                "(env_kwargs in the run's config.yaml; --env-kwargs for training.evaluate and training.play)"
            )

    def _setting(self) -> str:
        assert self.trained_on is not None  # called only for a module that knows its setting
        return setting_words(*self.trained_on)

    def _act(self, state, obs):
        if obs is None:
            raise ValueError(f"{self.name}: an RLlib agent needs the observation dict, got obs=None")
        import torch
        from ray.rllib.core.columns import Columns

        def batch(x):
            if isinstance(x, dict):
                return {k: batch(v) for k, v in x.items()}
            return torch.from_numpy(np.array(x))[None]  # a copy: observations may be read-only views

        mask = np.asarray(obs["action_mask"])
        with torch.no_grad():
            out = self.module.forward_inference(
                {Columns.OBS: {"observations": batch(obs["observation"]), "action_mask": batch(mask)}}
            )
        logits = out[Columns.ACTION_DIST_INPUTS][0].double().numpy()
        logits[mask == 0] = -np.inf
        if self.deterministic:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        p /= p.sum()
        return int(self.rng.choice(len(p), p=p))


class RLlibAgent(ModuleAgent):
    """The ``main`` module of an RLlib checkpoint of ``training.train`` (spec ``rllib:PATH``).

    Args:
        path: the checkpoint directory (``<run>/checkpoints/final`` or ``step_<N>``).
        deterministic, seed: as :class:`ModuleAgent`.

    Raises:
        FileNotFoundError: no such directory.
        ValueError: not a checkpoint of the RLlib trainer (no ``tabletop_rl.json`` or no
            ``main`` module), or the ``rllib`` extra is missing.
    """

    def __init__(self, path, deterministic: bool = True, seed: int | None = None):
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"RLlib checkpoint {path} does not exist")
        path = path.resolve()  # RLlib reads checkpoints through pyarrow, which takes absolute paths only
        meta_file = path / META_FILE
        if not path.is_dir() or not meta_file.is_file() or not module_dir(path).is_dir():
            raise ValueError(
                f"{path} is not an RLlib checkpoint of training.train (expected a directory with "
                f"{META_FILE} and {'/'.join(_MODULE_PATH)}/main)"
            )
        from training.cli import require_rllib

        require_rllib(f"the RLlib agent {path}")  # the same modules and message as the RLlib trainer's
        from ray.rllib.core.rl_module.rl_module import RLModule

        meta = json.loads(meta_file.read_text())
        # RLlib's own from_checkpoint builds the module through the RLModuleConfig it deprecates and
        # logs a warning about it at every load: not the user's concern, so kept out of their terminal.
        quiet = logging.getLogger("ray._common.deprecation")  # the logger of deprecation_warning
        level = quiet.level
        quiet.setLevel(logging.ERROR)
        try:
            # the checkpoint holds a GameRLModule, a TorchRLModule (from_checkpoint is typed as any RLModule)
            module = cast("TorchRLModule", RLModule.from_checkpoint(module_dir(path)))
        finally:
            quiet.setLevel(level)
        module.eval()
        super().__init__(
            module,
            deterministic=deterministic,
            seed=seed,
            name=f"rllib:{path}",
            trained_on=(meta["env_id"], meta.get("env_kwargs") or {}),
        )
        self.path = path
        self.meta = meta
