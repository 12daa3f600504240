"""The room's resource bounds (room.limits): each bound refused with its message and nothing
stored; finished games off memory and replayed when opened; start-up reads only the finished
games' first and last lines; a search agent past its move time limit stopped; a page that does not
read dropped. Small bounds keep the tests fast."""

from __future__ import annotations

import base64
import json
import multiprocessing
import os
import socket
import time
from contextlib import contextmanager

import pytest

pytest.importorskip("starlette", reason="the play room needs the 'room' extra: pip install -e '.[room]'")
pytest.importorskip("httpx", reason="Starlette's TestClient needs httpx (the 'test' extra)")

from room_helpers import Page, agents_with  # noqa: E402

# the loopback TestClient and its pages, closed after each test (an autouse fixture)
from test_room_protocol import TestClient, _close_pages, close_pages, connect  # noqa: E402,F401

import room.games  # noqa: E402
from envs.core.records import record_from_state  # noqa: E402
from envs.registry import spec  # noqa: E402
from room.app import create_app, serve_in_thread  # noqa: E402
from room.connection import Connection  # noqa: E402
from room.limits import RoomLimits  # noqa: E402
from room.workers import MoveTimeout, call_in_process, think_in_process  # noqa: E402
from training.agents.search import AlphaBetaAgent  # noqa: E402


@contextmanager
def serving(app):
    """A TestClient of ``app`` whose pages are closed before it stops (an open one keeps it waiting)."""
    with TestClient(app) as client:
        try:
            yield client
        finally:
            close_pages()


def create(page: Page, seats=("me", "me"), env_id="ataxx_v0", **kwargs) -> dict:
    msg = {"type": "create", "env_id": env_id, "seats": list(seats), "seed": 1}
    if kwargs:
        msg["env_kwargs"] = kwargs
    page.send(msg)
    return page.until(lambda f: f["type"] in ("created", "error"))


def finished_game(page: Page) -> str:
    """A new Ataxx game, resigned at once (its journal ends with its result)."""
    c = create(page)
    page.send({"type": "watch", "game": c["game"], "tokens": [c["tokens"]["0"]]})
    page.send({"type": "resign", "game": c["game"], "seat": 0})
    page.state(lambda f: f["game"] == c["game"] and f["over"])
    return c["game"]


def journals(records) -> list[str]:
    return sorted(p.name for p in records.glob("*.jsonl"))


def a_record(moves: int) -> bytes:
    env = spec("ataxx_v0").make_raw()
    env.reset(seed=0)
    st = env.state
    for _ in range(moves):
        st.apply(st.legal_actions()[0])
    return json.dumps(record_from_state(st, "ataxx_v0", {}, 0)).encode()


# ---------------------------------------------------------------------------------- options
def test_every_bound_is_a_command_line_option_with_its_default(capsys):
    from room.cli import _parser, main

    help_text = _parser().format_help()
    for name, field in RoomLimits.model_fields.items():
        assert RoomLimits().option(name) in help_text and f"(default {field.default})" in help_text
    assert main(["--max-open-games", "0"]) == 2
    assert capsys.readouterr().err.strip() == (
        "error: --max-open-games: Input should be greater than or equal to 1, got 0"
    )
    with pytest.raises(Exception, match="greater than 0"):
        RoomLimits(move_time_limit=0.0)


# ---------------------------------------------------------------------------------- games
def test_open_games_and_games_per_visitor_are_bounded(tmp_path):
    records = tmp_path / "records"
    app = create_app(records, limits=RoomLimits(max_games_per_visitor=2, max_open_games=3))
    with serving(app) as client:
        p = connect(client)
        first = create(p)
        assert create(p)["type"] == "created"
        m = create(p)
        assert m["type"] == "error" and "you have 2 unfinished games" in m["message"]
        assert "--max-games-per-visitor 2" in m["message"]
        assert len(journals(records)) == 2 and len(app.state.room.games) == 2  # nothing stored
        # a finished game frees its place
        p.send({"type": "watch", "game": first["game"], "tokens": [first["tokens"]["0"]]})
        p.send({"type": "resign", "game": first["game"], "seat": 0})
        p.state(lambda f: f["over"])
        assert create(p)["type"] == "created"
        # the room's own bound: another visitor (the room counts unfinished games of everyone)
        app.state.room.creators = {gid: "someone else" for gid in app.state.room.creators}
        assert create(p)["type"] == "created"  # 3 unfinished
        m = create(p)
        assert m["type"] == "error" and "the room has 3 unfinished games" in m["message"]
        assert "--max-open-games 3" in m["message"] and len(journals(records)) == 4


