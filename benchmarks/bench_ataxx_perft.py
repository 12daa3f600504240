"""Ataxx rules-core speed against python-ataxx, measured in the same run.

1. Perft (nodes per second) of ``AtaxxState.perft`` and python-ataxx's ``Board.perft`` on the start
   position and on a position with blockers, at the same depth (node counts are checked equal).
2. Random playouts per second: ours through the public rules API (``legal_action_mask()`` every ply,
   uniform choice among the legal actions, ``apply``), python-ataxx with ``legal_moves()`` /
   ``makemove`` every ply. Both play to the end of the game (clock on).

Usage::

    python benchmarks/bench_ataxx_perft.py                  # defaults: depth 5, 200 playouts
    python benchmarks/bench_ataxx_perft.py --depth 4 --playouts 50 --repeat 1

Target: perft ratio >= 20x.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from envs.ataxx import AtaxxState  # noqa: E402

try:
    import ataxx
except ImportError:  # pragma: no cover - the peer is a bench extra
    sys.exit("python-ataxx is needed for the comparison: pip install 'ataxx>=2.2' (or the 'bench' extra)")

POSITIONS = [
    ("start", "x5o/7/7/7/7/7/o5x x 0 1"),
    ("blockers", "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1"),
]


def best_time(fn, repeat: int):
    best, result = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def bench_perft(depth: int, repeat: int, peer_repeat: int):
    rows = []
    for name, fen in POSITIONS:
        # best_time calls the lambda right away, within this iteration: `fen` is the current one.
        ours_t, ours_n = best_time(lambda: AtaxxState(fen).perft(depth), repeat)  # noqa: B023
        peer_t, peer_n = best_time(lambda: ataxx.Board(fen).perft(depth), peer_repeat)  # noqa: B023
        if ours_n != peer_n:
            raise SystemExit(f"perft mismatch on {name} depth {depth}: ours {ours_n}, python-ataxx {peer_n}")
        rows.append((name, depth, ours_n, ours_t, peer_t))
    return rows


def playouts_ours(n: int, seed: int):
    rng = np.random.default_rng(seed)
    plies = 0
    for _ in range(n):
        s = AtaxxState()
        while True:
            legal = np.flatnonzero(s.legal_action_mask())
            if not len(legal):
                break
            s.apply(int(legal[rng.integers(len(legal))]))
            plies += 1
    return plies


def playouts_peer(n: int, seed: int):
    rng = random.Random(seed)
    plies = 0
    for _ in range(n):
        b = ataxx.Board()
        while True:
            moves = b.legal_moves()  # [] exactly when the game is over
            if not moves:
                break
            b.makemove(rng.choice(moves))
            plies += 1
    return plies


def main(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--depth", type=int, default=5, help="perft depth for both positions (default 5; python-ataxx takes ~5-10 s)"
    )
    p.add_argument("--repeat", type=int, default=3, help="repetitions of our perft, best time kept (default 3)")
    p.add_argument("--peer-repeat", type=int, default=1, help="repetitions of python-ataxx perft (default 1)")
    p.add_argument("--playouts", type=int, default=200, help="random playouts for ours (default 200)")
    p.add_argument(
        "--peer-playouts", type=int, default=None, help="random playouts for python-ataxx (default: playouts / 4)"
    )
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    peer_playouts = args.peer_playouts or max(1, args.playouts // 4)

    print(f"Ataxx rules core vs python-ataxx {ataxx.__version__}  (Python {sys.version.split()[0]})")
    print()
    print("Perft")
    header = (
        f"{'position':<10} {'depth':>5} {'nodes':>11} {'ours s':>8} {'ours nodes/s':>13} "
        f"{'peer s':>8} {'peer nodes/s':>13} {'ratio':>7}"
    )
    print(header)
    print("-" * len(header))
    ratios = []
    for name, depth, nodes, ours_t, peer_t in bench_perft(args.depth, args.repeat, args.peer_repeat):
        ratio = peer_t / ours_t
        ratios.append(ratio)
        print(
            f"{name:<10} {depth:>5} {nodes:>11,} {ours_t:>8.3f} {nodes / ours_t:>13,.0f} {peer_t:>8.3f} "
            f"{nodes / peer_t:>13,.0f} {ratio:>6.1f}x"
        )
    print(
        f"perft speed-up (min over positions): {min(ratios):.1f}x  "
        f"(target >= 20x: {'met' if min(ratios) >= 20 else 'NOT met'})"
    )
    print()

    print("Random playouts from the start position (to the end of the game, clock on)")
    t0 = time.perf_counter()
    ours_plies = playouts_ours(args.playouts, args.seed)
    ours_t = time.perf_counter() - t0
    t0 = time.perf_counter()
    peer_plies = playouts_peer(peer_playouts, args.seed)
    peer_t = time.perf_counter() - t0
    header = f"{'engine':<38} {'games':>6} {'plies':>8} {'seconds':>8} {'games/s':>9} {'plies/s':>10}"
    print(header)
    print("-" * len(header))
    print(
        f"{'ours (legal_action_mask + apply)':<38} {args.playouts:>6} {ours_plies:>8} {ours_t:>8.2f} "
        f"{args.playouts / ours_t:>9.1f} {ours_plies / ours_t:>10,.0f}"
    )
    print(
        f"{'python-ataxx (legal_moves + makemove)':<38} {peer_playouts:>6} {peer_plies:>8} {peer_t:>8.2f} "
        f"{peer_playouts / peer_t:>9.1f} {peer_plies / peer_t:>10,.0f}"
    )
    print(
        f"playout speed-up: {(args.playouts / ours_t) / (peer_playouts / peer_t):.1f}x games/s, "
        f"{(ours_plies / ours_t) / (peer_plies / peer_t):.1f}x plies/s"
    )


if __name__ == "__main__":
    main()
