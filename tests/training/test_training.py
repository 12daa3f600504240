"""End-to-end smoke test of the main job: self-play training, checkpoints, evaluation report."""

import importlib.metadata
import json
import re

import pytest

pytest.importorskip("sb3_contrib")

from conftest import REPO_ROOT  # noqa: E402
from training.environment import Environment  # noqa: E402
from training.train import load_config, main, train  # noqa: E402


def small_config(tmp_path):
    cfg = load_config("configs/ataxx_quick.yaml", total_timesteps=1024)
    cfg["n_envs"] = 4
    cfg["ppo"].update(n_steps=128, batch_size=128, n_epochs=1)
    cfg["pool"]["snapshot_every"] = 512
    cfg["eval"].update(every=512, games=2)
    cfg["checkpoint_every"] = 512
    cfg["final_eval"]["games"] = 4
    cfg["max_steps"] = 200
    return cfg


def test_training_smoke_writes_checkpoints_and_report(tmp_path):
    cfg = small_config(tmp_path)
    out = tmp_path / "run"
    report = train(cfg, out, progress_bar=False)
    assert report["timesteps"] == 1024
    assert (out / "checkpoints" / "final.zip").is_file()
    assert (out / "checkpoints" / "step_512.zip").is_file()
    assert (out / "config.yaml").is_file() and "seed: 0" in (out / "config.yaml").read_text()
    again = load_config(out / "config.yaml")  # a run's resolved config loads back as it was
    # (all but `measured`, the shipped config's timing note, which a run's config.yaml leaves out)
    assert again.to_dict() == cfg.to_dict() and again["name"] == "ataxx_quick"
    assert again.measured.minutes is None and cfg.measured.minutes is not None
    assert (out / "logs" / "progress.csv").is_file()
    assert (out / "learning_curve.png").stat().st_size > 1000
    for name in ("results.json", "pairs.csv", "ratings.csv", "ratings.png"):
        assert (out / "eval" / name).is_file(), name
    saved = json.loads((out / "report.json").read_text())
    assert saved["seed"] == 0 and saved["env_id"] == "ataxx_v0"
    for spec in ("random", "greedy"):
        r = saved["vs"][spec]
        assert r["games"] == 4 and r["wins"] + r["draws"] + r["losses"] == 4
    assert [row["timesteps"] for row in saved["periodic_eval"]] == [512, 1024]


def test_resume_continues_the_timestep_count(tmp_path):
    cfg = small_config(tmp_path)
    cfg["total_timesteps"] = 512
    cfg["eval"]["every"] = 10**9
    first = train(cfg, tmp_path / "a", progress_bar=False)
    cfg["ppo"]["learning_rate"] = 1.0e-3  # the config's hyperparameters replace the checkpoint's
    cfg["checkpoint_every"] = 256
    second = train(cfg, tmp_path / "b", resume=first["checkpoint"], progress_bar=False)
    assert second["timesteps"] == 1024 and second["timesteps_this_run"] == 512
    from sb3_contrib import MaskablePPO

    resumed = MaskablePPO.load(second["checkpoint"])
    assert resumed.learning_rate == 1.0e-3
    # The checkpoint schedule continues from 512 instead of restarting at 256.
    assert sorted(p.name for p in (tmp_path / "b" / "checkpoints").iterdir()) == [
        "final.zip",
        "step_1024.zip",
        "step_768.zip",
    ]


