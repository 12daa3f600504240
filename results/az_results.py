"""Make the results files of one AlphaZero training run (``engine: alphazero``): its final
tournament, its learning curve over wall time, and its run figures, in ``results/alphazero/<NAME>/``.

Usage::

    python results/az_results.py runs/ataxx_az-0 --name ataxx_az-0 \\
        --opponents random greedy alphabeta:1 alphabeta:2 mcts:1000 ataxx_quick --games 400 \\
        [--ladder-games 100] [--skip-gauntlet] [--curve-opponents greedy ataxx_quick]
    python results/az_results.py runs/ataxx_az-0 --name ataxx_az-0 \
        --against ataxx_quick --folder vs_ppo_openings --opening-plies 2 --games 400

Everything is played by the project's own command, ``python -m training.evaluate`` (printed before
it runs, and kept in ``about.json``):

1. **The final tournament** (``gauntlet/``): the run's ``checkpoints/final.pt`` (``az:PATH:SIMS``,
   ``--simulations``, by default its config's ``search.eval_simulations``) against every opponent,
   ``--games`` games a pair (seats alternating), ``--gauntlet`` (the opponents do not play each
   other), ``--concurrency 64`` (the agent's searches batched over its games), seed 0, the run's
   ``max_steps``. Its ``pairs.csv``
   holds the scores with Wilson intervals and ``ratings.csv`` the Elo ladder (Bradley-Terry,
   ``random`` = 0).
2. **The learning curve** (``curve.csv``, ``curve.png``): every checkpoint of the run
   (``step_<N>.pt`` and ``final.pt``; with ``--earlier-parts``, those of the parts it resumed
   too; with ``--curve-every K``, every K-th ``step_<N>.pt``) against ``--curve-opponents``
   (``--curve-games`` a pair, seed 1; with ``--opening-plies K``, each game from K random plies, as
   ``about.json``'s ``curve_opening_plies`` says), with the wall time at which the run wrote it: the run's
   ``time/time_elapsed`` at that position in ``logs/progress.csv``, or, for runs logged before that
   column, the checkpoint file's modification time less that of the run's ``config.yaml`` (written
   when the run starts).
3. **The ladder** (``ladder/``, with ``--ladder-games N``): the opponents' own round robin (``N``
   games a pair, seed 2; ``ladder/pairs.csv``), and the Elo ladder fitted on its games and the
   gauntlet's together (``ladder/ratings.csv``, ``ladder/ratings.png``; ``random`` = 0). The
   gauntlet's own ladder cannot order opponents that the agent beat in every game.
4. **A further opponent** (``--against SPEC --folder vs_NAME``, once the folder above exists): the
   same agent (the folder's simulations) against one more agent, ``--games`` games, seed 3, with
   ``--opening-plies K`` random opening plies (each opening with both seat orders: two deterministic
   agents otherwise play the same two games over and over), into ``vs_NAME/`` (``pairs.csv`` with its
   count of distinct games, ``ratings.csv``, ``settings.json``: the command and ``opening_plies``;
   not ``about.json``, which would make it a run folder of its own for ``results/environment.py``).
   Nothing else is played or rewritten. ``RUN`` may then be a shipped agent's file
   (``training/shipped/NAME.pt``) whose index entry was made from the folder's ``final.pt``.
5. **The run** (``run.json``): config name, seed, positions, training wall time (periodic
   evaluations included), self-play positions/s and network evaluations/s, and its own final
   evaluation and its software and machine (``environment``; ``python results/environment.py`` then
   writes the folder's ``environment.json`` from it), from the run's ``report.json``; ``about.json``:
   the commands, their seconds and the
   ``sha256`` of ``final.pt``.

The files are what ``results/check_readme.py`` checks the README against.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

RESULTS = Path(__file__).resolve().parent
REPO = RESULTS.parent


def _evaluate(
    run_cfg: dict, agents: list[str], games: int, seed: int, out: Path, gauntlet: bool = True, opening_plies: int = 0
) -> tuple[list[str], float]:
    """Run ``python -m training.evaluate`` (batched; a gauntlet of the first agent, or with
    ``gauntlet=False`` a round robin; ``--opening-plies`` when ``opening_plies``) and return its
    command and seconds."""
    cmd = [
        sys.executable,
        "-m",
        "training.evaluate",
        run_cfg["env_id"],
        "--env-kwargs",
        json.dumps(run_cfg.get("env_kwargs") or {}),
        "--agents",
        *agents,
        "--games",
        str(games),
        "--seed",
        str(seed),
        "--max-steps",
        str(run_cfg["max_steps"]),
        *(["--gauntlet"] if gauntlet else []),
        *(["--opening-plies", str(opening_plies)] if opening_plies else []),
        "--concurrency",
        "64",
        "--out",
        str(out),
        "--overwrite",
        "--no-progress",
    ]
    shown = ["python", *cmd[1:]]
    print("$", shlex.join(shown), flush=True)
    t = time.time()
    subprocess.run(cmd, check=True, cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)})
    return shown, round(time.time() - t, 1)


def _elapsed_at(run: Path, positions: int) -> float:
    """Wall seconds of the run when it had played ``positions`` (see the module docstring)."""
    with (run / "logs" / "progress.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        if row.get("time/time_elapsed") and int(float(row["time/total_timesteps"])) >= positions:
            return float(row["time/time_elapsed"])
    ckpt = next(p for p in (run / "checkpoints").iterdir() if p.name == f"step_{positions}.pt")
    return round(ckpt.stat().st_mtime - (run / "config.yaml").stat().st_mtime, 1)


def _spec(checkpoint: Path, simulations: int | None) -> str:
    """The agent spec of a checkpoint, by its path relative to the repository where it lies inside it
    (the tournaments run there, and the published ``pairs.csv`` then names no machine's folders)."""
    checkpoint = checkpoint.resolve()
    if checkpoint.is_relative_to(REPO):
        checkpoint = checkpoint.relative_to(REPO)
    return f"az:{checkpoint}" if simulations is None else f"az:{checkpoint}:{simulations}"


def _wall(report: dict) -> float:
    """Wall seconds of the whole run's training (all parts of a resumed run; periodic evaluations
    included, the final tournament not)."""
    return float(report.get("elapsed_seconds", report["train_seconds"]))


def table() -> str:
    """The README's lines for every folder of ``results/alphazero/`` (``--table``): a table row per
    run, then its Elo ladder and learning curve lines, and the "alone" lines of
    ``results/alphazero_alone/`` (the passages ``results/check_readme.py`` checks)."""
    sys.path.insert(0, str(RESULTS))
    import check_readme as cr

    lines = []
    for c in cr.alphazero_claims() + cr.alphazero_alone_claims():
        text = c.template
        for v, f in zip(c.values, c.formats or ["{}"] * len(c.values)):
            shown = f.format(v)
            text = text.replace("{}", "0" if shown in ("-0", "+0") else shown, 1)
        lines.append(text)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv == ["--table"]:
        print(table())
        return 0
    from training.agents import shipped  # the digest the shipped index records (file_sha256)

    p = argparse.ArgumentParser(prog="python results/az_results.py", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "run",
        type=Path,
        help="the run directory of python -m training.train (engine: alphazero); with --against, also a "
        "shipped agent's .pt made from the folder's final.pt",
    )
    p.add_argument("--name", required=True, help="the results folder's name: results/alphazero/NAME")
    p.add_argument("--opponents", nargs="+", metavar="SPEC", help="the final tournament's opponents")
    p.add_argument(
        "--against",
        metavar="SPEC",
        help="instead of the final tournament, ladder and curve: play the agent against SPEC into --folder",
    )
    p.add_argument("--folder", metavar="vs_NAME", help="with --against: the folder, vs_<something>")
    p.add_argument(
        "--opening-plies",
        type=int,
        default=0,
        metavar="K",
        help="K random opening plies a game in --against's tournament and the learning curve's, each opening "
        "with every agent on every side (default 0; the gauntlet and ladder always start from the start position)",
    )
    p.add_argument("--games", type=int, default=400, help="games a pair in the final tournament (default 400)")
    p.add_argument(
        "--simulations",
        type=int,
        default=None,
        metavar="SIMS",
        help="the trained agent's simulations a move (az:PATH:SIMS; default: its config's search.eval_simulations)",
    )
    p.add_argument(
        "--curve-opponents",
        nargs="*",
        default=["greedy"],
        metavar="SPEC",
        help="the learning curve's opponents (default greedy; none: no curve)",
    )
    p.add_argument("--curve-games", type=int, default=100, help="games a pair at each checkpoint (default 100)")
    p.add_argument(
        "--earlier-parts",
        nargs="*",
        default=[],
        type=Path,
        metavar="RUN",
        help="run directories of the earlier parts of a run made in resumed parts (oldest first): their "
        "checkpoints join the learning curve, at their own wall times",
    )
    p.add_argument(
        "--curve-every",
        type=int,
        default=1,
        metavar="K",
        help="the curve plays every K-th checkpoint of the parts (and always final.pt; default 1: all)",
    )
    p.add_argument("--skip-gauntlet", action="store_true", help="keep the gauntlet already written")
    p.add_argument(
        "--ladder-games",
        type=int,
        default=0,
        metavar="N",
        help="also play the opponents' own round robin, N games a pair (seed 2), and rate everyone on "
        "the gauntlet's and these games together: ladder/ (default 0: no ladder)",
    )
    args = p.parse_args(argv)
    if (args.opponents is None) == (args.against is None):
        p.error("give --opponents (the final tournament) or --against SPEC --folder vs_NAME, one of them")
    if args.against is not None and (not args.folder or not args.folder.startswith("vs_") or "/" in args.folder):
        p.error(f"--against needs --folder vs_NAME (a folder name starting vs_), got {args.folder!r}")
    if args.opening_plies < 0 or (args.opening_plies and args.against is None and not args.curve_opponents):
        p.error("--opening-plies must be at least 0, and goes with --against or the curve")
    if args.ladder_games < 0 or args.games < 1 or args.curve_games < 1 or args.curve_every < 1:
        p.error("--games, --curve-games and --curve-every must be at least 1, --ladder-games at least 0")
    for part in args.earlier_parts:
        if not (part / "checkpoints").is_dir() or not (part / "logs" / "progress.csv").is_file():
            p.error(f"--earlier-parts: {part} is not a run directory (no checkpoints/ or logs/progress.csv)")

    run = args.run
    if args.against is not None and run.suffix == ".pt":  # a shipped agent made from the folder's final.pt
        return _against(p, args, None, RESULTS / "alphazero" / args.name, run)
    missing = [str(run / f) for f in ("config.yaml", "report.json", "checkpoints/final.pt") if not (run / f).is_file()]
    if missing:
        p.error(f"{run} is not a finished AlphaZero run of python -m training.train: no {', '.join(missing)}")
    run_cfg = yaml.safe_load((run / "config.yaml").read_text())
    report = json.loads((run / "report.json").read_text())
    out = RESULTS / "alphazero" / args.name
    final = run / "checkpoints" / "final.pt"
    if args.against is not None:
        return _against(p, args, run_cfg, out, final)
    out.mkdir(parents=True, exist_ok=True)
    about: dict = {
        "run": str(run),
        "final_sha256": shipped.file_sha256(final),
        "simulations": args.simulations if args.simulations is not None else run_cfg["search"]["eval_simulations"],
        "commands": [],
    }
    redone = {"gauntlet": not args.skip_gauntlet, "ladder": args.ladder_games > 0, "curve": bool(args.curve_opponents)}
    if (out / "about.json").exists():  # keep the commands of the parts not played again
        earlier = json.loads((out / "about.json").read_text())
        about["commands"] = [c for c in earlier["commands"] if not redone.get(c["what"].split()[0], False)]
        if not redone["curve"] and "curve_opening_plies" in earlier:
            about["curve_opening_plies"] = earlier["curve_opening_plies"]

    work = Path(tempfile.mkdtemp(prefix="az_results_"))  # each tournament's files, before they are kept
    if not args.skip_gauntlet:
        folder = out / "gauntlet"
        cmd, seconds = _evaluate(run_cfg, [_spec(final, args.simulations), *args.opponents], args.games, 0, work)
        (folder).mkdir(exist_ok=True)
        for name in ("pairs.csv", "ratings.csv", "ratings.png"):
            shutil.copy(work / name, folder / name)
        about["commands"].insert(0, {"what": "gauntlet", "command": shlex.join(cmd), "seconds": seconds})
    if args.ladder_games:
        cmd, seconds = _evaluate(run_cfg, list(args.opponents), args.ladder_games, 2, work, gauntlet=False)
        about["commands"].append(
            {"what": "ladder (the opponents' round robin)", "command": shlex.join(cmd), "seconds": seconds}
        )
        _ladder(out / "gauntlet" / "pairs.csv", work / "pairs.csv", out / "ladder", args.name)

    rows = []
    steps = sorted(
        (int(c.stem.split("_")[1]), c, part)
        for part in [*args.earlier_parts, run]
        for c in (part / "checkpoints").glob("step_*.pt")
        if c.stem[5:].isdigit()
    )
    points = [*steps[args.curve_every - 1 :: args.curve_every], (int(report["timesteps"]), final, run)]
    for positions, ckpt, part in points:
        if not args.curve_opponents:
            break
        cmd, seconds = _evaluate(
            run_cfg,
            [_spec(ckpt, args.simulations), *args.curve_opponents],
            args.curve_games,
            1,
            work,
            opening_plies=args.opening_plies,
        )
        label = ckpt.name if part == run else f"{part.name}/{ckpt.name}"
        about["commands"].append({"what": f"curve {label}", "command": shlex.join(cmd), "seconds": seconds})
        with (work / "pairs.csv").open(newline="") as f:
            pairs = [r for r in csv.DictReader(f) if r["agent"].startswith("az:")]
        elapsed = _wall(report) if ckpt == final else _elapsed_at(part, positions)
        row = {"checkpoint": label, "positions": positions, "elapsed_s": elapsed}
        for r in pairs:
            row[f"score_vs_{r['opponent']}"] = r["score"]
            row[f"ci95_low_vs_{r['opponent']}"] = r["score_ci95_low"]
            row[f"ci95_high_vs_{r['opponent']}"] = r["score_ci95_high"]
        rows.append(row)
    if rows:
        about["curve_opening_plies"] = args.opening_plies
        with (out / "curve.csv").open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerows(rows)
        _plot(rows, out / "curve.png", f"{args.name}: score over wall time ({args.curve_games} games a point)")
    shutil.rmtree(work, ignore_errors=True)

    run_json = {
        "name": args.name,
        "config": report["config"],
        "env_id": run_cfg["env_id"],
        "env_kwargs": run_cfg.get("env_kwargs") or {},
        "seed": run_cfg["seed"],
        "positions": report["timesteps"],
        "train_seconds": _wall(report),
        "final_eval_seconds": report.get("eval_seconds"),
        "throughput": report.get("throughput"),
        "final_eval": report.get("vs"),
        "environment": report.get("environment"),  # the run's software and machine (results/environment.py)
    }
    (out / "run.json").write_text(json.dumps(run_json, indent=1) + "\n")
    (out / "about.json").write_text(json.dumps(about, indent=1) + "\n")
    print(f"written to {out}")
    return 0


def _against(p: argparse.ArgumentParser, args, run_cfg: dict | None, out: Path, final: Path) -> int:
    """``--against``: the folder's agent against one more agent, into ``out/<--folder>/``. ``final``
    is the run's ``final.pt`` (``run_cfg`` its config), or, with ``run_cfg`` ``None``, a shipped
    agent's file whose index entry says it was made from the folder's ``final.pt``
    (``source_sha256``; its config is read from the file)."""
    from training.agents import shipped

    if not (out / "about.json").is_file() or not (out / "run.json").is_file():
        p.error(f"--against: {out} has no about.json and run.json yet: make the folder first (--opponents)")
    about = json.loads((out / "about.json").read_text())
    if not final.is_file():
        p.error(f"--against: no file {final}")
    if run_cfg is None:
        import torch

        made_from = {a.path.resolve(): a.source_sha256 for a in shipped.shipped_agents()}
        if made_from.get(final.resolve()) != about["final_sha256"]:
            p.error(f"--against: {final} is not a shipped agent made from the final.pt of {out} ({about['run']})")
        run_cfg = torch.load(final, map_location="cpu", weights_only=False)["config"]
    elif about["final_sha256"] != shipped.file_sha256(final):
        p.error(f"--against: {final} is not the checkpoint {out} was made from ({about['run']})")
    simulations = args.simulations if args.simulations is not None else about["simulations"]
    work = Path(tempfile.mkdtemp(prefix="az_results_"))
    cmd, seconds = _evaluate(
        run_cfg, [_spec(final, simulations), args.against], args.games, 3, work, opening_plies=args.opening_plies
    )
    folder = out / args.folder
    folder.mkdir(exist_ok=True)
    for name in ("pairs.csv", "ratings.csv"):
        shutil.copy(work / name, folder / name)
    shutil.rmtree(work, ignore_errors=True)
    entry = {"what": f"further {args.folder}", "command": shlex.join(cmd), "seconds": seconds}
    (folder / "settings.json").write_text(json.dumps({**entry, "opening_plies": args.opening_plies}, indent=1) + "\n")
    about["commands"] = [c for c in about["commands"] if c["what"] != entry["what"]] + [entry]
    (out / "about.json").write_text(json.dumps(about, indent=1) + "\n")
    print(f"written to {folder}")
    return 0


def _read_pairs(path: Path) -> list[dict]:
    with path.open(newline="") as f:
        return [{**r, **{k: int(r[k]) for k in ("games", "wins", "draws", "losses")}} for r in csv.DictReader(f)]


def _ladder(gauntlet_pairs: Path, opponent_pairs: Path, folder: Path, name: str) -> None:
    """Write ``folder/pairs.csv`` (the opponents' round robin), ``folder/ratings.csv`` and
    ``folder/ratings.png``: Elo (Bradley-Terry with a virtual draw a pair, ``random`` = 0, or the
    first opponent where ``random`` did not play; :func:`training.ratings.elo_ratings_with_intervals`)
    fitted on the gauntlet's games and the opponents' games together. The gauntlet alone cannot
    order opponents that the agent beat in every game; their games with each other can."""
    from training.ratings import elo_ratings_with_intervals

    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(opponent_pairs, folder / "pairs.csv")
    pairs = _read_pairs(gauntlet_pairs) + _read_pairs(opponent_pairs)
    names = list(dict.fromkeys(p["agent"] for p in pairs))
    anchor = "random" if "random" in names else names[1]
    elo = elo_ratings_with_intervals(names, pairs, anchor)
    rows = []
    for n in names:
        mine = [p for p in pairs if p["agent"] == n]
        w, d, l, g = (sum(p[k] for p in mine) for k in ("wins", "draws", "losses", "games"))
        rows.append({"name": n, "games": g, "wins": w, "draws": d, "losses": l, "score": (w + 0.5 * d) / g, **elo[n]})
    rows.sort(key=lambda r: -r["elo"])
    with (folder / "ratings.csv").open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["rank", *rows[0]])
        w.writeheader()
        w.writerows({"rank": i + 1, **r} for i, r in enumerate(rows))
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 1.2 + 0.5 * len(rows)), dpi=100)
    ys = list(range(len(rows)))[::-1]
    ax.errorbar(
        [r["elo"] for r in rows],
        ys,
        xerr=[[r["elo"] - r["elo_ci95_low"] for r in rows], [r["elo_ci95_high"] - r["elo"] for r in rows]],
        fmt="o",
        capsize=4,
    )
    ax.set_yticks(ys)
    ax.set_yticklabels(["the AlphaZero agent" if r["name"].startswith("az:") else r["name"] for r in rows])
    ax.set_xlabel(f"Elo, Bradley-Terry fit, {anchor} = 0 (bars: 95 % interval)")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(f"{name}: the gauntlet and the opponents' round robin", fontsize=9)
    fig.tight_layout()
    fig.savefig(folder / "ratings.png")
    plt.close(fig)


def _plot(rows: list[dict], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    minutes = [float(r["elapsed_s"]) / 60 for r in rows]
    for key in rows[0]:
        if key.startswith("score_vs_"):
            opp = key[len("score_vs_") :]
            ax.errorbar(
                minutes,
                [float(r[key]) for r in rows],
                yerr=[
                    [float(r[key]) - float(r[f"ci95_low_vs_{opp}"]) for r in rows],
                    [float(r[f"ci95_high_vs_{opp}"]) - float(r[key]) for r in rows],
                ],
                marker="o",
                capsize=3,
                label=opp,
            )
    ax.set_xlabel("wall time of the run (min)")
    ax.set_ylabel("score")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
