"""The room's server: HTTP pages, the WebSocket protocol, agents off the event loop, journals.

See :mod:`room` for the protocol. :func:`create_app` builds the Starlette application
of one :class:`Room` (one process; games live in memory and in their journals).
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import secrets
import shutil
import time
from datetime import datetime, timezone
from pathlib import Path

import anyio
import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from envs.core.records import import_formats, import_record
from envs.core.state import IllegalActionError, InvalidPositionError, ParameterError
from envs.registry import UnknownEnvError, env_ids, spec
from room.agents import RoomAgents
from room.game import RoomError, RoomGame, Seat, action_index, token_digest
from room.journal import FORMAT, VERSION, Journal, read_journal

__all__ = ["Room", "create_app", "serve_in_thread", "MAX_MESSAGE", "MAX_UPLOAD", "SCHEMA"]

log = logging.getLogger("room")

#: The largest WebSocket message the room reads (bytes of UTF-8); larger ones get an ``error``.
MAX_MESSAGE = 64 * 1024
#: The largest record file an upload may send (bytes).
MAX_UPLOAD = 2 * 1024 * 1024
#: Frames waiting for a slow browser before the room drops its connection.
MAX_QUEUE = 512

#: Every message a browser may send: ``type`` -> {field: type}; a name ending in ``?`` is optional.
SCHEMA: dict[str, dict[str, type]] = {
    "lobby": {},
    "setup": {"env_id": str, "env_kwargs?": dict},
    "create": {"env_id": str, "env_kwargs?": dict, "seats": list, "seed?": int},
    "watch": {"game": str, "tokens?": list},
    "join": {"game": str, "seat": int},
    "move": {"game": str, "action?": int, "notation?": str},
    "preview": {"game": str, "action": int},
    "position": {"game": str, "ply": int},
    "undo": {"game": str},
    "resign": {"game": str, "seat?": int},
    "seat": {"game": str, "seat": int, "to": str},
}
_HUMAN_CHOICES = ("me", "invite", "open")


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _type_name(t: type) -> str:
    return {str: "a string", int: "an integer", dict: "an object", list: "a list"}[t]


def check_message(text) -> dict:
    """Parse and check one browser message against :data:`SCHEMA`.

    Raises:
        RoomError: too large, not JSON, nested too deeply, not an object, unknown ``type``, a missing, unknown or
            mistyped field (the message names it and the expected type).
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise RoomError("a message must be UTF-8 JSON text") from None
    if len(text.encode("utf-8")) > MAX_MESSAGE:
        raise RoomError(f"message too large: {len(text.encode('utf-8'))} bytes, at most {MAX_MESSAGE}")
    try:
        msg = json.loads(text)
    except json.JSONDecodeError as e:
        raise RoomError(f"a message must be JSON: {e}") from None
    except RecursionError:
        raise RoomError("malformed message: nested too deeply (a message is a flat JSON object)") from None
    if not isinstance(msg, dict):
        raise RoomError(f"a message must be a JSON object with a 'type', got {type(msg).__name__}")
    kind = msg.get("type")
    if kind not in SCHEMA:
        raise RoomError(f"unknown message type {kind!r}: expected one of {', '.join(SCHEMA)}")
    fields = SCHEMA[kind]
    names = {f.rstrip("?") for f in fields}
    unknown = sorted(set(msg) - names - {"type"})
    if unknown:
        raise RoomError(f"{kind}: unknown field(s) {', '.join(unknown)}; expected {', '.join(sorted(names)) or 'none'}")
    for f, t in fields.items():
        name = f.rstrip("?")
        if name not in msg:
            if not f.endswith("?"):
                raise RoomError(f"{kind}: missing field {name!r} ({_type_name(t)})")
            continue
        v = msg[name]
        if not isinstance(v, t) or isinstance(v, bool):
            raise RoomError(f"{kind}: field {name!r} must be {_type_name(t)}, got {json.dumps(v)[:40]}")
    return msg


#: The most characters of a browser's own input an error message quotes back.
ECHO = 80


