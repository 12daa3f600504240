"""The play room in players' words (issue 26, items 4 to 6): an undo cancels a stale agent's
turn, the lobby names an agent that cannot play a new setting, the caption at the end gives the
result, each game's words (names, option labels, how to play) come through the board-UI contract."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("starlette", reason="the play room needs the 'room' extra: pip install -e '.[room]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the 'test' extra)")

from room_helpers import SlowAgent  # noqa: E402
from test_room_protocol import _close_pages, close_pages, connect, create, journal_lines, room, watch  # noqa: E402,F401


def test_an_undo_cancels_the_thinking_agent_and_its_seat_stops_thinking(room):  # noqa: F811
    client, app = room
    p = connect(client)
    c = create(p, "ataxx_v0", ["me", "slow"], seed=2)
    gid = c["game"]
    s = watch(p, gid, c["tokens"]["0"])
    p.send({"type": "move", "game": gid, "action": s["legal"][0]["a"]})
    p.state(lambda f: f["seats"][1]["thinking"])
    started = time.monotonic()
    p.send({"type": "undo", "game": gid})
    s = p.state(lambda f: f["ply"] == 0)
    assert s["seats"][1]["thinking"] is False and s["to_move"] == 0 and s["legal"]
    assert time.monotonic() - started < SlowAgent.seconds / 2  # not after the agent's answer
    time.sleep(SlowAgent.seconds + 0.5)  # the abandoned thread answers: its move is dropped
    game = app.state.room.games[gid]
    assert game.ply == 0 and game.thinking is None
    assert [e["event"] for e in journal_lines(app, gid)[1:]] == ["move", "undo"]


def test_setup_names_the_agents_that_cannot_play_a_setting_and_why(room):  # noqa: F811
    client, _ = room
    p = connect(client)
    p.send({"type": "setup", "env_id": "twixt_v0", "env_kwargs": {"board_size": 8}})
    small = p.until(lambda f: f["type"] == "setup", timeout=90)
    assert "twixt_quick" in [a["name"] for a in small["agents"]]
    assert "twixt_quick" not in [u["name"] for u in small["unavailable"]]
    p.send({"type": "setup", "env_id": "twixt_v0", "env_kwargs": {"board_size": 24}})
    big = p.until(lambda f: f["type"] == "setup", timeout=90)
    assert "twixt_quick" not in [a["name"] for a in big["agents"]]
    why = {u["name"]: u["why"] for u in big["unavailable"]}
    assert why["twixt_quick"] == "it was trained only for TwixT (twixt_v0) with board_size=8"
    assert "Tantrix only" in why["robot"]
    p.send({"type": "setup", "env_id": "tantrix_v0", "env_kwargs": {"num_players": 3}})
    three = p.until(lambda f: f["type"] == "setup", timeout=90)
    assert "two players or two teams" in {u["name"]: u["why"] for u in three["unavailable"]}["alphabeta:2"]
    assert not {a["name"] for a in three["agents"]} & {u["name"] for u in three["unavailable"]}


def test_lobby_and_game_frames_carry_each_games_words(room):  # noqa: F811
    client, _ = room
    p = connect(client)
    p.send({"type": "lobby"})
    lobby = p.until(lambda f: f["type"] == "lobby")
    ataxx, tantrix = lobby["envs"][0], lobby["envs"][3]
    assert {"name": "fen", "default": None} in ataxx["arguments"]  # the API stays
    fen = ataxx["argument_words"]["fen"]
    assert fen["label"] == "Start position (FEN)" and "FEN" in fen["help"]
    assert set(ataxx["argument_words"]) == {a["name"] for a in ataxx["arguments"]}
    assert tantrix["variant_labels"]["window6"] == "2 players, small table (radius 6)"
    assert "forced space" in tantrix["how_to_play"] and tantrix["rules_url"] == "/rules/tantrix_v0"
    assert any("controlled side" in mark + meaning for mark, meaning in tantrix["legend"])
    c = create(p, "twixt_v0", ["me", "random"], board_size=8, rules="pp")
    s = watch(p, c["game"], c["tokens"]["0"])
    assert s["setting"] == "TwixT · Board size 8 · Link crossing pp"
    assert s["help"]["rules_url"] == "/rules/twixt_v0" and "knight" in s["help"]["how_to_play"]
    assert s["env_id"] == "twixt_v0" and s["env_kwargs"] == {"board_size": 8, "rules": "pp"}  # the API stays


def test_the_full_rules_are_served_as_plain_text(room):  # noqa: F811
    client, _ = room
    r = client.get("/rules/smartrix_v0")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    assert r.text.startswith("# Smartrix") and "## In short" in r.text
    assert client.get("/rules/nope_v0").status_code == 404


def test_in_three_player_tantrix_a_resignation_takes_the_side_out_and_play_goes_on(room, tmp_path):  # noqa: F811
    client, app = room
    p = connect(client)
    c = create(p, "tantrix_v0", ["me", "random", "random"], seed=6, num_players=3)
    gid = c["game"]
    s = watch(p, gid, c["tokens"]["0"])
    if s["to_move"] == 0:  # play one move of ours first where we begin
        p.send({"type": "move", "game": gid, "action": s["legal"][0]["a"]})
    p.send({"type": "resign", "game": gid})
    s = p.state(lambda f: f["seats"][0]["resigned"])
    assert s["can_resign"] is False and s["can_undo"] is False
    s = p.until(lambda f: f["type"] == "state" and f["over"], timeout=60)  # the two agents played on to the end
    game = app.state.room.games[gid]
    assert game.resigned is None and game.state.resignations[0][1] == 0
    out = s["outcome"]
    assert 0 not in out["winners"] and out["winners"] and "resign" not in out["result"]
    scores = game.state.scores()
    best = max(scores[1], scores[2])
    assert set(out["winners"]) == {p_ for p_ in (1, 2) if scores[p_] == best}
    at = game.state.resignations[0][0]
    assert at < s["ply"] and all(seat_moved != 0 for _, seat_moved in game.played_by[at:])
    # each line is a change with what followed from it (room.journal: ``then``), flattened
    events = [e["event"] for line in journal_lines(app, gid)[1:] for e in (line, *line.get("then", ()))]
    assert events.count("resign") == 1 and events[-1] == "result"
    rec = client.get(f"/game/{gid}/record.json").json()  # the record holds the resignation and replays
    assert rec["resignations"][0][1] == 0 and rec["result"]["winners"] == out["winners"]
    from envs.core.records import replay

    assert replay(rec) == game.state
    assert "is over" in p.error({"type": "resign", "game": gid, "seat": 0})


def test_a_resigned_tantrix_game_comes_back_the_same_after_a_restart(tmp_path):
    from room_helpers import agents_with
    from test_room_protocol import TestClient  # a loopback Host (room.trust)

    from room.app import create_app

    records = tmp_path / "records"
    app = create_app(records, agents_with(), agent_delay=0)
    with TestClient(app) as client:
        p = connect(client)
        c = create(p, "tantrix_v0", ["me", "invite", "random", "random"], seed=None, num_players=4)  # the room draws it
        gid = c["game"]
        watch(p, gid, c["tokens"]["0"])
        p.send({"type": "resign", "game": gid})
        s = p.state(lambda f: f["seats"][0]["resigned"])
        assert not s["over"] and s["to_move"] != 0
        assert "has already resigned" in p.error({"type": "resign", "game": gid, "seat": 0})
        before = app.state.room.games[gid].state.clone()
        from test_room_protocol import close_pages

        close_pages()
    app2 = create_app(records, agents_with(), agent_delay=0)
    with TestClient(app2):
        game = app2.state.room.get(gid)  # a finished game is replayed when opened (room.shelf)
        assert game.state.resignations == before.resignations and game.out_seats() == {0}
        assert game.state.current_player != 0


def test_after_a_resignation_the_board_gives_the_result_not_who_is_to_move(room):  # noqa: F811
    client, _ = room
    p = connect(client)
    c = create(p, "ataxx_v0", ["me", "random"], seed=1)
    s = watch(p, c["game"], c["tokens"]["0"])
    assert "red to move" in s["svg"]
    p.send({"type": "resign", "game": c["game"]})
    s = p.state(lambda f: f["over"])
    assert "to move" not in s["svg"] and "blue won: red resigned" in s["svg"] and "0-1" not in s["svg"]
    assert s["outcome"]["result"] == "player 1 (red, x) resigned"  # the room's words for two sides, as before
    assert s["phase"] == "The game ended by resignation: player 1 (red, x) resigned."


def test_an_older_journal_where_a_resignation_ended_a_three_player_game_still_reads(tmp_path):
    import json

    from test_room_protocol import TestClient  # a loopback Host (room.trust)

    from room.app import create_app

    records = tmp_path / "records"
    app = create_app(records, agent_delay=0)
    with TestClient(app) as client:
        p = connect(client)
        c = create(p, "tantrix_v0", ["me", "invite", "invite"], seed=None, num_players=3)  # the room draws it
        gid = c["game"]
        close_pages()
    path = records / f"{gid}.jsonl"
    with path.open("a") as f:  # what the room wrote before: the resignation ended the game
        f.write(json.dumps({"event": "resign", "seat": 0}) + "\n")
        f.write(json.dumps({"event": "result", "result": "player 0 resigned", "termination": "resignation", "ply": 0}))
        f.write("\n")
    app2 = create_app(records, agent_delay=0)
    with TestClient(app2):
        game = app2.state.room.get(gid)  # a finished game is replayed when opened (room.shelf)
        assert game.problem is None and game.over and game.outcome()["result"] == "player 1 (red) resigned"
