"""The console scripts of pyproject.toml (``tabletop-train`` ...): each names the ``main()`` of its
``python -m`` command, which an installed script calls with no arguments (``sys.argv``)."""

from __future__ import annotations

import sys
from importlib.metadata import EntryPoint

import pytest

from conftest import pyproject

SCRIPTS = {
    "tabletop-train": ("training.train:main", "python -m training.train"),
    "tabletop-evaluate": ("training.evaluate:main", "python -m training.evaluate"),
    "tabletop-play": ("training.play:main", "python -m training.play"),
    "tabletop-room": ("room.cli:main", "python -m room"),
}


def test_pyproject_declares_the_four_commands():
    declared = pyproject()["project"]["scripts"]
    assert declared == {name: target for name, (target, _) in SCRIPTS.items()}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_each_script_loads_its_main_and_help_exits_zero(name, monkeypatch, capsys):
    if name in ("tabletop-train", "tabletop-evaluate"):
        pytest.importorskip("torch")
    if name == "tabletop-room":
        pytest.importorskip("starlette")
    target, command = SCRIPTS[name]
    main = EntryPoint(name, pyproject()["project"]["scripts"][name], "console_scripts").load()  # as the script does
    assert callable(main) and main.__name__ == "main" and main.__module__ == target.split(":")[0]
    monkeypatch.setattr(sys, "argv", [name, "--help"])
    with pytest.raises(SystemExit) as info:
        sys.exit(main())  # the body of the script pip writes
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: {command}"), out[:200]


def test_a_script_returns_its_exit_status(monkeypatch, capsys):
    """``main()`` returns the status the script exits with (2 for bad arguments, told on stderr)."""
    pytest.importorskip("starlette")
    main = EntryPoint("tabletop-room", SCRIPTS["tabletop-room"][0], "console_scripts").load()
    monkeypatch.setattr(sys, "argv", ["tabletop-room", "--port", "70000"])
    assert main() == 2
    assert "--port must be from 0 to 65535, got 70000" in capsys.readouterr().err
