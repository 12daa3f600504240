"""What a tournament leaves behind: the files in its output folder, the chart and the terminal
tables.

Files (:func:`write_outputs`): ``results.json`` (the whole
:func:`training.tournament.run_tournament` result: settings, command line, seed, every game,
pairs, ratings), ``pairs.csv``, ``ratings.csv`` and ``ratings.png`` (:func:`plot_ratings`: the
rating ladder with 95 % error bars; checkpoint agents are labelled there by a short name, the last
folder and the file stem (:func:`chart_labels`), while the CSV and JSON files keep the full
names). The folder is checked (:func:`check_output_folder`) before any game is played: an
existing file, a place where no folder can be created, or a folder already holding a folder where
one of these files goes is an error. :func:`print_report` shows a win/draw/loss table and the
ladder in the terminal (``rich``).
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from training.agents import parse_checkpoint_spec
from training.cli import ensure_writable_dir
from training.ratings import Z95

if TYPE_CHECKING:
    from rich.console import JustifyMethod

__all__ = [
    "OUTPUT_FILES",
    "MAX_LABEL",
    "check_output_folder",
    "write_outputs",
    "chart_labels",
    "plot_ratings",
    "print_report",
]

#: The files :func:`write_outputs` writes into the output folder.
OUTPUT_FILES = ("results.json", "pairs.csv", "ratings.csv", "ratings.png")


def check_output_folder(out_dir: str | Path) -> Path:
    """:func:`training.cli.ensure_writable_dir` plus: none of :data:`OUTPUT_FILES` is an existing
    folder.

    Returns:
        The folder as a ``Path`` (created if needed).

    Raises:
        ValueError: as :func:`~training.cli.ensure_writable_dir`, or an output file's place holds a folder.
    """
    out = ensure_writable_dir(out_dir, "output folder")
    for name in OUTPUT_FILES:
        if (out / name).is_dir():
            raise ValueError(f"output folder {out}: {out / name} is a folder, expected a file (or nothing) there")
    return out


def write_outputs(result: dict, out_dir: str | Path) -> Path:
    """Write ``results.json``, ``pairs.csv``, ``ratings.csv`` and ``ratings.png`` into ``out_dir``.

    Sets ``result["out_dir"]``.

    Args:
        result: a :func:`~training.tournament.run_tournament` result.
        out_dir: the folder (created if needed; existing files are overwritten).

    Returns:
        The folder as a ``Path``.

    Raises:
        ValueError: ``out_dir`` is an existing file, cannot be created or written, or holds a
            folder where one of the output files goes.
    """
    out = check_output_folder(out_dir)
    result["out_dir"] = str(out)
    with open(out / "results.json", "w", encoding="utf-8") as f:
        f.write(_json_text(result))
    pair_cols = [
        "agent",
        "opponent",
        "games",
        "wins",
        "draws",
        "losses",
        "score",
        "score_ci95_low",
        "score_ci95_high",
        "distinct_games",
    ]
    with open(out / "pairs.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=pair_cols)
        w.writeheader()
        for r in result["pairs"]:
            w.writerow({k: ("" if r.get(k) is None else r[k]) for k in pair_cols})
    rating_cols = [
        "rank",
        "name",
        "spec",
        "games",
        "wins",
        "draws",
        "losses",
        "score",
        "mu",
        "sigma",
        "ci95_low",
        "ci95_high",
        "ordinal",
        "elo",
        "elo_ci95_low",
        "elo_ci95_high",
    ]
    with open(out / "ratings.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=rating_cols)
        w.writeheader()
        for rank, r in enumerate(result["ratings"], 1):
            w.writerow({"rank": rank, **{k: ("" if r.get(k) is None else r[k]) for k in rating_cols if k != "rank"}})
    plot_ratings(result, out / "ratings.png")
    return out


def _json_text(result: dict) -> str:
    """``result`` as JSON: one top-level key per line, lists of records one record per line."""
    parts = []
    for k, v in result.items():
        if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            body = "[\n" + ",\n".join("  " + json.dumps(x) for x in v) + "\n ]"
        else:
            body = json.dumps(v)
        parts.append(f" {json.dumps(k)}: {body}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


#: Chart labels longer than this keep their end only (``…`` + the last characters).
MAX_LABEL = 40


def _ellipsize(text: str, limit: int = MAX_LABEL) -> str:
    """``text``, or ``…`` and its last ``limit - 1`` characters (the end tells checkpoints apart)."""
    return text if len(text) <= limit else "…" + text[len(text) - (limit - 1) :]


def chart_labels(ratings: list[dict]) -> list[str]:
    """Short agent labels for the chart, one per entry of ``ratings``.

    A checkpoint agent (spec ``.../run/final.zip[:sample]``) is shown as ``run/final`` (its folder
    and file stem), followed by ``:sample`` and a duplicate suffix such as ``#2`` where its name
    has them; other agents by their name. Labels longer than :data:`MAX_LABEL` characters keep
    their end (``…`` and the last ``MAX_LABEL - 1`` characters). Where two shortened labels would
    be equal, both agents keep their full names.

    Args:
        ratings: entries with ``"name"`` and ``"spec"`` (as in ``result["ratings"]``).

    Returns:
        The labels, in the order of ``ratings``.

    Raises:
        KeyError: an entry without ``"name"``.
    """
    labels = []
    for r in ratings:
        name, spec = r["name"], r.get("spec", r["name"])
        try:
            checkpoint = parse_checkpoint_spec(spec)
        except ValueError:
            checkpoint = None
        if checkpoint is None:
            labels.append(_ellipsize(name))
            continue
        path, sample = checkpoint
        p = Path(path)
        short = f"{p.parent.name}/{p.stem}" if p.parent.name else p.stem
        suffix = name[len(spec) :] if name.startswith(spec) else ""
        labels.append(_ellipsize(short + (":sample" if sample else "") + suffix))
    counts: dict[str, int] = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    return [label if counts[label] == 1 else r["name"] for label, r in zip(labels, ratings)]


def plot_ratings(result: dict, path: str | Path):
    """Save the rating ladder (best at the top, 95 % error bars) as a PNG (Agg backend).

    Two-sided games (every agent has a finite Elo interval) show Elo, the others OpenSkill mu.

    Agents are labelled by :func:`chart_labels`; the layout is tightened and the picture cropped
    to its contents (``bbox_inches="tight"``), so no label is cut off.

    Args:
        result: a :func:`~training.tournament.run_tournament` result (``ratings``, ``games``, ``num_players``,
            ``env_id``, ``games_per_group``, ``seed``).
        path: the PNG file to write (its folder must exist).

    Returns:
        The ``matplotlib.figure.Figure`` that was saved.

    Raises:
        OSError: the file cannot be written.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    ratings = result["ratings"]
    k = len(ratings)
    fig = Figure(figsize=(8, 1.2 + 0.55 * k), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(111)
    ys = np.arange(k)[::-1]

    def finite(x):
        return x is not None and math.isfinite(x)

    use_elo = all(finite(r.get("elo_ci95_low")) and finite(r.get("elo_ci95_high")) for r in ratings)
    key, low, high = ("elo", "elo_ci95_low", "elo_ci95_high") if use_elo else ("mu", "ci95_low", "ci95_high")
    xs = np.array([r[key] for r in ratings])
    err = np.array([[r[key] - r[low] for r in ratings], [r[high] - r[key] for r in ratings]])
    ax.errorbar(xs, ys, xerr=err, fmt="o", color="tab:blue", ecolor="tab:gray", elinewidth=2, capsize=5)
    ax.set_yticks(ys)
    ax.set_yticklabels(chart_labels(ratings))
    for y, r in zip(ys, ratings):
        if use_elo:
            label = f"Elo {r['elo']:+.0f} ± {r['elo_ci95_high'] - r['elo']:.0f}   (mu {r['mu']:.1f})"
        else:
            label = f"{r['mu']:.1f} ± {Z95 * r['sigma']:.1f}"
            if finite(r.get("elo")):
                label += f"   Elo {r['elo']:+.0f}"
        ax.annotate(label, (r[key], y), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.set_ylim(-0.7, k - 0.3)
    lo, hi = min(r[low] for r in ratings), max(r[high] for r in ratings)
    pad = 0.08 * (hi - lo or 1.0)
    ax.set_xlim(lo - pad, hi + pad)
    if use_elo:
        ax.set_xlabel("Elo, Bradley-Terry fit, anchor at 0  (bars: 95 % interval)")
    else:
        ax.set_xlabel("OpenSkill Plackett-Luce mu  (bars: 95 % interval, mu ± 1.96 sigma)")
    n_games = len(result["games"])
    per = "pair" if result.get("num_teams", result["num_players"]) == 2 else "group"
    ax.set_title(
        f"{result['env_id']}: {n_games} games ({result['games_per_group']} per {per}), seed {result['seed']}",
        fontsize=10,
    )
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, bbox_inches="tight", pad_inches=0.15)
    return fig


def print_report(result: dict, console=None) -> None:
    """Print the win/draw/loss table and the rating ladder with ``rich``.

    Args:
        result: a :func:`~training.tournament.run_tournament` result.
        console: a ``rich.console.Console`` (default: a new one on standard output).

    Returns:
        Nothing.

    Raises:
        KeyError: ``result`` lacks a field of a :func:`~training.tournament.run_tournament` result.
    """
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    names = [a["name"] for a in result["agents"]]
    by_pair = {(p["agent"], p["opponent"]): p for p in result["pairs"]}
    wdl = Table(title=f"{result['env_id']}: wins-draws-losses (row agent against column agent)")
    wdl.add_column("agent", style="bold")
    for n in names:
        wdl.add_column(n, justify="center")
    wdl.add_column("score", justify="right")
    for a in names:
        cells = []
        for b in names:
            p = by_pair.get((a, b))
            cells.append("·" if p is None else f"{p['wins']}-{p['draws']}-{p['losses']}")
        r = next(r for r in result["ratings"] if r["name"] == a)
        cells.append(f"{r['score']:.3f}")
        wdl.add_row(a, *cells)
    console.print(wdl)

    two_sided = any(r.get("elo") is not None for r in result["ratings"])
    ladder = Table(
        title="Ladder, ranked by "
        + ("Elo (Bradley-Terry; 95 % interval from the fit)" if two_sided else "OpenSkill Plackett-Luce mu")
        + "; OpenSkill 95 % interval = mu ± 1.96 sigma"
    )
    columns: list[tuple[str, JustifyMethod]] = [("#", "right"), ("agent", "left")]
    if two_sided:
        columns += [("Elo", "right"), ("Elo 95 %", "center")]
    columns += [("mu", "right"), ("mu 95 %", "center"), ("W-D-L", "center"), ("score", "right")]
    for col, just in columns:
        ladder.add_column(col, justify=just)
    for rank, r in enumerate(result["ratings"], 1):
        cells = [str(rank), r["name"]]
        if two_sided:
            if r["elo"] is None or math.isnan(r["elo"]):
                cells += ["", ""]
            else:
                lo, hi = r.get("elo_ci95_low"), r.get("elo_ci95_high")
                cells += [f"{r['elo']:+.0f}", "" if lo is None or math.isnan(lo) else f"[{lo:+.0f}, {hi:+.0f}]"]
        cells += [
            f"{r['mu']:.2f}",
            f"[{r['ci95_low']:.1f}, {r['ci95_high']:.1f}]",
            f"{r['wins']}-{r['draws']}-{r['losses']}",
            f"{r['score']:.3f}",
        ]
        ladder.add_row(*cells)
    console.print(ladder)
    if result.get("elo_anchor"):
        console.print(f"Elo: Bradley-Terry maximum likelihood, {result['elo_anchor']} = 0.")
    repeated = [
        p
        for p in result["pairs"]
        if p.get("distinct_games") is not None and p["distinct_games"] < p["games"] and p["agent"] < p["opponent"]
    ]
    opening = result.get("opening_plies") or 0
    hint = (
        f"a longer opening than --opening-plies {opening} varies them more"
        if opening
        else "--opening-plies K starts each game with K random moves"
    )
    for p in repeated:
        console.print(
            f"[yellow]Repeated games[/yellow]: {p['agent']} against {p['opponent']}: {p['games']} games, "
            f"{p['distinct_games']} distinct (the score's interval assumes independent games; {hint})",
            soft_wrap=True,
        )
    unplayed = sum(1 for g in result["games"] if opening and g.get("plies") == g.get("opening_plies"))
    if unplayed:
        console.print(
            f"[yellow]Games over in the opening[/yellow]: {unplayed} of {len(result['games'])} games ended "
            f"within the {opening} random opening plies, before any agent moved (a shorter --opening-plies "
            "leaves the agents the game)",
            soft_wrap=True,
        )
    console.print(
        f"{len(result['games'])} games in {result['elapsed_s']:.1f} s; seed {result['seed']}"
        + (f"; written to {result['out_dir']}" if result.get("out_dir") else ""),
        soft_wrap=True,
    )
