"""The common JSON game record (:mod:`envs.core.records`) for every registered env id and variant:
round trips, unfinished games, the deal contract, malformed records, older per-game files."""

from __future__ import annotations

import json

import numpy as np
import pytest

import envs
from conftest import contract_cases, play_random
from envs import InvalidPositionError, ParameterError
from envs.core import records
from envs.core.records import import_record, read_record, record_from_state, record_to_json, replay, write_record
from envs.registry import UnknownEnvError

#: Every registered env id with each of its variants (``EnvSpec.variants``): a new game is covered
#: as soon as it is registered.
CASES = contract_cases()
#: The cases whose games have chance (a deal): Tantrix's bag, Smartrix's deck.
CHANCE_CASES = [c for c in CASES if envs.spec(c.values[0]).initial_state(**c.values[1]).info.chance]
SEED = 5
BLOCKERS = "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1"


def _game(env_id, kwargs, seed=SEED, moves=None, via_env=False):
    """A seeded random game of ``env_id`` (to the end, or ``moves`` actions): its final state."""
    env = envs.make_raw(env_id, **kwargs)
    env.reset(seed=seed)
    if not via_env:
        return play_random(env.state, seed, moves)
    rng = np.random.default_rng(seed)
    n = 0
    while env.agents and (moves is None or n < moves):  # through the env, in each agent's frame
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        legal = np.flatnonzero(mask)
        env.step(int(legal[rng.integers(len(legal))]))
        n += 1
    return env.state


def _same(a, b):
    assert a == b and a.position_key() == b.position_key()
    assert a.moves() == b.moves() and list(a.history) == list(b.history)
    np.testing.assert_array_equal(a.returns(), b.returns())
    assert a.current_player == b.current_player and a.is_terminal() == b.is_terminal()


def test_every_registered_env_id_is_covered_and_games_with_chance_are_known():
    assert {c.values[0] for c in CASES} == set(envs.ENV_IDS)
    assert {c.values[0] for c in CHANCE_CASES} == {"tantrix_v0", "smartrix_v0"}


@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_finished_game_round_trip(env_id, kwargs, tmp_path):
    s = _game(env_id, kwargs, via_env=env_id in ("twixt_v0", "smartrix_v0"))
    assert s.is_terminal()
    rec = record_from_state(s, env_id, kwargs, seed=SEED)
    assert list(rec) == ["format", "version", "env_id", "env_kwargs", "seed", "deal", "moves", "result"]
    assert (rec["format"], rec["version"], rec["env_id"], rec["seed"]) == ("tabletop-record", 1, env_id, SEED)
    assert rec["env_kwargs"] == kwargs and rec["moves"] == s.moves() and len(rec["moves"]) == len(s.history) > 0
    out = s.outcome()
    assert rec["result"] == {
        "result": str(out),
        "termination": out.termination,
        "winners": s.winners(),
        "returns": s.returns().tolist(),
        "scores": s.scores(),
    }
    write_record(rec, tmp_path / "game.json")
    back = read_record(tmp_path / "game.json")
    assert back == rec == json.loads(record_to_json(rec))
    _same(replay(back), s)
    _same(replay(record_to_json(rec)), s)  # the JSON text replays too


@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_unfinished_game_and_prefixes(env_id, kwargs):
    s = _game(env_id, kwargs, moves=7)
    assert not s.is_terminal() and len(s.history) == 7
    rec = json.loads(record_to_json(record_from_state(s, env_id, kwargs)))
    assert rec["result"] is None and rec["seed"] is None and len(rec["moves"]) == 7
    _same(replay(rec), s)
    start = envs.make_raw(env_id, **kwargs)
    start.reset(seed=SEED)  # the deal (not the seed, which the record lacks) fixes the start
    _same(replay(rec, upto=0), start.state)
    ref = start.state.clone()
    for i, a in enumerate(s.history[:3]):
        ref.apply(a)
        _same(replay(rec, upto=i + 1), ref)


@pytest.mark.parametrize("env_id, kwargs", CASES)
def test_deal_is_the_chance_outcome_of_the_start(env_id, kwargs):
    s = _game(env_id, kwargs, moves=4)
    deal = s.deal()
    if not s.info.chance:
        assert deal is None
        with pytest.raises(InvalidPositionError, match=f"{s.info.long_name} has no chance: its deal must be null"):
            s.with_deal({"bag": [1]})
        with pytest.raises(InvalidPositionError, match="with_deal needs a start position .* after 4 actions"):
            s.with_deal(None)
        return
    key = "bag" if env_id == "tantrix_v0" else "deck"
    n = 56 if env_id == "tantrix_v0" else 70
    assert list(deal) == [key] and sorted(deal[key]) == list(range(1, n + 1))
    deal[key].reverse()  # a copy: changing it changes nothing
    assert s.deal() != deal
    fresh = envs.make_raw(env_id, **kwargs)
    fresh.reset(seed=SEED)
    before = s.position_key()
    _same(s.with_deal(s.deal()), fresh.state)  # the deal rebuilds the start without a generator
    assert s.position_key() == before and len(s.history) == 4
    other = s.with_deal(deal)  # the reversed order: another start
    assert other.deal() == deal and other != fresh.state and other.history == []


