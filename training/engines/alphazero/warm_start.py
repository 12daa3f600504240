"""The AlphaZero engine's warm start: the network imitates a teacher agent before self-play.

Why: self-play from a random network learns from the outcomes of its own games, and where random play
almost never ends a game it learns from nothing. On the standard 24x24 TwixT board, games of a random
network run to ``max_steps`` (a draw, value target 0): two runs of 61,440 and 215,040 self-play
positions from scratch ended with an agent that scored 0.125 against random and 0 against greedy,
and a policy loss still at the uniform policy's (results of 5 December, issue 27). A teacher that
connects gives both heads something to learn at once: the policy its moves, the value who won.
This is the supervised start of AlphaGo (Silver et al., Nature 2016) and of expert iteration
(Anthony et al., NeurIPS 2017), cut to a config section; self-play with search then improves on it.

Set ``pretrain.teacher`` (an agent spec, e.g. ``greedy`` or ``alphabeta:1``) in an
``engine: alphazero`` config; a new run (never a resumed one: its checkpoint is already trained)
then, before its first self-play move:

1. :func:`teacher_games` lets the teacher play every seat of ``pretrain.games`` games on the vector
   API (:func:`envs.make_vec`, the games and observations self-play uses; ``max_steps`` as in
   self-play), and records at each decision the mover's observation, the legal mask, the teacher's
   action (the policy target: one-hot) and, when the game ends, the outcome from the mover's side
   (the value target; a team shares its return; a game cut at ``max_steps`` is a draw, 0; with
   more than two sides every side's outcome in the mover-relative order,
   :func:`~training.engines.alphazero.learning.value_targets`) — the targets self-play stores,
   with the teacher's move in place of the search's improved policy.
2. :func:`imitate` takes ``epochs * ceil(N / batch_size)`` Adam steps of the engine's own loss
   (:func:`training.engines.alphazero.learning.train_step`: cross-entropy of the policy plus
   ``learn.value_weight`` times the value's squared error, with the board symmetries when
   ``selfplay.symmetries``) on uniform minibatches of ``pretrain.batch_size`` from the decisions of
   all but the last tenth of the games, at ``pretrain.learning_rate``, with the run's optimizer
   (its learning rate is set back to ``learn.learning_rate`` afterwards). The held-out games measure
   how often the network's argmax is the teacher's move and the value's squared error.

The imitated decisions are not self-play positions: they count in no budget, and the report gives
them under ``pretrain``. The network right after the warm start is saved as
``checkpoints/pretrained.pt`` (a checkpoint of the run at 0 positions: ``az:RUN/checkpoints/
pretrained.pt`` plays it, and ``--resume`` from it skips the warm start).

Reproducibility: the games are dealt by ``envs.make_vec(..., seed=seed)`` (its autoreset deals
the next game of a slot), the teacher is built with ``make_agent(teacher, seed=seed)`` and game
``g`` is answered with its own generator ``default_rng([seed, g])``; the minibatches come from
``default_rng([seed, 1])``. Same config and seed: the same weights.
"""

from __future__ import annotations

import copy
import math
import time

import numpy as np

__all__ = ["teacher_games", "imitate", "warm_start"]


