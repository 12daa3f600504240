"""Sum the robot's chunked tournaments against ``alphabeta:2`` into one pairs file.

Usage (from the repository root)::

    python results/tantrix_robot/combine.py

Reads ``results/tantrix_robot/vs_alphabeta2/seed*/pairs.csv`` (each ``python -m training.evaluate
tantrix_v0 --agents robot alphabeta:2 --games 50 --seed S --out results/tantrix_robot/vs_alphabeta2/seedS``)
and writes ``results/tantrix_robot/pairs_vs_alphabeta2.csv``: the same columns, wins, draws and
losses summed, the score and its 95% Wilson interval recomputed over all games
(``training.ratings``). The evaluation ran in chunks so that a deadline leaves whole chunks.
"""

from __future__ import annotations

import csv
from pathlib import Path

from training.ratings import _wilson

HERE = Path(__file__).resolve().parent


def main() -> None:
    totals: dict[tuple[str, str], list[int]] = {}
    chunks = sorted((HERE / "vs_alphabeta2").glob("seed*/pairs.csv"))
    for path in chunks:
        with path.open(newline="") as f:
            for row in csv.DictReader(f):
                t = totals.setdefault((row["agent"], row["opponent"]), [0, 0, 0])
                for i, k in enumerate(("wins", "draws", "losses")):
                    t[i] += int(row[k])
    cols = ["agent", "opponent", "games", "wins", "draws", "losses", "score", "score_ci95_low", "score_ci95_high"]
    with (HERE / "pairs_vs_alphabeta2.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for (agent, opponent), (wi, d, lo) in totals.items():
            n = wi + d + lo
            points = wi + 0.5 * d
            low, high = _wilson(points, n)
            w.writerow([agent, opponent, n, wi, d, lo, points / n, low, high])
    print(f"{len(chunks)} chunks: " + ", ".join(f"{a} vs {o}: {t}" for (a, o), t in totals.items()))


if __name__ == "__main__":
    main()
