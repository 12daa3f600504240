"""The AlphaZero engine's learning: the replay buffer and one Adam step of AlphaZero's loss
(used by self-play training, :mod:`training.engines.alphazero.trainer`, and by the warm start,
:mod:`training.engines.alphazero.warm_start`)."""

from __future__ import annotations

import numpy as np

__all__ = ["ReplayBuffer", "train_step", "batch_symmetries", "value_targets"]


# ---------------------------------------------------------------------------- value targets
def value_targets(returns: np.ndarray, movers: np.ndarray, team_of: np.ndarray) -> np.ndarray:
    """The value targets of one finished game's stored positions, from each position's own mover.

    Args:
        returns: ``float (P,)``: the game's return of each seat (zeros for a game cut by
            ``max_steps``: a draw).
        movers: ``int (n,)``: the seat that moved at each stored position (a seat may move several
            times in a row: Tantrix's forced and free placements, a Smartrix pass; each position's
            target is from its own mover).
        team_of: ``int (P,)``: each seat's side (:func:`training.search.seat_teams`: ``K`` sides,
            numbered in ``GameState.teams()`` order).

    Returns:
        ``K = 2``: ``float32 (n,)``, the mover's return (a team shares its return), clipped to
        ``[-1, 1]``, exactly as the two-side engine always stored it. ``K > 2``: ``float32 (n,
        K)``, in the search's mover-relative order: column ``j`` is the return of side ``(t + j)
        mod K``, ``t`` the mover's side (a side's return is that of its first seat: partners share
        it), clipped to ``[-1, 1]``.
    """
    returns = np.asarray(returns)
    movers = np.asarray(movers, dtype=np.int64)
    team_of = np.asarray(team_of, dtype=np.int64)
    K = int(team_of.max()) + 1
    if K == 2:
        return np.clip(np.array([returns[p] for p in movers.tolist()], dtype=np.float32), -1.0, 1.0)
    first_seat = np.array([int(np.flatnonzero(team_of == t)[0]) for t in range(K)], dtype=np.int64)
    side_returns = np.asarray(returns, dtype=np.float32)[first_seat]  # (K,) in absolute side order
    cols = (team_of[movers][:, None] + np.arange(K)[None, :]) % K
    return np.clip(side_returns[cols], -1.0, 1.0).astype(np.float32).reshape(len(movers), K)


# ---------------------------------------------------------------------------- the replay buffer
class ReplayBuffer:
    """A ring buffer of training positions (numpy arrays, the oldest overwritten first).

    Stored per position: the observation (``float16``, an array or a dict of arrays: the boards'
    values are small integers and fractions, which float16 keeps), the legal mask packed
    (:func:`envs.core.vector.pack_mask`, ``uint8 (ceil(A / 8),)``), the policy target ``float16
    (A,)`` and the value target ``float32`` (``value_dim`` 1: ``(capacity,)``, the mover's
    value) or ``float32 (value_dim,)`` (one per side, :func:`value_targets`).

    Args:
        capacity: positions kept (>= 1).
        obs_space: one observation's space (``Box`` or ``Dict`` of ``Box``).
        num_actions: ``A``.
        value_dim: values per position: 1 (two sides) or ``K`` (the network's value outputs,
            :func:`training.agents.alphazero_net.value_outputs`).
    """

    def __init__(self, capacity: int, obs_space, num_actions: int, value_dim: int = 1):
        from envs.core.vector import obs_zeros

        self.capacity = int(capacity)
        self.num_actions = int(num_actions)
        zeros = obs_zeros(obs_space, self.capacity)
        self.obs = (
            {k: v.astype(np.float16) for k, v in zeros.items()} if isinstance(zeros, dict) else zeros.astype(np.float16)
        )
        self.mask = np.zeros((self.capacity, (self.num_actions + 7) // 8), dtype=np.uint8)
        self.policy = np.zeros((self.capacity, self.num_actions), dtype=np.float16)
        self.value = np.zeros(
            self.capacity if int(value_dim) == 1 else (self.capacity, int(value_dim)), dtype=np.float32
        )
        self.size = 0
        self.next = 0
        self.added = 0

    def add(self, obs, packed_mask: np.ndarray, policy: np.ndarray, value: np.ndarray) -> None:
        """Append ``n`` positions: ``obs`` a batch ``(n, ...)`` (or dict), ``packed_mask uint8 (n,
        ceil(A/8))``, ``policy float (n, A)``, ``value float (n,)`` (or ``(n, value_dim)``)."""
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
        """Positions ``idx``: ``(obs float32, mask bool (n, A), policy float32 (n, A), value float32 (n,)
        or (n, value_dim))``."""
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
    minibatch is moved there; ``None``: the CPU, nothing moved). Returns the losses (floats).

    With ``K > 2`` values per position (network and buffer of ``K`` value outputs) the MSE is
    **averaged** over the positions and the ``K`` sides, so that ``value_weight`` keeps its scale:
    for two zero-sum sides the mean over both of ``(v - z)^2`` and ``(-v + z)^2`` is the one-value
    MSE itself."""
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
