"""Self-play training from a YAML config, by the config's engine — the main job.

Usage::

    python -m training.train CONFIG [--timesteps N] [--seed S] [--out DIR] [--resume CKPT.zip]
        [--final-games N] [--overwrite] [--no-progress] [--smoke]

    python -m training.train ataxx_quick            # a shipped config by its name
    python -m training.train configs/ataxx_quick.yaml   # a YAML file by its path
    python -m training.train --list                 # the shipped configs, their budgets and measured times

    python -m training.train configs/tantrix_4p_quick.yaml --smoke   # every budget shrunk: seconds

    python -m training.train configs/ataxx_rllib.yaml [--address HOST:PORT|auto]   # Ray RLlib, local or a cluster

    python -m training.train configs/ataxx_az.yaml [--address HOST:PORT|auto|local]   # self-play actors on Ray

``CONFIG`` is a YAML file's path or the name of a shipped config (the file's stem: ``configs/`` of a
checkout, installed with the package as ``training/configs/``; a path that exists wins;
:func:`training.config.resolve_config`). The YAML config holds every hyperparameter (see
``configs/ataxx_quick.yaml``, each key commented, and ``docs/training/config.md``); unknown keys are an error
(:func:`training.config.load_config`). Its ``engine`` (:mod:`training.engines`) trains: ``sb3`` (the
default, MaskablePPO: :mod:`training.engines.sb3`), ``rllib`` (Ray RLlib's PPO:
:mod:`training.engines.rllib`; ``--resume`` then takes a checkpoint directory) or ``alphazero``
(Gumbel AlphaZero self-play: :mod:`training.engines.alphazero`, ``configs/*_az.yaml``;
``--timesteps`` counts self-play positions and ``--resume`` takes a ``.pt`` checkpoint). Both write
the same run directory (default ``runs/<config name>-<seed>``; what it holds: :mod:`training.runs`).

``--smoke`` (:meth:`training.config.RunConfig.smoke`) shrinks every budget — for the SB3 engine
one rollout of 64 timesteps, two warm-start games, two games per periodic evaluation, one per
pair in the final tournament, every period one rollout — so that any config runs end to end in
seconds; ``tests/test_training.py`` smoke-runs every file in ``configs/``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from training.cli import TRAIN_COMMON_MODULES, require_extra

# What every engine needs; the config's engine checks its own libraries (SB3's, Ray) once known. Run
# as a command (python -m, or the tabletop-train script, which imports this module before calling
# main), a missing extra is a one-line message and exit status 2; imported, a MissingExtraError.
require_extra(
    "train",
    "training.train",
    TRAIN_COMMON_MODULES,
    as_command=__name__ == "__main__" or Path(sys.argv[0]).name == "tabletop-train",
)

from training.config import (  # noqa: E402  (after the extra's check)
    ConfigError,
    load_config,
    shipped_configs,
    validate_config,
)
from training.engines import get_engine  # noqa: E402
from training.runs import check_run_options, train  # noqa: E402

__all__ = ["main", "load_config", "train", "ConfigError", "list_configs"]


def list_configs(console=None) -> None:
    """Print the shipped configs (``--list``): a table of each one's name, engine, environment id,
    budget (``total_timesteps`` and what it counts: timesteps, or self-play positions for
    AlphaZero) and measured time (its ``measured`` section; "not measured" where it has none),
    then how each time was measured.

    Args:
        console: a ``rich.console.Console`` (default: a new one on standard output).

    Raises:
        FileNotFoundError: the shipped configs' folder is missing (a broken install).
        ValueError: a shipped config that does not load (:class:`training.config.ConfigError` included).
    """
    from rich import box
    from rich.console import Console
    from rich.table import Table

    # a terminal's own width; elsewhere (a pipe, a file, a test) a fixed 120 columns, wide enough for
    # the table, so that the output does not depend on $COLUMNS
    if console is None:
        console = Console()
        if not console.is_terminal:
            console = Console(width=120)
    table = Table(
        title="Shipped configs: python -m training.train NAME (configs/NAME.yaml in a checkout)",
        box=box.SIMPLE_HEAD,
        title_justify="left",
    )
    table.add_column("config")
    table.add_column("engine")
    table.add_column("env id")
    table.add_column("budget (total_timesteps)", justify="right")
    table.add_column("measured", justify="right")
    notes = Table.grid(padding=(0, 2))
    notes.add_column(no_wrap=True)
    notes.add_column()
    for name, path in shipped_configs().items():
        cfg = load_config(path, validate=False)
        m = cfg.measured
        measured = "not measured" if m.minutes is None else f"{m.minutes:g} min"
        table.add_row(name, cfg.engine, cfg.env_id, f"{cfg.total_timesteps:,} {cfg.BUDGET_UNIT}", measured)
        if m.minutes is not None:
            notes.add_row(name, m.what)
    console.print(table, highlight=False)
    console.print("What each measured time covers:", highlight=False)
    console.print(notes, highlight=False)


def main(argv: list[str] | None = None) -> int:
    """``python -m training.train``: see the module docstring. Returns the exit status (bad
    arguments or config: ``argparse``'s exit, status 2)."""
    from training.cli import non_negative_int, positive_int
    from training.ray_cluster import address_arg  # (an argparse type: no Ray import)

    parser = argparse.ArgumentParser(prog="python -m training.train", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "config",
        nargs="?",
        help="a shipped config's name (e.g. ataxx_quick; --list shows them) or a YAML file's path "
        "(e.g. configs/ataxx_quick.yaml)",
    )
    parser.add_argument(
        "--list",
        action="store_true",
        help="list the shipped configs (engine, environment, budget, measured time) and exit",
    )
    parser.add_argument("--timesteps", type=positive_int, default=None, help="override total_timesteps")
    parser.add_argument("--seed", type=non_negative_int, default=None, help="override seed (an integer >= 0)")
    parser.add_argument("--out", default=None, help="run directory (default runs/<config>-<seed>)")
    parser.add_argument(
        "--resume",
        default=None,
        help="checkpoint .zip to continue from (an RLlib config: a checkpoint directory; an AlphaZero "
        "config: a .pt file); --timesteps "
        "then counts the steps to add",
    )
    parser.add_argument("--overwrite", action="store_true", help="delete a non-empty run directory first")
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    parser.add_argument(
        "--final-games",
        type=positive_int,
        default=None,
        help="override final_eval.games (games per pair in the final tournament)",
    )
    parser.add_argument(
        "--address",
        type=address_arg,
        default=None,
        metavar="HOST:PORT|auto|local",
        help="RLlib configs, and AlphaZero configs' self-play actors (selfplay.actors, at least 1 "
        "with --address): join the Ray cluster whose head is at HOST:PORT (`ray start --head` "
        "prints it), 'auto' (the one started on this machine) or 'local' (a local Ray instance of "
        "this run's own); default: RLlib a local Ray instance, AlphaZero self-play in this process "
        "unless selfplay.actors >= 1",
    )
    sb3 = get_engine("sb3").smoke_budgets
    parser.add_argument(
        "--smoke",
        action="store_true",
        help=f"shrink every budget (SB3: one rollout of {sb3['n_envs'] * sb3['n_steps']} timesteps, "
        f"{sb3['pretrain_games']} warm-start games, {sb3['eval_games']} games per periodic "
        f"evaluation, {sb3['final_games']} per final pair) to check a config end to end in "
        "seconds; --timesteps and --final-games still win; default run directory "
        "runs/<config>-<seed>-smoke",
    )
    args = parser.parse_args(argv)
    if args.list:
        if args.config is not None:
            parser.error(f"--list takes no config, got {args.config!r}")
        list_configs()
        return 0
    if args.config is None:
        parser.error("give a config: a shipped config's name (e.g. ataxx_quick; --list shows them) or a YAML path")
    try:
        cfg = load_config(args.config, validate=False, seed=args.seed)  # every value checked, not yet the game
    except (FileNotFoundError, ValueError) as e:
        parser.error(str(e))
    engine = get_engine(cfg.engine)
    engine.require(f"python -m training.train {args.config}", as_command=True)  # before anything imports it
    try:
        check_run_options(cfg, args.resume, args.address)
    except (ConfigError, FileNotFoundError) as e:
        parser.error(str(e))
    if args.smoke or args.timesteps is not None or args.final_games is not None:
        # The values that --smoke / --timesteps / --final-games replace are checked as written too, so
        # a config that passes a smoke run does not fail on its real run. (train() checks the result.)
        try:
            validate_config(cfg, check_teacher=False)
        except ConfigError as e:
            parser.error(f"{args.config}: {e}")
    if args.smoke:
        cfg = cfg.smoke()
    if args.timesteps is not None:
        cfg.total_timesteps = args.timesteps
    if args.final_games is not None:
        cfg.final_eval.games = args.final_games
    out = Path(args.out) if args.out else Path("runs") / f"{cfg.name}-{cfg.seed}{'-smoke' if args.smoke else ''}"
    user_errors: tuple[type[BaseException], ...] = (ConfigError, *engine.user_errors)
    try:
        report = train(
            cfg,
            out,
            resume=args.resume,
            progress_bar=not args.no_progress,
            overwrite=args.overwrite,
            smoke=args.smoke,
            address=args.address,
        )
    except user_errors as e:
        parser.error(str(e))
    print(f"\nRun directory: {out}")
    print(
        f"Trained {report['timesteps_this_run']} timesteps in {report['train_seconds']} s"
        + (f" (total {report['timesteps']})" if args.resume else "")
    )
    for spec, r in report["vs"].items():
        print(
            f"  vs {spec:<14} score {r['score']:.3f} [95% {r['score_ci95_low']:.3f}, {r['score_ci95_high']:.3f}]"
            f"  (W {r['wins']} / D {r['draws']} / L {r['losses']} of {r['games']})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
