"""Check the figures of the documentation's Results page against the files in ``results/``.

Usage::

    python results/check_readme.py              # one line per claim; exit status 1 on any mismatch
    python results/check_readme.py --unchecked  # also list the numbers of the page no claim covers

The figures of other pages that a file backs (:func:`page_claims`: the RLlib page's run) are
checked too, when the page checked is the repository's own.

The Results page is ``docs/results.md`` (the site's "Results"; it was the README's ``## Results``
section until the README became a front page, and a Markdown file with such a section is still read
as before: ``--page README.md`` of an old checkout).

Each entry of :func:`claims` is one passage of the Results section written as a template, ``{}``
standing for a number, and the values that the files in ``results/`` give for those numbers, in
order. The template is looked for in one part of the section (the text from the part's bold
heading, e.g. ``**Ataxx**``, to the next one; the summary table's part starts at "In short"), with
any run of whitespace matching any other (the page wraps its lines). A printed number matches
its file's value when they differ by at most half a unit of the printed number's last decimal
(``0.90`` stands for 0.9025, ``+1605`` for 1604.96, ``9.7 min`` for 579.0 s / 60). A passage that
is not found, or a number that does not match, is a mismatch.

The figures of the section that have no file (durations of whole runs, the quick configs of
Ataxx and TwixT, earlier versions of a config and the variants that were tried, a few baseline
measurements) are not claims; ``--unchecked`` lists every number left over, and the page says
which figures have no file. The files themselves were written by the code of their day, not
necessarily by the current code (docs/results.md).

``tests/test_results_files.py`` runs this check.
"""

from __future__ import annotations

import argparse
import csv
import functools
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

RESULTS = Path(__file__).resolve().parent
#: The page whose figures are checked (the site's Results page).
PAGE = RESULTS.parent / "docs" / "results.md"

#: A number as the page prints it: an optional sign, digits with optional thousands commas,
#: optional decimals.
NUMBER = r"[+-]?\d[\d,]*(?:\.\d+)?"

#: The trained agent's name in the tournament files is its checkpoint path (ends with ``.zip``).
TRAINED = ".zip"

#: An AlphaZero agent's name in the tournament files: its spec ``az:PATH:SIMS`` (then any overrides).
AZ = "az:"


@dataclass
class Claim:
    """A passage of the Results section and the file values of its numbers.

    Attributes:
        part: the bold heading (or the "In short" line) whose part of the section holds the passage.
        template: the passage, ``{}`` for each number.
        values: the expected numbers, in the order of the ``{}``.
        source: the file (and row) the values come from, for the report.
        after: where several tables of the part have the same rows: a text of the part after which
            the passage is looked for.
    """

    part: str
    template: str
    values: list[float]
    source: str
    after: str = ""
    formats: list[str] | None = None  # how results/az_results.py --table prints each value


# --------------------------------------------------------------------------- reading the files


def _rows(path: str) -> list[dict]:
    p = RESULTS / path
    with p.open(newline="") as f:
        return list(csv.DictReader(f))


@functools.cache
def _shipped_alphazero_sources() -> dict[str, str]:
    """The shipped AlphaZero agents' names and the digests of the checkpoints they were made from
    (``source_sha256``), read once: reading the index checks every shipped file's digest."""
    sys.path.insert(0, str(RESULTS.parent))
    from training.agents.shipped import shipped_agents

    return {a.name: a.source_sha256 for a in shipped_agents() if a.engine == "alphazero"}


def _ships_this_run(spec: str, final_sha256: str | None) -> bool:
    """Whether ``spec`` (``NAME`` or ``NAME:SIMS``) names a shipped AlphaZero agent made from the
    checkpoint of digest ``final_sha256`` (its index entry's ``source_sha256``)."""
    return final_sha256 is not None and _shipped_alphazero_sources().get(spec.split(":")[0]) == final_sha256


def _is(name: str, wanted: str) -> bool:
    if wanted == TRAINED:
        return name.endswith(TRAINED)
    if wanted == AZ:
        return name.startswith(AZ)
    return name == wanted


def _pair(path: str, agent: str, opponent: str) -> dict:
    found = [r for r in _rows(path) if _is(r["agent"], agent) and _is(r["opponent"], opponent)]
    if len(found) != 1:
        raise LookupError(f"{path}: {len(found)} rows of {agent} against {opponent}, expected 1")
    return found[0]


def wdl(path: str, agent: str, opponent: str) -> list[float]:
    """Wins, draws, losses, score, 95% low, 95% high of ``agent`` against ``opponent`` (a pairs CSV)."""
    r = _pair(path, agent, opponent)
    return [float(r[k]) for k in ("wins", "draws", "losses", "score", "score_ci95_low", "score_ci95_high")]


def score_ci(path: str, agent: str, opponent: str) -> list[float]:
    """Score, 95% low, 95% high (a pairs CSV)."""
    return wdl(path, agent, opponent)[3:]


def score(path: str, agent: str, opponent: str) -> list[float]:
    """The score alone (a pairs CSV)."""
    return wdl(path, agent, opponent)[3:4]


def elo(path: str, name: str) -> list[float]:
    """Elo, 95% low, 95% high of one agent (a ratings CSV with one tournament)."""
    found = [r for r in _rows(path) if _is(r["name"], name)]
    if len(found) != 1:
        raise LookupError(f"{path}: {len(found)} rating rows of {name}, expected 1")
    return [float(found[0][k]) for k in ("elo", "elo_ci95_low", "elo_ci95_high")]


def alone(path: str, agent: str, opponent: str) -> list[float]:
    """W, D, L, score, 95% low, 95% high of one "alone" measurement (``alone.json``)."""
    rows = json.loads((RESULTS / path).read_text())
    found = [r for r in rows if r["agent"] == agent and r["opponent_in_three_seats"] == opponent]
    if len(found) != 1:
        raise LookupError(f"{path}: {len(found)} entries of {agent} against three {opponent}, expected 1")
    return [float(found[0][k]) for k in ("wins", "draws", "losses", "score", "score_ci95_low", "score_ci95_high")]


def setting_alone(path: str, setting: str) -> list[float]:
    """W, D, L, score, 95% low, 95% high of one setting of the robot's ``alone.json``."""
    rows = json.loads((RESULTS / path).read_text())
    found = [r for r in rows if r["setting"] == setting]
    if len(found) != 1:
        raise LookupError(f"{path}: {len(found)} entries of setting {setting}, expected 1")
    return [float(found[0][k]) for k in ("wins", "draws", "losses", "score", "score_ci95_low", "score_ci95_high")]


