"""The Tantrix robot alone (or its team) against greedy in 3- and 4-player Tantrix and Doubles.

Usage (from the repository root; writes ``results/tantrix_robot/alone.json``)::

    python results/tantrix_robot/alone.py [--games 200] [--seed 5] [--settings 3p 4p doubles]

Each setting is ``training.arena.head_to_head("tantrix_v0", robot, greedy, games, seed=...,
env_kwargs=...)``: the robot in one seat (in Doubles: both seats of one team), greedy in every
other seat, seats rotating game by game. Score = (wins + draws / 2) / games with a 95% Wilson
interval (``training.ratings``); an equal agent scores about 1/3 (3 players), 1/4 (4 players),
1/2 (Doubles).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from training.agents import make_agent
from training.arena import head_to_head
from training.ratings import wilson

SETTINGS = {"3p": {"num_players": 3}, "4p": {"num_players": 4}, "doubles": {"num_players": 4, "teams": True}}
OUT = Path(__file__).resolve().parent / "alone.json"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    args = ap.parse_args(argv)
    rows = json.loads(OUT.read_text()) if OUT.exists() else []
    for name in args.settings:
        t = time.time()
        r = head_to_head(
            "tantrix_v0",
            make_agent("robot", seed=args.seed),
            make_agent("greedy", seed=args.seed + 1),
            args.games,
            seed=args.seed,
            env_kwargs=SETTINGS[name],
        )
        lo, hi = wilson(r["wins"] + 0.5 * r["draws"], r["games"])
        row = {
            "setting": name,
            "agent": "robot",
            "opponent_in_other_seats": "greedy",
            **r,
            "score_ci95_low": lo,
            "score_ci95_high": hi,
            "env_id": "tantrix_v0",
            "env_kwargs": SETTINGS[name],
            "seed": args.seed,
            "seconds": round(time.time() - t, 1),
        }
        rows = [x for x in rows if x["setting"] != name] + [row]
        OUT.write_text(json.dumps(rows, indent=1) + "\n")
        print(json.dumps(row))


if __name__ == "__main__":
    main()
