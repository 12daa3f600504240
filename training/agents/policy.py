"""Trained agents: a MaskablePPO policy playing from the observation, and checkpoint specs.

The policy agent thinks in the acting agent's frame (:attr:`Agent.frame` ``"agent"``): the
observation and its action mask are already in that frame.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from training.agents.base import Agent

__all__ = ["PolicyAgent", "policy_action", "parse_checkpoint_spec"]


def policy_action(
    policy,
    observation: np.ndarray | dict,
    mask: np.ndarray,
    deterministic: bool = True,
    rng: np.random.Generator | None = None,
) -> int:
    """Masked action from an SB3 ``MaskableActorCriticPolicy`` for one observation.

    Faster than ``policy.predict`` for single observations: one forward pass under
    ``torch.no_grad``; illegal logits are set to ``-inf``; ``deterministic`` takes the argmax,
    otherwise samples from the masked softmax with ``rng``.

    Args:
        policy: the policy (``model.policy``).
        observation: one observation, without a batch dimension: an array, or a dict of arrays
            for games with ``Dict`` observations.
        mask: the action mask (nonzero = legal), shape ``(num_actions,)``.
        deterministic: take the most probable legal action instead of sampling.
        rng: generator for sampling (``None``: a fresh unseeded one).

    Returns:
        The action index (legal according to ``mask``).

    Raises:
        ValueError: ``mask`` has no legal action.
    """
    if not np.any(mask):
        raise ValueError("policy_action: the action mask has no legal action (the game is over?)")
    import torch

    obs_t: torch.Tensor | dict[str, torch.Tensor]
    with torch.no_grad():
        if isinstance(observation, dict):
            obs_t = {k: torch.as_tensor(v, dtype=torch.float32).unsqueeze(0) for k, v in observation.items()}
        else:
            obs_t = torch.as_tensor(observation, dtype=torch.float32).unsqueeze(0)
        features = policy.extract_features(obs_t, policy.pi_features_extractor)
        latent_pi = policy.mlp_extractor.forward_actor(features)
        logits = policy.action_net(latent_pi)[0].numpy().astype(np.float64)
    logits[mask == 0] = -np.inf
    if deterministic:
        return int(np.argmax(logits))
    p = np.exp(logits - logits.max())
    p /= p.sum()
    rng = rng if rng is not None else np.random.default_rng()
    return int(rng.choice(len(p), p=p))


class PolicyAgent(Agent):
    """A trained MaskablePPO policy.

    The agent reads only the observation and answers in its own frame (:attr:`frame` is
    ``"agent"``): ``act(state, obs)`` needs ``obs``.

    Args:
        model: a path to a checkpoint ``.zip`` written by ``training.train``, a loaded
            ``MaskablePPO`` model, or its ``policy``.
        deterministic: play the most probable legal action (default) or sample.
        seed: seed of the sampling generator.
        name: the agent's name (default: the checkpoint's file stem, or ``"policy"``).
        trained_on: ``(env_id, env_kwargs)``, the setting the policy was trained on, when known
            (the shipped agents, :mod:`training.agents.shipped`): :meth:`check_env` then also
            refuses an environment of another id, and its messages name that setting.

    Raises:
        FileNotFoundError: the checkpoint does not exist.
        ValueError: the path is not a file, or the file is not a MaskablePPO checkpoint (an empty
            or foreign zip, a corrupt file, ...); the message names the file.
    """

    frame = "agent"

    def __init__(
        self,
        model,
        deterministic: bool = True,
        seed: int | None = None,
        name: str | None = None,
        trained_on: tuple[str, dict] | None = None,
    ):
        super().__init__(seed)
        self.trained_on = trained_on
        self.path: Path | None = None  # the checkpoint file, when loaded from one (named in errors)
        if isinstance(model, (str, Path)):
            path = Path(model)
            if not path.exists():
                prefix, sep, rest = str(model).partition(":")
                hint = (
                    f" (a MaskablePPO .zip is given without a prefix: {rest}; az:PATH is an AlphaZero .pt)"
                    if sep and prefix in ("az", "rllib") and Path(rest).exists()
                    else ""
                )
                raise FileNotFoundError(f"checkpoint {path} does not exist{hint}")
            if not path.is_file():
                raise ValueError(f"checkpoint {path} is not a file")
            from training.cli import require_extra

            require_extra("train", f"the checkpoint agent {path}", ("torch", "stable_baselines3", "sb3_contrib"))
            from sb3_contrib import MaskablePPO

            try:
                model = MaskablePPO.load(path, device="cpu")
            except Exception as e:  # SB3 raises AssertionError, KeyError, BadZipFile, ... for foreign files
                raise ValueError(f"{path} is not a MaskablePPO checkpoint written by training.train: {e}") from e
            self.name = name or path.stem
            self.path = path
        else:
            self.name = name or "policy"
        self.policy = getattr(model, "policy", model)
        self.policy.set_training_mode(False)
        self.deterministic = deterministic

    def check_env(self, env) -> None:
        """Refuse an environment whose spaces are not the policy's (and, for a policy with
        :attr:`trained_on`, one of another env id).

        Raises:
            ValueError: naming the agent, its checkpoint and, when known, its training setting.
        """
        if self.trained_on is not None:
            env_id = getattr(env, "unwrapped", env).metadata.get("name")
            if env_id != self.trained_on[0]:
                raise ValueError(
                    f"{self.name}{f' ({self.path})' if self.path else ''} was trained on "
                    f"{self._setting()}, not on {env_id}: play it there"
                )
        first = env.possible_agents[0]
        self.check_spaces(env.observation_space(first)["observation"], env.action_space(first).n)

    def _setting(self) -> str:
        assert self.trained_on is not None  # called only when it is known
        return setting_words(*self.trained_on)

    def check_spaces(self, observation, num_actions: int) -> None:
        """Raise a clear error when the environment's spaces are not those the policy was trained on.

        Args:
            observation: the environment's ``observation`` space (``Box`` or ``Dict``), or one
                observation (an array, or a dict of arrays).
            num_actions: the size of its action space.

        Raises:
            ValueError: the shapes differ (the message says how, and that the environment
                settings of the training run, in its ``config.yaml``, must be used).
        """
        import gymnasium as gym

        def shapes(x):
            if isinstance(x, gym.spaces.Dict):
                x = x.spaces
            return {k: tuple(v.shape) for k, v in x.items()} if isinstance(x, dict) else tuple(x.shape)

        mine, theirs = shapes(self.policy.observation_space), shapes(observation)
        n = int(self.policy.action_space.n)
        if mine != theirs or n != int(num_actions):
            if self.trained_on is not None:
                raise ValueError(
                    f"{self.name}{f' ({self.path})' if self.path else ''} was trained on {self._setting()} "
                    f"(observations {mine}, {n} actions), but this environment has {theirs} and {num_actions}: "
                    f"create it with that setting (--env-kwargs for training.evaluate and training.play)"
                )
            raise ValueError(
                f"{self.name}{f' ({self.path})' if self.path else ''} was trained on "
                f"observations {mine} and {n} actions, but this environment has "
                f"{theirs} and {num_actions}: create it with the settings of the training run (env_kwargs in the "
                "run's config.yaml; --env-kwargs for training.evaluate and training.play)"
            )

    def _act(self, state, obs):
        if obs is None:
            raise ValueError(f"{self.name}: a policy agent needs the observation dict, got obs=None")
        if not getattr(self, "_checked", False):
            self.check_spaces(obs["observation"], len(obs["action_mask"]))
            self._checked = True
        return policy_action(self.policy, obs["observation"], obs["action_mask"], self.deterministic, self.rng)


def setting_words(env_id: str, env_kwargs: dict) -> str:
    """A training setting in words, e.g. ``twixt_v0 with --env-kwargs '{"board_size": 8}'`` (for the
    errors of agents refusing another setting)."""
    import json

    return f"{env_id} with " + (f"--env-kwargs '{json.dumps(env_kwargs)}'" if env_kwargs else "its default settings")


def parse_checkpoint_spec(spec: str) -> tuple[str, bool] | None:
    """Whether an agent spec names a checkpoint, and which.

    A spec is a checkpoint when it ends with ``.zip`` (whatever else it contains, ``:``
    included) or with ``.zip:sample``; only that last ``:sample`` is split off (from the right).
    The ``.zip`` suffix is matched case-insensitively.

    Args:
        spec: an agent spec.

    Returns:
        ``(path, sample)`` for a checkpoint spec, else ``None``.

    Raises:
        ValueError: the spec is ``PATH.zip:OPTION`` with an option other than ``sample``.
    """
    if spec.lower().endswith(".zip"):
        return spec, False
    head, sep, option = spec.rpartition(":")
    if sep and head.lower().endswith(".zip"):
        if option != "sample":
            raise ValueError(f"checkpoint spec {spec!r}: the only option is ':sample', got {option!r}")
        return head, True
    return None
