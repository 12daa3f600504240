"""Smartrix JSON game records: results, file round trips, malformed records."""

from __future__ import annotations

import json

import pytest

from conftest import play_random
from envs import IllegalActionError, InvalidPositionError, ParameterError
from envs.smartrix import SmartrixState
from envs.smartrix.records import read_smartrix_file, record_from_state, replay, write_smartrix_file


def _game(seed, players=2, moves=None, **kw):
    return play_random(SmartrixState(players, seed=seed, **kw), seed, moves)


FINISHED = _game(1)
LIVE = _game(2, moves=6)
BUILT = SmartrixState.from_position(table=[(3, 1, 0, 0)], hands=[[10, 4], [20]])


def test_records_store_and_check_the_result():
    rec = record_from_state(FINISHED)
    assert rec["result"] == {"scores": FINISHED.scores(), "returns": FINISHED.returns().tolist()}
    assert record_from_state(LIVE)["result"] is None
    assert replay(json.loads(json.dumps(rec))) == FINISHED
    with pytest.raises(InvalidPositionError, match=r"the record's result .* differs from the replay's \(\{'scores': "):
        replay(dict(rec, result={"scores": [0, 0], "returns": [0.0, 0.0]}))
    live = record_from_state(LIVE)
    with pytest.raises(InvalidPositionError, match="differs from the replay's .*not over after 6 moves"):
        replay(dict(live, result=rec["result"]))
    # the result is checked only once every move is played
    assert replay(rec, upto=3) == replay(dict(rec, moves=rec["moves"][:3], result=None))


def test_older_records_without_result_still_replay():
    rec = record_from_state(FINISHED)
    del rec["result"]
    assert replay(rec) == FINISHED
    rec = {
        "game": "smartrix",
        "version": 1,
        "settings": {"num_players": 2},
        "start": FINISHED.start,
        "moves": FINISHED.moves(),
    }
    assert replay(rec) == FINISHED


def test_hand_built_start_replays():
    s = BUILT.clone()
    s.apply(s.string_to_action("10r2@+0,+1"))
    rec = record_from_state(s)
    assert "position" in rec["start"] and replay(rec) == s


def test_write_record_accepts_a_state_or_a_record(tmp_path):
    write_smartrix_file(FINISHED, tmp_path / "a.json")
    rec = read_smartrix_file(tmp_path / "a.json")
    assert rec == record_from_state(FINISHED) and replay(rec) == FINISHED
    write_smartrix_file(rec, tmp_path / "b.json")
    assert read_smartrix_file(tmp_path / "b.json") == rec
    with pytest.raises(TypeError, match="SmartrixState or a record dict, got int"):
        write_smartrix_file(42, tmp_path / "c.json")
    with pytest.raises(InvalidPositionError, match="'moves' must be a list"):
        write_smartrix_file(dict(rec, moves="pass"), tmp_path / "c.json")
    assert not (tmp_path / "c.json").exists()
    (tmp_path / "d.json").write_text(json.dumps(dict(rec, start={"deck": None})), encoding="utf-8")
    with pytest.raises(InvalidPositionError, match=r"'start.deck' must be a list of the 70 card numbers"):
        read_smartrix_file(tmp_path / "d.json")
    (tmp_path / "e.json").write_text("{oops", encoding="utf-8")
    with pytest.raises(InvalidPositionError, match="not valid JSON"):
        read_smartrix_file(tmp_path / "e.json")


