"""Tantrix JSON game records: round trips through files, exact replays, malformed records."""

from __future__ import annotations

import json

import numpy as np
import pytest

from envs import InvalidPositionError
from envs.tantrix import TantrixState
from envs.tantrix.records import read_record, record_from_state, record_to_json, replay, write_record


def _game(seed, players=2, moves=None, **kw):
    rng = np.random.default_rng(seed)
    s = TantrixState(players, rng=np.random.default_rng(seed), **kw)
    n = 0
    while not s.is_terminal() and (moves is None or n < moves):
        legal = s.legal_actions()
        s.apply(legal[rng.integers(len(legal))])
        n += 1
    return s


def test_record_file_round_trip(tmp_path):
    s = _game(3, 4, teams=True, colors=("blue", "green"))
    path = tmp_path / "game.json"
    write_record(s, path)
    rec = read_record(path)
    assert rec["settings"] == {"num_players": 4, "teams": True, "colors": ["B", "G"], "window_radius": 16}
    assert rec["bag"] == s.initial_bag and rec["moves"] == s.moves() and len(rec["moves"]) == 56
    assert rec["result"]["scores"] == s.scores() and rec["result"]["outcome"] == s.outcome()
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
    assert d.history == s.history and [d.hand(p) for p in range(3)] == [s.hand(p) for p in range(3)]
    assert sorted(d.bag_remaining()) == sorted(before) and d.bag_remaining() != before
    assert s.bag_remaining() == before  # the original is untouched
    assert d.current_player == s.current_player and (d.legal_action_mask() == s.legal_action_mask()).all()
    assert replay(record_from_state(d)) == d  # its record replays to it
    with pytest.raises(ValueError, match="player must be a seat"):
        s.sample_determinization(3, rng)
