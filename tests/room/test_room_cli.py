"""``python -m room``: it prints its URL and serves; a missing extra and bad arguments are
named; the page files ship with the package."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO_ROOT, pyproject
from test_install import _run_without


def test_without_the_room_extra_the_command_names_it():
    proc = _run_without("room", ["starlette", "uvicorn"], [])
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: python -m room needs the 'room' extra")
    assert "missing starlette, uvicorn." in proc.stderr and 'pip install -e ".[room]"' in proc.stderr
    # the room needs no torch: its hint points to the README's Play room, not to torch
    assert proc.stderr.strip().endswith("(README, Play room: no torch needed, except for the trained agents)")
    assert "torch first" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_a_checkpoint_agent_without_the_train_extra_is_one_error_line(tmp_path):
    pytest.importorskip("starlette")
    checkpoint = tmp_path / "some.zip"
    checkpoint.write_bytes(b"PK\x05\x06" + b"\x00" * 18)  # an empty zip: never read, torch is missing first
    proc = _run_without("room", ["torch"], ["--records", str(tmp_path / "r"), "--agent", f"x={checkpoint}"])
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: the checkpoint agent "), lines
    assert "needs the 'train' extra" in lines[0] and "missing torch" in lines[0]


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--port", "70000"], "--port must be from 0 to 65535, got 70000"),
        (["--agent", "nameonly"], "--agent expects NAME=SPEC"),
        (["--agent", "random=greedy"], "'random' is a baseline's name"),
        (["--agent", "robot=greedy"], "'robot' is the name of an agent a game offers"),
        (["--agent", "mine=missing.zip"], "missing.zip"),
        (["--agent-delay", "-1"], "--agent-delay must be a number of seconds from 0 to 60, got -1.0"),
        (["--agent-delay", "nan"], "--agent-delay must be a number of seconds from 0 to 60, got nan"),
        (["--agent-delay", "inf"], "--agent-delay must be a number of seconds from 0 to 60, got inf"),
        (["--agent-delay", "61"], "--agent-delay must be a number of seconds from 0 to 60, got 61.0"),
    ],
)
def test_bad_arguments_are_refused_with_a_reason(tmp_path, args, expected):
    pytest.importorskip("starlette")
    proc = subprocess.run(
        [sys.executable, "-m", "room", "--records", str(tmp_path / "r"), *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert expected in proc.stderr, proc.stderr


def test_the_command_prints_its_url_and_serves(tmp_path):
    pytest.importorskip("starlette")
    httpx = pytest.importorskip("httpx")
    proc = subprocess.Popen(
        [sys.executable, "-m", "room", "--port", "0", "--records", str(tmp_path / "r")],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("Play room: http://127.0.0.1:"), line
        url = line.split()[2]
        for _ in range(100):
            try:
                r = httpx.get(url, timeout=2)
                break
            except httpx.ConnectError:
                import time

                time.sleep(0.1)
        assert r.status_code == 200 and 'data-page="lobby"' in r.text
        assert (tmp_path / "r").is_dir() and "0 games, 0 unfinished" in line
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_the_page_files_ship_with_the_package():
    data = pyproject()["tool"]["setuptools"]["package-data"]["room"]
    for pattern in ("templates/*.html", "static/*.js", "static/*.css"):
        assert pattern in data
        assert list((REPO_ROOT / "room").glob(pattern)), pattern
    extras = pyproject()["project"]["optional-dependencies"]
    assert {r.split(">")[0].split("[")[0] for r in extras["room"]} == {
        "starlette",
        "uvicorn",
        "jinja2",
        "python-multipart",
        "pydantic",
    }


def test_the_deprecated_alias_training_room_runs_the_same_command(tmp_path):
    """``python -m training.room`` (the room's former home, kept one release) is ``python -m room``."""
    pytest.importorskip("starlette")
    proc = subprocess.run(
        [sys.executable, "-m", "training.room", "--records", str(tmp_path / "r"), "--port", "70000"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == "error: --port must be from 0 to 65535, got 70000\n", proc.stderr
    import room
    import training.room

    assert training.room.create_app is room.create_app and training.room.Room is room.Room
    with pytest.raises(AttributeError, match="no attribute 'server'"):
        training.room.server  # noqa: B018
