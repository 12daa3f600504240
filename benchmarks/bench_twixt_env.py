"""twixt_v0 environment throughput vs OpenSpiel's twixt, measured in the same run.

Random play through ``envs.make("twixt_v0", board_size=S, draw="board_full")`` — ``last()`` with
the (S, S, 23) observation and the action mask every step, as an RL loop reads them — against
OpenSpiel's ``twixt`` driven from Python with ``legal_actions()`` every ply (the peer figure of
``bench_twixt.py``). Both play to the end of the game (board full or a win). Also the time of
the observation encoding alone, and the same environment with ``links="manual"`` (the box rules:
uniform random actions, so a step is a placement, a link added or removed, or ``end``).

    python benchmarks/bench_twixt_env.py [--size 24] [--steps 20000] [--peer-games 100] [--manual-steps 10000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_twixt import openspiel_playouts  # noqa: E402
from envloop import run_env  # noqa: E402  (benchmarks/envloop.py)

import envs  # noqa: E402


def observe_times(size: int, steps: int, seed: int) -> np.ndarray:
    """Per-call times (ns) of the observation encoding along random games."""
    raw = envs.make_raw("twixt_v0", board_size=size, draw="board_full")
    raw.reset(seed=seed)
    rng = np.random.default_rng(seed)
    times = []
    while len(times) < steps:
        if any(raw.terminations.values()):
            raw.reset()
        agent = raw.agent_selection
        t0 = time.perf_counter_ns()
        raw._observe(raw.possible_agents.index(agent))
        times.append(time.perf_counter_ns() - t0)
        legal = np.flatnonzero(raw.observe(agent)["action_mask"])
        raw.step(int(legal[rng.integers(len(legal))]))
    return np.array(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=24)
    ap.add_argument("--steps", type=int, default=20000, help="env step calls (default 20000)")
    ap.add_argument("--peer-games", type=int, default=100, help="OpenSpiel games (default 100)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--manual-steps", type=int, default=10000, help="env steps with links='manual' (0: skip)")
    args = ap.parse_args(argv)

    secs, n, games = run_env(
        lambda: envs.make("twixt_v0", board_size=args.size, draw="board_full"), args.steps, args.seed
    )
    ours = n / secs
    peer_secs, peer_plies = openspiel_playouts(args.size, args.peer_games, args.seed)
    peer = peer_plies / peer_secs
    obs = observe_times(args.size, 2000, args.seed) / 1000
    print(f"TwixT {args.size}x{args.size}, random play to the end (board_full draws)")
    print(f"{'engine':<48}{'steps':>9}{'seconds':>9}{'steps/s':>11}")
    print("-" * 77)
    print(f"{'tabletop twixt_v0.env() (last() obs+mask, step)':<48}{n:>9}{secs:>9.2f}{ours:>11,.0f}")
    print(f"{'OpenSpiel twixt (legal_actions(), apply_action)':<48}{peer_plies:>9}{peer_secs:>9.2f}{peer:>11,.0f}")
    ratio = ours / peer
    print(f"ratio env / OpenSpiel core: {ratio:.2f}  (target >= 0.5: {'met' if ratio >= 0.5 else 'NOT met'})")
    print(f"observation encoding: median {np.median(obs):.1f} us, p90 {np.percentile(obs, 90):.1f} us")
    if args.manual_steps:
        msecs, mn, mgames = run_env(
            lambda: envs.make("twixt_v0", board_size=args.size, draw="board_full", links="manual"),
            args.manual_steps,
            args.seed,
        )
        print(
            f"{'tabletop twixt_v0.env(links=manual), random':<48}{mn:>9}{msecs:>9.2f}{mn / msecs:>11,.0f}"
            f"  ({mgames} games finished)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
