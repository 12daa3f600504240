"""What a fresh clone needs: the test data is in the repository, and missing extras are named."""

from __future__ import annotations

from conftest import DATA_DIR, REPO_ROOT, perft_rows


def test_test_data_is_carried_in_the_repository():
    """Every reference file the suite reads lives under tests/data (nothing outside the clone)."""
    assert DATA_DIR == REPO_ROOT / "tests" / "data"
    names = sorted(p.relative_to(DATA_DIR).as_posix() for p in DATA_DIR.rglob("*") if p.is_file())
    assert names == [
        "ataxx_perft.tsv",
        "make_mctx_cases.py",  # how mctx_gumbel_cases.json was made (mctx, in a venv of its own)
        "mctx_gumbel_cases.json",  # mctx's gumbel_muzero_policy on fixed game trees
        "records/smartrix-v1.json",  # old-format record files that must stay readable
        "records/tantrix-record-v1.json",
        "smartrix_cards.tsv",
        "tantrix_tiles.tsv",
        "twixt/lg_game2206555.tsgf",
        "twixt/lg_game2220939.tsgf",
        "twixt/sample.T1",
    ]
    assert len(perft_rows()) == 15


# --------------------------------------------------------------------------- missing extras
_BLOCK = (
    "import sys, runpy\n"
    "for name in {blocked!r}:\n"
    "    sys.modules[name] = None  # what an uninstalled module looks like to import\n"
    "sys.argv = [{module!r}] + {args!r}\n"
    "runpy.run_module({module!r}, run_name='__main__', alter_sys=True)\n"
)


def _run_without(module: str, blocked: list[str], args: list[str]):
    import subprocess
    import sys

    code = _BLOCK.format(blocked=blocked, module=module, args=args)
    return subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)


def test_train_without_the_train_extra_names_the_extra():
    proc = _run_without("training.train", ["yaml", "rich"], ["configs/ataxx_quick.yaml"])
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("error: training.train needs the 'train' extra")
    assert "missing yaml, rich." in proc.stderr
    assert 'pip install -e ".[train]"' in proc.stderr


def test_evaluate_without_the_train_extra_names_the_extra():
    proc = _run_without(
        "training.evaluate", ["rich", "scipy", "openskill"], ["ataxx_v0", "--agents", "random", "random"]
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "training.evaluate needs the 'train' extra" in proc.stderr
    assert "missing rich, openskill, scipy." in proc.stderr
    assert 'pip install -e ".[train]"' in proc.stderr


def test_importing_train_without_the_extra_raises_a_module_not_found_error_naming_it():
    import subprocess
    import sys

    code = (
        "import sys\nsys.modules['yaml'] = None\n"
        "try:\n    import training.train\n"
        "except ModuleNotFoundError as e:\n    print(type(e).__name__, e.name, '|', e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120
    ).stdout
    assert out.startswith("MissingExtraError yaml | training.train needs the 'train' extra")


def test_play_against_a_checkpoint_without_the_train_extra_names_the_extra(tmp_path):
    """Found by a newcomer: play with PATH.zip and no sb3-contrib gave a raw ModuleNotFoundError."""
    ckpt = tmp_path / "agent.zip"
    ckpt.write_bytes(b"not read: the extra is checked first")
    proc = _run_without("training.play", ["sb3_contrib"], ["ataxx_v0", "--opponent", str(ckpt), "--seat", "0"])
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"the checkpoint agent {ckpt} needs the 'train' extra" in proc.stderr
    assert "missing sb3_contrib." in proc.stderr and "README, Quick start" in proc.stderr


def test_the_train_script_without_the_extra_prints_one_line_naming_it():
    """Found by a newcomer: ``tabletop-train --list`` without the train extra printed a traceback
    (the script imports training.train before calling main), where ``python -m`` printed one line."""
    import subprocess
    import sys

    code = (
        "import sys\nsys.modules['yaml'] = None\nsys.argv = ['/venv/bin/tabletop-train', '--list']\n"
        "from training.train import main\nsys.exit(main())\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "training.train needs the 'train' extra" in proc.stderr and 'pip install -e ".[train]"' in proc.stderr
