"""The play room's WebSocket protocol and HTTP routes, without a browser (Starlette's TestClient).

Covers creating, joining, moving and spectating; every refusal of bad input (each leaves the game
and its journal unchanged); hidden information (every frame a Smartrix seat receives is searched
for the other seat's cards); journals, a restart and a resumed game, a damaged journal; an agent
that fails; a slow agent that does not slow another game; undo, resignation, records downloaded
and uploaded.
"""

from __future__ import annotations

import json
import re
import time
import warnings

import pytest

pytest.importorskip("starlette", reason="the play room needs the 'room' extra: pip install -e '.[room]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the 'test' extra)")

with warnings.catch_warnings():  # Starlette 1.x suggests httpx2 for its TestClient; httpx works
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient as _TestClient  # noqa: E402
    from starlette.websockets import WebSocketDisconnect  # noqa: E402

from room_helpers import FailingAgent, Page, SlowAgent, agents_with, hidden_cards_in  # noqa: E402

from conftest import REPO_ROOT  # noqa: E402
from envs.core.records import import_formats, import_record, record_from_state, replay  # noqa: E402
from envs.registry import spec  # noqa: E402
from room.app import create_app  # noqa: E402
from room.journal import read_journal  # noqa: E402
from room.protocol import MAX_MESSAGE  # noqa: E402

_OPEN: list = []


def TestClient(app) -> _TestClient:  # noqa: N802 - Starlette's, as a browser on loopback sends it (Host 127.0.0.1)
    return _TestClient(app, base_url="http://127.0.0.1")


@pytest.fixture(autouse=True)
def _close_pages():
    """Close every page's WebSocket before its TestClient stops (an open one keeps it waiting)."""
    yield
    close_pages()


def close_pages() -> None:
    while _OPEN:
        ws = _OPEN.pop()
        try:
            ws.__exit__(None, None, None)
        except Exception:  # noqa: BLE001 - already closed by the room
            pass


@pytest.fixture
def room(tmp_path):
    """``(client, app)`` of a room over ``tmp_path/records``; agents answer at once."""
    app = create_app(tmp_path / "records", agents_with(failing=FailingAgent, slow=SlowAgent), agent_delay=0)
    with TestClient(app) as client:
        yield client, app
        close_pages()


def connect(client) -> Page:
    ws = client.websocket_connect("ws://127.0.0.1/ws").__enter__()
    _OPEN.append(ws)
    return Page(ws)


def create(page: Page, env_id: str, seats: list[str], seed: int | None = 1, **kwargs) -> dict:
    msg = {"type": "create", "env_id": env_id, "seats": seats}
    if seed is not None:  # None: the room draws it (a game with hidden information and others)
        msg["seed"] = seed
    if kwargs:
        msg["env_kwargs"] = kwargs
    page.send(msg)
    return page.until(lambda f: f["type"] == "created")


def watch(page: Page, game: str, *tokens) -> dict:
    page.send({"type": "watch", "game": game, "tokens": list(tokens)})
    return page.state(lambda f: f["game"] == game)


def two_players(client) -> tuple[Page, Page, dict]:
    """Two pages playing an Ataxx game: ``a`` created it with seat 0, ``b`` took seat 1 by the
    invitation; the ``created`` frame last."""
    a, b = connect(client), connect(client)
    c = create(a, "ataxx_v0", ["me", "invite"])
    watch(a, c["game"], c["tokens"]["0"])
    watch(b, c["game"], c["tokens"]["1"])
    return a, b, c


def journal_lines(app, gid: str) -> list[dict]:
    path = app.state.room.records / f"{gid}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


# ---------------------------------------------------------------------------------- playing
def test_lobby_lists_every_env_and_the_agents_of_a_setting(room):
    client, app = room
    p = connect(client)
    p.send({"type": "lobby"})
    lobby = p.until(lambda f: f["type"] == "lobby")
    assert [e["id"] for e in lobby["envs"]] == ["ataxx_v0", "twixt_v0", "double_twixt_v0", "tantrix_v0", "smartrix_v0"]
    assert lobby["games"] == [] and ".json" in lobby["formats"]
    assert [e["name"] for e in lobby["envs"]] == ["Ataxx", "TwixT", "Double TwixT", "Tantrix", "Smartrix"]
    ataxx = lobby["envs"][0]
    assert {"name": "fen", "default": None} in ataxx["arguments"]
    assert "render_mode" not in [a["name"] for a in ataxx["arguments"]]
    p.send({"type": "setup", "env_id": "tantrix_v0", "env_kwargs": {"num_players": 3}})
    setup = p.until(lambda f: f["type"] == "setup")
    assert [s["seat"] for s in setup["seats"]] == [0, 1, 2]
    names = [a["name"] for a in setup["agents"]]
    assert "random" in names and "mcts:200" in names
    assert "alphabeta:2" not in names  # alpha-beta needs two sides: not offered for three players


