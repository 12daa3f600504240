"""The AlphaZero engine's trainer: Gumbel AlphaZero self-play on the vector API, a replay buffer and Adam.

One loop of synchronous *rounds*. By default (``selfplay.actors: 0``) in one process: the learner and
the self-play alternate on the same core (with small networks the batched search is the cost, and a
second process would only share the core). With self-play actors on Ray (below) the self-play of a
round runs on the actors while the learner waits, then the learning runs while they wait:

1. **Self-play**: ``selfplay.games`` games in one :func:`envs.make_vec` batch (``same_step``
   autoreset: a finished game restarts at once), ``selfplay.moves_per_round`` lockstep moves. Each
   move of every game is chosen by :func:`training.search.gumbel_search` with the network as its
   ``evaluate`` (one batched forward pass per simulation step, ``torch.no_grad``), root Gumbel noise
   of scale ``search.gumbel_scale`` (Danihelka et al., ICLR 2022: the noise is the exploration;
   the action played is the search's). Stored per move: the observation, the legal mask, the
   improved policy ``action_weights`` (the policy target, paper eq. 11) and the mover; when the
   game ends, each stored position gets the outcome from its mover's side (the mover's return;
   in team games a team shares its return; a game cut by ``max_steps`` is a draw, 0): with more
   than two sides (``K > 2``), every side's return in the search's mover-relative order
   (:func:`~training.engines.alphazero.learning.value_targets`). The observation stored is the
   mover's own (the vector env's observation is its current player's view: hidden hands and the
   bag's order are not in it). A seat moving several times in a row (Tantrix's forced and free
   placements of one turn) or passing (Smartrix) makes ordinary consecutive positions, each
   labelled from its own mover's side. In a game with hidden information or chance each search
   runs on one determinization from the mover's view, drawn from the run's generator after the
   root noise (:func:`training.search.gumbel_search`), so it is as reproducible as the noise.
   **Playout cap randomisation** (KataGo, arXiv 1902.10565 section 3.1): with ``search.playout_cap.
   full_prob < 1`` each lockstep move is searched in full with that probability (one draw for the
   batch: the games move in lockstep), else with ``cheap_simulations``; only full searches are stored.
2. **Learning**: once the buffer holds ``learn.min_positions``, ``learn.train_steps`` Adam steps on
   minibatches of ``learn.batch_size`` drawn uniformly from the buffer (a numpy ring buffer of
   ``selfplay.buffer_size`` positions): loss = cross-entropy to the improved policy over the legal
   actions + ``learn.value_weight`` * MSE of the ``tanh`` value to the outcome (AlphaZero's loss;
   Adam's ``weight_decay`` is its L2 term; with ``K > 2`` sides, the ``K`` values' MSE averaged).
   With ``selfplay.symmetries`` each sample is mapped by a random symmetry of the game
   (:meth:`envs.core.observation.ObservationEncoder.symmetries`).

Budgets are positions (moves played in self-play): ``total_timesteps``, ``eval.every`` and
``checkpoint_every``; events fire at the end of the first round that reaches their multiple.

**Self-play actors on Ray** (``selfplay.actors: N >= 1``, or ``--address`` given, which makes
``actors: 0`` mean 1): N Ray actors of one CPU each (:class:`SelfPlayActor`, scheduled with Ray's
``SPREAD`` strategy: across the nodes), on a Ray instance of the run's own (no ``--address``, or
``--address local``) or on the cluster of ``--address HOST:PORT|auto``
(:func:`training.ray_cluster.start_ray`; a cluster that cannot hold N one-CPU actors at once is a
:class:`~training.ray_cluster.ClusterError` before any is created). Actor ``i`` owns a
:class:`SelfPlay` of its own ``selfplay.games`` games (dealt with seeds ``seed + i * games + j``:
the games one batch of ``N * games`` would have), its own numpy generator (``default_rng([seed,
i])``: Gumbel noise and playout cap draws), a CPU copy of the network and torch at one thread
(:func:`training.threads.set_torch_threads`). Each round the learner puts the current weights in
Ray's object store once (``ray.put`` of the ``state_dict``), every actor loads them and plays
``moves_per_round`` lockstep moves, and returns the positions of the games that ended (observation,
packed mask, policy target, value target) with its counters; the learner adds them to its buffer in
actor order, then takes its ``learn.train_steps`` Adam steps (minibatches from its own generator,
``default_rng(seed)``). A round plays ``N * games * moves_per_round`` positions at most. The rounds
are synchronous and the results are added in actor order, so the run does not depend on Ray's
scheduling: the same config, seed and ``actors``, with every actor on the same kind of machine,
train the same weights (``tests/training/test_alphazero_ray.py`` checks it on one machine); actors
on machines with other CPUs or library versions may differ in the last bits of a forward pass. The
actors are stopped after the last round (the final evaluation runs in the learner's process), and
a Ray instance the run started is shut down then. ``report.json`` gains ``ray`` (address, nodes,
CPUs, GPUs) and ``actors`` (per actor: its node, positions, games finished, network evaluations).

**Device** (``learn.device``): ``cuda`` puts the learner's network, its Adam state and its
minibatches on the GPU; self-play (in process or on the actors) and the evaluations search with a
CPU copy of the weights, refreshed after every round's learning. Untested on a GPU here (the
development machine has none); a run asking for ``cuda`` where ``torch.cuda.is_available()`` is
false stops at once with a :class:`~training.config.ConfigError`.

Checkpoints (``checkpoints/step_<N>.pt``, ``final.pt``): one ``torch.save`` of a dict: the config,
the network and optimizer, the replay buffer, the numpy generator's and torch's generator states,
the counters, and the games in progress (the vector env pickled, with each game's stored positions
not yet labelled). ``--resume CKPT`` restores all of it, so a run made in two parts trains the same
weights as one made in one go (``tests/training/test_alphazero.py``) when the first part stops at a
round boundary of the one-go run (``total_timesteps`` a multiple of ``games * moves_per_round``).
With actors the checkpoint holds each actor's games in progress, generator and counters
(:meth:`SelfPlayActor.state`), and a resumed run gives them back to its actors, so resuming is as
exact (with ``N * games * moves_per_round`` per round); it needs the same number of actors as the
run that wrote the checkpoint (a checkpoint of in-process self-play resumes with ``actors: 0`` and
no ``--address``), else a :class:`~training.config.ConfigError`.

Reproducibility: the config's ``seed`` seeds the network's initialisation (torch), the games
(``envs.make_vec(..., seed=seed)``) and one numpy generator for the Gumbel noise, the playout cap
draws and the minibatches; periodic evaluations use their own seeds. Same config, seed,
``torch_threads``, machine and library versions: the same weights, bit for bit.
"""

