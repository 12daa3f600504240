"""The trained agents shipped with the package (training/agents/shipped.py, training/shipped/).

The first part checks the real index and plays each shipped agent once; the rest checks the
mechanism on indexes written in temporary folders (tiny untrained checkpoints, or plain bytes
where no model is loaded).
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import envs
from conftest import pyproject, tiny_checkpoint
from envs.core.state import ParameterError
from envs.registry import UnknownEnvError, spec
from training.agents import PolicyAgent, RandomAgent, make_agent
from training.agents import shipped as shipped_module
from training.agents.shipped import (
    INDEX,
    ShippedAgent,
    ShippedIndexError,
    add_run,
    setting_kwargs,
    shipped_agents,
    shipped_for,
    shipped_markdown,
    shipped_names,
    shipped_spec,
)
from training.arena import play_game

ROOT = Path(__file__).resolve().parents[2]
COMMIT = "f28583cd9d505f40869a9eab3866c5568104a142"
BLOCKERS = "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1"


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _entry(name: str, file: str, env_id: str, env_kwargs: dict, sha: str, **over) -> dict:
    e = {
        "name": name,
        "engine": "sb3",
        "file": file,
        "env_id": env_id,
        "env_kwargs": env_kwargs,
        "config": f"configs/{name}.yaml",
        "seed": 0,
        "timesteps": 1000,
        "commit": COMMIT,
        "sha256": sha,
        "source_sha256": "0" * 64,
        "summary": f"{name} for tests",
    }
    e.update(over)
    return e


def _write_index(folder: Path, entries: list[dict]) -> Path:
    index = folder / "index.json"
    index.write_text(json.dumps({"about": "test", "agents": entries}, indent=1))
    return index


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("ckpts")
    return {
        "ataxx": tiny_checkpoint(folder / "ataxx.zip", width=8, optimizer_step=True),
        "twixt8": tiny_checkpoint(folder / "twixt8.zip", "twixt_v0", {"board_size": 8}, width=8, optimizer_step=True),
    }


@pytest.fixture
def index(tmp_path, checkpoints) -> Path:
    """A test index: two loadable agents, and two entries whose files are plain bytes."""
    entries = []
    for name, key, env_id, kwargs in (
        ("a_ataxx", "ataxx", "ataxx_v0", {}),
        ("b_twixt8", "twixt8", "twixt_v0", {"board_size": 8}),
    ):
        shutil.copy(checkpoints[key], tmp_path / f"{name}.zip")
        entries.append(_entry(name, f"{name}.zip", env_id, kwargs, _sha(tmp_path / f"{name}.zip")))
    for name, env_id, kwargs in (
        ("c_twixt8_swap", "twixt_v0", {"board_size": 8, "swap": True}),
        ("d_tantrix_r10", "tantrix_v0", {"num_players": 2, "window_radius": 10}),
    ):
        (tmp_path / f"{name}.zip").write_bytes(name.encode())
        entries.append(_entry(name, f"{name}.zip", env_id, kwargs, _sha(tmp_path / f"{name}.zip")))
    return _write_index(tmp_path, entries)


# --------------------------------------------------------------------------- the real index

REAL = shipped_names()


def test_the_package_index_is_valid_and_its_files_match():
    agents = shipped_agents()  # reads every file: exists, sha256 matches
    assert [a.name for a in agents] == REAL
    for a in agents:
        assert a.path.parent == INDEX.parent and a.path.is_file()
        assert hashlib.sha256(a.path.read_bytes()).hexdigest() == a.sha256
        assert a.path.stat().st_size < 5_000_000, f"{a.path} is {a.path.stat().st_size} bytes"
        assert a.env_id in envs.env_ids()
        assert a.config == f"configs/{a.name}.yaml" and (ROOT / a.config).is_file()
        assert re.fullmatch(r"[0-9a-f]{40}", a.commit) and a.timesteps > 0
        assert a.summary and "\n" not in a.summary
        assert shipped_spec(a.name) == a
        assert a.name in [b.name for b in shipped_for(a.env_id, a.env_kwargs)]
    files = sorted(p.name for p in [*INDEX.parent.glob("*.zip"), *INDEX.parent.glob("*.pt")])
    assert files == sorted(a.path.name for a in agents), "a file in training/shipped/ that the index does not list"
    for a in agents:
        assert a.path.suffix == {"sb3": ".zip", "alphazero": ".pt"}[a.engine]


def test_one_ppo_agent_ships_for_every_game():
    def ppo(agents):
        return [a.name for a in agents if a.engine == "sb3"]

    agents = shipped_agents()
    assert sorted(a.env_id for a in agents if a.engine == "sb3") == sorted(envs.ENV_IDS)
    assert ppo(agents) == [
        "ataxx_quick",
        "twixt_quick",
        "double_twixt_quick",
        "tantrix_quick",
        "smartrix_quick",
    ]
    assert ppo(shipped_for("twixt_v0", {"board_size": 8})) == ["twixt_quick"]
    assert ppo(shipped_for("tantrix_v0", {"window_radius": 10})) == ["tantrix_quick"]
    assert (
        ppo(shipped_for("twixt_v0")) == [] and shipped_for("tantrix_v0", {"num_players": 3, "window_radius": 10}) == []
    )
    # the 24x24 search agent trained with distance planes plays the standard board, with them or without
    assert [a.name for a in shipped_for("twixt_v0")] == ["twixt24_az"]
    assert [a.name for a in shipped_for("twixt_v0", {"distance_planes": True})] == ["twixt24_az"]


def test_the_alphazero_agents_ship_with_the_results_of_their_runs():
    """Each shipped AlphaZero agent is the final checkpoint whose tournaments are in
    results/alphazero/<name>-<seed>/, or for a four-seat game measured alone in
    results/alphazero_alone/<name>-<seed>/ (the index's source digest = the digest those results record)."""
    results = Path(__file__).resolve().parents[2] / "results" / "alphazero"
    az = [a for a in shipped_agents() if a.engine == "alphazero"]
    names = [
        "ataxx_az",
        "twixt_az",
        "double_twixt_az",
        "twixt24_az",
        "smartrix_az",
        "tantrix_az",
        "tantrix_4p_az",
        "tantrix_az_full",
        "smartrix_4p_az_full",
    ]
    assert [a.name for a in az] == names
    for a in az:
        folder = results / f"{a.name}-{a.seed}"
        if not folder.is_dir():
            folder = results.parent / "alphazero_alone" / f"{a.name}-{a.seed}"
        about = json.loads((folder / "about.json").read_text())
        assert about["final_sha256"] == a.source_sha256, a.name
        assert a.path.suffix == ".pt" and a.path.stat().st_size < 2_000_000  # weights and config only


@pytest.mark.parametrize("name", REAL)
def test_each_shipped_agent_plays_a_legal_game_on_its_setting(name):
    from training.agents.alphazero import AlphaZeroAgent

    a = shipped_spec(name)
    agent = make_agent(name, seed=0)
    assert isinstance(agent, {"sb3": PolicyAgent, "alphazero": AlphaZeroAgent}[a.engine]) and agent.name == name
    assert a.engine == "alphazero" or agent.deterministic
    assert a.heuristic is None or agent.heuristic == a.heuristic  # the entry's evaluation reaches the search
    assert agent.trained_on == (a.env_id, a.env_kwargs) and agent.path == a.path
    raw = envs.make_raw(a.env_id, **a.env_kwargs)
    raw.reset(seed=0)
    agent.check_env(raw)  # its own setting is accepted
    teams = spec(a.env_id).teams(**a.env_kwargs)
    mine = next(t for t in teams if 0 in t)
    seats = [agent if i in mine else RandomAgent(i) for i in range(raw.num_players)]
    result = play_game(a.env_id, seats, seed=0, env_kwargs=a.env_kwargs, record=True)
    assert result.status == "finished"  # Agent.act checked every move against its mask
    assert result.plies == len(result.moves) > 0
    assert len(result.returns) == raw.num_players


def test_the_docs_list_the_shipped_agents():
    readme = (ROOT / "docs" / "evaluation.md").read_text()  # the site's "Evaluation and play" page
    m = re.search(r"<!-- shipped-agents:begin.*?-->\n(.*?)\n<!-- shipped-agents:end -->", readme, re.S)
    assert m, "docs/evaluation.md lacks the <!-- shipped-agents:begin --> ... <!-- shipped-agents:end --> block"
    assert m.group(1) == shipped_markdown(), "regenerate with: python -m training.agents.shipped"


def test_pyproject_ships_the_index_and_checkpoints():
    data = pyproject()["tool"]["setuptools"]["package-data"]
    assert {"shipped/index.json", "shipped/*.zip", "shipped/*.pt"} <= set(data["training"])


@pytest.mark.slow
def test_a_wheel_carries_the_shipped_agents(wheel_names):
    names = wheel_names
    assert "training/shipped/index.json" in names
    assert {f"training/shipped/{a.path.name}" for a in shipped_agents()} <= names


# --------------------------------------------------------------------------- the mechanism


def test_shipped_agents_reads_entries_in_order(index):
    agents = shipped_agents(index)
    assert [a.name for a in agents] == ["a_ataxx", "b_twixt8", "c_twixt8_swap", "d_tantrix_r10"]
    a = agents[1]
    assert isinstance(a, ShippedAgent)
    assert (a.env_id, a.env_kwargs, a.path, a.seed, a.timesteps, a.commit) == (
        "twixt_v0",
        {"board_size": 8},
        index.parent / "b_twixt8.zip",
        0,
        1000,
        COMMIT,
    )
    a.env_kwargs["board_size"] = 24  # a copy: the next read is unchanged
    assert shipped_spec("b_twixt8", index).env_kwargs == {"board_size": 8}
    assert len({shipped_spec("b_twixt8", index), shipped_spec("b_twixt8", index)}) == 1  # hashable despite the dict


@pytest.mark.parametrize(
    "env_id, kwargs, expected",
    [
        ("twixt_v0", {"board_size": 8}, ["b_twixt8"]),
        ("twixt_v0", {"board_size": 8, "max_steps": 50}, ["b_twixt8"]),  # the step limit does not count
        ("twixt_v0", {"board_size": 8, "swap": False, "rules": "standard"}, ["b_twixt8"]),  # defaults spelled out
        ("twixt_v0", {"board_size": 8, "swap": True}, ["c_twixt8_swap"]),
        ("twixt_v0", {}, []),  # 24x24
        ("twixt_v0", None, []),
        ("double_twixt_v0", {"board_size": 8}, []),
        ("ataxx_v0", None, ["a_ataxx"]),
        ("ataxx_v0", {"render_mode": "ansi"}, ["a_ataxx"]),
        ("ataxx_v0", {"fen": BLOCKERS}, []),  # another start position is another setting
        ("tantrix_v0", {}, []),  # the default window radius is 16
        ("tantrix_v0", {"window_radius": 10}, ["d_tantrix_r10"]),  # num_players defaults to 2
        ("tantrix_v0", {"window_radius": 10, "num_players": 3}, []),
        ("smartrix_v0", {}, []),
    ],
)
def test_shipped_for_returns_exactly_the_agents_of_that_setting(index, env_id, kwargs, expected):
    assert [a.name for a in shipped_for(env_id, kwargs, index=index)] == expected


def test_an_alphazero_agent_plays_its_setting_with_or_without_options_for_agents_only(tmp_path):
    """A search agent observes from the rules state, so TwixT's ``distance_planes`` (an argument
    the game's words mark agents_only) does not make another setting for it; for a MaskablePPO
    agent, whose network reads the environment's observation, it does."""
    entries = []
    for name, engine, kwargs in (
        ("az24", "alphazero", {"board_size": 24, "distance_planes": True}),
        ("ppo24", "sb3", {"board_size": 24, "distance_planes": True}),
        ("az8_swap", "alphazero", {"board_size": 8, "swap": True}),
    ):
        file = f"{name}{'.pt' if engine == 'alphazero' else '.zip'}"
        (tmp_path / file).write_bytes(name.encode())
        over = {"engine": engine, **({"room_simulations": 32} if engine == "alphazero" else {})}
        entries.append(_entry(name, file, "twixt_v0", kwargs, _sha(tmp_path / file), **over))
    index = _write_index(tmp_path, entries)
    names = lambda *a: [x.name for x in shipped_for(*a, index=index)]  # noqa: E731
    assert shipped_module.agents_only_arguments("twixt_v0") == {"distance_planes"}
    assert shipped_module.agents_only_arguments("ataxx_v0") == frozenset()
    assert names("twixt_v0", {"board_size": 24}) == ["az24"]
    assert names("twixt_v0", None) == ["az24"]  # 24x24 is the default board
    assert names("twixt_v0", {"board_size": 24, "distance_planes": True}) == ["az24", "ppo24"]
    assert names("twixt_v0", {"board_size": 24, "swap": True}) == []  # another rule is another setting
    assert names("twixt_v0", {"board_size": 8, "swap": True, "distance_planes": True}) == ["az8_swap"]
    assert names("twixt_v0", {"board_size": 8}) == []
    az24 = shipped_spec("az24", index, verify=False)
    assert "distance_planes" not in az24.setting() and az24.setting()["board_size"] == 24
    assert shipped_spec("ppo24", index, verify=False).setting()["distance_planes"] is True


def test_setting_kwargs_fills_defaults_and_drops_max_steps_and_render_mode():
    s = setting_kwargs("twixt_v0", {"board_size": 8, "max_steps": 9, "render_mode": "ansi"})
    assert s["board_size"] == 8 and "max_steps" not in s and "render_mode" not in s
    assert set(s) == set(spec("twixt_v0").arguments()) - {"max_steps", "render_mode"}
    assert setting_kwargs("tantrix_v0", {"colors": ("R", "Y")})["colors"] == ["R", "Y"]  # tuples compare as lists


def test_shipped_for_refuses_unknown_ids_and_arguments(index):
    with pytest.raises(UnknownEnvError, match="unknown environment id 'chess_v0'"):
        shipped_for("chess_v0", index=index)
    with pytest.raises(ParameterError, match="twixt_v0 has no argument 'colour'"):
        shipped_for("twixt_v0", {"colour": 1}, index=index)


def test_shipped_spec_of_an_unknown_name_lists_the_names(index):
    with pytest.raises(
        ValueError,
        match=r"^no shipped agent is called 'zz'; the shipped agents are: a_ataxx, "
        r"b_twixt8, c_twixt8_swap, d_tantrix_r10$",
    ):
        shipped_spec("zz", index)


def _broken(tmp_path, checkpoints, over: dict) -> Path:
    shutil.copy(checkpoints["ataxx"], tmp_path / "a.zip")
    entry = _entry("a", "a.zip", "ataxx_v0", {}, _sha(tmp_path / "a.zip"))
    entry.update(over)
    return _write_index(tmp_path, [entry])


@pytest.mark.parametrize(
    "over, message",
    [
        ({"file": "gone.zip"}, r"shipped agent 'a': its checkpoint .*gone\.zip is missing \(listed in .*index\.json\)"),
        (
            {"sha256": "f" * 64},
            r"shipped agent 'a': .*a\.zip has sha256 [0-9a-f]{64}, but .*index\.json says f{64}: "
            r"the file is damaged or was replaced",
        ),
        ({"env_id": "chess_v0"}, r"entry 0 \('a'\): bad setting: unknown environment id 'chess_v0'"),
        ({"env_kwargs": {"size": 8}}, r"entry 0 \('a'\): bad setting: ataxx_v0 has no argument 'size'"),
        ({"name": "Random Agent"}, r"entry 0 \('Random Agent'\): name must be lower-case letters, digits and '_'"),
        (
            {"file": "../a.zip"},
            r"entry 0 \('a'\): file must be a \.zip file name in .* \(engine sb3\), got '\.\./a\.zip'",
        ),
        ({"file": "a.pt"}, r"entry 0 \('a'\): file must be a \.zip file name in .* \(engine sb3\), got 'a\.pt'"),
        ({"engine": "ppo"}, r"entry 0 \('a'\): engine must be one of 'sb3', 'alphazero', got 'ppo'"),
        ({"room_simulations": 8}, r"entry 0 \('a'\): unknown room_simulations \(the fields are: name, engine, "),
        (
            {"engine": "alphazero", "file": "a.pt"},
            r"entry 0 \('a'\): missing room_simulations \(.*; an alphazero entry also room_simulations "
            r"\(may have heuristic\)\)",
        ),
        (
            {"engine": "alphazero", "file": "a.zip", "room_simulations": 8},
            r"entry 0 \('a'\): file must be a \.pt file name in .* \(engine alphazero\), got 'a\.zip'",
        ),
        (
            {"engine": "alphazero", "file": "a.pt", "room_simulations": -1},
            r"entry 0 \('a'\): room_simulations must be >= 0, got -1",
        ),
        (
            {"engine": "alphazero", "file": "a.pt", "room_simulations": True},
            r"entry 0 \('a'\): room_simulations must be a JSON int, got True",
        ),
        (
            {"engine": "alphazero", "file": "a.pt", "room_simulations": 8, "heuristic": "predicted"},
            r"entry 0 \('a'\): heuristic must be one of \['evaluate'\] \(the evaluations of ataxx_v0\), "
            r"got 'predicted'",
        ),
        (
            {"engine": "alphazero", "file": "a.pt", "room_simulations": 8, "heuristic": 3},
            r"entry 0 \('a'\): heuristic must be a JSON str, got 3",
        ),
        (
            {"heuristic": "evaluate"},
            r"entry 0 \('a'\): unknown heuristic \(.*alphazero entry also room_simulations "
            r"\(may have heuristic\)\)",
        ),
        ({"seed": "0"}, r"entry 0 \('a'\): seed must be a JSON int, got '0'"),
        ({"sha256": "ABC"}, r"entry 0 \('a'\): sha256 must be 64 lower-case hex digits, got 'ABC'"),
        ({"colour": 1}, r"entry 0 \('a'\): unknown colour \(the fields are: name, engine, file, "),
    ],
)
def test_a_broken_index_or_file_is_a_clear_error(tmp_path, checkpoints, over, message):
    index = _broken(tmp_path, checkpoints, over)
    with pytest.raises(ShippedIndexError, match=message):
        shipped_agents(index)


def test_index_structure_errors(tmp_path, checkpoints):
    index = tmp_path / "index.json"
    with pytest.raises(ShippedIndexError, match=r"the index of shipped agents .*index\.json does not exist"):
        shipped_agents(index)
    index.write_text("{")
    with pytest.raises(ShippedIndexError, match=r"index\.json is not valid JSON"):
        shipped_agents(index)
    index.write_text("[]")
    with pytest.raises(ShippedIndexError, match=r"expected an object with a list 'agents', got list"):
        shipped_agents(index)
    e = _entry("a", "a.zip", "ataxx_v0", {}, "0" * 64)
    del e["commit"]
    _write_index(tmp_path, [e])
    with pytest.raises(ShippedIndexError, match=r"entry 0 \('a'\): missing commit"):
        shipped_agents(index)
    shutil.copy(checkpoints["ataxx"], tmp_path / "a.zip")
    twice = _entry("a", "a.zip", "ataxx_v0", {}, _sha(tmp_path / "a.zip"))
    _write_index(tmp_path, [twice, twice])
    with pytest.raises(ShippedIndexError, match=r"entry 1 \('a'\): the name 'a' is used twice"):
        shipped_agents(index)


@pytest.fixture
def packaged(monkeypatch, index) -> Path:
    """The test index as the package's own (what make_agent and the command lines read)."""
    monkeypatch.setattr(shipped_module, "INDEX", index)
    return index


def test_make_agent_takes_a_shipped_name(packaged):
    agent = make_agent("a_ataxx", seed=3)
    assert isinstance(agent, PolicyAgent) and agent.name == "a_ataxx" and agent.deterministic
    assert agent.path == packaged.parent / "a_ataxx.zip" and agent.trained_on == ("ataxx_v0", {})
    assert not make_agent("a_ataxx:sample").deterministic
    with pytest.raises(
        ValueError,
        match=r"^agent spec 'a_ataxx:fast': the only option of the shipped MaskablePPO agent a_ataxx is "
        r"':sample', got 'fast'$",
    ):
        make_agent("a_ataxx:fast")
    with pytest.raises(
        ValueError,
        match=r"^unknown agent spec 'a_atax': expected .* or SHIPPED\[:sample\|:SIMS\] "
        r"\(shipped: a_ataxx, b_twixt8, c_twixt8_swap, d_tantrix_r10\)$",
    ):
        make_agent("a_atax")
    # the built-in forms come first: a shipped name cannot shadow them
    assert type(make_agent("random")) is RandomAgent


def test_a_damaged_shipped_file_is_named_when_the_agent_is_made(packaged):
    (packaged.parent / "a_ataxx.zip").write_bytes(b"not a checkpoint")
    with pytest.raises(ShippedIndexError, match=r"shipped agent 'a_ataxx': .*a_ataxx\.zip has sha256"):
        make_agent("a_ataxx")


def test_a_shipped_agent_on_another_setting_names_its_own(packaged):
    ataxx, twixt = make_agent("a_ataxx"), make_agent("b_twixt8")
    with pytest.raises(
        ValueError,
        match=r"^a_ataxx \(.*a_ataxx\.zip\) was trained on ataxx_v0 with its default "
        r"settings, not on twixt_v0: play it there$",
    ):
        ataxx.check_env(envs.make_raw("twixt_v0", board_size=8))
    with pytest.raises(
        ValueError,
        match=re.escape(
            """was trained on twixt_v0 with --env-kwargs '{"board_size": 8}' """
            "(observations (8, 8, 23), 65 actions), but this environment has "
            "(24, 24, 23) and 577: create it with that setting"
        ),
    ):
        twixt.check_env(envs.make_raw("twixt_v0"))
    twixt.check_env(envs.make_raw("twixt_v0", board_size=8, max_steps=10))  # its own setting


def test_evaluate_and_play_accept_shipped_names(packaged, capsys):
    from training import play
    from training.evaluate import run_tournament  # what python -m training.evaluate runs

    result = run_tournament("twixt_v0", ["b_twixt8", "random"], 2, seed=0, env_kwargs={"board_size": 8})
    assert [(p["agent"], p["opponent"], p["games"]) for p in result["pairs"]][:1] == [("b_twixt8", "random", 2)]
    with pytest.raises(ValueError, match=r"b_twixt8 \(.*\) was trained on twixt_v0 with --env-kwargs"):
        run_tournament("twixt_v0", ["b_twixt8", "random"], 2, seed=0)
    with pytest.raises(SystemExit) as exit_info:
        play.main(
            ["twixt_v0", "--opponent", "b_twixt8", "--seat", "0"], stdin=io.StringIO("quit\n"), stdout=io.StringIO()
        )
    assert exit_info.value.code == 2
    assert """b_twixt8 (""" in capsys.readouterr().err
    text = io.StringIO()
    play.main(
        ["twixt_v0", "--env-kwargs", '{"board_size": 8}', "--opponent", "b_twixt8", "--seat", "0", "--seed", "1"],
        stdin=io.StringIO("quit\n"),
        stdout=text,
    )
    assert "b_twixt8" in text.getvalue()


# --------------------------------------------------------------------------- adding a run


def _run(tmp_path, checkpoints, smoke=False) -> Path:
    run = tmp_path / "run"
    (run / "checkpoints").mkdir(parents=True)
    shutil.copy(checkpoints["twixt8"], run / "checkpoints" / "final.zip")
    (run / "config.yaml").write_text("env_id: twixt_v0\nenv_kwargs: {board_size: 8}\nseed: 3\nname: twixt_quick\n")
    (run / "report.json").write_text(
        json.dumps(
            {
                "timesteps": 150016,
                "smoke": smoke,
                "pretrain": None,
                "vs": {"random": {"score": 1.0, "games": 200}, "greedy": {"score": 0.61, "games": 200}},
            }
        )
    )
    return run


def test_add_run_writes_a_smaller_checkpoint_with_the_same_policy(tmp_path, checkpoints):
    torch = pytest.importorskip("torch")
    from sb3_contrib import MaskablePPO

    run, index = _run(tmp_path, checkpoints), tmp_path / "shipped" / "index.json"
    entry = add_run(run, COMMIT, index=index)
    dest = index.parent / "twixt_quick.zip"
    assert entry == {
        "name": "twixt_quick",
        "engine": "sb3",
        "file": "twixt_quick.zip",
        "env_id": "twixt_v0",
        "env_kwargs": {"board_size": 8},
        "config": "configs/twixt_quick.yaml",
        "seed": 3,
        "timesteps": 150016,
        "commit": COMMIT,
        "sha256": _sha(dest),
        "source_sha256": _sha(run / "checkpoints" / "final.zip"),
        "summary": "MaskablePPO self-play; its run's final evaluation: 1.0 vs random, 0.61 vs greedy (200 games each)",
    }
    assert [a.name for a in shipped_agents(index)] == ["twixt_quick"]
    a = MaskablePPO.load(run / "checkpoints" / "final.zip", device="cpu").policy.state_dict()
    b = MaskablePPO.load(dest, device="cpu").policy.state_dict()
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    assert dest.stat().st_size < 0.6 * (run / "checkpoints" / "final.zip").stat().st_size  # no Adam moments
    # adding again replaces the entry in place; another name is appended
    add_run(run, COMMIT, index=index, summary="again")
    assert [e["summary"] for e in json.loads(index.read_text())["agents"]] == ["again"]


def test_add_run_refuses_smoke_runs_and_bad_commits(tmp_path, checkpoints):
    run = _run(tmp_path, checkpoints, smoke=True)
    with pytest.raises(ValueError, match="is a --smoke run: its agent is untrained"):
        add_run(run, COMMIT, index=tmp_path / "i" / "index.json")
    with pytest.raises(ValueError, match="commit must be 40 lower-case hex digits, got 'HEAD'"):
        add_run(run, "HEAD", index=tmp_path / "i" / "index.json")
    with pytest.raises(FileNotFoundError, match=r"nowhere/config\.yaml does not exist"):
        add_run(tmp_path / "nowhere", COMMIT, index=tmp_path / "i" / "index.json")
    assert not (tmp_path / "i").exists()


def test_add_run_refuses_an_engine_it_cannot_ship_and_room_simulations_for_ppo(tmp_path, checkpoints):
    run = _run(tmp_path, checkpoints)
    with pytest.raises(ValueError, match="is a MaskablePPO run: room_simulations is for AlphaZero runs only"):
        add_run(run, COMMIT, index=tmp_path / "i" / "index.json", room_simulations=8)
    (run / "config.yaml").write_text("engine: rllib\nenv_id: ataxx_v0\nseed: 0\nname: ataxx_rllib\n")
    with pytest.raises(ValueError, match="is a run of the rllib engine: only sb3 and alphazero runs can be shipped"):
        add_run(run, COMMIT, index=tmp_path / "i" / "index.json")
    assert not (tmp_path / "i").exists()


# --------------------------------------------------------------------------- AlphaZero agents


@pytest.fixture(scope="module")
def az_run(tmp_path_factory) -> Path:
    """A finished AlphaZero run of test_alphazero's smoke-size Ataxx config (32 positions, 2
    simulations a move in its evaluations): a few seconds."""
    pytest.importorskip("torch")
    from test_alphazero import tiny

    from training.train import train

    run = tmp_path_factory.mktemp("az") / "run"
    train(tiny(str(ROOT / "configs" / "ataxx_az.yaml")), run, progress_bar=False)
    return run


@pytest.fixture
def az_index(tmp_path, az_run, checkpoints) -> Path:
    """A test index of the AlphaZero run (``ataxx_az``, room search of 5 simulations) and of a
    MaskablePPO run (``twixt_quick``, TwixT 8x8)."""
    index = tmp_path / "shipped" / "index.json"
    add_run(az_run, COMMIT, index=index, room_simulations=5)
    add_run(_run(tmp_path, checkpoints), COMMIT, index=index)
    return index


def _positions(env_id: str, n: int, seed: int = 0, **kwargs) -> list:
    """``n`` states along a game of random moves (every second ply)."""
    vec = envs.make_vec(env_id, 1, seed=seed, **kwargs)
    step, rng, states = vec.reset(), np.random.default_rng(seed), []
    while len(states) < n:
        states.append(vec.to_state(0))
        for _ in range(2):
            step = vec.step(np.array([rng.choice(np.flatnonzero(step.action_mask[0]))]))
    return states


def test_add_run_of_an_alphazero_run_ships_its_config_and_network_alone(tmp_path, az_run):
    torch = pytest.importorskip("torch")
    from training.agents.alphazero import AGENT_FORMAT, load_checkpoint

    index = tmp_path / "shipped" / "index.json"
    entry = add_run(az_run, COMMIT, index=index)
    dest, source = index.parent / "ataxx_az.pt", az_run / "checkpoints" / "final.pt"
    report = json.loads((az_run / "report.json").read_text())
    assert entry == {
        "name": "ataxx_az",
        "engine": "alphazero",
        "file": "ataxx_az.pt",
        "env_id": "ataxx_v0",
        "env_kwargs": {},
        "config": "configs/ataxx_az.yaml",
        "seed": 0,
        "timesteps": 32,
        "commit": COMMIT,
        "sha256": _sha(dest),
        "source_sha256": _sha(source),
        "summary": "Gumbel AlphaZero self-play (4 simulations a move); its run's final evaluation at 2 "
        f"simulations: {report['vs']['random']['score']} vs random (1 games each)",
        "room_simulations": 256,  # the default: shipped_module.ROOM_SIMULATIONS
    }
    [agent] = shipped_agents(index)
    assert (agent.engine, agent.room_simulations, agent.room_spec) == ("alphazero", 256, "ataxx_az:256")
    # only what the playing agent needs; plain values and tensors (a safe load)
    full, stripped = load_checkpoint(source), torch.load(dest, map_location="cpu", weights_only=True)
    assert set(stripped) == {"format", "config", "network"} and stripped["format"] == AGENT_FORMAT
    assert stripped["config"] == full["config"]
    assert full["network"].keys() == stripped["network"].keys()
    assert all(torch.equal(full["network"][k], stripped["network"][k]) for k in full["network"])
    assert {"optimizer", "buffer", "rng", "torch_rng", "selfplay", "counters"} <= set(full)
    assert dest.stat().st_size < 0.25 * source.stat().st_size, (dest.stat().st_size, source.stat().st_size)
    row = shipped_markdown(index).splitlines()[2]
    assert row.startswith(
        "| `ataxx_az` | AlphaZero (room: `ataxx_az:256`) | `ataxx_v0` | defaults | "
        "`configs/ataxx_az.yaml`, seed 0, 32 positions | Gumbel AlphaZero self-play"
    )
    # a stripped file plays but resumes nothing, and is not stripped again
    with pytest.raises(ValueError, match=r"ataxx_az\.pt is a stripped AlphaZero checkpoint .* cannot resume a run"):
        load_checkpoint(dest)
    with pytest.raises(ValueError, match="is a stripped AlphaZero checkpoint"):
        shipped_module.strip_alphazero(dest, tmp_path / "again.pt")
    # the command line; --room-simulations sets the room's search
    assert (
        shipped_module.main(["add", str(az_run), "--commit", COMMIT, "--index", str(index), "--room-simulations", "7"])
        == 0
    )
    assert shipped_spec("ataxx_az", index).room_simulations == 7
    with pytest.raises(ValueError, match="room_simulations must be an integer >= 0, got -1"):
        add_run(az_run, COMMIT, index=index, room_simulations=-1)


def test_add_run_sets_the_evaluation_a_shipped_alphazero_agent_searches_with(tmp_path, az_run, checkpoints):
    """``add --heuristic NAME`` writes the entry's ``heuristic``: the agent made from the entry
    searches with it (the run's ``search.heuristic`` overridden), the docs' table says so; refused
    for an evaluation the game does not offer, for a run whose search mixes in none
    (``heuristic_weight`` 0) and for a MaskablePPO run. Without it, no field and the run's own."""
    import yaml

    run = tmp_path / "mixed"
    shutil.copytree(az_run, run)
    cfg = yaml.safe_load((run / "config.yaml").read_text())
    cfg["search"]["heuristic_weight"] = 0.5
    (run / "config.yaml").write_text(yaml.safe_dump(cfg))
    index = tmp_path / "shipped" / "index.json"
    assert "heuristic" not in add_run(run, COMMIT, index=index)
    assert shipped_spec("ataxx_az", index).heuristic is None
    assert (
        shipped_module.main(["add", str(run), "--commit", COMMIT, "--index", str(index), "--heuristic", "evaluate"])
        == 0
    )
    entry = json.loads(index.read_text())["agents"][0]
    assert entry["heuristic"] == "evaluate"
    agent = shipped_spec("ataxx_az", index)
    assert agent.heuristic == "evaluate" and agent.load(simulations=2).heuristic == "evaluate"
    assert "AlphaZero (room: `ataxx_az:256`, searching with `evaluate`)" in shipped_markdown(index)
    with pytest.raises(
        ValueError,
        match=re.escape("heuristic must be one of ['evaluate'] (the evaluations of ataxx_v0), got 'predicted'"),
    ):
        add_run(run, COMMIT, index=index, heuristic="predicted")
    with pytest.raises(ValueError, match=r"searches with its network's value alone \(search.heuristic_weight 0\)"):
        add_run(az_run, COMMIT, index=index, heuristic="evaluate")
    with pytest.raises(ValueError, match="is a MaskablePPO run: heuristic is for AlphaZero runs only"):
        add_run(_run(tmp_path, checkpoints), COMMIT, index=index, heuristic="evaluate")
    assert json.loads(index.read_text())["agents"] == [entry]  # the refusals wrote nothing


def test_an_alphazero_entry_replaces_a_ppo_entry_of_the_same_name_and_its_file(tmp_path, az_run, checkpoints):
    run, index = _run(tmp_path, checkpoints), tmp_path / "shipped" / "index.json"
    (run / "config.yaml").write_text("env_id: ataxx_v0\nenv_kwargs: {}\nseed: 0\nname: ataxx_az\n")
    shutil.copy(checkpoints["ataxx"], run / "checkpoints" / "final.zip")
    add_run(run, COMMIT, index=index)
    assert (index.parent / "ataxx_az.zip").is_file()
    add_run(az_run, COMMIT, index=index)
    assert [a.engine for a in shipped_agents(index)] == ["alphazero"]
    assert sorted(p.name for p in index.parent.iterdir()) == ["ataxx_az.pt", "index.json"]


def test_a_shipped_alphazero_agent_plays_the_moves_of_its_run_checkpoint(monkeypatch, az_index, az_run):
    pytest.importorskip("torch")
    from training.agents.alphazero import AlphaZeroAgent

    monkeypatch.setattr(shipped_module, "INDEX", az_index)
    default = make_agent("ataxx_az", seed=0)
    assert isinstance(default, AlphaZeroAgent) and default.name == "ataxx_az"
    assert default.simulations == 2 and default.trained_on == ("ataxx_v0", {})  # the run's eval_simulations
    assert default.path == az_index.parent / "ataxx_az.pt"
    final = az_run / "checkpoints" / "final.pt"
    states = _positions("ataxx_v0", 6)
    for sims in (0, 3):
        shipped, run = make_agent(f"ataxx_az:{sims}", seed=0), make_agent(f"az:{final}:{sims}", seed=0)
        assert (shipped.name, shipped.simulations) == (f"ataxx_az:{sims}", sims)
        assert [shipped.act(s, None) for s in states] == [run.act(s, None) for s in states]
    result = play_game("ataxx_v0", [default, RandomAgent(1)], seed=0, max_steps=40)
    assert result.plies > 0 and len(result.returns) == 2  # Agent.act checked every move against its mask
    with pytest.raises(ValueError, match="ataxx_az was trained on ataxx_v0"):
        default.check_env(envs.make_raw("twixt_v0", board_size=8))
    # a PPO agent of the same index keeps its own option
    assert not make_agent("twixt_quick:sample").deterministic
    with pytest.raises(ValueError, match="is a MaskablePPO agent: it has no search"):
        shipped_spec("twixt_quick").load(simulations=3)
    with pytest.raises(ValueError, match="is an AlphaZero agent: it searches, it does not sample"):
        shipped_spec("ataxx_az").load(deterministic=False)


@pytest.mark.parametrize("option", ["sample", "01", "-1", "x", "", "2:3"])
def test_a_bad_option_of_a_shipped_alphazero_agent_is_a_clear_error(monkeypatch, az_index, option):
    monkeypatch.setattr(shipped_module, "INDEX", az_index)
    with pytest.raises(
        ValueError,
        match=re.escape(
            f"agent spec 'ataxx_az:{option}': the only option of the shipped AlphaZero agent ataxx_az is ':SIMS', "
            f"its simulations a move (digits 0-9, no sign or leading zero; 0: the raw policy), got {option!r}"
        ),
    ):
        make_agent(f"ataxx_az:{option}")


def test_a_shipped_alphazero_file_of_another_setting_than_its_entry_is_refused(az_index):
    data = json.loads(az_index.read_text())
    data["agents"][0]["env_kwargs"] = {"fen": BLOCKERS}
    az_index.write_text(json.dumps(data))
    with pytest.raises(ShippedIndexError, match=r"ataxx_az\.pt was trained on ataxx_v0 \{\}, but the index says"):
        shipped_spec("ataxx_az", az_index).load()


def test_the_room_offers_a_shipped_alphazero_agent_on_its_setting_only(monkeypatch, az_index):
    from room.agents import RoomAgents
    from training.agents.alphazero import AlphaZeroAgent

    monkeypatch.setattr(shipped_module, "INDEX", az_index)
    room = RoomAgents()

    def menu(env_id, **kwargs):
        env = envs.make_raw(env_id, **kwargs)
        env.reset(seed=0)
        return [m.name for m in room.menu(env, env_id, kwargs)]

    assert "ataxx_az" in menu("ataxx_v0") and "twixt_quick" not in menu("ataxx_v0")
    assert "ataxx_az" in menu("ataxx_v0", max_steps=50)  # the step limit is not the setting
    assert "ataxx_az" not in menu("ataxx_v0", fen=BLOCKERS)  # another start position is
    assert "twixt_quick" in menu("twixt_v0", board_size=8) and "ataxx_az" not in menu("twixt_v0", board_size=8)
    assert room.spec_of("ataxx_az", "ataxx_v0", {}) == "ataxx_az:5"  # its index entry's room_simulations
    assert room.spec_of("twixt_quick", "twixt_v0", {"board_size": 8}) == "twixt_quick"
    with pytest.raises(ValueError, match="unknown agent 'ataxx_az'"):
        room.spec_of("ataxx_az", "twixt_v0", {"board_size": 8})
    assert room.summary("ataxx_az") == (
        "a trained AlphaZero agent shipped with the package: Gumbel search, 5 simulations a move"
    )
    assert room.summary("twixt_quick") == "a trained MaskablePPO agent shipped with the package"
    env = envs.make_raw("ataxx_v0")
    env.reset(seed=0)
    agent = room.make("ataxx_az", env, "ataxx_v0", {}, seed=0)
    assert isinstance(agent, AlphaZeroAgent) and agent.simulations == 5
    state = _positions("ataxx_v0", 1)[0]
    assert state.legal_action_mask()[agent.act(state, None)]
