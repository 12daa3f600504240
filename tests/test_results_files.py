"""The README's Results figures equal the files in results/ (results/check_readme.py)."""

import importlib.util
import subprocess
import sys

from conftest import REPO_ROOT

_spec = importlib.util.spec_from_file_location("check_readme", REPO_ROOT / "results" / "check_readme.py")
check_readme = importlib.util.module_from_spec(_spec)
sys.modules["check_readme"] = check_readme  # (dataclasses look their module up there)
_spec.loader.exec_module(check_readme)

README = (REPO_ROOT / "README.md").read_text()


def test_every_claim_of_the_results_section_matches_its_file():
    passed, problems, spans = check_readme.check(README)
    assert problems == []
    assert len(passed) == len(check_readme.claims()) == 80
    assert len(spans) == 80


def test_the_script_exits_0_and_counts_the_passages():
    run = subprocess.run([sys.executable, "results/check_readme.py", "--quiet"], cwd=REPO_ROOT,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().splitlines()[-1] == "80 of 80 passages match their files"


def test_a_changed_figure_is_reported_with_its_file():
    # the Ataxx full run against greedy: 374 / 0 / 26 in results/ataxx_full/pairs.csv
    row = "| greedy (one ply, most stones) | 374 / 0 / 26 | 0.935 [0.906, 0.955] |"
    assert README.count(row) == 1
    _, problems, _ = check_readme.check(README.replace(row, row.replace("374 / 0 / 26", "375 / 0 / 25")))
    assert problems == ["mismatch in '| greedy (one ply, most stones) | 375 / 0 / 25 | 0.935 [0.906, 0.955] |': "
                        "375 where ataxx_full/pairs.csv gives 374; 25 where ataxx_full/pairs.csv gives 26"]


def test_a_figure_within_its_printed_precision_matches_and_one_beyond_does_not():
    assert check_readme.matches("0.90", 0.9025) and check_readme.matches("+1605", 1604.96)
    assert check_readme.matches("1,501,184", 1501184) and check_readme.matches("9.7", 579.0 / 60)
    assert not check_readme.matches("0.91", 0.9025) and not check_readme.matches("0.935", 0.9364)


def test_a_reworded_passage_is_reported_as_not_found():
    row = "| mcts:1000 (200 games) | 158 / 0 / 42 | 0.79 [0.73, 0.84] |"
    assert README.count(row) == 1
    _, problems, _ = check_readme.check(README.replace(row, row.replace("mcts:1000 (200 games)", "mcts:1000")))
    assert len(problems) == 1 and problems[0].startswith("not found in part '**Ataxx**'")
    assert "ataxx_full/pairs_vs_mcts1000.csv" in problems[0]