def pretrain(path: str, *keys: str, minutes: bool = False) -> list[float]:
    """Top-level values of a JSON file, e.g. ``pretrain.json`` or a run's ``report.json``
    (``*_seconds`` in minutes when ``minutes``)."""
    d = json.loads((RESULTS / path).read_text())
    return [float(d[k]) / (60 if minutes and k.endswith("seconds") else 1) for k in keys]


@functools.lru_cache(maxsize=1)
def _seeds_module():
    """``results/seeds/collect.py``, which summarizes the quick configs' runs over seeds (loaded once)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("seeds_collect", RESULTS / "seeds" / "collect.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def over_seeds(config: str) -> list[float]:
    """Mean, min, max against random; mean, min, max against greedy; the score against greedy per
    seed; min and max of the wall and of the CPU minutes per run; seed 0's run alone: wall and CPU
    minutes (``results/seeds/<config>/``).

    Raises:
        LookupError: no run alone, or one that trained other weights than seed 0's run.
    """
    s = _seeds_module().summary(config)
    r, g = s["random"], s["greedy"]
    if "alone" not in s or not s["alone"]["same_weights_as_seed0"]:
        raise LookupError(f"seeds/{config}/alone: missing, or other weights than seed0's")
    return (
        [r["mean"], r["min"], r["max"], g["mean"], g["min"], g["max"]]
        + list(g["per_seed"])
        + [s["wall_minutes"]["min"], s["wall_minutes"]["max"], s["cpu_minutes"]["min"], s["cpu_minutes"]["max"]]
        + [s["alone"]["wall_minutes"], s["alone"]["cpu_minutes"]]
    )


# --------------------------------------------------------------------------- the claims

#: The shipped agents (training/shipped/index.json) and their setting as the Results page's table writes it.
SHIPPED = [
    ("ataxx_quick", "`ataxx_v0`"),
    ("twixt_quick", "`twixt_v0` 8x8"),
    ("double_twixt_quick", "`double_twixt_v0` 8x8"),
    ("tantrix_quick", "`tantrix_v0` 2 players, window radius 10"),
    ("smartrix_quick", "`smartrix_v0` 2 players"),
]


def claims() -> list[Claim]:
    """Every passage of the Results section that a file in ``results/`` backs."""
    out: list[Claim] = []

    def add(part, template, values, source, after=""):
        out.append(Claim(part, template, [float(v) for v in values], source, after))

    # The summary table.
    short = "In short"
    a, t, d = "ataxx_full/", "twixt_full/", "double_twixt_full/"
    add(
        short,
        "| `ataxx_v0` | `ataxx_full` (1.5M timesteps) | {} | {} | {} | {} (`mcts:1000`) |",
        score(a + "pairs.csv", TRAINED, "random")
        + score(a + "pairs.csv", TRAINED, "greedy")
        + score(a + "pairs.csv", TRAINED, "alphabeta:1")
        + score(a + "pairs_vs_mcts1000.csv", TRAINED, "mcts:1000"),
        a + "pairs.csv, pairs_vs_mcts1000.csv",
    )
    add(
        short,
        "| `twixt_v0` (8x8) | `twixt_full` (1M) | {} | {} | {} | {} (`mcts:1000`) |",
        score(t + "pairs.csv", TRAINED, "random")
        + score(t + "pairs.csv", TRAINED, "greedy")
        + score(t + "pairs.csv", TRAINED, "alphabeta:1")
        + score(t + "pairs_vs_mcts1000.csv", TRAINED, "mcts:1000"),
        t + "pairs.csv, pairs_vs_mcts1000.csv",
    )
    add(
        short,
        "| `double_twixt_v0` (8x8) | `double_twixt_full` (greedy warm start + 1M) | {} | {} | {} | {} (`mcts:1000`) |",
        score(d + "pairs_vs_random.csv", TRAINED, "random")
        + score(d + "pairs_vs_greedy.csv", TRAINED, "greedy")
        + score(d + "pairs_vs_alphabeta1.csv", TRAINED, "alphabeta:1")
        + score(d + "pairs_vs_mcts1000.csv", TRAINED, "mcts:1000"),
        d + "pairs_vs_*.csv",
    )
    add(
        short,
        "| `tantrix_v0` (2 players) | `tantrix_full` (alpha-beta warm start + 307k) | {} | {} | {} | |",
        score("tantrix_full/pairs.csv", TRAINED, "random")
        + score("tantrix_full/pairs.csv", TRAINED, "greedy")
        + score("tantrix_full/pairs.csv", TRAINED, "alphabeta:1"),
        "tantrix_full/pairs.csv",
    )
    add(
        short,
        "| `smartrix_v0` (2 players) | `smartrix_full` (410k) | {} | {} | {} | {} (`mcts:200`) |",
        score("smartrix_full/pairs.csv", TRAINED, "random")
        + score("smartrix_full/pairs.csv", TRAINED, "greedy")
        + score("smartrix_full/pairs_vs_alphabeta1.csv", TRAINED, "alphabeta:1")
        + score("smartrix_full/pairs.csv", TRAINED, "mcts:200"),
        "smartrix_full/pairs.csv, pairs_vs_alphabeta1.csv",
    )

    # The quick configs over three seeds (results/seeds/).
    for config in _seeds_module().CONFIGS:
        add(
            "**Over seeds**",
            f"| `{config}` | 0, 1, 2 | {{}} [{{}}, {{}}] | {{}} [{{}}, {{}}] | {{}} / {{}} / {{}} | "
            f"{{}} to {{}} min | {{}} to {{}} min | {{}} min wall, {{}} min CPU, same weights |",
            over_seeds(config),
            f"seeds/{config}/seed*/, alone/",
        )

    # Ataxx.
    part = "**Ataxx**"
    for label, opp, f in (
        ("random", "random", "pairs.csv"),
        ("greedy (one ply, most stones)", "greedy", "pairs.csv"),
        ("alphabeta:1", "alphabeta:1", "pairs.csv"),
        ("alphabeta:2", "alphabeta:2", "pairs.csv"),
        (
            "mcts:200 (UCT, leaves scored by stone count; a separate measurement, see below)",
            "mcts:200",
            "pairs_vs_mcts200.csv",
        ),
        ("mcts:1000 (200 games)", "mcts:1000", "pairs_vs_mcts1000.csv"),
    ):
        add(part, f"| {label} | {{}} / {{}} / {{}} | {{}} [{{}}, {{}}] |", wdl(a + f, TRAINED, opp), a + f)
    add(
        part,
        "alphabeta:2 {} [{}, {}], trained {} [{}, {}], alphabeta:1 {} [{}, {}], greedy {} [{}, {}]",
        elo(a + "ratings.csv", "alphabeta:2")
        + elo(a + "ratings.csv", TRAINED)
        + elo(a + "ratings.csv", "alphabeta:1")
        + elo(a + "ratings.csv", "greedy"),
        a + "ratings.csv",
    )

    # TwixT.
    part = "**TwixT 8x8**"
    for label, opp, f in (
        ("random", "random", "pairs.csv"),
        ("greedy (the hole on its shortest connection, or blocking)", "greedy", "pairs.csv"),
        ("alphabeta:1 (connection-distance gap)", "alphabeta:1", "pairs.csv"),
        (
            "mcts:200 (UCT, leaves scored by the connection-distance gap; separate measurement)",
            "mcts:200",
            "pairs_vs_mcts200.csv",
        ),
        ("mcts:1000 (separate measurement)", "mcts:1000", "pairs_vs_mcts1000.csv"),
    ):
        add(part, f"| {label} | {{}} / {{}} / {{}} | {{}} [{{}}, {{}}] |", wdl(t + f, TRAINED, opp), t + f)
    add(
        part,
        "trained {} [{}, {}], alphabeta:1 {} [{}, {}], greedy {} [{}, {}]",
        elo(t + "ratings.csv", TRAINED) + elo(t + "ratings.csv", "alphabeta:1") + elo(t + "ratings.csv", "greedy"),
        t + "ratings.csv",
    )

    # Double TwixT.
    part = "**Double TwixT 8x8**"
    add(
        part,
        "warm start: greedy's moves in {} games, {} decisions, {} s;",
        pretrain(d + "pretrain.json", "games", "decisions")
        + [sum(pretrain(d + "pretrain.json", "collect_seconds", "clone_seconds"))],
        d + "pretrain.json",
    )
    for label, opp, f in (
        ("random", "random", "pairs_vs_random.csv"),
        ("greedy", "greedy", "pairs_vs_greedy.csv"),
        ("alphabeta:1 (connection-distance gap)", "alphabeta:1", "pairs_vs_alphabeta1.csv"),
        ("mcts:200 team (separate measurement)", "mcts:200", "pairs_vs_mcts200.csv"),
        ("mcts:1000 team (separate measurement)", "mcts:1000", "pairs_vs_mcts1000.csv"),
    ):
        add(part, f"| {label} | {{}} / {{}} / {{}} | {{}} [{{}}, {{}}] |", wdl(d + f, TRAINED, opp), d + f)
    q = "double_twixt_quick/"
    add(
        part,
        "scored {} against random, {} [{}, {}] against greedy and {} [{}, {}] against `alphabeta:1` ({} games,",
        score(q + "pairs_vs_random.csv", TRAINED, "random")
        + score_ci(q + "pairs_vs_greedy.csv", TRAINED, "greedy")
        + score_ci(q + "pairs_vs_alphabeta1.csv", TRAINED, "alphabeta:1")
        + [float(_pair(q + "pairs_vs_alphabeta1.csv", TRAINED, "alphabeta:1")["games"])],
        q + "pairs_vs_*.csv",
    )

    # MCTS among the baselines.
    part = "**MCTS, on the three boards**"
    for game, folder in (("Ataxx", a), ("TwixT 8x8", t), ("Double TwixT 8x8", d)):
        f = folder + "pairs_baselines_with_mcts.csv"
        add(
            part,
            f"| {game} | {{}} [{{}}, {{}}] | {{}} [{{}}, {{}}] | {{}} [{{}}, {{}}] | "
            "{} [{}, {}] | {} [{}, {}] |",
            score_ci(f, "mcts:200", "greedy")
            + score_ci(f, "mcts:200", "alphabeta:1")
            + score_ci(f, "mcts:1000", "greedy")
            + score_ci(f, "mcts:1000", "alphabeta:1")
            + score_ci(f, "mcts:1000", "mcts:200"),
            f,
        )
    add(
        part,
        "the trained agents beat it {} (Ataxx), {} (TwixT) and {} (Double TwixT)",
        score(a + "pairs_vs_mcts1000.csv", TRAINED, "mcts:1000")
        + score(t + "pairs_vs_mcts1000.csv", TRAINED, "mcts:1000")
        + score(d + "pairs_vs_mcts1000.csv", TRAINED, "mcts:1000"),
        "*/pairs_vs_mcts1000.csv",
    )

    # Tantrix.
    part = "**Tantrix, 2 players**"
    tf, tq = "tantrix_full/", "tantrix_quick/"
    add(
        part,
        "warm start: `alphabeta:1`'s moves in {} games, {} decisions, {} min to collect and {} min to fit, "
        "held-out agreement with the teacher {};",
        pretrain(tf + "pretrain.json", "games", "decisions")
        + pretrain(tf + "pretrain.json", "collect_seconds", "clone_seconds", minutes=True)
        + pretrain(tf + "pretrain.json", "holdout_agreement"),
        tf + "pretrain.json",
    )
    for label, opp in (
        ("random", "random"),
        ("greedy (longest own line or loop through the tile)", "greedy"),
        ("alphabeta:1 (one ply on the score gap over a sampled bag)", "alphabeta:1"),
    ):
        add(
            part,
            f"| {label} | {{}} / {{}} / {{}} | {{}} [{{}}, {{}}] |",
            wdl(tf + "pairs.csv", TRAINED, opp),
            tf + "pairs.csv",
        )
    add(
        part,
        "trained {} [{}, {}], greedy {} [{}, {}], `alphabeta:1` {} [{}, {}].",
        elo(tf + "ratings.csv", TRAINED) + elo(tf + "ratings.csv", "greedy") + elo(tf + "ratings.csv", "alphabeta:1"),
        tf + "ratings.csv",
    )
    add(
        part,
        "In the same round robin greedy beat random {} [{}, {}] and `alphabeta:1` beat random {} [{}, {}] and "
        "greedy {} [{}, {}]",
        score_ci(tf + "pairs.csv", "greedy", "random")
        + score_ci(tf + "pairs.csv", "alphabeta:1", "random")
        + score_ci(tf + "pairs.csv", "alphabeta:1", "greedy"),
        tf + "pairs.csv",
    )
    add(part, "and its {} against random is theirs too.", score(tf + "pairs.csv", TRAINED, "random"), tf + "pairs.csv")
    add(
        part,
        "(held-out agreement {} against {})",
        pretrain(tf + "pretrain.json", "holdout_agreement") + pretrain(tq + "pretrain.json", "holdout_agreement"),
        "tantrix_full/pretrain.json, tantrix_quick/pretrain.json",
    )
    add(
        part,
        "start: `alphabeta:1`'s moves in {} games, {} decisions, {} s to collect and {} s to fit;",
        pretrain(tq + "pretrain.json", "games", "decisions", "collect_seconds", "clone_seconds"),
        tq + "pretrain.json",
    )
    for label, opp in (("random", "random"), ("greedy (longest own line or loop through the tile)", "greedy")):
        add(
            part,
            f"| {label} | {{}} / {{}} / {{}} | {{}} [{{}}, {{}}] | {{}} / {{}} / {{}} | {{}} [{{}}, {{}}] |",
            wdl(tq + "pairs.csv", TRAINED, opp) + wdl(tq + f"pairs_1000_vs_{opp}.csv", TRAINED, opp),
            f"{tq}pairs.csv, pairs_1000_vs_{opp}.csv",
        )
    add(
        part,
        "greedy itself beats random only {} and `alphabeta:1` only {} ({} games each at window radius 12,",
        score(tf + "pairs.csv", "greedy", "random")
        + score(tf + "pairs.csv", "alphabeta:1", "random")
        + [float(_pair(tf + "pairs.csv", "greedy", "random")["games"])],
        tf + "pairs.csv",
    )
    add(
        part,
        "`alphabeta:1` and greedy are level ({} over {} games)",
        score(tf + "pairs.csv", "alphabeta:1", "greedy")
        + [float(_pair(tf + "pairs.csv", "alphabeta:1", "greedy")["games"])],
        tf + "pairs.csv",
    )

    # Smartrix.
    part = "**Smartrix, 2 players**"
    sf, sq, s250 = "smartrix_full/", "smartrix_quick/", "smartrix_250k/"
    for label, opp, f in (
        ("random", "random", "pairs.csv"),
        ("greedy (most points now, else shed the highest card)", "greedy", "pairs.csv"),
        ("mcts:200 (8 sampled deals, leaves scored by the estimated score gap)", "mcts:200", "pairs.csv"),
        (
            "alphabeta:1 (one ply on the estimated score gap over a sampled deal; a separate measurement, "
            "200 games, `--seed 7`; `pairs_vs_alphabeta1.csv`)",
            "alphabeta:1",
            "pairs_vs_alphabeta1.csv",
        ),
    ):
        add(part, f"| {label} | {{}} / {{}} / {{}} | {{}} [{{}}, {{}}] |", wdl(sf + f, TRAINED, opp), sf + f)
    add(
        part,
        "trained {} [{}, {}], greedy {} [{}, {}], `mcts:200` {} [{}, {}]: in Smartrix",
        elo(sf + "ratings.csv", TRAINED) + elo(sf + "ratings.csv", "greedy") + elo(sf + "ratings.csv", "mcts:200"),
        sf + "ratings.csv",
    )
    add(
        part,
        "greedy beats `mcts:200` {} [{}, {}] and both beat random about {}.",
        score_ci(sf + "pairs.csv", "greedy", "mcts:200") + score(sf + "pairs.csv", "greedy", "random"),
        sf + "pairs.csv",
    )
    add(part, "both beat random about {}.", score(sf + "pairs.csv", "mcts:200", "random"), sf + "pairs.csv")
    add(
        part,
        "had scored {} [{}, {}] against greedy over {} games",
        score_ci(s250 + "pairs.csv", TRAINED, "greedy")
        + [float(_pair(s250 + "pairs.csv", TRAINED, "greedy")["games"])],
        s250 + "pairs.csv",
    )
    quick = "The quick config, `python -m training.train configs/smartrix_quick.yaml`"
    for label, opp in (("random", "random"), ("greedy (most points now, else shed the highest card)", "greedy")):
        add(
            part,
            f"| {label} | {{}} / {{}} / {{}} | {{}} [{{}}, {{}}] |",
            wdl(sq + "pairs.csv", TRAINED, opp),
            sq + "pairs.csv",
            after=quick,
        )
    for label, opp, f in (
        ("random", "random", "pairs.csv"),
        ("greedy", "greedy", "pairs.csv"),
        (
            "alphabeta:1 (one ply on the estimated score gap over a sampled deal; `--seed 7`)",
            "alphabeta:1",
            "pairs_vs_alphabeta1.csv",
        ),
    ):
        add(
            part,
            f"| {label} | {{}} / {{}} / {{}} | {{}} [{{}}, {{}}] |",
            wdl(s250 + f, TRAINED, opp),
            s250 + f,
            after="`results/smartrix_250k/`",
        )
    add(
        part,
        "trained {} [{}, {}], greedy {} [{}, {}].",
        elo(s250 + "ratings.csv", TRAINED) + elo(s250 + "ratings.csv", "greedy"),
        s250 + "ratings.csv",
        after="`results/smartrix_250k/`",
    )

    # Four players.
    part = "**Four players, Smartrix and Tantrix**"
    for game, folder in (("Smartrix", "smartrix_4p_quick/"), ("Tantrix", "tantrix_4p_quick/")):
        add(
            part,
            f"| {game}, trained | {{}} / {{}} / {{}} = {{}} [{{}}, {{}}] | {{}} / {{}} / {{}} = {{}} [{{}}, {{}}] "
            "| {} [{}, {}] | {} [{}, {}] |",
            alone(folder + "alone.json", "trained", "random")
            + alone(folder + "alone.json", "trained", "greedy")
            + score_ci(folder + "pairs_vs_random.csv", TRAINED, "random")
            + score_ci(folder + "pairs_vs_greedy.csv", TRAINED, "greedy"),
            folder + "alone.json, pairs_vs_*.csv",
        )
        add(
            part,
            f"| {game}, greedy (scale) | {{}} / {{}} / {{}} = {{}} [{{}}, {{}}] | | | |",
            alone(folder + "alone.json", "greedy", "random"),
            folder + "alone.json",
        )
        add(
            part,
            f"| {game}, random (scale) | | {{}} / {{}} / {{}} = {{}} [{{}}, {{}}] | | |",
            alone(folder + "alone.json", "random", "greedy"),
            folder + "alone.json",
        )
    add(
        part,
        "(greedy warm start in {} games,",
        pretrain("tantrix_4p_quick/pretrain.json", "games"),
        "tantrix_4p_quick/pretrain.json",
    )

    # Teams.
    part = "**Teams: Tantrix Doubles and Smartrix teams**"
    add(
        part,
        "(4 players, partners opposite share a colour; greedy warm start in {} games,",
        pretrain("tantrix_doubles_quick/pretrain.json", "games"),
        "tantrix_doubles_quick/pretrain.json",
    )
    for config in ("tantrix_doubles_quick", "smartrix_teams_quick"):
        f = config + "/"
        add(
            part,
            f"| `{config}` | {{}} / {{}} / {{}} = {{}} [{{}}, {{}}] | {{}} / {{}} / {{}} = {{}} [{{}}, {{}}] "
            "| {} / {} / {} = {} [{}, {}] |",
            wdl(f + "pairs_vs_random.csv", TRAINED, "random")
            + wdl(f + "pairs_vs_greedy.csv", TRAINED, "greedy")
            + wdl(f + "pairs_greedy_team_vs_random_team.csv", "greedy", "random"),
            f + "pairs_vs_*.csv, pairs_greedy_team_vs_random_team.csv",
        )

    # The Tantrix robot.
    part = "**Tantrix robot**"
    r = "tantrix_robot/"
    for opponent, path in (
        ("random", "vs_random/pairs.csv"),
        ("greedy", "pairs_vs_greedy.csv"),
        ("alphabeta:2", "pairs_vs_alphabeta2.csv"),
    ):
        v = wdl(r + path, "robot", opponent)
        add(
            part,
            f"| 2 players | `{opponent}` | {{}} | {{}} / {{}} / {{}} = {{}} [{{}}, {{}}] |",
            [sum(v[:3])] + v,
            r + path,
        )
    for setting, label in (
        ("3p", "3 players, alone vs 2 greedy"),
        ("4p", "4 players, alone vs 3 greedy"),
        ("doubles", "Doubles, robot team vs greedy team"),
    ):
        v = setting_alone(r + "alone.json", setting)
        add(
            part,
            f"| {label} | `greedy` | {{}} | {{}} / {{}} / {{}} = {{}} [{{}}, {{}}] |",
            [sum(v[:3])] + v,
            r + "alone.json",
        )

    # Learning from the robot (the quick config's checkpoints, measured head to head).
    part = "**Tantrix, learning from the robot**"
    q = "tantrix_robot_quick/"
    add(
        part,
        "warm start: the robot's moves in {} games, {} decisions, {} s to collect and {} s to fit, held-out "
        "agreement with the teacher {}",
        pretrain(q + "pretrain.json", "games", "decisions", "collect_seconds", "clone_seconds", "holdout_agreement"),
        q + "pretrain.json",
    )
    q2 = q + "robot0/"
    add(
        part,
        "without the answering turn, in {} games, {} decisions, {} s to collect and {} s to fit, held-out "
        "agreement with the teacher {}",
        pretrain(q2 + "pretrain.json", "games", "decisions", "collect_seconds", "clone_seconds", "holdout_agreement"),
        q2 + "pretrain.json",
    )
    add(
        part,
        "then {} timesteps of self-play with random, greedy and `robot:0` as the pool's baselines, {} s",
        pretrain(q2 + "report.json", "timesteps", "train_seconds"),
        q2 + "report.json",
    )
    for opp in ("random", "greedy", "robot"):
        add(
            part,
            f"| {opp} | {{}} / {{}} / {{}} = {{}} [{{}}, {{}}] | {{}} / {{}} / {{}} = {{}} [{{}}, {{}}] |",
            wdl(q2 + f"pairs_clone_vs_{opp}.csv", TRAINED, opp) + wdl(q2 + "pairs.csv", TRAINED, opp),
            f"{q2}pairs_clone_vs_{opp}.csv, pairs.csv",
        )
    add(
        part,
        "the robot beat random {} / {} / {} and greedy {} / {} / {} ({})",
        wdl(q2 + "pairs.csv", "robot", "random")[:3] + wdl(q2 + "pairs.csv", "robot", "greedy")[:4],
        q2 + "pairs.csv",
    )
    for label, opp in (("greedy (100 games each)", "greedy"), ("robot (50 games each)", "robot")):
        add(
            part,
            f"| {label} | {{}} / {{}} / {{}} = {{}} [{{}}, {{}}] | {{}} / {{}} / {{}} = {{}} [{{}}, {{}}] |",
            wdl(q + f"pairs_clone_vs_{opp}.csv", TRAINED, opp) + wdl(q + f"pairs_vs_{opp}.csv", TRAINED, opp),
            f"{q}pairs_clone_vs_{opp}.csv, pairs_vs_{opp}.csv",
        )

    out.extend(alphazero_claims())
    out.extend(alphazero_alone_claims())

    # The shipped agents, re-measured from the shipped files (their name is the agent's name).
    part = "**Shipped agents**"
    for name, setting in SHIPPED:
        f = f"shipped/{name}/"
        add(
            part,
            f"| `{name}` | {setting} | {{}} / {{}} / {{}} | {{}} [{{}}, {{}}] | "
            "{} / {} / {} | {} [{}, {}] |",
            wdl(f + "pairs_vs_random.csv", name, "random") + wdl(f + "pairs_vs_greedy.csv", name, "greedy"),
            f + "pairs_vs_random.csv, pairs_vs_greedy.csv",
        )
    return out


#: The opponents of the AlphaZero runs' final tournaments, in the Results table's column order:
#: games of perfect information (part **Gumbel AlphaZero**) ...
AZ_OPPONENTS = ["random", "greedy", "alphabeta:1", "alphabeta:2", "mcts:1000"]
#: ... and games with chance or hidden information (part **Gumbel AlphaZero with chance and hidden
#: hands**; ``robot``: the game's own robot where it has one).
AZ_CHANCE_OPPONENTS = ["random", "greedy", "alphabeta:1", "mcts:200", "robot"]


@functools.cache
def _perfect_information(env_id: str) -> bool:
    """The registry's ``GameInfo.perfect_information`` of ``env_id`` (no game is named here)."""
    sys.path.insert(0, str(RESULTS.parent))
    import envs

    return bool(envs.spec(env_id).game_info().perfect_information)