def _shorten_echo(message: str, msg: dict | None) -> str:
    """``message`` with every string field of the browser's ``msg`` longer than :data:`ECHO`
    characters quoted as its first :data:`ECHO` characters and "…" (as written or as ``repr``)."""
    for v in (msg or {}).values():
        if isinstance(v, str) and len(v) > ECHO:
            for text in (v, repr(v)[1:-1]):
                if text in message:
                    message = message.replace(text, text[:ECHO] + "…")
    return message


class Connection:
    """One browser page's WebSocket: a queue of frames written by its own task, the token
    digests it showed, the game it watches, whether it follows the lobby."""

    def __init__(self, ws: WebSocket):
        self.ws = ws
        self.queue: asyncio.Queue = asyncio.Queue()
        self.tokens: set[str] = set()
        self.game: str | None = None
        self.lobby = False
        self.closed = False

    def send(self, msg: dict) -> None:
        if self.closed:
            return
        if self.queue.qsize() > MAX_QUEUE:
            self.closed = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(json.dumps(msg, separators=(",", ":")))

    async def writer(self) -> None:
        while True:
            text = await self.queue.get()
            if text is None:
                break
            try:
                await self.ws.send_text(text)
            except Exception:  # noqa: BLE001 - the browser went away
                break
        self.closed = True


def _think(agent, state, obs, seat: int) -> int:
    """An agent's move (run in a worker thread), as an action of the state's absolute frame."""
    return int(state.to_state_action(seat, agent.act(state, obs)))


