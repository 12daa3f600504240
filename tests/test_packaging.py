"""Packaging metadata: licence, typing marker and classifiers ship with the distribution."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_the_package_list_is_every_package_folder_and_the_configs():
    """pyproject.toml lists the packages (a `find` could not add training.configs): the list is every
    folder of envs, training and room (namespace folders of data included, as `find` gave) plus the
    top-level configs/ folder installed as training.configs, its YAML files as package data."""
    from setuptools import find_namespace_packages

    tool = _project()["tool"]["setuptools"]
    found = find_namespace_packages(where=str(ROOT), include=["envs*", "training*", "room*"])
    found = [p for p in found if not p.endswith("__pycache__") and "__pycache__." not in p]
    assert sorted(tool["packages"]) == sorted([*found, "training.configs"])
    assert tool["package-dir"] == {"training.configs": "configs"}
    assert tool["package-data"]["training.configs"] == ["*.yaml"]
    assert not (ROOT / "training" / "configs").exists()  # else the checkout would read two folders


@pytest.mark.slow
def test_a_wheel_carries_every_config(wheel_names):
    names = wheel_names
    configs = {f"training/configs/{p.name}" for p in (ROOT / "configs").glob("*.yaml")}
    assert len(configs) >= 20 and configs == {n for n in names if n.startswith("training/configs/")}
    assert not any(n.startswith("configs/") for n in names)  # no top-level package named configs