@functools.cache
def _ppo_agents(env_id: str, kwargs_json: str) -> tuple[str, ...]:
    sys.path.insert(0, str(RESULTS.parent))
    from training.agents.shipped import shipped_for

    return tuple(a.name for a in shipped_for(env_id, json.loads(kwargs_json)) if a.engine == "sb3")


def _has_ppo_agent(env_id: str, env_kwargs: dict) -> bool:
    """Whether a MaskablePPO agent of this setting ships with the package (``shipped_for``)."""
    return bool(_ppo_agents(env_id, json.dumps(env_kwargs, sort_keys=True)))


def _alphazero_part(env_id: str) -> tuple[str, list[str]]:
    """The Results part of an AlphaZero run of ``env_id`` and its table's opponents."""
    if _perfect_information(env_id):
        return "**Gumbel AlphaZero**", AZ_OPPONENTS
    return "**Gumbel AlphaZero with chance and hidden hands**", AZ_CHANCE_OPPONENTS


def alphazero_claims() -> list[Claim]:
    """The AlphaZero parts: **Gumbel AlphaZero** (games of perfect information, opponents
    :data:`AZ_OPPONENTS`) and **Gumbel AlphaZero with chance and hidden hands** (the others, by the
    registry's ``GameInfo``; opponents :data:`AZ_CHANCE_OPPONENTS`). Per run folder of
    ``results/alphazero/``: one table row (its gauntlet's scores with intervals, its positions and
    training minutes; the last column the PPO agent of the setting, or that there is none), the Elo
    ladder of each run that has one (its ``ladder/``: the gauntlet and the opponents' round robin
    rated together; else, where the gauntlet played random, the gauntlet's own), further
    tournaments of the same agent (``vs_*/``), and the learning curve's points against greedy and
    the PPO agent."""
    out: list[Claim] = []
    root = RESULTS / "alphazero"
    for folder in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        name = folder.name
        config, _, seed = name.rpartition("-")
        run = json.loads((folder / "run.json").read_text())
        part, opponents = _alphazero_part(run["env_id"])
        about = json.loads((folder / "about.json").read_text())
        pairs = f"alphazero/{name}/gauntlet/pairs.csv"
        played = {r["opponent"] for r in _rows(pairs) if _is(r["agent"], AZ)}
        ppo = sorted(played - set(opponents))
        if len(ppo) > 1:
            raise LookupError(f"{pairs}: expected at most one PPO opponent besides {opponents}, got {ppo}")
        values = [run["positions"], run["train_seconds"] / 60, about["simulations"]]
        cells = []
        for opp in opponents:
            if opp in played:
                values += score_ci(pairs, AZ, opp)
                cells.append("{} [{}, {}]")
            else:
                cells.append("not played")
        if ppo:
            values += score_ci(pairs, AZ, ppo[0])
            cells.append(f"{{}} [{{}}, {{}}] (`{ppo[0]}`)")
        elif _has_ppo_agent(run["env_id"], run.get("env_kwargs") or {}):
            cells.append("not played")
        else:
            cells.append("no PPO agent of this setting")
        out.append(
            Claim(
                part,
                f"| `{config}` | {seed} | {{}} | {{}} min | {{}} | " + " | ".join(cells) + " |",
                [float(v) for v in values],
                pairs + ", run.json, about.json",
                formats=["{:,.0f}", "{:.1f}", "{:.0f}"] + ["{:.3f}"] * (len(values) - 3),
            )
        )
        ladder_file = folder / "ladder" / "ratings.csv"
        if "random" in played and not ladder_file.exists():  # a full gauntlet without ladder/: its own Elo
            ratings = f"alphazero/{name}/gauntlet/ratings.csv"
            ladder = [("the AlphaZero agent", AZ)] + [(f"`{o}`", o) for o in opponents[1:] + ppo if o in played]
            out.append(
                Claim(
                    part,
                    f"Elo of `{config}` seed {seed} (random = 0): "
                    + ", ".join(f"{label} {{}} [{{}}, {{}}]" for label, _ in ladder),
                    [v for _, who in ladder for v in elo(ratings, who)],
                    ratings,
                    formats=["{:+.0f}"] * (3 * len(ladder)),
                )
            )
        if ladder_file.exists():  # the gauntlet and the opponents' round robin, rated together
            ratings = f"alphazero/{name}/ladder/ratings.csv"
            rows = _rows(ratings)
            out.append(
                Claim(
                    part,
                    f"Ladder of `{config}` seed {seed} (the gauntlet and the opponents' round robin of "
                    f"{{}} games a pair, random = 0): "
                    + ", ".join(f"{_ladder_label(r['name'])} {{}} [{{}}, {{}}]" for r in rows),
                    [float(_ladder_games(folder))] + [v for r in rows for v in elo(ratings, r["name"])],
                    ratings,
                    formats=["{:.0f}"] + ["{:+.0f}"] * (3 * len(rows)),
                )
            )
        for extra in sorted(folder.glob("vs_*/pairs.csv")):  # further tournaments of the same final.pt
            rel = f"alphazero/{name}/{extra.parent.name}/pairs.csv"
            for r in _rows(rel):
                if _is(r["agent"], AZ) or _ships_this_run(r["agent"], about.get("final_sha256")):
                    # az:PATH[:SIMS][:considered=M][:value_scale=X][:heuristic_weight=W][:heuristic=NAME]
                    # names its simulations and overrides, as does a shipped agent's name made from this
                    # folder's final.pt (NAME[:SIMS])
                    parts = [p for p in r["agent"].rpartition(".pt")[2].split(":") if p]
                    sims = [p for p in parts if p.isdigit()]
                    at = f" at {sims[0]} simulations" if sims else ""
                    overrides = [p for p in parts if "=" in p]
                    at += f" with {', '.join(overrides)}" if overrides else ""
                    # az_results.py --against writes settings.json: its openings; pairs.csv counts distinct games
                    extra_about = extra.parent / "settings.json"
                    plies = json.loads(extra_about.read_text()).get("opening_plies", 0) if extra_about.exists() else 0
                    opening, opening_values = "", []
                    if plies:
                        opening = " from openings of {} random plies ({} distinct games)"
                        opening_values = [float(plies), float(r["distinct_games"])]
                    out.append(
                        Claim(
                            part,
                            f"`{config}` seed {seed}{at} against `{r['opponent']}`{opening}: "
                            "{} / {} / {} = {} [{}, {}]",
                            opening_values + wdl(rel, r["agent"], r["opponent"]),
                            rel + (", settings.json" if plies else ""),
                            formats=["{:.0f}"] * (3 + len(opening_values)) + ["{:.3f}"] * 3,
                        )
                    )
        curve = folder / "curve.csv"
        if curve.exists():
            with curve.open(newline="") as f:
                rows = list(csv.DictReader(f))
            cells = []
            values = []
            # greedy and the setting's PPO agent (the gauntlet's, else a shipped one the curve played), where played
            curve_ppo = ppo or list(_ppo_agents(run["env_id"], json.dumps(run.get("env_kwargs") or {}, sort_keys=True)))
            against = [o for o in ("greedy", *curve_ppo) if rows and f"score_vs_{o}" in rows[0]]
            for r in rows:
                cells.append("{} min: " + " and ".join(["{} [{}, {}]"] * len(against)))
                values += [float(r["elapsed_s"]) / 60]
                for opp in against:
                    values += [float(r[f"{k}_vs_{opp}"]) for k in ("score", "ci95_low", "ci95_high")]
            plies = about.get("curve_opening_plies", 0)  # az_results.py --opening-plies
            openings = f", from openings of {plies} random plies" if plies else ""
            out.append(
                Claim(
                    part,
                    f"Curve of `{config}` seed {seed} (against {' and '.join(_curve_labels(against))}{openings}): "
                    + "; ".join(cells),
                    values,
                    f"alphazero/{name}/curve.csv",
                    formats=(["{:.1f}"] + ["{:.3f}"] * (3 * len(against))) * len(rows),
                )
            )
    return out