def test_config_errors(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("env_id: ataxx_v0\nppo: {learning_rat: 0.1}\n")
    with pytest.raises(ValueError, match="unknown config key 'ppo.learning_rat'"):
        load_config(bad)
    with pytest.raises(FileNotFoundError):
        load_config(tmp_path / "missing.yaml")
    with pytest.raises(SystemExit):
        main([str(bad)])


def test_cli_validates_the_config_once_and_still_refuses_bad_values(tmp_path, monkeypatch, capsys):
    import training.runs as runs
    import training.train as tt

    bad = tmp_path / "bad.yaml"
    bad.write_text("env_id: ataxx_v0\ntorch_threads: 0\n")
    with pytest.raises(SystemExit):
        main([str(bad), "--out", str(tmp_path / "r")])
    assert "'torch_threads' must be a positive integer, got 0" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()  # refused before anything is written

    calls = []
    real = runs.validate_config
    monkeypatch.setattr(runs, "validate_config", lambda cfg, **kw: (calls.append(kw), real(cfg, **kw))[1])

    def stop(out, overwrite=False):  # train() prepares the run directory right after validating
        raise tt.ConfigError("stopped after validation")

    monkeypatch.setattr(runs, "prepare_out_dir", stop)
    with pytest.raises(SystemExit):
        main(["configs/ataxx_quick.yaml", "--out", str(tmp_path / "r")])
    assert "stopped after validation" in capsys.readouterr().err
    assert calls == [{"check_teacher": True}]  # once (it builds the env and every agent), in train()


@pytest.mark.parametrize(
    "yaml_text, message",
    [
        ("ppo: {learning_rate: 3e-4}\n", "ppo.learning_rate' must be a positive number \\(YAML reads 3e-4 as text"),
        ("policy: {net_arch: {pi: [], vff: [64]}}\n", "policy.net_arch"),
        ("policy: {features_kwargs: {channel: 64}}\n", "policy.features_kwargs"),
        ("policy: {head: spatil}\n", "policy.head"),
        ("policy: {value_head: pool}\n", "policy.value_head.*'dense' or 'pooled'"),
        ("policy: {value_head: pooled, head: linear}\n", "policy.value_head.*needs the spatial policy"),
        ("policy: {head: factored}\n", "policy.head.*describes no planes for a factored head"),
        (
            "env_id: tantrix_v0\n"
            "policy: {features: hex_board_net, head: factored, features_kwargs: {board_key: hands}}\n",
            "policy.features_kwargs.board_key' must be absent or 'board'",
        ),
        ("env_id: ataxx_v1\n", "unknown environment id 'ataxx_v1'"),
        ("env_kwargs: {fenn: x}\n", "no argument 'fenn'"),
        ("env_kwargs: {fen: garbage}\n", "malformed FEN"),
        ("max_steps: -5\n", "max_steps"),
        ("torch_threads: 0\n", "torch_threads"),
        ("shaping: -0.5\n", "shaping. must be a number >= 0"),
        ("pool: {baselines: [random, gredy]}\n", "pool.baselines.*unknown agent spec 'gredy'"),
        ("pool: {baseline_prob: 0.9}\n", "at most 1"),
        ("final_eval: {opponents: [random, gredy]}\n", "final_eval.opponents"),
        ("final_eval: {games: 0}\n", "final_eval.games"),
        ("eval: {every: 0}\n", "eval.every"),
        ("checkpoint_every: -1\n", "checkpoint_every"),
        ("ppo: {n_steps: 0}\n", "ppo.n_steps"),
        ("ppo: {batch_size: -1}\n", "ppo.batch_size"),
        ("total_timesteps: -10\n", "total_timesteps"),
        ("a: [unclosed\n", "not valid YAML"),
        # the warm start (training/pretrain.py) and the value head
        ("pretrain: {teacher: gredy}\n", "pretrain.teacher.*unknown agent spec 'gredy'"),
        ("pretrain: {teacher: greedy, games: 0}\n", "pretrain.games"),
        ("pretrain: {teacher: greedy, learning_rate: 1e-3}\n", "pretrain.learning_rate"),
        ("pretrain: {teacher: 5}\n", "pretrain.teacher"),
        ("pretrain: {teachr: greedy}\n", "unknown config key 'pretrain.teachr'"),
        # alpha-beta plays two sides only: refused before anything runs, naming the key
        (
            "env_id: smartrix_v0\nenv_kwargs: {num_players: 4}\npolicy: {features: card_table_net, head: linear}\n"
            "pretrain: {teacher: 'alphabeta:1'}\n",
            "pretrain.teacher.*cannot play smartrix_v0",
        ),
        # every opponent must play the game, or the run stops at its first game with it (found by a newcomer's test)
        (
            "pool: {baselines: [random, 'robot:0']}\n",
            "'pool.baselines' 'robot:0' cannot play ataxx_v0 with these env_kwargs: "
            "agent 'robot' is offered by Tantrix only",
        ),
        ("eval: {opponents: [robot]}\n", "'eval.opponents' 'robot' cannot play ataxx_v0"),
        ("final_eval: {opponents: [greedy, 'robot:1']}\n", "'final_eval.opponents' 'robot:1' cannot play ataxx_v0"),
        ("pretrain: {games: -5}\n", "pretrain.games"),  # checked with or without a teacher
        ("pretrain: {teacher: greedy, learning_rate: 1000.0}\n", "pretrain.learning_rate.*\\(0, 1\\]"),
        ("policy: {value_head: pooled, net_arch: {pi: [], vf: []}}\n", "non-empty vf list"),
        ("policy: {features_kwargs: {channels: 8, blocks: 1, features_dim: 256}}\n", "features_dim"),
        ("policy: {features: [board_cnn]}\n", "policy.features"),
        # found by a newcomer's test: an extractor that cannot read the game's observation, a misleading hint
        (
            "policy: {features: hex_board_net, features_kwargs: {}}\n",
            "policy.features' 'hex_board_net' cannot read the observation of ataxx_v0: HexBoardTrunk needs a Dict",
        ),
        ("ppo: {learning_rate: -1}\n", "ppo.learning_rate' must be a positive number, got -1$"),
    ],
)
def test_every_bad_config_value_fails_before_training(tmp_path, yaml_text, message):
    bad = tmp_path / "bad.yaml"
    if not yaml_text.startswith("env_id"):  # every config names its environment
        yaml_text = "env_id: ataxx_v0\n" + yaml_text
    bad.write_text(yaml_text)
    with pytest.raises(ValueError, match=message):
        load_config(bad)


def test_cli_final_games_overrides_the_final_tournament_and_a_bad_out_is_a_clear_error(tmp_path, monkeypatch, capsys):
    import training.train as tt

    (tmp_path / "file.txt").write_text("x")
    with pytest.raises(SystemExit):
        main(["configs/ataxx_quick.yaml", "--out", str(tmp_path / "file.txt" / "run")])
    assert f"cannot create or write the run directory {tmp_path / 'file.txt' / 'run'}: " in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["configs/ataxx_quick.yaml", "--final-games", "0", "--out", str(tmp_path / "r0")])
    assert "argument --final-games: expected a positive integer (at least 1), got 0" in capsys.readouterr().err
    seen = {}

    def fake_train(cfg, out, **kw):
        seen.update(cfg)
        raise tt.ConfigError("stop")

    monkeypatch.setattr(tt, "train", fake_train)
    with pytest.raises(SystemExit):
        main(["configs/smartrix_full.yaml", "--final-games", "3", "--out", str(tmp_path / "r1")])
    assert seen["final_eval"]["games"] == 3 and seen["final_eval"]["opponents"] == ["random", "greedy", "mcts:200"]


