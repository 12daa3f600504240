"""The Results page's figures (docs/results.md) equal the files in results/ (results/check_readme.py)."""

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

README = (REPO_ROOT / "docs" / "results.md").read_text()  # the Results page

#: The passages: 91 of the PPO runs, the baselines and the shipped agents; per folder of
#: results/alphazero/ a table row, an Elo line where it played random and a curve line where it has one;
#: per opponent of a folder of results/alphazero_alone/ its "alone" line.
PASSAGES = 91 + len(check_readme.alphazero_claims()) + len(check_readme.alphazero_alone_claims())
#: The figures other pages cite (the RLlib page's quick run; the seed-0 Ataxx run that the README, Getting
#: started and Reproducibility cite): checked by the script with the Results page.
PAGE_PASSAGES = sum(len(v) for v in check_readme.page_claims().values())

#: The columns of a tournament's pairs.csv and of a run's curve.csv against greedy.
PAIR_FIELDS = ["agent", "opponent", "games", "wins", "draws", "losses", "score", "score_ci95_low", "score_ci95_high"]
CURVE_FIELDS = ["checkpoint", "positions", "elapsed_s", "score_vs_greedy", "ci95_low_vs_greedy", "ci95_high_vs_greedy"]


def write_csv(path, header, rows):
    """A results CSV file: ``header`` then ``rows``."""
    import csv

    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def test_every_claim_of_the_results_section_matches_its_file():
    passed, problems, spans = check_readme.check(README)
    assert problems == []
    assert len(passed) == len(check_readme.claims()) == PASSAGES
    assert len(spans) == PASSAGES


