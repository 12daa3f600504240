"""The AlphaZero network: a trunk and policy head of :mod:`training.features` and a value head ending
in ``tanh`` (AlphaZero, Silver et al. 2018: ``(p, v) = f(s)``, ``v`` in ``[-1, 1]`` from the side of
the player to move), and the batched evaluation function the search calls.

**Values per side.** A game setting of ``K`` sides (teams, as ``GameState.teams()`` lists them:
:func:`num_sides`) has a value head of :func:`value_outputs` outputs:

* ``K = 2`` (two players, or two teams: Double TwixT, Tantrix Doubles, Smartrix teams): one output,
  the value of the mover's side (the other side's is its negation: the search's zero-sum two-side
  path). This is the network of every two-sided config since the engine began, unchanged, so their
  checkpoints and shipped agents load and train bit for bit as before.
* ``K > 2`` (Tantrix and Smartrix with 3 or 4 players, no teams): ``K`` outputs, each through
  ``tanh``, in the search's **mover-relative order** (:mod:`training.search.gumbel`): column ``j``
  is the value of side ``(mover's side + j) mod K``, the mover's first, then the following seats in
  turn order. One network serves every seat.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from training.features import ActorCriticNet

__all__ = [
    "AlphaZeroNet",
    "build_network",
    "num_sides",
    "value_outputs",
    "obs_tensor",
    "make_evaluate",
    "masked_logits",
]


class AlphaZeroNet(nn.Module):
    """Policy logits and a ``tanh`` value from one observation batch.

    ``net`` is an :class:`~training.features.ActorCriticNet` built from a config's ``policy``
    section (the trunk ``policy.features``, the spatial/factored/linear head from the game's
    :class:`~envs.core.observation.ActionLayout`, the value MLP ``net_arch.vf``); its value output
    goes through ``tanh``.

    :meth:`forward`: an observation batch (``float32 (B, H, W, C)`` or a dict of such tensors) ->
    ``(logits float32 (B, A), value float32 (B,))``, the value in ``[-1, 1]`` from the mover's side
    (a network of one value output), or ``value float32 (B, K)`` for a net of ``K > 1`` value
    outputs (``net.value_outputs``): each side's value in the mover-relative order (module
    docstring).
    """

    def __init__(self, net: ActorCriticNet):
        super().__init__()
        self.net = net

    def forward(self, observations) -> tuple[torch.Tensor, torch.Tensor]:
        logits, value = self.net(observations)
        return logits, torch.tanh(value)


def num_sides(env_id: str, env_kwargs: dict) -> int:
    """``K``: the sides of a game setting, its teams as ``GameState.teams()`` lists them (a seat
    alone is a side), from the registry (``envs.spec(env_id).teams(**env_kwargs)``).

    Raises:
        ValueError: an unknown environment or bad ``env_kwargs`` (the registry's errors).
    """
    from envs.registry import spec

    return len(spec(env_id).teams(**env_kwargs))


def value_outputs(sides: int) -> int:
    """The value head's outputs for ``sides`` sides: 1 for two sides (the mover's value; the
    other's is its negation), else ``sides`` (module docstring)."""
    return 1 if int(sides) == 2 else int(sides)


def build_network(env_id: str, env_kwargs: dict, policy: dict) -> AlphaZeroNet:
    """The network of a (validated) ``policy`` section for a game setting, initialised as
    :class:`~training.features.ActorCriticNet` does (draws from torch's global generator), with
    :func:`value_outputs` of the setting's :func:`num_sides` value outputs.

    Raises:
        ValueError: an unknown environment or a network that does not fit its observation.
    """
    from envs.registry import spec

    raw = spec(env_id).make_raw(**env_kwargs)
    space = raw.observation_space(raw.possible_agents[0])["observation"]
    num_actions = int(raw.action_space(raw.possible_agents[0]).n)
    outputs = value_outputs(num_sides(env_id, env_kwargs))
    return AlphaZeroNet(
        ActorCriticNet.from_policy(space, raw.action_layout(), num_actions, dict(policy), value_outputs=outputs)
    )


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
    ``(N,)``, the values from the mover's side, or ``(N, K)`` for a network of ``K > 1`` value
    outputs: each side's value in the search's mover-relative order (module docstring)."""

    def evaluate(observations, masks):
        network.eval()
        with torch.no_grad():
            logits, values = network(obs_tensor(observations))
        return logits.numpy(), values.numpy()

    return evaluate