def test_run_directory_must_be_empty_unless_overwrite(tmp_path):
    from training.config import ConfigError
    from training.runs import prepare_out_dir

    out = tmp_path / "run"
    out.mkdir()
    (out / "old.txt").write_text("x")
    with pytest.raises(ConfigError, match="not empty"):
        prepare_out_dir(out)
    prepare_out_dir(out, overwrite=True)
    assert list(out.iterdir()) == []
    with pytest.raises(SystemExit):
        main(["configs/ataxx_quick.yaml", "--resume", str(tmp_path / "missing.zip"), "--out", str(tmp_path / "r")])
    assert not (tmp_path / "r").exists()  # nothing written before the error


#: Every shipped config.
#: (The RLlib configs, ``engine: rllib``, are smoke-run by tests/training/test_rllib_train.py, the
#: AlphaZero ones, ``engine: alphazero``, by tests/training/test_alphazero.py.)
CONFIGS = sorted(
    str(p.relative_to(REPO_ROOT))
    for p in (REPO_ROOT / "configs").glob("*.yaml")
    if "\nengine: rllib" not in p.read_text() and "\nengine: alphazero" not in p.read_text()
)


def test_every_game_has_a_quick_and_a_full_config():
    names = {p.stem for p in (REPO_ROOT / "configs").glob("*.yaml")}
    for game in ("ataxx", "twixt", "double_twixt", "tantrix", "smartrix"):
        assert {f"{game}_quick", f"{game}_full"} <= names