def test_a_game_against_random_is_journaled_before_it_is_shown(room):
    client, app = room
    p = connect(client)
    c = create(p, "ataxx_v0", ["me", "random"], seed=3)
    gid, token = c["game"], c["tokens"]["0"]
    assert c["me"] == [0] and c["invite"] == []
    s = watch(p, gid, token)
    assert s["you"] == [0] and s["to_move"] == 0 and s["ply"] == 0 and s["viewer"] == 0
    assert s["svg"].startswith("<svg") and len(s["legal"]) == 16
    first = s["legal"][0]
    assert set(first) == {"a", "n", "p", "k"} and first["p"]
    p.send({"type": "move", "game": gid, "action": first["a"]})
    s = p.state(lambda f: f["ply"] == 2)  # the agent answered
    assert s["moves"][0] == first["n"] and s["to_move"] == 0 and s["legal"]
    lines = journal_lines(app, gid)
    assert lines[0]["format"] == "tabletop-room-journal" and lines[0]["seed"] == 3
    assert lines[0]["seats"][1] == {"kind": "agent", "agent": "random"}
    assert token not in json.dumps(lines)  # only the token's digest is stored
    assert [(e["event"], e["ply"], e["by"]) for e in lines[1:]] == [("move", 0, "human"), ("move", 1, "agent")]
    assert lines[1]["notation"] == first["n"]


def test_move_in_notation_and_spectator_sees_it_live(room):
    client, _ = room
    a, b, spectator = connect(client), connect(client), connect(client)
    c = create(a, "twixt_v0", ["me", "invite"], board_size=8)
    gid = c["game"]
    watch(a, gid, c["tokens"]["0"])
    sb = watch(b, gid, c["tokens"]["1"])
    sv = watch(spectator, gid)
    assert sb["you"] == [1] and sb["legal"] is None  # not its turn: no legal actions
    assert sv["you"] == [] and sv["viewer"] is None and sv["legal"] is None and sv["can_resign"] is False
    a.send({"type": "move", "game": gid, "notation": "c3"})
    live = spectator.state(lambda f: f["ply"] == 1)
    assert live["moves"] == ["c3"] and live["to_move"] == 1
    sb = b.state(lambda f: f["ply"] == 1)
    assert sb["legal"] and "c3" not in [x["n"] for x in sb["legal"]]
    b.send({"type": "move", "game": gid, "notation": "f6"})
    assert spectator.state(lambda f: f["ply"] == 2)["moves"] == ["c3", "f6"]


def test_open_seat_is_joined_from_the_lobby(room):
    client, _ = room
    a, b = connect(client), connect(client)
    c = create(a, "ataxx_v0", ["me", "open"])
    gid = c["game"]
    b.send({"type": "lobby"})
    lobby = b.until(lambda f: f["type"] == "lobby")
    seats = next(g for g in lobby["games"] if g["game"] == gid)["seats"]
    assert [s["open"] for s in seats] == [False, True]
    b.send({"type": "join", "game": gid, "seat": 1})
    joined = b.until(lambda f: f["type"] == "joined")
    assert joined["seat"] == 1 and joined["token"]
    assert "not free" in b.error({"type": "join", "game": gid, "seat": 1})
    assert "not free" in b.error({"type": "join", "game": gid, "seat": 0})
    s = watch(b, gid, joined["token"])
    assert s["you"] == [1]


