"""The README's Results figures equal the files in results/ (results/check_readme.py)."""

import importlib.util
import json
import subprocess
import sys

import pytest

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


# ----------------------------------------------------------------------------- runs over seeds (results/seeds/collect.py)
_cspec = importlib.util.spec_from_file_location("seeds_collect", REPO_ROOT / "results" / "seeds" / "collect.py")
collect = importlib.util.module_from_spec(_cspec)
_cspec.loader.exec_module(collect)

TIME_V = """\tCommand being timed: "python -m training.train configs/ataxx_quick.yaml"
\tUser time (seconds): 812.50
\tSystem time (seconds): 7.50
\tPercent of CPU this job got: 99%
\tElapsed (wall clock) time (h:mm:ss or m:ss): 1:02:03.5
\tMaximum resident set size (kbytes): 1048576
"""


def _fake_run(runs, config, seed, vs, time_text=TIME_V):
    run = runs / f"{config}-{seed}"
    (run / "eval").mkdir(parents=True)
    report = {"config": config, "seed": seed, "timesteps": 4096,
              "vs": {o: {"score": v, "games": 200} for o, v in vs.items()}}
    (run / "report.json").write_text(json.dumps(report))
    (run / "eval" / "pairs.csv").write_text("agent,opponent,wins\n")
    if time_text is not None:
        (runs / f"{config}-{seed}.time").write_text(time_text)


def test_time_v_is_parsed_and_anything_else_refused():
    assert collect.parse_time(TIME_V) == {"wall_seconds": 3723.5, "user_seconds": 812.5, "system_seconds": 7.5,
                                          "max_rss_kb": 1048576}
    with pytest.raises(ValueError, match=r"^no user_seconds in the time report \(expected GNU time -v output\)$"):
        collect.parse_time("real 0m1.0s")


def test_runs_over_seeds_are_collected_and_summarized(tmp_path):
    runs, root = tmp_path / "runs", tmp_path / "seeds"
    for seed, (r, g) in enumerate(((1.0, 0.5), (0.9, 0.25), (0.95, 0.6))):
        _fake_run(runs, "ataxx_quick", seed, {"random": r, "greedy": g}, TIME_V if seed else None)
    _fake_run(runs, "not_a_quick_config", 0, {"random": 1.0, "greedy": 1.0})
    written = collect.collect(runs, root)
    assert [p.relative_to(root).as_posix() for p in written] == ["ataxx_quick/seed0", "ataxx_quick/seed1",
                                                                 "ataxx_quick/seed2"]
    assert not (root / "ataxx_quick" / "seed0" / "time.json").exists()
    s = collect.summary("ataxx_quick", root)
    assert s["seeds"] == [0, 1, 2] and s["greedy"]["per_seed"] == [0.5, 0.25, 0.6]
    assert s["random"]["mean"] == pytest.approx(0.95) and (s["random"]["min"], s["random"]["max"]) == (0.9, 1.0)
    assert s["greedy"]["mean"] == pytest.approx(0.45) and s["wall_minutes"]["max"] == pytest.approx(3723.5 / 60)
    assert s["cpu_minutes"]["min"] == pytest.approx(820 / 60) and s["max_rss_gb"] == 1.0
    assert collect.table(root).splitlines()[2] == ("| `ataxx_quick` | 0, 1, 2 | 0.950 [0.900, 1.000] | 0.450 [0.250, "
                                                   "0.600] | 0.500 / 0.250 / 0.600 | 62.1 to 62.1 min | 13.7 to 13.7 min |")
    with pytest.raises(LookupError, match="^no collected run of twixt_quick in "):
        collect.summary("twixt_quick", root)


def test_a_run_whose_report_names_another_seed_is_refused(tmp_path):
    _fake_run(tmp_path, "ataxx_quick", 1, {"random": 1.0, "greedy": 0.5})
    report = tmp_path / "ataxx_quick-1" / "report.json"
    report.write_text(report.read_text().replace('"seed": 1', '"seed": 2'))
    with pytest.raises(ValueError, match=r"ataxx_quick-1: its report says ataxx_quick seed 2$"):
        collect.collect(tmp_path, tmp_path / "out")
