"""Stable-Baselines3 adapters of the networks in :mod:`training.features` (the ``train`` extra).

SB3 wants its features extractors to derive from ``BaseFeaturesExtractor`` and its policy from
``ActorCriticPolicy``; this module gives the plain trunks and heads of :mod:`training.features`
those shapes, adding no layer of its own:

* :class:`BoardCNN`, :class:`BoardVectorNet`, :class:`HexBoardNet`, :class:`CardTableNet`: the
  trunks :class:`~training.features.BoardCNNTrunk`, :class:`~training.features.BoardVectorTrunk`,
  :class:`~training.features.HexBoardTrunk`, :class:`~training.features.CardTableTrunk` as
  ``BaseFeaturesExtractor`` subclasses (the same constructor, parameters and forward pass;
  ``features_dim`` is the trunk's ``out_dim``). :data:`FEATURE_EXTRACTORS` names them as a
  config's ``policy.features`` does.
* :class:`SpatialMaskablePolicy`: sb3-contrib's ``MaskableActorCriticPolicy`` whose action net is
  :func:`training.features.spatial_action_head` (and, optionally, whose value trunk is
  :class:`~training.features.PooledValueTrunk`).

Checkpoints name these classes by import path: the five classes say they live in
:mod:`training.features` (``__module__``), whose module ``__getattr__`` imports this module on
first use; so the agents shipped in ``training/shipped/`` (saved when the classes were defined
there) and the checkpoints saved from now on load through the same path, wherever this module
goes.
"""

from __future__ import annotations

from typing import cast

import gymnasium as gym
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from envs.core.observation import ActionLayout
from training import features as nets

__all__ = ["BoardCNN", "BoardVectorNet", "CardTableNet", "FEATURE_EXTRACTORS", "HexBoardNet", "SpatialMaskablePolicy"]


def _as_extractor(extractor: BoardCNN | BoardVectorNet, observation_space: gym.Space) -> None:
    """What ``BaseFeaturesExtractor.__init__`` sets (the trunk's ``__init__`` ran in its place:
    both start from ``nn.Module.__init__``, which must run once)."""
    assert extractor.out_dim > 0
    extractor._observation_space = observation_space
    extractor._features_dim = extractor.out_dim


class BoardCNN(BaseFeaturesExtractor, nets.BoardCNNTrunk):
    """:class:`~training.features.BoardCNNTrunk` as an SB3 features extractor: input
    ``float32 (B, H, W, C)``, output ``float32 (B, features_dim)``; arguments and errors as the trunk's."""

    def __init__(self, observation_space: gym.spaces.Box, channels: int = 64, blocks: int = 3, features_dim: int = 256):
        nets.BoardCNNTrunk.__init__(
            self, observation_space, channels=channels, blocks=blocks, features_dim=features_dim
        )
        _as_extractor(self, observation_space)


class BoardVectorNet(BaseFeaturesExtractor, nets.BoardVectorTrunk):
    """:class:`~training.features.BoardVectorTrunk` as an SB3 features extractor: input
    ``{key: float32 (B, ...)}``, output ``float32 (B, features_dim)``; arguments and errors as the trunk's."""

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
        nets.BoardVectorTrunk.__init__(
            self,
            observation_space,
            board_key=board_key,
            hex_grid=hex_grid,
            channels=channels,
            blocks=blocks,
            features_dim=features_dim,
            append=append,
        )
        _as_extractor(self, observation_space)


class HexBoardNet(BoardVectorNet, nets.HexBoardTrunk):
    """:class:`~training.features.HexBoardTrunk` (hexagonal kernels) as an SB3 features extractor
    (a :class:`BoardVectorNet`, as the shipped checkpoints' policy code expects, and a ``HexBoardTrunk``)."""

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


class CardTableNet(BoardVectorNet, nets.CardTableTrunk):
    """:class:`~training.features.CardTableTrunk` (square kernels) as an SB3 features extractor
    (a :class:`BoardVectorNet`, as the shipped checkpoints' policy code expects, and a ``CardTableTrunk``)."""

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


#: The SB3 features extractors by their names in a config's ``policy.features``.
FEATURE_EXTRACTORS: dict[str, type[BaseFeaturesExtractor]] = {
    "board_cnn": BoardCNN,
    "hex_board_net": HexBoardNet,
    "card_table_net": CardTableNet,
}


class SpatialMaskablePolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy whose action net is a :class:`~training.features.SpatialActionHead`.

    Extra keyword argument ``action_layout``: the environment's
    :class:`~envs.core.observation.ActionLayout` (``env.unwrapped.action_layout()``). Its
    ``index`` places the logits on the convolution map; with ``plane_features`` or
    ``plane_index`` the head is factored (see :class:`~training.features.SpatialActionHead`);
    ``plane_index`` reads the observation entry ``plane_key``, which the features extractor must
    ``append``. Use with a features extractor that outputs the flattened convolution map of the
    layout's ``obs_key`` (``BoardCNN`` for a plain ``Box``, ``HexBoardNet`` or ``CardTableNet``
    with ``board_key=obs_key``, all with ``features_dim=0``) and ``net_arch={"pi": [], "vf": [...]}``.
    Works with ``Box`` and ``Dict`` observations.

    ``value_head``: ``"dense"`` (default; SB3's value MLP of sizes ``net_arch["vf"]`` over
    the whole flattened map) or ``"pooled"`` (:class:`~training.features.PooledValueTrunk` with
    those sizes: use it for large boards, where the dense one saturates).

    Raises:
        ValueError: no ``ActionLayout``, a bad ``value_head``, or networks that do not fit the
            layout (the message says how).
    """

    def __init__(self, *args, action_layout: ActionLayout | None = None, value_head="dense", **kwargs):
        if not isinstance(action_layout, ActionLayout):
            raise ValueError(
                "SpatialMaskablePolicy needs action_layout, an ActionLayout (the environment's "
                f"env.unwrapped.action_layout()), got {type(action_layout).__name__}"
            )
        if value_head not in ("dense", "pooled"):
            raise ValueError(f"value_head must be 'dense' or 'pooled', got {value_head!r}")
        self.value_head = value_head
        self.action_layout = action_layout
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        # SB3 first builds (and orthogonally initialises) a dense action net of
        # latent x num_actions, which this class replaces: with 20k+ actions that costs tens
        # of seconds of QR decompositions per policy. Build a weightless placeholder instead.
        # (patched on the instance, deleted below: mypy allows no assignment to a method)
        self.action_dist.proba_distribution_net = lambda latent_dim: nn.Identity()  # type: ignore[method-assign,misc]
        try:
            super()._build(lr_schedule)
        finally:
            del self.action_dist.proba_distribution_net  # back to the class's method
        fe = self.pi_features_extractor
        if (
            not isinstance(fe, nets.SPATIAL_TRUNKS)
            or self.mlp_extractor.latent_dim_pi != fe.channels * fe.height * fe.width + fe.appended_dim
        ):
            raise ValueError(
                "SpatialMaskablePolicy needs a convolutional features extractor (BoardCNN, "
                "HexBoardNet, CardTableNet) with features_dim=0, and net_arch pi=[]"
            )
        n_actions = int(cast(gym.spaces.Discrete, self.action_space).n)  # MaskablePPO over a Discrete space
        self.action_net = nets.spatial_action_head(fe, self.action_layout, n_actions)
        if self.ortho_init:
            self.action_net.init_orthogonal()  # small initial logits, as SB3 does for its action net
        if self.value_head == "pooled":
            sizes = list(self.net_arch.get("vf", [])) if isinstance(self.net_arch, dict) else []
            if not sizes:
                raise ValueError("value_head 'pooled' needs net_arch vf sizes, e.g. {'pi': [], 'vf': [64]}")
            # add_module: the same as assigning the attribute, which SB3 types as an nn.Sequential
            self.mlp_extractor.add_module(
                "value_net", nets.PooledValueTrunk(fe.channels, fe.height, fe.width, fe.appended_dim, sizes=sizes)
            )
        # (as SB3 does: every optimizer takes lr, the base class Optimizer does not)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)  # type: ignore[call-arg]

    def _get_constructor_parameters(self):
        data = super()._get_constructor_parameters()
        data["action_layout"] = self.action_layout
        data["value_head"] = self.value_head
        return data


# Checkpoints pickle these classes by import path: give them the stable one (see the module docstring).
for _cls in (BoardCNN, BoardVectorNet, HexBoardNet, CardTableNet, SpatialMaskablePolicy):
    _cls.__module__ = "training.features"
del _cls