def teacher_games(cfg, teacher: str, games: int, seed: int) -> dict:
    """Play ``games`` games with ``teacher`` in every seat and record its decisions.

    Args:
        cfg: an :class:`~training.engines.alphazero.config.AlphaZeroConfig` (``env_id``,
            ``env_kwargs``, ``max_steps``, ``selfplay.games``: games played side by side).
        teacher: an agent spec for :func:`training.agents.make_agent` that plays the setting.
        games: games to record, >= 1.
        seed: seeds the vector env's deals, the teacher and its per-game generators.

    Returns:
        ``{"obs": array (N, ...) or dict of arrays (float16, as the replay buffer keeps them),
        "mask": uint8 (N, ceil(A/8)) packed legal masks, "action": int64 (N,), "value": float32
        (N,) outcome from each mover's side in [-1, 1] (``(N, K)`` with ``K > 2`` sides: each
        side's, mover-relative), "game": int32 (N,) the game of each
        decision, "outcomes": float32 (games, P) each game's returns per player, "plies": int32
        (games,), "num_actions": A, "observation_space": one observation's space}`` — N decisions,
        game by game in order.

    Raises:
        ValueError: ``games`` < 1; a teacher spec that cannot be built.

    Memory: the observations are kept as float16 (a 24x24 TwixT decision about 27 KB: 600 games of
    about 118 decisions, 1.9 GB, twice that at the peak while they are stacked); :func:`imitate`
    copies the training part into a replay buffer.
    """
    import envs
    from envs.core.vector import obs_take, pack_mask
    from training.agents import make_agent
    from training.engines.alphazero.learning import value_targets
    from training.search import seat_teams

    if not isinstance(games, int) or games < 1:
        raise ValueError(f"teacher_games needs games >= 1, got {games!r}")
    agent = make_agent(teacher, seed=seed)
    width = min(games, cfg.selfplay.games)
    vec = envs.make_vec(cfg.env_id, width, seed=seed, autoreset="same_step", max_steps=cfg.max_steps, **cfg.env_kwargs)
    obs = vec.reset().observation
    team_of = seat_teams(vec)
    sides = int(team_of.max()) + 1
    slot_game = list(range(width))  # the game each slot is playing (-1: retired)
    rngs = [np.random.default_rng([seed, i]) for i in range(width)]
    next_game = width
    pending: list[list] = [[] for _ in range(width)]
    recorded: dict[int, tuple] = {}
    outcomes = np.zeros((games, vec.num_players), dtype=np.float32)
    plies = np.zeros(games, dtype=np.int32)
    while len(recorded) < games:
        mask = np.asarray(vec.action_mask(), dtype=bool)
        mover = vec.current_player().astype(np.int64)
        live = [i for i in range(width) if slot_game[i] >= 0 and mover[i] >= 0]
        actions = np.zeros(width, dtype=np.int64)
        for i in range(width):  # a retired slot still steps: any legal action
            if slot_game[i] < 0 and mover[i] >= 0:
                actions[i] = int(np.flatnonzero(mask[i])[0])
        if live:
            chosen = agent.act_batch([vec.to_state(i) for i in live], [None] * len(live), [rngs[i] for i in live])
            actions[live] = chosen
            packed = pack_mask(mask[live])
            rows = obs_take(obs, np.asarray(live))
            for j, i in enumerate(live):
                o = (
                    {k: v[j].astype(np.float16) for k, v in rows.items()}
                    if isinstance(rows, dict)
                    else rows[j].astype(np.float16)
                )
                pending[i].append((o, packed[j], int(chosen[j]), int(mover[i])))
        out = vec.step(actions)
        obs = out.observation
        for i in np.flatnonzero(out.terminated | out.truncated).tolist():
            g = slot_game[i]
            if g < 0:
                continue
            returns = np.asarray(out.rewards[i], dtype=np.float32)
            outcomes[g] = returns
            plies[g] = len(pending[i])
            recorded[g] = tuple(pending[i])
            pending[i] = []
            if next_game < games:  # the slot's next game: dealt with seed + its number, as its own game
                slot_game[i] = next_game
                rngs[i] = np.random.default_rng([seed, next_game])
                next_game += 1
            else:
                slot_game[i] = -1
    rows = [(g, p) for g in range(games) for p in recorded[g]]
    first = rows[0][1][0]
    stacked_obs: dict | np.ndarray
    if isinstance(first, dict):
        stacked_obs = {k: np.stack([p[0][k] for _, p in rows]).astype(np.float16) for k in first}
    else:
        stacked_obs = np.stack([p[0] for _, p in rows]).astype(np.float16)
    return {
        "obs": stacked_obs,
        "mask": np.stack([p[1] for _, p in rows]),
        "action": np.array([p[2] for _, p in rows], dtype=np.int64),
        "value": (
            np.concatenate(
                [
                    value_targets(outcomes[g], np.array([p[3] for p in recorded[g]], dtype=np.int64), team_of)
                    for g in range(games)
                ]
            )
            if sides > 2
            else np.clip(np.array([outcomes[g][p[3]] for g, p in rows], dtype=np.float32), -1.0, 1.0)
        ),
        "game": np.array([g for g, _ in rows], dtype=np.int32),
        "outcomes": outcomes,
        "plies": plies,
        "num_actions": int(vec.num_actions),
        "observation_space": vec.core.observation_space,
    }