def test_only_the_holder_gives_away_a_persons_seat_and_invitation_links_work_once(room, monkeypatch):
    client, app = room
    monkeypatch.setattr(app.state.room, "draw_seed", lambda: 1)  # the room draws the seed (hidden bag)
    a, b, c_page, thief = connect(client), connect(client), connect(client), connect(client)
    c = create(a, "tantrix_v0", ["me", "invite", "open", "random"], seed=None, num_players=4)
    gid = c["game"]
    game = app.state.room.games[gid]
    s = watch(a, gid, c["tokens"]["0"], c["owner"])
    # the creator may change seat 1 (invitation not opened), 2 (open), 3 (agent): not yet a person's
    assert s["can_seat"] == [0, 1, 2, 3] and s["seats"][1]["invited"] is True
    # the invitee opens the link: the seat is claimed with a fresh token, the link's token dies
    b.send({"type": "watch", "game": gid, "tokens": [c["tokens"]["1"]]})
    joined = b.until(lambda f: f["type"] == "joined")
    assert joined["seat"] == 1 and joined["token"] != c["tokens"]["1"]
    sb = b.state(lambda f: f["game"] == gid)
    assert sb["you"] == [1] and sb["can_seat"] == [1, 2, 3] and sb["seats"][1]["invited"] is False
    assert watch(thief, gid, c["tokens"]["1"])["you"] == []  # the link no longer holds the seat
    # the creator (owner token and seat 0) can no longer give seat 1 away, nor take it
    before = game.journal.path.read_bytes()
    for to in ("random", "me", "open"):
        msg = a.error({"type": "seat", "game": gid, "seat": 1, "to": to})
        assert "player 2 (yellow) is held by a person: only its holder may give it" in msg, msg
    # nor may seat 1 give away seat 0
    assert "player 1 (red) is held by a person" in b.error({"type": "seat", "game": gid, "seat": 0, "to": "random"})
    assert game.seats[0].held and game.seats[1].held and game.journal.path.read_bytes() == before
    # a spectator changes nothing; a player may reassign the agent and the open seat
    assert "only the game's creator or a player" in c_page.error({"type": "seat", "game": gid, "seat": 3, "to": "open"})
    b.send({"type": "seat", "game": gid, "seat": 3, "to": "open"})
    assert b.until(lambda f: f["type"] == "seated")["seat"] == 3
    assert game.seats[3].kind == "human" and game.seats[3].token is None
    # the holder gives its own seat to an agent
    b.send({"type": "seat", "game": gid, "seat": 1, "to": "random"})
    assert b.until(lambda f: f["type"] == "seated")["seat"] == 1
    assert game.seats[1].kind == "agent"
    # a restart keeps the claim: the link's token holds nothing, the fresh one is in the journal
    seat_events = [e for e in journal_lines(app, gid)[1:] if e["event"] == "seat"]
    assert seat_events[0] == {
        "event": "seat",
        "seat": 1,
        "kind": "human",
        "claimed": True,
        "token": game_token_digest(joined["token"]),
        "holder": game_token_digest(joined["token"]),  # a person of their own
        "ply": 0,
    }


def game_token_digest(token: str) -> str:
    from room.game import token_digest

    return token_digest(token)


# ---------------------------------------------------------------------------------- bad input
def test_every_bad_message_gets_an_error_and_changes_nothing(room):
    client, app = room
    a, b, c = two_players(client)
    gid = c["game"]
    before = (app.state.room.records / f"{gid}.jsonl").read_bytes()
    game = app.state.room.games[gid]
    cases = [
        ("{not json", "must be JSON"),
        ("[1, 2]", "must be a JSON object"),
        (json.dumps({"type": "move", "game": gid, "notation": "x" * MAX_MESSAGE}), "too large"),
        ("[" * 5000 + "]" * 5000, "malformed message: nested too deeply"),
        ({"kind": "move"}, "unknown message type None"),
        ({"type": "teleport"}, "unknown message type 'teleport'"),
        ({"type": "move", "action": 1}, "missing field 'game'"),
        ({"type": "move", "game": 7, "action": 1}, "field 'game' must be a string"),
        ({"type": "move", "game": gid, "action": True}, "field 'action' must be an integer"),
        ({"type": "move", "game": gid, "action": 1, "cheat": 1}, "unknown field(s) cheat"),
        ({"type": "move", "game": gid}, "exactly one of 'action'"),
        ({"type": "move", "game": "nope", "action": 1}, "unknown game 'nope'"),
        ({"type": "join", "game": gid, "seat": 9}, "unknown seat 9"),
        ({"type": "seat", "game": gid, "seat": 5, "to": "random"}, "unknown seat 5"),
        ({"type": "seat", "game": gid, "seat": 0, "to": "/etc/passwd.zip"}, "unknown agent"),
        ({"type": "position", "game": gid, "ply": 3}, "ply must be an integer from 0 to 0"),
        ({"type": "move", "game": gid, "action": 10**6}, "an action must be an integer in [0, 834), got 1000000"),
        ({"type": "move", "game": gid, "notation": "z9"}, ""),
        ({"type": "create", "env_id": "chess_v6", "seats": ["me"]}, "unknown environment id 'chess_v6'"),
        ({"type": "create", "env_id": "ataxx_v0", "seats": ["me"]}, "list of 2 strings"),
        (
            {"type": "create", "env_id": "ataxx_v0", "env_kwargs": {"colour": 1}, "seats": ["me", "me"]},
            "no argument 'colour'",
        ),
        (
            {"type": "create", "env_id": "ataxx_v0", "env_kwargs": {"render_mode": "human"}, "seats": ["me", "me"]},
            "render_mode",
        ),
        (
            {
                "type": "create",
                "env_id": "tantrix_v0",
                "env_kwargs": {"num_players": 3},
                "seats": ["me", "alphabeta:2", "random"],
            },
            "two players or two teams",
        ),
        ({"type": "create", "env_id": "ataxx_v0", "seats": ["me", "mcts:999999"]}, "mcts:N needs"),
    ]
    for msg, expected in cases:
        message = a.error(msg)
        assert expected in message, (msg if isinstance(msg, dict) else msg[:40], message)
    # a long bad input is quoted back cut to 80 characters and "…"
    long_move = a.error({"type": "move", "game": gid, "notation": "q" * 5000})
    assert "q" * 80 + "…" in long_move and "q" * 81 not in long_move and len(long_move) < 400, long_move
    long_game = a.error({"type": "create", "env_id": "w" * 300, "seats": ["me"]})
    assert "w" * 80 + "…" in long_game and "w" * 81 not in long_game, long_game
    # legal-looking moves by the wrong browser: a spectator, the seat not to move, an illegal action
    spectator = connect(client)
    watch(spectator, gid)
    assert "hold no seat" in spectator.error({"type": "move", "game": gid, "action": 0})
    assert "not your turn: player 1 (red, x) is to move" in b.error({"type": "move", "game": gid, "notation": "g2"})
    assert "may preview" in b.error({"type": "preview", "game": gid, "action": 0})
    illegal = next(x for x in range(834) if not game.state.legal_action_mask()[x])
    assert "is not legal here" in a.error({"type": "move", "game": gid, "action": illegal})
    assert "held by a person: only its holder" in spectator.error(
        {"type": "seat", "game": gid, "seat": 1, "to": "random"}
    )
    assert "allowed only when every other seat is an agent" in a.error({"type": "undo", "game": gid})
    assert game.ply == 0 and game.actions == []
    assert (app.state.room.records / f"{gid}.jsonl").read_bytes() == before