def alphazero_alone_claims() -> list[Claim]:
    """The "alone" measures of AlphaZero runs of games of more than two sides
    (``results/alphazero_alone/<NAME>/alone.json``, :mod:`results.az_alone`): the agent in one seat,
    an opponent in every other, one passage per opponent, in the part of the run's game (as in
    :func:`alphazero_claims`)."""
    out: list[Claim] = []
    root = RESULTS / "alphazero_alone"
    for folder in sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []:
        config, _, seed = folder.name.rpartition("-")
        run = json.loads((folder / "run.json").read_text())
        part, _ = _alphazero_part(run["env_id"])
        rel = f"alphazero_alone/{folder.name}/alone.json"
        for r in json.loads((RESULTS / rel).read_text()):
            out.append(
                Claim(
                    part,
                    f"`{config}` seed {seed} alone against `{r['opponent_in_other_seats']}` in every other seat "
                    f"({{}} simulations, {{}} games): {{}} / {{}} / {{}} = {{}} [{{}}, {{}}]",
                    [float(r[k]) for k in ("simulations", "games", "wins", "draws", "losses", "score")]
                    + [float(r["score_ci95_low"]), float(r["score_ci95_high"])],
                    rel,
                    formats=["{:.0f}"] * 5 + ["{:.3f}"] * 3,
                )
            )
    return out


