"""Round 3 of the play room's server fixes (Starlette's TestClient, no browser): a seat of a game
with hidden information that one person held never goes to another person (also after a restart);
``create`` and ``seat`` refuse the agents the seat menus refuse as too slow; a bound on open
WebSockets per visitor and in all; an upload with a lone surrogate in a move is a 400; error
texts that do not repeat themselves.
"""

from __future__ import annotations

import json
import time

import pytest

pytest.importorskip("starlette", reason="the play room needs the 'room' extra: pip install -e '.[room]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the 'test' extra)")

from test_room_protocol import TestClient, close_pages, connect, watch  # noqa: E402

from room.app import create_app  # noqa: E402


@pytest.fixture
def room(tmp_path):
    """``(client, app)`` of a room over ``tmp_path/records``; agents answer at once."""
    app = create_app(tmp_path / "records", agent_delay=0)
    with TestClient(app) as client:
        yield client, app
        close_pages()


def created(page, env_id: str, seats: list[str], **msg) -> dict:
    page.send({"type": "create", "env_id": env_id, "seats": seats, **msg})
    return page.until(lambda f: f["type"] in ("created", "error"))


def seated(page, gid: str, seat: int, to: str) -> dict:
    page.send({"type": "seat", "game": gid, "seat": seat, "to": to})
    return page.until(lambda f: f["type"] in ("seated", "error"))


# ---------------------------------------------------------------------------------- 1. seen seats
def test_a_seat_one_person_has_seen_never_goes_to_another_person(room, tmp_path):
    """The finding: a person took seat 1 of a Smartrix game from an agent (allowed: nobody else
    plays), read its hand, then gave seat 1 to an invitation keeping seat 0: the invitee would
    play a hand the first person has read."""
    client, app = room
    a, b = connect(client), connect(client)
    c = created(a, "smartrix_v0", ["me", "random"])
    gid = c["game"]
    game = app.state.room.games[gid]
    watch(a, gid, c["tokens"]["0"], c["owner"])
    assert seated(a, gid, 1, "me")["type"] == "seated"  # alone against an agent: allowed
    before = game.journal.path.read_bytes()
    for to in ("invite", "open"):
        f = seated(a, gid, 1, to)
        assert f["type"] == "error", f
        assert "player 2's hidden cards were seen by the person who held it" in f["message"], f["message"]
        assert "only to that person or to an agent" in f["message"]
    assert game.journal.path.read_bytes() == before and game.seats[1].held
    # back to an agent, then to an invitation or an open seat: still refused; the same person may take it back
    assert seated(a, gid, 1, "random")["type"] == "seated"
    before = game.journal.path.read_bytes()
    for to in ("invite", "open"):
        assert "hidden cards were seen" in seated(a, gid, 1, to)["message"]
    assert game.journal.path.read_bytes() == before and game.seats[1].kind == "agent"
    # the creator's own seat 0 is seen too: it never goes to an invitation
    assert "player 1's hidden cards were seen" in seated(a, gid, 0, "invite")["message"]
    # ... and after a restart (the seat events of the journal are replayed)
    restarted = create_app(app.state.room.records, agent_delay=0)
    with TestClient(restarted) as client2:
        p = connect(client2)
        watch(p, gid, c["tokens"]["0"], c["owner"])
        assert "hidden cards were seen" in seated(p, gid, 1, "invite")["message"]
        assert seated(p, gid, 1, "me")["type"] == "seated"  # the same person takes it back
        p.ws.__exit__(None, None, None)  # an open page keeps its TestClient waiting
    # an invitee who held a seat and gave it to an agent: the creator may not take it afterwards
    c = created(a, "smartrix_v0", ["me", "invite", "random"], env_kwargs={"num_players": 3})
    gid = c["game"]
    watch(a, gid, c["tokens"]["0"], c["owner"])
    b.send({"type": "watch", "game": gid, "tokens": [c["tokens"]["1"]]})
    b.until(lambda f: f["type"] == "joined")
    assert seated(b, gid, 1, "random")["type"] == "seated"
    assert "player 2's hidden cards were seen" in seated(a, gid, 1, "me")["message"]
    assert "hidden cards were seen" in seated(a, gid, 1, "invite")["message"]
    # a game without hidden information: a seat goes to anyone
    c = created(a, "ataxx_v0", ["me", "random"])
    watch(a, c["game"], c["tokens"]["0"], c["owner"])
    assert seated(a, c["game"], 1, "me")["type"] == "seated"
    assert seated(a, c["game"], 1, "invite")["type"] == "seated"