def test_other_sites_pages_cannot_open_the_websocket(room):
    client, _ = room
    with pytest.raises(WebSocketDisconnect) as refused:
        with client.websocket_connect("/ws", headers={"origin": "http://evil.example", "host": "testserver"}) as ws:
            ws.send_text(json.dumps({"type": "lobby"}))
            ws.receive_text()
    assert refused.value.code == 1008  # closed before accepting: policy violation
    r = client.post("/upload", files={"file": ("g.json", b"{}")}, headers={"origin": "http://evil.example"})
    assert r.status_code == 403


# ---------------------------------------------------------------------------------- hidden information
def test_a_smartrix_seat_never_receives_the_other_seats_cards(room, monkeypatch):
    client, app = room
    p0, p1, spectator = connect(client), connect(client), connect(client)
    monkeypatch.setattr(app.state.room, "draw_seed", lambda: 11)  # the room draws the seed of this deal
    c = create(p0, "smartrix_v0", ["me", "invite"], seed=None)
    gid = c["game"]
    game = app.state.room.games[gid]
    last = {0: watch(p0, gid, c["tokens"]["0"]), 1: watch(p1, gid, c["tokens"]["1"])}
    watch(spectator, gid)
    players = {0: p0, 1: p1}
    for _ in range(14):
        mover = game.to_move()
        if mover is None:
            break
        page, s = players[mover], last[mover]
        assert s["ply"] == game.ply and s["legal"], "the seat to move gets its legal actions"
        assert last[1 - mover]["legal"] is None
        acts = s["legal"]
        pick = acts[0] if len(acts) > 1 else acts[-1]  # a card rather than a pass
        page.send({"type": "preview", "game": gid, "action": pick["a"]})
        page.until(lambda f: f["type"] == "preview")
        page.send({"type": "position", "game": gid, "ply": max(game.ply - 1, 0)})
        page.until(lambda f: f["type"] == "position")
        n = game.ply + 1
        page.send({"type": "move", "game": gid, "action": pick["a"]})
        for seat, pg in players.items():  # a forced pass may follow at once: ply n or later
            last[seat] = pg.state(lambda f: f["ply"] >= n)  # noqa: B023 - called here, within this turn
        spectator.state(lambda f: f["ply"] >= n)  # noqa: B023 - called here, within this turn
        assert last[0]["ply"] == last[1]["ply"] == game.ply
    assert game.ply >= 10 and len(p0.frames) > 20
    own = [
        leak
        for frame in p1.frames
        if "ply" in json.loads(frame)
        for leak in hidden_cards_in(frame, game.positions[json.loads(frame)["ply"]], 1)
    ]
    assert own, "the marks searched for do show a seat's own cards in its own frames"
    for frame in p0.frames:
        f = json.loads(frame)
        if "ply" not in f:
            continue
        assert not hidden_cards_in(frame, game.positions[f["ply"]], 1), (f["type"], f["ply"])
        if f["type"] == "state" and not f["over"]:
            assert f["scores"] is None  # scores count the cards in hand
    for frame in spectator.frames:
        f = json.loads(frame)
        if "ply" in f and not f.get("over"):
            for seat in (0, 1):
                assert not hidden_cards_in(frame, game.positions[f["ply"]], seat), (f["type"], f["ply"], seat)
    # the record (which holds the deal) is refused until the game is over
    r = client.get(f"/game/{gid}/record.json")
    assert r.status_code == 409 and "once the game is over" in r.json()["error"]
    p0.send({"type": "resign", "game": gid})
    s = p0.state(lambda f: f["over"])
    assert s["outcome"]["result"] == "player 1 resigned" and s["outcome"]["winners"] == [1]
    r = client.get(f"/game/{gid}/record.json")
    assert r.status_code == 200 and r.json()["deal"]["deck"] and r.json()["meta"]["resigned"] == 0