def test_env_kwargs_and_seat_choices_are_bounded_in_size(tmp_path):
    records = tmp_path / "records"
    app = create_app(records, limits=RoomLimits(max_kwargs_bytes=100, max_kwargs_string=20))
    with serving(app) as client:
        p = connect(client)
        p.send({"type": "lobby"})
        p.until(lambda f: f["type"] == "lobby")
        m = create(p, ["me", "me"], "tantrix_v0", colors="x" * 60_000)
        assert m["type"] == "error"
        assert m["message"].startswith("create: field 'env_kwargs' too large: 60013 bytes of JSON, at most 100")
        assert "--max-kwargs-bytes" in m["message"]
        m = create(p, ["me", "me"], "tantrix_v0", colors=["y" * 30])
        assert "a string of 30 characters, at most 20 (--max-kwargs-string)" in m["message"]
        assert "too large: 70 seat choices" in p.error({"type": "create", "env_id": "ataxx_v0", "seats": ["me"] * 70})
        p.send({"type": "setup", "env_id": "tantrix_v0", "env_kwargs": {"colors": "z" * 500}})
        assert "--max-kwargs-bytes" in p.until(lambda f: f["type"] == "error")["message"]
        assert journals(records) == [] and app.state.room.games == {}
        assert all("xxxx" not in f and "yyyy" not in f for f in p.frames)  # never in a lobby frame


# ---------------------------------------------------------------------------------- finished games
def test_finished_games_leave_memory_and_are_replayed_when_opened(tmp_path):
    records = tmp_path / "records"
    app = create_app(records, limits=RoomLimits(max_loaded_finished=1))
    room_ = app.state.room
    with serving(app) as client:
        p = connect(client)
        a, b = finished_game(p), finished_game(p)
        assert set(room_.games) == {b} and set(room_.shelf) == {a}
        p.send({"type": "lobby"})
        lobby = p.until(lambda f: f["type"] == "lobby")
        rows = {g["game"]: g for g in lobby["games"]}
        assert set(rows) == {a, b} and rows[a]["over"] and "resigned" in rows[a]["outcome"]["result"]
        q = connect(client)
        q.send({"type": "watch", "game": a})
        s = q.state(lambda f: f["game"] == a)
        assert s["over"] and "resigned" in s["outcome"]["result"] and s["svg"].startswith("<svg")
        assert set(room_.games) == {a} and set(room_.shelf) == {b}  # b left for a
        assert client.get(f"/game/{b}").status_code == 200 and set(room_.games) == {b}
        assert client.get(f"/game/{a}/record.json").status_code == 200


def test_start_up_replays_no_finished_game(tmp_path, monkeypatch):
    records = tmp_path / "records"
    app = create_app(records)
    with serving(app) as client:
        p = connect(client)
        done = [finished_game(p) for _ in range(4)]
        live = create(p)["game"]
        assert client.post("/upload", files={"file": ("r.json", a_record(3))}).status_code == 200
    replayed = []
    real = room.games.load_journal

    def counting(path, *args):
        replayed.append(path.stem)
        return real(path, *args)

    monkeypatch.setattr(room.games, "load_journal", counting)
    app2 = create_app(records)
    room2 = app2.state.room
    assert replayed == [live]  # only the unfinished game's journal was replayed
    assert set(room2.games) == {live} and set(done) <= set(room2.shelf) and len(room2.shelf) == 5
    # a finished game whose last line was cut short is replayed at start (which repairs it)
    with open(records / f"{done[0]}.jsonl", "a") as f:
        f.write('{"event": "mo')
    replayed.clear()
    room3 = create_app(records).state.room
    assert sorted(replayed) == sorted([live, done[0]]) and "cut short" in room3.games[done[0]].problem


# ---------------------------------------------------------------------------------- uploads
def test_uploads_are_bounded_per_visitor_and_in_moves(tmp_path):
    records = tmp_path / "records"
    app = create_app(records, limits=RoomLimits(max_uploads_per_visitor=1, max_record_moves=3))
    with serving(app) as client:
        r = client.post("/upload", files={"file": ("long.json", a_record(4))})
        assert r.status_code == 400
        assert r.json()["error"] == "record too long: 4 moves, at most 3 (--max-record-moves)"
        assert journals(records) == []
        assert client.post("/upload", files={"file": ("ok.json", a_record(3))}).status_code == 200
        r = client.post("/upload", files={"file": ("again.json", a_record(1))})
        assert r.status_code == 400 and "1 uploads from you" in r.json()["error"]
        assert "--max-uploads-per-visitor 1" in r.json()["error"] and len(journals(records)) == 1