def _ladder_label(name: str, plain: tuple[str, ...] = ()) -> str:
    """How the Results page names an agent in a ladder or curve line: the trained agent in words,
    the others in backticks, except those in ``plain`` (the curve lines' ``greedy``)."""
    if _is(name, AZ):
        return "the AlphaZero agent"
    return name if name in plain else f"`{name}`"


def _curve_labels(against: list[str]) -> list[str]:
    return [_ladder_label(o, ("greedy",)) for o in against]


def _ladder_games(folder: Path) -> int:
    """The games a pair of a results folder's ladder round robin (``ladder/pairs.csv``: every pair
    must have the same number)."""
    games = {int(r["games"]) for r in _rows(str((folder / "ladder" / "pairs.csv").relative_to(RESULTS)))}
    if len(games) != 1:
        raise LookupError(f"{folder}/ladder/pairs.csv: pairs of {sorted(games)} games, expected one number")
    return games.pop()


def _report(path: str, *keys: str) -> float:
    """The number at ``keys`` (nested) of a JSON file under ``results/``."""
    d = json.loads((RESULTS / path).read_text())
    for k in keys:
        d = d[k]
    return float(d)


def page_claims() -> dict[str, list[Claim]]:
    """The figures of the site's other pages that a file in ``results/`` backs, by page (its path
    from the repository root). The part of such a claim is a text at the start of a line of the
    page, and the passage is looked for from there to the next line that starts in bold."""
    quiet, busy = "rllib/ataxx_rllib_quiet/report.json", "rllib/ataxx_rllib/report.json"
    part = "The quick Ataxx config"

    def vs(path: str, opponent: str) -> list[float]:
        return [_report(path, "vs", opponent, k) for k in ("score", "score_ci95_low", "score_ci95_high")]

    seeds = "seeds/ataxx_quick/seed0/pairs.csv"
    over = over_seeds("ataxx_quick")  # greedy: mean, min, max at 3, 4, 5
    return {
        "README.md": [
            Claim(
                "## Reproducibility",
                "(0.580 against greedy, published {})",
                wdl(seeds, TRAINED, "greedy")[3:4],
                seeds,
            ),
        ],
        "docs/getting-started.md": [
            Claim(
                "[final_eval] 200 games",
                "vs greedy score {} [95% {}, {}] (W {} / D {} / L {} of 200)",
                wdl(seeds, TRAINED, "greedy")[3:] + wdl(seeds, TRAINED, "greedy")[:3],
                f"{seeds} (the main job of 5 December trained the same weights)",
            ),
        ],
        "docs/reproducibility.md": [
            Claim(
                "And on the project's machine of 5 December",
                "({} / {} / {} against greedy: {})",
                wdl(seeds, TRAINED, "greedy")[:4],
                seeds,
            ),
            Claim(
                "**Another processor need not.**",
                "where the published run scored **{}**",
                wdl(seeds, TRAINED, "greedy")[3:4],
                seeds,
            ),
            Claim(
                "**Hence results over seeds.**",
                "interval ({} [{}, {}], {} games), though below the three seeds' range ({} to {})",
                wdl(seeds, TRAINED, "greedy")[3:] + [float(_pair(seeds, TRAINED, "greedy")["games"]), over[4], over[5]],
                f"{seeds}, seeds/ataxx_quick/seed*/",
            ),
        ],
        "docs/training/rllib.md": [
            Claim(
                part,
                "({} s of training for {} timesteps",
                [_report(quiet, "train_seconds"), _report(quiet, "timesteps")],
                quiet,
            ),
            Claim(
                part,
                "{} env steps/s sampling, {} with the PPO updates",
                [
                    _report(quiet, "throughput", "sampling_env_steps_per_s"),
                    _report(quiet, "throughput", "env_steps_per_s"),
                ],
                quiet,
            ),
            Claim(
                part,
                "scoring **{} [{}, {}] against random** and {} [{}, {}] against greedy",
                vs(quiet, "random") + vs(quiet, "greedy"),
                quiet,
            ),
            Claim(
                part,
                "and scored {} and {} [{}, {}] (`results/rllib/ataxx_rllib/`)",
                vs(busy, "random")[:1] + vs(busy, "greedy"),
                busy,
            ),
        ],
    }


