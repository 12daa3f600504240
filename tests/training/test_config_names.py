"""Configs by name: the shipped configs (configs/, installed as training/configs/), found by their
name as well as by a path (training.config.resolve_config), listed by ``--list`` with their budgets
and measured times (each config's ``measured`` section)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pydantic")
pytest.importorskip("yaml")

import training.config as config_module  # noqa: E402
from conftest import REPO_ROOT  # noqa: E402
from training.config import (  # noqa: E402
    ConfigError,
    configs_dir,
    load_config,
    resolve_config,
    shipped_configs,
)

CONFIGS = REPO_ROOT / "configs"
NAMES = sorted(p.stem for p in CONFIGS.glob("*.yaml"))


def _train(*args: str, cwd: Path = REPO_ROOT):
    """``python -m training.train ARGS`` in a subprocess (the package from this checkout)."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "training.train", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


# --------------------------------------------------------------------------- where they are, by name


def test_a_checkout_reads_its_own_configs_folder():
    assert configs_dir() == CONFIGS  # no training/configs/ in a checkout: the top-level folder
    assert list(shipped_configs()) == NAMES and len(NAMES) >= 20
    assert all(p == CONFIGS / f"{n}.yaml" for n, p in shipped_configs().items())


def test_an_installed_package_reads_its_package_data_first(tmp_path, monkeypatch):
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "mine.yaml").write_text("env_id: ataxx_v0\n")
    (tmp_path / "configs" / "notes.txt").write_text("not a config")
    monkeypatch.setattr(config_module.resources, "files", lambda package: tmp_path)  # a wheel's training/
    assert configs_dir() == tmp_path / "configs"
    assert shipped_configs() == {"mine": tmp_path / "configs" / "mine.yaml"}
    assert resolve_config("mine") == tmp_path / "configs" / "mine.yaml"


def test_no_configs_folder_at_all_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setattr(config_module.resources, "files", lambda package: tmp_path / "site-packages" / "training")
    monkeypatch.setattr(config_module, "__file__", str(tmp_path / "elsewhere" / "training" / "config.py"))
    with pytest.raises(FileNotFoundError, match="the shipped configs are missing: neither .* reinstall tabletop-rl"):
        configs_dir()


def test_a_name_finds_the_shipped_config_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no configs/ here
    assert resolve_config("ataxx_quick") == CONFIGS / "ataxx_quick.yaml"
    by_name = load_config("ataxx_quick", validate=False)
    by_path = load_config(CONFIGS / "ataxx_quick.yaml", validate=False)
    assert by_name.name == "ataxx_quick" and by_name.to_dict() == by_path.to_dict()


def test_a_path_works_as_before_and_an_existing_file_wins_over_a_name(tmp_path, monkeypatch):
    monkeypatch.chdir(REPO_ROOT)
    assert resolve_config("configs/ataxx_quick.yaml") == Path("configs/ataxx_quick.yaml")
    assert resolve_config(CONFIGS / "twixt_quick.yaml") == CONFIGS / "twixt_quick.yaml"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ataxx_quick").write_text("env_id: twixt_v0\nenv_kwargs: {board_size: 8}\n")
    assert resolve_config("ataxx_quick") == Path("ataxx_quick")  # the file here, not the shipped one
    assert load_config("ataxx_quick", validate=False).env_id == "twixt_v0"


