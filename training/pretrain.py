"""Behaviour-cloning warm start: the learner imitates a teacher agent before self-play begins.

Policy-gradient self-play starts from a uniform policy over thousands of actions, and on games
with long episodes and a weak signal per move (Tantrix: ~30 learner decisions a game, up to
15,876 actions each) PPO barely moves it. The standard remedy (AlphaGo's supervised policy,
"kickstarting" in Schmitt et al. 2018) is to start from a policy that imitates a known player.
This module does it in two steps, run by the SB3 engine (:mod:`training.engines.sb3.trainer`) when the config's
``pretrain.teacher`` is set (and never when resuming, where the checkpoint is already trained):

1. :func:`collect_demonstrations` lets the teacher play the learner's seat of ``games`` self-play
   episodes (the same :class:`~training.selfplay.SelfPlayEnv` the learner trains in; opponents
   drawn from the config's baselines; in team games the teacher plays the partners too) and
   records, at each of its decisions, the observation, the action mask, the teacher's action and
   the discounted return that followed (the same shaped reward PPO will see).
2. :func:`behaviour_clone` fits the policy to those actions (cross-entropy of the masked policy)
   and the value head to those returns (squared error, weighted by ``vf_coef``), for ``epochs``
   passes in minibatches, and reports the teacher agreement (argmax of the masked policy equals
   the teacher's action) on a held-out tenth of the games.

The imitated plies are not counted in PPO's timesteps; the report states them separately.

Memory: the demonstrations are held in memory as the observations themselves (float32) and the
action masks (a byte per action), copied as they come into blocks of 1,024 decisions that are
freed as they are stacked, so the peak is about the data itself. Tantrix at window radius 10
takes 89 KB a decision (73 KB observation, 16 KB mask: about 2.5 GB for 1,000 games of ~28
decisions); at radius 12 about 125 KB (``configs/tantrix_full.yaml``: 3,000 games, 84,017
decisions, 10.5 GB; 21 GB at the peak when they were kept as a list of arrays and stacked);
Ataxx, Smartrix and 8x8 TwixT under 20 KB; TwixT at its full 24x24 size 53 KB.
"""

from __future__ import annotations

import math

import numpy as np

from envs.core.checks import is_plain_int

__all__ = ["collect_demonstrations", "behaviour_clone", "pretrain"]


def collect_demonstrations(cfg: dict, teacher: str, games: int, seed: int) -> dict:
    """Play ``games`` episodes with ``teacher`` in the learner's seat and record its decisions.

    Args:
        cfg: a config from :func:`training.config.load_config` (env, episode limit, shaping,
            ``ppo.gamma``, ``pool.baselines`` used as the opponents; in team games the teacher
            also plays its partners' seats).
        teacher: an agent spec for :func:`training.agents.make_agent` (e.g. ``"greedy"``).
        games: number of episodes, >= 1.
        seed: seeds the deals, the seats, the opponents and the teacher.

    Returns:
        ``{"obs": array (N, ...) or dict of arrays, "masks": bool (N, num_actions),
        "actions": int64 (N,), "returns": float32 (N,), "game": int32 (N,),
        "outcomes": float32 (games,)}`` — N decisions; ``returns`` the discounted (``ppo.gamma``)
        sum of the learner's rewards from each decision on; ``outcomes`` each episode's final game
        reward of the teacher's seat.

    Raises:
        ValueError: ``games`` < 1 or an unknown teacher spec.
    """
    from training.agents import make_agent
    from training.selfplay import OpponentPool, SelfPlayEnv

    if not is_plain_int(games) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    agent = make_agent(teacher, seed=seed)
    baselines = cfg["pool"]["baselines"] or ["random"]
    pool = OpponentPool(baselines, baseline_prob=1.0, latest_prob=0.0, max_snapshots=1, seed=seed + 1)
    pool.latest = agent  # never drawn as an opponent (latest_prob 0): it plays the teacher's partners
    gamma = float(cfg["ppo"]["gamma"])
    env = SelfPlayEnv(
        cfg["env_id"],
        pool,
        env_kwargs=cfg["env_kwargs"],
        max_steps=cfg["max_steps"],
        partner="latest",
        seed_salt=seed,
        shaping=cfg["shaping"],
        gamma=gamma,
    )
    env.raw.reset(seed=seed)  # agents check the game from its state
    agent.check_env(env.raw)
    obs_rows, mask_rows = _RowBuffer(), _RowBuffer()
    actions, returns, game_ids, outcomes = [], [], [], []
    for g in range(games):
        obs, info = env.reset(seed=seed + g)
        agent.reset(seed=seed + g)
        rewards = []
        while True:
            raw_obs = env.raw.observe(env.learner)
            a = agent.act(env.raw.state, raw_obs)
            obs_rows.append(obs)
            mask_rows.append(raw_obs["action_mask"].astype(bool))
            actions.append(a)
            game_ids.append(g)
            obs, r, term, trunc, info = env.step(a)
            rewards.append(r)
            if term or trunc:
                break
        ret, g_ret = 0.0, []
        for r in reversed(rewards):
            ret = r + gamma * ret
            g_ret.append(ret)
        returns.extend(reversed(g_ret))
        outcomes.append(info["returns"][info["seat"]])
    return {
        "obs": obs_rows.stack(),
        "masks": mask_rows.stack(),
        "actions": np.asarray(actions, dtype=np.int64),
        "returns": np.asarray(returns, dtype=np.float32),
        "game": np.asarray(game_ids, dtype=np.int32),
        "outcomes": np.asarray(outcomes, dtype=np.float32),
    }


