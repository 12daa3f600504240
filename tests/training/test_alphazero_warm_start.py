"""The AlphaZero engine's warm start (``pretrain.teacher``, training/engines/alphazero/warm_start.py):
the recorded decisions are the teacher's moves with the games' outcomes, the imitation fits them, a
run saves the clone and reports it, and a resumed run skips it."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from test_alphazero import checkpoint, same_tensors, tiny  # noqa: E402

from training.config import ConfigError  # noqa: E402
from training.train import train, validate_config  # noqa: E402


def teacher_cfg(games: int = 2, **overrides):
    cfg = tiny(**overrides)
    cfg.pretrain.teacher = "greedy"
    cfg.pretrain.games = games
    cfg.pretrain.epochs = 1
    cfg.pretrain.batch_size = 16
    return cfg


def test_teacher_games_record_the_teachers_own_moves_and_each_movers_outcome():
    """Three games on two slots (the third reuses a slot): every recorded action is the one greedy
    chooses, replayed on a fresh game with the generator the game was answered with, and every value
    is the game's return of the mover."""
    import envs
    from envs.core.vector import unpack_mask
    from training.agents import make_agent
    from training.engines.alphazero.warm_start import teacher_games

    cfg = teacher_cfg(max_steps=40)
    cfg.selfplay.games = 2
    data = teacher_games(cfg, "greedy", 3, seed=5)
    n = len(data["action"])
    assert data["outcomes"].shape == (3, 2) and data["plies"].sum() == n > 0
    assert list(np.unique(data["game"])) == [0, 1, 2] and np.all(np.diff(data["game"]) >= 0)
    masks = unpack_mask(data["mask"], data["num_actions"])
    assert masks[np.arange(n), data["action"]].all()
    teacher = make_agent("greedy", seed=5)
    for g in (0, 2):
        rows = np.flatnonzero(data["game"] == g)
        vec = envs.make_vec(cfg.env_id, 1, seed=0, max_steps=cfg.max_steps)
        vec.reset()
        rng = np.random.default_rng([5, g])
        for r in rows:
            mover = int(vec.current_player()[0])
            assert np.array_equal(np.asarray(vec.action_mask()[0], dtype=bool), masks[r])
            assert teacher.act_batch([vec.to_state(0)], [None], [rng]) == [int(data["action"][r])]
            assert data["value"][r] == data["outcomes"][g][mover]
            vec.step(np.array([data["action"][r]]))
    again = teacher_games(cfg, "greedy", 3, seed=5)
    assert np.array_equal(again["action"], data["action"]) and np.array_equal(again["obs"], data["obs"])
    assert not np.array_equal(teacher_games(cfg, "greedy", 3, seed=6)["action"], data["action"])


