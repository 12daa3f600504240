"""Write (or check) the software-and-machine record, ``environment.json``, of every published run in ``results/``.

Usage (from the repository root)::

    python results/environment.py           # write the record of each run folder that lacks one
    python results/environment.py --check   # list the run folders without a complete record; exit 1 if any

A run folder (:func:`run_folders`) is a folder of ``results/`` that holds a run's published files:
its own description (``report.json``, ``run.json``, ``about.json``, ``config.yaml`` or
``run_config.yaml``), or result files (``pairs*.csv``, ``ratings*.csv``,
``learning_curve.png``, ``curve.csv``, ``alone.json``) outside any other run folder (the
``gauntlet/`` and ``vs_*/`` tournaments of a run are the run's).

Its record has the keys of ``report.json``'s ``environment`` block
(:class:`training.environment.Environment`: ``packages``, ``commit``, ``dirty``, ``python``,
``implementation``, ``os``, ``processor``, ``threads``) and two more: ``recorded`` (who wrote the
values: ``"by the run"`` or ``"afterwards, from the run's files"``) and ``note``.

* A run whose ``report.json`` (or ``run.json``, :mod:`results.az_results`) has the
  ``environment`` block (every run since that block exists) gets that block, as the run wrote it.
* An earlier run gets only what its own files record: the code commit where its
  ``command.txt`` or the folder's README says it, or where its weights are a shipped agent's
  (``training/shipped/index.json``); the config's ``torch_threads`` where its resolved config is
  here. Everything else is ``None`` (not recorded): those runs were made before ``report.json``
  recorded its environment, maybe on another machine, so this machine's values are never filled in.

Existing records are kept (``--overwrite`` rewrites them). ``tests/test_results_files.py`` checks that
every run folder has a complete record.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from pathlib import Path

import yaml

from training.environment import PACKAGES, Environment, Processor

RESULTS = Path(__file__).resolve().parent
REPO = RESULTS.parent
RECORD = "environment.json"

#: Files that describe one run: a folder holding one is a run folder, even inside another's.
DESCRIPTORS = ("report.json", "run.json", "about.json", "config.yaml", "run_config.yaml")
#: Result files: a folder holding one outside any run folder is a run folder.
RESULT_FILES = ("pairs*.csv", "ratings*.csv", "learning_curve.png", "curve.csv", "alone.json")

#: The keys of ``report.json``'s ``environment`` block (training.environment.Environment), and
#: those of its nested entries, which every record has.
ENVIRONMENT_KEYS = tuple(sorted(Environment.__required_keys__))
PROCESSOR_KEYS = tuple(sorted(Processor.__required_keys__))
THREADS_KEYS = ("torch", "config")
OS_KEYS = ("system", "release", "platform")
#: Every record's keys.
RECORD_KEYS = (*ENVIRONMENT_KEYS, "recorded", "note")

BY_RUN = "by the run"
AFTERWARDS = "afterwards, from the run's files"

#: The code commits that earlier runs' own files state: (folder pattern under results/, commit,
#: dirty, where it is written). The first matching pattern holds.
STATED_COMMITS: tuple[tuple[str, str, bool | None, str], ...] = (
    ("seeds/smartrix_quick/alone", "a15ae94", True,
     "results/seeds/command.txt: commit a15ae94 plus the opponent check committed next as d373742"),
    ("seeds/*/alone", "f5aef8f", None, "results/seeds/command.txt"),
    ("seeds/*/seed*", "c310494", None, "results/seeds/command.txt"),
    ("vector_seeds/before/ataxx_quick/seed*", "b9fbf9c", None, "results/vector_seeds/README.md"),
    ("vector_seeds/ataxx_quick/seed[012]", "5592bf0", None, "results/vector_seeds/README.md"),
    ("rllib/ataxx_rllib", "2caacd3", None, "its command.txt (branch rllib-core)"),
    ("rllib/ataxx_rllib_quiet", "6727266", None, "its command.txt"),
    ("tantrix_robot_quick", "6500dfb", None, "its command.txt (branch robot-student)"),
)  # fmt: skip


def _has(folder: Path, patterns) -> bool:
    return any(p.is_file() and any(fnmatch.fnmatch(p.name, pat) for pat in patterns) for p in folder.iterdir())


def run_folders(root: Path = RESULTS) -> list[Path]:
    """The run folders under ``root`` (see the module docstring), sorted; ``pictures/`` and hidden
    folders are not runs."""
    found: list[Path] = []

    def walk(folder: Path, inside_run: bool) -> None:
        for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
            if sub.name.startswith((".", "__")) or (folder == root and sub.name == "pictures"):
                continue
            is_run = _has(sub, DESCRIPTORS) or (not inside_run and _has(sub, RESULT_FILES))
            if is_run:
                found.append(sub)
            walk(sub, inside_run or is_run)

    walk(root, False)
    return found


def _empty_environment() -> dict:
    """The record's fields, all unknown (``None``)."""
    return {
        "packages": {name: None for name in PACKAGES},
        "commit": None,
        "dirty": None,
        "python": None,
        "implementation": None,
        "os": {key: None for key in OS_KEYS},
        "processor": {key: None for key in PROCESSOR_KEYS},
        "threads": {key: None for key in THREADS_KEYS},
    }


