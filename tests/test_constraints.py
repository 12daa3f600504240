"""``constraints.txt`` (pip-compile's output; docs/reproducibility.md) pins what CI tests: every
direct dependency of the project and of the extras CI installs, each at a version its specifier in
``pyproject.toml`` allows; torch is the CPU build of ``.ci/run``'s pin (no ``nvidia-*`` package); and
``.ci/run`` installs with it."""

from __future__ import annotations

import re
import sys

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from conftest import REPO_ROOT

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

CONSTRAINTS = REPO_ROOT / "constraints.txt"
CI = REPO_ROOT / ".ci" / "run"
#: The extras CI installs (``.ci/run``) and the constraints are compiled from.
EXTRAS = ("train", "test", "room", "rllib", "lint", "docs")
PROJECT = "tabletop-rl"


def pins(text: str) -> dict[str, Version]:
    """``{canonical name: version}`` of a pip-compile output's ``name==version`` lines.

    Raises:
        ValueError: a requirement line that is not an exact ``==`` pin, or a name pinned twice.
    """
    out: dict[str, Version] = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        req = Requirement(line)
        spec = list(req.specifier)
        if len(spec) != 1 or spec[0].operator != "==" or req.extras:
            raise ValueError(f"not an exact pin without extras: {line!r}")
        name = canonicalize_name(req.name)
        if name in out:
            raise ValueError(f"{req.name} pinned twice")
        out[name] = Version(spec[0].version)
    return out


def direct_requirements(pyproject: dict, extras=EXTRAS) -> list[Requirement]:
    """The project's dependencies and those of ``extras``, without the project's references to
    itself (``tabletop-rl[train]``: its own extras, listed anyway) and without those whose marker
    is false here (``tomli; python_version < '3.11'``)."""
    project = pyproject["project"]
    lines = list(project["dependencies"]) + [r for e in extras for r in project["optional-dependencies"][e]]
    reqs = [Requirement(line) for line in lines]
    return [
        r
        for r in reqs
        if canonicalize_name(r.name) != PROJECT and (r.marker is None or r.marker.evaluate({"extra": ""}))
    ]


def problems(constraints: str, pyproject: dict, extras=EXTRAS) -> list[str]:
    """What is wrong with a constraints text against ``pyproject.toml``: a direct dependency not
    pinned, a pin outside its specifier, torch not the CPU 2.13.0 of ``.ci/run``, an ``nvidia-*``
    package (a CUDA build of torch). An empty list when nothing is."""
    pinned = pins(constraints)
    found = []
    for req in direct_requirements(pyproject, extras):
        name = canonicalize_name(req.name)
        if name not in pinned:
            found.append(f"{req.name} is not pinned")
        elif not req.specifier.contains(pinned[name], prereleases=True):
            found.append(f"{req.name}=={pinned[name]} is outside pyproject's {req.specifier}")
    torch = pinned.get("torch")
    ci_torch = re.search(r'pip install --quiet "torch==([^"]+)"', CI.read_text())
    if torch is None or ci_torch is None or torch.public != ci_torch[1] or torch.local not in (None, "cpu"):
        found.append(f"torch pinned as {torch}, not .ci/run's CPU build {ci_torch and ci_torch[1]}")
    found += [f"{name} (a CUDA build's package) is pinned" for name in pinned if name.startswith("nvidia-")]
    return found


@pytest.fixture(scope="module")
def pyproject() -> dict:
    return tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())


def test_every_direct_dependency_is_pinned_within_its_specifier(pyproject):
    text = CONSTRAINTS.read_text()
    assert problems(text, pyproject) == []
    assert len(direct_requirements(pyproject)) >= 30  # the extras were read, not skipped
    assert pins(text)["torch"] == Version("2.13.0+cpu")


def test_a_missing_or_wrong_pin_is_reported(pyproject):
    text = CONSTRAINTS.read_text()
    dropped = re.sub(r"(?m)^pettingzoo==.*$", "", text)
    assert problems(dropped, pyproject) == ["pettingzoo is not pinned"]
    older = re.sub(r"(?m)^ruff==.*$", "ruff==0.17.5", text)  # the lint extra pins ruff==0.17.6
    assert problems(older, pyproject) == ["ruff==0.17.5 is outside pyproject's ==0.17.6"]
    cuda = re.sub(r"(?m)^torch==.*$", "torch==2.13.0\nnvidia-cublas==13.1.0.3", text)
    assert problems(cuda, pyproject) == ["nvidia-cublas (a CUDA build's package) is pinned"]
    other = re.sub(r"(?m)^torch==.*$", "torch==2.14.0+cpu", text)
    assert problems(other, pyproject) == ["torch pinned as 2.14.0+cpu, not .ci/run's CPU build 2.13.0"]
    with pytest.raises(ValueError, match="not an exact pin"):
        pins("numpy>=2\n")


def test_the_file_says_how_it_was_made_and_ci_installs_with_it():
    text = CONSTRAINTS.read_text()
    command = re.search(r"(?m)^#\s+(pip-compile .*)$", text)
    assert command, "the pip-compile command is not in the header"
    assert f"--extra={','.join(EXTRAS)}" in command[1] and "--strip-extras" in command[1]
    assert "--output-file=constraints.txt" in command[1] and command[1].endswith(" constraints.in pyproject.toml")
    # the project itself (the rllib extra's tabletop-rl[train]) is left out: pip-compile would write
    # this checkout's path (tabletop-rl @ file:///...), which a clone elsewhere conflicts with
    assert "--unsafe-package=tabletop-rl" in command[1] and "@ file:" not in text
    assert f'-c constraints.txt -e ".[{",".join(EXTRAS)}]"' in CI.read_text()
