"""What the play room trusts (room.trust): the Host and Origin of every request and WebSocket
handshake (DNS rebinding, other sites' pages), the Content-Security-Policy's own origin, the seed
and the seats of games with hidden information (nobody reads another person's cards), the record
of every change of a seat's holder, and what an upload or a failed create may put on disk or show
a page (no lone surrogate stored, no server path shown).
"""

from __future__ import annotations

import json
import warnings

import pytest

pytest.importorskip("starlette", reason="the play room needs the 'room' extra: pip install -e '.[room]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the 'test' extra)")

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2 for its TestClient; httpx works
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient  # noqa: E402
    from starlette.websockets import WebSocketDisconnect  # noqa: E402

from room_helpers import Page  # noqa: E402

from envs.core.records import record_from_state  # noqa: E402
from envs.registry import spec  # noqa: E402
from room.app import create_app  # noqa: E402
from room.cli import main as room_main  # noqa: E402
from room.trust import allowed_host, check_encodable, csp  # noqa: E402

LOCAL = "http://127.0.0.1:8000"


@pytest.fixture
def room(tmp_path):
    """``(client, app, pages)``: a room over ``tmp_path/records`` that also answers to
    ``myhost.lan``; the client talks to it as a browser on ``127.0.0.1:8000`` does."""
    app = create_app(tmp_path / "records", agent_delay=0, allowed_hosts=["myhost.lan"])
    pages: list = []
    with TestClient(app, base_url=LOCAL) as client:
        yield client, app, pages
        for ws in pages:
            try:
                ws.__exit__(None, None, None)
            except Exception:  # noqa: BLE001 - already closed by the room
                pass


def connect(room, url: str = "ws://127.0.0.1:8000/ws", **headers) -> Page:
    client, _, pages = room
    ws = client.websocket_connect(url, headers=dict(headers)).__enter__()
    pages.append(ws)
    return Page(ws)


def created(page: Page, env_id: str, seats: list[str], seed: int | None = None, **kwargs) -> dict:
    msg: dict = {"type": "create", "env_id": env_id, "seats": seats}
    if seed is not None:
        msg["seed"] = seed
    if kwargs:
        msg["env_kwargs"] = kwargs
    page.send(msg)
    return page.until(lambda f: f["type"] in ("created", "error"))


def watch(page: Page, game: str, *tokens) -> dict:
    page.send({"type": "watch", "game": game, "tokens": list(tokens)})
    return page.state(lambda f: f["game"] == game)


def journal(app, gid: str) -> list[dict]:
    return [json.loads(line) for line in (app.state.room.records / f"{gid}.jsonl").read_text().splitlines()]


def records_files(app) -> list[str]:
    return sorted(p.name for p in app.state.room.records.iterdir())


# ---------------------------------------------------------------------------------- Host and Origin
@pytest.mark.parametrize(
    "host",
    ["127.0.0.1:8000", "localhost:8000", "[::1]:8000", "127.0.0.1", "LOCALHOST:1234", "myhost.lan:8000"],
)
def test_the_served_host_names_are_answered(room, host):
    client, _, _ = room
    for path in ("/", "/static/room.css", "/game/zzz"):
        r = client.get(path, headers={"host": host})
        assert r.status_code == 200, (path, host, r.text)
    r = client.get("/", headers={"host": host, "origin": f"http://{host}"})
    assert r.status_code == 200


@pytest.mark.parametrize(
    "host",
    ["evil.example", "evil.example:8000", "127.0.0.1.evil.example:8000", "127.0.0.2:8000", "[::2]:8000", "", "a b"],
)
def test_any_other_host_is_refused_on_every_route(room, host):
    """DNS rebinding: another site's name that resolves to this machine reaches the room with its
    own name in Host."""
    client, app, _ = room
    for path in ("/", "/static/room.css", "/game/zzz", "/game/zzz/record.json"):
        r = client.get(path, headers={"host": host})
        assert r.status_code == 400 and "answers only to the host names" in r.text, (path, host)
        assert "--allowed-host" in r.text
    before = records_files(app)
    r = client.post("/upload", files={"file": ("g.json", b"{}")}, headers={"host": host})
    assert r.status_code == 400 and records_files(app) == before


