"""Tantrix JSON game records: round trips through files, exact replays, malformed records."""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import play_random
from envs import InvalidPositionError
from envs.tantrix import TantrixState
from envs.tantrix.records import read_tantrix_file, record_from_state, record_to_json, replay, write_tantrix_file


def _game(seed, players=2, moves=None, **kw):
    return play_random(TantrixState(players, rng=np.random.default_rng(seed), **kw), seed, moves)


def test_record_file_round_trip(tmp_path):
    s = _game(3, 4, teams=True, colors=("blue", "green"))
    path = tmp_path / "game.json"
    write_tantrix_file(s, path)
    rec = read_tantrix_file(path)
    assert rec["settings"] == {"num_players": 4, "teams": True, "colors": ["B", "G"], "window_radius": 16}
    assert rec["bag"] == s.initial_bag and rec["moves"] == s.moves() and len(rec["moves"]) == 56
    assert rec["result"]["scores"] == s.scores() and rec["result"]["outcome"] == str(s.outcome())
    r = replay(rec)
    assert r.position_key() == s.position_key() and str(r) == str(s)


def test_replay_needs_no_generator_and_matches_every_step():
    s = _game(11, 3)
    rec = record_from_state(s)
    st = TantrixState(**rec["settings"], bag=rec["bag"])
    ref = TantrixState(3, rng=np.random.default_rng(11))
    for move in rec["moves"]:
        assert st.position_key() == ref.position_key()
        st.push(move)
        ref.push(move)
    assert st.is_terminal() and st.scores() == s.scores()


def test_unfinished_game_record():
    s = _game(2, 2, moves=17)
    rec = json.loads(record_to_json(record_from_state(s)))
    assert rec["result"] is None and len(rec["moves"]) == 17
    assert replay(rec).position_key() == s.position_key()


def test_malformed_records_raise():
    s = _game(1, 2)
    rec = record_from_state(s)
    with pytest.raises(InvalidPositionError, match="JSON"):
        replay("{not json")
    with pytest.raises(InvalidPositionError, match="tantrix-record"):
        replay(json.dumps({"format": "other"}))
    bad = dict(rec, moves=rec["moves"][:3] + ["t1@9,9r0"] + rec["moves"][4:])
    with pytest.raises(InvalidPositionError, match="move 4"):
        replay(bad)
    wrong = dict(rec, result=dict(rec["result"], scores=[99, 0]))
    with pytest.raises(InvalidPositionError, match="differs"):
        replay(wrong)
    with pytest.raises(InvalidPositionError, match="settings"):
        replay(dict(rec, settings={"num_players": 7}))


def test_states_compare_by_position():
    s = TantrixState(2, seed=0)
    s.push(s.legal_moves()[0])
    assert replay(record_from_state(s)) == s and s.clone() == s
    t = s.clone()
    t.push(t.legal_moves()[0])
    assert t != s and (s == "t47") is False


def test_sample_determinization_reshuffles_only_the_bag():
    s = TantrixState(3, seed=2)
    rng = np.random.default_rng(0)
    for _ in range(10):
        s.push(s.legal_moves()[0])
    before = s.bag_remaining()
    d = s.sample_determinization(1, np.random.default_rng(5))
    assert (
        d.placed == s.placed
        and d.history == s.history
        and [d.hand(p) for p in range(3)] == [s.hand(p) for p in range(3)]
    )
    assert sorted(d.bag_remaining()) == sorted(before) and d.bag_remaining() != before
    assert s.bag_remaining() == before  # the original is untouched
    assert d.current_player == s.current_player and (d.legal_action_mask() == s.legal_action_mask()).all()
    assert replay(record_from_state(d)) == d  # its record replays to it
    with pytest.raises(ValueError, match="player must be a seat"):
        s.sample_determinization(3, rng)


# ------------------------------------------------------------------------------ malformed records
def _live_record():
    s = TantrixState(2, seed=4)
    for _ in range(6):
        s.push(s.legal_moves()[0])
    return record_from_state(s)