# ---------------------------------------------------------------------------------- agents
def test_an_agent_that_fails_is_reported_and_its_seat_can_be_given_away(room):
    client, app = room
    p = connect(client)
    c = create(p, "ataxx_v0", ["me", "failing"], seed=2)
    gid = c["game"]
    s = watch(p, gid, c["tokens"]["0"])
    p.send({"type": "move", "game": gid, "action": s["legal"][0]["a"]})
    s = p.state(lambda f: f["seats"][1]["error"])
    assert "failed on purpose" in s["seats"][1]["error"] and s["ply"] == 1 and s["to_move"] == 1
    assert s["over"] is False
    p.send({"type": "seat", "game": gid, "seat": 1, "to": "random"})
    assert p.until(lambda f: f["type"] == "seated")["token"] is None
    s = p.state(lambda f: f["ply"] == 2)
    assert s["seats"][1]["agent"] == "random" and s["seats"][1]["error"] is None
    events = journal_lines(app, gid)[1:]
    assert [e["event"] for e in events] == ["move", "seat", "move"]


def test_a_slow_agent_does_not_slow_another_game(room):
    client, app = room
    slow_page, fast = connect(client), connect(client)
    c1 = create(slow_page, "ataxx_v0", ["me", "slow"])
    s = watch(slow_page, c1["game"], c1["tokens"]["0"])
    slow_page.send({"type": "move", "game": c1["game"], "action": s["legal"][0]["a"]})
    slow_page.state(lambda f: f["seats"][1]["thinking"])
    c2 = create(fast, "ataxx_v0", ["me", "random"])
    s = watch(fast, c2["game"], c2["tokens"]["0"])
    started = time.monotonic()
    for _ in range(3):
        fast.send({"type": "move", "game": c2["game"], "action": s["legal"][0]["a"]})
        s = fast.state(lambda f, n=s["ply"] + 2: f["ply"] == n and f["legal"])
    assert time.monotonic() - started < SlowAgent.seconds / 2
    assert app.state.room.games[c1["game"]].ply == 1  # still thinking


# ---------------------------------------------------------------------------------- undo, resign
def test_undo_goes_back_to_the_humans_previous_turn(room):
    client, app = room
    p = connect(client)
    c = create(p, "ataxx_v0", ["me", "random"], seed=4)
    gid = c["game"]
    s = watch(p, gid, c["tokens"]["0"])
    assert s["can_undo"] is False
    for _ in range(2):
        p.send({"type": "move", "game": gid, "action": s["legal"][0]["a"]})
        s = p.state(lambda f, n=s["ply"] + 2: f["ply"] == n)
    assert s["can_undo"] is True
    moves = s["moves"]
    p.send({"type": "undo", "game": gid})
    s = p.state(lambda f: f["ply"] == 2)
    assert s["moves"] == moves[:2] and s["to_move"] == 0 and s["legal"]
    assert app.state.room.games[gid].state == replay(
        {"format": "tabletop-record", "version": 1, "env_id": "ataxx_v0", "moves": moves[:2]}
    )
    assert journal_lines(app, gid)[-1] == {"event": "undo", "to": 2}


def test_undo_is_refused_once_the_game_is_over(room):
    client, app = room
    p = connect(client)
    # one empty square, next to x: x's move fills the board and ends the game by the rules
    fen = "xxxxxx1/xxxxxxx/xxxxxxx/ooooooo/ooooooo/ooooooo/ooooooo x 0 1"
    c = create(p, "ataxx_v0", ["me", "random"], seed=4, fen=fen)
    gid = c["game"]
    s = watch(p, gid, c["tokens"]["0"])
    p.send({"type": "move", "game": gid, "notation": "g7"})
    s = p.state(lambda f: f["over"])
    assert s["ply"] == 1 and s["outcome"]["winners"] == [1] and s["can_undo"] is False  # 22 x against 28 o
    before = journal_lines(app, gid)
    assert before[-1]["event"] == "move" and before[-1]["then"][-1]["event"] == "result"  # one line
    assert "undo: the game is over" in p.error({"type": "undo", "game": gid})
    assert app.state.room.games[gid].ply == 1 and journal_lines(app, gid) == before


