"""The AlphaZero engine's trainer: Gumbel AlphaZero self-play on the vector API, a replay buffer and Adam.

One process, one loop of *rounds* (the learner and the self-play alternate on the same core; with
small networks the batched search is the cost, and a second process would only share the core):

1. **Self-play**: ``selfplay.games`` games in one :func:`envs.make_vec` batch (``same_step``
   autoreset: a finished game restarts at once), ``selfplay.moves_per_round`` lockstep moves. Each
   move of every game is chosen by :func:`training.search.gumbel_search` with the network as its
   ``evaluate`` (one batched forward pass per simulation step, ``torch.no_grad``), root Gumbel noise
   of scale ``search.gumbel_scale`` (Danihelka et al., ICLR 2022: the noise is the exploration;
   the action played is the search's). Stored per move: the observation, the legal mask, the
   improved policy ``action_weights`` (the policy target, paper eq. 11) and the mover; when the
   game ends, each stored position gets the outcome from its mover's side (the mover's return;
   in team games a team shares its return; a game cut by ``max_steps`` is a draw, 0).
   **Playout cap randomisation** (KataGo, arXiv 1902.10565 section 3.1): with ``search.playout_cap.
   full_prob < 1`` each lockstep move is searched in full with that probability (one draw for the
   batch: the games move in lockstep), else with ``cheap_simulations``; only full searches are stored.
2. **Learning**: once the buffer holds ``learn.min_positions``, ``learn.train_steps`` Adam steps on
   minibatches of ``learn.batch_size`` drawn uniformly from the buffer (a numpy ring buffer of
   ``selfplay.buffer_size`` positions): loss = cross-entropy to the improved policy over the legal
   actions + ``learn.value_weight`` * MSE of the ``tanh`` value to the outcome (AlphaZero's loss;
   Adam's ``weight_decay`` is its L2 term). With ``selfplay.symmetries`` each sample is mapped by a
   random symmetry of the game (:meth:`envs.core.observation.ObservationEncoder.symmetries`).

Budgets are positions (moves played in self-play): ``total_timesteps``, ``eval.every`` and
``checkpoint_every``; events fire at the end of the first round that reaches their multiple.

Checkpoints (``checkpoints/step_<N>.pt``, ``final.pt``): one ``torch.save`` of a dict: the config,
the network and optimizer, the replay buffer, the numpy generator's and torch's generator states,
the counters, and the games in progress (the vector env pickled, with each game's stored positions
not yet labelled). ``--resume CKPT`` restores all of it, so a run made in two parts trains the same
weights as one made in one go (``tests/training/test_alphazero.py``) when the first part stops at a
round boundary of the one-go run (``total_timesteps`` a multiple of ``games * moves_per_round``).

Reproducibility: the config's ``seed`` seeds the network's initialisation (torch), the games
(``envs.make_vec(..., seed=seed)``) and one numpy generator for the Gumbel noise, the playout cap
draws and the minibatches; periodic evaluations use their own seeds. Same config, seed,
``torch_threads``, machine and library versions: the same weights, bit for bit.
"""

from __future__ import annotations

import json
import pickle
import time
from pathlib import Path

import numpy as np

from training.config import ConfigError
from training.progress_log import ProgressLogger
from training.runs import duration, final_report, next_multiple, write_config, write_report

__all__ = ["ReplayBuffer", "SelfPlay", "train_step", "train_in", "FORMAT"]

#: The ``format`` entry of every checkpoint of this engine.
FORMAT = "tabletop_rl.alphazero"


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