@pytest.mark.parametrize("env_id, kwargs", CHANCE_CASES)
def test_a_seed_without_deal_replays_through_the_environment(env_id, kwargs):
    s = _game(env_id, kwargs, moves=9)
    rec = dict(record_from_state(s, env_id, kwargs, seed=SEED), deal=None)
    _same(replay(rec), s)
    del rec["deal"]
    _same(replay(rec), s)
    with pytest.raises(InvalidPositionError, match=r"needs its 'deal' .* or at least the 'seed' of its environment"):
        replay(dict(rec, seed=None))
    with pytest.raises(InvalidPositionError, match=r"move \d+ .* of the record is illegal"):
        replay(dict(rec, seed=SEED + 1))  # another seed, another deal: a move soon fails


# ------------------------------------------------------------------------------ malformed records
def _live(env_id="ataxx_v0", kwargs=None, moves=6):
    kwargs = kwargs or {}
    s = _game(env_id, kwargs, moves=moves)
    return s, record_from_state(s, env_id, kwargs, seed=SEED)


_S, _REC = _live()
_FS = _game("ataxx_v0", {})
_FULL = record_from_state(_FS, "ataxx_v0")
_T, _TREC = _live("tantrix_v0", {"num_players": 3})
_X, _XREC = _live("smartrix_v0", {"num_players": 3})
_BAD = [
    ([_REC], r"a game record must be a JSON object \(dict\), got list"),
    (
        dict(_REC, format="pgn"),
        r"not a tabletop-record version 1 record: expected .*got format='pgn', version=1 "
        r"\(nor an older format: smartrix \(\"game\": \"smartrix\"\), tantrix-record\)",
    ),
    (dict(_REC, version=2), r"not a tabletop-record version 1 record: .*got format='tabletop-record', version=2"),
    (dict(_REC, version=True), r"version=True"),
    (dict(_REC, comment="hi"), r"record has unknown keys \['comment'\]: expected only \['format', 'version', 'env_id'"),
    ({k: v for k, v in _REC.items() if k != "moves"}, r"record lacks 'moves'"),
    ({k: v for k, v in _REC.items() if k != "env_id"}, r"record lacks 'env_id'"),
    (dict(_REC, env_id=5), r"record 'env_id' must be an environment id such as \"ataxx_v0\", got 5"),
    (
        dict(_REC, env_id="chess_v0"),
        r"record 'env_id': unknown environment id 'chess_v0'; known ids: ataxx_v0, twixt_v0",
    ),
    (dict(_REC, env_kwargs=[1]), r"record 'env_kwargs' must be an object of the environment's arguments"),
    (
        dict(_REC, env_kwargs={"speed": 3}),
        r"record 'env_kwargs' \{'speed': 3\} are not arguments of ataxx_v0: "
        r"ataxx_v0 has no argument 'speed'; its arguments are: fen",
    ),
    (
        dict(_REC, env_kwargs={"fen": "x9 z"}),
        r"record 'env_kwargs' \{'fen': 'x9 z'\} are not arguments of ataxx_v0: .*",
    ),
    (dict(_REC, seed=-1), r"record 'seed' must be null or an integer >= 0, got -1"),
    (dict(_REC, seed="3"), r"record 'seed' must be null or an integer >= 0, got '3'"),
    (dict(_REC, seed=True), r"record 'seed' must be null or an integer >= 0, got True"),
    (dict(_REC, moves="g2"), r"record 'moves' must be a list of moves in notation .*got 'g2'"),
    (dict(_REC, moves=_REC["moves"][:2] + [7]), r"record 'moves': move 3 must be a string .*got 7"),
    (dict(_REC, moves=_REC["moves"][:2] + ["zz9"]), r"move 3 \(zz9\) of the record is illegal: "),
    (
        dict(_REC, moves=_REC["moves"][:2] + [_REC["moves"][0]]),
        rf"move 3 \({_REC['moves'][0]}\) of the record is illegal",
    ),
    (dict(_FULL, moves=_FULL["moves"] + ["g1"]), rf"move {len(_FULL['moves']) + 1} \(g1\) of the record is illegal"),
    (dict(_REC, meta=[1]), r"record 'meta' must be an object"),
    (dict(_REC, deal={"bag": [1, 2]}), r"record 'deal': Ataxx has no chance: its deal must be null \(None\), got"),
    (dict(_REC, result="won"), r"record 'result' must be null or an object with keys among \['result', 'termination'"),
    (dict(_REC, result={"winner": 1}), r"record 'result' has unknown keys \['winner'\]"),
    (dict(_REC, result={"winners": "0"}), r"record 'result.winners' must be a list of seat numbers, got '0'"),
    (dict(_REC, result={"scores": "12"}), r"record 'result.scores' must be null or a list of integers, got '12'"),
    (dict(_REC, result={"returns": [1, "x"]}), r"record 'result.returns' must be a list of numbers"),
    (dict(_REC, result={"result": 1}), r"record 'result.result' must be a string, got 1"),
    (
        dict(_REC, result={"result": "1-0"}),
        r"the record's result \{'result': '1-0'\} differs from the replay's "
        r"\(the game is not over after 6 moves\)",
    ),
    (
        dict(_FULL, result=dict(_FULL["result"], returns=[-1.0, 1.0])),
        r"the record's result .* differs from the replay's "
        r"\(\{'result': '1-0'",
    ),
    (
        dict(_FULL, result=None),
        rf"the record's result is null \(a game not over\) but the replay's game is over after "
        rf"{len(_FULL['moves'])} moves",
    ),
    (
        dict(_TREC, deal={"bag": _TREC["deal"]["bag"][:-1]}),
        r"record 'deal': deal 'bag' must be a permutation of the tile "
        r"numbers 1\.\.56; got 55 numbers, missing \[",
    ),
    (dict(_TREC, deal={"deck": list(range(1, 71))}), r"record 'deal': a Tantrix deal must be an object \{\"bag\""),
    (dict(_TREC, deal=None, seed=None), r"a record of Tantrix \(a game with chance\) needs its 'deal'"),
    (
        dict(_TREC, env_kwargs={"num_players": 5}),
        r"record 'env_kwargs' \{'num_players': 5\} are not arguments of "
        r"tantrix_v0: num_players must be 2, 3 or 4, got 5",
    ),
    (
        dict(_XREC, deal={"deck": [str(x) for x in range(1, 71)]}),
        r"record 'deal': deal 'deck' must be a list of the 70 "
        r"card numbers",
    ),
    (
        dict(_XREC, deal={"position": dict(_X.position(), num_players=2)}),
        r"record 'deal': deal 'position' num_players=2 contradicts the game's num_players=3",
    ),
    (dict(_XREC, deal={"position": dict(_X.position(), hands=[[1], [1], [2]])}), r"record 'deal': deal 'position'"),
]


