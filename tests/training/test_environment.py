"""``training.environment``: the software and machine a run records in ``report.json``
(``environment``): the fields and their types, a library that is not installed (``None``), a
machine without ``/proc/cpuinfo``, the flags read from a cpuinfo text, the commit outside a checkout,
and :func:`training.runs.write_report` adding the block (the smoke runs of every engine check it in
their own tests: test_training.py, test_rllib_train.py, test_alphazero.py)."""

from __future__ import annotations

import importlib.metadata
import json
import platform
import subprocess

import pytest

from conftest import REPO_ROOT
from training import environment as env_module
from training.environment import PACKAGES, SIMD_FLAGS, Environment, environment, git_commit, package_versions, processor

# A shortened /proc/cpuinfo of an x86 machine with two logical CPUs (the second entry repeats the first).
X86 = """processor\t: 0
vendor_id\t: GenuineIntel
model name\t: Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz
flags\t\t: fpu vme sse sse2 ssse3 sse4_1 sse4_2 avx f16c fma avx2 avx512f avx512bw avx512_vnni amx_tile amx_bf16 sha_ni

processor\t: 1
model name\t: Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz
flags\t\t: fpu vme sse sse2
"""

# An ARM machine's (no "model name": the processor's parts, and "Features" for the flags).
ARM = """processor\t: 0
BogoMIPS\t: 243.75
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid sve sve2 i8mm bf16
CPU implementer\t: 0x41
"""


def test_the_fields_and_their_types():
    e = environment(torch_threads=3)
    assert set(e) == Environment.__required_keys__
    assert set(e["packages"]) == set(PACKAGES)
    for name, version in e["packages"].items():
        assert version is None or (isinstance(version, str) and version), name
    assert e["packages"]["torch"] == importlib.metadata.version("torch")
    assert e["packages"]["numpy"] == importlib.metadata.version("numpy")
    assert e["python"] == platform.python_version() and e["implementation"] == platform.python_implementation()
    assert set(e["os"]) == {"system", "release", "platform"} and all(isinstance(v, str) for v in e["os"].values())
    p = e["processor"]
    assert set(p) == {"model", "machine", "flags", "torch_capability", "logical_cpus"}
    assert p["model"] is None or isinstance(p["model"], str)
    assert p["flags"] is None or (isinstance(p["flags"], list) and set(p["flags"]) <= SIMD_FLAGS)
    assert p["flags"] == (None if p["flags"] is None else sorted(p["flags"]))
    import torch

    assert p["torch_capability"] == torch.backends.cpu.get_cpu_capability()
    assert e["threads"] == {"torch": torch.get_num_threads(), "config": 3}
    assert environment()["threads"]["config"] is None
    assert json.loads(json.dumps(e)) == e  # JSON as it is


def test_a_library_that_is_not_installed_is_none_not_an_error():
    versions = package_versions(["numpy", "no-such-distribution-xyz"])
    assert versions == {"numpy": importlib.metadata.version("numpy"), "no-such-distribution-xyz": None}


def test_a_run_without_torch_records_none_for_its_fields(monkeypatch):
    monkeypatch.setattr(env_module, "_torch", lambda: None)
    e = env_module.environment(torch_threads=1)
    assert e["threads"] == {"torch": None, "config": 1} and e["processor"]["torch_capability"] is None


def test_the_model_and_the_vector_flags_are_read_from_cpuinfo(tmp_path):
    (tmp_path / "x86").write_text(X86)
    p = processor(tmp_path / "x86")
    assert p["model"] == "Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz"
    # the first entry's flags, only those that change kernels (not fpu, sse2, sha_ni...), sorted
    assert p["flags"] == ["amx_bf16", "amx_tile", "avx", "avx2", "avx512_vnni", "avx512bw", "avx512f", "f16c", "fma",
                          "sse4_1", "sse4_2"]  # fmt: skip
    (tmp_path / "arm").write_text(ARM)
    p = processor(tmp_path / "arm")
    assert p["flags"] == ["asimd", "asimdhp", "bf16", "i8mm", "sve", "sve2"]
    assert p["model"] == (platform.processor() or None)  # no model line: platform's word


def test_without_cpuinfo_the_flags_are_unknown_and_nothing_fails(tmp_path):
    p = processor(tmp_path / "missing")
    assert p["flags"] is None and p["model"] == (platform.processor() or None)
    assert p["machine"] == (platform.machine() or None)


def test_the_commit_is_the_checkouts_and_none_outside_one(tmp_path):
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("the tests do not run in a git checkout")
    sha, dirty = git_commit(REPO_ROOT / "training" / "runs.py")
    assert sha == head.stdout.strip() and isinstance(dirty, bool)
    (tmp_path / "x.py").write_text("")
    assert git_commit(tmp_path / "x.py") == (None, None)  # no checkout
    # an untracked file inside the checkout (an installed copy in a venv under the clone) is not its code
    assert git_commit(REPO_ROOT / "training" / "no_such_module_here.py") == (None, None)


def test_write_report_adds_the_block(tmp_path):
    from training.config import load_config
    from training.runs import write_report

    cfg = load_config(REPO_ROOT / "configs" / "ataxx_quick.yaml")
    report = write_report(cfg, tmp_path, {"vs": {}}, [])
    saved = json.loads((tmp_path / "report.json").read_text())
    assert saved == report and set(saved["environment"]) == Environment.__required_keys__
    assert saved["environment"]["threads"]["config"] == cfg["torch_threads"]