def test_the_rebinding_attack_of_the_finding_is_refused(room, tmp_path):
    """The finding: with Host and Origin ``evil.example`` the WebSocket and the upload were accepted."""
    client, app, _ = room
    evil = {"host": "evil.example", "origin": "http://evil.example"}
    with pytest.raises(WebSocketDisconnect) as refused:
        connect(room, "ws://evil.example/ws", **evil).recv(5)
    assert refused.value.code == 1008  # closed before the handshake is accepted
    env = spec("ataxx_v0").make_raw()
    env.reset(seed=1)
    rec = json.dumps(record_from_state(env.state, "ataxx_v0", {}, 1)).encode()
    r = client.post("/upload", files={"file": ("g.json", rec)}, headers=evil)
    assert r.status_code == 400
    assert records_files(app) == [] and app.state.room.games == {}
    # the same upload from the room's own page is taken
    r = client.post("/upload", files={"file": ("g.json", rec)}, headers={"origin": LOCAL})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    "origin",
    ["http://evil.example", "http://127.0.0.1:9000", "http://127.0.0.1", "null", "file://", "http://localhost:8000"],
)
def test_another_origin_is_refused_even_on_a_served_host(room, origin):
    """A page of another site, or of another port of this machine, may not drive the room."""
    client, app, _ = room
    with pytest.raises(WebSocketDisconnect) as refused:
        connect(room, origin=origin).recv(5)
    assert refused.value.code == 1008
    r = client.post("/upload", files={"file": ("g.json", b"{}")}, headers={"origin": origin})
    assert r.status_code == 403 and "another site" in r.text
    assert client.get("/", headers={"origin": origin}).status_code == 403
    assert records_files(app) == []


def test_the_rooms_own_page_opens_its_websocket(room):
    for url, headers in (
        ("ws://127.0.0.1:8000/ws", {"origin": LOCAL}),
        ("ws://127.0.0.1:8000/ws", {}),  # a client that is not a browser sends no Origin
        ("ws://localhost:8000/ws", {"origin": "http://localhost:8000"}),
        ("ws://myhost.lan:8000/ws", {"origin": "https://myhost.lan:8000"}),
    ):
        page = connect(room, url, **headers)
        page.send({"type": "lobby"})
        assert page.until(lambda f: f["type"] == "lobby")["games"] == []


def test_the_csp_names_the_rooms_own_websocket_origin(room):
    client, _, _ = room
    for host in ("127.0.0.1:8000", "[::1]:8000", "myhost.lan"):
        policy = client.get("/", headers={"host": host}).headers["content-security-policy"]
        connect_src = next(d for d in policy.split("; ") if d.startswith("connect-src"))
        assert connect_src == f"connect-src 'self' ws://{host} wss://{host}", policy
        assert "script-src 'self';" in policy and "frame-ancestors 'none'" in policy
    assert "ws:" not in csp(None)  # no host: its own origin only ('self')


def test_allowed_host_accepts_names_and_addresses_only():
    assert allowed_host("MyHost.LAN") == "myhost.lan"
    assert allowed_host("[fe80::1]") == allowed_host("fe80::1") == "fe80::1"
    assert allowed_host("192.168.1.5") == "192.168.1.5"
    for bad in ("", "http://x", "x:8000", "x/y", "[nope]", "-x", "*.example", "ex ample", "é.example"):
        with pytest.raises(ValueError, match="--allowed-host must be a host name"):
            allowed_host(bad)