@pytest.mark.parametrize("bad, match", _BAD, ids=range(len(_BAD)))
def test_malformed_records_raise_invalid_position_error_naming_what_was_wrong(bad, match):
    with pytest.raises(InvalidPositionError, match=match):
        replay(bad)
    with pytest.raises(InvalidPositionError, match=match):  # the JSON text says the same
        replay(json.dumps(bad))


def test_the_records_used_above_are_sound():
    _same(replay(_REC), _S)
    _same(replay(_FULL), _FS)
    _same(replay(_TREC), _T)
    _same(replay(_XREC), _X)
    with pytest.raises(InvalidPositionError, match="not a JSON game record"):
        replay("{not json")
    deep = "[" * 5000 + "]" * 5000  # json's parser recurses: a RecursionError, made a clear refusal
    with pytest.raises(InvalidPositionError, match="not a JSON game record: JSON nested too deeply"):
        replay(deep)
    with pytest.raises(InvalidPositionError, match="'x.json': JSON nested too deeply"):
        import_record("x.json", deep.encode())

    with pytest.raises(ParameterError, match=r"upto must be an int from 0 to the number of moves \(6\), got 7"):
        replay(_REC, upto=7)


def test_a_partial_result_is_checked_as_far_as_it_goes():
    res = _FULL["result"]
    assert replay(dict(_FULL, result={"winners": res["winners"]})) == _FS
    with pytest.raises(InvalidPositionError, match="differs"):
        replay(dict(_FULL, result={"winners": [1 - res["winners"][0]]}))
    rec = dict(_FULL)
    del rec["result"]  # absent: not checked
    assert replay(rec) == _FS