def test_resign_ends_the_game(room):
    client, app = room
    a, b, c = two_players(client)
    gid = c["game"]
    b.send({"type": "resign", "game": gid})
    s = a.state(lambda f: f["over"])
    assert s["outcome"] == {
        "result": "player 2 (blue, o) resigned",
        "termination": "resignation",
        "winners": [0],
        "scores": None,
        "draw": False,
        "words": "player 2 (blue, o) resigned: player 1 (red, x) won",
    }
    assert s["legal"] is None and s["can_resign"] is False
    assert s["phase"] == "The game ended by resignation: player 2 (blue, o) resigned."
    rec = client.get(f"/game/{gid}/record.json").json()
    assert rec["result"] is None and rec["meta"]["resigned"] == 1 and rec["meta"]["winners"] == [0]
    assert "is over" in a.error({"type": "move", "game": gid, "notation": "g2"})
    # the seat event: the invitation link opened (claimed with a fresh token)
    assert [e["event"] for e in journal_lines(app, gid)[1:]] == ["seat", "resign"]
    assert journal_lines(app, gid)[-1]["then"][0]["event"] == "result"  # the resignation's line


# ---------------------------------------------------------------------------------- nothing lost
def test_restart_lists_and_resumes_unfinished_games(tmp_path):
    records = tmp_path / "records"
    app = create_app(records, agent_delay=0)
    with TestClient(app) as client:
        p = connect(client)
        c = create(p, "ataxx_v0", ["me", "random"], seed=8)
        gid, token = c["game"], c["tokens"]["0"]
        s = watch(p, gid, token)
        for _ in range(2):
            p.send({"type": "move", "game": gid, "action": s["legal"][-1]["a"]})
            s = p.state(lambda f, n=s["ply"] + 2: f["ply"] == n)
        done = create(p, "ataxx_v0", ["me", "random"], seed=9)
        watch(p, done["game"], done["tokens"]["0"])
        p.send({"type": "resign", "game": done["game"]})
        p.state(lambda f: f["over"])
        moves = s["moves"]
        close_pages()
    app2 = create_app(records, agent_delay=0)
    with TestClient(app2) as client:
        p = connect(client)
        p.send({"type": "lobby"})
        lobby = p.until(lambda f: f["type"] == "lobby")
        listed = {g["game"]: g for g in lobby["games"]}
        assert listed[gid]["over"] is False and listed[gid]["ply"] == 4
        assert listed[done["game"]]["over"] is True and listed[done["game"]]["outcome"]["result"].endswith("resigned")
        s = watch(p, gid, token)
        assert s["you"] == [0] and s["moves"] == moves and s["legal"]
        p.send({"type": "move", "game": gid, "action": s["legal"][0]["a"]})
        s = p.state(lambda f: f["ply"] == 6)
        assert s["moves"][:4] == moves
        close_pages()


def test_a_damaged_journal_is_reported_and_restored_to_its_last_good_line(tmp_path):
    records = tmp_path / "records"
    app = create_app(records, agent_delay=0)
    with TestClient(app) as client:
        p = connect(client)
        c = create(p, "ataxx_v0", ["me", "invite"], seed=8)
        gid = c["game"]
        watch(p, gid, c["tokens"]["0"])
        q = connect(client)
        watch(q, gid, c["tokens"]["1"])
        # the invitation link is single use: q's seat now has the fresh token of its "joined" frame
        q_token = next(json.loads(f)["token"] for f in q.frames if json.loads(f)["type"] == "joined")
        for page, move in ((p, "g2"), (q, "a2"), (p, "f1")):
            page.send({"type": "move", "game": gid, "notation": move})
            page.state(lambda f, m=move: f["moves"] and f["moves"][-1] == m)
        close_pages()
    path = records / f"{gid}.jsonl"
    with open(path, "a") as f:
        f.write('{"event": "move", "ply": 3, "act')  # a crash in the middle of a line
    app2 = create_app(records, agent_delay=0)
    game = app2.state.room.games[gid]
    assert game.ply == 3 and game.state.moves() == ["g2", "a2", "f1"]
    # line 2: seat 1's invitation claimed; lines 3-5: the moves; line 6: cut short
    assert "line 6 is cut short" in game.problem and "restored" in game.problem
    assert any("line 6" in pr for pr in app2.state.room.problems)
    kept = list(records.glob(f"{gid}.jsonl.damaged-*"))
    assert len(kept) == 1 and kept[0].read_bytes().endswith(b'"act')
    content = read_journal(path)
    assert content.problem is None and len(content.events) == 4
    with TestClient(app2) as client:
        q = connect(client)
        s = watch(q, gid, q_token)
        assert s["problem"] == game.problem and s["you"] == [1]
        q.send({"type": "move", "game": gid, "notation": "a3"})
        assert q.state(lambda f: f["ply"] == 4)["moves"][-1] == "a3"
        close_pages()
    assert read_journal(path).problem is None