def test_an_upload_whose_positions_would_not_fit_is_refused(tmp_path):
    records = tmp_path / "records"
    app = create_app(records, limits=RoomLimits(max_record_memory=2000))
    with serving(app) as client:
        r = client.post("/upload", files={"file": ("r.json", a_record(30))})
        assert r.status_code == 400 and "record too large to replay: its 31 positions" in r.json()["error"]
        assert "(--max-record-memory)" in r.json()["error"] and journals(records) == []


def test_a_chunked_upload_is_cut_off_while_it_streams(tmp_path):
    records = tmp_path / "records"
    app = create_app(records, limits=RoomLimits(max_upload_bytes=50_000))
    url, stop = serve_in_thread(app)
    host, port = url.rsplit("//", 1)[1].split(":")
    try:
        s = socket.create_connection((host, int(port)), timeout=10)
        boundary = "b0und4ry"
        s.sendall(
            (
                f"POST /upload HTTP/1.1\r\nHost: {host}:{port}\r\nTransfer-Encoding: chunked\r\n"
                f"Content-Type: multipart/form-data; boundary={boundary}\r\n\r\n"
            ).encode()
        )
        head = f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="g.json"\r\n\r\n'.encode()
        s.sendall(b"%x\r\n%s\r\n" % (len(head), head))
        sent, total, answer = 0, 300 * 1024 * 1024, b""
        chunk = b" " * 16384
        s.settimeout(0.05)
        while sent < total:
            try:
                s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except OSError:  # the server closed the connection
                break
            sent += len(chunk)
            try:
                answer = s.recv(4096)
            except TimeoutError:
                continue
            if answer:
                break
        s.settimeout(5)
        while b"\r\n\r\n" not in answer:
            more = s.recv(4096)
            if not more:
                break
            answer += more
        s.close()
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        assert sent < 2 * 1024 * 1024  # refused once past the bound, not after 300 MiB
        assert journals(records) == []
    finally:
        stop()


# ---------------------------------------------------------------------------------- caches
def test_a_games_drawings_are_a_bounded_lru(tmp_path):
    app = create_app(tmp_path / "records", agent_delay=0, limits=RoomLimits(svg_cache_size=3))
    with serving(app) as client:
        p = connect(client)
        c = create(p, ["me", "random"])
        gid = c["game"]
        s = p.send({"type": "watch", "game": gid, "tokens": [c["tokens"]["0"]]}) or p.state()
        for _ in range(4):
            p.send({"type": "move", "game": gid, "action": s["legal"][0]["a"]})
            s = p.state(lambda f, k=s["ply"]: f["ply"] == k + 2 and f["legal"])
        game = app.state.room.games[gid]
        for ply in range(game.ply + 1):
            p.send({"type": "position", "game": gid, "ply": ply})
            p.until(lambda f: f["type"] == "position")
        for a in s["legal"][:5]:
            p.send({"type": "preview", "game": gid, "action": a["a"]})
            p.until(lambda f: f["type"] == "preview")
        drawings = [k for k in game._cache if isinstance(k, tuple) and k[0] == "svg"]
        assert len(game._cache) <= 3 + 4 and 1 <= len(drawings) <= 3 + 4


# ---------------------------------------------------------------------------------- agents
class SleepingAlphaBeta(AlphaBetaAgent):
    """An alpha-beta agent whose search never ends (it sleeps for a minute)."""

    def _act(self, state, obs):
        time.sleep(60)
        return state.legal_actions()[0]


def test_the_menus_cap_the_search_agents(tmp_path):
    app = create_app(tmp_path / "records", limits=RoomLimits(max_alphabeta_depth=3, max_mcts_simulations=300))
    with serving(app) as client:
        p = connect(client)
        m = create(p, ["me", "alphabeta:4"])
        assert "alphabeta:N needs 1 <= N <= 3 (this room's --max-alphabeta-depth)" in m["message"]
        m = create(p, ["me", "mcts:301"])
        assert "--max-mcts-simulations" in m["message"] and journals(tmp_path / "records") == []
        p.send({"type": "setup", "env_id": "ataxx_v0"})
        names = [a["name"] for a in p.until(lambda f: f["type"] == "setup")["agents"]]
        assert "alphabeta:3" in names and "mcts:200" in names and "mcts:1000" not in names


def test_a_search_agent_past_its_move_time_limit_is_stopped(tmp_path):
    records = tmp_path / "records"
    app = create_app(
        records, agents_with(sleepy=SleepingAlphaBeta), agent_delay=0, limits=RoomLimits(move_time_limit=0.5)
    )
    with serving(app) as client:
        p = connect(client)
        c = create(p, ["sleepy", "me"])
        t0 = time.monotonic()
        p.send({"type": "watch", "game": c["game"], "tokens": [c["tokens"]["1"]]})
        s = p.state(lambda f: f["seats"][0]["error"])
        assert time.monotonic() - t0 < 10
        assert "did not answer within 0.5 s (its search was stopped)" in s["seats"][0]["error"]
        assert s["ply"] == 0 and not s["seats"][0]["thinking"]
        assert multiprocessing.active_children() == []  # the worker process was killed
        assert len((records / f"{c['game']}.jsonl").read_text().splitlines()) == 1  # nothing journaled