def test_record_from_state_refuses_what_would_not_replay():
    s = _game("ataxx_v0", {"fen": BLOCKERS}, moves=3)
    with pytest.raises(
        ParameterError,
        match=r"replays to another position; are env_id 'ataxx_v0' and env_kwargs \{\} the "
        r"settings the state was made with\?",
    ):
        record_from_state(s, "ataxx_v0")
    with pytest.raises(ParameterError, match="replays to another position"):
        record_from_state(envs.spec("ataxx_v0").initial_state(fen=BLOCKERS), "ataxx_v0")
    rec = record_from_state(s, "ataxx_v0", {"fen": BLOCKERS}, meta={"event": "test"})
    assert rec["meta"] == {"event": "test"} and replay(rec) == s
    with pytest.raises(UnknownEnvError, match="unknown environment id 'chess'"):
        record_from_state(s, "chess")
    with pytest.raises(ParameterError, match="ataxx_v0 has no argument 'size'"):
        record_from_state(s, "ataxx_v0", {"size": 7})
    with pytest.raises(ParameterError, match="env kwargs of ataxx_v0 must be a dict, got list"):
        record_from_state(s, "ataxx_v0", [BLOCKERS])
    t = _game("tantrix_v0", {"num_players": 3}, moves=2)
    with pytest.raises(ParameterError, match="env_kwargs must be JSON data"):
        record_from_state(t, "tantrix_v0", {"num_players": np.int64(3)})
    assert record_from_state(t, "tantrix_v0", {"num_players": 3}, seed=np.int64(4))["seed"] == 4
    for seed in (-1, 1.5, True, "4"):
        with pytest.raises(ParameterError, match="seed must be None or an int >= 0"):
            record_from_state(t, "tantrix_v0", {"num_players": 3}, seed=seed)
    with pytest.raises(
        ParameterError,
        match=r"does not replay \(move \d+ .* of the record is illegal: .*\); are env_id "
        r"'tantrix_v0' and env_kwargs \{\}",
    ):  # three players recorded as two
        record_from_state(t, "tantrix_v0")
    with pytest.raises(TypeError, match="record_from_state needs a GameState, got dict"):
        record_from_state(_REC, "ataxx_v0")
    from envs.tantrix import TantrixState

    built = TantrixState.from_position(tiles=["t1@0,0r0"], hands=[[2, 3], [4, 5]], bag=[6, 7])
    with pytest.raises(ParameterError, match="only games started by the constructor"):
        record_from_state(built, "tantrix_v0")


