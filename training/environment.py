"""The software and machine a run ran on: the ``environment`` block of every run's ``report.json``.

A run is bit-reproducible from its seed with the same library versions, processor and thread
count (``tests/training/test_determinism.py``); on another processor it need not be
(``docs/reproducibility.md``): torch picks its kernels by the processor's vector instructions
(``torch.backends.cpu.get_cpu_capability()``), and another kernel or thread count sums in another
order. :func:`environment` records what decides
that, so that a reader of a report can tell whether a rerun should give the same weights:

* ``packages``: the installed version of each library of :data:`PACKAGES` (``importlib.metadata``;
  ``None`` for one that is not installed), this project's included (``tabletop-rl``);
* ``commit``: the git commit of the code (``None`` outside a git checkout, such as an installed
  wheel) and ``dirty``: whether tracked files differ from it (``None`` when unknown);
* ``python``: the version (``"3.11.7"``) and ``implementation`` (``"CPython"``);
* ``os``: ``platform.system()``, ``platform.release()`` and ``platform.platform()``;
* ``processor``: ``model`` (``/proc/cpuinfo``'s ``model name`` on Linux, else
  ``platform.processor()``, ``None`` when neither says), ``machine`` (``"x86_64"``, ``"arm64"``),
  ``flags`` (the vector-instruction flags of :data:`SIMD_FLAGS` the processor has, sorted; ``None``
  where ``/proc/cpuinfo`` is missing), ``torch_capability`` (the kernels torch dispatches to:
  ``"AVX512"``, ``"AVX2"``, ``"DEFAULT"``...; ``None`` without torch) and ``logical_cpus``;
* ``threads``: ``torch`` (``torch.get_num_threads()`` now; ``None`` without torch) and ``config``
  (the run's ``torch_threads``, ``None`` when not given).

Every field is JSON-serialisable. Nothing here fails for want of a file or a library: what cannot
be read is ``None``.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any, TypedDict

__all__ = [
    "PACKAGES",
    "SIMD_FLAGS",
    "Environment",
    "Processor",
    "environment",
    "package_versions",
    "processor",
    "git_commit",
]

#: The distributions whose versions decide a run's numbers (the learning libraries, the arrays,
#: the environments' APIs and their compiled vector cores) and this project itself.
PACKAGES: tuple[str, ...] = (
    "torch",
    "numpy",
    "gymnasium",
    "pettingzoo",
    "stable-baselines3",
    "sb3-contrib",
    "ray",
    "numba",
    "tabletop-rl",
)

#: The processor flags (``/proc/cpuinfo``: ``flags`` on x86, ``Features`` on ARM) that change
#: which kernels torch, numpy and numba run: the x86 vector extensions (SSE4, AVX, AVX2, FMA,
#: AVX-512 and its VNNI/BF16 parts, AMX) and ARM's (NEON = ``asimd``, SVE).
SIMD_FLAGS: frozenset[str] = frozenset(
    {
        "sse4_1",
        "sse4_2",
        "avx",
        "avx2",
        "fma",
        "f16c",
        "avx512f",
        "avx512dq",
        "avx512bw",
        "avx512vl",
        "avx512_vnni",
        "avx512_bf16",
        "avx512_fp16",
        "avx_vnni",
        "amx_tile",
        "amx_bf16",
        "amx_int8",
        "asimd",
        "asimdhp",
        "sve",
        "sve2",
        "bf16",
        "i8mm",
    }
)


class Processor(TypedDict):
    """The ``processor`` entry of :class:`Environment`."""

    model: str | None
    machine: str | None
    flags: list[str] | None
    torch_capability: str | None
    logical_cpus: int | None


class Environment(TypedDict):
    """What :func:`environment` returns (the ``environment`` block of ``report.json``)."""

    packages: dict[str, str | None]
    commit: str | None
    dirty: bool | None
    python: str
    implementation: str
    os: dict[str, str]
    processor: Processor
    threads: dict[str, int | None]


def package_versions(names: tuple[str, ...] | list[str] = PACKAGES) -> dict[str, str | None]:
    """The installed version of each distribution in ``names`` (``importlib.metadata.version``),
    ``None`` for one that is not installed. Never raises for a missing distribution."""
    versions: dict[str, str | None] = {}
    for name in names:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def _torch() -> Any:
    """The torch module, or ``None`` when it is not installed (imported only when installed)."""
    if "torch" in sys.modules:
        return sys.modules["torch"]
    try:
        import torch
    except ImportError:
        return None
    return torch


def processor(cpuinfo: str | Path = "/proc/cpuinfo") -> Processor:
    """The processor: model, machine, vector-instruction flags, torch's kernel level, logical CPUs.

    Args:
        cpuinfo: the file to read (Linux's ``/proc/cpuinfo``). Where it is missing or unreadable
            (macOS, Windows), ``model`` comes from ``platform.processor()`` (``None`` when empty)
            and ``flags`` is ``None``: unknown, not "none".

    Returns:
        A :class:`Processor`; ``flags`` lists the :data:`SIMD_FLAGS` of the first processor
        entry, sorted (an empty list when the file has no such flag).
    """
    model: str | None = None
    flags: list[str] | None = None
    try:
        text = Path(cpuinfo).read_text(errors="replace")
    except OSError:
        text = None
    if text is not None:
        flags = []
        found_flags = False
        for line in text.splitlines():
            key, sep, value = line.partition(":")
            if not sep:
                continue
            key = key.strip().lower()
            if key in ("model name", "hardware", "cpu model") and model is None and value.strip():
                model = value.strip()
            elif key in ("flags", "features") and not found_flags:
                flags = sorted(set(value.split()) & SIMD_FLAGS)
                found_flags = True
    if model is None:
        model = platform.processor() or None
    torch = _torch()
    capability = None
    if torch is not None:
        try:
            capability = str(torch.backends.cpu.get_cpu_capability())
        except (AttributeError, RuntimeError):  # an old torch without the call
            capability = None
    return Processor(
        model=model,
        machine=platform.machine() or None,
        flags=flags,
        torch_capability=capability,
        logical_cpus=os.cpu_count(),
    )


def git_commit(path: str | Path | None = None) -> tuple[str | None, bool | None]:
    """The git commit of the checkout that holds ``path`` (default: this package's folder) and
    whether its tracked files differ from it: ``(sha, dirty)``; ``(None, None)`` where there is
    no git, no checkout, or ``path`` is not tracked by it (an installed wheel, even one installed
    into a virtual environment inside a clone). Never raises."""
    target = Path(path).resolve() if path is not None else Path(__file__).resolve().parent
    where = target if target.is_dir() else target.parent
    try:
        # ``target`` itself must be tracked: an installed copy inside some other checkout (a
        # virtual environment under a clone's folder) is not that checkout's code
        subprocess.run(
            ["git", "ls-files", "--error-unmatch", str(target)], cwd=where, capture_output=True, timeout=10, check=True
        )
        sha = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True, timeout=10, check=True
        ).stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=where,
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None, None
    return (sha or None), (bool(status.strip()) if sha else None)


def environment(torch_threads: int | None = None) -> Environment:
    """The software and machine of this process, as ``report.json``'s ``environment`` records them.

    Args:
        torch_threads: the run's configured ``torch_threads`` (recorded as ``threads.config``);
            ``threads.torch`` is torch's actual count now.

    Returns:
        An :class:`Environment` (the keys listed in this module's docstring); JSON-serialisable.
        A library that is not installed is ``None``, not an error.
    """
    torch = _torch()
    commit, dirty = git_commit()
    return Environment(
        packages=package_versions(),
        commit=commit,
        dirty=dirty,
        python=platform.python_version(),
        implementation=platform.python_implementation(),
        os={"system": platform.system(), "release": platform.release(), "platform": platform.platform()},
        processor=processor(),
        threads={
            "torch": int(torch.get_num_threads()) if torch is not None else None,
            "config": torch_threads,
        },
    )