# ---------------------------------------------------------------------------- self-play
class SelfPlay:
    """``B`` games in lockstep, searched by the network; finished games' positions go to the buffer.

    Attributes: ``env`` (the vector env, ``same_step`` autoreset), ``obs`` (the current
    observations), ``pending`` (per game: the stored positions of the game in progress, as lists of
    ``(obs, packed mask, policy, mover)``), ``episodes`` (games finished), ``evaluations`` (network
    evaluations so far).
    """

    def __init__(self, cfg, seed: int):
        import envs

        self.cfg = cfg
        self.env = envs.make_vec(
            cfg.env_id, cfg.selfplay.games, seed=seed, autoreset="same_step", max_steps=cfg.max_steps, **cfg.env_kwargs
        )
        self.obs = self.env.reset().observation
        self.pending: list[list] = [[] for _ in range(cfg.selfplay.games)]
        self.episodes = 0
        self.evaluations = 0

    def state(self) -> dict:
        """What a checkpoint keeps of the games in progress (the env pickled, exactly)."""
        return {
            "env": pickle.dumps(self.env),
            "obs": self.obs,
            "pending": self.pending,
            "episodes": self.episodes,
            "evaluations": self.evaluations,
        }

    def load(self, state: dict) -> None:
        self.env = pickle.loads(state["env"])
        self.obs, self.pending = state["obs"], state["pending"]
        self.episodes, self.evaluations = state["episodes"], state["evaluations"]

    def move(self, evaluate, rng: np.random.Generator, buffer: ReplayBuffer) -> int:
        """One lockstep move of every game (search, store, step, label the finished games).

        Returns the positions played (the live games)."""
        from envs.core.vector import obs_take, pack_mask
        from training.search import gumbel_search

        sc = self.cfg.search
        cap = sc.playout_cap
        full = True if cap.full_prob >= 1 else bool(rng.random() < cap.full_prob)
        env = self.env
        mask = np.asarray(env.action_mask(), dtype=bool)
        mover = env.current_player().astype(np.int64)
        live = np.flatnonzero(mover >= 0)
        res = gumbel_search(
            env,
            evaluate,
            rng,
            num_simulations=sc.simulations if full else cap.cheap_simulations,
            max_num_considered_actions=sc.max_num_considered_actions,
            gumbel_scale=sc.gumbel_scale,
        )
        self.evaluations += res.num_evaluations
        if full and live.size:
            packed = pack_mask(mask[live])
            rows = obs_take(self.obs, live)
            for j, i in enumerate(live.tolist()):
                o = {k: v[j] for k, v in rows.items()} if isinstance(rows, dict) else rows[j]
                self.pending[i].append((o, packed[j], res.action_weights[i], int(mover[i])))
        out = env.step(res.action)
        self.obs = out.observation
        done = np.flatnonzero(out.terminated | out.truncated)
        for i in done.tolist():
            self.episodes += 1
            stored = self.pending[i]
            self.pending[i] = []
            if not stored:
                continue
            returns = out.rewards[i]
            value = np.clip(np.array([returns[p[3]] for p in stored], dtype=np.float32), -1.0, 1.0)
            first = stored[0][0]
            obs = (
                {k: np.stack([p[0][k] for p in stored]) for k in first}
                if isinstance(first, dict)
                else np.stack([p[0] for p in stored])
            )
            buffer.add(obs, np.stack([p[1] for p in stored]), np.stack([p[2] for p in stored]), value)
        return int(live.size)


# ---------------------------------------------------------------------------- learning
def train_step(
    network,
    optimizer,
    buffer: ReplayBuffer,
    rng: np.random.Generator,
    batch_size: int,
    value_weight: float,
    symmetries=None,
) -> dict:
    """One Adam step on a uniform minibatch: cross-entropy to the improved policy over the legal
    actions plus ``value_weight`` times the value's MSE. Returns the losses (floats)."""
    import torch

    from training.agents.alphazero_net import masked_logits, obs_tensor

    idx = rng.integers(buffer.size, size=batch_size)
    obs, mask, target, z = buffer.batch(idx)
    if symmetries is not None:
        obs, mask, target = symmetries.apply_random(obs, mask, target, rng)
    network.train()
    logits, v = network(obs_tensor(obs))
    logp = torch.log_softmax(masked_logits(logits, torch.as_tensor(mask)), dim=1)
    t = torch.as_tensor(target)
    t = t / t.sum(dim=1, keepdim=True).clamp_min(1e-12)  # float16 storage: renormalise
    policy_loss = -(t * logp).sum(dim=1).mean()
    value_loss = ((v - torch.as_tensor(z)) ** 2).mean()
    loss = policy_loss + value_weight * value_loss
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    return {"policy_loss": policy_loss.item(), "value_loss": value_loss.item(), "loss": loss.item()}


def _symmetries(cfg):
    if not cfg.selfplay.symmetries:
        return None
    from training.engines.alphazero.symmetry import BatchSymmetries

    return BatchSymmetries.for_env(cfg.env_id, cfg.env_kwargs)


# ---------------------------------------------------------------------------- the run
def _save(path: Path, cfg, network, optimizer, buffer, rng, selfplay, counters: dict) -> None:
    import torch

    torch.save(
        {
            "format": FORMAT,
            "config": cfg.to_dict(),
            "network": network.state_dict(),
            "optimizer": optimizer.state_dict(),
            "buffer": buffer,
            "rng": rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(),
            "selfplay": selfplay.state(),
            "counters": dict(counters),
        },
        path,
    )


