"""Tantrix: mask time, ``tantrix_v0.env()`` throughput vs PettingZoo's ``chess_v6``, and how often
the action window clips a legal placement.

1. **Mask computation** per step along random 2-player games through the rules core: the time of
   recomputing the legal placement set (the work ``apply`` does after every placement: candidate
   cells, fit lookups by neighbour-colour pattern, the restrictions) plus building the int8 mask
   (median, p90).
2. **Random games through ``env()``** (2 players, wrapped as PettingZoo Classic, ``last()`` with
   the Dict observation and the mask every step, as a training loop reads them): games/s and
   steps/s, against ``pettingzoo.classic.chess_v6.env()`` played the same way in the same run.
   Target: ratio >= 2.
3. **Window clipping**: over N random games through the rules core (default 10,000; 2, 3 and 4
   players in turn), the share of games, and of decision points, at which a placement the rules
   allow lay outside the window of radius R (default 16), and the largest distance from the
   centre any legal placement reached (measured with a window of radius 30).

    python benchmarks/bench_tantrix.py [--steps 20000] [--clip-games 10000] [--radius 16]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from envloop import run_env  # noqa: E402  (benchmarks/envloop.py)

from envs import tantrix_v0  # noqa: E402
from envs.tantrix import TantrixState  # noqa: E402


def mask_times(games: int, seed: int, radius: int) -> np.ndarray:
    """Per-step times (ns) of recomputing the legal set and the mask."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        s = TantrixState(2, rng=rng, window_radius=radius)
        while not s.is_terminal():
            t0 = time.perf_counter_ns()
            s._placements(s.phase != "free")
            s._mask = None
            s.legal_action_mask()
            out.append(time.perf_counter_ns() - t0)
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
    return np.array(out)


def clip_stats(games: int, seed: int, radius: int):
    rng = np.random.default_rng(seed)
    clipped_games = clipped_points = points = 0
    for g in range(games):
        s = TantrixState(2 + g % 3, rng=rng, window_radius=radius)
        while not s.is_terminal():
            legal = s.legal_actions()
            points += 1
            s.apply(legal[rng.integers(len(legal))])
        clipped_points += s.clipped_placements
        clipped_games += s.clipped_placements > 0
    return clipped_games, clipped_points, points


def reach(games: int, seed: int) -> np.ndarray:
    """Largest hex distance from the centre of any legal placement per game (window radius 30)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        s = TantrixState(2, rng=rng, window_radius=30)
        m = 0
        while not s.is_terminal():
            for _, q, r, _ in s.placements():
                m = max(m, abs(q), abs(r), abs(q + r))
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
        out.append(m)
    return np.array(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=20000, help="env step calls for each engine (default 20000)")
    ap.add_argument("--clip-games", type=int, default=10000, help="random games for the clipping rate (default 10000)")
    ap.add_argument("--reach-games", type=int, default=1000, help="games for the reach distribution (default 1000)")
    ap.add_argument("--radius", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    mt = mask_times(30, args.seed, args.radius) / 1000
    print(f"Tantrix, window radius {args.radius} ({36 * (2 * args.radius + 1) ** 2} actions)")
    print(
        f"mask computation per step: median {np.median(mt):.1f} us, p90 {np.percentile(mt, 90):.1f} us, "
        f"mean {mt.mean():.1f} us ({len(mt)} steps)"
    )

    t0 = time.perf_counter()
    core_games = 200
    rng = np.random.default_rng(args.seed)
    plies = 0
    for _ in range(core_games):
        s = TantrixState(2, rng=rng, window_radius=args.radius)
        while not s.is_terminal():
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
            plies += 1
    dt = time.perf_counter() - t0
    print(f"rules core random games: {core_games / dt:.0f} games/s, {plies / dt:,.0f} placements/s")

    from pettingzoo.classic import chess_v6

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        secs, n, games = run_env(lambda: tantrix_v0.env(window_radius=args.radius), args.steps, args.seed)
        csecs, cn, cgames = run_env(chess_v6.env, args.steps, args.seed)
    ours, chess = n / secs, cn / csecs
    print(f"{'engine':<44}{'steps':>9}{'games':>7}{'seconds':>9}{'steps/s':>10}{'games/s':>9}")
    print("-" * 88)
    print(
        f"{'tabletop tantrix_v0.env() (2 players)':<44}{n:>9}{games:>7}{secs:>9.2f}{ours:>10,.0f}{games / secs:>9.1f}"
    )
    print(f"{'pettingzoo chess_v6.env()':<44}{cn:>9}{cgames:>7}{csecs:>9.2f}{chess:>10,.0f}{cgames / csecs:>9.1f}")
    ratio = ours / chess
    print(f"ratio tantrix_v0 / chess_v6: {ratio:.2f}  (target >= 2: {'met' if ratio >= 2 else 'NOT met'})")

    t0 = time.perf_counter()
    cg, cp, pts = clip_stats(args.clip_games, args.seed, args.radius)
    dt = time.perf_counter() - t0
    print(
        f"window clipping over {args.clip_games} random games (2/3/4 players in turn, {dt:.0f} s): "
        f"{cg} games ({cg / args.clip_games:.3%}) had a legal placement outside radius {args.radius}; "
        f"{cp} of {pts} decision points ({cp / max(pts, 1):.5%})"
    )
    if args.reach_games:
        far = reach(args.reach_games, args.seed + 1)
        tail = ", ".join(f"> {r}: {(far > r).mean():.2%}" for r in (10, 12, 14, 16))
        print(
            f"farthest legal placement per game over {args.reach_games} 2-player games: median {np.median(far):.0f}, "
            f"max {far.max()}; share of games reaching beyond {tail}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
