"""Tantrix's evaluations for search, per position: the vector core's numba passes against the
reference states (the peer, the default ``VectorCore.heuristic_values`` path).

Usage::

    python benchmarks/bench_tantrix_evaluations.py [--games 64] [--plies 20] [--repeat 50] [--seed 0]

Deals ``--games`` two-player games (window radius 10, as ``tantrix_az``), plays ``--plies``
uniformly random plies in each, then times ``heuristic_values(live, [0, 1], name)`` for
``evaluate`` (the score gap) and ``predicted`` (the robot's predicted final score gap) on the
games not over, best of ``--repeat`` calls, and the same through the reference states
(``to_state`` and :func:`envs.tantrix.robot.robot_value`, best of 3 calls). Prints microseconds a
position (two seats each), the ratio reference / kernel for ``predicted``, checks that both give
the same values, and the load average at the start.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from envs.core.vector import VectorCore
from envs.tantrix.vector import TantrixVectorCore


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=64)
    ap.add_argument("--plies", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    load = os.getloadavg()
    B = args.games
    core = TantrixVectorCore(B, num_players=2, window_radius=10)
    core.reset_games(np.arange(B), [np.random.default_rng(args.seed + g) for g in range(B)])
    rng = np.random.default_rng(args.seed + 10_000)
    for _ in range(args.plies):
        mask = core.legal_action_mask()
        acts = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        core.step(acts, ~core.terminated())
    live = np.flatnonzero(~core.terminated())
    seats = np.arange(2)
    rows = {}
    for name in ("evaluate", "predicted"):
        core.heuristic_values(live, seats, name)  # compile / load the cache
        best = float("inf")
        for _ in range(args.repeat):
            t = time.perf_counter()
            values = core.heuristic_values(live, seats, name)
            best = min(best, time.perf_counter() - t)
        rows[name] = (best / live.size * 1e6, values)
    ref_best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        ref = VectorCore.heuristic_values(core, live, seats, "predicted")
        ref_best = min(ref_best, time.perf_counter() - t)
    ref_us = ref_best / live.size * 1e6
    diff = float(np.abs(ref - rows["predicted"][1]).max())
    if diff > 1e-12:
        raise SystemExit(f"the kernel's 'predicted' differs from the reference states' by {diff}")
    print(f"{live.size} positions after {args.plies} random plies, two seats each")
    print(f"{'evaluation':<34} {'us a position':>14}")
    print(f"{'evaluate (score gap), kernel':<34} {rows['evaluate'][0]:>14.2f}")
    print(f"{'predicted (robot), kernel':<34} {rows['predicted'][0]:>14.2f}")
    print(f"{'predicted (robot), reference states':<34} {ref_us:>14.2f}")
    ratio = ref_us / rows["predicted"][0]
    print(f"ratio reference / kernel for predicted: {ratio:.1f}x (values equal, max diff {diff:.1e})")
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