def _bad_cases(rec):
    return [
        (dict(rec, bag=None), r"'bag' must be a list of the 56 tile numbers"),
        (
            dict(rec, bag=rec["bag"][:-1]),
            r"'bag' must be a permutation of the tile numbers 1\.\.56; got 55 numbers, missing \[",
        ),
        (
            dict(rec, bag=rec["bag"][:-1] + [rec["bag"][0]]),
            r"permutation of the tile numbers 1\.\.56.*repeated \[" + str(rec["bag"][0]) + r"\]",
        ),
        (dict(rec, bag=[str(t) for t in rec["bag"]]), r"'bag' must be a list of the 56 tile numbers"),
        (
            dict(rec, result="won"),
            r"'result' must be null or an object with keys \['outcome', 'scores', 'returns'\], got 'won'",
        ),
        (dict(rec, result={"winner": 1}), r"'result' has unknown keys \['winner'\]"),
        (dict(rec, result={"scores": "12"}), r"'result.scores' must be a list of integers"),
        ({"format": "tantrix-record", "version": 1}, r"record lacks 'settings'"),
        ({k: v for k, v in rec.items() if k != "moves"}, r"record lacks 'moves'"),
        ({k: v for k, v in rec.items() if k != "bag"}, r"record lacks 'bag'"),
        (dict(rec, moves="pass"), r"'moves' must be a list of moves in notation .*got 'pass'"),
        (dict(rec, moves=rec["moves"][:2] + [7]), r"'moves': move 3 must be a string .*got 7"),
        (
            dict(rec, settings=dict(rec["settings"], speed=3)),
            r"'settings' has unknown keys \['speed'\]: "
            r"expected only \['num_players', 'teams', 'colors', 'window_radius'\]",
        ),
        (dict(rec, settings=[2]), r"'settings' must be an object"),
        (dict(rec, settings={"teams": False}), r"'settings' lacks 'num_players'"),
        (
            dict(rec, settings=dict(rec["settings"], num_players=5)),
            r"bad record settings: num_players must be 2, 3 or 4, got 5",
        ),
        (dict(rec, comment="hi"), r"record has unknown keys \['comment'\]"),
        (
            dict(rec, version=2),
            r"not a tantrix-record version 1 record: expected .*got format='tantrix-record', version=2",
        ),
        ([rec], r"must be a JSON object \(dict\), got list"),
    ]


_LIVE = _live_record()


@pytest.mark.parametrize("bad, match", _bad_cases(_LIVE))
def test_malformed_records_raise_invalid_position_error_naming_the_key(bad, match):
    with pytest.raises(InvalidPositionError, match=match):
        replay(bad)
    with pytest.raises(InvalidPositionError, match=match):  # the JSON text says the same
        replay(json.dumps(bad))


def test_read_and_write_record_check_the_structure(tmp_path):
    rec = _live_record()
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(dict(rec, moves="pass")), encoding="utf-8")
    with pytest.raises(InvalidPositionError, match="'moves' must be a list"):
        read_tantrix_file(path)
    with pytest.raises(InvalidPositionError, match="'bag' must be a list"):
        write_tantrix_file(dict(rec, bag=None), tmp_path / "out.json")
    assert not (tmp_path / "out.json").exists()
    with pytest.raises(TypeError, match="TantrixState or a record dict, got int"):
        write_tantrix_file(42, tmp_path / "out.json")
    write_tantrix_file(rec, tmp_path / "ok.json")
    assert read_tantrix_file(tmp_path / "ok.json") == rec


def test_illegal_move_names_its_number_and_why():
    rec = _live_record()
    s = replay(dict(rec, moves=rec["moves"][:2]))
    mine = s.hand(s.current_player)[0]
    other = next(t for t in range(1, 57) if t not in s.hand(s.current_player))
    with pytest.raises(
        InvalidPositionError,
        match=rf"move 3 \(t{other}@1,0r0\) of the record is illegal: .*tile {other} is not in player",
    ):
        replay(dict(rec, moves=rec["moves"][:2] + [f"t{other}@1,0r0"]))
    with pytest.raises(
        InvalidPositionError, match=rf"move 3 \(t{mine}@30,0r0\) of the record is illegal: .*outside the window"
    ):
        replay(dict(rec, moves=rec["moves"][:2] + [f"t{mine}@30,0r0"]))
    with pytest.raises(
        InvalidPositionError, match=r"move 3 \(t99@0,0r0\) of the record is illegal: .*tile must be 1-56"
    ):
        replay(dict(rec, moves=rec["moves"][:2] + ["t99@0,0r0"]))


def test_result_of_a_live_game_is_rejected():
    rec = _live_record()
    with pytest.raises(InvalidPositionError, match="differs from the replay's .*not over after 6 moves"):
        replay(dict(rec, result={"outcome": "player 0 won", "scores": [1, 0], "returns": [1.0, -1.0]}))
    s = _game(1, 2)
    full = record_from_state(s)
    with pytest.raises(InvalidPositionError, match="differs"):
        replay(dict(full, result=dict(full["result"], returns=[0.0, 0.0])))
    assert replay(dict(full, result={"scores": s.scores()})) == s  # a partial result is checked as far as it goes
