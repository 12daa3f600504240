"""Feature extractors for Stable-Baselines3 policies."""

from __future__ import annotations

import gymnasium as gym
import torch
from torch import nn
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

__all__ = ["BoardCNN", "FEATURE_EXTRACTORS", "SpatialActionHead", "SpatialMaskablePolicy"]


class BoardCNN(BaseFeaturesExtractor):
    """A small CNN for square-board observations.

    Input: ``float32 (batch, H, W, C)`` (channels last, as the environments emit them).
    Layers: ``blocks`` convolutions 3x3 with ``channels`` filters, zero padding (so the board's
    edge is visible to the network), ReLU; then flatten and one linear layer to
    ``features_dim`` with ReLU. Output: ``float32 (batch, features_dim)``. With
    ``features_dim=0`` there is no linear layer and the output is the flattened convolution map,
    ``float32 (batch, channels * H * W)`` in ``(channel, row, column)`` order — what
    :class:`SpatialMaskablePolicy` expects.

    Args:
        observation_space: a ``Box`` of shape ``(H, W, C)``.
        channels: filters per convolution.
        blocks: number of convolutions (>= 1).
        features_dim: size of the output vector.

    Raises:
        ValueError: the observation space is not a 3-D ``Box``, or a size is not positive.
    """

    def __init__(self, observation_space: gym.spaces.Box, channels: int = 64, blocks: int = 3, features_dim: int = 256):
        if not isinstance(observation_space, gym.spaces.Box) or len(observation_space.shape) != 3:
            raise ValueError(f"BoardCNN needs a Box observation of shape (H, W, C), got {observation_space}")
        for name, v in (("channels", channels), ("blocks", blocks), ("features_dim", features_dim)):
            if not isinstance(v, int) or v < (0 if name == "features_dim" else 1):
                raise ValueError(f"BoardCNN {name} must be a positive integer (features_dim may be 0), got {v!r}")
        h, w, c = observation_space.shape
        super().__init__(observation_space, features_dim or channels * h * w)
        layers: list[nn.Module] = []
        in_ch = c
        for _ in range(blocks):
            layers += [nn.Conv2d(in_ch, channels, kernel_size=3, padding=1), nn.ReLU()]
            in_ch = channels
        self.channels = channels
        self.cnn = nn.Sequential(*layers, nn.Flatten())
        self.linear = nn.Sequential(nn.Linear(channels * h * w, features_dim), nn.ReLU()) if features_dim else nn.Identity()

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.linear(self.cnn(observations.permute(0, 3, 1, 2)))


class SpatialActionHead(nn.Module):
    """Policy logits from a convolution map: one 1x1 convolution gives a logit per (plane, cell).

    Board games whose actions are "do plane ``p`` at cell ``(row, col)``" (Ataxx: clone or jump
    ``k`` arriving on a square) get a translation-equivariant policy this way. Actions that are
    not on the map (Ataxx's pass) get their logits from a linear layer over the whole map.

    Args:
        channels, height, width: shape of the map (the latent vector is its flattening).
        action_index: ``int`` array ``(planes, height, width)``: the action id of each map cell,
            ``-1`` where there is none. Ids must be distinct.
        num_actions: size of the action space.

    Input ``float32 (batch, channels * height * width)``; output ``float32 (batch, num_actions)``.

    Raises:
        ValueError: a bad layout.
    """

    def __init__(self, channels: int, height: int, width: int, action_index, num_actions: int):
        super().__init__()
        import numpy as np

        index = np.asarray(action_index, dtype=np.int64)
        if index.ndim != 3 or index.shape[1:] != (height, width):
            raise ValueError(f"action_index must have shape (planes, {height}, {width}), got {index.shape}")
        flat = index.ravel()
        pos = np.flatnonzero(flat >= 0)
        acts = flat[pos]
        if len(set(acts.tolist())) != len(acts) or (len(acts) and (acts.min() < 0 or acts.max() >= num_actions)):
            raise ValueError("action_index must hold distinct action ids in [0, num_actions)")
        others = np.setdiff1d(np.arange(num_actions), acts)
        self.shape = (channels, height, width)
        self.num_actions = num_actions
        self.conv = nn.Conv2d(channels, index.shape[0], kernel_size=1)
        self.register_buffer("pos", torch.as_tensor(pos))
        self.register_buffer("acts", torch.as_tensor(acts))
        self.register_buffer("others", torch.as_tensor(others))
        self.other = nn.Linear(channels * height * width, len(others)) if len(others) else None

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        b = latent.shape[0]
        spatial = self.conv(latent.view(b, *self.shape)).flatten(1)
        logits = latent.new_zeros(b, self.num_actions)
        logits[:, self.acts] = spatial[:, self.pos]
        if self.other is not None:
            logits[:, self.others] = self.other(latent)
        return logits


def _spatial_policy_class():
    from functools import partial

    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    class SpatialMaskablePolicy(MaskableActorCriticPolicy):
        """MaskablePPO policy whose action net is a :class:`SpatialActionHead`.

        Extra keyword argument ``action_index`` (see :class:`SpatialActionHead`). Use with a
        features extractor that outputs the flattened convolution map (``BoardCNN`` with
        ``features_dim=0``) and ``net_arch={"pi": [], "vf": [...]}``.
        """

        def __init__(self, *args, action_index=None, **kwargs):
            if action_index is None:
                raise ValueError("SpatialMaskablePolicy needs action_index (the environment's action_layout())")
            self.action_index = action_index
            super().__init__(*args, **kwargs)

        def _build(self, lr_schedule) -> None:
            super()._build(lr_schedule)
            fe = self.pi_features_extractor
            channels = fe.channels if isinstance(fe, BoardCNN) else None
            h, w, _ = self.observation_space.shape
            if channels is None or self.mlp_extractor.latent_dim_pi != channels * h * w:
                raise ValueError("SpatialMaskablePolicy needs BoardCNN with features_dim=0 and net_arch pi=[]")
            self.action_net = SpatialActionHead(channels, h, w, self.action_index, int(self.action_space.n))
            if self.ortho_init:
                self.action_net.apply(partial(self.init_weights, gain=0.01))
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

        def _get_constructor_parameters(self):
            data = super()._get_constructor_parameters()
            data["action_index"] = self.action_index
            return data

    return SpatialMaskablePolicy


try:
    SpatialMaskablePolicy = _spatial_policy_class()
except ImportError:  # pragma: no cover - sb3-contrib is in the "train" extra
    SpatialMaskablePolicy = None

#: Names usable as ``policy.features`` in the YAML configs.
FEATURE_EXTRACTORS = {"board_cnn": BoardCNN}
