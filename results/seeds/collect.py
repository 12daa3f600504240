"""Gather the quick configs' runs over seeds into ``results/seeds/`` and print their summary.

Usage (from the repository root; the README's Results, **Over seeds**, gives the runs' commands)::

    python results/seeds/collect.py runs/seeds          # copy each run's files here, print the table
    python results/seeds/collect.py --summary           # the table from the files already here
    python results/seeds/collect.py --alone runs/alone  # seed 0's runs again, nothing else running
    python results/seeds/collect.py runs/vecseeds --into results/vector_seeds   # another set of runs

A run directory ``RUNS/<config>-<seed>/`` is one ``python -m training.train configs/<config>.yaml
--seed <seed> --out RUNS/<config>-<seed>``; ``RUNS/<config>-<seed>.time``, when present, is the
output of GNU ``/usr/bin/time -v`` around it (its stderr). For each run this copies the final
tournament (``report.json``; ``eval/pairs.csv``, or in games of teams each ``eval/vs_<opponent>/pairs.csv``
as ``pairs_vs_<opponent>.csv``), the measured times (``time.json``: wall clock,
user and system CPU seconds, peak resident memory) and a digest of the final policy's weights
(``weights.json``, :func:`policy_digest`) to ``results/seeds/<config>/seed<seed>/``.

The summary, per config: the final score against each opponent per seed, their mean and range
(min, max), the wall time and the CPU time (user + system) per run, and seed 0's run alone on the
machine (``<config>/alone/``: its times and whether it trained the same weights as ``seed0``). The training runs are
single-threaded (``torch_threads: 1``, one process), so a run's CPU time is about what its wall
time would be with nothing else on the machine; ``results/check_readme.py`` checks the README's
table against these files.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import shutil
import statistics
import sys
import zipfile
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
    return {
        "wall_seconds": wall,
        "user_seconds": float(out["user_seconds"]),
        "system_seconds": float(out["system_seconds"]),
        "max_rss_kb": int(out["max_rss_kb"]),
    }


def policy_digest(checkpoint: Path) -> str:
    """SHA-256 of a ``training.train`` checkpoint's policy weights: every tensor of its
    ``policy.pth``, by name in sorted order (name, dtype, shape and bytes), so that two files
    holding the same weights agree however they were saved (with or without the optimizer).

    Raises:
        KeyError: the zip has no ``policy.pth`` (not an SB3 checkpoint).
    """
    import torch

    with zipfile.ZipFile(checkpoint) as z:
        state = torch.load(io.BytesIO(z.read("policy.pth")), map_location="cpu", weights_only=True)
    h = hashlib.sha256()
    for name in sorted(state):
        t = state[name].contiguous()
        h.update(f"{name}|{t.dtype}|{tuple(t.shape)}|".encode())
        h.update(t.numpy().tobytes())
    return h.hexdigest()


#: A seed as a run directory's name ends: ``-0``, ``-1``, ... (one spelling per seed).
_SEED = r"(0|[1-9][0-9]*)"


def _read_run(run: Path, config: str, seed: int) -> dict:
    """Everything :func:`collect` copies from one run, read and checked before anything is written."""
    needed = [run / "report.json", run / "checkpoints" / "final.zip"]
    missing = [str(p.relative_to(run)) for p in needed if not p.is_file()]
    # the final tournament: eval/pairs.csv, or one eval/vs_<opponent>/pairs.csv per opponent (games of teams)
    pairs = (
        {"pairs.csv": run / "eval" / "pairs.csv"}
        if (run / "eval" / "pairs.csv").is_file()
        else {f"pairs_{p.parent.name}.csv": p for p in sorted((run / "eval").glob("vs_*/pairs.csv"))}
    )
    if not pairs:
        missing.append("eval/pairs.csv")
    if missing:
        raise FileNotFoundError(f"{run}: no {', '.join(missing)} (not a finished training.train run?)")
    try:
        report = json.loads(needed[0].read_text())
        said = (report["config"], report["seed"])
        timesteps, smoke = report["timesteps"], report.get("smoke", False)
        for o in OPPONENTS:  # what summary() reads
            report["vs"][o]["score"], report["vs"][o]["games"]
    except (json.JSONDecodeError, KeyError, TypeError) as e:
        raise ValueError(f"{needed[0]}: not a training.train report ({type(e).__name__}: {e})") from None
    if said != (config, seed):
        raise ValueError(f"{run}: its report says {said[0]} seed {said[1]}")
    if smoke:
        raise ValueError(f"{run}: a --smoke run ({timesteps} timesteps), not a result")
    time_file = run.parent / f"{run.name}.time"
    try:
        times = parse_time(time_file.read_text()) if time_file.exists() else None
    except ValueError as e:
        raise ValueError(f"{time_file}: {e}") from None
    try:
        digest = policy_digest(needed[1])
    except (zipfile.BadZipFile, KeyError) as e:
        raise ValueError(f"{needed[1]}: not a training.train checkpoint ({type(e).__name__}: {e})") from None
    return {
        "config": config,
        "seed": seed,
        "files": {"report.json": needed[0], **pairs},
        "times": times,
        "digest": digest,
    }


def collect(runs: Path, root: Path = HERE, alone: bool = False) -> list[Path]:
    """Copy every ``RUNS/<config>-<seed>`` run of :data:`CONFIGS` to ``root`` (default: here); returns the
    directories written. Every run is read and checked first: on any error nothing is written.
    With ``alone``, the runs are seed 0's run again with nothing else on the machine: each goes to
    ``<config>/alone/`` and must have its ``.time`` file.

    Raises:
        FileNotFoundError: ``runs`` holds no such run, or a run has no ``report.json``, no
            ``checkpoints/final.zip`` or no pairs file of its final tournament.
        ValueError: a report that is not one, names another config or seed than its directory, or
            is a ``--smoke`` run's; a checkpoint that is not one; a ``.time`` file that is not
            ``time -v``'s report.
    """
    found = []
    for run in sorted(runs.iterdir()):
        m = re.fullmatch(r"(.+)-" + _SEED, run.name)
        if run.is_dir() and m is not None and m.group(1) in CONFIGS:
            found.append(_read_run(run, m.group(1), int(m.group(2))))
    if not found:
        raise FileNotFoundError(f"{runs}: no run directory <config>-<seed> of {', '.join(CONFIGS)}")
    if alone:
        for r in found:
            if r["seed"] != 0 or r["times"] is None:
                raise ValueError(
                    f"{runs}: a run alone is seed 0's with its .time file; "
                    f"{r['config']}-{r['seed']} is {'not seed 0' if r['seed'] else 'not timed'}"
                )
    written = []
    for r in found:
        dest = root / r["config"] / ("alone" if alone else f"seed{r['seed']}")
        dest.mkdir(parents=True, exist_ok=True)
        for name, f in r["files"].items():
            shutil.copyfile(f, dest / name)
        (dest / "weights.json").write_text(json.dumps({"policy_sha256": r["digest"]}, indent=1) + "\n")
        if r["times"] is not None:
            (dest / "time.json").write_text(json.dumps(r["times"], indent=1) + "\n")
        elif (dest / "time.json").exists():
            (dest / "time.json").unlink()  # an earlier collection's times belong to another run
        written.append(dest)
    return written


def runs_of(config: str, root: Path = HERE) -> list[dict]:
    """The collected runs of ``config``, by seed: ``{"seed", "timesteps", "vs": {opponent: score},
    "games": {opponent: games}, "time": {...} or None}`` (directories ``seed<N>`` only)."""
    out = []
    dirs = [d for d in (root / config).glob("seed*") if re.fullmatch("seed" + _SEED, d.name)]
    for d in sorted(dirs, key=lambda p: int(p.name[4:])):
        report = json.loads((d / "report.json").read_text())
        time_file = d / "time.json"
        out.append(
            {
                "seed": report["seed"],
                "timesteps": report["timesteps"],
                "vs": {o: report["vs"][o]["score"] for o in OPPONENTS},
                "games": {o: report["vs"][o]["games"] for o in OPPONENTS},
                "time": json.loads(time_file.read_text()) if time_file.exists() else None,
            }
        )
    return out


def _minutes(t: dict) -> tuple[float, float]:
    """Wall and CPU (user + system) minutes of a ``time.json``."""
    return t["wall_seconds"] / 60, (t["user_seconds"] + t["system_seconds"]) / 60


def summary(config: str, root: Path = HERE) -> dict:
    """Mean, min and max over seeds of the score against each opponent, and of the times (minutes).

    Raises:
        LookupError: no collected run of ``config``.
        ValueError: the runs differ in timesteps or games, or only some have times.
    """
    runs = runs_of(config, root)
    if not runs:
        raise LookupError(f"no collected run of {config} in {root}")
    budgets = {(r["timesteps"], tuple(sorted(r["games"].items()))) for r in runs}
    if len(budgets) > 1:
        raise ValueError(
            f"{config}: the seeds' runs differ in timesteps or games per opponent "
            f"({sorted(budgets)}): not one config's spread"
        )
    if 0 < sum(r["time"] is not None for r in runs) < len(runs):
        raise ValueError(f"{config}: only some seeds have time.json; time all of them or none")
    out = {"config": config, "seeds": [r["seed"] for r in runs], "timesteps": runs[0]["timesteps"]}
    for o in OPPONENTS:
        scores = [r["vs"][o] for r in runs]
        out[o] = {
            "per_seed": scores,
            "mean": statistics.fmean(scores),
            "min": min(scores),
            "max": max(scores),
            "games": runs[0]["games"][o],
        }
    alone = root / config / "alone"
    if (alone / "time.json").is_file():
        wall, cpu = _minutes(json.loads((alone / "time.json").read_text()))
        same = json.loads((alone / "weights.json").read_text()) == json.loads(
            (root / config / "seed0" / "weights.json").read_text()
        )
        out["alone"] = {"wall_minutes": wall, "cpu_minutes": cpu, "same_weights_as_seed0": same}
    timed = [r["time"] for r in runs if r["time"] is not None]
    if timed:
        wall, cpu = zip(*map(_minutes, timed))
        out["wall_minutes"] = {"min": min(wall), "max": max(wall), "mean": statistics.fmean(wall)}
        out["cpu_minutes"] = {"min": min(cpu), "max": max(cpu), "mean": statistics.fmean(cpu)}
        out["max_rss_gb"] = max(t["max_rss_kb"] for t in timed) / 1024**2
    return out


def _alone_cell(s: dict) -> str:
    if "alone" not in s:
        return ""
    a = s["alone"]
    return f"{a['wall_minutes']:.1f} min wall, {a['cpu_minutes']:.1f} min CPU, " + (
        "same weights" if a["same_weights_as_seed0"] else "OTHER WEIGHTS"
    )


def table(root: Path = HERE) -> str:
    """The Markdown table of every config with collected runs."""
    lines = [
        "| Config | Seeds | vs random: mean [min, max] | vs greedy: mean [min, max] | vs greedy per seed | "
        "Wall time per run | CPU time per run | Seed 0 alone |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for config in CONFIGS:
        if not (root / config).is_dir():
            continue
        s = summary(config, root)
        r, g = s["random"], s["greedy"]
        wall = f"{s['wall_minutes']['min']:.1f} to {s['wall_minutes']['max']:.1f} min" if "wall_minutes" in s else ""
        cpu = f"{s['cpu_minutes']['min']:.1f} to {s['cpu_minutes']['max']:.1f} min" if "cpu_minutes" in s else ""
        lines.append(
            f"| `{config}` | {', '.join(map(str, s['seeds']))} | {r['mean']:.3f} [{r['min']:.3f}, {r['max']:.3f}] "
            f"| {g['mean']:.3f} [{g['min']:.3f}, {g['max']:.3f}] | "
            f"{' / '.join(f'{v:.3f}' for v in g['per_seed'])} | {wall} | {cpu} | {_alone_cell(s)} |"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="?", type=Path, help="the directory holding RUNS/<config>-<seed> run directories")
    parser.add_argument("--summary", action="store_true", help="print the table of the files already here only")
    parser.add_argument(
        "--alone",
        action="store_true",
        help="the runs directory holds seed 0's runs again, alone on the machine (to <config>/alone/)",
    )
    parser.add_argument(
        "--into", type=Path, default=HERE, help="the directory to collect into and summarise (default: results/seeds/)"
    )
    args = parser.parse_args(argv)
    if args.runs is None and not args.summary:
        parser.error("give the runs directory, or --summary")
    try:
        if args.runs is not None:
            if not args.runs.is_dir():
                parser.error(f"{args.runs} is not a directory")
            for d in collect(args.runs, root=args.into, alone=args.alone):
                print(f"collected {d}")
        print(table(args.into))
    except (OSError, ValueError, LookupError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
