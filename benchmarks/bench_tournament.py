"""Games side by side against one by one: a tournament of an AlphaZero agent with
``concurrency=N`` (:func:`training.arena.play_games`: its searches batched over the games) and
with ``concurrency=1`` (its peer, the same games one after the other), in the same run.

A freshly initialised network of the config's ``policy`` (seeded: the same agent both times)
plays ``--games`` games against ``--opponent`` with ``search.eval_simulations`` simulations a
move. Printed: seconds of each way, the ratio, and whether the two played the same games move for
move (they should, up to a network's last-bit batched sums).

    python benchmarks/bench_tournament.py configs/ataxx_az.yaml --games 32 --concurrency 32
    python benchmarks/bench_tournament.py configs/twixt_az.yaml --games 32 --opponent random

Wall-clock figures: on a shared machine say the load (``uptime``) with them.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import torch  # noqa: E402

from training.agents import make_agent  # noqa: E402
from training.agents.alphazero import AlphaZeroAgent  # noqa: E402
from training.agents.alphazero_net import build_network  # noqa: E402
from training.arena import play_games  # noqa: E402
from training.config import load_config  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("config", help="an engine: alphazero config, e.g. configs/ataxx_az.yaml")
    p.add_argument("--games", type=int, default=32, help="games (default 32)")
    p.add_argument("--concurrency", type=int, default=32, help="games side by side (default 32)")
    p.add_argument("--opponent", default="greedy", help="the opponent's agent spec (default greedy)")
    args = p.parse_args()
    torch.set_num_threads(1)
    cfg = load_config(args.config)
    torch.manual_seed(0)
    net = build_network(cfg.env_id, cfg.env_kwargs, cfg.policy.to_dict())
    agent = AlphaZeroAgent(net, trained_on=(cfg.env_id, dict(cfg.env_kwargs)), simulations=cfg.search.eval_simulations)
    opponent = make_agent(args.opponent, seed=0)
    games = [([agent, opponent] if g % 2 == 0 else [opponent, agent], 1000 + g) for g in range(args.games)]
    kw = dict(env_kwargs=dict(cfg.env_kwargs), max_steps=cfg.max_steps, record=True)
    times, played = {}, {}
    for c in (args.concurrency, 1):
        t = time.perf_counter()
        played[c] = play_games(cfg.env_id, games, concurrency=c, **kw)
        times[c] = time.perf_counter() - t
    same = sum(a.moves == b.moves for a, b in zip(played[1], played[args.concurrency]))
    plies = sum(r.plies for r in played[1])
    print(
        f"{cfg.env_id} {cfg.env_kwargs}: {args.games} games ({plies} plies) of the AlphaZero agent "
        f"({cfg.search.eval_simulations} simulations) against {args.opponent}"
    )
    print(f"  concurrency {args.concurrency}: {times[args.concurrency]:.1f} s")
    print(f"  concurrency 1 (peer): {times[1]:.1f} s")
    print(f"  ratio: {times[1] / times[args.concurrency]:.2f}x; the same games move for move: {same}/{args.games}")


if __name__ == "__main__":
    main()
