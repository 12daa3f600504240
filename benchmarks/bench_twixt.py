"""TwixT rules-core speed against OpenSpiel's ``twixt``, measured in the same run.

1. Random playouts on a 24x24 board (standard rules, no swap, ``draw="board_full"``, the rules
   OpenSpiel plays): ours through the public API (``legal_action_mask()`` every ply, a uniform
   choice among the legal actions, ``apply``), OpenSpiel driven from Python with
   ``legal_actions()`` every ply and ``apply_action`` (its swap action at ply 1 is never chosen).
   Games/s, plies/s and the ratio ours / OpenSpiel (target >= 1x).
2. The early-draw rule: the same random move sequences replayed with ``draw="early"`` and with
   ``draw="board_full"`` over the plies both modes play (the early game may stop sooner): the time
   per move of each and the overhead of the "can still connect" bookkeeping.
3. How much earlier than board-full the games end with ``draw="early"``: mean plies of each, mean
   plies saved, and how many games ended by the early-draw rule.
4. ``legal_action_mask()`` time per call along random games (median, 90th percentile).
5. ``links="manual"`` (the box rules): random games, the same loop; a step is a placement, a link
   added or removed, or ``end`` (turns/s counts the turns).

Usage::

    python benchmarks/bench_twixt.py                        # 200 games each (~10 s)
    python benchmarks/bench_twixt.py --games 50 --size 12   # quick look

OpenSpiel keeps a process-wide table per board size: this script loads a single size.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from envs.twixt import TwixtState  # noqa: E402


def ours_playouts(size: int, games: int, seed: int, draw: str = "board_full", rules: str = "standard"):
    rng = np.random.default_rng(seed)
    plies = 0
    t0 = time.perf_counter()
    for _ in range(games):
        st = TwixtState(size, rules=rules, draw=draw)
        while not st.is_terminal():
            legal = np.flatnonzero(st.legal_action_mask())
            st.apply(int(legal[rng.integers(len(legal))]))
            plies += 1
    return time.perf_counter() - t0, plies


def manual_playouts(size: int, games: int, seed: int, draw: str = "board_full"):
    """Uniformly random actions with ``links="manual"``: ``(seconds, actions, turns)``."""
    rng = np.random.default_rng(seed)
    actions = turns = 0
    t0 = time.perf_counter()
    for _ in range(games):
        st = TwixtState(size, draw=draw, links="manual")
        while not st.is_terminal():
            legal = np.flatnonzero(st.legal_action_mask())
            st.apply(int(legal[rng.integers(len(legal))]))
            actions += 1
        turns += st.turn_number
    return time.perf_counter() - t0, actions, turns


def openspiel_playouts(size: int, games: int, seed: int):
    import pyspiel

    game = pyspiel.load_game("twixt", {"board_size": size, "ansi_color_output": False})
    rng = random.Random(seed)
    plies = 0
    t0 = time.perf_counter()
    for _ in range(games):
        st = game.new_initial_state()
        first = None
        while not st.is_terminal():
            legal = st.legal_actions()
            a = legal[rng.randrange(len(legal))]
            if a == first:  # OpenSpiel's swap: choose again
                continue
            if first is None:
                first = a
            st.apply_action(a)
            plies += 1
    return time.perf_counter() - t0, plies


def random_sequences(size: int, games: int, seed: int, rules: str):
    """Action sequences of random games played to the end under the board-full rule."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        st = TwixtState(size, rules=rules, draw="board_full")
        while not st.is_terminal():
            legal = np.flatnonzero(st.legal_action_mask())
            st.apply(int(legal[rng.integers(len(legal))]))
        out.append((list(st.history), str(st.outcome())))
    return out


def early_draw_figures(size: int, sequences, rules: str):
    """Replay each sequence with draw="early"; time both modes over the common plies."""
    t_early = t_full = 0.0
    common = 0
    lengths_full, lengths_early, early_draws = [], [], 0
    for moves, _ in sequences:
        st = TwixtState(size, rules=rules, draw="early")
        t0 = time.perf_counter()
        for a in moves:
            st.apply(a)
            if st.is_terminal():
                break
        t_early += time.perf_counter() - t0
        k = st.turn_number
        ref = TwixtState(size, rules=rules, draw="board_full")
        t0 = time.perf_counter()
        for a in moves[:k]:
            ref.apply(a)
        t_full += time.perf_counter() - t0
        common += k
        lengths_full.append(len(moves))
        lengths_early.append(k)
        if k < len(moves) and str(st.outcome()) == "1/2-1/2":
            early_draws += 1
    return dict(
        us_early=1e6 * t_early / common,
        us_full=1e6 * t_full / common,
        lengths_full=lengths_full,
        lengths_early=lengths_early,
        early_draws=early_draws,
    )