def test_the_script_exits_0_and_counts_the_passages():
    run = subprocess.run(
        [sys.executable, "results/check_readme.py", "--quiet"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    total = PASSAGES + PAGE_PASSAGES
    assert run.stdout.strip().splitlines()[-1] == f"{total} of {total} passages match their files"


def test_the_rllib_page_figures_match_their_reports():
    page = (REPO_ROOT / "docs" / "training" / "rllib.md").read_text()
    claims = check_readme.page_claims()["docs/training/rllib.md"]
    passed, problems, _ = check_readme.check(page, claims)
    assert problems == [] and len(passed) == len(claims) == 4 and PAGE_PASSAGES == 9
    # the quiet run scored 89 / 0 / 111 against greedy: 0.445 (results/rllib/ataxx_rllib_quiet/report.json)
    wrong = page.replace("0.445 [0.378, 0.514] against greedy", "0.455 [0.378, 0.514] against greedy")
    assert wrong != page
    _, problems, _ = check_readme.check(wrong, claims)
    assert len(problems) == 1 and "0.455 where rllib/ataxx_rllib_quiet/report.json gives 0.445" in problems[0]


def test_every_alphazero_results_folder_has_its_row():
    folders = sorted(p.name for p in (REPO_ROOT / "results" / "alphazero").iterdir() if p.is_dir())
    rows = [c for c in check_readme.alphazero_claims() if c.template.startswith("| `")]
    assert "ataxx_az-0" in folders and len(rows) == len(folders)
    # the Ataxx run's gauntlet: 328 / 6 / 66 against alphabeta:2 (results/alphazero/ataxx_az-0/gauntlet/pairs.csv)
    assert check_readme.wdl("alphazero/ataxx_az-0/gauntlet/pairs.csv", check_readme.AZ, "alphabeta:2") == [
        328.0,
        6.0,
        66.0,
        0.8275,
        pytest.approx(0.7874046544953167),
        pytest.approx(0.861364792715719),
    ]


def test_a_changed_figure_is_reported_with_its_file():
    # the Ataxx full run against greedy: 374 / 0 / 26 in results/ataxx_full/pairs.csv
    row = "| greedy (one ply, most stones) | 374 / 0 / 26 | 0.935 [0.906, 0.955] |"
    assert README.count(row) == 1
    _, problems, _ = check_readme.check(README.replace(row, row.replace("374 / 0 / 26", "375 / 0 / 25")))
    assert problems == [
        "mismatch in '| greedy (one ply, most stones) | 375 / 0 / 25 | 0.935 [0.906, 0.955] |': "
        "375 where ataxx_full/pairs.csv gives 374; 25 where ataxx_full/pairs.csv gives 26"
    ]


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


# ------------------------------------------------------------------ runs over seeds (results/seeds/collect.py)
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


def _fake_checkpoint(path, value, save_extra=False):
    import io
    import zipfile

    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    state = {"b.weight": torch.full((2, 3), float(value)), "a.bias": torch.zeros(3)}
    torch.save(dict(reversed(list(state.items()))) if save_extra else state, buf)
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("policy.pth", buf.getvalue())
        if save_extra:
            z.writestr("policy.optimizer.pth", b"moments")


def _fake_run(runs, config, seed, vs, time_text=TIME_V):
    run = runs / f"{config}-{seed}"
    (run / "eval").mkdir(parents=True)
    report = {
        "config": config,
        "seed": seed,
        "timesteps": 4096,
        "vs": {o: {"score": v, "games": 200} for o, v in vs.items()},
    }
    (run / "report.json").write_text(json.dumps(report))
    (run / "eval" / "pairs.csv").write_text("agent,opponent,wins\n")
    _fake_checkpoint(run / "checkpoints" / "final.zip", seed)
    if time_text is not None:
        (runs / f"{config}-{seed}.time").write_text(time_text)


def test_time_v_is_parsed_and_anything_else_refused():
    assert collect.parse_time(TIME_V) == {
        "wall_seconds": 3723.5,
        "user_seconds": 812.5,
        "system_seconds": 7.5,
        "max_rss_kb": 1048576,
    }
    with pytest.raises(ValueError, match=r"^no user_seconds in the time report \(expected GNU time -v output\)$"):
        collect.parse_time("real 0m1.0s")


def test_runs_over_seeds_are_collected_and_summarized(tmp_path):
    runs, root = tmp_path / "runs", tmp_path / "seeds"
    for seed, (r, g) in enumerate(((1.0, 0.5), (0.9, 0.25), (0.95, 0.6))):
        _fake_run(runs, "ataxx_quick", seed, {"random": r, "greedy": g})
    _fake_run(runs, "not_a_quick_config", 0, {"random": 1.0, "greedy": 1.0})
    written = collect.collect(runs, root)
    assert [p.relative_to(root).as_posix() for p in written] == [
        "ataxx_quick/seed0",
        "ataxx_quick/seed1",
        "ataxx_quick/seed2",
    ]
    digests = [
        json.loads((root / "ataxx_quick" / f"seed{i}" / "weights.json").read_text())["policy_sha256"] for i in range(3)
    ]
    assert len(set(digests)) == 3 and digests[1] == collect.policy_digest(runs / "ataxx_quick-1/checkpoints/final.zip")
    s = collect.summary("ataxx_quick", root)
    assert s["seeds"] == [0, 1, 2] and s["greedy"]["per_seed"] == [0.5, 0.25, 0.6]
    assert s["random"]["mean"] == pytest.approx(0.95) and (s["random"]["min"], s["random"]["max"]) == (0.9, 1.0)
    assert s["greedy"]["mean"] == pytest.approx(0.45) and s["wall_minutes"]["max"] == pytest.approx(3723.5 / 60)
    assert s["cpu_minutes"]["min"] == pytest.approx(820 / 60) and s["max_rss_gb"] == 1.0
    assert collect.table(root).splitlines()[2] == (
        "| `ataxx_quick` | 0, 1, 2 | 0.950 [0.900, 1.000] | 0.450 [0.250, "
        "0.600] | 0.500 / 0.250 / 0.600 | 62.1 to 62.1 min | 13.7 to 13.7 min |"
        "  |"
    )
    with pytest.raises(LookupError, match="^no collected run of twixt_quick in "):
        collect.summary("twixt_quick", root)


def test_a_bad_run_is_refused_before_anything_is_written(tmp_path):
    # found by a newcomer's test: tracebacks, half-copied seeds, smoke runs and mixed budgets collected
    runs, out = tmp_path / "runs", tmp_path / "out"
    _fake_run(runs, "ataxx_quick", 0, {"random": 1.0, "greedy": 0.5})
    _fake_run(runs, "ataxx_quick", 1, {"random": 1.0, "greedy": 0.5})
    report = runs / "ataxx_quick-1" / "report.json"
    good = report.read_text()
    for text, message in (
        (good.replace('"seed": 1', '"seed": 2'), r"ataxx_quick-1: its report says ataxx_quick seed 2$"),
        (good[:-1] + ', "smoke": true}', r"ataxx_quick-1: a --smoke run \(4096 timesteps\), not a result$"),
        ("{not json", r"report.json: not a training.train report \(JSONDecodeError"),
        ('{"config": "ataxx_quick"}', r"report.json: not a training.train report \(KeyError"),
    ):
        report.write_text(text)
        with pytest.raises(ValueError, match=message):
            collect.collect(runs, out)
        assert not out.exists()
    report.write_text(good)
    (runs / "ataxx_quick-1" / "eval" / "pairs.csv").unlink()
    with pytest.raises(FileNotFoundError, match=r"ataxx_quick-1: no eval/pairs.csv \(not a finished"):
        collect.collect(runs, out)
    (runs / "ataxx_quick-1" / "eval" / "pairs.csv").write_text("agent\n")
    (runs / "ataxx_quick-1.time").write_text("real 0m1s")
    with pytest.raises(ValueError, match=r"ataxx_quick-1.time: no user_seconds in the time report"):
        collect.collect(runs, out)
    assert not out.exists()
    (runs / "ataxx_quick-1.time").unlink()
    final = runs / "ataxx_quick-1" / "checkpoints" / "final.zip"
    final.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match=r"final.zip: not a training.train checkpoint \(BadZipFile"):
        collect.collect(runs, out)
    assert not out.exists()
    _fake_checkpoint(final, 1)
    (runs / "ataxx_quick-01").mkdir()  # not a seed's spelling: ignored
    assert [p.name for p in collect.collect(runs, out)] == ["seed0", "seed1"]
    with pytest.raises(ValueError, match=r"^ataxx_quick: only some seeds have time.json; time all of them or none$"):
        collect.summary("ataxx_quick", out)
    (out / "ataxx_quick" / "seed_old").mkdir()  # not a seed directory: ignored
    _fake_run(runs, "ataxx_quick", 2, {"random": 1.0, "greedy": 0.5})
    (runs / "ataxx_quick-2" / "report.json").write_text(
        (runs / "ataxx_quick-2" / "report.json").read_text().replace("4096", "64")
    )
    for f in ("ataxx_quick-0.time", "ataxx_quick-1.time"):
        (runs / f).write_text(TIME_V)
    collect.collect(runs, out)
    with pytest.raises(ValueError, match=r"^ataxx_quick: the seeds' runs differ in timesteps or games per opponent"):
        collect.summary("ataxx_quick", out)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="empty: no run directory <config>-<seed> of ataxx_quick, "):
        collect.collect(empty, out)


