"""Feature extractors for Stable-Baselines3 policies."""

from __future__ import annotations

import gymnasium as gym
import torch
from torch import nn
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

__all__ = ["BoardCNN", "FEATURE_EXTRACTORS"]


class BoardCNN(BaseFeaturesExtractor):
    """A small CNN for square-board observations.

    Input: ``float32 (batch, H, W, C)`` (channels last, as the environments emit them).
    Layers: ``blocks`` convolutions 3x3 with ``channels`` filters, zero padding (so the board's
    edge is visible to the network), ReLU; then flatten and one linear layer to
    ``features_dim`` with ReLU. Output: ``float32 (batch, features_dim)``.

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
            if not isinstance(v, int) or v < 1:
                raise ValueError(f"BoardCNN {name} must be a positive integer, got {v!r}")
        super().__init__(observation_space, features_dim)
        h, w, c = observation_space.shape
        layers: list[nn.Module] = []
        in_ch = c
        for _ in range(blocks):
            layers += [nn.Conv2d(in_ch, channels, kernel_size=3, padding=1), nn.ReLU()]
            in_ch = channels
        self.cnn = nn.Sequential(*layers, nn.Flatten())
        self.linear = nn.Sequential(nn.Linear(channels * h * w, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.linear(self.cnn(observations.permute(0, 3, 1, 2)))


#: Names usable as ``policy.features`` in the YAML configs.
FEATURE_EXTRACTORS = {"board_cnn": BoardCNN}
