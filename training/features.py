"""The policy and value networks, as plain torch modules (no stable-baselines3 or Ray import).

Every engine builds its networks from these pieces:

* a *trunk* (what a config calls ``policy.features``) reads one observation and gives a latent
  vector: :class:`BoardCNNTrunk` (a ``Box`` board), :class:`HexBoardTrunk` and
  :class:`CardTableTrunk` (a ``Dict`` of a board and side information, :class:`BoardVectorTrunk`);
* a policy head: :class:`SpatialActionHead`, built by :func:`spatial_action_head` from the game's
  :class:`~envs.core.observation.ActionLayout`, or a linear layer;
* a value trunk: an MLP (:func:`mlp`) or :class:`PooledValueTrunk`;
* :class:`ActorCriticNet`: all of them from one ``policy:`` section, initialised as SB3 does.

The RLlib module (:mod:`training.engines.rllib.module`) uses these modules directly. Stable-Baselines3
needs its own base classes: :mod:`training.engines.sb3.policy` holds the adapters (the features
extractors ``BoardCNN``, ``BoardVectorNet``, ``HexBoardNet``, ``CardTableNet`` and the policy
``SpatialMaskablePolicy``). Those five names can still be imported from this module, which
imports the adapters (and stable-baselines3) only when one of them is asked for: checkpoints name
them at ``training.features.<name>``.

Batches: observations are ``float32`` tensors with a leading batch dimension ``B``; a ``Box``
board is ``(B, H, W, C)`` (channels last, as the environments emit them), a ``Dict`` observation
a ``dict`` of such tensors.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
import torch
from torch import nn

from envs.core.checks import is_plain_int
from envs.core.observation import ActionLayout

if TYPE_CHECKING:
    from training.config import PolicyConfig

__all__ = [
    "ActorCriticNet",
    "BoardCNNTrunk",
    "BoardVectorTrunk",
    "CardTableTrunk",
    "FEATURE_EXTRACTORS",
    "HexBoardTrunk",
    "HexConv2d",
    "PooledValueTrunk",
    "SPATIAL_TRUNKS",
    "SpatialActionHead",
    "mlp",
    "extractor_kwargs",
    "orthogonal_init",
    "spatial_action_head",
]

#: The Stable-Baselines3 adapters importable from here (from :mod:`training.engines.sb3.policy`, on first use).
_SB3_NAMES = ("BoardCNN", "BoardVectorNet", "HexBoardNet", "CardTableNet", "SpatialMaskablePolicy")


def __getattr__(name: str):
    """The SB3 adapters by their old names (checkpoints pickle ``training.features.<name>``);
    importing them needs stable-baselines3 and sb3-contrib (the ``train`` extra)."""
    if name in _SB3_NAMES:
        from training.engines.sb3 import policy as sb3_policy

        return getattr(sb3_policy, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def orthogonal_init(module: nn.Module, gain: float = 1.0) -> None:
    """SB3's ``ActorCriticPolicy.init_weights``: orthogonal weights of the given gain and zero
    biases for a ``Linear`` or ``Conv2d`` layer; other modules are left alone (use with
    ``module.apply(partial(orthogonal_init, gain=...))``)."""
    if isinstance(module, (nn.Linear, nn.Conv2d)):
        nn.init.orthogonal_(module.weight, gain=gain)
        if module.bias is not None:
            module.bias.data.fill_(0.0)


def mlp(n_in: int, sizes) -> tuple[nn.Sequential, int]:
    """``Linear + Tanh`` layers of the given sizes (SB3's ``MlpExtractor`` branches).

    Returns the ``nn.Sequential`` (input ``float32 (B, n_in)``, output ``float32 (B, out)``;
    empty, the identity, when ``sizes`` is) and ``out``, its output size (``n_in`` when empty).
    """
    layers: list[nn.Module] = []
    for n in sizes:
        layers += [nn.Linear(n_in, n), nn.Tanh()]
        n_in = n
    return nn.Sequential(*layers), n_in


def _check_sizes(owner: str, channels, blocks, features_dim, allow_bool: bool = False) -> None:
    for name, v in (("channels", channels), ("blocks", blocks), ("features_dim", features_dim)):
        bad_type = (isinstance(v, bool) and not allow_bool) or not isinstance(v, int)
        if bad_type or v < (0 if name == "features_dim" else 1):
            raise ValueError(f"{owner} {name} must be a positive integer (features_dim may be 0), got {v!r}")


class BoardCNNTrunk(nn.Module):
    """A small CNN for square-board observations (``policy.features: board_cnn``).

    Input: ``float32 (B, H, W, C)`` (channels last, as the environments emit them).
    Layers: ``blocks`` convolutions 3x3 with ``channels`` filters, zero padding (so the board's
    edge is visible to the network), ReLU; then flatten and one linear layer to
    ``features_dim`` with ReLU. Output: ``float32 (B, out_dim)`` with ``out_dim = features_dim``.
    With ``features_dim=0`` there is no linear layer and the output is the flattened
    convolution map, ``float32 (B, channels * H * W)`` in ``(channel, row, column)`` order —
    what :class:`SpatialActionHead` reads.

    Args:
        observation_space: a ``Box`` of shape ``(H, W, C)``.
        channels: filters per convolution.
        blocks: number of convolutions (>= 1).
        features_dim: size of the output vector (0: the map itself).

    Attributes: ``channels``, ``height``, ``width``, ``out_dim``; ``board_key`` (``None``: the
    observation is the board), ``append_keys`` (empty) and ``appended_dim`` (0), as
    :class:`BoardVectorTrunk` has them.

    Raises:
        ValueError: the observation space is not a 3-D ``Box``, or a size is not positive.
    """

    board_key = None
    append_keys: tuple[str, ...] = ()
    append_sizes: tuple[int, ...] = ()
    appended_dim = 0
    out_dim: int

    def __init__(self, observation_space: gym.spaces.Box, channels: int = 64, blocks: int = 3, features_dim: int = 256):
        owner = type(self).__name__
        if not isinstance(observation_space, gym.spaces.Box) or len(observation_space.shape) != 3:
            raise ValueError(f"{owner} needs a Box observation of shape (H, W, C), got {observation_space}")
        _check_sizes(owner, channels, blocks, features_dim, allow_bool=True)
        h, w, c = observation_space.shape
        super().__init__()
        self.out_dim = features_dim or channels * h * w
        layers: list[nn.Module] = []
        in_ch = c
        for _ in range(blocks):
            layers += [nn.Conv2d(in_ch, channels, kernel_size=3, padding=1), nn.ReLU()]
            in_ch = channels
        self.channels = channels
        self.height, self.width = h, w
        self.cnn = nn.Sequential(*layers, nn.Flatten())
        self.linear = (
            nn.Sequential(nn.Linear(channels * h * w, features_dim), nn.ReLU()) if features_dim else nn.Identity()
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """``float32 (B, H, W, C)`` -> ``float32 (B, out_dim)``."""
        return self.linear(self.cnn(observations.permute(0, 3, 1, 2)))


class HexConv2d(nn.Conv2d):
    """A 3x3 convolution over a hexagonal grid stored in axial coordinates.

    A hex board laid out as a square array ``[r, q]`` (axial coordinates, row ``r``, column
    ``q``) has its six neighbours of ``(r, q)`` at ``(r, q +- 1)``, ``(r +- 1, q)``,
    ``(r - 1, q + 1)`` and ``(r + 1, q - 1)``: the 3x3 square minus the corners ``(r - 1, q - 1)``
    and ``(r + 1, q + 1)``. This layer is a 3x3 convolution whose weights on those two corners are
    held at zero, so every filter sees exactly a hexagon (the cell and its six neighbours) and
    the network is equivariant to the board's translations.

    Args: as ``torch.nn.Conv2d`` with ``kernel_size=3`` and ``padding=1`` fixed. Input
    ``float32 (B, in_channels, H, W)``, output ``float32 (B, out_channels, H, W)``.
    """

    hex_mask: torch.Tensor  # a buffer, registered in __init__

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__(in_channels, out_channels, kernel_size=3, padding=1)
        mask = torch.ones(1, 1, 3, 3)
        mask[..., 0, 0] = 0.0
        mask[..., 2, 2] = 0.0
        self.register_buffer("hex_mask", mask)
        with torch.no_grad():
            self.weight.mul_(self.hex_mask)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self._conv_forward(x, self.weight * self.hex_mask, self.bias)


class BoardVectorTrunk(nn.Module):
    """A CNN over a board plus an MLP over everything else, for ``Dict`` observations.

    For games whose observation is a board and side information (hands, scores, counters):
    the ``Dict`` entry ``board_key`` is a ``float32 (B, H, W, C)`` board (channels last); every
    other entry is flattened and concatenated into one vector (in the order of the ``Dict``'s
    keys), encoded by a linear layer with ReLU to ``channels`` values and added to every cell of
    the first convolution's output (a learned, board-wide bias: each cell's features can then
    depend on the hands). ``blocks`` convolutions with ``channels`` filters and ReLU follow the
    same pattern as :class:`BoardCNNTrunk`; ``hex_grid=True`` uses :class:`HexConv2d` (boards in
    axial coordinates), otherwise plain 3x3 convolutions (which see diagonal neighbours, as
    Smartrix's matching rule does).

    Output: ``float32 (B, out_dim)``. With ``features_dim > 0``: ``out_dim = features_dim``,
    after a final linear layer with ReLU over the flattened map concatenated with the vector's
    encoding. With ``features_dim=0``: the flattened convolution map itself,
    ``channels * H * W`` values in ``(channel, row, column)`` order, as
    :class:`SpatialActionHead` reads it, followed by the raw (flattened) entries named in
    ``append`` (``appended_dim`` values, for a factored head whose plane features come from the
    observation, such as Tantrix's hand slots).

    Args:
        observation_space: a ``Dict`` holding ``board_key`` (a 3-D ``Box``) and 1 or more other
            ``Box`` entries.
        board_key: the board's key (default: the only 3-D ``Box`` entry).
        hex_grid: hexagonal 3x3 kernels (see :class:`HexConv2d`).
        channels, blocks, features_dim: as :class:`BoardCNNTrunk`.
        append: vector entries to pass through raw after the map (``features_dim=0`` only).

    Raises:
        ValueError: the space is not a ``Dict`` with one 3-D ``Box`` board, a bad size, or a bad
            ``append``.
    """

    out_dim: int

    def __init__(
        self,
        observation_space: gym.spaces.Dict,
        board_key: str | None = None,
        hex_grid: bool = False,
        channels: int = 64,
        blocks: int = 3,
        features_dim: int = 0,
        append: list[str] | tuple = (),
    ):
        owner = type(self).__name__
        if not isinstance(observation_space, gym.spaces.Dict):
            raise ValueError(f"{owner} needs a Dict observation space, got {observation_space}")
        boards = [
            k for k, sp in observation_space.spaces.items() if isinstance(sp, gym.spaces.Box) and len(sp.shape) == 3
        ]
        if board_key is None:
            if len(boards) != 1:
                raise ValueError(f"{owner}: give board_key; 3-D Box entries: {boards}")
            board_key = boards[0]
        if board_key not in boards:
            raise ValueError(
                f"{owner}: board_key {board_key!r} is not a 3-D Box entry of the observation; 3-D Box entries: {boards}"
            )
        others = [k for k in observation_space.spaces if k != board_key]
        vector_spaces: dict[str, gym.spaces.Box] = {}
        for k in others:
            space = observation_space.spaces[k]
            if not isinstance(space, gym.spaces.Box):
                raise ValueError(f"{owner}: entry {k!r} must be a Box, got {space}")
            vector_spaces[k] = space
        _check_sizes(owner, channels, blocks, features_dim)
        append = list(append)
        for k in append:
            if k not in others:
                raise ValueError(
                    f"{owner}: append entry {k!r} is not a vector entry of the observation; vector entries: {others}"
                )
        if append and features_dim:
            raise ValueError(f"{owner}: append needs features_dim=0 (it feeds a spatial action head)")
        board_space = observation_space.spaces[board_key]
        assert isinstance(board_space, gym.spaces.Box)  # board_key is in boards
        h, w, c = board_space.shape
        vec = sum(int(np.prod(vector_spaces[k].shape)) for k in others)
        super().__init__()
        self.append_keys = append
        self.append_sizes = tuple(int(np.prod(vector_spaces[k].shape)) for k in append)
        self.appended_dim = sum(self.append_sizes)
        self.out_dim = features_dim or channels * h * w + self.appended_dim
        conv = HexConv2d if hex_grid else (lambda i, o: nn.Conv2d(i, o, kernel_size=3, padding=1))
        self.board_key, self.vector_keys = board_key, others
        self.channels, self.height, self.width = channels, h, w
        self.first = conv(c, channels)
        self.vector = nn.Sequential(nn.Linear(vec, channels), nn.ReLU()) if vec else None
        rest: list[nn.Module] = []
        for _ in range(blocks - 1):
            rest += [conv(channels, channels), nn.ReLU()]
        self.rest = nn.Sequential(*rest, nn.Flatten())
        self.linear = (
            nn.Sequential(nn.Linear(channels * h * w + channels, features_dim), nn.ReLU()) if features_dim else None
        )

    def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
        """``{key: float32 (B, ...)}`` -> ``float32 (B, out_dim)``."""
        board = observations[self.board_key].permute(0, 3, 1, 2)
        x = self.first(board)
        if self.vector is not None:
            v = torch.cat([observations[k].flatten(1) for k in self.vector_keys], dim=1)
            e = self.vector(v)
            x = x + e[:, :, None, None]
        else:
            e = x.new_zeros(x.shape[0], self.channels)
        x = self.rest(torch.relu(x))
        if self.linear is None:
            if self.append_keys:
                return torch.cat([x] + [observations[k].flatten(1) for k in self.append_keys], dim=1)
            return x
        return self.linear(torch.cat([x, e], dim=1))


class HexBoardTrunk(BoardVectorTrunk):
    """:class:`BoardVectorTrunk` with hexagonal kernels, for a board in axial coordinates
    (``policy.features: hex_board_net``; the entry ``board_key``: training passes the action
    layout's ``obs_key``); every other entry is the vector. Input and output as
    :class:`BoardVectorTrunk`."""

    def __init__(
        self,
        observation_space: gym.spaces.Dict,
        board_key: str | None = None,
        channels: int = 64,
        blocks: int = 3,
        features_dim: int = 0,
        append: list[str] | tuple = (),
    ):
        super().__init__(
            observation_space,
            board_key=board_key,
            hex_grid=True,
            channels=channels,
            blocks=blocks,
            features_dim=features_dim,
            append=append,
        )


class CardTableTrunk(BoardVectorTrunk):
    """:class:`BoardVectorTrunk` with square 3x3 kernels (which see diagonal neighbours), for a grid
    of cards or squares (``policy.features: card_table_net``; the entry ``board_key``: training
    passes the action layout's ``obs_key``); every other entry is the vector. Input and output
    as :class:`BoardVectorTrunk`."""

    def __init__(
        self,
        observation_space: gym.spaces.Dict,
        board_key: str | None = None,
        channels: int = 64,
        blocks: int = 3,
        features_dim: int = 0,
        append: list[str] | tuple = (),
    ):
        super().__init__(
            observation_space,
            board_key=board_key,
            hex_grid=False,
            channels=channels,
            blocks=blocks,
            features_dim=features_dim,
            append=append,
        )


class SpatialActionHead(nn.Module):
    """Policy logits from a convolution map: one 1x1 convolution gives a logit per (plane, cell).

    Board games whose actions are "do plane ``p`` at cell ``(row, col)``" (Ataxx: clone or jump
    ``k`` arriving on a square) get a translation-equivariant policy this way. Actions that are
    not on the map (Ataxx's pass) get their logits from a linear layer over the whole map.

    With ``plane_features`` (one feature vector per plane, e.g. a Smartrix card's spots in one
    rotation) the head is *factored*: a 1x1 convolution embeds each cell into ``plane_dim``
    values plus a bias, a small MLP embeds each plane's features the same way, and the logit of
    (plane ``p``, cell ``x``) is their dot product plus both biases. Planes that look alike then
    share what is learnt about them, instead of one independent filter per plane.

    Args:
        channels, height, width: shape of the map (the latent vector is its flattening).
        action_index: ``int`` array ``(planes, height, width)``: the action id of each map cell,
            ``-1`` where there is none. Ids must be distinct. Actions absent from it get their
            logits from a dense layer over the whole map (keep them few: Ataxx's pass).
        num_actions: size of the action space.
        plane_features: optional ``float (planes, F)``: the factored head's plane descriptions.
        plane_dim: size of the factored head's embeddings.
        plane_index: optional ``int (planes, F)``: the factored head reads plane ``p``'s
            description from the observation: positions in the ``extra_dim`` values that follow
            the map in the latent vector (see :class:`BoardVectorTrunk`'s ``append``).
        extra_dim: how many values follow the map in the latent vector.

    Input ``float32 (B, channels * height * width + extra_dim)``; output ``float32 (B, num_actions)``.
    Built with PyTorch's default initialisation; :meth:`init_orthogonal` gives SB3's.

    Raises:
        ValueError: a bad layout.
    """

    # buffers, registered in __init__ (plane_index or plane_features only for a factored head)
    pos: torch.Tensor
    acts: torch.Tensor
    others: torch.Tensor
    plane_index: torch.Tensor
    plane_features: torch.Tensor

    def __init__(
        self,
        channels: int,
        height: int,
        width: int,
        action_index,
        num_actions: int,
        plane_features=None,
        plane_dim: int = 16,
        plane_index=None,
        extra_dim: int = 0,
    ):
        super().__init__()

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
        self.extra_dim = int(extra_dim)
        if plane_features is not None and plane_index is not None:
            raise ValueError("give plane_features (fixed) or plane_index (from the observation), not both")
        if plane_index is not None:
            gather = np.asarray(plane_index, dtype=np.int64)
            if gather.ndim != 2 or gather.shape[0] != index.shape[0] or gather.min() < 0 or gather.max() >= extra_dim:
                raise ValueError(
                    f"plane_index must be an int array ({index.shape[0]}, F) of positions in the "
                    f"{extra_dim} values after the map"
                )
            self.register_buffer("plane_index", torch.as_tensor(gather))
            n_features = gather.shape[1]
        elif plane_features is not None:
            pf = torch.tensor(np.asarray(plane_features, dtype=np.float32))  # a copy (layouts are read-only)
            if pf.ndim != 2 or pf.shape[0] != index.shape[0]:
                raise ValueError(f"plane_features must have shape ({index.shape[0]}, F), got {tuple(pf.shape)}")
            self.register_buffer("plane_features", pf)
            n_features = pf.shape[1]
        else:
            self.conv = nn.Conv2d(channels, index.shape[0], kernel_size=1)
        if not hasattr(self, "conv"):  # factored: an embedding + bias per cell and per plane
            if not is_plain_int(plane_dim) or plane_dim < 1:
                raise ValueError(f"plane_dim must be a positive integer, got {plane_dim!r}")
            self.plane_dim = plane_dim
            self.cell = nn.Conv2d(channels, plane_dim + 1, kernel_size=1)
            self.plane = nn.Sequential(nn.Linear(n_features, plane_dim), nn.ReLU(), nn.Linear(plane_dim, plane_dim + 1))
        self.register_buffer("pos", torch.as_tensor(pos))
        self.register_buffer("acts", torch.as_tensor(acts))
        self.register_buffer("others", torch.as_tensor(others))
        self.other = nn.Linear(channels * height * width + self.extra_dim, len(others)) if len(others) else None

    @property
    def factored(self) -> bool:
        """Whether the logits are products of cell and plane embeddings (no ``conv``)."""
        return not hasattr(self, "conv")

    def init_orthogonal(self) -> None:
        """SB3's initialisation for an action net (:func:`orthogonal_init`), adapted to the head.

        Plain head: gain 0.01 everywhere (small initial logits, as SB3 does). Factored head: the
        logits are a product of two embeddings, and shrinking both (SB3's 0.01 on every layer)
        would also shrink each one's gradient (the other factor) and stall learning; so gain 1
        everywhere, then 0.01 for the last layer of the plane embedding and the off-map layer.
        """
        if not self.factored:
            self.apply(partial(orthogonal_init, gain=0.01))
            return
        self.apply(partial(orthogonal_init, gain=1.0))
        orthogonal_init(self.plane[-1], gain=0.01)
        if self.other is not None:
            orthogonal_init(self.other, gain=0.01)

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        """``float32 (B, channels * height * width + extra_dim)`` -> ``float32 (B, num_actions)``."""
        b = latent.shape[0]
        n_map = self.shape[0] * self.shape[1] * self.shape[2]
        grid = latent[:, :n_map].reshape(b, *self.shape)
        if hasattr(self, "conv"):
            spatial = self.conv(grid).flatten(1)
        else:  # factored: logit(plane p, cell x) = <u(x), v(p)> + cell bias(x) + plane bias(p)
            d = self.plane_dim
            c = self.cell(grid).flatten(2)  # (b, d + 1, cells)
            if hasattr(self, "plane_index"):  # each plane described by values of the observation
                v = self.plane(latent[:, n_map:][:, self.plane_index])  # (b, planes, d + 1)
            else:
                v = self.plane(self.plane_features).expand(b, -1, -1)
            spatial = (torch.einsum("bdx,bpd->bpx", c[:, :d], v[..., :d]) + c[:, d:] + v[..., d:]).flatten(1)
        logits = latent.new_zeros(b, self.num_actions)
        logits[:, self.acts] = spatial[:, self.pos]
        if self.other is not None:
            logits[:, self.others] = self.other(latent)
        return logits


class PooledValueTrunk(nn.Module):
    """Value trunk over a flattened convolution map, after AlphaZero's value head.

    Input ``float32 (B, C*H*W + extra)``: the map (channel-major, as the features extractors
    flatten it) followed by ``extra`` appended features. The map is reduced by a 1x1 convolution
    to ``reduce`` channels (ReLU) and also averaged over the cells; those, with the appended
    features, go through ``Linear + Tanh`` layers of the given ``sizes``. Output
    ``float32 (B, sizes[-1])``.

    Why: a dense ``Linear(C*H*W, 64) + Tanh`` (SB3's value MLP over the flattened map) has a
    very wide input — 14,400 for Tantrix at window radius 10 — and Adam moves every weight at
    the same rate, so its pre-activations grow by about ``lr * fan_in`` per step and the Tanh
    saturates: the value becomes a constant (explained variance 0) within the first updates.
    Reducing first keeps the fan-in near ``reduce*H*W + C``.
    """

    def __init__(self, channels: int, height: int, width: int, extra_dim: int = 0, sizes=(64,), reduce: int = 2):
        super().__init__()
        if not sizes:
            raise ValueError("PooledValueTrunk needs at least one layer size (net_arch vf)")
        self.shape = (channels, height, width)
        self.reduce = nn.Conv2d(channels, reduce, 1)
        layers, n_in = [], reduce * height * width + channels + extra_dim
        for n in sizes:
            layers += [nn.Linear(n_in, n), nn.Tanh()]
            n_in = n
        self.mlp = nn.Sequential(*layers)
        self.out_dim = n_in

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        """``float32 (B, C*H*W + extra)`` -> ``float32 (B, out_dim)``."""
        b = latent.shape[0]
        n_map = self.shape[0] * self.shape[1] * self.shape[2]
        grid = latent[:, :n_map].reshape(b, *self.shape)
        parts = [torch.relu(self.reduce(grid)).flatten(1), grid.mean(dim=(2, 3)), latent[:, n_map:]]
        return self.mlp(torch.cat(parts, dim=1))


#: The trunks by their names in a config's ``policy.features``.
FEATURE_EXTRACTORS: dict[str, type[nn.Module]] = {
    "board_cnn": BoardCNNTrunk,
    "hex_board_net": HexBoardTrunk,
    "card_table_net": CardTableTrunk,
}

#: The trunks whose output starts with a flattened convolution map (what a spatial head reads).
SPATIAL_TRUNKS = (BoardCNNTrunk, BoardVectorTrunk)


def spatial_action_head(trunk: nn.Module, layout: ActionLayout | None, num_actions: int) -> SpatialActionHead:
    """The :class:`SpatialActionHead` that reads ``trunk``'s convolution map where ``layout`` puts
    the actions (factored when the layout describes its planes).

    Args:
        trunk: a :data:`SPATIAL_TRUNKS` instance (or an adapter of one) built with
            ``features_dim=0`` on the layout's ``obs_key`` (its ``board_key``); a layout with
            ``plane_index`` needs the entry ``plane_key`` among the trunk's ``append`` entries
            (the head reads it after the map).
        layout: the environment's :class:`~envs.core.observation.ActionLayout`.
        num_actions: the size of the action space.

    Returns:
        the head, with PyTorch's default initialisation (see :meth:`SpatialActionHead.init_orthogonal`):
        input ``float32 (B, trunk.out_dim)``, output ``float32 (B, num_actions)``.

    Raises:
        ValueError: ``layout`` is not an ``ActionLayout``, or the trunk does not fit it (the message says how).
    """
    if not isinstance(layout, ActionLayout):
        raise ValueError(f"a spatial action head needs an ActionLayout, got {type(layout).__name__}")
    if (
        not isinstance(trunk, SPATIAL_TRUNKS)
        or trunk.out_dim != trunk.channels * trunk.height * trunk.width + trunk.appended_dim
    ):
        raise ValueError(
            "a spatial or factored head needs a convolutional features extractor (board_cnn, "
            "hex_board_net, card_table_net) with features_dim 0"
        )
    map_key = trunk.board_key  # a trunk over a plain Box: None
    if map_key != layout.obs_key:
        raise ValueError(
            f"the action layout lies on the observation entry {layout.obs_key!r} but the features "
            f"extractor's map is {map_key!r}: give it board_key={layout.obs_key!r}"
        )
    plane_index = None
    if layout.plane_index is not None:  # positions in the observation entry plane_key
        key = layout.plane_key
        assert key is not None  # an ActionLayout gives plane_key with plane_index
        if key not in trunk.append_keys:
            raise ValueError(
                f"the factored head reads {key!r} from the observation: add it to the features extractor's append list"
            )
        offset = sum(trunk.append_sizes[: list(trunk.append_keys).index(key)])
        plane_index = layout.plane_index + offset
    return SpatialActionHead(
        trunk.channels,
        trunk.height,
        trunk.width,
        layout.index,
        num_actions,
        plane_features=layout.plane_features,
        plane_index=plane_index,
        extra_dim=trunk.appended_dim,
    )


def extractor_kwargs(pol: Mapping[str, Any] | PolicyConfig, layout: ActionLayout | None) -> dict:
    """The trunk's keyword arguments: a config's ``policy.features_kwargs`` completed with what the
    environment's :class:`~envs.core.observation.ActionLayout` already says, so configs need not
    repeat it (``pol``: the config's ``policy`` section, with ``features``, ``features_kwargs``
    and ``head``).

    * ``board_key`` (extractors over a ``Dict`` observation): the layout's ``obs_key``;
    * ``features_dim``: 0 with a spatial or factored head (the head reads the whole map);
    * ``append``: with a factored head whose plane descriptions come from the observation, the
      layout's ``plane_key`` is added (the head reads those values after the map).

    A value given in the config is kept (validation rejects the contradictory ones).
    """
    kwargs = dict(pol["features_kwargs"])
    params = inspect.signature(FEATURE_EXTRACTORS[pol["features"]].__init__).parameters
    if layout is not None and layout.obs_key is not None and "board_key" in params:
        kwargs.setdefault("board_key", layout.obs_key)
    if pol["head"] != "linear":
        kwargs.setdefault("features_dim", 0)
        plane_key = layout.plane_key if layout is not None else None
        if pol["head"] == "factored" and plane_key is not None and "append" in params:
            append = list(kwargs.get("append", []))
            kwargs["append"] = append + ([plane_key] if plane_key not in append else [])
    return kwargs


class ActorCriticNet(nn.Module):
    """A whole policy-and-value network from a config's ``policy:`` section, as plain modules.

    Children (in this order; their names are the parameter names' first part):

    * ``features_extractor``: the trunk ``features`` (:data:`FEATURE_EXTRACTORS`), shared by the
      policy and the value function (SB3's default);
    * ``policy_net``: head ``spatial`` / ``factored``: empty; head ``linear``: :func:`mlp` of the
      ``net_arch["pi"]`` sizes;
    * ``action_net``: head ``spatial`` / ``factored``: :func:`spatial_action_head` (factored when
      the layout describes its planes); head ``linear``: ``Linear(., num_actions)``;
    * ``value_trunk``: :func:`mlp` of the ``net_arch["vf"]`` sizes, or with ``value_head="pooled"``
      (spatial heads only) :class:`PooledValueTrunk` of those sizes;
    * ``value_net``: ``Linear(., value_outputs)`` (1 by default: one value).

    Initialisation follows SB3's ``ortho_init`` (:func:`orthogonal_init`): gain ``sqrt(2)`` for
    the trunk, ``policy_net`` and ``value_trunk``, ``1`` for ``value_net``, ``0.01`` for the
    action head (:meth:`SpatialActionHead.init_orthogonal` for a spatial one).

    Args:
        observation_space: the game's observation space (``Box`` or ``Dict``).
        layout: the game's :class:`~envs.core.observation.ActionLayout` (needed by the spatial
            and factored heads; may be ``None`` with head ``linear``).
        num_actions: the size of the action space.
        features: a name of :data:`FEATURE_EXTRACTORS`, or a trunk class.
        features_kwargs: the trunk's keyword arguments (complete: :func:`extractor_kwargs` fills in
            what the layout says; :meth:`from_policy` does it).
        head: ``"spatial"``, ``"factored"`` or ``"linear"``.
        net_arch: ``{"pi": [...], "vf": [...]}`` (anything else: no hidden layers).
        value_head: ``"dense"`` or ``"pooled"``.
        value_outputs: values per position (>= 1): 1 gives ``values float32 (B,)`` (PPO's and
            the two-sided AlphaZero value), ``K > 1`` gives ``float32 (B, K)`` (AlphaZero's value
            of each of ``K`` sides, :mod:`training.agents.alphazero_net`). With 1 the network and
            its initialisation are exactly those of before the option existed.

    Input: an observation batch (see the module docstring); :meth:`forward` returns
    ``(logits float32 (B, num_actions), values float32 (B,) or (B, value_outputs))``.

    Raises:
        ValueError: an unknown ``features``, ``head`` or ``value_head``, ``value_outputs`` < 1, or
            pieces that do not fit (see the trunks and :func:`spatial_action_head`).
    """

    def __init__(
        self,
        observation_space: gym.Space,
        layout: ActionLayout | None,
        num_actions: int,
        features: str | type = "board_cnn",
        features_kwargs: dict | None = None,
        head: str = "spatial",
        net_arch: dict | None = None,
        value_head: str = "dense",
        value_outputs: int = 1,
    ):
        super().__init__()
        if isinstance(value_outputs, bool) or not isinstance(value_outputs, (int, np.integer)) or value_outputs < 1:
            raise ValueError(f"value_outputs must be an integer >= 1, got {value_outputs!r}")
        self.value_outputs = int(value_outputs)
        if head not in ("spatial", "factored", "linear"):
            raise ValueError(f"head must be 'spatial', 'factored' or 'linear', got {head!r}")
        if value_head not in ("dense", "pooled"):
            raise ValueError(f"value_head must be 'dense' or 'pooled', got {value_head!r}")
        if isinstance(features, str):
            if features not in FEATURE_EXTRACTORS:
                raise ValueError(f"features must be one of {sorted(FEATURE_EXTRACTORS)}, got {features!r}")
            features = FEATURE_EXTRACTORS[features]
        fe = features(observation_space, **(features_kwargs or {}))
        self.features_extractor = fe
        self.policy_net: nn.Module
        self.action_net: nn.Module
        self.value_trunk: nn.Module
        arch = net_arch if isinstance(net_arch, dict) else {}
        dim = fe.out_dim
        if head in ("spatial", "factored"):
            self.policy_net = nn.Sequential()
            self.action_net = spatial_action_head(fe, layout, num_actions)
            if value_head == "pooled":
                self.value_trunk = PooledValueTrunk(
                    fe.channels, fe.height, fe.width, fe.appended_dim, sizes=list(arch.get("vf", []))
                )
                vdim = self.value_trunk.out_dim
            else:
                self.value_trunk, vdim = mlp(dim, arch.get("vf", []))
        else:
            if value_head == "pooled":
                raise ValueError("value_head 'pooled' needs a spatial or factored head")
            self.policy_net, pdim = mlp(dim, arch.get("pi", []))
            self.action_net = nn.Linear(pdim, num_actions)
            self.value_trunk, vdim = mlp(dim, arch.get("vf", []))
        self.value_net = nn.Linear(vdim, self.value_outputs)
        for part, gain in (
            (self.features_extractor, np.sqrt(2)),
            (self.policy_net, np.sqrt(2)),
            (self.value_trunk, np.sqrt(2)),
            (self.value_net, 1.0),
        ):
            part.apply(partial(orthogonal_init, gain=gain))
        if isinstance(self.action_net, SpatialActionHead):
            self.action_net.init_orthogonal()
        else:
            self.action_net.apply(partial(orthogonal_init, gain=0.01))

    @classmethod
    def from_policy(
        cls,
        observation_space: gym.Space,
        layout: ActionLayout | None,
        num_actions: int,
        policy: Mapping[str, Any] | PolicyConfig,
        value_outputs: int = 1,
    ) -> ActorCriticNet:
        """The network of a config's (validated) ``policy`` section: ``features``,
        ``features_kwargs`` (completed by :func:`extractor_kwargs`), ``head``, ``net_arch``,
        ``value_head``; ``value_outputs`` as in the constructor."""
        return cls(
            observation_space,
            layout,
            num_actions,
            features=policy["features"],
            features_kwargs=extractor_kwargs(policy, layout),
            head=policy["head"],
            net_arch=policy["net_arch"],
            value_head=policy["value_head"],
            value_outputs=value_outputs,
        )

    def logits(self, features: torch.Tensor) -> torch.Tensor:
        """``float32 (B, features_extractor.out_dim)`` -> unmasked logits ``float32 (B, num_actions)``."""
        return self.action_net(self.policy_net(features))

    def value(self, features: torch.Tensor) -> torch.Tensor:
        """``float32 (B, features_extractor.out_dim)`` -> values ``float32 (B,)`` (one value
        output) or ``float32 (B, value_outputs)``."""
        out = self.value_net(self.value_trunk(features))
        one = getattr(self, "value_outputs", 1) == 1  # (a module pickled before the option has one)
        return out.squeeze(-1) if one else out

    def forward(self, observations) -> tuple[torch.Tensor, torch.Tensor]:
        """An observation batch -> ``(logits float32 (B, num_actions), values float32 (B,) or (B,
        value_outputs))``."""
        features = self.features_extractor(observations)
        return self.logits(features), self.value(features)
