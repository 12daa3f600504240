"""Smartrix: ``smartrix_v0.env()`` throughput vs PettingZoo's ``chess_v6``, mask time, and
random-play statistics to compare with ``envs/smartrix/RULES.md``.

1. **Environment steps/s**: random play (uniform among the legal actions, pass included) through
   ``envs.smartrix_v0.env()`` exactly as a training loop drives it (``agent_iter``, ``last()``
   reading the Dict observation and the mask, ``step``; ``reset`` after each game), against
   ``pettingzoo.classic.chess_v6.env()`` the same way, in the same run. Target: ratio >= 3.
2. **Mask time**: ``SmartrixState.legal_action_mask()`` per call along random games (median, p90).
3. **Random-play statistics** (rules core, 2 players, 5x5 rule), two policies: ``uniform`` (every
   legal action equally likely, pass included) and ``place`` (a uniform legal placement whenever
   there is one, else pass). Legal placements per turn (distinct orientations; also counting every
   rotation of symmetric cards, 4 per card), share of turns with no placement, sets / cards /
   points collected per game, the largest single collection, actions per game, largest hand.
4. **Kids variant window**: how often a legal placement would lie outside a window of 15..25
   squares (the default is 21), measured by playing with ``window=35`` and checking every turn,
   and how wide the table gets.

    python benchmarks/bench_smartrix.py [--steps 20000] [--chess-steps 5000] [--games 300]
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

import envs.smartrix_v0 as smartrix_v0  # noqa: E402
from envs.smartrix import CARD_PERIODS, SmartrixState  # noqa: E402


def mask_times(steps: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    times = []
    s = SmartrixState(2, rng=rng)
    while len(times) < steps:
        if s.is_terminal():
            s = SmartrixState(2, rng=rng)
        t0 = time.perf_counter_ns()
        mask = s.legal_action_mask()
        times.append(time.perf_counter_ns() - t0)
        legal = np.flatnonzero(mask)
        s.apply(int(legal[rng.integers(len(legal))]))
    return np.array(times)


def random_stats(games: int, seed: int, policy: str, num_players: int = 2) -> dict:
    rng = np.random.default_rng(seed)
    ww = 81
    legal_n, legal_all_rot, sets, cards, points, biggest, lengths, max_hand = [], [], [], [], [], 0, [], 0
    for _ in range(games):
        s = SmartrixState(num_players, rng=rng)
        g_sets = g_cards = 0
        while not s.is_terminal():
            placements = s.legal_placements()
            legal_n.append(len(placements))
            if placements:
                legal_all_rot.append(int((4 // CARD_PERIODS[np.asarray(placements) // (4 * ww)]).sum()))
            else:
                legal_all_rot.append(0)
            if policy == "uniform":
                k = int(rng.integers(len(placements) + 1))
                a = placements[k] if k < len(placements) else s.pass_action
            else:
                a = placements[int(rng.integers(len(placements)))] if placements else s.pass_action
            s.apply(a)
            got = s.last_collected
            if got:
                # sets completed: count lines through the placed card (cards = 4 per line + 1)
                g_sets += (len(got) - 1) // 4
                g_cards += len(got)
                biggest = max(biggest, len(got))
            max_hand = max(max_hand, max(s.hand_size(q) for q in range(num_players)))
        sets.append(g_sets)
        cards.append(g_cards)
        points.append(sum(s.points(q) for q in range(num_players)))
        lengths.append(s.turn_number)
    legal_n = np.array(legal_n)
    return {
        "legal placements per turn (distinct)": legal_n.mean(),
        "legal placements per turn (4 rotations each)": np.mean(legal_all_rot),
        "share of turns with no placement": (legal_n == 0).mean(),
        "sets per game": np.mean(sets),
        "cards collected per game": np.mean(cards),
        "points collected per game": np.mean(points),
        "largest single collection": biggest,
        "actions per game": np.mean(lengths),
        "largest hand": max_hand,
    }


def kids_window_stats(games: int, seed: int, windows=(15, 17, 19, 21, 25)) -> dict:
    rng = np.random.default_rng(seed)
    turns = total = 0
    out_turns = dict.fromkeys(windows, 0)
    out_moves = dict.fromkeys(windows, 0)
    widest = []
    for _ in range(games):
        s = SmartrixState(2, rng=rng, grid_limit=False, window=35)
        wide = 0
        while not s.is_terminal():
            placements = s.legal_placements()
            turns += 1
            total += len(placements)
            box = s.bounding_box()
            if box:
                wide = max(wide, box[1] - box[0] + 1, box[3] - box[2] + 1)
                mr, mc = (box[0] + box[1]) // 2, (box[2] + box[3]) // 2
                dist = [max(abs(r - mr), abs(c - mc)) for _, _, r, c in (s.decode(a) for a in placements)]
                for w in windows:
                    k = sum(d > w // 2 for d in dist)
                    out_moves[w] += k
                    out_turns[w] += k > 0
            a = placements[int(rng.integers(len(placements)))] if placements else s.pass_action
            s.apply(a)
        widest.append(wide)
    out = {"turns": turns, "table width: median": float(np.median(widest)), "table width: max": max(widest)}
    for w in windows:
        out[f"window {w}: share of turns with a square outside"] = out_turns[w] / turns
        out[f"window {w}: share of legal placements outside"] = out_moves[w] / max(1, total)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=20000, help="smartrix env step calls (default 20000)")
    ap.add_argument("--chess-steps", type=int, default=5000, help="chess_v6 step calls (default 5000)")
    ap.add_argument("--games", type=int, default=300, help="games per random-play policy (default 300)")
    ap.add_argument("--kids-games", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        secs, n, games = run_env(smartrix_v0.env, args.steps, args.seed)
        raw_secs, raw_n, _ = run_env(smartrix_v0.raw_env, args.steps, args.seed)
        try:
            from pettingzoo.classic import chess_v6

            c_secs, c_n, c_games = run_env(chess_v6.env, args.chess_steps, args.seed)
        except ImportError as e:  # pragma: no cover
            print(f"chess_v6 unavailable ({e}); peer row skipped")
            c_secs = None
    ours = n / secs
    print("Environment throughput (random play, last() obs + mask, step)")
    print(f"{'environment':<40}{'steps':>9}{'seconds':>9}{'steps/s':>11}")
    print("-" * 69)
    print(f"{'smartrix_v0.env() (2 players)':<40}{n:>9}{secs:>9.2f}{ours:>11,.0f}")
    print(f"{'smartrix_v0.raw_env() (no wrappers)':<40}{raw_n:>9}{raw_secs:>9.2f}{raw_n / raw_secs:>11,.0f}")
    if c_secs is not None:
        peer = c_n / c_secs
        print(f"{'pettingzoo chess_v6.env()':<40}{c_n:>9}{c_secs:>9.2f}{peer:>11,.0f}")
        ratio = ours / peer
        print(f"ratio smartrix / chess: {ratio:.2f}  (target >= 3: {'met' if ratio >= 3 else 'NOT met'})")
    mt = mask_times(10000, args.seed) / 1000
    print(
        f"legal_action_mask(): median {np.median(mt):.1f} us, p90 {np.percentile(mt, 90):.1f} us, "
        f"mean {mt.mean():.1f} us"
    )
    print()
    for policy in ("uniform", "place"):
        st = random_stats(args.games, args.seed, policy)
        print(f"Random play, 2 players, 5x5 rule, policy '{policy}', {args.games} games")
        for k, v in st.items():
            print(f"  {k:<52}{v:>10.3f}" if isinstance(v, float) else f"  {k:<52}{v:>10}")
    print()
    ks = kids_window_stats(args.kids_games, args.seed)
    print(f"Kids variant ({args.kids_games} games, policy 'place', played with window=35)")
    for k, v in ks.items():
        print(f"  {k:<52}{v:>10.4f}" if isinstance(v, float) else f"  {k:<52}{v:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
