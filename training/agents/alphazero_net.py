"""The AlphaZero network: a trunk and policy head of :mod:`training.features` and a value head ending
in ``tanh`` (AlphaZero, Silver et al. 2018: ``(p, v) = f(s)``, ``v`` in ``[-1, 1]`` from the side of
the player to move), and the batched evaluation function the search calls.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from training.features import ActorCriticNet

__all__ = ["AlphaZeroNet", "build_network", "obs_tensor", "make_evaluate", "masked_logits"]


class AlphaZeroNet(nn.Module):
    """Policy logits and a ``tanh`` value from one observation batch.

    ``net`` is an :class:`~training.features.ActorCriticNet` built from a config's ``policy``
    section (the trunk ``policy.features``, the spatial/factored/linear head from the game's
    :class:`~envs.core.observation.ActionLayout`, the value MLP ``net_arch.vf``); its value output
    goes through ``tanh``.

    :meth:`forward`: an observation batch (``float32 (B, H, W, C)`` or a dict of such tensors) ->
    ``(logits float32 (B, A), value float32 (B,))``, the value in ``[-1, 1]`` from the mover's side.
    """

    def __init__(self, net: ActorCriticNet):
        super().__init__()
        self.net = net

    def forward(self, observations) -> tuple[torch.Tensor, torch.Tensor]:
        logits, value = self.net(observations)
        return logits, torch.tanh(value)


def build_network(env_id: str, env_kwargs: dict, policy: dict) -> AlphaZeroNet:
    """The network of a (validated) ``policy`` section for a game setting, initialised as
    :class:`~training.features.ActorCriticNet` does (draws from torch's global generator).

    Raises:
        ValueError: an unknown environment or a network that does not fit its observation.
    """
    from envs.registry import spec

    raw = spec(env_id).make_raw(**env_kwargs)
    space = raw.observation_space(raw.possible_agents[0])["observation"]
    num_actions = int(raw.action_space(raw.possible_agents[0]).n)
    return AlphaZeroNet(ActorCriticNet.from_policy(space, raw.action_layout(), num_actions, dict(policy)))


def obs_tensor(obs):
    """An observation batch (numpy array or dict of arrays, any float dtype) as ``float32`` tensors."""
    if isinstance(obs, dict):
        return {k: torch.as_tensor(np.asarray(v, dtype=np.float32)) for k, v in obs.items()}
    return torch.as_tensor(np.asarray(obs, dtype=np.float32))


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with illegal actions (``mask`` false) set to ``-1e9`` (finite, so that a zero
    target times their log-probability stays 0)."""
    return logits.masked_fill(~mask, -1e9)


def make_evaluate(network: nn.Module):
    """The search's ``evaluate(observations, masks) -> (logits, values)``
    (:data:`training.search.gumbel.Evaluate`): one forward pass of ``network`` under
    ``torch.no_grad`` (the network in eval mode), returning ``float32`` numpy arrays ``(N, A)`` and
    ``(N,)``, the values from the mover's side."""

    def evaluate(observations, masks):
        network.eval()
        with torch.no_grad():
            logits, values = network(obs_tensor(observations))
        return logits.numpy(), values.numpy()

    return evaluate
