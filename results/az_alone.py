"""The "alone" measure of an AlphaZero run of a game of more than two sides: its final checkpoint in
one seat against copies of an opponent in every other seat, in ``results/alphazero_alone/<NAME>/``.

Usage::

    python results/az_alone.py runs/smartrix_4p_az-0 --name smartrix_4p_az-0 \\
        --opponents greedy random --games 400 [--simulations SIMS] [--seed 5]

A tournament of two agents in a four-seat game gives each two seats (:mod:`training.tournament`),
which is not what an issue's "alone against three greedy players" asks; this is. Each opponent is
``training.arena.head_to_head(env_id, az:final.pt:SIMS, opponent, games, seed=SEED, env_kwargs=...,
max_steps=<the run's>, concurrency=64)``: the agent in seat ``g mod n`` of game ``g`` (both seats of
its team in a team game), the opponent in every other seat. Score = (wins + draws / 2) / games, a
win being a positive return of the agent's seat, with a 95% Wilson interval
(:func:`training.ratings.wilson`); an equal agent scores about ``1 / n`` without teams. The same
measure as the four-player PPO results (``results/<config>/alone.json``).

Writes ``alone.json`` (one row per opponent: wins, draws, losses, games, score, interval, seconds,
setting, seed, simulations), ``run.json`` (the run's config name, seed, positions and training
seconds from its ``report.json``, and the ``environment`` block) and ``about.json`` (the command and
the ``sha256`` of ``final.pt``). ``python results/environment.py`` then writes the folder's
``environment.json``; ``results/check_readme.py`` checks the Results page against ``alone.json``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python results/az_alone.py", description=__doc__.split("\n\n")[0])
    p.add_argument("run", type=Path, help="the run directory of python -m training.train (engine: alphazero)")
    p.add_argument("--name", required=True, help="the results folder's name: results/alphazero_alone/NAME")
    p.add_argument("--opponents", nargs="+", required=True, metavar="SPEC", help="the opponents, one at a time")
    p.add_argument("--games", type=int, default=400, help="games against each opponent (default 400)")
    p.add_argument("--simulations", type=int, default=None, help="the agent's simulations (default: the config's)")
    p.add_argument("--seed", type=int, default=5, help="the games' seed (default 5, as the PPO measures)")
    args = p.parse_args(argv)
    if args.games < 1:
        p.error(f"--games must be at least 1, got {args.games}")
    needed = ("config.yaml", "report.json", "checkpoints/final.pt")
    missing = [str(args.run / f) for f in needed if not (args.run / f).is_file()]
    if missing:
        p.error(f"{args.run} is not a finished AlphaZero run: missing {', '.join(missing)}")

    import torch
    import yaml

    from training.agents import make_agent
    from training.agents.alphazero import AlphaZeroAgent
    from training.arena import head_to_head
    from training.ratings import wilson

    torch.set_num_threads(1)
    report = json.loads((args.run / "report.json").read_text())
    final = args.run / "checkpoints" / "final.pt"
    agent = AlphaZeroAgent(final, simulations=args.simulations, seed=args.seed)
    env_id, env_kwargs = agent.trained_on
    run_cfg = yaml.safe_load((args.run / "config.yaml").read_text())
    max_steps = run_cfg.get("max_steps")
    out = RESULTS / "alphazero_alone" / args.name
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for spec in args.opponents:
        t = time.time()
        r = head_to_head(
            env_id,
            agent,
            make_agent(spec, seed=args.seed + 1),
            args.games,
            seed=args.seed,
            env_kwargs=env_kwargs,
            max_steps=max_steps,
            concurrency=64,
        )
        lo, hi = wilson(r["wins"] + 0.5 * r["draws"], r["games"])
        row = {
            "agent": agent.name,
            "opponent_in_other_seats": spec,
            **r,
            "score_ci95_low": lo,
            "score_ci95_high": hi,
            "env_id": env_id,
            "env_kwargs": env_kwargs,
            "simulations": agent.simulations,
            "seed": args.seed,
            "max_steps": max_steps,
            "seconds": round(time.time() - t, 1),
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
    (out / "alone.json").write_text(json.dumps(rows, indent=1) + "\n")
    run = {
        "name": args.name,
        "config": report["config"],
        "env_id": env_id,
        "env_kwargs": env_kwargs,
        "seed": report["seed"],
        "positions": report["timesteps"],
        "train_seconds": float(report.get("elapsed_seconds", report["train_seconds"])),
        "throughput": report.get("throughput"),
        "environment": report.get("environment"),
    }
    (out / "run.json").write_text(json.dumps(run, indent=1) + "\n")
    about = {
        "run": str(args.run),
        "final_sha256": hashlib.sha256(final.read_bytes()).hexdigest(),
        "simulations": agent.simulations,
        "commands": ["python " + " ".join(shlex.quote(a) for a in [sys.argv[0], *(argv or sys.argv[1:])])],
    }
    (out / "about.json").write_text(json.dumps(about, indent=1) + "\n")
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