def test_a_search_agent_in_its_worker_process_plays_as_in_a_thread():
    env = spec("ataxx_v0").make_raw()
    env.reset(seed=0)
    in_thread, in_process = AlphaBetaAgent(1, seed=7), AlphaBetaAgent(1, seed=7)
    st = env.state
    for _ in range(6):  # ties broken by the agent's generator: its state comes back from the worker
        obs = env.observe(env.agent_selection)
        a = int(st.to_state_action(st.current_player, in_thread.act(st.clone(), obs)))
        assert think_in_process(in_process, st.clone(), obs, st.current_player, 20) == a
        env.step(st.to_agent_action(st.current_player, a))
        st = env.state
    with pytest.raises(MoveTimeout):
        think_in_process(SleepingAlphaBeta(1), st.clone(), env.observe(env.agent_selection), st.current_player, 0.2)
    assert multiprocessing.active_children() == []


def _spin(seconds: float) -> int:
    """Pure-Python work for ``seconds`` (holds the GIL of its process); the loop count."""
    n, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        n += 1
    return n


def _fail():
    raise KeyError("broken")


def test_work_in_a_child_process_returns_its_result_and_leaves_the_server_s_gil_free():
    import threading

    ticks = [0]
    stop = threading.Event()

    def ticker():  # a thread of the server (the event loop's stand-in)
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        before = ticks[0]
        assert call_in_process(_spin, (1.0,), 20) > 0
        during = ticks[0] - before
    finally:
        stop.set()
        t.join()
    assert during > 100  # about 1,000 ticks of 1 ms in the second of work: the thread was never held
    with pytest.raises(RuntimeError, match="KeyError: 'broken'"):
        call_in_process(_fail, (), 20)
    with pytest.raises(MoveTimeout, match="no result within 0.2 s"):
        call_in_process(_spin, (30.0,), 0.2)
    assert multiprocessing.active_children() == []


def test_the_speed_probe_runs_in_a_child_process(monkeypatch):
    import room.agents as ra

    parent = os.getpid()
    pids = []

    def probe(env, depth):
        pids.append(os.getpid())  # recorded in the child: the parent's list stays empty
        assert os.getpid() != parent
        return ra.SpeedProbe(100, (100,), (0.01,), 1e-3)

    monkeypatch.setattr(ra, "_probe", probe)
    agents = ra.RoomAgents({}, limits=RoomLimits())
    env = spec("ataxx_v0").make_raw()
    env.reset(seed=0)
    assert agents.estimate(AlphaBetaAgent(1), env, "ataxx_v0", {}) == pytest.approx(0.01)
    assert pids == []


# ---------------------------------------------------------------------------------- slow pages
def test_a_page_that_falls_behind_is_dropped():
    import asyncio

    class Stuck:
        async def send_text(self, text):
            await asyncio.sleep(3600)  # a page that never reads

    async def main():
        conn = Connection(Stuck(), "here", max_bytes=10_000)
        writer = asyncio.create_task(conn.writer())
        for i in range(100):
            conn.send({"type": "state", "svg": "x" * 1000, "i": i})
        assert conn.dropped.is_set() and conn.closed and conn.queued_bytes <= 10_000
        writer.cancel()

    asyncio.run(main())


def _ws_frame(text: str) -> bytes:
    data, mask = text.encode(), os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
    assert len(data) < 126
    return bytes([0x81, 0x80 | len(data)]) + mask + masked


def test_a_real_page_that_never_reads_is_dropped_by_the_server(tmp_path):
    app = create_app(tmp_path / "records", limits=RoomLimits(max_send_queue_bytes=200_000))
    room_ = app.state.room
    url, stop = serve_in_thread(app)
    host, port = url.rsplit("//", 1)[1].split(":")
    try:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.connect((host, int(port)))
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall(
            (
                f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        assert s.recv(4096).startswith(b"HTTP/1.1 101")
        deadline = time.monotonic() + 30
        s.settimeout(0.5)
        while room_.connections and time.monotonic() < deadline:
            try:
                for _ in range(20):  # the lobby frame, never read
                    s.sendall(_ws_frame('{"type":"lobby"}'))
            except OSError:
                break
        assert not room_.connections, "the page that does not read was not dropped"
        s.close()
    finally:
        stop()