def imitate(network, optimizer, data: dict, cfg, seed: int, holdout: float = 0.1, device=None) -> dict:
    """Fit ``network`` to the teacher's decisions, in place (the engine's loss, one-hot policy target).

    The games in the last ``holdout`` fraction (at least one when there are two or more) are kept
    out and measure the fit. Steps: ``pretrain.epochs * ceil(N_train / pretrain.batch_size)`` Adam
    steps of :func:`training.engines.alphazero.learning.train_step` on uniform minibatches, at
    ``pretrain.learning_rate``; the optimizer's learning rate is ``learn.learning_rate`` again after.

    Args:
        network: the run's :class:`~training.agents.alphazero_net.AlphaZeroNet` (on the CPU).
        optimizer: the run's Adam.
        data: from :func:`teacher_games`.
        cfg: the run's config (``pretrain``, ``learn.value_weight``, ``selfplay.symmetries``).
        seed: seeds the minibatch order (``default_rng([seed, 1])``).
        holdout: fraction of the games kept out, in [0, 1).
        device: where ``network`` lives (``None``: the CPU), as for ``train_step``.

    Returns:
        ``{"decisions", "train_decisions", "holdout_decisions", "steps", "first_loss", "last_loss"
        (mean of the first and last ten steps' losses), "holdout_agreement" (fraction of held-out
        decisions where the network's masked argmax is the teacher's action; ``None`` without held-out
        games), "holdout_value_mse"}``.

    Raises:
        ValueError: ``holdout`` outside [0, 1).
        FloatingPointError: the loss became NaN or infinite.
    """
    from envs.core.vector import obs_take, unpack_mask
    from training.agents.alphazero_net import make_evaluate
    from training.engines.alphazero.learning import ReplayBuffer, batch_symmetries, train_step

    if not 0.0 <= holdout < 1.0:
        raise ValueError(f"holdout must be in [0, 1), got {holdout!r}")
    games = len(data["outcomes"])
    kept_out = 0 if games < 2 or holdout == 0 else max(1, int(round(games * holdout)))
    train_idx = np.flatnonzero(data["game"] < games - kept_out)
    test_idx = np.flatnonzero(data["game"] >= games - kept_out)
    num_actions = int(data["num_actions"])
    pc = cfg.pretrain
    value = np.asarray(data["value"])
    value_dim = 1 if value.ndim == 1 else value.shape[1]
    buffer = ReplayBuffer(max(1, train_idx.size), data["observation_space"], num_actions, value_dim=value_dim)
    for lo in range(0, train_idx.size, 4096):  # one-hot targets a chunk at a time: the buffer holds the only full copy
        idx = train_idx[lo : lo + 4096]
        policy = np.zeros((idx.size, num_actions), dtype=np.float16)
        policy[np.arange(idx.size), data["action"][idx]] = 1.0
        buffer.add(obs_take(data["obs"], idx), data["mask"][idx], policy, data["value"][idx])
    rng = np.random.default_rng([seed, 1])
    steps = pc.epochs * math.ceil(train_idx.size / pc.batch_size)
    for group in optimizer.param_groups:
        group["lr"] = pc.learning_rate
    symmetries = batch_symmetries(cfg)
    losses: list[float] = []
    try:
        for _ in range(steps):
            out = train_step(network, optimizer, buffer, rng, pc.batch_size, cfg.learn.value_weight, symmetries, device)
            if not math.isfinite(out["loss"]):
                raise FloatingPointError(
                    f"the warm start's loss became {out['loss']} after {len(losses)} steps: lower "
                    f"pretrain.learning_rate (now {pc.learning_rate})"
                )
            losses.append(out["loss"])
    finally:
        for group in optimizer.param_groups:
            group["lr"] = cfg.learn.learning_rate
    agreement = mse = None
    if test_idx.size:
        evaluate = make_evaluate(network if device is None else copy.deepcopy(network).cpu())
        hits, errors = 0, 0.0
        for lo in range(0, test_idx.size, 512):
            idx = test_idx[lo : lo + 512]
            mask = unpack_mask(data["mask"][idx], num_actions)
            logits, values = evaluate(obs_take(data["obs"], idx), mask)
            hits += int((np.argmax(np.where(mask, logits, -np.inf), axis=1) == data["action"][idx]).sum())
            sq = (values - data["value"][idx]) ** 2  # with K values a position: their mean
            errors += float(sq.sum() if sq.ndim == 1 else sq.mean(axis=1).sum())
        agreement, mse = hits / test_idx.size, errors / test_idx.size
    return {
        "decisions": int(len(data["action"])),
        "train_decisions": int(train_idx.size),
        "holdout_decisions": int(test_idx.size),
        "steps": int(steps),
        "first_loss": float(np.mean(losses[:10])) if losses else None,
        "last_loss": float(np.mean(losses[-10:])) if losses else None,
        "holdout_agreement": agreement,
        "holdout_value_mse": mse,
    }


def warm_start(cfg, network, optimizer, seed: int, device=None, log=print) -> dict:
    """The whole warm start of a new run: :func:`teacher_games` then :func:`imitate`.

    Returns the report's ``pretrain`` entry: ``{"teacher", "games", "epochs", "plies" (decisions
    recorded), "decisive" (fraction of games with a winner), "mean_plies", "collect_seconds",
    "fit_seconds", **imitate's figures}``.
    """
    pc = cfg.pretrain
    t0 = time.time()
    data = teacher_games(cfg, pc.teacher, pc.games, seed)
    t1 = time.time()
    decisive = float(np.mean(np.any(data["outcomes"] != 0, axis=1)))
    log(
        f"[pretrain] {pc.teacher} played {pc.games} games ({len(data['action']):,} decisions, "
        f"{decisive:.0%} decisive) in {t1 - t0:.1f} s; imitating for {pc.epochs} epochs",
        flush=True,
    )
    fit = imitate(network, optimizer, data, cfg, seed, device=device)
    t2 = time.time()
    agreement = fit["holdout_agreement"]
    log(
        f"[pretrain] {fit['steps']} steps in {t2 - t1:.1f} s, loss {fit['first_loss']:.3f} -> {fit['last_loss']:.3f}"
        + (
            f"; held-out games: the teacher's move is the network's {agreement:.1%} of the time, value MSE "
            f"{fit['holdout_value_mse']:.3f}"
            if agreement is not None
            else ""
        ),
        flush=True,
    )
    return {
        "teacher": pc.teacher,
        "games": pc.games,
        "epochs": pc.epochs,
        "plies": int(len(data["action"])),
        "decisive": round(decisive, 4),
        "mean_plies": round(float(np.mean(data["plies"])), 1),
        "collect_seconds": round(t1 - t0, 1),
        "fit_seconds": round(t2 - t1, 1),
        **fit,
    }
