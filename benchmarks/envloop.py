"""The environment loop the ``bench_*_env`` benchmarks time, shared so every game and its peer
(PettingZoo's ``connect_four_v3`` / ``chess_v6``) run exactly the same code."""

from __future__ import annotations

import time

import numpy as np

__all__ = ["run_env"]


def run_env(make, steps: int, seed: int):
    """Uniform random play for ``steps`` step calls, as a training loop drives an AEC env.

    Every step reads the observation (array or ``Dict``: one value of its first entry) and the
    mask through ``last()``, then steps a uniformly drawn legal action (``None`` for a finished
    agent); finished games are reset.

    Args:
        make: a function returning a fresh environment.
        steps: number of ``step`` calls.
        seed: seeds the first reset and the action choices.

    Returns:
        ``(seconds, steps, games finished)``.
    """
    env = make()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    games, n, sink = 0, 0, 0.0
    t0 = time.perf_counter()
    while n < steps:
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            o = obs["observation"]
            sink += float(next(iter(o.values())).flat[0]) if isinstance(o, dict) else float(o.flat[0])
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            n += 1
            if n >= steps:
                break
        else:
            games += 1
            env.reset()
    elapsed = time.perf_counter() - t0
    env.close()
    return elapsed, n, games
