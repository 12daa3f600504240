"""Per-decision time of the Tantrix robot (``make_agent("robot")``), 2 players against greedy.

Usage::

    python benchmarks/bench_tantrix_robot.py [--games 6] [--seed 0]

Plays ``--games`` games (seats alternating, deals ``seed + g``) and prints the median, 90th
percentile and maximum seconds of the robot's decisions (every decision it is asked for, forced
ones with a single option included, and separately the decisions with two or more options), and
the load average at the start (``os.getloadavg``) so that a figure can be read against the load.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from envs.tantrix.state import TantrixState
from training.agents import make_agent


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    load = os.getloadavg()
    robot, greedy = make_agent("robot", seed=args.seed), make_agent("greedy", seed=args.seed + 1)
    every, choices = [], []
    for g in range(args.games):
        s, me = TantrixState(2, seed=args.seed + g), g % 2
        while not s.is_terminal():
            if s.current_player == me:
                n = len(s.legal_actions())
                t = time.perf_counter()
                a = robot.act(s, None)
                dt = time.perf_counter() - t
                every.append(dt)
                if n > 1:
                    choices.append(dt)
            else:
                a = greedy.act(s, None)
            s.apply(a)
    for name, xs in (("every decision", every), ("two or more options", choices)):
        print(
            f"{name}: {len(xs)} decisions, median {np.median(xs):.4f} s, p90 {np.percentile(xs, 90):.4f} s, "
            f"max {max(xs):.3f} s"
        )
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