def _run_environment(folder: Path) -> dict | None:
    """The ``environment`` block the run itself wrote (its ``report.json`` or ``run.json``), or None."""
    for name in ("report.json", "run.json"):
        path = folder / name
        if path.is_file():
            block = json.loads(path.read_text()).get("environment")
            if block is not None:
                return block
    return None


def _shipped_commits() -> dict[str, tuple[str, str]]:
    """``{sha256 of a trained file: (agent name, commit)}`` of the shipped agents."""
    index = json.loads((REPO / "training" / "shipped" / "index.json").read_text())
    out = {}
    for agent in index["agents"]:
        for key in ("sha256", "source_sha256"):
            if agent.get(key):
                out[agent[key]] = (agent["name"], agent["commit"])
    return out


def past_record(folder: Path, root: Path = RESULTS) -> dict:
    """The record of a run made before ``report.json`` recorded its environment: what its own files
    state (commit, the config's ``torch_threads``), ``None`` for the rest."""
    record = _empty_environment()
    rel = folder.relative_to(root).as_posix()
    sources = []
    for pattern, commit, dirty, where in STATED_COMMITS:
        if fnmatch.fnmatch(rel, pattern):
            record["commit"], record["dirty"] = commit, dirty
            sources.append(f"commit from {where}")
            break
    about = folder / "about.json"
    if record["commit"] is None and about.is_file():
        info = json.loads(about.read_text())
        digest = info.get("final_sha256") or info.get("sha256")
        shipped = _shipped_commits().get(digest) if digest else None
        if shipped is not None:
            name, commit = shipped
            if "final_sha256" in info:  # the run's own weights are the shipped agent's
                record["commit"] = commit
                sources.append(f"commit from training/shipped/index.json (its weights are the shipped {name})")
            else:  # an evaluation of a shipped agent: the training run's commit, not the evaluation's
                sources.append(
                    f"the agent evaluated here was trained at commit {commit[:7]} (training/shipped/index.json); "
                    "the evaluation's own code commit is not recorded"
                )
    for name in ("config.yaml", "run_config.yaml"):
        path = folder / name
        if path.is_file():
            cfg = yaml.safe_load(path.read_text()) or {}
            if "torch_threads" in cfg:
                record["threads"]["config"] = cfg["torch_threads"]
                sources.append(f"threads.config from {name}")
                break
    record["recorded"] = AFTERWARDS
    record["note"] = (
        "Not recorded (null): this run was made before report.json recorded the library versions, Python, "
        "OS, processor and threads of its machine, maybe on another machine; those values were not written "
        "down and are left unknown."
        + (" Stated by its files: " + "; ".join(sources) + "." if sources else " Its files state none of them.")
    )
    return record


def record_for(folder: Path, root: Path = RESULTS) -> dict:
    """The record of one run folder: the run's own ``environment`` block when it wrote one, else
    :func:`past_record`."""
    block = _run_environment(folder)
    if block is not None:
        return {**block, "recorded": BY_RUN, "note": "as the run wrote it in its report.json"}
    return past_record(folder, root)


def record_problems(record: object) -> list[str]:
    """What a record lacks (missing keys, a block that is not a dict); empty when complete."""
    if not isinstance(record, dict):
        return ["not a JSON object"]
    found = [f"no {key}" for key in RECORD_KEYS if key not in record]
    for key, keys in (
        ("packages", PACKAGES),
        ("processor", PROCESSOR_KEYS),
        ("threads", THREADS_KEYS),
        ("os", OS_KEYS),
    ):
        block = record.get(key)
        if not isinstance(block, dict):
            found.append(f"{key} is not an object")
        else:
            found += [f"no {key}.{k}" for k in keys if k not in block]
    return found


def check(root: Path = RESULTS) -> dict[str, list[str]]:
    """``{run folder: problems}`` of the run folders whose record is missing or incomplete."""
    bad = {}
    for folder in run_folders(root):
        path = folder / RECORD
        if not path.is_file():
            bad[folder.relative_to(root).as_posix()] = [f"no {RECORD}"]
            continue
        try:
            problems = record_problems(json.loads(path.read_text()))
        except json.JSONDecodeError as e:
            problems = [f"not JSON: {e}"]
        if problems:
            bad[folder.relative_to(root).as_posix()] = problems
    return bad


def write(root: Path = RESULTS, overwrite: bool = False) -> list[Path]:
    """Write the record of every run folder that lacks one (every one with ``overwrite``); return
    the files written."""
    written = []
    for folder in run_folders(root):
        path = folder / RECORD
        if path.exists() and not overwrite:
            continue
        path.write_text(json.dumps(record_for(folder, root), indent=1) + "\n")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="list the run folders without a complete record")
    parser.add_argument("--overwrite", action="store_true", help="rewrite the existing records too")
    args = parser.parse_args(argv)
    if args.check:
        bad = check()
        for folder, problems in bad.items():
            print(f"results/{folder}: {'; '.join(problems)}")
        print(f"{len(run_folders()) - len(bad)} of {len(run_folders())} run folders have a complete {RECORD}")
        return 1 if bad else 0
    for path in write(overwrite=args.overwrite):
        print(f"wrote {path.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