def mask_times(size: int, games: int, seed: int):
    rng = np.random.default_rng(seed)
    times = []
    for _ in range(games):
        st = TwixtState(size, draw="board_full")
        while not st.is_terminal():
            t0 = time.perf_counter()
            mask = st.legal_action_mask()
            times.append(time.perf_counter() - t0)
            legal = np.flatnonzero(mask)
            st.apply(int(legal[rng.integers(len(legal))]))
    times.sort()
    return times


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=24, help="board size (OpenSpiel accepts 5..24), default 24")
    ap.add_argument("--games", type=int, default=200, help="random games through our rules core, default 200")
    ap.add_argument("--peer-games", type=int, default=None, help="OpenSpiel games (default: --games)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    size, games = args.size, args.games
    peer_games = args.peer_games or games

    print(f"TwixT {size}x{size}, random playouts (standard rules, no swap, draw='board_full')")
    t_ours, p_ours = ours_playouts(size, games, args.seed)
    print(f"  {'engine':<34} {'games':>6} {'plies':>8} {'seconds':>8} {'games/s':>9} {'plies/s':>10}")
    print(
        f"  {'tabletop-rl TwixtState (mask)':<34} {games:>6} {p_ours:>8} {t_ours:>8.2f} "
        f"{games / t_ours:>9.1f} {p_ours / t_ours:>10.0f}"
    )
    try:
        t_os, p_os = openspiel_playouts(size, peer_games, args.seed)
    except ImportError:
        print("  OpenSpiel not installed (pip install open_spiel): no comparison")
    else:
        print(
            f"  {'OpenSpiel twixt (legal_actions)':<34} {peer_games:>6} {p_os:>8} {t_os:>8.2f} "
            f"{peer_games / t_os:>9.1f} {p_os / t_os:>10.0f}"
        )
        print(
            f"  ratio ours / OpenSpiel: games/s {(games / t_ours) / (peer_games / t_os):.2f}x, "
            f"plies/s {(p_ours / t_ours) / (p_os / t_os):.2f}x"
        )

    print()
    print(f"Early-draw rule (same random move sequences, {games} games per rule set)")
    print(
        f"  {'rules':<9} {'us/move early':>14} {'us/move full':>13} {'overhead us':>9} {'plies full':>11} "
        f"{'plies early':>12} {'saved':>7} {'early draws':>12}"
    )
    for rules in ("standard", "pp"):
        seqs = random_sequences(size, games, args.seed + 1, rules)
        f = early_draw_figures(size, seqs, rules)
        full, early = np.array(f["lengths_full"]), np.array(f["lengths_early"])
        print(
            f"  {rules:<9} {f['us_early']:>14.2f} {f['us_full']:>13.2f} "
            f"{f['us_early'] - f['us_full']:>+9.2f} {full.mean():>11.1f} {early.mean():>12.1f} "
            f"{(full - early).mean():>7.1f} {f['early_draws']:>5}/{len(seqs):<6}"
        )
        drawn = [i for i, (_, res) in enumerate(seqs) if res == "1/2-1/2"]
        if drawn:
            print(
                f"  {'':<9} among the {len(drawn)} board-full draws: {(full[drawn] - early[drawn]).mean():.1f} "
                f"plies earlier on average ({full[drawn].mean():.1f} -> {early[drawn].mean():.1f})"
            )

    print()
    times = mask_times(size, max(5, games // 20), args.seed + 2)
    print(
        f"legal_action_mask() per call over {len(times)} calls: median {1e6 * statistics.median(times):.2f} us, "
        f"p90 {1e6 * times[int(0.9 * len(times))]:.2f} us, mean {1e6 * statistics.fmean(times):.2f} us"
    )

    print()
    mg = max(5, games // 10)
    secs, acts, turns = manual_playouts(size, mg, args.seed + 3)
    print(
        f"links='manual' (box rules), {mg} random games, draw='board_full': {acts / secs:,.0f} actions/s, "
        f"{turns / secs:,.0f} turns/s ({acts / turns:.2f} actions per turn)"
    )


if __name__ == "__main__":
    main()
