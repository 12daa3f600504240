"""Feature extractors for Stable-Baselines3 policies."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from envs.core.observation import ActionLayout

__all__ = [
    "PooledValueTrunk",
    "BoardCNN",
    "BoardVectorNet",
    "HexBoardNet",
    "CardTableNet",
    "HexConv2d",
    "FEATURE_EXTRACTORS",
    "SpatialActionHead",
    "SpatialMaskablePolicy",
]


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
        self.height, self.width = h, w
        self.cnn = nn.Sequential(*layers, nn.Flatten())
        self.linear = nn.Sequential(nn.Linear(channels * h * w, features_dim), nn.ReLU()) if features_dim else nn.Identity()

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.linear(self.cnn(observations.permute(0, 3, 1, 2)))


class HexConv2d(nn.Conv2d):
    """A 3x3 convolution over a hexagonal grid stored in axial coordinates.

    A hex board laid out as a square array ``[r, q]`` (axial coordinates, row ``r``, column
    ``q``) has its six neighbours of ``(r, q)`` at ``(r, q +- 1)``, ``(r +- 1, q)``,
    ``(r - 1, q + 1)`` and ``(r + 1, q - 1)``: the 3x3 square minus the corners ``(r - 1, q - 1)``
    and ``(r + 1, q + 1)``. This layer is a 3x3 convolution whose weights on those two corners are
    held at zero, so every filter sees exactly a hexagon (the cell and its six neighbours) and
    the network is equivariant to the board's translations.

    Args: as ``torch.nn.Conv2d`` with ``kernel_size=3`` and ``padding=1`` fixed.
    """

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


class BoardVectorNet(BaseFeaturesExtractor):
    """A CNN over a board plus an MLP over everything else, for ``Dict`` observations.

    For games whose observation is a board and side information (hands, scores, counters):
    the ``Dict`` entry ``board_key`` is a ``float32 (H, W, C)`` board (channels last); every
    other entry is flattened and concatenated into one vector (in the order of the ``Dict``'s
    keys), encoded by a linear layer with ReLU to ``channels`` values and added to every cell of
    the first convolution's output (a learned, board-wide bias: each cell's features can then
    depend on the hands). ``blocks`` convolutions with ``channels`` filters and ReLU follow the
    same pattern as :class:`BoardCNN`; ``hex_grid=True`` uses :class:`HexConv2d` (boards in
    axial coordinates), otherwise plain 3x3 convolutions (which see diagonal neighbours, as
    Smartrix's matching rule does).

    Output: ``float32 (batch, features_dim)`` after a final linear layer with ReLU over the
    flattened map concatenated with the vector's encoding; with ``features_dim=0`` the
    flattened convolution map itself, ``float32 (batch, channels * H * W)`` in
    ``(channel, row, column)`` order, as :class:`SpatialMaskablePolicy` expects, followed by the
    raw (flattened) entries named in ``append`` (for a factored head whose plane features come
    from the observation, such as Tantrix's hand slots).

    Args:
        observation_space: a ``Dict`` holding ``board_key`` (a 3-D ``Box``) and 1 or more other
            ``Box`` entries.
        board_key: the board's key (default: the only 3-D ``Box`` entry).
        hex_grid: hexagonal 3x3 kernels (see :class:`HexConv2d`).
        channels, blocks, features_dim: as :class:`BoardCNN`.
        append: vector entries to pass through raw after the map (``features_dim=0`` only).

    Raises:
        ValueError: the space is not a ``Dict`` with one 3-D ``Box`` board, a bad size, or a bad
            ``append``.
    """

    def __init__(self, observation_space: gym.spaces.Dict, board_key: str | None = None, hex_grid: bool = False,
                 channels: int = 64, blocks: int = 3, features_dim: int = 0, append: list[str] | tuple = ()):
        if not isinstance(observation_space, gym.spaces.Dict):
            raise ValueError(f"{type(self).__name__} needs a Dict observation space, got {observation_space}")
        boards = [k for k, sp in observation_space.spaces.items() if isinstance(sp, gym.spaces.Box) and len(sp.shape) == 3]
        if board_key is None:
            if len(boards) != 1:
                raise ValueError(f"{type(self).__name__}: give board_key; 3-D Box entries: {boards}")
            board_key = boards[0]
        if board_key not in boards:
            raise ValueError(f"{type(self).__name__}: board_key {board_key!r} is not a 3-D Box entry of the "
                             f"observation; 3-D Box entries: {boards}")
        others = [k for k in observation_space.spaces if k != board_key]
        for k in others:
            if not isinstance(observation_space.spaces[k], gym.spaces.Box):
                raise ValueError(f"{type(self).__name__}: entry {k!r} must be a Box, got {observation_space.spaces[k]}")
        for name, v in (("channels", channels), ("blocks", blocks), ("features_dim", features_dim)):
            if isinstance(v, bool) or not isinstance(v, int) or v < (0 if name == "features_dim" else 1):
                raise ValueError(f"{type(self).__name__} {name} must be a positive integer (features_dim may be 0), "
                                 f"got {v!r}")
        append = list(append)
        for k in append:
            if k not in others:
                raise ValueError(f"{type(self).__name__}: append entry {k!r} is not a vector entry of the observation; "
                                 f"vector entries: {others}")
        if append and features_dim:
            raise ValueError(f"{type(self).__name__}: append needs features_dim=0 (it feeds a spatial action head)")
        h, w, c = observation_space.spaces[board_key].shape
        vec = sum(int(np.prod(observation_space.spaces[k].shape)) for k in others)
        self.append_keys = append
        self.appended_dim = sum(int(np.prod(observation_space.spaces[k].shape)) for k in append)
        super().__init__(observation_space, features_dim or channels * h * w + self.appended_dim)
        conv = HexConv2d if hex_grid else (lambda i, o: nn.Conv2d(i, o, kernel_size=3, padding=1))
        self.board_key, self.vector_keys = board_key, others
        self.channels, self.height, self.width = channels, h, w
        self.first = conv(c, channels)
        self.vector = nn.Sequential(nn.Linear(vec, channels), nn.ReLU()) if vec else None
        rest: list[nn.Module] = []
        for _ in range(blocks - 1):
            rest += [conv(channels, channels), nn.ReLU()]
        self.rest = nn.Sequential(*rest, nn.Flatten())
        self.linear = (nn.Sequential(nn.Linear(channels * h * w + channels, features_dim), nn.ReLU())
                       if features_dim else None)

    def forward(self, observations: dict[str, torch.Tensor]) -> torch.Tensor:
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


class HexBoardNet(BoardVectorNet):
    """:class:`BoardVectorNet` with hexagonal kernels, for a board in axial coordinates (the entry
    ``board_key``: training passes the action layout's ``obs_key``); every other entry is the vector."""

    def __init__(self, observation_space: gym.spaces.Dict, board_key: str | None = None, channels: int = 64,
                 blocks: int = 3, features_dim: int = 0, append: list[str] | tuple = ()):
        super().__init__(observation_space, board_key=board_key, hex_grid=True, channels=channels, blocks=blocks,
                         features_dim=features_dim, append=append)


class CardTableNet(BoardVectorNet):
    """:class:`BoardVectorNet` with square 3x3 kernels (which see diagonal neighbours), for a grid of
    cards or squares (the entry ``board_key``: training passes the action layout's ``obs_key``);
    every other entry is the vector."""

    def __init__(self, observation_space: gym.spaces.Dict, board_key: str | None = None, channels: int = 64,
                 blocks: int = 3, features_dim: int = 0, append: list[str] | tuple = ()):
        super().__init__(observation_space, board_key=board_key, hex_grid=False, channels=channels, blocks=blocks,
                         features_dim=features_dim, append=append)


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
            the map in the latent vector (see ``BoardVectorNet``'s ``append``).
        extra_dim: how many values follow the map in the latent vector.

    Input ``float32 (batch, channels * height * width)``; output ``float32 (batch, num_actions)``.

    Raises:
        ValueError: a bad layout.
    """

    def __init__(self, channels: int, height: int, width: int, action_index, num_actions: int,
                 plane_features=None, plane_dim: int = 16, plane_index=None, extra_dim: int = 0):
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
                raise ValueError(f"plane_index must be an int array ({index.shape[0]}, F) of positions in the "
                                 f"{extra_dim} values after the map")
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
            if isinstance(plane_dim, bool) or not isinstance(plane_dim, int) or plane_dim < 1:
                raise ValueError(f"plane_dim must be a positive integer, got {plane_dim!r}")
            self.plane_dim = plane_dim
            self.cell = nn.Conv2d(channels, plane_dim + 1, kernel_size=1)
            self.plane = nn.Sequential(nn.Linear(n_features, plane_dim), nn.ReLU(), nn.Linear(plane_dim, plane_dim + 1))
        self.register_buffer("pos", torch.as_tensor(pos))
        self.register_buffer("acts", torch.as_tensor(acts))
        self.register_buffer("others", torch.as_tensor(others))
        self.other = nn.Linear(channels * height * width + self.extra_dim, len(others)) if len(others) else None

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
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
        b = latent.shape[0]
        n_map = self.shape[0] * self.shape[1] * self.shape[2]
        grid = latent[:, :n_map].reshape(b, *self.shape)
        parts = [torch.relu(self.reduce(grid)).flatten(1), grid.mean(dim=(2, 3)), latent[:, n_map:]]
        return self.mlp(torch.cat(parts, dim=1))


def _spatial_policy_class():
    from functools import partial

    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    class SpatialMaskablePolicy(MaskableActorCriticPolicy):
        """MaskablePPO policy whose action net is a :class:`SpatialActionHead`.

        Extra keyword argument ``action_layout``: the environment's
        :class:`~envs.core.observation.ActionLayout` (``env.unwrapped.action_layout()``). Its
        ``index`` places the logits on the convolution map; with ``plane_features`` or
        ``plane_index`` the head is factored (see :class:`SpatialActionHead`); ``plane_index``
        reads the observation entry ``plane_key``, which the features extractor must ``append``.
        Use with a features extractor that outputs the flattened convolution map of the
        layout's ``obs_key`` (``BoardCNN`` for a plain ``Box``, ``HexBoardNet`` or
        ``CardTableNet`` with ``board_key=obs_key``, all with ``features_dim=0``) and
        ``net_arch={"pi": [], "vf": [...]}``. Works with ``Box`` and ``Dict`` observations.

        ``value_head``: ``"dense"`` (default; SB3's value MLP of sizes ``net_arch["vf"]`` over
        the whole flattened map) or ``"pooled"`` (:class:`PooledValueTrunk` with those sizes:
        use it for large boards, where the dense one saturates).
        """

        def __init__(self, *args, action_layout: ActionLayout | None = None, value_head="dense", **kwargs):
            if not isinstance(action_layout, ActionLayout):
                raise ValueError("SpatialMaskablePolicy needs action_layout, an ActionLayout (the environment's "
                                 f"env.unwrapped.action_layout()), got {type(action_layout).__name__}")
            if value_head not in ("dense", "pooled"):
                raise ValueError(f"value_head must be 'dense' or 'pooled', got {value_head!r}")
            self.value_head = value_head
            self.action_layout = action_layout
            super().__init__(*args, **kwargs)

        def _build(self, lr_schedule) -> None:
            # SB3 first builds (and orthogonally initialises) a dense action net of
            # latent x num_actions, which this class replaces: with 20k+ actions that costs tens
            # of seconds of QR decompositions per policy. Build a weightless placeholder instead.
            self.action_dist.proba_distribution_net = lambda latent_dim: nn.Identity()
            try:
                super()._build(lr_schedule)
            finally:
                del self.action_dist.proba_distribution_net  # back to the class's method
            fe = self.pi_features_extractor
            spatial = isinstance(fe, (BoardCNN, BoardVectorNet))
            channels, h, w = (fe.channels, fe.height, fe.width) if spatial else (None, 0, 0)
            extra = getattr(fe, "appended_dim", 0)
            if channels is None or self.mlp_extractor.latent_dim_pi != channels * h * w + extra:
                raise ValueError("SpatialMaskablePolicy needs a convolutional features extractor (BoardCNN, "
                                 "HexBoardNet, CardTableNet) with features_dim=0, and net_arch pi=[]")
            layout = self.action_layout
            map_key = getattr(fe, "board_key", None)  # BoardCNN reads a plain Box: None
            if map_key != layout.obs_key:
                raise ValueError(f"the action layout lies on the observation entry {layout.obs_key!r} but the features "
                                 f"extractor's map is {map_key!r}: give it board_key={layout.obs_key!r}")
            plane_index = None
            if layout.plane_index is not None:  # positions in the observation entry plane_key
                key = layout.plane_key
                if key not in getattr(fe, "append_keys", []):
                    raise ValueError(f"the factored head reads {key!r} from the observation: add it to the "
                                     f"features extractor's append list")
                offset = 0
                for k in fe.append_keys:
                    if k == key:
                        break
                    offset += int(np.prod(self.observation_space.spaces[k].shape))
                plane_index = layout.plane_index + offset
            self.action_net = SpatialActionHead(channels, h, w, layout.index, int(self.action_space.n),
                                                plane_features=layout.plane_features, plane_index=plane_index,
                                                extra_dim=extra)
            if self.ortho_init:
                head = self.action_net
                if hasattr(head, "conv"):  # small initial logits, as SB3 does for its action net
                    head.apply(partial(self.init_weights, gain=0.01))
                else:
                    # Factored head: logits are a product of two embeddings. Shrinking both (SB3's
                    # 0.01 on every layer) would also shrink each one's gradient (the other factor)
                    # and stall learning; shrink only the last layer of the plane embedding.
                    head.apply(partial(self.init_weights, gain=1.0))
                    self.init_weights(head.plane[-1], gain=0.01)
                    if head.other is not None:
                        self.init_weights(head.other, gain=0.01)
            if self.value_head == "pooled":
                sizes = list(self.net_arch.get("vf", [])) if isinstance(self.net_arch, dict) else []
                if not sizes:
                    raise ValueError("value_head 'pooled' needs net_arch vf sizes, e.g. {'pi': [], 'vf': [64]}")
                self.mlp_extractor.value_net = PooledValueTrunk(channels, h, w, extra, sizes=sizes)
            self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

        def _get_constructor_parameters(self):
            data = super()._get_constructor_parameters()
            data["action_layout"] = self.action_layout
            data["value_head"] = self.value_head
            return data

    return SpatialMaskablePolicy


try:
    SpatialMaskablePolicy = _spatial_policy_class()
except ImportError:  # pragma: no cover - sb3-contrib is in the "train" extra
    SpatialMaskablePolicy = None

#: Names usable as ``policy.features`` in the YAML configs.
FEATURE_EXTRACTORS = {"board_cnn": BoardCNN, "hex_board_net": HexBoardNet, "card_table_net": CardTableNet}