# --------------------------------------------------------------------------- checking


def results_section(text: str) -> str:
    """The Results page's text: a page titled ``# Results`` whole, or else a ``## Results`` section
    (to the next ``## `` heading) of a longer Markdown file.

    Raises:
        ValueError: the text has neither.
    """
    if text.startswith("# Results\n"):
        return "\n" + text
    start = text.find("\n## Results\n")
    if start < 0:
        raise ValueError("the page has no '# Results' title and no '## Results' section")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else len(text)]


def part_span(section: str, part: str) -> tuple[int, int]:
    """Where ``part`` (a bold heading, or "In short", at the start of a line: the same words inside
    a sentence are a reference to it) begins and the next bold heading begins."""
    start = section.find("\n" + part)
    start = start + 1 if start >= 0 else -1
    if start < 0:
        raise LookupError(f"the Results section has no part {part!r}")
    end = section.find("\n**", start + len(part))
    return start, end if end >= 0 else len(section)


def template_regex(template: str) -> re.Pattern:
    """The template as a regex: ``{}`` a captured number, any whitespace run any whitespace run."""
    pieces = template.split("{}")
    rx = f"({NUMBER})".join(re.sub(r"(\\\s)+|\s+", r"\\s+", re.escape(p)) for p in pieces)
    return re.compile(rx)