def test_imitation_fits_the_teachers_moves():
    from envs.core.vector import obs_take, unpack_mask
    from training.agents.alphazero_net import build_network, make_evaluate
    from training.engines.alphazero.warm_start import imitate, teacher_games

    cfg = teacher_cfg(max_steps=40)
    cfg.selfplay.symmetries = False
    cfg.pretrain.epochs = 8
    cfg.pretrain.batch_size = 32
    cfg.pretrain.learning_rate = 3e-3
    data = teacher_games(cfg, "greedy", 10, seed=0)
    torch.manual_seed(0)
    network = build_network(cfg.env_id, cfg.env_kwargs, cfg.policy.to_dict())
    optimizer = torch.optim.Adam(network.parameters(), lr=cfg.learn.learning_rate)
    train_rows = np.flatnonzero(data["game"] < 9)

    def teacher_nll() -> float:  # mean -log pi(teacher's move) over the training decisions
        evaluate = make_evaluate(network)
        mask = unpack_mask(data["mask"][train_rows], data["num_actions"])
        logits, _ = evaluate(obs_take(data["obs"], train_rows), mask)
        logits = np.where(mask, logits, -np.inf)
        logp = logits - np.logaddexp.reduce(logits, axis=1, keepdims=True)
        return float(-logp[np.arange(train_rows.size), data["action"][train_rows]].mean())

    before = teacher_nll()
    fit = imitate(network, optimizer, data, cfg, seed=0)
    after = teacher_nll()
    assert after < before - 0.5
    assert fit["decisions"] == len(data["action"]) == fit["train_decisions"] + fit["holdout_decisions"]
    assert fit["holdout_decisions"] == int((data["game"] == 9).sum()) > 0  # the last tenth of 10 games
    assert fit["steps"] == 8 * -(-fit["train_decisions"] // 32)
    assert fit["last_loss"] < fit["first_loss"]
    assert 0.0 <= fit["holdout_agreement"] <= 1.0 and fit["holdout_value_mse"] >= 0.0
    assert all(g["lr"] == cfg.learn.learning_rate for g in optimizer.param_groups)
    with pytest.raises(ValueError, match="holdout must be in"):
        imitate(network, optimizer, data, cfg, seed=0, holdout=1.0)


def test_a_run_with_a_teacher_saves_the_clone_reports_it_and_a_resumed_run_skips_it(tmp_path, capsys):
    report = train(teacher_cfg(), tmp_path / "a", progress_bar=False)
    assert "[pretrain] greedy played 2 games" in capsys.readouterr().out
    pre = report["pretrain"]
    assert pre["teacher"] == "greedy" and pre["games"] == 2 and pre["plies"] > 0 and pre["steps"] > 0
    assert report["budgets"]["pretrain_games"] == 2
    names = sorted(p.name for p in (tmp_path / "a" / "checkpoints").iterdir())
    assert names == ["final.pt", "pretrained.pt", "step_32.pt"]
    clone = checkpoint(tmp_path / "a" / "checkpoints" / "pretrained.pt")
    assert clone["counters"]["positions"] == 0 and clone["buffer"].size == 0
    # the clone differs from the untrained network of a run without a teacher, and the run is reproducible
    train(tiny(total_timesteps=16), tmp_path / "plain", progress_bar=False)
    untrained = checkpoint(tmp_path / "plain" / "checkpoints" / "final.pt")
    assert not same_tensors(clone["network"], untrained["network"])
    train(teacher_cfg(), tmp_path / "b", progress_bar=False)
    assert same_tensors(
        checkpoint(tmp_path / "a" / "checkpoints" / "final.pt")["network"],
        checkpoint(tmp_path / "b" / "checkpoints" / "final.pt")["network"],
    )
    capsys.readouterr()
    resumed = train(
        teacher_cfg(total_timesteps=16),
        tmp_path / "c",
        resume=str(tmp_path / "a" / "checkpoints" / "final.pt"),
        progress_bar=False,
    )
    assert "[pretrain] skipped: a resumed run continues its checkpoint" in capsys.readouterr().out
    assert resumed["pretrain"] is None and resumed["budgets"]["pretrain_games"] is None
    assert json.loads((tmp_path / "c" / "report.json").read_text())["pretrain"] is None


def test_the_clone_plays_as_an_az_agent(tmp_path):
    from training.agents import make_agent
    from training.arena import head_to_head

    train(teacher_cfg(), tmp_path / "a", progress_bar=False)
    agent = make_agent(f"az:{tmp_path / 'a' / 'checkpoints' / 'pretrained.pt'}:0", seed=0)
    result = head_to_head("ataxx_v0", agent, make_agent("random", seed=1), games=2, seed=0, max_steps=20)
    assert result["games"] == 2 and result["wins"] + result["draws"] + result["losses"] == 2


def test_a_teacher_that_cannot_be_built_is_a_config_error():
    cfg = teacher_cfg()
    cfg.pretrain.teacher = "gredy"
    with pytest.raises(ConfigError, match="pretrain.teacher.*unknown agent spec 'gredy'"):
        validate_config(cfg)
    validate_config(cfg, check_teacher=False)  # a resumed run does not build it
