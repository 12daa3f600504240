"""Speed of the AlphaZero engine's self-play and learning at a config's setting (one thread).

A freshly initialised network of the config's ``policy`` plays ``--moves`` lockstep moves of
``selfplay.games`` games with ``search.simulations`` simulations each (the trainer's own
:class:`training.engines.alphazero.trainer.SelfPlay`, after one warm-up move), then times Adam
steps of ``learn.batch_size`` positions (symmetries applied as the config says). Printed:
self-play positions/s, network evaluations/s (positions sent to the network by the search, roots
included), ms per Adam step, and the positions/s of a whole round (``moves_per_round`` moves, then
``train_steps`` steps) that these imply.

    python benchmarks/bench_alphazero.py configs/ataxx_az.yaml
    python benchmarks/bench_alphazero.py configs/twixt24_az.yaml --moves 4

Wall-clock figures: on a shared machine say the load (``uptime``) with them.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from envs.core.vector import pack_mask  # noqa: E402
from training.agents.alphazero_net import build_network, make_evaluate  # noqa: E402
from training.config import load_config  # noqa: E402
from training.engines.alphazero.learning import ReplayBuffer, batch_symmetries, train_step  # noqa: E402
from training.engines.alphazero.trainer import SelfPlay  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("config", help="an engine: alphazero config, e.g. configs/ataxx_az.yaml")
    p.add_argument("--moves", type=int, default=10, help="lockstep moves to time (default 10)")
    p.add_argument("--steps", type=int, default=5, help="Adam steps to time (default 5)")
    args = p.parse_args()
    cfg = load_config(args.config)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    net = build_network(cfg.env_id, cfg.env_kwargs, cfg.policy.to_dict())
    evaluate = make_evaluate(net)
    selfplay = SelfPlay(cfg, 0)
    rng = np.random.default_rng(0)
    buffer = ReplayBuffer(
        max(cfg.learn.batch_size, 1024), selfplay.env.core.observation_space, selfplay.env.num_actions
    )
    selfplay.move(evaluate, rng, buffer)  # warm-up (numba, torch)
    t0 = time.perf_counter()
    e0 = selfplay.evaluations
    n = sum(selfplay.move(evaluate, rng, buffer) for _ in range(args.moves))
    dt = time.perf_counter() - t0
    pos_s = n / dt
    print(
        f"{cfg.name}: {n} positions in {dt:.1f} s: {pos_s:.0f} self-play positions/s, "
        f"{(selfplay.evaluations - e0) / dt:.0f} network evaluations/s ({cfg.selfplay.games} games, "
        f"{cfg.search.simulations} simulations, one thread)"
    )
    mask = np.asarray(selfplay.env.action_mask())
    b = mask.shape[0]
    while buffer.size < cfg.learn.batch_size:  # positions to learn from (uniform targets)
        buffer.add(selfplay.obs, pack_mask(mask), mask / mask.sum(axis=1, keepdims=True), np.zeros(b, np.float32))
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learn.learning_rate)
    sym = batch_symmetries(cfg)
    train_step(net, opt, buffer, rng, cfg.learn.batch_size, 1.0, sym)
    t0 = time.perf_counter()
    for _ in range(args.steps):
        train_step(net, opt, buffer, rng, cfg.learn.batch_size, 1.0, sym)
    step = (time.perf_counter() - t0) / args.steps
    per_round = cfg.selfplay.moves_per_round * b
    round_s = per_round / pos_s + cfg.learn.train_steps * step
    print(
        f"  Adam step of {cfg.learn.batch_size}: {step * 1000:.0f} ms; a round of {per_round} positions and "
        f"{cfg.learn.train_steps} steps: {round_s:.1f} s, {per_round / round_s:.0f} positions/s with the learning"
    )


if __name__ == "__main__":
    main()