def test_smoke_config_shrinks_every_budget_and_nothing_else():
    from training.engines.sb3.config import SMOKE

    cfg = load_config("configs/tantrix_4p_quick.yaml")
    small = cfg.smoke()
    assert cfg["total_timesteps"] == 32768 and cfg["pretrain"]["games"] == 1000  # the original is untouched
    rollout = SMOKE["n_envs"] * SMOKE["n_steps"]
    assert rollout == 64
    assert (
        small["total_timesteps"],
        small["n_envs"],
        small["ppo"]["n_steps"],
        small["ppo"]["batch_size"],
        small["ppo"]["n_epochs"],
    ) == (64, 2, 32, 64, 1)
    assert (small["pool"]["snapshot_every"], small["eval"]["every"], small["checkpoint_every"]) == (64, 64, 64)
    assert (small["pretrain"]["games"], small["pretrain"]["epochs"]) == (2, 1)
    assert (small["eval"]["games"], small["final_eval"]["games"]) == (2, SMOKE["final_games"])
    # The game, the network, the opponents and the episode limit stay as configured.
    for key in ("env_id", "env_kwargs", "max_steps", "seed", "policy", "shaping", "name"):
        assert small[key] == cfg[key], key
    assert small["env_kwargs"]["window_radius"] == 10
    assert small["eval"]["opponents"] == cfg["eval"]["opponents"]
    assert small["final_eval"]["opponents"] == cfg["final_eval"]["opponents"]
    assert small["pretrain"]["teacher"] == "greedy" and small["pool"]["baselines"] == cfg["pool"]["baselines"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--seed", "-1"], "argument --seed: expected a non-negative integer, got -1"),
        (["--timesteps", "0"], "argument --timesteps: expected a positive integer (at least 1), got 0"),
    ],
)
def test_cli_number_options_use_the_shared_argument_types(tmp_path, capsys, argv, message):
    with pytest.raises(SystemExit) as exc:
        main(["configs/ataxx_quick.yaml", "--out", str(tmp_path / "r"), *argv])
    assert exc.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_smoke_flag_default_run_directory_and_explicit_options_win(monkeypatch, capsys):
    from pathlib import Path

    import training.train as tt

    seen = {}

    def fake_train(cfg, out, **kw):
        seen.update(cfg=cfg, out=out, **kw)
        raise tt.ConfigError("stop")

    monkeypatch.setattr(tt, "train", fake_train)
    with pytest.raises(SystemExit):
        main(["configs/ataxx_quick.yaml", "--smoke", "--timesteps", "128", "--final-games", "3"])
    assert "stop" in capsys.readouterr().err
    assert seen["out"] == Path("runs") / "ataxx_quick-0-smoke" and seen["smoke"] is True
    cfg = seen["cfg"]
    assert (cfg["total_timesteps"], cfg["final_eval"]["games"], cfg["n_envs"], cfg["eval"]["games"]) == (128, 3, 2, 2)


@pytest.mark.parametrize("config", CONFIGS)
def test_every_config_smoke_runs_end_to_end(tmp_path, config, monkeypatch, capsys):
    """``python -m training.train CONFIG --smoke``: warm start, training, snapshots, periodic
    evaluation, checkpoints, the final tournament and the report, on every shipped config."""
    from training.engines.sb3.config import SMOKE

    monkeypatch.chdir(REPO_ROOT)
    out = tmp_path / "run"
    assert main([config, "--smoke", "--out", str(out), "--no-progress"]) == 0
    cfg = load_config(config)
    report = json.loads((out / "report.json").read_text())
    assert report["smoke"] is True and report["env_id"] == cfg["env_id"] and report["seed"] == cfg["seed"]
    # the software and machine (training.environment; tests/training/test_environment.py)
    assert set(report["environment"]) == Environment.__required_keys__
    assert report["environment"]["packages"]["stable-baselines3"] == importlib.metadata.version("stable-baselines3")
    assert report["environment"]["threads"]["config"] == cfg["torch_threads"]
    teacher = cfg["pretrain"]["teacher"]
    assert report["budgets"] == {
        "total_timesteps": 64,
        "n_envs": 2,
        "n_steps": 32,
        "pretrain_games": SMOKE["pretrain_games"] if teacher else None,
        "eval_every": 64,
        "eval_games": 2,
        "final_games": SMOKE["final_games"],
    }
    assert report["timesteps"] == report["timesteps_this_run"] == 64
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == (
        ["final.zip", "pretrained.zip", "step_64.zip"] if teacher else ["final.zip", "step_64.zip"]
    )
    saved = load_config(out / "config.yaml")  # the resolved config is the shrunk one
    assert saved["total_timesteps"] == 64 and saved["final_eval"]["games"] == SMOKE["final_games"]
    assert [row["timesteps"] for row in report["periodic_eval"]] == [64]
    assert set(report["periodic_eval"][0]) == {"timesteps", "episodes"} | {
        f"score_vs_{s}" for s in cfg["eval"]["opponents"]
    }
    assert set(report["vs"]) == set(cfg["final_eval"]["opponents"])
    for spec in cfg["final_eval"]["opponents"]:
        r = report["vs"][spec]
        assert r["games"] == SMOKE["final_games"] and r["wins"] + r["draws"] + r["losses"] == r["games"]
    if teacher:
        assert report["pretrain"]["games"] == SMOKE["pretrain_games"] and report["pretrain"]["teacher"] == teacher
        assert json.loads((out / "pretrain.json").read_text())["games"] == SMOKE["pretrain_games"]
    else:
        assert report["pretrain"] is None and not (out / "pretrain.json").exists()
    folders = (
        [out / "eval"]
        if report["ratings"] and isinstance(report["ratings"][0], dict)
        else [out / "eval" / f"vs_{s.replace('/', '_').replace(':', '_')}" for s in cfg["final_eval"]["opponents"]]
    )
    for folder in folders:
        assert sorted(p.name for p in folder.iterdir()) == ["pairs.csv", "ratings.csv", "ratings.png", "results.json"]
    if config.startswith("configs/double_twixt"):
        # One two-agent tournament per opponent: the trained agent always holds a whole team.
        for spec in ("random", "greedy"):
            games = json.loads((out / "eval" / f"vs_{spec}" / "results.json").read_text())["games"]
            assert len(games) == SMOKE["final_games"] and all(g["seats"][0] == g["seats"][2] for g in games)
    assert f"[run] directory {out} | env {cfg['env_id']}" in capsys.readouterr().out


