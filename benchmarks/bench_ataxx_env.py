"""Environment overhead: ``envs.ataxx_v0.env()`` against PettingZoo Classic, in the same run.

Each environment plays random games (uniform among the legal actions) through the AEC API exactly
as a training loop does: ``for agent in env.agent_iter(): obs, reward, term, trunc, info =
env.last()``, read ``obs["observation"]`` and ``obs["action_mask"]``, then ``env.step(action)``
(``None`` for finished agents); ``reset()`` when a game ends. Steps per second count every
``step`` call. Peer: ``pettingzoo.classic.connect_four_v3.env()`` (optionally ``chess_v6``).

It also reports the time of ``AtaxxState.legal_action_mask()`` per step (median, 90th percentile),
measured on the positions of random games through the rules core.

Usage::

    python benchmarks/bench_ataxx_env.py                   # defaults: 20000 steps each
    python benchmarks/bench_ataxx_env.py --steps 5000 --chess

Target: ratio (ataxx steps/s over connect_four steps/s) >= 1.
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

from envs import ataxx_v0  # noqa: E402  (``envs.ataxx_v0``)
from envs.ataxx import AtaxxState  # noqa: E402


def mask_times(steps: int, seed: int):
    """Per-call times (ns) of ``legal_action_mask()`` along random games through the rules core."""
    rng = np.random.default_rng(seed)
    times = []
    s = AtaxxState()
    while len(times) < steps:
        t0 = time.perf_counter_ns()
        mask = s.legal_action_mask()
        times.append(time.perf_counter_ns() - t0)
        legal = np.flatnonzero(mask)
        if not len(legal):
            s = AtaxxState()
            continue
        s.apply(int(legal[rng.integers(len(legal))]))
    return np.array(times)


def main(argv=None):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--steps", type=int, default=20_000, help="step calls per environment (default 20000)")
    p.add_argument("--mask-steps", type=int, default=20_000, help="legal_action_mask() calls timed (default 20000)")
    p.add_argument("--chess", action="store_true", help="also measure pettingzoo.classic.chess_v6 (slow)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    warnings.filterwarnings("ignore")
    from pettingzoo.classic import connect_four_v3

    peers = [("pettingzoo connect_four_v3", connect_four_v3.env)]
    if args.chess:
        from pettingzoo.classic import chess_v6

        peers.append(("pettingzoo chess_v6", chess_v6.env))

    print("Environment random-play throughput (last() with observation + mask, then step)")
    header = f"{'environment':<28} {'steps':>8} {'games':>6} {'seconds':>8} {'steps/s':>10}"
    print(header)
    print("-" * len(header))
    rates = {}
    for name, make in [("tabletop ataxx_v0", ataxx_v0.env)] + peers:
        run_env(make, min(500, args.steps), args.seed)  # warm-up (imports, caches)
        secs, n, games = run_env(make, args.steps, args.seed)
        rates[name] = n / secs
        print(f"{name:<28} {n:>8} {games:>6} {secs:>8.2f} {n / secs:>10,.0f}")
    ratio = rates["tabletop ataxx_v0"] / rates["pettingzoo connect_four_v3"]
    print(f"ratio ataxx_v0 / connect_four_v3: {ratio:.2f}  (target >= 1: {'met' if ratio >= 1 else 'NOT met'})")
    if args.chess:
        print(f"ratio ataxx_v0 / chess_v6: {rates['tabletop ataxx_v0'] / rates['pettingzoo chess_v6']:.2f}")
    print()

    t = mask_times(args.mask_steps, args.seed) / 1000.0
    print(
        f"AtaxxState.legal_action_mask() over {len(t)} positions of random games: "
        f"median {np.median(t):.1f} us, p90 {np.percentile(t, 90):.1f} us, mean {t.mean():.1f} us"
    )


if __name__ == "__main__":
    main()