class Room:
    """Every game of one server, its browsers and its records folder.

    Args:
        records: the records folder (created if missing); its journals are read now: unfinished
            games resume (their agents reattach when the server starts), finished ones are listed.
        agents: the room's agents (:class:`~room.agents.RoomAgents`).
        agent_delay: seconds an agent waits before moving in a game without a human seat (so
            people can watch); games with a person are answered at once.
        threads: how many agents may think at once (worker threads).

    Raises:
        ValueError: the records folder cannot be created or written.
    """

    def __init__(
        self, records: Path | str, agents: RoomAgents | None = None, *, agent_delay: float = 0.5, threads: int = 16
    ):
        from training.cli import ensure_writable_dir

        self.records = ensure_writable_dir(records, "records folder")
        self.agents = agents or RoomAgents()
        self.agent_delay = float(agent_delay)
        self.threads = int(threads)
        self.games: dict[str, RoomGame] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        self.connections: set[Connection] = set()
        self.problems: list[str] = []
        self.tasks: set[asyncio.Task] = set()
        self._agent_turns: dict[str, int] = {}
        self._limiter: anyio.CapacityLimiter | None = None
        self._lobby_pending = False
        self._envs: list[dict] | None = None
        self.load()

    # ------------------------------------------------------------------ records folder
    def load(self) -> None:
        """Read every journal of the records folder (see :mod:`room.journal`)."""
        for path in sorted(self.records.glob("*.jsonl")):
            try:
                self._load_one(path)
            except Exception as e:  # noqa: BLE001 - one bad file must not stop the room
                self.problems.append(f"{path.name}: could not be read ({type(e).__name__}: {e})")

    def _load_one(self, path: Path) -> None:
        content = read_journal(path)
        h = content.header
        if h is None:
            self.problems.append(f"{path.name}: {content.problem}; the file is left as it is")
            return
        gid = h["game"]
        if gid in self.games or path.stem != gid:
            self.problems.append(f"{path.name}: game id {gid!r} does not match the file name or is taken; skipped")
            return
        if h["kind"] == "record":
            game = RoomGame(gid, "record", h["env_id"], {}, None, h["created"], [], record=h["record"])
            self.games[gid] = game
            return
        seats = []
        for s in h["seats"]:
            if not isinstance(s, dict) or s.get("kind") not in ("human", "agent"):
                raise InvalidPositionError(f"header seat {s!r} is not a seat")
            seats.append(Seat(s["kind"], s.get("agent"), s.get("token"), claimed=s.get("claimed", True) is True))
        game = RoomGame(gid, "play", h["env_id"], h["env_kwargs"], h["seed"], h["created"], seats, owner=h.get("owner"))
        problem, good = content.problem, content.good_lines
        for i, ev in enumerate(content.events):
            try:
                self._replay_event(game, ev)
            except Exception as e:  # noqa: BLE001 - an event that does not replay
                problem = f"{path.name} line {i + 2}: {e}"
                good = i + 1
                break
        if problem:
            kept = path.with_name(f"{path.name}.damaged-{int(time.time())}")
            shutil.copyfile(path, kept)
            lines = path.read_bytes().split(b"\n")[:good]
            tmp = path.with_name(path.name + ".tmp")
            with open(tmp, "wb") as f:
                f.write(b"\n".join(lines) + b"\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
            game.problem = (
                f"{problem}. The game is restored as far as the lines before it go ({game.ply} moves); "
                f"the damaged file is kept as {kept.name}"
            )
            self.problems.append(game.problem)
        for i, seat in enumerate(game.seats):
            if seat.kind == "agent":
                self._attach_agent(game, i)
        game.journal = Journal(path)
        self.games[gid] = game

    def _replay_event(self, game: RoomGame, ev: dict) -> None:
        kind = ev["event"]
        if kind == "move":
            if ev["ply"] != game.ply:
                raise RoomError(f"move for ply {ev['ply']} at ply {game.ply}")
            if ev["by"] not in ("human", "agent", "auto"):
                raise RoomError(f"move 'by' must be human, agent or auto, got {ev['by']!r}")
            game.apply(ev["action"], ev["by"])
        elif kind == "undo":
            if not 0 <= ev["to"] <= game.ply:
                raise RoomError(f"undo to ply {ev['to']} at ply {game.ply}")
            game.rebuild(ev["to"])
        elif kind == "seat":
            if not 0 <= ev["seat"] < game.num_players or ev["kind"] not in ("human", "agent"):
                raise RoomError(f"bad seat event {ev}")
            game.seats[ev["seat"]] = Seat(
                ev["kind"], ev.get("agent"), ev.get("token"), claimed=ev.get("claimed", True) is True
            )
            game.changed()
        elif kind == "resign":
            game.check_live()
            game.resigned = ev["seat"]
            game.changed()
        elif kind == "result":
            if not game.over:
                raise RoomError(
                    f"a result ({ev['result']}) is recorded but the game is not over after {game.ply} moves"
                )

    def _attach_agent(self, game: RoomGame, seat: int) -> None:
        s = game.seats[seat]
        try:
            s.player = self.agents.make(
                s.agent,
                game.env,
                game.env_id,
                game.env_kwargs,
                seed=None if game.seed is None else game.seed * 1000 + seat,
            )
            s.error = None
        except Exception as e:  # noqa: BLE001 - reported in the game, the seat can be given to someone else
            s.player = None
            s.error = f"agent {s.agent!r} cannot play: {e}"

    # ------------------------------------------------------------------ lobby data
    def envs(self) -> list[dict]:
        """Every env id with its name, constructor arguments (name, default) and variants."""
        if self._envs is None:
            out = []
            for env_id in env_ids():
                sp = spec(env_id)
                try:
                    params = inspect.signature(sp.module().raw_env.__init__).parameters
                    st = sp.initial_state()
                except Exception:  # noqa: BLE001 - a broken plug-in is not offered
                    continue
                args = []
                for name, p in params.items():
                    if name in ("self", "render_mode") or p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                        continue
                    d = sp.kwargs.get(name, p.default)
                    if d is inspect.Parameter.empty:
                        d = None
                    try:
                        json.dumps(d)
                    except TypeError:
                        d = None
                    args.append({"name": name, "default": d})
                out.append(
                    {
                        "id": env_id,
                        "name": st.setting_name(),
                        "arguments": args,
                        "variants": sp.variants,
                        "notation": st.info.notation,
                    }
                )
            self._envs = out
        return self._envs

    def lobby_frame(self) -> dict:
        games = sorted(self.games.values(), key=lambda g: g.created, reverse=True)
        return {
            "type": "lobby",
            "games": [g.summary() for g in games],
            "envs": self.envs(),
            "formats": import_formats(),
            "problems": self.problems,
        }

    # ------------------------------------------------------------------ telling browsers
    def broadcast(self, game: RoomGame) -> None:
        for c in list(self.connections):
            if c.game == game.id:
                c.send(game.view(game.seats_held(c.tokens), game.is_owner(c.tokens)))
        self.lobby_changed()

    def lobby_changed(self) -> None:
        if self._lobby_pending:
            return
        self._lobby_pending = True

        async def later():
            await asyncio.sleep(0.2)
            self._lobby_pending = False
            frame = None
            for c in list(self.connections):
                if c.lobby:
                    frame = frame or self.lobby_frame()
                    c.send(frame)

        self._spawn(later())

    def _spawn(self, coro) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    # ------------------------------------------------------------------ changes
    def lock(self, game: RoomGame) -> asyncio.Lock:
        if game.id not in self.locks:
            self.locks[game.id] = asyncio.Lock()
        return self.locks[game.id]

    async def _write(self, game: RoomGame, event: dict) -> None:
        """Append ``event`` to the game's journal (flushed and fsynced, in a worker thread)."""
        assert game.journal is not None  # opened when the game was created or loaded
        await anyio.to_thread.run_sync(game.journal.write, event)

    async def _play(self, game: RoomGame, action, how: str) -> None:
        """Journal, then play, a move (caller holds the lock); then the forced moves after it."""
        event = game.move_event(action, how)
        await self._write(game, event)
        game.apply(action, how)
        await self._settle(game)

    async def _settle(self, game: RoomGame) -> None:
        """After a change (caller holds the lock): play the forced moves the room plays itself,
        and journal the result of a game that just ended."""
        while True:
            a = game.auto_action()
            if a is None:
                break
            event = game.move_event(a, "auto")
            await self._write(game, event)
            game.apply(a, "auto")
        if game.over and game.kind == "play":
            out = game.outcome() or {}
            await self._write(
                game,
                {
                    "event": "result",
                    "result": out.get("result", ""),
                    "termination": out.get("termination", ""),
                    "ply": game.ply,
                },
            )

    def kick(self, game: RoomGame) -> None:
        """Start the agent of the seat to move, if it is an agent's turn and none is thinking."""
        if game.kind != "play" or game.over:
            return
        seat = game.state.current_player
        s = game.seats[seat]
        if s.kind != "agent" or s.player is None or s.error is not None:
            return
        if self._agent_turns.get(game.id) == game.version:
            return
        self._agent_turns[game.id] = game.version
        self._spawn(self._agent_turn(game, game.version, seat))

    async def _agent_turn(self, game: RoomGame, version: int, seat: int) -> None:
        if self.agent_delay > 0 and all(s.kind == "agent" for s in game.seats):
            await asyncio.sleep(self.agent_delay)
        lock = self.lock(game)
        async with lock:
            if game.version != version or game.over:
                return
            agent = game.seats[seat].player
            assert game.env is not None  # kick: only a game being played has agent turns
            state = game.env.state.clone()
            obs = game.env.observe(game.env.possible_agents[seat])
            obs = {k: (v.copy() if hasattr(v, "copy") else v) for k, v in obs.items()}
            game.thinking = seat
            game.touch()
        self.broadcast(game)
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.threads)
        try:
            action = await anyio.to_thread.run_sync(_think, agent, state, obs, seat, limiter=self._limiter)
            failure = None
        except Exception as e:  # noqa: BLE001 - any agent failure is reported in its game
            failure = f"{type(e).__name__}: {e}"
            log.warning("game %s: agent %s of seat %d failed: %s", game.id, game.seats[seat].agent, seat, failure)
        async with lock:
            if game.thinking == seat:
                game.thinking = None
                game.touch()
            if game.version != version:
                return
            if failure is None:
                try:
                    await self._play(game, action, "agent")
                except Exception as e:  # noqa: BLE001 - an illegal answer or a journal failure
                    failure = f"{type(e).__name__}: {e}"
            if failure is not None:
                game.seats[seat].error = (
                    f"the agent {game.seats[seat].agent} failed: {failure}. Give the seat to "
                    f"someone else (or to the same agent to retry)"
                )
                game.touch()
        self.broadcast(game)
        self.kick(game)

    def start(self) -> None:
        """Start the agents of the unfinished games (called once the event loop runs)."""
        for game in self.games.values():
            self.kick(game)

    async def stop(self) -> None:
        for t in list(self.tasks):
            t.cancel()
        for game in self.games.values():
            if game.journal is not None:
                game.journal.close()

    # ------------------------------------------------------------------ protocol
    def _game(self, gid: str) -> RoomGame:
        game = self.games.get(gid)
        if game is None:
            raise RoomError(f"unknown game {gid[:40]!r}")
        return game

    async def handle(self, conn: Connection, text) -> None:
        """Answer one browser message; any refusal is an ``error`` frame and changes nothing."""
        kind = msg = None
        try:
            msg = check_message(text)
            kind = msg["type"]
            await getattr(self, f"_on_{kind}")(conn, msg)
        except (RoomError, IllegalActionError, ParameterError, UnknownEnvError, ValueError, TypeError) as e:
            conn.send({"type": "error", "request": kind, "message": _shorten_echo(str(e), msg if kind else None)})
        except Exception as e:  # noqa: BLE001 - a bug must not end the page's connection
            log.exception("room: %s message failed", kind)
            conn.send(
                {
                    "type": "error",
                    "request": kind,
                    "message": f"the room failed on this {kind} message "
                    f"({type(e).__name__}: {e}); the game is unchanged",
                }
            )

    async def _on_lobby(self, conn, msg):
        conn.lobby = True
        conn.send(self.lobby_frame())

    def _new_env(self, env_id: str, env_kwargs: dict):
        sp = spec(env_id)
        if "render_mode" in env_kwargs:
            raise RoomError("env_kwargs must not set render_mode: the room draws the board itself")
        try:
            env = sp.make_raw(**env_kwargs)
            env.reset(seed=0)
        except (TypeError, ValueError) as e:
            raise RoomError(f"{env_id}: {e}") from None
        return sp, env

    async def _on_setup(self, conn, msg):
        env_id, kwargs = msg["env_id"], msg.get("env_kwargs", {})
        sp, env = self._new_env(env_id, kwargs)
        st = env.state
        menu = await anyio.to_thread.run_sync(self.agents.menu, env, env_id, kwargs)
        conn.send(
            {
                "type": "setup",
                "env_id": env_id,
                "env_kwargs": kwargs,
                "seats": [
                    {"seat": i, "label": f"player {i}" + (f" ({st.seat_name(i)})" if st.seat_name(i) else "")}
                    for i in range(st.num_players)
                ],
                "teams": st.teams(),
                "agents": [{"name": m.name, "summary": m.summary} for m in menu],
                "notation": st.info.notation,
            }
        )

    async def _on_create(self, conn, msg):
        env_id, kwargs = msg["env_id"], msg.get("env_kwargs", {})
        _, env = self._new_env(env_id, kwargs)
        n = env.num_players
        choices = msg["seats"]
        if len(choices) != n or not all(isinstance(c, str) for c in choices):
            raise RoomError(
                f"create: seats must be a list of {n} strings (one per seat of {env_id}: "
                f"'me', 'invite', 'open' or an agent name), got {json.dumps(choices)[:80]}"
            )
        seed = msg.get("seed")
        if seed is None:
            seed = secrets.randbelow(2**31)
        elif not 0 <= seed < 2**32:
            raise RoomError(f"create: seed must be an integer from 0 to 2**32 - 1, got {seed}")
        gid = secrets.token_hex(4)
        while gid in self.games or (self.records / f"{gid}.jsonl").exists():
            gid = secrets.token_hex(4)
        tokens, seats = {}, []
        for i, c in enumerate(choices):
            if c in _HUMAN_CHOICES:
                tok = None if c == "open" else secrets.token_urlsafe(18)
                if tok:
                    tokens[str(i)] = tok
                seats.append(Seat("human", None, None if tok is None else token_digest(tok), claimed=c == "me"))
            else:
                self.agents.spec_of(c, env_id, kwargs)  # unknown names: a clear error
                seats.append(Seat("agent", c))
        owner = secrets.token_urlsafe(18)
        game = RoomGame(gid, "play", env_id, kwargs, seed, _now(), seats, owner=token_digest(owner))
        for i, s in enumerate(seats):
            if s.kind == "agent":
                self._attach_agent(game, i)
                if s.error:
                    raise RoomError(f"seat {i}: {s.error}")
        header = {
            "format": FORMAT,
            "version": VERSION,
            "game": gid,
            "kind": "play",
            "env_id": env_id,
            "env_kwargs": kwargs,
            "seed": seed,
            "created": game.created,
            "seats": [s.journal() for s in seats],
            "owner": game.owner,
        }
        try:
            game.journal = await anyio.to_thread.run_sync(Journal.create, self.records / f"{gid}.jsonl", header)
        except OSError as e:
            raise RoomError(f"cannot write the game's journal in {self.records}: {e}") from None
        self.games[gid] = game
        async with self.lock(game):
            await self._settle(game)
        conn.tokens.add(game.owner)
        conn.tokens.update(token_digest(tokens[str(i)]) for i, c in enumerate(choices) if c == "me")
        conn.send(
            {
                "type": "created",
                "game": gid,
                "owner": owner,
                "tokens": tokens,
                "me": [i for i, c in enumerate(choices) if c == "me"],
                "invite": [i for i, c in enumerate(choices) if c == "invite"],
            }
        )
        self.broadcast(game)
        self.kick(game)

    async def _on_watch(self, conn, msg):
        game = self._game(msg["game"])
        tokens = msg.get("tokens", [])
        if len(tokens) > 16 or not all(isinstance(t, str) and 0 < len(t) <= 128 for t in tokens):
            raise RoomError("watch: tokens must be a list of at most 16 strings (each 1 to 128 characters)")
        conn.game = game.id
        digests = {token_digest(t) for t in tokens}
        conn.tokens.update(digests)
        await self._claim_invites(conn, game, digests)
        conn.send(game.view(game.seats_held(conn.tokens), game.is_owner(conn.tokens)))

    async def _claim_invites(self, conn, game: RoomGame, digests: set[str]) -> None:
        """An invitation link opened (a ``watch`` with the token of a seat not yet claimed): the
        seat gets a fresh token for this browser (answered with ``joined``) and the link's token
        stops working (journaled, so a restart keeps it)."""
        if game.kind != "play" or not any(s.invited and s.token in digests for s in game.seats):
            return
        claimed = []
        async with self.lock(game):
            for i, s in enumerate(game.seats):
                if not (s.invited and s.token in digests):
                    continue
                tok = await self._new_holder(game, i)
                conn.tokens.add(token_digest(tok))
                claimed.append((i, tok))
        for i, tok in claimed:
            conn.send({"type": "joined", "game": game.id, "seat": i, "token": tok})
        if claimed:
            self.broadcast(game)

    async def _new_holder(self, game: RoomGame, seat: int) -> str:
        """Give ``seat`` to a person with a fresh token (journaled first, caller holds the lock);
        returns the token (the room keeps only its digest)."""
        tok = secrets.token_urlsafe(18)
        d = token_digest(tok)
        await self._write(game, {"event": "seat", "seat": seat, "kind": "human", "token": d, "claimed": True})
        game.seats[seat] = Seat("human", None, d, claimed=True)
        game.changed()
        return tok

    def _held(self, conn, game: RoomGame) -> set[int]:
        return game.seats_held(conn.tokens)

    async def _on_join(self, conn, msg):
        game = self._game(msg["game"])
        i = msg["seat"]
        async with self.lock(game):
            game.check_live()
            if not 0 <= i < game.num_players:
                raise RoomError(f"join: unknown seat {i}; game {game.id} has seats 0 to {game.num_players - 1}")
            s = game.seats[i]
            if s.kind != "human" or s.token is not None:
                raise RoomError(
                    f"join: seat {i} is not free ({'an agent' if s.kind == 'agent' else 'held by someone'})"
                )
            tok = await self._new_holder(game, i)
        conn.tokens.add(token_digest(tok))
        conn.game = game.id
        conn.send({"type": "joined", "game": game.id, "seat": i, "token": tok})
        self.broadcast(game)

    async def _on_move(self, conn, msg):
        game = self._game(msg["game"])
        if ("action" in msg) == ("notation" in msg):
            raise RoomError("move: give exactly one of 'action' (an integer) and 'notation' (text)")
        async with self.lock(game):
            game.check_live()
            mover = game.to_move()
            held = self._held(conn, game)
            if not held:
                raise RoomError(f"move: you hold no seat of game {game.id} (spectators cannot move)")
            if mover not in held:
                raise RoomError(f"move: it is not your turn: {game.label(mover)} is to move")
            action = msg["action"] if "action" in msg else game.state.string_to_action(msg["notation"].strip())
            await self._play(game, action, "human")
        self.broadcast(game)
        self.kick(game)

    async def _on_preview(self, conn, msg):
        game = self._game(msg["game"])
        game.check_live()
        mover = game.to_move()
        if mover not in self._held(conn, game):
            raise RoomError(f"preview: only the holder of the seat to move ({game.label(mover)}) may preview")
        a = action_index(game.state, msg["action"])
        if not game.state.legal_action_mask()[a]:
            raise RoomError(f"preview: action {a} is not legal here")
        conn.send(
            {
                "type": "preview",
                "game": game.id,
                "action": a,
                "ply": game.ply,
                "svg": game.svg(game.ply, mover, pending=a),
            }
        )

    async def _on_position(self, conn, msg):
        game = self._game(msg["game"])
        conn.send(game.position(msg["ply"], self._held(conn, game)))

    async def _on_undo(self, conn, msg):
        game = self._game(msg["game"])
        async with self.lock(game):
            held = self._held(conn, game)
            if not held:
                raise RoomError(f"undo: you hold no seat of game {game.id}")
            if game.over:
                raise RoomError(
                    f"undo: the game is over ({(game.outcome() or {}).get('result', 'finished')}); "
                    "a finished game is not reopened"
                )
            target = game.undo_target(held)
            if target is None:
                raise RoomError(
                    "undo: allowed only when every other seat is an agent, the game was not resigned, "
                    "and you have a move to take back"
                )
            await self._write(game, {"event": "undo", "to": target})
            game.rebuild(target)
        self.broadcast(game)
        self.kick(game)

    async def _on_resign(self, conn, msg):
        game = self._game(msg["game"])
        async with self.lock(game):
            game.check_live()
            held = self._held(conn, game)
            seat = msg.get("seat", min(held) if held else None)
            if seat is None or seat not in held:
                raise RoomError(
                    f"resign: you do not hold {'a seat' if seat is None else f'seat {seat}'} of game {game.id}"
                )
            await self._write(game, {"event": "resign", "seat": seat})
            game.resigned = seat
            game.changed()
            await self._settle(game)
        self.broadcast(game)

    async def _on_seat(self, conn, msg):
        game = self._game(msg["game"])
        i, to = msg["seat"], msg["to"]
        async with self.lock(game):
            game.check_live()
            if not 0 <= i < game.num_players:
                raise RoomError(f"seat: unknown seat {i}; game {game.id} has seats 0 to {game.num_players - 1}")
            why = game.may_change_seat(i, self._held(conn, game), game.is_owner(conn.tokens))
            if why:
                raise RoomError(f"seat: {why}")
            tok = None
            if to in _HUMAN_CHOICES:
                tok = None if to == "open" else secrets.token_urlsafe(18)
                new = Seat("human", None, None if tok is None else token_digest(tok), claimed=to == "me")
            else:
                self.agents.spec_of(to, game.env_id, game.env_kwargs)
                new = Seat("agent", to)
                old = game.seats[i]
                game.seats[i] = new
                self._attach_agent(game, i)
                if new.error:
                    game.seats[i] = old
                    raise RoomError(f"seat {i}: {new.error}")
            await self._write(game, {"event": "seat", "seat": i, **new.journal()})
            game.seats[i] = new
            game.changed()
            await self._settle(game)
        if to == "me":  # an invitation's token is for the link, not for this page
            conn.tokens.add(token_digest(tok))
        conn.send({"type": "seated", "game": game.id, "seat": i, "to": to, "token": tok})
        self.broadcast(game)
        self.kick(game)

    # ------------------------------------------------------------------ uploads
    def add_record(self, filename: str, data: bytes) -> RoomGame:
        """Open an uploaded record file as a replay (kept in the records folder).

        Raises:
            RoomError: too large, or not a readable record (the reader's message).
        """
        if len(data) > MAX_UPLOAD:
            raise RoomError(f"record file too large: {len(data)} bytes, at most {MAX_UPLOAD}")
        try:
            rec = import_record(filename, data)
            gid = secrets.token_hex(4)
            game = RoomGame(gid, "record", rec["env_id"], {}, None, _now(), [], record=rec)
        except (InvalidPositionError, ParameterError, ValueError) as e:
            raise RoomError(str(e)) from None
        header = {
            "format": FORMAT,
            "version": VERSION,
            "game": gid,
            "kind": "record",
            "env_id": rec["env_id"],
            "created": game.created,
            "record": rec,
            "filename": Path(str(filename)).name[:100],
        }
        Journal.create(self.records / f"{gid}.jsonl", header).close()
        self.games[gid] = game
        return game


