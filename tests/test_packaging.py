"""Packaging metadata: licence, typing marker and classifiers ship with the distribution."""

from __future__ import annotations

from pathlib import Path

from conftest import pyproject

ROOT = Path(__file__).resolve().parents[1]


def _project() -> dict:
    return pyproject()


def test_license_file_is_mit_and_declared():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License")
    project = _project()["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]


def test_packages_are_marked_typed_and_ship_the_marker():
    data = _project()["tool"]["setuptools"]["package-data"]
    for package in ("envs", "training", "room"):
        assert (ROOT / package / "py.typed").is_file()
        assert "py.typed" in data[package], package
    assert "Typing :: Typed" in _project()["project"]["classifiers"]


def test_project_urls_and_classifiers():
    project = _project()["project"]
    assert all(url.startswith("https://") for url in project["urls"].values())
    assert "License :: OSI Approved :: MIT License" not in project["classifiers"]  # PEP 639: the expression says it
    assert any(c.startswith("Programming Language :: Python :: 3.1") for c in project["classifiers"])
