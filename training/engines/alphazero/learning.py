"""The AlphaZero engine's learning: the replay buffer and one Adam step of AlphaZero's loss
(used by self-play training, :mod:`training.engines.alphazero.trainer`, and by the warm start,
:mod:`training.engines.alphazero.warm_start`)."""

from __future__ import annotations

import numpy as np

__all__ = ["ReplayBuffer", "train_step", "batch_symmetries"]


# ---------------------------------------------------------------------------- the replay buffer
class ReplayBuffer:
    """A ring buffer of training positions (numpy arrays, the oldest overwritten first).

    Stored per position: the observation (``float16``, an array or a dict of arrays: the boards'
    values are small integers and fractions, which float16 keeps), the legal mask packed
    (:func:`envs.core.vector.pack_mask`, ``uint8 (ceil(A / 8),)``), the policy target ``float16
    (A,)`` and the value target ``float32``.

    Args:
        capacity: positions kept (>= 1).
        obs_space: one observation's space (``Box`` or ``Dict`` of ``Box``).
        num_actions: ``A``.
    """

    def __init__(self, capacity: int, obs_space, num_actions: int):
        from envs.core.vector import obs_zeros

        self.capacity = int(capacity)
        self.num_actions = int(num_actions)
        zeros = obs_zeros(obs_space, self.capacity)
        self.obs = (
            {k: v.astype(np.float16) for k, v in zeros.items()} if isinstance(zeros, dict) else zeros.astype(np.float16)
        )
        self.mask = np.zeros((self.capacity, (self.num_actions + 7) // 8), dtype=np.uint8)
        self.policy = np.zeros((self.capacity, self.num_actions), dtype=np.float16)
        self.value = np.zeros(self.capacity, dtype=np.float32)
        self.size = 0
        self.next = 0
        self.added = 0

    def add(self, obs, packed_mask: np.ndarray, policy: np.ndarray, value: np.ndarray) -> None:
        """Append ``n`` positions: ``obs`` a batch ``(n, ...)`` (or dict), ``packed_mask uint8 (n,
        ceil(A/8))``, ``policy float (n, A)``, ``value float (n,)``."""
        from envs.core.vector import obs_put

        n = len(value)
        if n == 0:
            return
        if n > self.capacity:  # only the newest fit
            keep = np.arange(n - self.capacity, n)
            obs = {k: v[keep] for k, v in obs.items()} if isinstance(obs, dict) else obs[keep]
            packed_mask, policy, value = packed_mask[keep], policy[keep], value[keep]
            self.added += n - self.capacity
            n = self.capacity
        idx = (self.next + np.arange(n)) % self.capacity
        obs_put(self.obs, idx, obs)
        self.mask[idx] = packed_mask
        self.policy[idx] = policy
        self.value[idx] = value
        self.next = int((self.next + n) % self.capacity)
        self.size = int(min(self.capacity, self.size + n))
        self.added += n

    def batch(self, idx: np.ndarray) -> tuple:
        """Positions ``idx``: ``(obs float32, mask bool (n, A), policy float32 (n, A), value float32 (n,))``."""
        from envs.core.vector import unpack_mask

        obs = (
            {k: v[idx].astype(np.float32) for k, v in self.obs.items()}
            if isinstance(self.obs, dict)
            else self.obs[idx].astype(np.float32)
        )
        return (
            obs,
            unpack_mask(self.mask[idx], self.num_actions),
            self.policy[idx].astype(np.float32),
            self.value[idx],
        )


# ---------------------------------------------------------------------------- learning
def train_step(
    network,
    optimizer,
    buffer: ReplayBuffer,
    rng: np.random.Generator,
    batch_size: int,
    value_weight: float,
    symmetries=None,
    device=None,
) -> dict:
    """One Adam step on a uniform minibatch: cross-entropy to the improved policy over the legal
    actions plus ``value_weight`` times the value's MSE. ``device``: where ``network`` lives (the
    minibatch is moved there; ``None``: the CPU, nothing moved). Returns the losses (floats)."""
    import torch

    from training.agents.alphazero_net import masked_logits, obs_tensor

    def put(x):
        if device is None:
            return x
        return {k: v.to(device) for k, v in x.items()} if isinstance(x, dict) else x.to(device)

    idx = rng.integers(buffer.size, size=batch_size)
    obs, mask, target, z = buffer.batch(idx)
    if symmetries is not None:
        obs, mask, target = symmetries.apply_random(obs, mask, target, rng)
    network.train()
    logits, v = network(put(obs_tensor(obs)))
    logp = torch.log_softmax(masked_logits(logits, put(torch.as_tensor(mask))), dim=1)
    t = put(torch.as_tensor(target))
    t = t / t.sum(dim=1, keepdim=True).clamp_min(1e-12)  # float16 storage: renormalise
    policy_loss = -(t * logp).sum(dim=1).mean()
    value_loss = ((v - put(torch.as_tensor(z))) ** 2).mean()
    loss = policy_loss + value_weight * value_loss
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return {"policy_loss": policy_loss.item(), "value_loss": value_loss.item(), "loss": loss.item()}


def batch_symmetries(cfg):
    """The random board symmetries of ``cfg``'s game for training samples (``selfplay.symmetries``), or ``None``."""
    if not cfg.selfplay.symmetries:
        return None
    from training.engines.alphazero.symmetry import BatchSymmetries

    return BatchSymmetries.for_env(cfg.env_id, cfg.env_kwargs)