def train_in(
    cfg, out: Path, *, resume: str | None, progress_bar: bool, started: list, smoke: bool, address: str | None = None
) -> dict:
    """Train a config in the prepared run directory ``out`` (:meth:`training.engines.Engine.train_in`).

    ``resume``: a checkpoint ``.pt`` of this engine to continue from (network, optimizer, buffer,
    generators, games in progress, counters); ``total_timesteps`` counts the positions to add.
    The checkpoint's game setting and network (``policy``) must be the config's.

    Raises:
        ConfigError: a checkpoint that cannot be resumed with this config.
    """
    import torch

    from training.agents.alphazero import load_checkpoint
    from training.agents.alphazero_net import build_network, make_evaluate

    torch.set_num_threads(int(cfg.torch_threads))
    write_config(cfg, out)
    seed = cfg.seed
    torch.manual_seed(seed)
    network = build_network(cfg.env_id, cfg.env_kwargs, cfg.policy.to_dict())
    optimizer = torch.optim.Adam(network.parameters(), lr=cfg.learn.learning_rate, weight_decay=cfg.learn.weight_decay)
    rng = np.random.default_rng(seed)
    selfplay = SelfPlay(cfg, seed)
    space = selfplay.env.core.observation_space
    buffer = ReplayBuffer(cfg.selfplay.buffer_size, space, selfplay.env.num_actions)
    counters = {"positions": 0, "rounds": 0, "train_steps": 0, "elapsed_s": 0.0}
    history: list[dict] = []
    if resume:
        try:
            data = load_checkpoint(resume)
        except (ValueError, FileNotFoundError) as e:
            raise ConfigError(f"cannot resume from {resume}: {e}") from None
        old = data["config"]
        for key in ("env_id", "env_kwargs", "policy"):
            if old[key] != cfg.to_dict()[key]:
                raise ConfigError(
                    f"cannot resume from {resume}: the config's {key} is {cfg.to_dict()[key]!r}, the "
                    f"checkpoint's {old[key]!r}; resume with the config of the run that wrote it "
                    "(its config.yaml)"
                )
        if old["selfplay"]["games"] != cfg.selfplay.games:
            raise ConfigError(
                f"cannot resume from {resume}: selfplay.games is {cfg.selfplay.games}, the "
                f"checkpoint's games in progress are {old['selfplay']['games']}"
            )
        network.load_state_dict(data["network"])
        optimizer.load_state_dict(data["optimizer"])
        for group in optimizer.param_groups:  # the config's hyperparameters win
            group["lr"], group["weight_decay"] = cfg.learn.learning_rate, cfg.learn.weight_decay
        old_buffer = data["buffer"]
        if old_buffer.capacity == buffer.capacity:
            buffer = old_buffer
        else:
            raise ConfigError(
                f"cannot resume from {resume}: selfplay.buffer_size is {cfg.selfplay.buffer_size}, "
                f"the checkpoint's buffer holds {old_buffer.capacity}"
            )
        rng.bit_generator.state = data["rng"]
        torch.set_rng_state(data["torch_rng"])
        selfplay.load(data["selfplay"])
        counters.update(data["counters"])
        history = list(data["counters"].get("history", []))
    counters.pop("history", None)
    symmetries = _symmetries(cfg)
    evaluate = make_evaluate(network)
    start = counters["positions"]
    target = start + cfg.total_timesteps
    print(
        f"[run] directory {out} | env {cfg.env_id} | {cfg.total_timesteps:,} self-play positions to play "
        f"({cfg.selfplay.games} games in lockstep, {cfg.search.simulations} simulations a move"
        + (
            f", {cfg.search.playout_cap.full_prob:g} of moves in full else {cfg.search.playout_cap.cheap_simulations}"
            if cfg.search.playout_cap.full_prob < 1
            else ""
        )
        + ")"
        + (f"; resumed at {start:,}" if resume else ""),
        flush=True,
    )
    logger = ProgressLogger(out / "logs")  # logs/progress.csv and TensorBoard, as the other engines write
    next_eval = next_multiple(start, cfg.eval.every)
    next_ckpt = next_multiple(start, cfg.checkpoint_every)
    started.append(True)
    t0 = time.time()
    elapsed0 = float(counters.get("elapsed_s", 0.0))  # wall seconds of the earlier parts of a resumed run
    search_seconds = train_seconds = 0.0
    evals0 = selfplay.evaluations
    last_print = t0
    losses: dict = {}
    while counters["positions"] < target:
        t1 = time.time()
        for _ in range(cfg.selfplay.moves_per_round):
            counters["positions"] += selfplay.move(evaluate, rng, buffer)
        t2 = time.time()
        search_seconds += t2 - t1
        if buffer.size >= cfg.learn.min_positions:
            for _ in range(cfg.learn.train_steps):
                losses = train_step(
                    network, optimizer, buffer, rng, cfg.learn.batch_size, cfg.learn.value_weight, symmetries
                )
                counters["train_steps"] += 1
        train_seconds += time.time() - t2
        counters["rounds"] += 1
        t = counters["positions"]
        for k, v in losses.items():
            logger.record(f"train/{k}", v)
        logger.record("selfplay/episodes", selfplay.episodes)
        logger.record("selfplay/buffer", buffer.size)
        logger.record("selfplay/positions_per_s", (t - start) / max(search_seconds, 1e-9))
        logger.record("time/total_timesteps", t)
        counters["elapsed_s"] = elapsed0 + time.time() - t0
        logger.record("time/time_elapsed", round(counters["elapsed_s"], 1))
        if t >= next_ckpt:
            _save(
                out / "checkpoints" / f"step_{t}.pt",
                cfg,
                network,
                optimizer,
                buffer,
                rng,
                selfplay,
                {**counters, "history": history},
            )
            next_ckpt = next_multiple(t, cfg.checkpoint_every)
        if t >= next_eval:
            next_eval = next_multiple(t, cfg.eval.every)
            history.append(
                {**_evaluate(cfg, network, t, selfplay.episodes, logger), "elapsed_s": round(counters["elapsed_s"], 1)}
            )
        logger.dump(t)
        if progress_bar and time.time() - last_print > 30:
            last_print = time.time()
            print(
                f"[selfplay] {t:,}/{target:,} positions | {selfplay.episodes} games | "
                f"{(t - start) / max(search_seconds, 1e-9):.0f} positions/s | {losses}",
                flush=True,
            )
    logger.close()
    wall = time.time() - t0
    counters["elapsed_s"] = elapsed0 + wall
    final = out / "checkpoints" / "final.pt"
    _save(final, cfg, network, optimizer, buffer, rng, selfplay, {**counters, "history": history})
    played = counters["positions"] - start
    throughput = {
        "positions_per_s": round(played / max(search_seconds, 1e-9), 1),
        "evaluations_per_s": round((selfplay.evaluations - evals0) / max(search_seconds, 1e-9), 1),
        "selfplay_seconds": round(search_seconds, 1),
        "learn_seconds": round(train_seconds, 1),
    }
    print(f"[run] {played:,} positions in {duration(wall)}: {throughput}", flush=True)
    report, eval_seconds = final_report(
        cfg, final, out, history, agent_spec=f"az:{final}", concurrency=cfg.selfplay.games
    )
    report.update(
        {
            "config": cfg.name,
            "env_id": cfg.env_id,
            "seed": seed,
            "engine": "alphazero",
            "timesteps": int(counters["positions"]),
            "timesteps_this_run": int(played),
            "resumed_from": resume,
            "train_seconds": round(wall, 1),
            "elapsed_seconds": round(counters["elapsed_s"], 1),  # all parts of a resumed run
            "eval_seconds": eval_seconds,
            "checkpoint": str(final),
            "pretrain": None,
            "periodic_eval": history,
            "smoke": bool(smoke),
            "budgets": cfg.budgets(),
            "throughput": throughput,
            "episodes": selfplay.episodes,
            "train_steps": counters["train_steps"],
        }
    )
    return write_report(cfg, out, report, history)


def _evaluate(cfg, network, t: int, episodes: int, logger) -> dict:
    """The periodic evaluation: the network with ``search.eval_simulations`` against each opponent."""
    from training.agents import make_agent
    from training.agents.alphazero import AlphaZeroAgent
    from training.arena import head_to_head

    agent = AlphaZeroAgent(
        network,
        simulations=cfg.search.eval_simulations,
        max_num_considered_actions=cfg.search.max_num_considered_actions,
        seed=t,
        name="learner",
        trained_on=(cfg.env_id, dict(cfg.env_kwargs)),
    )
    row = {"timesteps": t, "episodes": episodes}
    for spec in cfg.eval.opponents:
        r = head_to_head(
            cfg.env_id,
            agent,
            make_agent(spec, seed=t),
            cfg.eval.games,
            seed=t,
            env_kwargs=cfg.env_kwargs,
            max_steps=cfg.max_steps,
            concurrency=cfg.selfplay.games,
        )
        row[f"score_vs_{spec}"] = r["score"]
        logger.record(f"eval/score_vs_{spec}", r["score"])
    print(f"[eval] {json.dumps(row)}", flush=True)
    return row