# ---------------------------------------------------------------------------------- 2. agents too slow
def _slow_probe(monkeypatch):
    """A speed probe that does not depend on the machine: alphabeta:2 0.5 s a move, alphabeta:3
    25 s (over half of the 30 s move time limit: too slow), mcts:1000 1 s."""
    import room.agents as ra

    monkeypatch.setattr(ra, "_probe", lambda env, depth: ra.SpeedProbe(100, (100, 5000), (0.01, 0.5), 1e-3))


def test_create_and_seat_refuse_the_agents_the_menus_refuse(tmp_path, monkeypatch):
    """The finding: a crafted create or seat message put alphabeta:4 on a TwixT 24x24 seat that
    the menus refuse as too slow for the setting."""
    from room.limits import RoomLimits

    _slow_probe(monkeypatch)
    records = tmp_path / "records"
    app = create_app(records, agent_delay=0, limits=RoomLimits(move_time_limit=30.0))
    with TestClient(app) as client:
        p = connect(client)
        p.send({"type": "setup", "env_id": "ataxx_v0"})
        setup = p.until(lambda f: f["type"] == "setup")
        refused = {u["name"] for u in setup["unavailable"]}
        assert "alphabeta:3" in refused and "alphabeta:2" not in refused
        for name in ("alphabeta:3", "alphabeta:4"):
            f = created(p, "ataxx_v0", ["me", name], seed=1)
            assert f["type"] == "error", f
            assert f["message"].startswith(f"create: player 2: agent '{name}' is not offered for this setting: ")
            assert "too slow for this setting" in f["message"] and "--move-time-limit" in f["message"]
        assert list(records.iterdir()) == []
        # seat: the same refusal, the game unchanged
        c = created(p, "ataxx_v0", ["me", "alphabeta:2"], seed=1)
        gid = c["game"]
        watch(p, gid, c["tokens"]["0"], c["owner"])
        game = app.state.room.games[gid]
        before = game.journal.path.read_bytes()
        f = seated(p, gid, 1, "alphabeta:3")
        assert f["type"] == "error" and "seat: player 2" in f["message"] and "too slow" in f["message"], f
        assert game.journal.path.read_bytes() == before and game.seats[1].agent == "alphabeta:2"
        assert seated(p, gid, 1, "mcts:1000")["type"] == "seated"  # what the menu offers is seated
        # an agent that cannot play the game at all: alpha-beta in a game of three sides
        f = created(p, "smartrix_v0", ["me", "alphabeta:2", "random"], env_kwargs={"num_players": 3})
        assert f["type"] == "error" and "two players or two teams" in f["message"], f
        assert f["message"].count("alphabeta:2") == 1, f["message"]  # the name is said once
        close_pages()
    # a game restored from its journal keeps its agent, even one the menus now refuse
    lines = game.journal.path.read_text().splitlines()
    header = json.loads(lines[0])
    header["seats"][1] = {"kind": "agent", "agent": "alphabeta:3"}
    game.journal.path.write_text("\n".join([json.dumps(header)]) + "\n")
    restored = create_app(records, agent_delay=0, limits=RoomLimits(move_time_limit=30.0)).state.room.games[gid]
    assert restored.seats[1].agent == "alphabeta:3" and restored.seats[1].error is None


# ---------------------------------------------------------------------------------- 3. open pages
def _refused_close(client) -> dict:
    """The close message of a WebSocket the room accepts and closes at once."""
    from starlette.websockets import WebSocketDisconnect

    with client.websocket_connect("ws://127.0.0.1/ws") as ws:
        with pytest.raises(WebSocketDisconnect) as e:
            ws.receive_text()
    return {"code": e.value.code, "reason": e.value.reason}