class _RowBuffer:
    """Rows (arrays, or dicts of arrays, of one shape and dtype) appended one at a time, then
    stacked.

    Each row is copied at once into a block of :attr:`BLOCK` rows (a large allocation, which the
    allocator returns to the system when freed), and :meth:`stack` frees each block as soon as it
    is copied into the result. So the peak memory is the data plus one block, not the two copies
    that ``np.stack`` of a list of small arrays needs (small arrays freed in their thousands stay
    in the process's heap).
    """

    BLOCK = 1024

    def __init__(self):
        self.blocks, self.n, self.plain = [], 0, None  # plain: rows are arrays, kept internally as {None: row}

    def append(self, row) -> None:
        if self.plain is None:
            self.plain = not isinstance(row, dict)
        parts = {None: row} if self.plain else row
        if self.n % self.BLOCK == 0:
            self.blocks.append(
                {k: np.empty((self.BLOCK, *np.shape(v)), dtype=np.asarray(v).dtype) for k, v in parts.items()}
            )
        block, i = self.blocks[-1], self.n % self.BLOCK
        for k, dest in block.items():
            if np.shape(parts[k]) != dest.shape[1:]:  # assignment would broadcast where np.stack refuses
                raise ValueError(f"row {self.n} has shape {np.shape(parts[k])}, expected {dest.shape[1:]}")
        for k, dest in block.items():
            dest[i] = parts[k]
        self.n += 1

    def stack(self):
        """The rows as one array of shape ``(n, ...)`` (a dict of them for dict rows); empties the buffer."""
        out = {k: np.empty((self.n, *b.shape[1:]), dtype=b.dtype) for k, b in self.blocks[0].items()}
        start = 0
        while self.blocks:
            block = self.blocks.pop(0)
            rows = min(self.BLOCK, self.n - start)
            for k, b in block.items():
                out[k][start : start + rows] = b[:rows]
            del block, b  # the block's memory goes back before the next is copied
            start += rows
        self.n = 0
        return out[None] if self.plain else out


def _take(obs, idx):
    return {k: v[idx] for k, v in obs.items()} if isinstance(obs, dict) else obs[idx]