def test_an_illegal_event_in_a_journal_is_reported(tmp_path):
    records = tmp_path / "records"
    app = create_app(records, agent_delay=0)
    with TestClient(app) as client:
        p = connect(client)
        c = create(p, "ataxx_v0", ["me", "me"], seed=8)
        gid = c["game"]
        close_pages()
    with open(records / f"{gid}.jsonl", "a") as f:
        f.write(json.dumps({"event": "move", "ply": 0, "action": 0, "notation": "a1", "seat": 0, "by": "human"}) + "\n")
    game = create_app(records).state.room.games[gid]
    assert game.ply == 0 and "line 2" in game.problem and "not legal" in game.problem


# ---------------------------------------------------------------------------------- records
def test_download_replays_and_upload_opens_a_replay(room, tmp_path):
    client, app = room
    p = connect(client)
    c = create(p, "ataxx_v0", ["me", "random"], seed=5)
    gid = c["game"]
    s = watch(p, gid, c["tokens"]["0"])
    p.send({"type": "move", "game": gid, "action": s["legal"][0]["a"]})
    s = p.state(lambda f: f["ply"] == 2)
    r = client.get(f"/game/{gid}/record.json")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    rec = r.json()
    assert rec["moves"] == s["moves"] and rec["seed"] == 5 and rec["result"] is None
    assert replay(rec).moves() == s["moves"]
    assert client.get("/game/nope/record.json").status_code == 404
    # upload the record of a finished game
    env = spec("tantrix_v0").make_raw()
    env.reset(seed=3)
    st = env.state
    while not st.is_terminal():
        st.apply(st.legal_actions()[0])
    finished = record_from_state(st, "tantrix_v0", {}, 3)
    r = client.post("/upload", files={"file": ("game.json", json.dumps(finished).encode(), "application/json")})
    assert r.status_code == 200, r.text
    up = r.json()["game"]
    s = watch(p, up)
    assert s["kind"] == "record" and s["over"] and s["ply"] == len(finished["moves"])
    assert s["outcome"]["result"] == finished["result"]["result"] and s["legal"] is None
    p.send({"type": "position", "game": up, "ply": 1})
    pos = p.until(lambda f: f["type"] == "position")
    assert pos["ply"] == 1 and pos["svg"].startswith("<svg")
    assert "uploaded record" in p.error({"type": "move", "game": up, "action": 0})
    assert client.get(f"/game/{up}/record.json").json() == finished
    assert read_journal(app.state.room.records / f"{up}.jsonl").header["record"] == finished
    # bad uploads: unknown suffix, bad JSON, an illegal move, no file, too large
    bad = [
        ("game.xyz", b"1", "unknown record format '.xyz'"),
        ("game.json", b"{", "not valid JSON"),
        ("game.json", json.dumps({**finished, "moves": ["t1@9,9r0"]}).encode(), "move 1"),
        ("x.json", b"[" * 5000 + b"]" * 5000, "'x.json': JSON nested too deeply"),
    ]
    for name, data, expected in bad:
        r = client.post("/upload", files={"file": (name, data)})
        assert r.status_code == 400 and expected in r.json()["error"], r.text
    assert client.post("/upload", data={"x": "1"}).status_code == 400
    big = client.post("/upload", files={"file": ("g.json", b" " * (3 * 1024 * 1024))})
    assert big.status_code == 413


def _pgn_sample() -> bytes:
    """An Ataxx PGN (the python-ataxx style the Ataxx package reads): 30 seeded random moves."""
    import numpy as np

    from envs.ataxx.records import write_pgn

    env = spec("ataxx_v0").make_raw()
    env.reset(seed=2)
    st, rng = env.state, np.random.default_rng(2)
    for _ in range(30):
        legal = st.legal_actions()
        st.apply(legal[rng.integers(len(legal))])
    return write_pgn(st, {"White": "room test", "Black": "random"}).encode()