@pytest.mark.parametrize(
    ("total", "per_visitor", "said"),
    [
        (2, 5, "the room has 2 pages open, its bound (--max-connections)"),
        (5, 2, "you have 2 pages of this room open, the bound (--max-connections-per-visitor)"),
    ],
)
def test_open_pages_are_bounded_in_all_and_per_visitor(tmp_path, total, per_visitor, said):
    """The finding: 60 silent pages took the server from 643 MB to 1124 MB (each may hold
    --max-send-queue-bytes of unsent frames), and nothing bounded their number."""
    from room.limits import RoomLimits

    limits = RoomLimits(max_connections=total, max_connections_per_visitor=per_visitor)
    app = create_app(tmp_path / "records", agent_delay=0, limits=limits)
    with TestClient(app) as client:
        pages = [connect(client), connect(client)]
        for p in pages:
            p.send({"type": "lobby"})
            assert p.until(lambda f: f["type"] == "lobby")["games"] == []
        closed = _refused_close(client)
        assert closed["code"] == 1008 and said in closed["reason"], closed
        assert len(closed["reason"].encode()) <= 123 and len(app.state.room.connections) == 2
        pages[0].ws.__exit__(None, None, None)  # a page closed: another may open
        for _ in range(100):
            if len(app.state.room.connections) < 2:
                break
            time.sleep(0.05)
        p = connect(client)
        p.send({"type": "lobby"})
        assert p.until(lambda f: f["type"] == "lobby")["type"] == "lobby"
        close_pages()


def test_the_page_bounds_are_options_with_defaults(capsys):
    from room.cli import main as room_main
    from room.limits import RoomLimits

    assert (RoomLimits().max_connections, RoomLimits().max_connections_per_visitor) == (256, 32)
    with pytest.raises(SystemExit):
        room_main(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--max-connections N" in out and "--max-connections-per-visitor N" in out
    assert "seconds an agent may think a move" in out and "search agent may think" not in out


# ---------------------------------------------------------------------------------- 4. lone surrogates
def _record_with_moves(moves_json: str) -> bytes:
    from envs.core.records import record_from_state
    from envs.registry import spec

    env = spec("ataxx_v0").make_raw()
    env.reset(seed=1)
    rec = record_from_state(env.state, "ataxx_v0", {}, 1)
    rec["moves"] = ["PLACEHOLDER"]
    rec.pop("result", None)
    return json.dumps(rec).replace('["PLACEHOLDER"]', moves_json).encode()


def test_a_lone_surrogate_in_a_records_move_is_a_400_and_nothing_is_stored(room):
    """The finding: moves ["f1\\udc00"] gave HTTP 500 (the error text quoted the move, and the
    response could not encode it)."""
    client, app = room
    for moves in ('["f1\\udc00"]', '["a1a2", "\\ud800"]'):
        r = client.post("/upload", files={"file": ("g.json", _record_with_moves(moves))})
        assert r.status_code == 400, r.text
        assert "not valid Unicode" in r.json()["error"] and "nothing was stored" in r.json()["error"], r.json()
    assert list(app.state.room.records.iterdir()) == [] and app.state.room.games == {}


def test_error_texts_that_quote_input_are_safe_to_encode():
    from room.game import RoomError, _record_positions
    from room.trust import safe_text

    assert safe_text("f1\udc00 and é") == "f1\\udc00 and é"
    rec = json.loads(_record_with_moves('["zz9"]'))
    rec["moves"] = ["zz\udc00"]
    with pytest.raises(RoomError) as e:
        _record_positions(rec)
    str(e.value).encode("utf-8")  # the move is quoted escaped


# ---------------------------------------------------------------------------------- 5. words
def test_an_unknown_argument_lists_only_the_arguments_the_room_takes(room):
    client, _ = room
    p = connect(client)
    msg = p.error({"type": "create", "env_id": "ataxx_v0", "seats": ["me", "random"], "env_kwargs": {"colour": 1}})
    assert "ataxx_v0 has no argument 'colour'; its arguments are: fen, halfmove_clock, max_steps" in msg, msg
    assert "render_mode" not in msg


def test_a_restored_agent_that_cannot_play_is_named_once(tmp_path):
    """The finding: "agent 'alphabeta:6' cannot play: agent 'alphabeta:6': ..." (a journal's
    agent past this room's --max-alphabeta-depth)."""
    app = create_app(tmp_path / "records", agent_delay=0)
    with TestClient(app) as client:
        p = connect(client)
        gid = created(p, "ataxx_v0", ["me", "alphabeta:2"], seed=1)["game"]
        close_pages()
    path = app.state.room.records / f"{gid}.jsonl"
    header = json.loads(path.read_text().splitlines()[0])
    header["seats"][1] = {"kind": "agent", "agent": "alphabeta:6"}
    path.write_text(json.dumps(header) + "\n")
    error = create_app(tmp_path / "records").state.room.games[gid].seats[1].error
    assert error.startswith("agent 'alphabeta:6' cannot play: alphabeta:N needs 1 <= N <= 4"), error
    assert error.count("alphabeta:6") == 1
