"""Sum the robot's chunked tournaments into one pairs file per opponent.

Usage (from the repository root)::

    python results/tantrix_robot/combine.py

For each ``OPP`` of :data:`CHUNKED`, reads ``results/tantrix_robot/vs_OPP/seed*/pairs.csv`` (each
``python -m training.evaluate tantrix_v0 --agents robot SPEC --games N --seed S --out
results/tantrix_robot/vs_OPP/seedS``) and writes ``results/tantrix_robot/pairs_vs_OPP.csv``: the
same columns, wins, draws and losses summed, the score and its 95% Wilson interval recomputed
over all games (``training.ratings``). The evaluations ran in chunks so that a deadline on a
loaded machine leaves whole chunks.
"""

from __future__ import annotations

import csv
from pathlib import Path

from training.ratings import wilson

HERE = Path(__file__).resolve().parent
#: The chunked opponents (folder suffixes).
CHUNKED = ("alphabeta2", "greedy")


def main() -> None:
    for opp in CHUNKED:
        combine(opp)


def combine(opp: str) -> None:
    """Write ``pairs_vs_<opp>.csv`` from the chunks in ``vs_<opp>/seed*/``."""
    totals: dict[tuple[str, str], list[int]] = {}
    chunks = sorted((HERE / f"vs_{opp}").glob("seed*/pairs.csv"))
    for path in chunks:
        with path.open(newline="") as f:
            for row in csv.DictReader(f):
                t = totals.setdefault((row["agent"], row["opponent"]), [0, 0, 0])
                for i, k in enumerate(("wins", "draws", "losses")):
                    t[i] += int(row[k])
    cols = ["agent", "opponent", "games", "wins", "draws", "losses", "score", "score_ci95_low", "score_ci95_high"]
    with (HERE / f"pairs_vs_{opp}.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for (agent, opponent), (wi, d, lo) in totals.items():
            n = wi + d + lo
            points = wi + 0.5 * d
            low, high = wilson(points, n)
            w.writerow([agent, opponent, n, wi, d, lo, points / n, low, high])
    print(f"vs_{opp}: {len(chunks)} chunks: " + ", ".join(f"{a} vs {o}: {t}" for (a, o), t in totals.items()))


if __name__ == "__main__":
    main()
