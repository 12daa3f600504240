"""Board symmetries as data augmentation (AlphaGo Zero, Silver et al. 2017: "each position is
transformed by a randomly selected rotation or reflection"): :class:`BatchSymmetries`.

The symmetries come from the game's package (``encoder.symmetries()``, a list of
:class:`envs.core.observation.Symmetry`, e.g. Ataxx's 8 and TwixT's 180-degree rotation); nothing
here names a game.
"""

from __future__ import annotations

import numpy as np

__all__ = ["BatchSymmetries"]


class BatchSymmetries:
    """A game's symmetries applied to training batches.

    Args:
        symmetries: the game's :class:`~envs.core.observation.Symmetry` list (at least one).

    Raises:
        ValueError: an empty list.
    """

    def __init__(self, symmetries):
        symmetries = list(symmetries)
        if not symmetries:
            raise ValueError("no symmetry given")
        self.names = [s.name for s in symmetries]
        self.obs_index = np.stack([s.obs_index for s in symmetries])  # (G, D)
        self.action_index = np.stack([s.action_index for s in symmetries])  # (G, A)

    @classmethod
    def for_env(cls, env_id: str, env_kwargs: dict) -> BatchSymmetries:
        """The symmetries a game setting declares (its encoder's ``symmetries()``).

        Raises:
            ValueError: the setting declares none, or its observation is not a plain ``Box``.
        """
        from envs.registry import spec

        raw = spec(env_id).make_raw(**env_kwargs)
        syms = raw.encoder.symmetries()
        if not syms:
            raise ValueError(
                f"{env_id} with {env_kwargs} declares no board symmetries "
                "(its observation encoder's symmetries() is empty): set it false"
            )
        from gymnasium import spaces

        if not isinstance(raw.encoder.space, spaces.Box):
            raise ValueError(f"{env_id}: symmetries need a plain Box observation")
        return cls(syms)

    def __len__(self) -> int:
        return len(self.names)

    def apply(self, k: np.ndarray, obs: np.ndarray, mask: np.ndarray, policy: np.ndarray) -> tuple:
        """Map row ``i`` of a batch by symmetry ``k[i]``.

        Args:
            k: ``int (n,)``, symmetry numbers in ``[0, len(self))``.
            obs: ``(n, *shape)`` observations; mask: ``bool (n, A)``; policy: ``float (n, A)``.

        Returns:
            ``(obs, mask, policy)`` mapped, new arrays of the same shapes and dtypes.
        """
        n = obs.shape[0]
        flat = obs.reshape(n, -1)
        new_obs = np.take_along_axis(flat, self.obs_index[k], axis=1).reshape(obs.shape)
        ai = self.action_index[k]
        return new_obs, np.take_along_axis(mask, ai, axis=1), np.take_along_axis(policy, ai, axis=1)

    def apply_random(self, obs, mask, policy, rng: np.random.Generator) -> tuple:
        """:meth:`apply` with one symmetry drawn uniformly per row from ``rng``."""
        k = rng.integers(len(self), size=obs.shape[0])
        return self.apply(k, obs, mask, policy)