@pytest.mark.parametrize("text", ["", "# only a comment\n", "{}\n", "name: x\n"])
def test_an_empty_config_is_an_error(tmp_path, text, capsys):
    empty = tmp_path / "empty.yaml"
    empty.write_text(text)
    with pytest.raises(ValueError, match="empty.yaml sets nothing .*at least env_id"):
        load_config(empty)
    with pytest.raises(SystemExit):
        main([str(empty), "--out", str(tmp_path / "r")])
    assert "sets nothing" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_a_failed_resume_leaves_nothing_and_the_same_command_fails_the_same_way(tmp_path, capsys):
    """An incompatible checkpoint (Ataxx spaces, a TwixT config) is refused after the run
    directory was prepared: nothing may be left there, so a second try says the same."""
    from conftest import tiny_checkpoint

    ckpt = tiny_checkpoint(tmp_path / "ataxx.zip")
    out = tmp_path / "runs" / "r"
    argv = ["configs/twixt_quick.yaml", "--resume", str(ckpt), "--out", str(out), "--no-progress"]
    for _ in range(2):
        with pytest.raises(SystemExit):
            main(argv)
        err = capsys.readouterr().err
        assert f"cannot resume from {ckpt}" in err and "not empty" not in err
        assert not out.exists()
    out.mkdir()  # a folder that existed (empty) before the run stays, empty
    with pytest.raises(SystemExit):
        main(argv)
    assert out.is_dir() and list(out.iterdir()) == []


def test_training_prints_the_run_and_an_estimate_before_training(tmp_path, capsys):
    cfg = small_config(tmp_path)
    cfg["total_timesteps"] = 600  # rounded up to two rollouts of 4 envs x 128 steps
    out = tmp_path / "run"
    report = train(cfg, out, progress_bar=False)
    assert report["timesteps"] == 1024
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        f"[run] directory {out} | env ataxx_v0 | 1,024 timesteps to train "
        "(600 asked, rounded up to whole rollouts of 512)"
    )
    # which games it steps (the batched core, or the reference state where the game has none: it says so)
    assert re.fullmatch(
        r"\[run\] 4 games stepped together, the opponents' moves batched \| backend '\w+'"
        r"( \(fell back from backend='batched': .*\))?",
        lines[1],
    ), lines[1]
    assert lines[2].startswith("[run] estimated training time: about ")
    assert "ms per step over 32 probe steps" in lines[2] and "4 updates per rollout of 512 steps" in lines[2]
    assert lines[2].endswith("then the final evaluation, 4 games per pair")
    assert min(i for i, line in enumerate(lines) if line.startswith("[eval]")) > 2  # before training output


def test_the_estimate_scales_with_the_timesteps_and_leaves_the_env_closed():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from training.engines.sb3.trainer import estimate_train_seconds
    from training.selfplay import SelfPlayEnv

    def vec():
        return DummyVecEnv([lambda: SelfPlayEnv("ataxx_v0", ["random"]) for _ in range(2)])

    model = MaskablePPO("MlpPolicy", vec(), n_steps=64, batch_size=64, n_epochs=2, device="cpu", seed=0)
    before = [p.detach().clone() for p in model.policy.parameters()]
    seconds, how = estimate_train_seconds(model, vec(), 128 * 10, probe_rounds=4)
    assert 0 < seconds < 600
    assert "over 8 probe steps" in how and "4 updates per rollout of 128 steps" in how
    assert all((a == b).all() for a, b in zip(before, model.policy.parameters()))  # weights untouched
    assert all(p.grad is None for p in model.policy.parameters())