#: A sample of every record format the room should open: the game records in tests/data (records/,
#: twixt/; the folder's other files are tables and search references), and made here.
SAMPLES = {
    p.name: p.read_bytes
    for folder in ("records", "twixt")
    for p in sorted((REPO_ROOT / "tests" / "data" / folder).rglob("*"))
    if p.suffix.lower() in (".json", ".tsgf", ".t1")
}
assert len(SAMPLES) == 5, sorted(SAMPLES)  # 2 older-format JSON records, 2 Little Golem, 1 T1
SAMPLES["ataxx-sample.pgn"] = _pgn_sample


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_each_record_format_uploads_as_a_replay(room, name):
    suffix = "." + name.rsplit(".", 1)[1].lower()
    if suffix not in import_formats():
        pytest.skip(f"no reader of {suffix} files is registered yet (envs.core.records.import_formats)")
    client, _ = room
    data = SAMPLES[name]()
    expected = import_record(name, data)
    r = client.post("/upload", files={"file": (name, data)})
    assert r.status_code == 200, r.text
    p = connect(client)
    s = watch(p, r.json()["game"])
    assert s["kind"] == "record" and s["env_id"] == expected["env_id"] and s["moves"] == expected["moves"]
    assert s["ply"] == len(expected["moves"]) > 0


def test_pages_and_static_files_are_served_with_a_content_security_policy(room):
    client, _ = room
    r = client.get("/")
    assert r.status_code == 200 and 'data-page="lobby"' in r.text
    assert "script-src 'self'" in r.headers["content-security-policy"]
    assert client.get("/static/room.css").status_code == 200
    assert "No game" in client.get("/game/zzz").text
    # each page loads the shared script and its own only, all from the room itself ('self')
    c = create(connect(client), "ataxx_v0", ["me", "random"])
    game_page = client.get(f"/game/{c['game']}")
    assert "script-src 'self'" in game_page.headers["content-security-policy"]
    for text, own, other in ((r.text, "lobby.js", "game.js"), (game_page.text, "game.js", "lobby.js")):
        scripts = re.findall(r'<script src="([^"]+)"', text)
        assert scripts == ["/static/common.js", f"/static/{own}"] and other not in text, scripts
        for src in scripts:
            assert client.get(src).status_code == 200, src


def test_a_forced_move_without_a_click_path_plays_itself(room):
    client, app = room
    fen = "xxxxxxx/xxxxxxx/xxxxxxx/xxxxxxx/ooooooo/ooooooo/ooooo2 x 0 1"  # x has no move: it must pass
    st = spec("ataxx_v0").initial_state(fen=fen)
    (only,) = st.legal_actions()
    if st.board_ui().action_paths(st, only).paths:
        pytest.skip("this game's pass has a click path (its board module draws no forced pass yet)")
    p = connect(client)
    c = create(p, "ataxx_v0", ["me", "greedy"], fen=fen)  # greedy clones: the board fills
    watch(p, c["game"], c["tokens"]["0"])
    game = app.state.room.games[c["game"]]
    deadline = time.monotonic() + 15
    while not (game.over or game.to_move() == 0 and len(game.state.legal_actions()) > 1):
        assert time.monotonic() < deadline
        time.sleep(0.02)
    events = journal_lines(app, c["game"])[1:]
    assert (events[0]["by"], events[0]["notation"], events[0]["seat"]) == ("auto", "0000", 0)
    autos = [e["ply"] for e in events if e["event"] == "move" and e["by"] == "auto"]
    for ply in autos:  # each was a position where seat 0's only move had no click path
        st = game.positions[ply]
        assert st.current_player == 0 and len(st.legal_actions()) == 1
    assert [e["by"] for e in events if e["event"] == "move"][:2] == ["auto", "agent"]
    assert all(e["by"] != "human" for e in events if e["event"] == "move")


def test_unreadable_journals_are_listed_as_problems_and_left_alone(tmp_path):
    records = tmp_path / "records"
    records.mkdir()
    (records / "aaaa0001.jsonl").write_bytes(b"\xff\xfe not json\n")
    (records / "aaaa0002.jsonl").write_text('{"format": "something-else", "version": 1}\n')
    (records / "aaaa0003.jsonl").write_text("")
    room = create_app(records).state.room
    assert room.games == {}
    problems = "\n".join(room.problems)
    assert "aaaa0001.jsonl line 1 is not JSON" in problems
    assert "aaaa0002.jsonl line 1: not a tabletop-room-journal version 1 header" in problems
    assert "aaaa0003.jsonl is empty" in problems
    assert (records / "aaaa0001.jsonl").read_bytes() == b"\xff\xfe not json\n"  # nothing rewritten


def test_the_protocol_module_documents_every_message_it_accepts():
    """room.protocol: each message of the schema is named, with its type, in the module's documentation."""
    from room import protocol

    doc = " ".join((protocol.__doc__ or "").split())
    for kind, cls in protocol.MESSAGES.items():
        assert f':class:`{cls.__name__}` ``{{"type": "{kind}"' in doc, kind
        assert (cls.__doc__ or "").strip(), cls.__name__