def matches(printed: str, value: float) -> bool:
    """``printed`` (as on the page) equals ``value`` to the printed precision."""
    text = printed.replace(",", "")
    decimals = len(text.split(".")[1]) if "." in text else 0
    return abs(float(text) - value) <= 0.5 * 10**-decimals + 1e-9


def check(
    readme_text: str, page_claims_: list[Claim] | None = None
) -> tuple[list[str], list[str], list[tuple[int, int]]]:
    """Check every claim of the Results page (or ``page_claims_`` against another page's whole text).

    Returns:
        ``(passed, problems, spans)``: one line per claim that matched, one per mismatch (the
        passage, the number, the file), and the checked spans of the section (for ``--unchecked``).
    """
    section = results_section(readme_text) if page_claims_ is None else "\n" + readme_text
    passed, problems, spans = [], [], []
    for c in claims() if page_claims_ is None else page_claims_:
        if c.template.count("{}") != len(c.values):
            problems.append(
                f"{c.source}: the template has {c.template.count('{}')} numbers, the claim "
                f"{len(c.values)} values: {c.template!r}"
            )
            continue
        try:
            lo, hi = part_span(section, c.part)
        except LookupError as e:
            problems.append(str(e))
            continue
        if c.after:
            at = section.find(c.after, lo, hi)
            if at < 0:
                problems.append(f"part {c.part!r} of the Results section has no {c.after!r} [{c.source}]")
                continue
            lo = at
        m = template_regex(c.template).search(section, lo, hi)
        if m is None:
            problems.append(
                f"not found in part {c.part!r} of the Results section (was it reworded, or a figure "
                f"written differently?): {c.template!r} [{c.source}]"
            )
            continue
        spans.append(m.span())
        bad = [
            f"{printed} where {c.source} gives {value:g}"
            for printed, value in zip(m.groups(), c.values)
            if not matches(printed, value)
        ]
        if bad:
            problems.append(f"mismatch in {m.group(0)!r}: " + "; ".join(bad))
        else:
            passed.append(f"ok  {' '.join(m.group(0).split())[:110]}  [{c.source}]")
    return passed, problems, spans


