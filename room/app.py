"""The room's HTTP and WebSocket routes: the Starlette application of one :class:`~room.games.Room`.

Pages: ``/`` the lobby, ``/game/ID`` a game (a share link adds ``#seat=S&token=T``: the fragment
never reaches the server's logs), ``/game/ID/record.json`` the library's JSON record (refused with
409 for a game with hidden information or chance until it is over: the record holds the deal),
``POST /upload`` (form field ``file``: a record, ``.json`` or a format a game registered, at most
``limits.max_upload_bytes``, counted as the body streams in) opens a record as a replay;
``/rules/ENV_ID`` the game's full rules (its ``RULES.md``, plain text; :mod:`room.words`); ``/ws``
the WebSocket of the
protocol (:mod:`room.protocol`), one per page. Static files (the pages' scripts and style) under
``/static``. Every page is sent with a Content-Security-Policy that allows only the room's own
scripts and its own WebSocket (:func:`room.trust.csp`). Every request and WebSocket handshake
whose ``Host`` is not a served host name, or whose ``Origin`` is not the room's own, is refused
(:class:`room.trust.HostCheck`: DNS rebinding, another site's page).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from envs.registry import env_ids, spec
from room.agents import RoomAgents
from room.connection import Connection
from room.game import RoomError
from room.games import Room
from room.limits import RoomLimits
from room.trust import LOOPBACK_HOSTS, HostCheck, allowed_host, csp, safe_text

__all__ = ["create_app", "serve_in_thread", "CSP"]

#: The Content-Security-Policy of a page served without a ``Host`` (:func:`room.trust.csp` adds
#: the room's own ``ws://`` and ``wss://`` origin to ``connect-src``).
CSP = csp(None)


def create_app(
    records: Path | str = "room_records",
    agents: RoomAgents | None = None,
    *,
    agent_delay: float = 0.5,
    threads: int = 16,
    allowed_hosts: Sequence[str] = (),
    limits: RoomLimits | None = None,
) -> Starlette:
    """The Starlette application of a new :class:`~room.games.Room` (``app.state.room``).

    Args: as :class:`~room.games.Room`, and
        allowed_hosts: host names served besides :data:`room.trust.LOOPBACK_HOSTS` (each with
            any port; ``--allowed-host``).

    Raises:
        ValueError: the records folder cannot be created or written, or a name of
            ``allowed_hosts`` is not a host name.
    """
    import jinja2

    hosts = [*LOOPBACK_HOSTS, *(allowed_host(h) for h in allowed_hosts)]

    room = Room(records, agents, agent_delay=agent_delay, threads=threads, limits=limits)
    lim = room.limits
    templates = jinja2.Environment(
        loader=jinja2.PackageLoader("room", "templates"), autoescape=jinja2.select_autoescape(["html"])
    )

    def page(request: Request, name: str, **context) -> HTMLResponse:
        html = templates.get_template(name).render(**context)
        return HTMLResponse(
            html,
            headers={
                "Content-Security-Policy": csp(request.headers.get("host")),
                "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "no-referrer",
            },
        )

    async def lobby(request: Request):
        return page(request, "lobby.html", title="Play room")

    async def game_page(request: Request):
        gid = request.path_params["gid"]
        game = room.get(gid)
        if game is None:
            return page(request, "missing.html", title="No such game", gid=gid)
        return page(request, "game.html", title=f"{game.positions[0].setting_name()} — game {gid}", gid=gid)

    async def rules(request: Request):
        """The full rules of a game (its ``RULES.md``, plain text), linked from the help panels."""
        env_id = request.path_params["env_id"]
        if env_id not in env_ids():
            return PlainTextResponse(f"unknown game {env_id[:40]!r}", status_code=404)
        text = spec(env_id).initial_state().words().rules_text()
        if not text:
            return PlainTextResponse(f"{env_id} has no rules file", status_code=404)
        return PlainTextResponse(text, headers={"X-Content-Type-Options": "nosniff"})

    async def download(request: Request):
        game = room.get(request.path_params["gid"])
        if game is None:
            return JSONResponse({"error": "unknown game"}, status_code=404)
        try:
            rec = game.download()
        except RoomError as e:
            return JSONResponse({"error": safe_text(str(e))}, status_code=409)
        from envs.core.records import record_to_json

        return Response(
            record_to_json(rec),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{game.env_id}-{game.id}.json"'},
        )

    async def upload(request: Request):
        too_large = JSONResponse(
            {
                "error": f"upload too large: a record file is at most {lim.max_upload_bytes} bytes "
                f"({lim.option('max_upload_bytes')})"
            },
            status_code=413,
        )
        room_for_form = lim.max_upload_bytes + 64 * 1024  # the form's own headers and boundaries
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > room_for_form:
            return too_large
        body = bytearray()
        async for chunk in request.stream():  # counted as it arrives: a chunked body is cut off too
            body += chunk
            if len(body) > room_for_form:
                return too_large
        body_bytes = bytes(body)
        del body

        async def replay_body():
            return {"type": "http.request", "body": body_bytes, "more_body": False}

        try:
            async with Request(request.scope, replay_body).form(max_files=1, max_fields=4) as form:
                f = form.get("file")
                if f is None or isinstance(f, str):
                    return JSONResponse({"error": "upload a record file in the form field 'file'"}, status_code=400)
                data = await f.read(lim.max_upload_bytes + 1)
                name = f.filename or ""
        except Exception as e:  # noqa: BLE001 - a malformed form
            return JSONResponse({"error": safe_text(f"not a file upload: {e}")}, status_code=400)
        try:
            visitor = request.client.host if request.client else ""
            game = await anyio.to_thread.run_sync(room.add_record, name, data, visitor)
        except RoomError as e:
            return JSONResponse({"error": safe_text(str(e))}, status_code=400)
        room.lobby_changed()
        return JSONResponse({"game": game.id, "url": f"/game/{game.id}"})

    async def websocket(ws: WebSocket):
        await ws.accept()
        conn = Connection(ws, ws.client.host if ws.client else "", lim.max_send_queue_bytes)
        if why := room.connection_refusal(conn.visitor):  # counted and added with no await between
            await ws.close(code=1008, reason=why)
            return
        room.connections.add(conn)
        loop = asyncio.get_running_loop()
        writer = loop.create_task(conn.writer())
        dropped = loop.create_task(conn.dropped.wait())
        try:
            while not conn.closed:
                receive = loop.create_task(ws.receive())
                await asyncio.wait([receive, dropped], return_when=asyncio.FIRST_COMPLETED)
                if not receive.done():  # the page fell behind (its send queue is full): drop it
                    receive.cancel()
                    break
                message = receive.result()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    text = message.get("bytes") or b""
                await room.handle(conn, text)
        except WebSocketDisconnect:
            pass
        finally:
            room.connections.discard(conn)
            conn.closed = True
            conn.queue.put_nowait(None)
            dropped.cancel()
            await asyncio.wait([writer], timeout=1)
            if conn.dropped.is_set():
                try:  # tell the page why, if it reads at all; the server closes the connection anyway
                    await asyncio.wait_for(ws.close(code=1008, reason="too far behind: reload the page"), 1)
                except Exception:  # noqa: BLE001 - a page that does not read cannot be told
                    pass

    @asynccontextmanager
    async def lifespan(app):
        room.start()
        yield
        await room.stop()

    app = Starlette(
        routes=[
            Route("/", lobby),
            Route("/game/{gid}", game_page),
            Route("/game/{gid}/record.json", download),
            Route("/rules/{env_id}", rules),
            Route("/upload", upload, methods=["POST"]),
            WebSocketRoute("/ws", websocket),
            Mount("/static", StaticFiles(packages=[("room", "static")]), name="static"),
        ],
        lifespan=lifespan,
        middleware=[Middleware(HostCheck, hosts=hosts)],
    )
    app.state.room = room
    return app


def serve_in_thread(app, host: str = "127.0.0.1", port: int = 0):
    """Serve ``app`` with uvicorn in a daemon thread (tests, benchmarks, screenshots).

    Returns:
        ``(url, stop)``: the base URL (``http://127.0.0.1:PORT``) and a function that stops the
        server and waits for its thread.

    Raises:
        RuntimeError: the server did not start within 20 s.
    """
    import threading

    import uvicorn

    config = uvicorn.Config(
        app, host=host, port=port, ws="websockets-sansio", log_level="warning", ws_max_size=1024 * 1024, lifespan="on"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the room's server did not start")
        time.sleep(0.02)
    bound = server.servers[0].sockets[0].getsockname()
    url = f"http://{bound[0]}:{bound[1]}"

    def stop():
        server.should_exit = True
        thread.join(timeout=10)

    return url, stop
