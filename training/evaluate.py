"""Round-robin tournaments between agents, with ratings, tables and a chart: the command line.

Command line::

    python -m training.evaluate ENV_ID --agents SPEC [SPEC ...] --games N
        [--seed S] [--out DIR] [--max-steps M] [--env-kwargs JSON] [--opening-plies K]
        [--gauntlet] [--concurrency N] [--no-progress] [--threads N]

    python -m training.evaluate ataxx_v0 --agents random greedy alphabeta:1 alphabeta:2 --games 20

The work is done by three modules, one per responsibility:

* :mod:`training.tournament` — who plays whom in which seats (:func:`schedule`, sides and teams
  from the registry's environment spec) and the games (:func:`run_tournament`);
* :mod:`training.ratings` — win/draw/loss per pair with Wilson intervals, OpenSkill ratings, and
  Elo (Bradley-Terry) for games with two sides;
* :mod:`training.report` — ``results.json``, ``pairs.csv``, ``ratings.csv``, ``ratings.png``
  and the terminal tables.

Their public names are importable from here too (``training.evaluate.run_tournament``, ...).

Agent specs are those of :func:`training.agents.make_agent` (the table
:data:`training.agents.SPECS`, listed by ``--help``). The same spec may be given
twice; the second copy is named ``SPEC#2`` (and so on). ``--games`` is the number of games per
pair of agents (per group of agents for games with more than two sides).

Outputs in ``--out`` (default ``runs/eval/<env_id>-<YYYYmmdd-HHMMSS>``): ``results.json`` (the
whole :func:`run_tournament` result: settings, command line, seed, every game, pairs, ratings),
``pairs.csv``, ``ratings.csv`` and ``ratings.png`` (the rating ladder with 95 % error bars;
checkpoint agents are labelled there by a short name, the last folder and the file stem, while the
CSV and JSON files keep the full names). The folder is created, and checked to be writable, before
any game is played; ``--out`` naming an existing file, or a place where no folder can be created,
is an error. The terminal shows a win/draw/loss table and the ladder (``rich``).

``--opening-plies K`` starts every game with K random legal moves, each opening played with every
agent on every side (:mod:`training.tournament`, *Openings*): two agents that always play the same
move in the same position otherwise play the same game every time, and ``pairs.csv``'s
``distinct_games`` column (printed as a warning when below the games played) shows it.

``--threads N`` (default 1) is torch's thread count for the networks of the tournament
(:func:`training.threads.set_torch_threads`).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from datetime import datetime
from pathlib import Path

from training.cli import (
    TRAIN_COMMON_MODULES,
    MissingExtraError,
    add_env_arguments,
    ensure_writable_dir,
    non_negative_int,
    positive_int,
    require_extra,
)
from training.ratings import Z95, elo_ratings, elo_ratings_with_intervals, openskill_ratings, pair_table
from training.report import MAX_LABEL, OUTPUT_FILES, chart_labels, plot_ratings, print_report, write_outputs
from training.threads import add_threads_argument, set_torch_threads
from training.tournament import TournamentInterrupted, run_tournament, schedule

__all__ = [
    "run_tournament",
    "schedule",
    "pair_table",
    "openskill_ratings",
    "elo_ratings",
    "elo_ratings_with_intervals",
    "write_outputs",
    "plot_ratings",
    "chart_labels",
    "print_report",
    "ensure_writable_dir",
    "non_negative_int",
    "OUTPUT_FILES",
    "MAX_LABEL",
    "Z95",
    "main",
]


def _parser() -> argparse.ArgumentParser:
    from training.agents import spec_forms

    p = argparse.ArgumentParser(
        prog="python -m training.evaluate",
        description="Round-robin tournament between agents: W/D/L per pair with Wilson intervals, "
        "OpenSkill ratings (and Elo for two-player or two-team games), results.json, pairs.csv, "
        "ratings.csv and ratings.png.",
        epilog=f"Agent specs: {spec_forms()}. Example: "
        "python -m training.evaluate ataxx_v0 --agents random greedy alphabeta:2 --games 20",
    )
    add_env_arguments(p)  # env_id (checked by the registry) and --env-kwargs JSON
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help="two or more agent specs")
    p.add_argument(
        "--games",
        type=positive_int,
        required=True,
        metavar="N",
        help="games per pair of agents (per group of agents for games with more than two "
        "sides: seats, or teams in team games)",
    )
    p.add_argument(
        "--seed",
        type=non_negative_int,
        default=None,
        metavar="S",
        help="master seed, an integer >= 0 (default: drawn and recorded)",
    )
    p.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="output folder, created if needed (default runs/eval/<env_id>-<timestamp>); one that "
        "already holds a tournament's files is refused unless --overwrite is given",
    )
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the tournament files (results.json, pairs.csv, ratings.*) already in --out",
    )
    p.add_argument(
        "--max-steps", type=positive_int, default=None, metavar="M", help="truncate games after M plies (a draw)"
    )
    p.add_argument(
        "--gauntlet",
        action="store_true",
        help="only the games that hold the first agent: in two-sided games it plays every other agent, "
        "and the others do not play each other",
    )
    p.add_argument(
        "--concurrency",
        type=positive_int,
        default=1,
        metavar="N",
        help="games played side by side (default 1): an agent to move in several answers them in one "
        "batched call (the AlphaZero agent: one batched search); other agents' results do not change",
    )
    p.add_argument(
        "--opening-plies",
        type=non_negative_int,
        default=0,
        metavar="K",
        help="start every game with K uniformly random legal moves drawn from the game's seed, each "
        "opening played with every agent on every side (default 0: the rules' start position). Two "
        "deterministic agents otherwise repeat the same games; pairs.csv's distinct_games counts them",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_threads_argument(p)
    return p


def _default_out(env_id: str) -> Path:
    base = Path("runs") / "eval" / f"{env_id}-{datetime.now().strftime('%Y%m%d-%H%M%S')}"
    out, i = base, 2
    while out.exists():
        out = base.with_name(f"{base.name}-{i}")
        i += 1
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point.

    Args:
        argv: the arguments (default ``sys.argv[1:]``).

    Returns:
        0 after a tournament was played and written; 130 after Ctrl+C during the games, once the
        games that had ended are rated and written to ``--out`` (the report says how many).

    Raises:
        SystemExit: with status 2 (a usage message on standard error) for bad arguments: an
            unknown environment, ``--games`` or ``--threads`` below 1, a bad agent spec, a
            missing or foreign checkpoint, a bad seed or ``--max-steps``, bad ``--env-kwargs``, or
            an ``--out`` that is a file or cannot be created or written; or the ``train`` extra not installed
            (the message says what to install). These are all detected before any game is played.
    """
    require_extra("train", "training.evaluate", TRAIN_COMMON_MODULES, as_command=True)  # PATH.zip agents check SB3
    from rich.console import Console

    parser = _parser()
    args = parser.parse_args(argv)
    argv_list = sys.argv[1:] if argv is None else list(argv)
    command = shlex.join([Path(sys.executable).name, "-m", "training.evaluate", *argv_list])
    out = Path(args.out) if args.out else _default_out(args.env_id)
    earlier = [name for name in OUTPUT_FILES if (out / name).exists()]
    if earlier and not args.overwrite:
        parser.error(
            f"--out {out} already holds an earlier tournament's {', '.join(earlier)}: give another "
            "folder, or --overwrite to replace them"
        )
    set_torch_threads(args.threads)
    console = Console()

    bar = None
    try:
        if args.no_progress:
            callback = None
        else:
            from rich.progress import Progress

            bar = Progress(console=console, transient=True)
            bar.start()
            task = bar.add_task("games", total=None)

            def callback(done, total):
                bar.update(task, completed=done, total=total)

        result = run_tournament(
            args.env_id,
            args.agents,
            args.games,
            args.seed,
            out_dir=out,
            max_steps=args.max_steps,
            env_kwargs=args.env_kwargs,
            command=command,
            progress=callback,
            gauntlet=args.gauntlet,
            concurrency=args.concurrency,
            opening_plies=args.opening_plies,
        )
    except (ValueError, FileNotFoundError, MissingExtraError) as e:  # an agent spec's extra missing, e.g. rllib:PATH
        if bar is not None:
            bar.stop()
        parser.error(str(e))
    except TournamentInterrupted as stop:  # Ctrl+C: the games that ended are rated and written
        if bar is not None:
            bar.stop()
        print_report(stop.result, console)
        console.print(f"[bold]Interrupted[/bold]: {stop}")
        return 130
    if bar is not None:
        bar.stop()
    print_report(result, console)
    return 0


if __name__ == "__main__":
    sys.exit(main())