def behaviour_clone(
    policy,
    data: dict,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    vf_coef: float = 0.5,
    max_grad_norm: float = 0.5,
    seed: int = 0,
    holdout: float = 0.1,
) -> dict:
    """Fit ``policy`` (an SB3 ``MaskableActorCriticPolicy``) to demonstrations, in place.

    Loss per minibatch: ``-mean log pi(teacher action | obs, mask) + vf_coef * mean (V(obs) -
    return)^2``, Adam at ``learning_rate``, gradients clipped to ``max_grad_norm``. The games in
    the last ``holdout`` fraction (at least one game when there are two or more) are kept out of
    training and measure the agreement.

    Args:
        policy: the policy to train (its own optimizer is not touched).
        data: from :func:`collect_demonstrations`.
        epochs, batch_size: passes over the training decisions, decisions per minibatch (>= 1).
        learning_rate: Adam's step size (> 0).
        vf_coef, max_grad_norm: weight of the value loss; gradient-norm clip.
        seed: seeds the minibatch order.
        holdout: fraction of the games kept out of training (the last ones), in [0, 1).

    Returns:
        ``{"decisions": N, "train_decisions", "holdout_decisions", "epochs", "loss": [per epoch],
        "holdout_agreement": fraction of held-out decisions where the argmax of the masked
        policy is the teacher's action (``None`` without a held-out game); "holdout_nll": the
        mean ``-log pi(teacher action)`` there, in nats (the better measure when the teacher
        breaks ties at random); "holdout_value_mse"}``.

    Raises:
        ValueError: non-positive ``epochs``, ``batch_size`` or ``learning_rate``.
        FloatingPointError: the loss became infinite, NaN or above 1e4 (diverged: the policy is
            then unusable).
    """
    import torch

    for name, v in (("epochs", epochs), ("batch_size", batch_size)):
        if not is_plain_int(v) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if not learning_rate > 0:
        raise ValueError(f"learning_rate must be > 0, got {learning_rate!r}")
    n_games = int(data["game"].max()) + 1
    n_hold = 0 if n_games < 2 or holdout <= 0 else min(max(1, round(holdout * n_games)), n_games - 1)
    train_idx = np.flatnonzero(data["game"] < n_games - n_hold)
    hold_idx = np.flatnonzero(data["game"] >= n_games - n_hold)
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(policy.parameters(), lr=learning_rate)

    def batch(idx):
        obs, _ = policy.obs_to_tensor(_take(data["obs"], idx))
        return (obs, torch.as_tensor(data["actions"][idx]), data["masks"][idx], torch.as_tensor(data["returns"][idx]))

    losses: list[float] = []
    policy.set_training_mode(True)
    for _ in range(epochs):
        perm = rng.permutation(train_idx)
        total, count = 0.0, 0
        for start in range(0, len(perm), batch_size):
            obs, act, mask, ret = batch(perm[start : start + batch_size])
            values, log_prob, _ = policy.evaluate_actions(obs, act, action_masks=mask)
            loss = -log_prob.mean() + vf_coef * torch.mean((values.flatten() - ret) ** 2)
            # A sane loss is at most about log(num_actions) + vf_coef * 4 (returns lie in [-1, 1]
            # plus shaping); far beyond, the weights have blown up (and the masked policy's
            # -1e8 for illegal actions may then beat the legal logits).
            value = float(loss.detach())
            if not math.isfinite(value) or value > 1e4:
                raise FloatingPointError(
                    f"behaviour cloning diverged (loss {value} in epoch {len(losses) + 1}): "
                    f"lower the learning rate (now {learning_rate})"
                )
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)
            opt.step()
            total += value * len(act)
            count += len(act)
        losses.append(round(total / max(count, 1), 4))
    policy.set_training_mode(False)
    agree, mse, nll = None, None, None
    if len(hold_idx):
        hits, sq, nl = 0, 0.0, 0.0
        with torch.no_grad():
            for start in range(0, len(hold_idx), batch_size):
                obs, act, mask, ret = batch(hold_idx[start : start + batch_size])
                dist = policy.get_distribution(obs, action_masks=mask)
                hits += int((dist.distribution.probs.argmax(dim=1) == act).sum())
                nl -= float(dist.log_prob(act).sum())
                sq += float(((policy.predict_values(obs).flatten() - ret) ** 2).sum())
        agree, mse, nll = (round(hits / len(hold_idx), 4), round(sq / len(hold_idx), 4), round(nl / len(hold_idx), 4))
    return {
        "decisions": int(len(data["actions"])),
        "train_decisions": int(len(train_idx)),
        "holdout_decisions": int(len(hold_idx)),
        "epochs": epochs,
        "loss": losses,
        "holdout_agreement": agree,
        "holdout_nll": nll,
        "holdout_value_mse": mse,
    }


def pretrain(policy, cfg: dict, seed: int) -> dict:
    """Run the config's ``pretrain`` section on ``policy``: collect, then clone.

    Returns the :func:`behaviour_clone` report with ``teacher``, ``games``, the teacher's mean
    final reward in those games (``teacher_mean_outcome``), ``collect_seconds`` and
    ``clone_seconds`` added.
    """
    import time

    pc = cfg["pretrain"]
    t0 = time.time()
    data = collect_demonstrations(cfg, pc["teacher"], pc["games"], seed=seed)
    t1 = time.time()
    report = behaviour_clone(
        policy,
        data,
        pc["epochs"],
        pc["batch_size"],
        pc["learning_rate"],
        vf_coef=cfg["ppo"]["vf_coef"],
        max_grad_norm=cfg["ppo"]["max_grad_norm"],
        seed=seed,
    )
    report.update(
        {
            "teacher": pc["teacher"],
            "games": pc["games"],
            "teacher_mean_outcome": round(float(data["outcomes"].mean()), 4),
            "collect_seconds": round(t1 - t0, 1),
            "clone_seconds": round(time.time() - t1, 1),
        }
    )
    return report