def _bad_cases():
    rec = record_from_state(LIVE)
    built = record_from_state(BUILT)
    pos = built["start"]["position"]
    return [
        (
            dict(rec, start={"deck": None}),
            r"'start.deck' must be a list of the 70 card numbers in deal order, got None",
        ),
        (
            dict(rec, start={"deck": [1, 2, 3]}),
            r"'start.deck' must be a permutation of the card numbers 1\.\.70; "
            r"got 3 numbers, missing \[4, 5, .*\(67 in all\)\]",
        ),
        (
            dict(rec, start={"deck": list(range(1, 70)) + [1]}),
            r"permutation .* missing \[70\], out of range or repeated \[1\]",
        ),
        (
            dict(rec, settings=[2, True]),
            r"'settings' must be an object with keys among "
            r"\['num_players', 'grid_limit', 'teams', 'window'\], got \[2, True\]",
        ),
        (dict(rec, settings=dict(rec["settings"], speed=3)), r"'settings' has unknown keys \['speed'\]: expected only"),
        (
            dict(rec, settings=dict(rec["settings"], num_players=9)),
            r"bad record settings: num_players must be an integer from 2 to 7, got 9",
        ),
        (dict(rec, start="deck"), r"'start' must be an object with exactly one key, 'deck' or 'position', got 'deck'"),
        (dict(rec, start={}), r"'start' must be an object with exactly one key"),
        (dict(rec, start=dict(rec["start"], position=pos)), r"'start' must be an object with exactly one key"),
        ({k: v for k, v in rec.items() if k != "start"}, r"record lacks 'start'"),
        ({k: v for k, v in rec.items() if k != "moves"}, r"record lacks 'moves'"),
        (dict(built, start={"position": dict(pos, color="red")}), r"'start.position' has unknown keys \['color'\]"),
        (
            dict(built, start={"position": {k: v for k, v in pos.items() if k != "hands"}}),
            r"'start.position' lacks 'hands'",
        ),
        (dict(built, start={"position": "x"}), r"'start.position' must be an object"),
        (dict(built, start={"position": dict(pos, table=5)}), r"'start.position' is not a valid position"),
        (dict(built, start={"position": dict(pos, hands=[[10], [10]])}), r"'start.position': .*twice"),
        (
            dict(built, settings={"num_players": 3}),
            r"'settings' num_players=3 contradicts 'start.position' num_players=2",
        ),
        (dict(rec, moves="pass"), r"'moves' must be a list of moves in notation .*got 'pass'"),
        (dict(rec, moves=rec["moves"][:2] + [None]), r"'moves': move 3 must be a string .*got None"),
        (dict(rec, result="won"), r"'result' must be null or an object with keys \['scores', 'returns'\], got 'won'"),
        (dict(rec, result={"winner": 0}), r"'result' has unknown keys \['winner'\]"),
        (dict(rec, result={"returns": ["1"]}), r"'result.returns' must be a list of numbers"),
        (dict(rec, comment="hi"), r"record has unknown keys \['comment'\]"),
        (dict(rec, version=2), r"unsupported record version 2: expected 1"),
        ([rec], r"not a Smartrix record"),
    ]


@pytest.mark.parametrize("bad, match", _bad_cases())
def test_malformed_records_raise_invalid_position_error_naming_the_key(bad, match):
    with pytest.raises(InvalidPositionError, match=match):
        replay(bad)
    with pytest.raises(InvalidPositionError, match=match):  # the JSON text says the same
        replay(json.dumps(bad))


def test_illegal_move_names_its_number_and_why():
    rec = record_from_state(LIVE)
    s = replay(rec, upto=2)
    other = s.hand(1 - s.current_player)[0]
    with pytest.raises(
        IllegalActionError,
        match=rf"move 3 \('{other}r0@\+0,\+1'\) of the record is illegal: .*card {other} is not in player",
    ):
        replay(dict(rec, moves=rec["moves"][:2] + [f"{other}r0@+0,+1"]))
    with pytest.raises(
        IllegalActionError, match=r"move 3 \('banana'\) of the record is illegal: .*not a Smartrix move"
    ):
        replay(dict(rec, moves=rec["moves"][:2] + ["banana"]))


def test_upto_is_checked():
    rec = record_from_state(LIVE)
    for bad in (-1, 7, 1.0, True):
        with pytest.raises(ParameterError, match=r"upto must be an int from 0 to the number of moves \(6\)"):
            replay(rec, upto=bad)
    assert replay(rec, upto=6) == LIVE