from __future__ import annotations

import copy
import json
import pickle
import time
from pathlib import Path
from typing import Any

import numpy as np

from training.config import ConfigError
from training.engines.alphazero.learning import ReplayBuffer, batch_symmetries, train_step, value_targets
from training.progress_log import ProgressLogger
from training.runs import duration, final_report, next_multiple, write_config, write_report

__all__ = ["ReplayBuffer", "SelfPlay", "SelfPlayActor", "ActorPool", "train_step", "train_in", "FORMAT"]

#: The ``format`` entry of every checkpoint of this engine.
FORMAT = "tabletop_rl.alphazero"


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
        from training.search import seat_teams

        self.cfg = cfg
        self.env = envs.make_vec(
            cfg.env_id, cfg.selfplay.games, seed=seed, autoreset="same_step", max_steps=cfg.max_steps, **cfg.env_kwargs
        )
        self.obs = self.env.reset().observation
        self.team_of = seat_teams(self.env)  # each seat's side, for the value targets
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

    def move(self, evaluate, rng: np.random.Generator, buffer: ReplayBuffer | Chunks) -> int:
        """One lockstep move of every game (search, store, step, label the finished games; their
        positions go to ``buffer.add``).

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
            value_scale=sc.value_scale,
            heuristic_weight=sc.heuristic_weight,
            heuristic=sc.heuristic,
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
            value = value_targets(out.rewards[i], np.array([p[3] for p in stored], dtype=np.int64), self.team_of)
            first = stored[0][0]
            obs = (
                {k: np.stack([p[0][k] for p in stored]) for k in first}
                if isinstance(first, dict)
                else np.stack([p[0] for p in stored])
            )
            buffer.add(obs, np.stack([p[1] for p in stored]), np.stack([p[2] for p in stored]), value)
        return int(live.size)


class Chunks:
    """A stand-in for :class:`ReplayBuffer` that keeps what :meth:`SelfPlay.move` adds, in order:
    ``chunks``, a list of ``(obs, packed mask, policy, value)`` (one per finished game)."""

    def __init__(self) -> None:
        self.chunks: list[tuple] = []

    def add(self, obs, packed_mask: np.ndarray, policy: np.ndarray, value: np.ndarray) -> None:
        self.chunks.append((obs, packed_mask, policy, value))


# ---------------------------------------------------------------------------- self-play actors on Ray
class SelfPlayActor:
    """One self-play actor: a :class:`SelfPlay` of its own ``selfplay.games`` games, searched with a
    CPU copy of the learner's network (:class:`ActorPool` makes it a Ray actor of one CPU).

    Args:
        cfg: the run's :class:`~training.engines.alphazero.config.AlphaZeroConfig`.
        index: the actor's index ``i`` (0-based): its games are dealt with seeds
            ``cfg.seed + i * games + j``, its generator is ``np.random.default_rng([cfg.seed, i])``.
    """

    def __init__(self, cfg, index: int):
        from training.threads import set_torch_threads

        set_torch_threads(1)  # each actor holds one CPU
        import torch

        from training.agents.alphazero_net import build_network, make_evaluate

        self.cfg, self.index = cfg, int(index)
        torch.manual_seed(cfg.seed)  # (the initial weights are replaced by the learner's every round)
        self.network = build_network(cfg.env_id, cfg.env_kwargs, cfg.policy.to_dict())
        self.evaluate = make_evaluate(self.network)
        self.selfplay = SelfPlay(cfg, cfg.seed + self.index * cfg.selfplay.games)
        self.rng = np.random.default_rng([cfg.seed, self.index])
        self.positions = 0

    def node(self) -> str:
        """The Ray node id the actor runs on (hex)."""
        import ray

        return ray.get_runtime_context().get_node_id()

    def play(self, weights: dict, moves: int) -> dict:
        """Load ``weights`` (a CPU ``state_dict``) and play ``moves`` lockstep moves.

        Returns:
            ``{"chunks": [(obs, packed mask uint8 (n, ceil(A/8)), policy float32 (n, A), value
            float32 (n,) or (n, K) (:func:`~training.engines.alphazero.learning.value_targets`)),
            ...] (one per game that ended, in order), "positions": int (played this
            round), "totals": {"positions", "episodes", "evaluations"} (the actor's totals)}``.
        """
        self.network.load_state_dict(weights)
        sink = Chunks()
        played = 0
        for _ in range(int(moves)):
            played += self.selfplay.move(self.evaluate, self.rng, sink)
        self.positions += played
        return {"chunks": sink.chunks, "positions": played, "totals": self.totals()}

    def totals(self) -> dict:
        """``{"positions", "episodes", "evaluations"}``: the actor's counters since the run began."""
        sp = self.selfplay
        return {"positions": self.positions, "episodes": sp.episodes, "evaluations": sp.evaluations}

    def state(self) -> dict:
        """What a checkpoint keeps of the actor: its games in progress (:meth:`SelfPlay.state`), its
        generator's state and its position count."""
        return {"selfplay": self.selfplay.state(), "rng": self.rng.bit_generator.state, "positions": self.positions}

    def load(self, state: dict) -> None:
        """Restore :meth:`state`."""
        self.selfplay.load(state["selfplay"])
        self.rng.bit_generator.state = state["rng"]
        self.positions = int(state["positions"])


class ActorPool:
    """``n`` :class:`SelfPlayActor` s as Ray actors of one CPU each, spread over the nodes (Ray must be
    running: :func:`training.ray_cluster.start_ray`).

    Raises:
        ClusterError: the cluster cannot hold ``n`` one-CPU actors at once
            (:func:`training.ray_cluster.check_cpus`).
    """

    def __init__(self, cfg, n: int):
        import ray

        from training.ray_cluster import check_cpus

        check_cpus(
            n,
            "self-play actors",
            "lower selfplay.actors, or add nodes (`ray start --address=HEAD:PORT --num-cpus N` on each)",
        )
        remote = ray.remote(SelfPlayActor).options(num_cpus=1, scheduling_strategy="SPREAD")
        self.actors: list[Any] = [remote.remote(cfg, i) for i in range(n)]  # Ray actor handles
        self.nodes: list[str] = ray.get([a.node.remote() for a in self.actors])
        self.totals: list[dict] = [{"positions": 0, "episodes": 0, "evaluations": 0} for _ in range(n)]

    @property
    def episodes(self) -> int:
        return sum(t["episodes"] for t in self.totals)

    @property
    def evaluations(self) -> int:
        return sum(t["evaluations"] for t in self.totals)

    def play_round(self, network, moves: int, buffer: ReplayBuffer) -> int:
        """Send ``network``'s weights to every actor, let each play ``moves`` moves, add the
        finished games' positions to ``buffer`` in actor order. Returns the positions played."""
        import ray

        weights = ray.put({k: v.detach().cpu() for k, v in network.state_dict().items()})
        results = ray.get([a.play.remote(weights, moves) for a in self.actors])
        played = 0
        for i, r in enumerate(results):
            for chunk in r["chunks"]:
                buffer.add(*chunk)
            played += r["positions"]
            self.totals[i] = r["totals"]
        return played

    def state(self) -> dict:
        """The checkpoint's ``selfplay`` entry with actors: ``{"actors": [SelfPlayActor.state()...],
        "episodes", "evaluations"}``."""
        import ray

        return {
            "actors": ray.get([a.state.remote() for a in self.actors]),
            "episodes": self.episodes,
            "evaluations": self.evaluations,
        }

    def load(self, state: dict) -> None:
        import ray

        ray.get([a.load.remote(s) for a, s in zip(self.actors, state["actors"])])
        self.totals = ray.get([a.totals.remote() for a in self.actors])

    def report(self) -> list[dict]:
        """Per actor: ``{"index", "node", "positions", "episodes", "evaluations"}`` (totals)."""
        return [{"index": i, "node": self.nodes[i], **t} for i, t in enumerate(self.totals)]

    def close(self) -> None:
        """Stop the actors."""
        import ray

        for a in self.actors:
            ray.kill(a)
        self.actors = []


# ---------------------------------------------------------------------------- the run
def _save(path: Path, cfg, network, optimizer, buffer, rng, selfplay, counters: dict) -> None:
    """``selfplay``: the :class:`SelfPlay` of in-process self-play, or the :class:`ActorPool`."""
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


def _device(cfg):
    """The learner's torch device: ``None`` for the CPU (nothing moved), else ``torch.device("cuda")``.

    Raises:
        ConfigError: ``learn.device: cuda`` where torch sees no CUDA GPU.
    """
    if cfg.learn.device == "cpu":
        return None
    import torch

    if not torch.cuda.is_available():
        raise ConfigError(
            f"config 'learn.device' is 'cuda' but torch finds no CUDA GPU here (torch.cuda.is_available() is "
            f"False; torch {torch.__version__}, "
            f"{'built with CUDA ' + str(torch.version.cuda) if torch.version.cuda else 'a CPU-only build'}): "
            "set learn.device: cpu, or run on a machine with a GPU and a CUDA build of torch"
        )
    return torch.device("cuda")


def _where(actors: int) -> str:
    return (
        "in the learner's process (selfplay.actors 0, no --address)"
        if actors == 0
        else f"on {actors} Ray actor{'s' if actors > 1 else ''} (selfplay.actors {actors})"
    )


def train_in(
    cfg, out: Path, *, resume: str | None, progress_bar: bool, started: list, smoke: bool, address: str | None = None
) -> dict:
    """Train a config in the prepared run directory ``out`` (:meth:`training.engines.Engine.train_in`).

    ``resume``: a checkpoint ``.pt`` of this engine to continue from (network, optimizer, buffer,
    generators, games in progress, counters); ``total_timesteps`` counts the positions to add.
    The checkpoint's game setting and network (``policy``) must be the config's, and its self-play
    must have run as this run's does (in process, or on as many actors).

    ``address``: the Ray cluster of the self-play actors (``"HOST:PORT"``, ``"auto"`` or
    ``"local"``, :func:`training.ray_cluster.start_ray`); given with ``selfplay.actors: 0``, one
    actor (the run's ``config.yaml`` then says ``actors: 1``). ``None``: self-play in this process,
    or with ``selfplay.actors >= 1`` on a local Ray instance of the run's own.

    Raises:
        ConfigError: a checkpoint that cannot be resumed with this config; ``learn.device: cuda``
            without a CUDA GPU.
        ClusterError: Ray could not be started or joined, or cannot hold the actors
            (:mod:`training.ray_cluster`).
        training.cli.MissingExtraError: actors without Ray (the ``rllib`` extra) installed.
    """
    import torch

    from training.agents.alphazero import load_checkpoint
    from training.agents.alphazero_net import build_network, make_evaluate, num_sides, value_outputs

    torch.set_num_threads(int(cfg.torch_threads))
    if address is not None and cfg.selfplay.actors == 0:
        cfg = cfg.model_copy(deep=True)
        cfg.selfplay.actors = 1
    n_actors = cfg.selfplay.actors
    device = _device(cfg)
    write_config(cfg, out)
    seed = cfg.seed
    torch.manual_seed(seed)
    network = build_network(cfg.env_id, cfg.env_kwargs, cfg.policy.to_dict())
    if device is not None:
        network.to(device)
    optimizer = torch.optim.Adam(network.parameters(), lr=cfg.learn.learning_rate, weight_decay=cfg.learn.weight_decay)
    rng = np.random.default_rng(seed)
    selfplay: SelfPlay | None = None
    if n_actors == 0:
        selfplay = SelfPlay(cfg, seed)
        probe = selfplay.env
    else:  # the actors hold the games; one game here gives the buffer its shapes
        import envs

        probe = envs.make_vec(cfg.env_id, 1, seed=seed, max_steps=cfg.max_steps, **cfg.env_kwargs)
    buffer = ReplayBuffer(
        cfg.selfplay.buffer_size,
        probe.core.observation_space,
        probe.num_actions,
        value_dim=value_outputs(num_sides(cfg.env_id, cfg.env_kwargs)),
    )
    counters: dict[str, Any] = {"positions": 0, "rounds": 0, "train_steps": 0, "elapsed_s": 0.0}
    history: list[dict] = []
    saved_games: dict | None = None
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
        saved_games = data["selfplay"]
        old_actors = len(saved_games["actors"]) if "actors" in saved_games else 0
        if old_actors != n_actors:
            raise ConfigError(
                f"cannot resume from {resume}: its self-play ran {_where(old_actors)}, this run's would run "
                f"{_where(n_actors)}; resume with the checkpoint's selfplay.actors (--address only with "
                "actors >= 1), so that its games in progress and generators carry on"
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
        if selfplay is not None:
            selfplay.load(saved_games)
        counters.update(data["counters"])
        history = list(data["counters"].get("history", []))
    counters.pop("history", None)
    symmetries = batch_symmetries(cfg)
    # self-play in process and the evaluations search with a CPU network: the learner's own on the CPU
    play_net = network if device is None else copy.deepcopy(network).cpu()
    evaluate = make_evaluate(play_net)
    pool: ActorPool | None = None
    ray_info = None
    stop_ray_at_end = False
    if n_actors:
        from training.ray_cluster import require_ray, start_ray, stop_ray

        user = f"AlphaZero self-play on Ray actors (selfplay.actors {n_actors}{', --address' if address else ''})"
        require_ray(user)
        import ray

        stop_ray_at_end = not ray.is_initialized()
        ray_info = start_ray(address, user=user)
        try:
            pool = ActorPool(cfg, n_actors)
            if saved_games is not None:
                pool.load(saved_games)
        except BaseException:
            if pool is not None:
                pool.close()
            if stop_ray_at_end:
                stop_ray()
            raise
    players: SelfPlay | ActorPool
    if pool is not None:
        players = pool
    else:
        assert selfplay is not None  # made above when there are no actors
        players = selfplay
    start = counters["positions"]
    target = start + cfg.total_timesteps
    games_line = (
        f"{cfg.selfplay.games} games in lockstep"
        if pool is None
        else f"{n_actors} Ray actor{'s' if n_actors > 1 else ''} x {cfg.selfplay.games} games in lockstep "
        f"on {ray_info.nodes if ray_info else '?'} node(s) of {ray_info.address if ray_info else '?'}"
    )
    print(
        f"[run] directory {out} | env {cfg.env_id} | {cfg.total_timesteps:,} self-play positions to play "
        f"({games_line}, {cfg.search.simulations} simulations a move"
        + (
            f", {cfg.search.playout_cap.full_prob:g} of moves in full else {cfg.search.playout_cap.cheap_simulations}"
            if cfg.search.playout_cap.full_prob < 1
            else ""
        )
        + ")"
        + (f" | learner on {device}" if device is not None else "")
        + (f"; resumed at {start:,}" if resume else ""),
        flush=True,
    )
    pretrain_report = None
    if resume and cfg.pretrain.teacher is not None:
        print("[pretrain] skipped: a resumed run continues its checkpoint", flush=True)
    elif cfg.pretrain.teacher is not None:  # behaviour-cloning warm start (warm_start.py), never when resuming
        from training.engines.alphazero.warm_start import warm_start

        t_pre = time.time()
        pretrain_report = warm_start(cfg, network, optimizer, seed, device=device)
        if play_net is not network:
            play_net.load_state_dict(network.state_dict())
        counters["elapsed_s"] = float(counters.get("elapsed_s", 0.0)) + time.time() - t_pre
        _save(out / "checkpoints" / "pretrained.pt", cfg, network, optimizer, buffer, rng, players, counters)
    logger = ProgressLogger(out / "logs")  # logs/progress.csv and TensorBoard, as the other engines write
    next_eval = next_multiple(start, cfg.eval.every)
    next_ckpt = next_multiple(start, cfg.checkpoint_every)
    started.append(True)
    t0 = time.time()
    elapsed0 = float(counters.get("elapsed_s", 0.0))  # wall seconds of the earlier parts of a resumed run
    search_seconds = train_seconds = 0.0
    evals0 = players.evaluations
    last_print = t0
    losses: dict = {}
    final = out / "checkpoints" / "final.pt"
    try:
        while counters["positions"] < target:
            t1 = time.time()
            if pool is None:
                assert selfplay is not None
                for _ in range(cfg.selfplay.moves_per_round):
                    counters["positions"] += selfplay.move(evaluate, rng, buffer)
            else:
                counters["positions"] += pool.play_round(network, cfg.selfplay.moves_per_round, buffer)
            t2 = time.time()
            search_seconds += t2 - t1
            if buffer.size >= cfg.learn.min_positions:
                for _ in range(cfg.learn.train_steps):
                    losses = train_step(
                        network,
                        optimizer,
                        buffer,
                        rng,
                        cfg.learn.batch_size,
                        cfg.learn.value_weight,
                        symmetries,
                        device,
                    )
                    counters["train_steps"] += 1
                if play_net is not network:
                    play_net.load_state_dict(network.state_dict())
            train_seconds += time.time() - t2
            counters["rounds"] += 1
            t = counters["positions"]
            for k, v in losses.items():
                logger.record(f"train/{k}", v)
            logger.record("selfplay/episodes", players.episodes)
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
                    players,
                    {**counters, "history": history},
                )
                next_ckpt = next_multiple(t, cfg.checkpoint_every)
            if t >= next_eval:
                next_eval = next_multiple(t, cfg.eval.every)
                row = _evaluate(cfg, play_net, t, players.episodes, logger)
                history.append({**row, "elapsed_s": round(counters["elapsed_s"], 1)})
            logger.dump(t)
            if progress_bar and time.time() - last_print > 30:
                last_print = time.time()
                print(
                    f"[selfplay] {t:,}/{target:,} positions | {players.episodes} games | "
                    f"{(t - start) / max(search_seconds, 1e-9):.0f} positions/s | {losses}",
                    flush=True,
                )
        logger.close()
        wall = time.time() - t0
        counters["elapsed_s"] = elapsed0 + wall
        _save(final, cfg, network, optimizer, buffer, rng, players, {**counters, "history": history})
    finally:
        if pool is not None:
            pool.close()
            if stop_ray_at_end:
                from training.ray_cluster import stop_ray

                stop_ray()
    played = counters["positions"] - start
    throughput = {
        "positions_per_s": round(played / max(search_seconds, 1e-9), 1),
        "evaluations_per_s": round((players.evaluations - evals0) / max(search_seconds, 1e-9), 1),
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
            "pretrain": pretrain_report,
            "periodic_eval": history,
            "smoke": bool(smoke),
            "budgets": cfg.budgets(pretrained=resume is None),
            "throughput": throughput,
            "episodes": players.episodes,
            "train_steps": counters["train_steps"],
            "device": cfg.learn.device,
            "ray": None
            if ray_info is None
            else {
                "address": ray_info.address,
                "joined": ray_info.joined,
                "nodes": ray_info.nodes,
                "cpus": ray_info.cpus,
                "gpus": ray_info.gpus,
            },
            "actors": [] if pool is None else pool.report(),
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
        value_scale=cfg.search.value_scale,
        heuristic_weight=cfg.search.heuristic_weight,
        heuristic=cfg.search.heuristic,
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
