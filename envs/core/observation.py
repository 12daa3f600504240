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

__all__ = ["ActionLayout", "ObservationEncoder", "Symmetry", "grid_symmetry"]


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
            raise ValueError(
                "ActionLayout: give plane_features (fixed) or plane_index (from the observation), not both"
            )
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
                raise ValueError(
                    f"ActionLayout.plane_index must be non-negative ints of shape ({planes}, F), got "
                    f"{pi.dtype} {pi.shape}"
                )
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

    def symmetries(self) -> list[Symmetry]:
        """The game's symmetries on this observation and its actions (for data augmentation): a
        list of :class:`Symmetry`, the identity first; empty (the default) for a game or setting
        that declares none. A game declares only maps under which its rules are invariant, so
        that a position mapped by one is a position of the same value whose legal actions and
        policy are the mapped ones."""
        return []


@dataclass(frozen=True, eq=False)
class Symmetry:
    """One symmetry ``g`` of a game, as two gathers (index permutations).

    For every position ``s`` and seat ``p``, with ``g s`` the position mapped by ``g``:

    * ``encode(g s, p).ravel() == encode(s, p).ravel()[obs_index]`` (a plain ``Box`` observation);
    * ``mask(g s) == mask(s)[action_index]``, and a policy over the actions maps the same way
      (``pi'[a] = pi[action_index[a]]``: action ``a`` of ``g s`` is action ``action_index[a]`` of ``s``).

    Attributes:
        name: a short name (``"identity"``, ``"rot90"``, ...).
        obs_index: ``int64 (prod(obs shape),)``, a permutation.
        action_index: ``int64 (num_actions,)``, a permutation.

    Raises:
        ValueError: an index that is not a permutation.
    """

    name: str
    obs_index: np.ndarray
    action_index: np.ndarray

    def __post_init__(self) -> None:
        for key in ("obs_index", "action_index"):
            a = np.asarray(getattr(self, key))
            is_perm = (
                a.ndim == 1 and np.issubdtype(a.dtype, np.integer) and np.array_equal(np.sort(a), np.arange(a.size))
            )
            if not is_perm:
                raise ValueError(f"Symmetry.{key} must be a permutation of 0 .. n - 1 (int, 1-D)")
            object.__setattr__(self, key, _frozen(a.astype(np.int64)))


def grid_symmetry(
    name: str, layout: ActionLayout, channels: int, cell_map: np.ndarray, obs_plane_map, action_plane_map
) -> Symmetry:
    """A :class:`Symmetry` of a board game from how it moves cells and planes.

    The observation is a ``Box (H, W, C)`` (channels last) on which ``layout`` puts the actions;
    off-grid actions (a pass, a swap) are left in place.

    Args:
        name: the symmetry's name.
        layout: the game's :class:`ActionLayout` (``obs_key`` ``None``: the observation is the board).
        channels: ``C``, the observation's planes.
        cell_map: ``int (H, W)``: the flat cell ``row * W + col`` that cell ``(row, col)`` goes to.
        obs_plane_map: ``int (C,)``: the plane each observation plane goes to (a link plane of
            one direction may become another direction's).
        action_plane_map: ``int (planes,)``: the action plane each action plane goes to.

    Returns:
        The symmetry: ``new[cell_map[x], obs_plane_map[c]] = old[x, c]`` and
        ``action layout[action_plane_map[q], cell_map[x]]`` of the new position is action
        ``layout[q, x]`` of the old one.

    Raises:
        ValueError: maps that are not permutations, or a layout whose action ids do not map
            onto action ids (a cell with an action sent to one without).
    """
    h, w = layout.height, layout.width
    cells = np.asarray(cell_map, dtype=np.int64).reshape(-1)
    opm = np.asarray(obs_plane_map, dtype=np.int64)
    apm = np.asarray(action_plane_map, dtype=np.int64)
    if cells.size != h * w or opm.shape != (channels,) or apm.shape != (layout.planes,):
        raise ValueError(
            f"grid_symmetry {name!r}: cell_map must be ({h}, {w}), obs_plane_map ({channels},), "
            f"action_plane_map ({layout.planes},)"
        )
    x = np.arange(h * w)
    c = np.arange(channels)
    obs_index = np.empty(h * w * channels, dtype=np.int64)
    obs_index[(cells[:, None] * channels + opm[None, :]).reshape(-1)] = (x[:, None] * channels + c[None, :]).reshape(-1)
    index = layout.index.reshape(layout.planes, h * w)
    new_ids = index[apm][:, cells]  # [q, x]: the id of plane apm[q] at cell cells[x]
    if ((new_ids >= 0) != (index >= 0)).any():
        raise ValueError(f"grid_symmetry {name!r}: the map sends a cell with an action to one without")
    action_index = np.arange(layout.num_actions)
    on = index >= 0
    action_index[new_ids[on]] = index[on]
    return Symmetry(name, obs_index, action_index)