def test_write_and_read_record_files(tmp_path):
    path = tmp_path / "g.json"
    assert write_record(_S, path, "ataxx_v0", seed=SEED) == _REC
    text = path.read_text(encoding="utf-8")
    assert text.splitlines()[:3] == ["{", ' "format": "tabletop-record",', ' "version": 1,']
    assert read_record(path) == _REC and replay(read_record(path)) == _S
    with pytest.raises(ParameterError, match="write_record of a state needs its env_id"):
        write_record(_S, tmp_path / "x.json")
    with pytest.raises(ParameterError, match="env_id, env_kwargs and seed are for a state"):
        write_record(_REC, tmp_path / "x.json", "ataxx_v0")
    with pytest.raises(TypeError, match="write_record needs a GameState or a record dict, got int"):
        write_record(42, tmp_path / "x.json")
    with pytest.raises(InvalidPositionError, match="record 'moves' must be a list"):
        write_record(dict(_REC, moves="g2"), tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()
    (tmp_path / "bad.json").write_text("{oops", encoding="utf-8")
    with pytest.raises(InvalidPositionError, match=r"bad\.json: not valid JSON"):
        read_record(tmp_path / "bad.json")
    (tmp_path / "deep.json").write_text("[" * 5000 + "]" * 5000, encoding="utf-8")
    with pytest.raises(InvalidPositionError, match=r"deep\.json: JSON nested too deeply"):
        read_record(tmp_path / "deep.json")
    (tmp_path / "list.json").write_text("[1]", encoding="utf-8")
    with pytest.raises(
        InvalidPositionError, match=r"list\.json: a game record must be a JSON object \(dict\), got list"
    ):
        read_record(tmp_path / "list.json")


# ------------------------------------------------------------------------------ older per-game files
def test_older_tantrix_record_files_still_load(tmp_path):
    from envs.tantrix import TantrixState
    from envs.tantrix import records as tantrix_records

    s = play_random(TantrixState(4, rng=np.random.default_rng(3), teams=True, colors=("blue", "green")), 3)
    tantrix_records.write_tantrix_file(s, tmp_path / "old.json")
    old = json.loads((tmp_path / "old.json").read_text())
    assert old["format"] == "tantrix-record"
    rec = read_record(tmp_path / "old.json")
    assert rec["env_id"] == "tantrix_v0" and rec["deal"] == {"bag": s.initial_bag} and rec["moves"] == s.moves()
    assert rec["env_kwargs"] == {"num_players": 4, "teams": True, "colors": ["B", "G"], "window_radius": 16}
    assert rec["result"] == {"result": str(s.outcome()), "scores": s.scores(), "returns": s.returns().tolist()}
    _same(replay(rec), s)
    _same(replay(old), s)  # replay converts too
    write_record(old, tmp_path / "new.json")  # and write_record writes the common format
    assert read_record(tmp_path / "new.json") == rec
    (tmp_path / "bad.json").write_text(json.dumps(dict(old, bag=None)), encoding="utf-8")
    with pytest.raises(InvalidPositionError, match=r"bad\.json: record 'bag' must be a list of the 56 tile numbers"):
        read_record(tmp_path / "bad.json")


def test_older_smartrix_record_files_still_load(tmp_path):
    from envs.smartrix import SmartrixState
    from envs.smartrix import records as smartrix_records

    s = play_random(SmartrixState(2, seed=1), 1)
    smartrix_records.write_smartrix_file(s, tmp_path / "old.json")
    rec = read_record(tmp_path / "old.json")
    assert rec["env_id"] == "smartrix_v0" and rec["deal"] == s.start and rec["moves"] == s.moves()
    assert rec["env_kwargs"] == {"num_players": 2, "grid_limit": True, "teams": False, "window": s.window}
    assert rec["result"] == {"scores": s.scores(), "returns": s.returns().tolist()}
    _same(replay(rec), s)
    # an older record without result, settings left out, from a hand-built three-player position
    built = SmartrixState.from_position(num_players=3, table=[(3, 1, 0, 0)], hands=[[10, 4], [20], [30]])
    built.apply(built.string_to_action("10r2@+0,+1"))
    old = {
        "game": "smartrix",
        "version": 1,
        "settings": {},
        "start": {"position": built.start["position"]},
        "moves": built.moves(),
    }
    (tmp_path / "built.json").write_text(json.dumps(old), encoding="utf-8")
    rec = read_record(tmp_path / "built.json")
    assert rec["env_kwargs"]["num_players"] == 3 and "result" not in rec
    _same(replay(rec), built)
    assert record_from_state(built, "smartrix_v0", rec["env_kwargs"])["deal"] == {"position": built.start["position"]}
    with pytest.raises(InvalidPositionError, match="record lacks 'start'"):
        replay({k: v for k, v in old.items() if k != "start"})


def test_frozen_older_files_load(shared_fixture_dir):
    """Files written by the older per-game writers, frozen in tests/data/records."""
    t = read_record(shared_fixture_dir / "tantrix-record-v1.json")
    assert t["env_id"] == "tantrix_v0" and t["env_kwargs"]["num_players"] == 3 and t["result"] is None
    st = replay(t)
    assert len(st.history) == 9 and st.moves() == t["moves"] and not st.is_terminal()
    x = read_record(shared_fixture_dir / "smartrix-v1.json")
    sx = replay(x)
    assert x["env_id"] == "smartrix_v0" and sx.num_players == 4 and sx.moves() == x["moves"] and len(x["moves"]) == 8


@pytest.fixture
def shared_fixture_dir():
    from pathlib import Path

    return Path(__file__).resolve().parents[1] / "data" / "records"


def test_legacy_readers_are_registered_by_the_game_packages():
    assert set(records._legacy_readers()) >= {"tantrix-record", 'smartrix ("game": "smartrix")'}


def test_record_functions_are_named_alike_in_every_game():
    """envs/core/records.py, "Names": every game's record module converts with to_common_record and
    names its file functions after its format; read_record/write_record mean the common format."""
    import importlib

    import envs

    # TwixT's GameInfo (envs/twixt/state.py) does not declare its records module yet: its package imports it
    modules = {
        envs.spec(env_id).game_info().records or f"envs.{envs.spec(env_id).game_info().short_name}.records"
        for env_id in envs.env_ids()
    }
    assert modules == {"envs.ataxx.records", "envs.twixt.records", "envs.tantrix.records", "envs.smartrix.records"}
    for name in sorted(modules):
        mod = importlib.import_module(name)
        assert callable(mod.to_common_record), name
        assert {"read_record", "write_record", "common_record", "pgn_to_common_record"}.isdisjoint(mod.__all__), name
        game = name.split(".")[1]
        file_format = "pgn" if game == "ataxx" else game
        assert callable(getattr(mod, f"read_{file_format}_file")) and callable(
            getattr(mod, f"write_{file_format}_file")
        )