def unchecked_numbers(readme_text: str, spans: list[tuple[int, int]]) -> list[str]:
    """The numbers of the Results section outside every checked passage, with a little context."""
    section = results_section(readme_text)
    out = []
    for m in re.finditer(NUMBER, section):
        if any(a <= m.start() < b for a, b in spans):
            continue
        before = section[max(0, m.start() - 1)]
        if before.isalnum() or before in ":_/":  # part of a name: mcts:200, ataxx_v0, results/...
            continue
        context = " ".join(section[max(0, m.start() - 40) : m.end() + 20].split())
        out.append(f"{m.group(0)}   ...{context}...")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python results/check_readme.py", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--page",
        "--readme",
        dest="page",
        default=str(PAGE),
        help="the Markdown page to check (default: docs/results.md)",
    )
    parser.add_argument("--unchecked", action="store_true", help="list the section's numbers that no claim covers")
    parser.add_argument("--quiet", action="store_true", help="print only the mismatches")
    args = parser.parse_args(argv)
    try:
        text = Path(args.page).read_text()
        passed, problems, spans = check(text)
        if Path(args.page).resolve() == PAGE:  # the repository's own pages: the other pages too
            for page, page_list in page_claims().items():
                more_passed, more_problems, _ = check((RESULTS.parent / page).read_text(), page_list)
                passed += [f"{line}  ({page})" for line in more_passed]
                problems += [f"{line}  ({page})" for line in more_problems]
    except (OSError, ValueError, LookupError, KeyError) as e:  # the page or a results file missing or unreadable
        print(f"error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    if not args.quiet:
        print("\n".join(passed))
    if args.unchecked:
        left = unchecked_numbers(text, spans)
        print(f"\n{len(left)} numbers of the Results section are not checked against a file:")
        print("\n".join("  " + line for line in left))
    for p in problems:
        print("MISMATCH " + p)
    n = len(passed) + len(problems)
    print(f"{len(passed)} of {n} passages match their files" + (f"; {len(problems)} do not" if problems else ""))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
