"""The networks of :mod:`training.features` as RLlib RLModules, with action masking.

:class:`GameRLModule` is a ``TorchRLModule`` with the ``ValueFunctionAPI`` (what RLlib's PPO
needs) made of the plain modules of a :class:`training.features.ActorCriticNet`, built from a
config's ``policy:`` section as the SB3 trainer builds its ``SpatialMaskablePolicy`` /
``MaskableActorCriticPolicy`` (:func:`training.engines.sb3.trainer.network`; neither stable-baselines3 nor
sb3-contrib is imported here): the same trunk and keyword arguments
(:func:`training.features.extractor_kwargs`), one trunk shared by the policy and the value function
(SB3's default), and

* head ``spatial`` / ``factored``: :class:`~training.features.SpatialActionHead` over the
  flattened convolution map (the env's :class:`~envs.core.observation.ActionLayout`);
  value: SB3's dense MLP (``net_arch.vf`` sizes, Tanh) or
  :class:`~training.features.PooledValueTrunk` (``value_head: pooled``), then ``Linear(., 1)``;
* head ``linear``: SB3's MLP (``net_arch.pi`` sizes, Tanh) then ``Linear(., num_actions)``.

Initialisation follows SB3 (``ortho_init``): orthogonal weights, gain ``sqrt(2)`` for the
extractor and the MLPs, ``0.01`` for the action head (the factored head's last plane layer only),
``1`` for the value output; zero biases. A test checks that both engines build the same
parameter shapes from one ``policy:`` section.

Input: the observation dict of :class:`training.engines.rllib.env.GameMultiAgentEnv`,
``{"observations": <Box or nested Dict of arrays>, "action_mask": (B, num_actions)}``; any dtype
(cast to ``float32`` here). Masking: the logits of illegal actions are replaced by ``-1e9``
(finite: softmax gives them probability 0, and the entropy and KL terms stay finite; a row
with no legal action — a final observation — becomes uniform instead of NaN). Applied in
``_forward`` and therefore in ``_forward_inference``, ``_forward_exploration`` and
``_forward_train``.

``model_config``: ``{"policy": <the config's policy section>, "env_id": ..., "env_kwargs": ...}``
(the env is made once to read its action layout and spaces).
"""

from __future__ import annotations

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule

__all__ = ["GameRLModule", "MASKED_LOGIT", "module_spec"]

#: The logit given to illegal actions.
MASKED_LOGIT = -1.0e9


def _float(x):
    if isinstance(x, dict):
        return {k: _float(v) for k, v in x.items()}
    return x.float() if x.dtype != torch.float32 else x


class GameRLModule(TorchRLModule, ValueFunctionAPI):
    """See the module docstring."""

    def setup(self):
        from envs.registry import spec
        from training.features import ActorCriticNet

        cfg = self.model_config
        pol = cfg["policy"]
        raw = spec(cfg["env_id"]).make_raw(**(cfg.get("env_kwargs") or {}))
        layout = raw.action_layout()
        net = ActorCriticNet.from_policy(self.observation_space["observations"], layout, int(self.action_space.n), pol)
        # Its parts become this module's own children, under the same names: the parameter
        # names (features_extractor.*, action_net.*, ...) and so the checkpoints stay as they were.
        for name, part in net.named_children():
            self.add_module(name, part)

    # -- forward passes ------------------------------------------------------------------------
    def _features(self, batch):
        obs = batch[Columns.OBS]
        return self.features_extractor(_float(obs["observations"])), obs["action_mask"]

    def _logits(self, features, mask):
        logits = self.action_net(self.policy_net(features))
        return logits.masked_fill(mask <= 0, MASKED_LOGIT)

    def _forward(self, batch, **kwargs):
        features, mask = self._features(batch)
        return {Columns.ACTION_DIST_INPUTS: self._logits(features, mask)}

    def _forward_inference(self, batch, **kwargs):
        return self._forward(batch, **kwargs)

    def _forward_exploration(self, batch, **kwargs):
        return self._forward(batch, **kwargs)

    def _forward_train(self, batch, **kwargs):
        features, mask = self._features(batch)
        return {Columns.ACTION_DIST_INPUTS: self._logits(features, mask), Columns.EMBEDDINGS: features}

    def compute_values(self, batch, embeddings=None):
        if embeddings is None:
            embeddings, _ = self._features(batch)
        return self.value_net(self.value_trunk(embeddings)).squeeze(-1)


def module_spec(cfg: dict, observation_space=None, action_space=None):
    """The ``RLModuleSpec`` of a config's network (``policy``, ``env_id``, ``env_kwargs``); the
    spaces default to those of :class:`training.engines.rllib.env.GameMultiAgentEnv` for that setting."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from envs.registry import spec
    from training.engines.rllib.env import obs_space

    if observation_space is None or action_space is None:
        raw = spec(cfg["env_id"]).make_raw(**(cfg.get("env_kwargs") or {}))
        observation_space = obs_space(raw)
        action_space = raw.action_space(raw.possible_agents[0])
    return RLModuleSpec(
        module_class=GameRLModule,
        observation_space=observation_space,
        action_space=action_space,
        model_config={
            "policy": cfg["policy"],
            "env_id": cfg["env_id"],
            "env_kwargs": dict(cfg.get("env_kwargs") or {}),
        },
    )
