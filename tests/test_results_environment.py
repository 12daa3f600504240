"""``results/environment.py``: every published run folder of ``results/`` has its software-and-machine
record (``environment.json``) with the keys of ``report.json``'s ``environment`` block; an earlier run's
record holds only what its own files state (never this machine's values); a run that wrote the block
gets it as written."""

from __future__ import annotations

import importlib.util
import json
import re

import pytest

from conftest import REPO_ROOT
from training.environment import PACKAGES, Environment, environment

RESULTS = REPO_ROOT / "results"


@pytest.fixture(scope="module")
def rec():
    """results/environment.py as a module (results/ is not a package)."""
    spec = importlib.util.spec_from_file_location("results_environment", RESULTS / "environment.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_published_run_folder_has_its_record(rec):
    folders = rec.run_folders()
    names = {f.relative_to(RESULTS).as_posix() for f in folders}
    # the kinds of run the README publishes are all found (and a run's own tournaments are not runs)
    assert {"ataxx_full", "seeds/ataxx_quick/seed0", "seeds/ataxx_quick/alone", "alphazero/ataxx_az-0",
            "rllib/ataxx_rllib", "shipped/ataxx_quick", "vector_seeds/before/ataxx_quick/seed3",
            "tantrix_robot_quick/robot0"} <= names  # fmt: skip
    assert not any(n.endswith(("/gauntlet", "/vs_alphabeta3")) or n.startswith("pictures") for n in names)
    assert len(folders) >= 59
    assert rec.check() == {}, "run `python results/environment.py` to write the missing records"
    for folder in folders:
        record = json.loads((folder / rec.RECORD).read_text())
        assert set(record) == set(Environment.__required_keys__) | {"recorded", "note"}, folder
        assert set(record["packages"]) == set(PACKAGES), folder
        assert record["recorded"] in (rec.BY_RUN, rec.AFTERWARDS)


def test_an_earlier_runs_record_holds_only_what_its_files_state(rec):
    """No record written afterwards holds a value of the machine that wrote it."""
    for folder in rec.run_folders():
        record = json.loads((folder / rec.RECORD).read_text())
        if record["recorded"] != rec.AFTERWARDS:
            continue
        assert record == rec.past_record(folder), folder  # as the script makes it from the files
        assert set(record["packages"].values()) == {None}
        assert record["python"] is None and record["implementation"] is None
        assert set(record["os"].values()) == {None} and set(record["processor"].values()) == {None}
        assert record["threads"]["torch"] is None
        assert "Not recorded" in record["note"]


def test_the_stated_commits_are_in_the_files_they_cite(rec):
    for pattern, commit, _dirty, where in rec.STATED_COMMITS:
        if where.startswith("results/"):
            source = REPO_ROOT / where.split(":")[0].split(" ")[0]
        else:  # "its command.txt": the folder's own
            source = RESULTS / pattern / "command.txt"
        assert re.search(rf"\b{commit}\b", source.read_text()), (pattern, commit, source)
        assert any(f.relative_to(RESULTS).match(pattern) for f in rec.run_folders()), pattern


def _folder(root, name, files):
    folder = root / name
    folder.mkdir(parents=True)
    for fname, text in files.items():
        (folder / fname).write_text(text)
    return folder


def test_a_run_that_wrote_the_block_gets_it_and_a_missing_record_is_reported(rec, tmp_path):
    block = json.loads(json.dumps(environment(torch_threads=1)))
    new = _folder(tmp_path, "new_run", {"report.json": json.dumps({"vs": {}, "environment": block}), "pairs.csv": ""})
    old = _folder(tmp_path, "old_run", {"pairs.csv": "", "ratings.csv": "", "config.yaml": "torch_threads: 2\n"})
    _folder(old, "gauntlet", {"pairs.csv": ""})  # the run's own tournament, not a run
    az = _folder(tmp_path, "alphazero/x-0", {"run.json": json.dumps({"environment": block})})
    _folder(tmp_path, "pictures", {"ratings.csv": ""})
    assert rec.run_folders(tmp_path) == [az, new, old]
    assert set(rec.check(tmp_path)) == {"alphazero/x-0", "new_run", "old_run"}
    assert rec.write(tmp_path) == [f / rec.RECORD for f in (az, new, old)]
    assert rec.check(tmp_path) == {} and rec.write(tmp_path) == []  # kept unless --overwrite
    written = json.loads((new / rec.RECORD).read_text())
    assert written == {**block, "recorded": rec.BY_RUN, "note": "as the run wrote it in its report.json"}
    assert json.loads((az / rec.RECORD).read_text())["packages"] == block["packages"]
    past = json.loads((old / rec.RECORD).read_text())
    assert past["recorded"] == rec.AFTERWARDS and past["threads"] == {"torch": None, "config": 2}
    assert past["packages"]["torch"] is None and past["processor"]["model"] is None
    # a record that lost a key is reported
    (old / rec.RECORD).write_text(json.dumps({k: v for k, v in past.items() if k != "processor"}))
    assert rec.check(tmp_path) == {"old_run": ["no processor", "processor is not an object"]}
    (new / rec.RECORD).unlink()
    assert rec.check(tmp_path)["new_run"] == [f"no {rec.RECORD}"]