def test_the_cli_refuses_a_bad_allowed_host(capsys, tmp_path):
    assert room_main(["--records", str(tmp_path / "r"), "--allowed-host", "http://myhost:8000", "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --allowed-host must be a host name") and err.count("\n") == 1
    assert not (tmp_path / "r").exists()


# ---------------------------------------------------------------------------------- seeds
def test_a_seed_is_given_only_when_every_persons_seat_is_the_creators(room):
    """The finding: a creator who chose the seed replayed the deal offline and read the invitee's
    hand (5 of 5 cards) and the pile."""
    _, app, _ = room
    p = connect(room)
    for env_id, seats, kw in (
        ("smartrix_v0", ["me", "invite"], {}),
        ("smartrix_v0", ["me", "open"], {}),
        ("smartrix_v0", ["invite", "random"], {}),
        ("tantrix_v0", ["me", "random", "invite"], {"num_players": 3}),  # the bag's order is hidden too
    ):
        f = created(p, env_id, seats, seed=11, **kw)
        assert f["type"] == "error" and "a seed may be given only when every person's seat is yours" in f["message"]
        assert "the room draws it" in f["message"]
    assert records_files(app) == [] and app.state.room.games == {}
    # without a seed the room draws one, and the game is made
    seeds = set()
    for _ in range(3):
        f = created(p, "smartrix_v0", ["me", "invite"])
        assert f["type"] == "created"
        game = app.state.room.games[f["game"]]
        assert not game.seed_chosen and journal(app, f["game"])[0]["seed_chosen"] is False
        seeds.add(game.seed)
    assert len(seeds) == 3 and max(seeds) >= 2**32  # 63 random bits: too many seeds to try against one's cards
    # the creator alone (with agents, or holding every seat), or a game without hidden information: any seed
    for env_id, seats in (
        ("smartrix_v0", ["me", "random"]),
        ("smartrix_v0", ["me", "me"]),
        ("ataxx_v0", ["me", "invite"]),
        ("tantrix_v0", ["random", "random"]),
    ):
        f = created(p, env_id, seats, seed=11)
        assert f["type"] == "created", f
        assert app.state.room.games[f["game"]].seed == 11


def test_a_game_with_a_chosen_seed_never_seats_anyone_else(room):
    _, app, _ = room
    p = connect(room)
    c = created(p, "smartrix_v0", ["me", "random", "random"], seed=5, num_players=3)
    gid = c["game"]
    game = app.state.room.games[gid]
    watch(p, gid, c["tokens"]["0"], c["owner"])
    assert game.seed_chosen and journal(app, gid)[0]["seed_chosen"] is True
    before = game.journal.path.read_bytes()
    for to in ("invite", "open"):
        msg = p.error({"type": "seat", "game": gid, "seat": 1, "to": to})
        assert "the creator chose this game's seed" in msg, msg
    assert game.journal.path.read_bytes() == before and game.seats[1].kind == "agent"
    # after a restart too (the header says the seed was chosen)
    assert create_app(app.state.room.records).state.room.games[gid].seed_chosen


# ---------------------------------------------------------------------------------- second seats
def test_nobody_takes_a_second_seat_while_another_person_plays(room):
    """No page shows two hands of a game in which another person sits: not the creator taking an
    agent's seat (the finding: "a player who takes over an agent's seat reads its hand"), not an
    invitee taking an open seat, not the creator opening its own invitation link."""
    _, app, _ = room
    a, b = connect(room), connect(room)
    c = created(a, "smartrix_v0", ["me", "invite", "random", "open"], num_players=4, teams=True)
    gid = c["game"]
    game = app.state.room.games[gid]
    watch(a, gid, c["tokens"]["0"], c["owner"])
    before = game.journal.path.read_bytes()
    # the creator takes the agent's seat, or the open one: refused
    msg = a.error({"type": "seat", "game": gid, "seat": 2, "to": "me"})
    assert msg.startswith("seat: in a game with hidden information nobody may hold two seats"), msg
    assert "players 1, 3 would show two hands" in msg
    assert "join: in a game with hidden information" in a.error({"type": "join", "game": gid, "seat": 3})
    # the creator opens its own invitation link in its own page: not taken, said why
    a.send({"type": "watch", "game": gid, "tokens": [c["tokens"]["0"], c["owner"], c["tokens"]["1"]]})
    err = a.until(lambda f: f["type"] == "error")
    assert (
        err["request"] == "watch" and "the invitation to player 2" in err["message"] and "two seats" in err["message"]
    )
    assert a.state(lambda f: f["game"] == gid)["you"] == [0]
    assert game.seats[1].invited and game.journal.path.read_bytes() == before
    # the invitee takes its seat, then may not take the partner's (the open seat) nor an agent's
    b.send({"type": "watch", "game": gid, "tokens": [c["tokens"]["1"]]})
    b.until(lambda f: f["type"] == "joined")
    assert b.state(lambda f: f["game"] == gid)["you"] == [1]
    after_join = game.journal.path.read_bytes()
    assert "two seats" in b.error({"type": "join", "game": gid, "seat": 3})
    assert "two seats" in b.error({"type": "seat", "game": gid, "seat": 2, "to": "me"})
    assert game.journal.path.read_bytes() == after_join
    assert [s.kind for s in game.seats] == ["human", "human", "agent", "human"] and game.seats[3].token is None
    # giving a seat to an agent, or an invitation for someone else, stays allowed
    a.send({"type": "seat", "game": gid, "seat": 3, "to": "invite"})
    assert a.until(lambda f: f["type"] in ("seated", "error"))["type"] == "seated"


def test_one_person_may_hold_several_seats_when_nobody_else_plays(room):
    _, app, _ = room
    p = connect(room)
    # alone against agents: taking over an agent's seat is allowed (no other person to read)
    c = created(p, "smartrix_v0", ["me", "random", "random"], num_players=3)
    gid = c["game"]
    watch(p, gid, c["tokens"]["0"], c["owner"])
    p.send({"type": "seat", "game": gid, "seat": 1, "to": "me"})
    assert p.until(lambda f: f["type"] in ("seated", "error"))["type"] == "seated"
    # ... but then no seat goes to anyone else while this page holds two
    msg = p.error({"type": "seat", "game": gid, "seat": 2, "to": "invite"})
    assert "nobody may hold two seats" in msg
    # every seat of the game: the open seat of a two-seat game joined by its creator
    c = created(p, "smartrix_v0", ["me", "open"])
    gid = c["game"]
    watch(p, gid, c["tokens"]["0"])
    p.send({"type": "join", "game": gid, "seat": 1})
    assert p.until(lambda f: f["type"] in ("joined", "error"))["type"] == "joined"
    # a game without hidden information: anything goes
    c = created(p, "ataxx_v0", ["me", "invite"])
    p.send({"type": "watch", "game": c["game"], "tokens": [c["tokens"]["0"], c["tokens"]["1"]]})
    assert p.until(lambda f: f["type"] == "joined")["seat"] == 1


# ---------------------------------------------------------------------------------- the record of seats
def test_the_record_marks_every_change_of_a_seats_holder(room):
    client, app, _ = room
    a, b = connect(room), connect(room)
    c = created(a, "ataxx_v0", ["me", "random"])
    gid = c["game"]
    s = watch(a, gid, c["tokens"]["0"], c["owner"])
    a.send({"type": "move", "game": gid, "action": s["legal"][0]["a"]})
    a.state(lambda f: f["ply"] == 2)
    a.send({"type": "seat", "game": gid, "seat": 1, "to": "invite"})
    invite = a.until(lambda f: f["type"] == "seated")["token"]
    b.send({"type": "watch", "game": gid, "tokens": [invite]})
    b.until(lambda f: f["type"] == "joined")
    seat_events = [e for e in journal(app, gid)[1:] if e["event"] == "seat"]
    assert [(e["seat"], e["kind"], e["claimed"], e["ply"]) for e in seat_events] == [
        (1, "human", False, 2),
        (1, "human", True, 2),
    ]
    assert seat_events[1]["holder"] != app.state.room.games[gid].owner  # another person
    b.send({"type": "resign", "game": gid})
    b.state(lambda f: f["over"])
    expected = [{"ply": 2, "seat": 1, "to": "invitation"}, {"ply": 2, "seat": 1, "to": "person"}]
    assert client.get(f"/game/{gid}/record.json").json()["meta"]["seat_changes"] == expected
    # a restart reads them back from the journal
    assert create_app(app.state.room.records).state.room.get(gid).seat_changes == expected  # replayed when opened


# ---------------------------------------------------------------------------------- what reaches disk and pages
def _record_with_meta(meta_json: str) -> bytes:
    env = spec("ataxx_v0").make_raw()
    env.reset(seed=1)
    text = json.dumps(record_from_state(env.state, "ataxx_v0", {}, 1, meta={"note": "PLACEHOLDER"}))
    return text.replace('"PLACEHOLDER"', meta_json).encode()


def test_a_lone_surrogate_in_an_upload_is_refused_and_nothing_is_written(room):
    """The finding: ``"\\ud800"`` in an uploaded record's meta gave a 500 and left an empty journal
    that warned at every restart."""
    client, app, _ = room
    r = client.post("/upload", files={"file": ("g.json", _record_with_meta('"a\\ud800b"'))})
    assert r.status_code == 400, r.text
    assert "not valid Unicode (\\ud800, a lone surrogate)" in r.json()["error"], r.json()
    assert "nothing was stored" in r.json()["error"]
    assert records_files(app) == [] and app.state.room.games == {}
    assert create_app(app.state.room.records).state.room.problems == []
    # a surrogate pair written as escapes is a whole character: taken
    r = client.post("/upload", files={"file": ("g.json", _record_with_meta('"\\ud83d\\ude00"'))})
    assert r.status_code == 200, r.text


def test_a_lone_surrogate_in_a_created_game_is_refused_and_nothing_is_written(room):
    _, app, _ = room
    p = connect(room)
    p.send('{"type": "create", "env_id": "ataxx_v0", "seats": ["me", "random"], "env_kwargs": {"fen": "\\ud800"}}')
    err = p.until(lambda f: f["type"] == "error")
    assert err["request"] == "create" and "the room failed" not in err["message"], err
    assert records_files(app) == [] and app.state.room.games == {}
    # whatever a game's constructor accepts, a journal line that UTF-8 cannot write is refused first
    with pytest.raises(
        ValueError, match=r"settings holds text that is not valid Unicode \(\\ud800, a lone surrogate\)"
    ):
        check_encodable({"env_kwargs": {"name": "x\ud800"}}, "the game's settings")
    check_encodable({"env_kwargs": {"name": "\U0001f600 é"}}, "the game's settings")


def test_a_failed_create_shows_no_server_path(room, monkeypatch):
    _, app, _ = room
    records = app.state.room.records
    p = connect(room)

    def refuse(path, header, first=()):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr("room.games.Journal.create", refuse)
    f = created(p, "ataxx_v0", ["me", "random"])
    assert f["type"] == "error" and "Permission denied" in f["message"] and "no game was created" in f["message"]
    assert str(records) not in f["message"] and str(records.resolve()) not in f["message"] and "/" not in f["message"]
    assert app.state.room.games == {}


def test_an_unreadable_journal_is_listed_without_its_path(tmp_path, monkeypatch):
    """The lobby shows every page the problems of the records folder: a file's name, never its path."""
    records = tmp_path / "records"
    records.mkdir()
    (records / "a1b2c3d4.jsonl").write_text("{}\n")

    def refuse(path):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr("room.records.read_journal", refuse)
    problems = create_app(records).state.room.problems
    assert problems == ["a1b2c3d4.jsonl: could not be read (PermissionError: Permission denied)"]
