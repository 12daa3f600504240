"""A training run's life, the same for every engine: the run directory, its logs, the final
tournament, the plots and ``report.json``; and :func:`train`, which runs a config's engine.

``python -m training.train CONFIG`` (:mod:`training.train`) fills a run directory (default
``runs/<config name>-<seed>``, ``-smoke`` appended for ``--smoke``):

* ``config.yaml`` — the resolved config, seed included (:func:`write_config`; it loads back as
  it was: :func:`training.config.load_config`);
* ``logs/`` — ``progress.csv`` and TensorBoard event files (SB3: :func:`make_logger`; RLlib, which
  needs no SB3: :class:`training.progress_log.ProgressLogger`, the same files), with the
  periodic evaluation win rates under ``eval/``;
* ``checkpoints/`` — periodic checkpoints ``step_<N>`` and ``final`` (SB3: ``.zip`` files, with a
  warm start also ``pretrained.zip``, the clone alone before self-play; RLlib: folders);
* ``eval/`` — the final evaluation: a round-robin tournament of the trained agent and the
  configured opponents (:func:`final_evaluation`, :mod:`training.tournament`: ``results.json``,
  ``pairs.csv``, ``ratings.csv``, ``ratings.png``);
* ``pretrain.json`` — SB3, when the config's ``pretrain.teacher`` is set: the behaviour-cloning
  warm start's figures (:mod:`training.pretrain`);
* ``learning_curve.png`` — the periodic evaluation scores over timesteps (when at least one
  periodic evaluation ran: :func:`plot_learning_curve`);
* ``report.json`` — the trained agent's score against each opponent with 95% intervals, the
  ratings, the periodic evaluations, timings, the seed, and the run's budgets (``budgets``;
  ``smoke``: whether ``--smoke`` shrank them), the software and machine it ran on
  (``environment``: library versions, code commit, Python, OS, processor model and vector
  flags, thread counts; :func:`training.environment.environment`); an engine adds its own keys
  (RLlib: ``engine``, ``pool``, ``throughput``, ``ray``).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import yaml

from training.config import ConfigError, RunConfig, validate_config
from training.engine_registry import engine_names, get_engine

__all__ = [
    "train",
    "check_run_options",
    "prepare_out_dir",
    "write_config",
    "make_logger",
    "next_multiple",
    "duration",
    "games",
    "final_evaluation",
    "final_report",
    "write_report",
    "plot_learning_curve",
]


def check_run_options(cfg: RunConfig, resume: str | None = None, address: str | None = None) -> None:
    """Check the options of a run that its config does not hold: ``address`` (only for an engine
    that joins a cluster) and ``resume`` (an existing checkpoint of the engine's kind).

    Raises:
        ConfigError: ``address`` given to an engine that trains in this process.
        FileNotFoundError: ``resume`` does not exist (as the engine's kind of checkpoint).
    """
    engine = get_engine(cfg.engine)
    if address is not None and not engine.takes_address:
        takers = [get_engine(n) for n in engine_names() if get_engine(n).takes_address]
        raise ConfigError(
            f"--address joins a Ray cluster: it is for {' and '.join(e.label for e in takers)} configs "
            f"(engine: {', '.join(e.name for e in takers)}); an {engine.label} run trains in this process"
        )
    if resume and not engine.is_checkpoint(Path(resume)):
        raise FileNotFoundError(
            f"checkpoint to resume from {resume} does not exist (an {engine.label} run "
            f"resumes from {engine.checkpoint_kind})"
        )


def prepare_out_dir(out: Path, overwrite: bool = False) -> None:
    """Make ``out`` an empty run directory.

    Raises:
        ConfigError (a ``ValueError``): ``out`` is a file, cannot be created or written
            (:func:`training.cli.ensure_writable_dir`), or is a non-empty folder and ``overwrite``
            is false (files of an earlier run would mix with this one's: old checkpoints, two
            TensorBoard logs).
    """
    from training.cli import ensure_writable_dir

    out = Path(out)
    if out.is_dir() and any(out.iterdir()):
        if not overwrite:
            raise ConfigError(
                f"run directory {out} is not empty (an earlier run?): choose another --out, "
                "or pass --overwrite to delete it first"
            )
        shutil.rmtree(out)
    try:
        ensure_writable_dir(out, "run directory")  # the same check (and message) as every output folder
    except ValueError as e:
        raise ConfigError(str(e)) from None


def train(
    cfg: RunConfig,
    out: Path,
    resume: str | None = None,
    progress_bar: bool = True,
    overwrite: bool = False,
    smoke: bool = False,
    address: str | None = None,
) -> dict:
    """Run a config's engine and the final evaluation in the run directory ``out``; return the report.

    Args:
        cfg: a config from :func:`training.config.load_config`.
        out: the run directory (must be empty or absent; see ``overwrite``).
        resume: a checkpoint to continue from (the engine's kind: an SB3 ``.zip``, an RLlib
            folder): its weights, optimizer state and timestep count; ``total_timesteps`` counts
            the steps to add. The network (``policy``) must be the checkpoint's, and a warm start
            (``pretrain``) is skipped.
        progress_bar: show the progress.
        overwrite: delete a non-empty ``out`` first.
        smoke: only recorded in the report (``"smoke"``); the caller shrinks ``cfg`` with
            :meth:`~training.config.RunConfig.smoke`.
        address: an engine that joins a cluster (RLlib, AlphaZero's self-play actors): the Ray
            cluster to join (``"HOST:PORT"``, ``"auto"`` or ``"local"``,
            :func:`training.ray_cluster.start_ray`); default a local one (AlphaZero: self-play in
            this process unless ``selfplay.actors`` asks for actors).

    Returns:
        The report (also written to ``out/report.json``): ``vs`` and ``ratings`` (from
        :func:`final_evaluation`), ``config``, ``env_id``, ``seed``, ``timesteps``,
        ``timesteps_this_run``, ``resumed_from``, ``train_seconds``, ``eval_seconds``,
        ``checkpoint``, ``pretrain``, ``periodic_eval``, ``smoke`` and ``budgets``
        (:meth:`~training.config.RunConfig.budgets`), ``environment``
        (:func:`training.environment.environment`, added by :func:`write_report`), and the engine's
        own keys.

    A start that fails (a checkpoint that cannot be resumed, an error in the warm start, an
    interrupt before training proper begins) leaves nothing behind: the run directory is
    removed if this call created it, emptied otherwise, so the same command can be run again.
    Once training proper has begun, checkpoints and logs are kept whatever happens.

    Raises:
        FileNotFoundError: ``resume`` does not exist. ValueError: a bad config or ``out``, or a
        checkpoint that cannot be resumed with this config (:class:`~training.config.ConfigError`).
    """
    engine = get_engine(cfg.engine)
    validate_config(cfg, check_teacher=resume is None)
    check_run_options(cfg, resume, address)
    engine.require(f"training.train with an {engine.label} config")
    out = Path(out)
    created = not out.exists()
    prepare_out_dir(out, overwrite)
    started: list[bool] = []  # the engine appends once training proper begins
    try:
        return engine.train_in(
            cfg, out, resume=resume, progress_bar=progress_bar, started=started, smoke=smoke, address=address
        )
    except BaseException:
        if not started:  # a failed start (bad checkpoint, warm start, Ctrl-C...) leaves nothing
            if created:
                shutil.rmtree(out, ignore_errors=True)
            else:
                for child in out.iterdir():
                    shutil.rmtree(child) if child.is_dir() else child.unlink()
        raise


def write_config(cfg: RunConfig, out: Path) -> None:
    """Write the resolved config to ``out/config.yaml`` and make ``out/checkpoints``."""
    (out / "checkpoints").mkdir(exist_ok=True)
    (out / "config.yaml").write_text(yaml.safe_dump(cfg.to_dict(), sort_keys=False))


def make_logger(folder: Path):
    """SB3's logger (the SB3 engine's; an engine without SB3 uses
    :class:`training.progress_log.ProgressLogger`, which writes the same files) writing
    ``progress.csv`` and TensorBoard event files to ``folder``, as
    ``configure(folder, ["csv", "tensorboard"])`` does, except that the CSV columns come in sorted
    order: SB3's CSV writer adds new columns in the order of a ``set`` of key strings, which
    changes with Python's hash randomisation (``PYTHONHASHSEED``), so two identical runs wrote the
    same values under differently ordered headers."""
    from stable_baselines3.common.logger import CSVOutputFormat, Logger, TensorBoardOutputFormat

    class _SortedKeys(list):
        def extend(self, keys):  # CSVOutputFormat.write extends its columns with a set of new keys
            super().extend(sorted(keys))

    folder.mkdir(parents=True, exist_ok=True)
    csv = CSVOutputFormat(str(folder / "progress.csv"))
    csv.keys = _SortedKeys()
    return Logger(folder=str(folder), output_formats=[csv, TensorBoardOutputFormat(str(folder))])


def next_multiple(t: int, period: int) -> int:
    """The first multiple of ``period`` strictly after ``t``."""
    return (t // period + 1) * period


def duration(seconds: float) -> str:
    """``"45 s"``, ``"12 min"``, ``"1 h 05 min"``."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def games(n: int) -> str:
    """``"1 game"``, ``"4 games"``: a count of games for the run's messages."""
    return f"{n} game" if n == 1 else f"{n} games"


def final_evaluation(
    cfg: RunConfig, checkpoint: Path, out: Path, agent_spec: str | None = None, concurrency: int = 1
) -> dict:
    """Tournament of the trained agent and the configured opponents.

    Uses :func:`training.tournament.run_tournament` (seats rotated, OpenSkill ratings, Elo for
    two players, Wilson intervals). Two-player games: one round robin of the trained agent and
    every opponent, written to ``out``. Games with more seats (teams): one two-agent tournament
    per opponent, written to ``out/vs_<opponent>``, so that the trained agent always holds a
    whole team against the opponent's team (a tournament of three or more agents in a
    four-seat game would mix them within teams).

    ``agent_spec``: the trained agent's spec (default: ``str(checkpoint)``, an SB3 checkpoint;
    the RLlib trainer passes ``rllib:<checkpoint>``). ``concurrency``: games played side by side
    (:func:`training.tournament.run_tournament`; the AlphaZero engine batches its agent's searches).

    Returns:
        ``{"vs": {spec: {"wins", "draws", "losses", "games", "score", "score_ci95_low",
        "score_ci95_high"}}, "ratings": [...]}`` from the trained agent's side.
    """
    from envs.registry import spec
    from training.tournament import run_tournament

    fe = cfg["final_eval"]
    keys = ("wins", "draws", "losses", "games", "score", "score_ci95_low", "score_ci95_high")
    num_players = spec(cfg["env_id"]).num_players(**cfg["env_kwargs"])
    common = dict(
        seed=10_000 + cfg["seed"], max_steps=cfg["max_steps"], env_kwargs=cfg["env_kwargs"], record_moves=False
    )
    groups = (
        [(out, fe["opponents"])]
        if num_players == 2
        else [(out / f"vs_{spec.replace('/', '_').replace(':', '_')}", [spec]) for spec in fe["opponents"]]
    )
    vs, ratings = {}, []
    for folder, opponents in groups:
        result = run_tournament(
            cfg["env_id"],
            [agent_spec or str(checkpoint), *opponents],
            fe["games"],
            out_dir=folder,
            concurrency=concurrency,
            **common,
        )
        me = result["agents"][0]["name"]
        names = {a["name"]: a["spec"] for a in result["agents"]}
        vs.update({names[p["opponent"]]: {k: p[k] for k in keys} for p in result["pairs"] if p["agent"] == me})
        ratings.append(
            [
                {k: r[k] for k in ("name", "mu", "sigma", "elo", "elo_ci95_low", "elo_ci95_high")}
                for r in result["ratings"]
            ]
        )
    return {"vs": vs, "ratings": ratings[0] if num_players == 2 else ratings}


def final_report(
    cfg: RunConfig,
    final: Path,
    out: Path,
    history: list[dict],
    agent_spec: str | None = None,
    concurrency: int = 1,
) -> tuple[dict, float]:
    """The end of every run: says what is evaluated, plays the final tournament
    (:func:`final_evaluation`, into ``out / "eval"``) and returns its report and its seconds.

    Args:
        cfg: the run's config. final: the final checkpoint. out: the run directory.
        history: the periodic evaluations (only to say when there was none).
        agent_spec: the trained agent's spec (default ``str(final)``).
        concurrency: games played side by side (:func:`final_evaluation`).
    """
    if not history:
        print(
            f"[eval] no periodic evaluation: the run is shorter than eval.every = {cfg['eval']['every']} "
            "timesteps, so no learning_curve.png",
            flush=True,
        )
    print(
        f"[final_eval] {games(cfg['final_eval']['games'])} per pair of the trained agent and "
        f"{', '.join(cfg['final_eval']['opponents'])} (--final-games to change)",
        flush=True,
    )
    t1 = time.time()
    report = final_evaluation(cfg, final, out / "eval", agent_spec=agent_spec, concurrency=concurrency)
    return report, round(time.time() - t1, 1)


def write_report(cfg: RunConfig, out: Path, report: dict, history: list[dict]) -> dict:
    """Write ``out/report.json`` and, with periodic evaluations, ``out/learning_curve.png``.

    Every engine ends here: the report gains ``environment``, the library versions, code commit,
    Python, OS, processor and thread counts of this process (:func:`training.environment.environment`,
    with the config's ``torch_threads``), and is returned."""
    from training.environment import environment

    report["environment"] = environment(torch_threads=cfg["torch_threads"])
    (out / "report.json").write_text(json.dumps(report, indent=2))
    if history:
        plot_learning_curve(history, out / "learning_curve.png", title=f"{cfg['name']} (seed {cfg['seed']})")
    return report


def plot_learning_curve(history: list[dict], path: Path, title: str = "") -> None:
    """Score against each evaluation opponent over training timesteps, as a PNG (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5), dpi=100)
    steps = [row["timesteps"] for row in history]
    for key in history[0]:
        if key.startswith("score_vs_"):
            ax.plot(steps, [row[key] for row in history], marker="o", label=key[len("score_vs_") :])
    ax.set_xlabel("timesteps")
    ax.set_ylabel("score (wins + draws/2) / games")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(title="vs")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
