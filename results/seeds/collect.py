"""Gather the quick configs' runs over seeds into ``results/seeds/`` and print their summary.

Usage (from the repository root; the README's Results, **Over seeds**, gives the runs' command)::

    python results/seeds/collect.py runs/seeds          # copy each run's files here, print the table
    python results/seeds/collect.py --summary           # the table from the files already here

A run directory ``RUNS/<config>-<seed>/`` is one ``python -m training.train configs/<config>.yaml
--seed <seed> --out RUNS/<config>-<seed>``; ``RUNS/<config>-<seed>.time``, when present, is the
output of GNU ``/usr/bin/time -v`` around it (its stderr). For each run this copies the final
tournament (``report.json``, ``eval/pairs.csv``) and the measured times (``time.json``: wall clock,
user and system CPU seconds, peak resident memory) to ``results/seeds/<config>/seed<seed>/``.

The summary, per config: the final score against each opponent per seed, their mean and range
(min, max), the wall time and the CPU time (user + system) per run. The training runs are
single-threaded (``torch_threads: 1``, one process), so a run's CPU time is about what its wall
time would be with nothing else on the machine; ``results/check_readme.py`` checks the README's
table against these files.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: The quick configs of the two-sided games, in the README's order.
CONFIGS = ("ataxx_quick", "twixt_quick", "double_twixt_quick", "tantrix_quick", "smartrix_quick")
OPPONENTS = ("random", "greedy")

_TIME_FIELDS = {
    "user_seconds": r"User time \(seconds\): ([\d.]+)",
    "system_seconds": r"System time \(seconds\): ([\d.]+)",
    "max_rss_kb": r"Maximum resident set size \(kbytes\): (\d+)",
    "wall": r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)",
}


def parse_time(text: str) -> dict:
    """The figures of GNU ``time -v``'s report: ``wall_seconds``, ``user_seconds``,
    ``system_seconds`` (floats), ``max_rss_kb`` (int).

    Raises:
        ValueError: a figure is missing (the text is not ``time -v``'s report).
    """
    out = {}
    for key, pattern in _TIME_FIELDS.items():
        m = re.search(pattern, text)
        if m is None:
            raise ValueError(f"no {key} in the time report (expected GNU time -v output)")
        out[key] = m.group(1)
    parts = [float(p) for p in out.pop("wall").split(":")]
    wall = 0.0
    for p in parts:
        wall = wall * 60 + p
    return {"wall_seconds": wall, "user_seconds": float(out["user_seconds"]),
            "system_seconds": float(out["system_seconds"]), "max_rss_kb": int(out["max_rss_kb"])}


def collect(runs: Path, root: Path = HERE) -> list[Path]:
    """Copy every ``RUNS/<config>-<seed>`` run of :data:`CONFIGS` to ``root`` (default: here); returns the
    directories written.

    Raises:
        FileNotFoundError: a run directory without ``report.json`` or ``eval/pairs.csv``.
    """
    written = []
    for run in sorted(runs.iterdir()):
        m = re.fullmatch(r"(.+)-(\d+)", run.name)
        if not run.is_dir() or m is None or m.group(1) not in CONFIGS:
            continue
        config, seed = m.group(1), int(m.group(2))
        report = json.loads((run / "report.json").read_text())
        if report["config"] != config or report["seed"] != seed:
            raise ValueError(f"{run}: its report says {report['config']} seed {report['seed']}")
        dest = root / config / f"seed{seed}"
        dest.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(run / "report.json", dest / "report.json")
        shutil.copyfile(run / "eval" / "pairs.csv", dest / "pairs.csv")
        time_file = runs / f"{run.name}.time"
        if time_file.exists():
            (dest / "time.json").write_text(json.dumps(parse_time(time_file.read_text()), indent=1) + "\n")
        written.append(dest)
    return written


def runs_of(config: str, root: Path = HERE) -> list[dict]:
    """The collected runs of ``config``, by seed: ``{"seed", "vs": {opponent: score}, "time": {...} or None}``."""
    out = []
    for d in sorted((root / config).glob("seed*"), key=lambda p: int(p.name[4:])):
        report = json.loads((d / "report.json").read_text())
        time_file = d / "time.json"
        out.append({"seed": report["seed"], "timesteps": report["timesteps"],
                    "vs": {o: report["vs"][o]["score"] for o in OPPONENTS},
                    "games": {o: report["vs"][o]["games"] for o in OPPONENTS},
                    "time": json.loads(time_file.read_text()) if time_file.exists() else None})
    return out


def summary(config: str, root: Path = HERE) -> dict:
    """Mean, min and max over seeds of the score against each opponent, and of the times (minutes).

    Raises:
        LookupError: no collected run of ``config``.
    """
    runs = runs_of(config, root)
    if not runs:
        raise LookupError(f"no collected run of {config} in {root}")
    out = {"config": config, "seeds": [r["seed"] for r in runs], "timesteps": runs[0]["timesteps"]}
    for o in OPPONENTS:
        scores = [r["vs"][o] for r in runs]
        out[o] = {"per_seed": scores, "mean": statistics.fmean(scores), "min": min(scores), "max": max(scores),
                  "games": runs[0]["games"][o]}
    timed = [r["time"] for r in runs if r["time"] is not None]
    if timed:
        wall = [t["wall_seconds"] / 60 for t in timed]
        cpu = [(t["user_seconds"] + t["system_seconds"]) / 60 for t in timed]
        out["wall_minutes"] = {"min": min(wall), "max": max(wall), "mean": statistics.fmean(wall)}
        out["cpu_minutes"] = {"min": min(cpu), "max": max(cpu), "mean": statistics.fmean(cpu)}
        out["max_rss_gb"] = max(t["max_rss_kb"] for t in timed) / 1024 ** 2
    return out


def table(root: Path = HERE) -> str:
    """The Markdown table of every config with collected runs."""
    lines = ["| Config | Seeds | vs random: mean [min, max] | vs greedy: mean [min, max] | vs greedy per seed | "
             "Wall time per run | CPU time per run |", "|---|---|---|---|---|---|---|"]
    for config in CONFIGS:
        if not (root / config).is_dir():
            continue
        s = summary(config, root)
        r, g = s["random"], s["greedy"]
        wall = f"{s['wall_minutes']['min']:.1f} to {s['wall_minutes']['max']:.1f} min" if "wall_minutes" in s else ""
        cpu = f"{s['cpu_minutes']['min']:.1f} to {s['cpu_minutes']['max']:.1f} min" if "cpu_minutes" in s else ""
        lines.append(f"| `{config}` | {', '.join(map(str, s['seeds']))} | {r['mean']:.3f} [{r['min']:.3f}, {r['max']:.3f}] "
                     f"| {g['mean']:.3f} [{g['min']:.3f}, {g['max']:.3f}] | "
                     f"{' / '.join(f'{v:.3f}' for v in g['per_seed'])} | {wall} | {cpu} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="?", type=Path, help="the directory holding RUNS/<config>-<seed> run directories")
    parser.add_argument("--summary", action="store_true", help="print the table of the files already here only")
    args = parser.parse_args(argv)
    if args.runs is None and not args.summary:
        parser.error("give the runs directory, or --summary")
    if args.runs is not None:
        if not args.runs.is_dir():
            parser.error(f"{args.runs} is not a directory")
        for d in collect(args.runs):
            print(f"collected {d.relative_to(HERE.parent.parent)}")
    print(table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