def test_render_mode_in_the_config_env_kwargs_is_refused(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("env_id: ataxx_v0\nenv_kwargs: {render_mode: human}\n")
    with pytest.raises(ValueError, match="config 'env_kwargs.render_mode' must be absent .*got 'human'"):
        load_config(bad)


@pytest.mark.parametrize(
    "config, expected",
    [
        ("configs/ataxx_quick.yaml", {"channels": 64, "blocks": 3, "features_dim": 0}),
        ("configs/smartrix_quick.yaml", {"channels": 32, "blocks": 2, "features_dim": 0, "board_key": "table"}),
        (
            "configs/tantrix_quick.yaml",
            {"channels": 32, "blocks": 3, "features_dim": 0, "board_key": "board", "append": ["hands"]},
        ),
    ],
)
def test_extractor_kwargs_come_from_the_action_layout(config, expected):
    """Configs give only the architecture's sizes; the rest comes from the environment's ActionLayout."""
    import envs
    from training.features import extractor_kwargs

    cfg = load_config(config, validate=False)
    assert set(cfg["policy"]["features_kwargs"]) == {"channels", "blocks"}
    layout = envs.make_raw(cfg["env_id"], **cfg["env_kwargs"]).action_layout()
    assert extractor_kwargs(cfg["policy"], layout) == expected
    linear = dict(cfg["policy"], head="linear")
    assert "features_dim" not in extractor_kwargs(linear, layout) and "append" not in extractor_kwargs(linear, layout)


def test_a_config_without_env_id_is_an_error(tmp_path):
    """training/ holds no default game: a config that names no environment is refused."""
    bad = tmp_path / "no_env.yaml"
    bad.write_text("total_timesteps: 2048\n")
    with pytest.raises(ValueError, match=r"config 'env_id' must be a registered environment id \(ataxx_v0, .*got None"):
        load_config(bad)


@pytest.mark.parametrize(
    "line, replaced, message",
    [
        ("n_envs: 8", "n_envs: zero", "config 'n_envs' must be a positive integer, got 'zero'"),
        (
            "total_timesteps: 250000",
            "total_timesteps: abc",
            "config 'total_timesteps' must be a positive integer, got 'abc'",
        ),
        ("  every: 50000", "  every: -5", "config 'eval.every' must be a positive integer, got -5"),
    ],
)
@pytest.mark.parametrize("options", [["--smoke"], ["--timesteps", "64"], ["--final-games", "2"]])
def test_smoke_and_overrides_still_check_the_values_they_replace(tmp_path, capsys, line, replaced, message, options):
    """Found by a newcomer: a config with a bad n_envs passed --smoke, then failed on its real run."""
    text = (REPO_ROOT / "configs" / "ataxx_quick.yaml").read_text()
    assert line in text.splitlines()
    bad = tmp_path / "bad.yaml"
    bad.write_text("\n".join(replaced if x == line else x for x in text.splitlines()) + "\n")
    out = tmp_path / "run"
    with pytest.raises(SystemExit) as exc:
        main([str(bad), *options, "--out", str(out), "--no-progress"])
    assert exc.value.code == 2 and message in capsys.readouterr().err
    assert not out.exists()


def test_game_counts_in_messages_are_singular_for_one():
    from training.runs import games

    assert (games(1), games(2), games(400)) == ("1 game", "2 games", "400 games")


def test_resume_with_a_config_describing_another_network_is_refused(tmp_path):
    """Found by a newcomer: the checkpoint's network was kept while the run's config.yaml recorded
    the config's other one. Now the mismatch is refused, naming the differences."""
    cfg = small_config(tmp_path)
    cfg["total_timesteps"] = 512
    first = train(cfg, tmp_path / "a", progress_bar=False)
    other = load_config("configs/ataxx_quick.yaml", total_timesteps=512)
    other["policy"]["features_kwargs"] = {"channels": 32, "blocks": 1}
    with pytest.raises(
        ValueError,
        match=r"cannot resume from .*final.zip: the config's policy describes another "
        r"network \(features_extractor_kwargs: the config's \{'channels': 32, 'blocks': 1",
    ):
        train(other, tmp_path / "b", resume=first["checkpoint"], progress_bar=False)
    assert not (tmp_path / "b").exists()