# ---------------------------------------------------------------------------------- the application
_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self' ws: wss:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


def create_app(
    records: Path | str = "room_records",
    agents: RoomAgents | None = None,
    *,
    agent_delay: float = 0.5,
    threads: int = 16,
) -> Starlette:
    """The Starlette application of a new :class:`Room` (``app.state.room``).

    Args: as :class:`Room`.

    Raises:
        ValueError: the records folder cannot be created or written.
    """
    import jinja2

    room = Room(records, agents, agent_delay=agent_delay, threads=threads)
    templates = jinja2.Environment(
        loader=jinja2.PackageLoader("room", "templates"), autoescape=jinja2.select_autoescape(["html"])
    )

    def page(name: str, **context) -> HTMLResponse:
        html = templates.get_template(name).render(**context)
        return HTMLResponse(
            html,
            headers={
                "Content-Security-Policy": _CSP,
                "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "no-referrer",
            },
        )

    async def lobby(request: Request):
        return page("lobby.html", title="Play room")

    async def game_page(request: Request):
        gid = request.path_params["gid"]
        game = room.games.get(gid)
        if game is None:
            return page("missing.html", title="No such game", gid=gid)
        return page("game.html", title=f"{game.positions[0].setting_name()} — game {gid}", gid=gid)

    async def download(request: Request):
        game = room.games.get(request.path_params["gid"])
        if game is None:
            return JSONResponse({"error": "unknown game"}, status_code=404)
        try:
            rec = game.download()
        except RoomError as e:
            return JSONResponse({"error": str(e)}, status_code=409)
        from envs.core.records import record_to_json

        return Response(
            record_to_json(rec),
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="{game.env_id}-{game.id}.json"'},
        )

    def foreign(headers) -> bool:
        """A request sent by another site's page (its Origin is not this room's host)."""
        origin, host = headers.get("origin"), headers.get("host")
        return origin is not None and host is not None and origin.split("://", 1)[-1] != host

    async def upload(request: Request):
        if foreign(request.headers):
            return JSONResponse({"error": "uploads come from the room's own page"}, status_code=403)
        length = request.headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > MAX_UPLOAD + 64 * 1024:
            return JSONResponse({"error": f"upload too large: at most {MAX_UPLOAD} bytes"}, status_code=413)
        try:
            async with request.form(max_files=1, max_fields=4) as form:
                f = form.get("file")
                if f is None or isinstance(f, str):
                    return JSONResponse({"error": "upload a record file in the form field 'file'"}, status_code=400)
                data = await f.read(MAX_UPLOAD + 1)
                name = f.filename or ""
        except Exception as e:  # noqa: BLE001 - a malformed form
            return JSONResponse({"error": f"not a file upload: {e}"}, status_code=400)
        try:
            game = await anyio.to_thread.run_sync(room.add_record, name, data)
        except RoomError as e:
            return JSONResponse({"error": str(e)}, status_code=400)
        room.lobby_changed()
        return JSONResponse({"game": game.id, "url": f"/game/{game.id}"})

    async def websocket(ws: WebSocket):
        if foreign(ws.headers):
            await ws.close(code=1008)  # another site's page may not drive this room
            return
        await ws.accept()
        conn = Connection(ws)
        room.connections.add(conn)
        writer = asyncio.get_running_loop().create_task(conn.writer())
        try:
            while not conn.closed:
                message = await ws.receive()
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
            await asyncio.wait([writer], timeout=1)

    from contextlib import asynccontextmanager

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
            Route("/upload", upload, methods=["POST"]),
            WebSocketRoute("/ws", websocket),
            Mount("/static", StaticFiles(packages=[("room", "static")]), name="static"),
        ],
        lifespan=lifespan,
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
