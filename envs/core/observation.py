"""What every game's observation module provides: an encoder and the action layout for networks.

Each game encodes its observation in its own package (``envs/<game>/observation.py``), beside
the rules: a subclass of :class:`ObservationEncoder` built from the game's parameters, holding
the observation ``space`` and ``encode(state, player)``. Reading the state's private fields is
allowed there, inside the game's package, and nowhere else. The environment
(:class:`envs.core.aec.TabletopAECEnv`) only calls the encoder.

:class:`ActionLayout` tells networks what they need about the action space, with the same
fields for every game: where each action sits on the observation's spatial map, which
observation entry holds that map, and, for a factored policy head, what each action plane
does. ``env.unwrapped.action_layout()`` returns it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from envs.core.checks import is_int

__all__ = ["ActionLayout", "ObservationEncoder"]


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.array(a, copy=True)
    a.flags.writeable = False
    return a


@dataclass(frozen=True, eq=False)
class ActionLayout:
    """Where the actions sit on the observation's spatial map, for spatial and factored policy heads.

    Attributes:
        index: ``int64 (planes, H, W)``: the action id of plane ``p`` at cell ``(row, col)`` of the
            spatial map (the observation's ``(H, W, C)`` board, channels last), ``-1`` where there
            is none. Ids are distinct and in ``[0, num_actions)``.
        num_actions: size of the action space.
        obs_key: the observation entry holding the spatial map (a ``Dict`` observation's 3-D
            ``Box``), or ``None`` when the observation itself is that ``Box``.
        plane_features: optional ``float32 (planes, F)``: a fixed description of what each plane
            does (e.g. a card's spots in one rotation), for a factored head.
        plane_index: optional ``int64 (planes, F)``: a description read from the observation
            instead: positions in the flattened observation entry ``plane_key`` (e.g. the
            turned tile of a hand slot).
        plane_key: the observation entry ``plane_index`` reads (given with it, and only with it).

    Derived: :attr:`planes`, :attr:`height`, :attr:`width`, :attr:`off_grid` (the action ids not on
    the map, such as a pass or a swap), :attr:`factored` (whether planes are described).

    The arrays are read-only copies.

    Raises:
        ValueError: a malformed field (the message names it and what was expected).
    """

    index: np.ndarray
    num_actions: int
    obs_key: str | None = None
    plane_features: np.ndarray | None = None
    plane_index: np.ndarray | None = None
    plane_key: str | None = None

    def __post_init__(self) -> None:
        index = np.asarray(self.index)
        if index.ndim != 3 or not np.issubdtype(index.dtype, np.integer):
            raise ValueError(f"ActionLayout.index must be an int array (planes, H, W), got {index.dtype} {index.shape}")
        n = self.num_actions
        if not is_int(n) or n < 1:
            raise ValueError(f"ActionLayout.num_actions must be a positive integer, got {n!r}")
        acts = index[index >= 0]
        if (index < -1).any() or (acts.size and acts.max() >= n) or np.unique(acts).size != acts.size:
            raise ValueError(f"ActionLayout.index must hold distinct action ids in [0, {n}) or -1")
        object.__setattr__(self, "index", _frozen(index.astype(np.int64)))
        object.__setattr__(self, "num_actions", int(n))
        planes = index.shape[0]
        if self.plane_features is not None and self.plane_index is not None:
            raise ValueError("ActionLayout: give plane_features (fixed) or plane_index (from the observation), not both")
        if self.plane_features is not None:
            pf = np.asarray(self.plane_features, dtype=np.float32)
            if pf.ndim != 2 or pf.shape[0] != planes:
                raise ValueError(f"ActionLayout.plane_features must have shape ({planes}, F), got {pf.shape}")
            object.__setattr__(self, "plane_features", _frozen(pf))
        if (self.plane_index is None) != (self.plane_key is None):
            raise ValueError("ActionLayout: plane_index and plane_key go together (positions in that entry)")
        if self.plane_index is not None:
            pi = np.asarray(self.plane_index)
            if pi.ndim != 2 or pi.shape[0] != planes or not np.issubdtype(pi.dtype, np.integer) or (pi < 0).any():
                raise ValueError(f"ActionLayout.plane_index must be non-negative ints of shape ({planes}, F), got "
                                 f"{pi.dtype} {pi.shape}")
            object.__setattr__(self, "plane_index", _frozen(pi.astype(np.int64)))

    @property
    def planes(self) -> int:
        return self.index.shape[0]

    @property
    def height(self) -> int:
        return self.index.shape[1]

    @property
    def width(self) -> int:
        return self.index.shape[2]

    @property
    def off_grid(self) -> np.ndarray:
        """``int64 (k,)``: the actions not on the map, ascending (their logits need a dense layer)."""
        return np.setdiff1d(np.arange(self.num_actions), self.index[self.index >= 0])

    @property
    def factored(self) -> bool:
        """Whether each plane is described (``plane_features`` or ``plane_index``)."""
        return self.plane_features is not None or self.plane_index is not None


class ObservationEncoder:
    """A game's observation: its space and the encoding of a state for one seat.

    Subclasses (one per game, in ``envs/<game>/observation.py``) are built from the game's
    parameters (a probe state of those parameters), set :attr:`space` and implement
    :meth:`encode`; a game whose actions sit on a grid also implements :meth:`action_layout`.
    Encoders hold only constant tables, so they pickle and deepcopy with the environment.
    """

    #: The ``"observation"`` part of the environment's observation space (a ``Box`` or ``Dict``).
    space: Any

    def encode(self, state, player: int):  # pragma: no cover - abstract
        """The observation of ``state`` seen by seat ``player`` (a fresh array or dict of arrays)."""
        raise NotImplementedError

    def action_layout(self) -> ActionLayout | None:
        """The :class:`ActionLayout` of this game's actions on the observation, or ``None`` when
        the actions are not laid out on a grid (networks then use a plain linear head)."""
        return None
