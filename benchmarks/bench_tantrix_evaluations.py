"""Tantrix's evaluations for search, per position: the vector core's numba passes against the
reference states (the peer, the default ``VectorCore.heuristic_values`` path).

Usage::

    python benchmarks/bench_tantrix_evaluations.py [--games 64] [--plies 20] [--repeat 50] [--seed 0]

Deals ``--games`` two-player games (window radius 10, as ``tantrix_az``), plays ``--plies``
uniformly random plies in each, then times ``heuristic_values(live, [0, 1], name)`` for
``evaluate`` (the score gap), ``predicted`` (the robot's predicted final score gap) and
``predicted_turn`` (the same after the mover plays out its turn by the robot's one-placement
choices) on the games not over, best of ``--repeat`` calls (``predicted_turn``: a tenth of them),
and the last two through the reference states (``to_state`` and
:func:`envs.tantrix.robot.robot_value` / :func:`~envs.tantrix.robot.turn_end_value`, best of 3
calls; 1 for ``predicted_turn``). Prints microseconds a position (two seats each), the ratio
reference / kernel for both, checks that kernel and reference give the same values, and the load
average at the start.
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
    for name in ("evaluate", "predicted", "predicted_turn"):
        core.heuristic_values(live, seats, name)  # compile / load the cache
        best = float("inf")
        for _ in range(args.repeat if name != "predicted_turn" else max(1, args.repeat // 10)):
            t = time.perf_counter()
            values = core.heuristic_values(live, seats, name)
            best = min(best, time.perf_counter() - t)
        rows[name] = (best / live.size * 1e6, values)
    ref_us, diffs = {}, {}
    for name, calls in (("predicted", 3), ("predicted_turn", 1)):
        ref_best = float("inf")
        for _ in range(calls):
            t = time.perf_counter()
            ref = VectorCore.heuristic_values(core, live, seats, name)
            ref_best = min(ref_best, time.perf_counter() - t)
        ref_us[name] = ref_best / live.size * 1e6
        diffs[name] = float(np.abs(ref - rows[name][1]).max())
        if diffs[name] > 1e-12:
            raise SystemExit(f"the kernel's {name!r} differs from the reference states' by {diffs[name]}")
    print(f"{live.size} positions after {args.plies} random plies, two seats each")
    print(f"{'evaluation':<54} {'us a position':>14}")
    print(f"{'evaluate (score gap), kernel':<54} {rows['evaluate'][0]:>14.2f}")
    for name, label in (("predicted", "predicted (robot)"), ("predicted_turn", "predicted_turn (robot, turn played)")):
        print(f"{label + ', kernel':<54} {rows[name][0]:>14.2f}")
        print(f"{label + ', reference states':<54} {ref_us[name]:>14.2f}")
    for name in ("predicted", "predicted_turn"):
        ratio = ref_us[name] / rows[name][0]
        print(f"ratio reference / kernel for {name}: {ratio:.1f}x (values equal, max diff {diffs[name]:.1e})")
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