@pytest.mark.parametrize(
    "given, message",
    [
        (
            "configs/ataxx_quick.yml",
            "config file configs/ataxx_quick.yml does not exist (a shipped config has its name: "
            "give ataxx_quick instead of the path)",
        ),
        (
            "elsewhere/ataxx_quick.yaml",
            "config file elsewhere/ataxx_quick.yaml does not exist (a shipped config has "
            "its name: give ataxx_quick instead of the path)",
        ),
        ("mine.yaml", "config file mine.yaml does not exist"),
        ("runs/x/config.yaml", "config file runs/x/config.yaml does not exist"),
    ],
)
def test_a_missing_path_is_not_taken_for_a_name(tmp_path, monkeypatch, given, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as info:
        resolve_config(given)
    assert str(info.value) == message


def test_an_unknown_name_lists_the_names_closest_first(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as info:
        load_config("atax_quick")
    text = str(info.value)
    assert text.startswith(
        "config 'atax_quick' is neither a file nor the name of a shipped config; the shipped configs, closest "
        "first: ataxx_quick, "
    )
    listed = text.split(": ", 1)[1].split(" (their budgets: --list)")[0].split(", ")
    assert sorted(listed) == NAMES  # every name, once
    with pytest.raises(FileNotFoundError) as info:
        resolve_config("zzz")
    assert str(info.value) == (
        "config 'zzz' is neither a file nor the name of a shipped config; the shipped configs: "
        + ", ".join(NAMES)
        + " (their budgets: --list)"
    )


# --------------------------------------------------------------------------- the measured times


def test_measured_is_both_minutes_and_what_or_neither(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("env_id: ataxx_v0\nmeasured: {minutes: 3}\n")
    with pytest.raises(ConfigError, match="config 'measured' must give both minutes and what they cover"):
        load_config(path, validate=False)
    path.write_text("env_id: ataxx_v0\nmeasured: {minutes: -1, what: x}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path, validate=False)
    assert str(info.value) == "config 'measured.minutes' must be null (not measured) or a positive number, got -1"
    path.write_text("env_id: ataxx_v0\nmeasured: {minutes: 3, what: x, when: today}\n")
    with pytest.raises(ConfigError, match="unknown config key 'measured.when'"):
        load_config(path, validate=False)
    path.write_text("env_id: ataxx_v0\n")
    assert load_config(path, validate=False).measured.minutes is None  # not measured


def test_measured_describes_the_file_and_stays_out_of_a_runs_config():
    cfg = load_config("ataxx_quick", validate=False)
    assert cfg.measured.minutes == 5.9 and "nothing else running" in cfg.measured.what
    assert "measured" not in cfg.to_dict()  # config.yaml of a run, and AlphaZero's checkpoint config
    assert cfg.smoke().measured == cfg.measured


def _source_minutes(what: str) -> float | None:
    """The minutes that the results file a ``measured.what`` cites records, where it is one of the
    machine-readable kinds (``time.json`` of /usr/bin/time, ``run.json`` of an AlphaZero run)."""
    m = re.search(r"\((results/[^)]+)\)", what)
    if m is None:
        return None
    path = REPO_ROOT / m.group(1)
    if path.name == "time.json":
        return json.loads(path.read_text())["wall_seconds"] / 60
    if path.name == "run.json":
        run = json.loads(path.read_text())
        return (run["train_seconds"] + run["final_eval_seconds"]) / 60
    return None


def test_the_measured_times_are_those_of_the_results_they_cite():
    checked = []
    for name, path in shipped_configs().items():
        m = load_config(path, validate=False).measured
        if m.minutes is None:
            continue
        source = re.search(r"\((docs/results.md|results/[^)]+)\)$", m.what)
        assert source, f"{name}: what cites no source: {m.what}"
        assert (REPO_ROOT / source.group(1)).exists(), f"{name}: cites {source.group(1)}, which does not exist"
        minutes = _source_minutes(m.what)
        if minutes is not None:
            assert m.minutes == round(minutes, 1), (name, m.minutes, minutes)
            checked.append(name)
    assert len(checked) == 8  # the five quick configs' time.json, the three AlphaZero run.json


# --------------------------------------------------------------------------- the command line


def test_list_shows_every_config_with_its_engine_env_budget_and_measured_time():
    run = _train("--list")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    for name in NAMES:
        cfg = load_config(CONFIGS / f"{name}.yaml", validate=False)
        unit = "self-play positions" if cfg.engine == "alphazero" else "timesteps"
        measured = "not measured" if cfg.measured.minutes is None else f"{cfg.measured.minutes:g} min"
        row = [line for line in lines if line.split()[:1] == [name]]
        assert len(row) == 2 if cfg.measured.minutes is not None else len(row) == 1, (name, row)  # + its note
        assert row[0].split() == [
            name,
            cfg.engine,
            cfg.env_id,
            f"{cfg.total_timesteps:,}",
            *unit.split(),
            *measured.split(),
        ]
        if cfg.measured.minutes is not None:
            assert " ".join(row[1].split()[1:]).startswith(" ".join(cfg.measured.what.split()[:5]))
    assert "ataxx_quick sb3 ataxx_v0 250,000 timesteps 5.9 min" in [" ".join(line.split()) for line in lines]
    assert "twixt24_az alphazero twixt_v0 61,440 self-play positions not measured" in [
        " ".join(line.split()) for line in lines
    ]


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["atax_quick"],
            "error: config 'atax_quick' is neither a file nor the name of a shipped config; the shipped "
            "configs, closest first: ataxx_quick, ",
        ),
        ([], "error: give a config: a shipped config's name (e.g. ataxx_quick; --list shows them) or a YAML path"),
        (["--list", "ataxx_quick"], "error: --list takes no config, got 'ataxx_quick'"),
    ],
)
def test_cli_bad_config_arguments_are_clear_errors(tmp_path, argv, message):
    run = _train(*argv, cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert message in run.stderr, run.stderr


def test_cli_runs_a_config_by_its_name(tmp_path, monkeypatch, capsys):
    import training.train as tt

    seen = {}

    def fake_train(cfg, out, **kw):
        seen.update(cfg=cfg, out=out, **kw)
        raise tt.ConfigError("stop")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(tt, "train", fake_train)
    with pytest.raises(SystemExit):
        tt.main(["ataxx_quick", "--smoke"])
    assert "stop" in capsys.readouterr().err
    assert seen["cfg"].name == "ataxx_quick" and seen["out"] == Path("runs") / "ataxx_quick-0-smoke"


def test_a_folder_of_the_same_name_does_not_hide_a_shipped_config(tmp_path, monkeypatch):
    """Found by a newcomer: after a run with --out ataxx_quick, ``tabletop-train ataxx_quick`` said
    "config path ataxx_quick is not a file"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ataxx_quick").mkdir()
    assert resolve_config("ataxx_quick") == shipped_configs()["ataxx_quick"]
    (tmp_path / "mine").mkdir()
    with pytest.raises(FileNotFoundError, match="neither a file nor the name of a shipped config"):
        resolve_config("mine")