def test_the_collect_command_reports_errors_in_one_line(tmp_path):
    run = subprocess.run(
        [sys.executable, "results/seeds/collect.py", str(tmp_path)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1 and run.stdout == ""
    assert run.stderr == f"error: {tmp_path}: no run directory <config>-<seed> of {', '.join(collect.CONFIGS)}\n"


def test_the_policy_digest_reads_the_weights_not_the_file(tmp_path):
    _fake_checkpoint(tmp_path / "a.zip", 1)
    _fake_checkpoint(tmp_path / "b.zip", 1, save_extra=True)  # other key order, an optimizer file beside
    _fake_checkpoint(tmp_path / "c.zip", 2)
    assert (tmp_path / "a.zip").read_bytes() != (tmp_path / "b.zip").read_bytes()
    assert collect.policy_digest(tmp_path / "a.zip") == collect.policy_digest(tmp_path / "b.zip")
    assert collect.policy_digest(tmp_path / "a.zip") != collect.policy_digest(tmp_path / "c.zip")


def test_seed_0_of_every_quick_config_trained_the_shipped_agent_bit_for_bit():
    # results/seeds/<config>/seed0: trained by the code of the seeds' runs; the shipped agent: by the quick
    # config's seed-0 run at an earlier commit (training/shipped/index.json), on another day, under other load
    for config in collect.CONFIGS:
        recorded = json.loads((REPO_ROOT / "results" / "seeds" / config / "seed0" / "weights.json").read_text())
        assert recorded["policy_sha256"] == collect.policy_digest(REPO_ROOT / "training" / "shipped" / f"{config}.zip")
        alone = json.loads((REPO_ROOT / "results" / "seeds" / config / "alone" / "weights.json").read_text())
        assert alone == recorded  # seed 0 again, alone on the machine


def test_a_missing_readme_or_results_file_is_one_line_not_a_traceback(tmp_path):
    run = subprocess.run(
        [sys.executable, "results/check_readme.py", "--readme", str(tmp_path / "nope.md")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith("error: FileNotFoundError: ") and run.stderr.count("\n") == 1
    (tmp_path / "README.md").write_text("# no results here\n")
    run = subprocess.run(
        [sys.executable, "results/check_readme.py", "--readme", str(tmp_path / "README.md")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2 and run.stderr == (
        "error: ValueError: the page has no '# Results' title and no '## Results' section\n"
    )


def test_runs_alone_go_to_alone_and_are_compared_with_seed_0(tmp_path):
    runs, alone, root = tmp_path / "runs", tmp_path / "alone", tmp_path / "seeds"
    for seed in range(3):
        _fake_run(runs, "ataxx_quick", seed, {"random": 1.0, "greedy": 0.5})
    collect.collect(runs, root)
    _fake_run(alone, "ataxx_quick", 1, {"random": 1.0, "greedy": 0.5})
    with pytest.raises(ValueError, match=r"a run alone is seed 0's with its .time file; ataxx_quick-1 is not seed 0$"):
        collect.collect(alone, root, alone=True)
    _fake_run(alone, "ataxx_quick", 0, {"random": 1.0, "greedy": 0.5}, time_text=None)
    (alone / "ataxx_quick-1.time").unlink()
    import shutil

    shutil.rmtree(alone / "ataxx_quick-1")
    with pytest.raises(ValueError, match=r"ataxx_quick-0 is not timed$"):
        collect.collect(alone, root, alone=True)
    (alone / "ataxx_quick-0.time").write_text(TIME_V.replace("1:02:03.5", "7:30.0"))
    assert [p.name for p in collect.collect(alone, root, alone=True)] == ["alone"]
    s = collect.summary("ataxx_quick", root)
    assert s["seeds"] == [0, 1, 2] and s["alone"] == {
        "wall_minutes": 7.5,
        "cpu_minutes": 820 / 60,
        "same_weights_as_seed0": True,
    }
    assert collect.table(root).splitlines()[2].endswith("| 7.5 min wall, 13.7 min CPU, same weights |")
    _fake_checkpoint(alone / "ataxx_quick-0" / "checkpoints" / "final.zip", 5)  # other weights
    collect.collect(alone, root, alone=True)
    assert collect.table(root).splitlines()[2].endswith("| 7.5 min wall, 13.7 min CPU, OTHER WEIGHTS |")


def test_an_alphazero_folder_without_ppo_agent_and_with_a_ladder_gives_its_lines(tmp_path, monkeypatch):
    """A setting with no PPO agent (TwixT 24x24): the row says so and the curve is against greedy
    alone; a ladder/ gives one line, its agents in the file's order."""
    folder = tmp_path / "alphazero" / "twixt24_az-0"
    (folder / "gauntlet").mkdir(parents=True)
    (folder / "ladder").mkdir()
    (folder / "run.json").write_text(json.dumps({"env_id": "twixt_v0", "positions": 215040, "train_seconds": 3600.0}))
    (folder / "about.json").write_text(json.dumps({"simulations": 64, "commands": []}))
    write_csv(
        folder / "gauntlet" / "pairs.csv",
        PAIR_FIELDS,
        [
            ["az:r/final.pt:64", "random", 400, 400, 0, 0, 1.0, 0.99, 1.0],
            ["az:r/final.pt:64", "greedy", 400, 380, 0, 20, 0.95, 0.92, 0.97],
        ],
    )
    write_csv(
        folder / "ladder" / "pairs.csv",
        PAIR_FIELDS,
        [["random", "greedy", 50, 1, 0, 49, 0.02, 0.0, 0.1], ["greedy", "random", 50, 49, 0, 1, 0.98, 0.9, 1.0]],
    )
    write_csv(
        folder / "ladder" / "ratings.csv",
        ["rank", "name", "games", "elo", "elo_ci95_low", "elo_ci95_high"],
        [
            [1, "az:r/final.pt:64", 800, 1400.4, 1200, 1600],
            [2, "greedy", 450, 650.2, 500, 800],
            [3, "random", 450, 0, 0, 0],
        ],
    )
    write_csv(folder / "curve.csv", CURVE_FIELDS, [["final.pt", 215040, 3600, 0.95, 0.9, 0.98]])
    monkeypatch.setattr(check_readme, "RESULTS", tmp_path)
    lines = {c.template.split(" ")[0]: c for c in check_readme.alphazero_claims()}
    row = lines["|"]
    assert row.template.endswith(
        "| {} [{}, {}] | {} [{}, {}] | not played | not played | not played | no PPO agent of this setting |"
    )
    assert row.values == [215040.0, 60.0, 64.0, 1.0, 0.99, 1.0, 0.95, 0.92, 0.97]
    ladder = lines["Ladder"]
    assert ladder.template == (
        "Ladder of `twixt24_az` seed 0 (the gauntlet and the opponents' round robin of {} games a pair, random = 0): "
        "the AlphaZero agent {} [{}, {}], `greedy` {} [{}, {}], `random` {} [{}, {}]"
    )
    assert ladder.values == [50.0, 1400.4, 1200.0, 1600.0, 650.2, 500.0, 800.0, 0.0, 0.0, 0.0]
    curve = lines["Curve"]
    assert curve.template == "Curve of `twixt24_az` seed 0 (against greedy): {} min: {} [{}, {}]"
    assert curve.values == [60.0, 0.95, 0.9, 0.98]


def test_a_further_tournament_with_openings_says_so(tmp_path, monkeypatch):
    """A ``vs_*/`` folder made by ``az_results.py --against ... --opening-plies K`` (its settings.json
    names K; its pairs.csv counts the distinct games): the line says both; one without settings.json
    (an older further tournament) gives the plain line; a curve played from openings says so, and
    names the setting's PPO agent where the curve played it though the gauntlet did not."""
    folder = tmp_path / "alphazero" / "ataxx_az-0"
    for sub in ("gauntlet", "vs_ppo_openings", "vs_alphabeta3"):
        (folder / sub).mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"env_id": "ataxx_v0", "positions": 1024, "train_seconds": 120.0}))
    (folder / "about.json").write_text(json.dumps({"simulations": 64, "commands": [], "curve_opening_plies": 2}))
    write_csv(
        folder / "gauntlet" / "pairs.csv", PAIR_FIELDS, [["az:r/final.pt:64", "greedy", 400, 400, 0, 0, 1, 0.99, 1]]
    )
    ppo_fields = ["score_vs_ataxx_quick", "ci95_low_vs_ataxx_quick", "ci95_high_vs_ataxx_quick"]
    write_csv(
        folder / "curve.csv", CURVE_FIELDS + ppo_fields, [["final.pt", 1024, 120, 0.97, 0.93, 0.99, 0.8, 0.7, 0.9]]
    )
    write_csv(
        folder / "vs_ppo_openings" / "pairs.csv",
        [*PAIR_FIELDS, "distinct_games"],
        [["az:r/final.pt:64", "ataxx_quick", 400, 350, 10, 40, 0.8875, 0.853, 0.915, 397]],
    )
    (folder / "vs_ppo_openings" / "settings.json").write_text(json.dumps({"opening_plies": 2}))
    write_csv(
        folder / "vs_alphabeta3" / "pairs.csv",
        PAIR_FIELDS,
        [["az:r/final.pt:64", "alphabeta:3", 400, 276, 0, 124, 0.69, 0.643, 0.733]],
    )
    monkeypatch.setattr(check_readme, "RESULTS", tmp_path)
    lines = [c for c in check_readme.alphazero_claims() if c.template.startswith("`ataxx_az` seed 0")]
    assert [c.template for c in lines] == [
        "`ataxx_az` seed 0 at 64 simulations against `alphabeta:3`: {} / {} / {} = {} [{}, {}]",
        "`ataxx_az` seed 0 at 64 simulations against `ataxx_quick` from openings of {} random plies "
        "({} distinct games): {} / {} / {} = {} [{}, {}]",
    ]
    assert lines[1].values == [2.0, 397.0, 350.0, 10.0, 40.0, 0.8875, 0.853, 0.915]
    assert lines[1].formats == ["{:.0f}"] * 5 + ["{:.3f}"] * 3
    assert lines[1].source.endswith("vs_ppo_openings/pairs.csv, settings.json")
    curve = next(c for c in check_readme.alphazero_claims() if c.template.startswith("Curve"))
    # the gauntlet did not play the PPO agent, the curve did: the line gives both of the curve's opponents
    assert curve.template == (
        "Curve of `ataxx_az` seed 0 (against greedy and `ataxx_quick`, from openings of 2 random plies): "
        "{} min: {} [{}, {}] and {} [{}, {}]"
    )
    assert curve.values == [2.0, 0.97, 0.93, 0.99, 0.8, 0.7, 0.9]


def test_a_further_tournament_of_the_shipped_agent_made_from_the_folder_gives_its_line(tmp_path, monkeypatch):
    """A ``vs_*/`` tournament played by a shipped AlphaZero agent's name (``NAME:SIMS``) counts as the
    folder's agent when the index says it was made from the folder's final.pt (``source_sha256`` =
    about.json's ``final_sha256``); under another digest it is not this folder's agent: no line."""
    from training.agents.shipped import shipped_agents

    made = next(a for a in shipped_agents() if a.name == "tantrix_az_full")
    for name, digest in (("tantrix_az_full-0", made.source_sha256), ("tantrix_az_full_p9-0", "0" * 64)):
        folder = tmp_path / "alphazero" / name
        for sub in ("gauntlet", "vs_robot128"):
            (folder / sub).mkdir(parents=True)
        run = {"env_id": "tantrix_v0", "env_kwargs": {"num_players": 2}, "positions": 1024, "train_seconds": 60.0}
        (folder / "run.json").write_text(json.dumps(run))
        (folder / "about.json").write_text(json.dumps({"simulations": 64, "commands": [], "final_sha256": digest}))
        write_csv(
            folder / "gauntlet" / "pairs.csv",
            PAIR_FIELDS,
            [["az:r/final.pt:64", "robot", 400, 194, 35, 171, 0.529, 0.479, 0.578]],
        )
        write_csv(
            folder / "vs_robot128" / "pairs.csv",
            [*PAIR_FIELDS, "distinct_games"],
            [
                ["tantrix_az_full:128", "robot", 400, 205, 20, 175, 0.5375, 0.4885, 0.5858, 400],
                ["robot", "tantrix_az_full:128", 400, 175, 20, 205, 0.4625, 0.4142, 0.5115, 400],
            ],
        )
    monkeypatch.setattr(check_readme, "RESULTS", tmp_path)
    lines = [c for c in check_readme.alphazero_claims() if "against `robot`:" in c.template]
    assert [c.template for c in lines] == [
        "`tantrix_az_full` seed 0 at 128 simulations against `robot`: {} / {} / {} = {} [{}, {}]"
    ]
    assert lines[0].values == [205.0, 20.0, 175.0, 0.5375, 0.4885, 0.5858]
    assert lines[0].source == "alphazero/tantrix_az_full-0/vs_robot128/pairs.csv"


def test_an_alphazero_folder_of_a_game_with_hidden_information_goes_to_its_own_part(tmp_path, monkeypatch):
    """A run whose game the registry says has hidden information (Smartrix) is a row of the part
    **Gumbel AlphaZero with chance and hidden hands**, with that part's opponents (``mcts:200`` and
    ``robot`` in place of ``alphabeta:2`` and ``mcts:1000``); a game of perfect information stays
    in **Gumbel AlphaZero**; and the curve gives only the opponents its file holds."""
    for name, env_id in (("smartrix_az-0", "smartrix_v0"), ("ataxx_az-0", "ataxx_v0")):
        folder = tmp_path / "alphazero" / name
        (folder / "gauntlet").mkdir(parents=True)
        (folder / "run.json").write_text(json.dumps({"env_id": env_id, "positions": 1024, "train_seconds": 120.0}))
        (folder / "about.json").write_text(json.dumps({"simulations": 16, "commands": []}))
        pairs = [
            ["az:r/final.pt:16", "greedy", 400, 280, 0, 120, 0.7, 0.65, 0.75],
            ["az:r/final.pt:16", "mcts:200", 400, 240, 0, 160, 0.6, 0.55, 0.65],
        ]
        if env_id == "smartrix_v0":
            pairs.append(["az:r/final.pt:16", "smartrix_quick", 400, 320, 0, 80, 0.8, 0.76, 0.84])
        write_csv(folder / "gauntlet" / "pairs.csv", PAIR_FIELDS, pairs)
        write_csv(folder / "curve.csv", CURVE_FIELDS, [["final.pt", 1024, 120, 0.7, 0.6, 0.8]])
    monkeypatch.setattr(check_readme, "RESULTS", tmp_path)
    claims = check_readme.alphazero_claims()
    rows = {c.template.split(" | ")[0]: c for c in claims if c.template.startswith("|")}
    chance = rows["| `smartrix_az`"]
    assert chance.part == "**Gumbel AlphaZero with chance and hidden hands**"
    assert chance.template.endswith(
        "| {} | not played | {} [{}, {}] | not played | {} [{}, {}] | not played | {} [{}, {}] (`smartrix_quick`) |"
    )
    assert chance.values == [1024.0, 2.0, 16.0, 0.7, 0.65, 0.75, 0.6, 0.55, 0.65, 0.8, 0.76, 0.84]
    perfect = rows["| `ataxx_az`"]  # mcts:200 is not one of this part's opponents: its PPO column
    assert perfect.part == "**Gumbel AlphaZero**"
    assert perfect.template.endswith("| not played | not played | {} [{}, {}] (`mcts:200`) |")
    curves = [c for c in claims if c.template.startswith("Curve of `smartrix_az`")]
    assert [c.template for c in curves] == ["Curve of `smartrix_az` seed 0 (against greedy): {} min: {} [{}, {}]"]


def test_an_alphazero_alone_folder_gives_one_line_per_opponent(tmp_path, monkeypatch):
    """``results/alphazero_alone/<NAME>/alone.json`` (results/az_alone.py): one passage per opponent,
    in the part of the run's game, with the simulations, games, W / D / L, score and interval."""
    folder = tmp_path / "alphazero_alone" / "smartrix_4p_az-0"
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({"env_id": "smartrix_v0", "positions": 1024, "train_seconds": 60.0}))
    row = {"opponent_in_other_seats": "greedy", "simulations": 16, "games": 400, "wins": 250, "draws": 2}
    row |= {"losses": 148, "score": 0.6275, "score_ci95_low": 0.58, "score_ci95_high": 0.67}
    (folder / "alone.json").write_text(json.dumps([row]))
    monkeypatch.setattr(check_readme, "RESULTS", tmp_path)
    [claim] = check_readme.alphazero_alone_claims()
    assert claim.part == "**Gumbel AlphaZero with chance and hidden hands**"
    assert claim.template == (
        "`smartrix_4p_az` seed 0 alone against `greedy` in every other seat ({} simulations, {} games): "
        "{} / {} / {} = {} [{}, {}]"
    )
    assert claim.values == [16.0, 400.0, 250.0, 2.0, 148.0, 0.6275, 0.58, 0.67]
