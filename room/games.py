"""The room's games: the game-room logic behind the protocol (:mod:`room.protocol`).

A :class:`Room` holds every game of one server (:class:`~room.game.RoomGame`: seats, moves, what
each viewer may see), the pages connected to it (:class:`~room.connection.Connection`) and its
records folder (:mod:`room.records`). It answers each browser message (:meth:`Room.handle`):
creates games, seats people and agents, plays, previews, undoes and resigns moves, each change
journaled with what follows from it (forced moves, the result: one line, fsynced; see
:meth:`Room._commit`) before the game changes and any page hears of it, then told to every page
watching the game and, at most five times a second, to the lobby. A change the disk refuses is
refused as a whole, the game unchanged, and the game's page says why. The agents think off the event loop
(:class:`~room.scheduler.AgentScheduler`). The HTTP and WebSocket routes are :mod:`room.app`.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import secrets
from collections import OrderedDict
from collections.abc import Callable, Coroutine
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from envs.core.records import import_formats, import_record
from envs.core.state import IllegalActionError, InvalidPositionError, ParameterError
from envs.registry import UnknownEnvError, env_ids, spec
from room.agents import RoomAgents
from room.connection import Connection
from room.game import RoomError, RoomGame, Seat, action_index, token_digest
from room.journal import Journal, JournalWriteError
from room.limits import RoomLimits
from room.protocol import (
    HUMAN_CHOICES,
    CreateMessage,
    JoinMessage,
    LobbyMessage,
    MoveMessage,
    PositionMessage,
    PreviewMessage,
    ResignMessage,
    SeatMessage,
    SetupMessage,
    UndoMessage,
    WatchMessage,
    check_message,
    error_frame,
)
from room.records import load_journal, play_header, record_header, replay_event
from room.scheduler import AgentScheduler
from room.shelf import peek_finished
from room.trust import check_encodable, client_text, seats_refusal, seed_refusal, seen_refusal
from room.words import argument_words, help_words, seat_label, seat_names, variant_labels

__all__ = ["Room", "MAX_UPLOAD"]

log = logging.getLogger("room")

#: The largest record file an upload may send by default (bytes; ``RoomLimits.max_upload_bytes``).
MAX_UPLOAD = RoomLimits().max_upload_bytes


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Room:
    """Every game of one server, its browsers and its records folder.

    Args:
        records: the records folder (created if missing); its journals are read now: unfinished
            games resume (their agents reattach when the server starts), finished ones are listed.
        agents: the room's agents (:class:`~room.agents.RoomAgents`).
        agent_delay: seconds an agent waits before moving in a game without a human seat (so
            people can watch); games with a person are answered at once.
        threads: how many agents may think at once (worker threads).
        limits: the room's resource bounds (:class:`~room.limits.RoomLimits`; default: its defaults).

    ``games`` holds the games in memory: the unfinished ones and at most
    ``limits.max_loaded_finished`` finished ones (least recently opened out); ``shelf`` the lobby
    summaries of the finished games not in memory (:mod:`room.shelf`), replayed when opened
    (:meth:`get`).

    Raises:
        ValueError: the records folder cannot be created or written.
    """

    def __init__(
        self,
        records: Path | str,
        agents: RoomAgents | None = None,
        *,
        agent_delay: float = 0.5,
        threads: int = 16,
        limits: RoomLimits | None = None,
    ):
        from training.cli import ensure_writable_dir

        self.records = ensure_writable_dir(records, "records folder")
        self.limits = limits or RoomLimits()
        self.agents = agents or RoomAgents(limits=self.limits)
        self.scheduler = AgentScheduler(
            self.agents,
            lock=self.lock,
            play=self._play,
            broadcast=self.broadcast,
            spawn=self._spawn,
            agent_delay=agent_delay,
            threads=threads,
            move_time_limit=self.limits.move_time_limit,
        )
        self.games: dict[str, RoomGame] = {}
        self.shelf: dict[str, dict] = {}
        self._loaded_finished: OrderedDict[str, None] = OrderedDict()
        self.creators: dict[str, str] = {}  # game id -> the visitor who created it (this run)
        self.uploads: dict[str, int] = {}  # visitor -> uploads since the start
        self.locks: dict[str, asyncio.Lock] = {}
        self.connections: set[Connection] = set()
        self.problems: list[str] = []
        self.tasks: set[asyncio.Task] = set()
        self._lobby_pending = False
        self._envs: list[dict] | None = None
        self.load()

    # ------------------------------------------------------------------ records folder
    def load(self) -> None:
        """Read the records folder (see :mod:`room.records`): the finished games' journals only
        as far as their lobby summary (:func:`room.shelf.peek_finished`), every other journal
        replayed."""
        for path in sorted(self.records.glob("*.jsonl")):
            summary = peek_finished(path)
            if summary is not None:
                self.shelf[summary["game"]] = summary
                continue
            try:
                load_journal(path, self.games, self.problems, self.scheduler.attach)
            except Exception as e:  # noqa: BLE001 - one bad file must not stop the room
                self.problems.append(f"{path.name}: could not be read ({client_text(e)})")
        for game in self.games.values():
            game.cache_size = self.limits.svg_cache_size
            if game.over:
                self._finished(game)

    @property
    def index(self) -> set[str]:
        """The ids of every game of the room, in memory or not."""
        return set(self.games) | set(self.shelf)

    def get(self, gid: str) -> RoomGame | None:
        """The game ``gid``, replayed from its journal if it is not in memory; ``None`` when the
        room has no such game (or its journal can no longer be read: said in :attr:`problems`)."""
        game = self.games.get(gid)
        if game is not None:
            if gid in self._loaded_finished:
                self._loaded_finished.move_to_end(gid)
            return game
        if gid not in self.shelf:
            return None
        loaded: dict[str, RoomGame] = {}
        try:
            load_journal(self.records / f"{gid}.jsonl", loaded, self.problems, self.scheduler.attach)
        except Exception as e:  # noqa: BLE001 - the file changed or went away since the start
            self.problems.append(f"{gid}.jsonl: could not be read ({client_text(e)})")
        game = loaded.get(gid)
        if game is None:
            return None
        del self.shelf[gid]
        game.cache_size = self.limits.svg_cache_size
        self.games[gid] = game
        self._finished(game)
        return game

    def _finished(self, game: RoomGame) -> None:
        """Count ``game`` (over) among the finished games in memory; the least recently opened
        ones past ``max_loaded_finished`` leave memory (their summary stays in the lobby)."""
        self._loaded_finished[game.id] = None
        self._loaded_finished.move_to_end(game.id)
        self.creators.pop(game.id, None)  # counts only unfinished games
        while len(self._loaded_finished) > self.limits.max_loaded_finished:
            gid, _ = self._loaded_finished.popitem(last=False)
            old = self.games.pop(gid, None)
            if old is None:
                continue
            if old.journal is not None:
                old.journal.close()
            self.shelf[gid] = old.summary()
            self.locks.pop(gid, None)

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
                        "argument_words": {a["name"]: argument_words(st, a["name"]) for a in args},
                        "variant_labels": variant_labels(st, env_id, sp.variants),
                        "notation": st.info.notation,
                        **help_words(st, env_id),
                    }
                )
            self._envs = out
        return self._envs

    def lobby_frame(self) -> dict:
        """The ``lobby`` frame: the newest ``limits.max_lobby_games`` games, in memory or not."""
        games = [g.summary() for g in self.games.values()] + list(self.shelf.values())
        games.sort(key=lambda g: g["created"], reverse=True)
        return {
            "type": "lobby",
            "games": games[: self.limits.max_lobby_games],
            "envs": self.envs(),
            "formats": import_formats(),
            "problems": self.problems,
        }

    # ------------------------------------------------------------------ telling browsers
    def broadcast(self, game: RoomGame) -> None:
        if game.over and game.id in self.games and game.id not in self._loaded_finished:
            self._finished(game)
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

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    # ------------------------------------------------------------------ changes
    def lock(self, game: RoomGame) -> asyncio.Lock:
        if game.id not in self.locks:
            self.locks[game.id] = asyncio.Lock()
        return self.locks[game.id]

    async def _write(self, game: RoomGame, events: list[dict]) -> None:
        """Append ``events`` (a change, then what follows from it) to the game's journal as one
        line, fsynced, in a worker thread (caller holds the lock).

        Raises:
            RoomError: the disk refused it: nothing of it is in the journal and the caller
                changes nothing. The game's page is told (:attr:`RoomGame.journal_error`); a
                journal whose failed write could not be taken back makes the game read-only.
        """
        assert game.journal is not None  # opened when the game was created or loaded
        game.check_writable()
        bound = self.limits.max_game_events
        if events[0].get("event") != "resign" and game.journaled + len(events) > bound:
            raise RoomError(
                f"{_what(events[0])} was refused: game {game.id} has {game.journaled} journaled events and this "
                f"room keeps at most {bound} a game ({self.limits.option('max_game_events')}); the game is "
                "unchanged: it can still be resigned, or start a new game"
            )
        try:
            await anyio.to_thread.run_sync(game.journal.write, events)
        except JournalWriteError as e:
            self._journal_failed(game, e)
            raise RoomError(
                f"{_what(events[0])} was not saved and the game is unchanged: {game.journal_error}"
            ) from None
        game.journaled += len(events)
        if game.journal_error is not None:
            game.journal_error = None
            game.touch()

    def _journal_failed(self, game: RoomGame, e: JournalWriteError) -> None:
        """Record a refused journal write in the game (shown in its page and the lobby)."""
        log.error("game %s: the journal could not be written: %s", game.id, e.reason)
        if e.rolled_back:
            game.journal_error = (
                f"The records folder refused to write the game's journal ({e.reason}) at {_now()}. "
                "The room tries again at the next move or change."
            )
        else:
            game.read_only = True
            game.journal_error = (
                f"The records folder refused to write the game's journal ({e.reason}). The game is "
                "read-only until the room restarts (it then resumes from the journal's last complete line)."
            )
        game.touch()
        self.broadcast(game)

    async def _commit(self, game: RoomGame, event: dict, change: Callable[[RoomGame], object]) -> None:
        """Make a change (caller holds the lock): ``change`` applies ``event`` to a game. It is
        tried on :meth:`RoomGame.trial` first, to know what follows from it (the forced moves
        the room plays itself, the result of a game it ends: :meth:`RoomGame.settle`); the
        change and those events are journaled as one line; only then is the game changed.

        Raises:
            RoomError: the journal refused it (the game unchanged, see :meth:`_write`).
        """
        trial = game.trial()
        change(trial)
        events = [event, *trial.settle()]
        await self._write(game, events)
        change(game)
        for ev in events[1:]:
            replay_event(game, ev)

    async def _play(self, game: RoomGame, action, how: str) -> None:
        """Journal, then play, a move and the forced moves after it (caller holds the lock)."""
        event = game.move_event(action, how)
        await self._commit(game, event, lambda g: g.apply(action, how))

    # ------------------------------------------------------------------ agents (room.scheduler)
    def kick(self, game: RoomGame) -> None:
        """Start the agent of the seat to move, if it is an agent's turn and none is thinking
        (:meth:`room.scheduler.AgentScheduler.kick`)."""
        self.scheduler.kick(game)

    def start(self) -> None:
        """Start the agents of the unfinished games (called once the event loop runs)."""
        for game in self.games.values():
            self.kick(game)

    async def stop(self) -> None:
        from room.workers import stop_all

        stop_all()  # the search agents still thinking
        for t in list(self.tasks):
            t.cancel()
        for game in self.games.values():
            if game.journal is not None:
                game.journal.close()

    # ------------------------------------------------------------------ protocol
    def _game(self, gid: str) -> RoomGame:
        game = self.get(gid)
        if game is None:
            raise RoomError(f"unknown game {gid[:40]!r}")
        return game

    async def handle(self, conn: Connection, text) -> None:
        """Answer one browser message; any refusal is an ``error`` frame and changes nothing."""
        kind = msg = None
        try:
            msg = check_message(text, self.limits)
            kind = msg["type"]
            await getattr(self, f"_on_{kind}")(conn, msg)
        except (RoomError, IllegalActionError, ParameterError, UnknownEnvError, ValueError, TypeError) as e:
            conn.send(error_frame(kind, str(e), msg if kind else None))
        except Exception as e:  # noqa: BLE001 - a bug must not end the page's connection
            log.exception("room: %s message failed", kind)
            conn.send(
                error_frame(kind, f"the room failed on this {kind} message ({client_text(e)}); the game is unchanged")
            )

    async def _on_lobby(self, conn: Connection, msg: LobbyMessage) -> None:
        conn.lobby = True
        conn.send(self.lobby_frame())

    def _new_env(self, env_id: str, env_kwargs: dict):
        sp = spec(env_id)
        if "render_mode" in env_kwargs:
            raise RoomError("env_kwargs must not set render_mode: the room draws the board itself")
        known = [a for a in sp.arguments() if a != "render_mode"]  # the room's games' arguments
        if unknown := sorted(set(env_kwargs) - set(known), key=str):
            raise RoomError(
                f"{env_id} has no argument {', '.join(map(repr, unknown))}; its arguments are: {', '.join(known)}"
            )
        try:
            env = sp.make_raw(**env_kwargs)
            env.reset(seed=0)
        except (TypeError, ValueError) as e:
            raise RoomError(f"{env_id}: {e}") from None
        return sp, env

    def draw_seed(self) -> int:
        """A seed the room draws for a new game: 63 bits from :mod:`secrets`. Nobody can foresee
        it, nor find it by trying every seed against the cards one sees (2**31 seeds took about
        30 core-hours at 50 us a Smartrix shuffle; 2**63 take millions of core-years)."""
        return secrets.randbits(63)

    async def _on_setup(self, conn: Connection, msg: SetupMessage) -> None:
        env_id, kwargs = msg["env_id"], msg.get("env_kwargs", {})
        sp, env = self._new_env(env_id, kwargs)
        st = env.state
        menu = await anyio.to_thread.run_sync(self.agents.menu, env, env_id, kwargs)
        refused = await anyio.to_thread.run_sync(self.agents.unavailable, env, env_id, kwargs)
        conn.send(
            {
                "type": "setup",
                "env_id": env_id,
                "env_kwargs": kwargs,
                "seats": [{"seat": i, "label": seat_label(seat_names(st), i)} for i in range(st.num_players)],
                "teams": st.teams(),
                "agents": [{"name": m.name, "summary": m.summary} for m in menu],
                "unavailable": [{"name": m.name, "why": m.summary} for m in refused],
                "notation": st.words().notation_for(st),
            }
        )

    async def _on_create(self, conn: Connection, msg: CreateMessage) -> None:
        env_id, kwargs = msg["env_id"], msg.get("env_kwargs", {})
        self._check_game_bounds(conn.visitor)
        _, env = self._new_env(env_id, kwargs)
        n = env.num_players
        choices = msg["seats"]
        if len(choices) != n or not all(isinstance(c, str) for c in choices):
            raise RoomError(
                f"create: seats must be a list of {n} strings (one per seat of {env_id}: "
                f"'me', 'invite', 'open' or an agent name), got {json.dumps(choices)[:80]}"
            )
        seed = msg.get("seed")
        hidden = not env.state.info.perfect_information
        if seed is None:
            seed = self.draw_seed()
        elif not 0 <= seed < 2**32:
            raise RoomError(f"create: seed must be an integer from 0 to 2**32 - 1, got {seed}")
        elif why := seed_refusal(hidden, choices, HUMAN_CHOICES):
            raise RoomError(f"create: {why}")
        owner = secrets.token_urlsafe(18)
        gid = secrets.token_hex(4)
        while gid in self.index or (self.records / f"{gid}.jsonl").exists():
            gid = secrets.token_hex(4)
        tokens, seats = {}, []
        for i, c in enumerate(choices):
            if c in HUMAN_CHOICES:
                tok = None if c == "open" else secrets.token_urlsafe(18)
                if tok:
                    tokens[str(i)] = tok
                seats.append(
                    Seat(
                        "human",
                        None,
                        None if tok is None else token_digest(tok),
                        claimed=c == "me",
                        holder=token_digest(owner) if c == "me" else None,
                    )
                )
            else:
                self.agents.spec_of(c, env_id, kwargs)  # unknown names: a clear error
                await self._check_agent(c, env, env_id, kwargs, f"create: player {i + 1}")
                seats.append(Seat("agent", c))
        if why := seats_refusal(hidden, seats, token_digest(owner), msg.get("seed") is not None):
            raise RoomError(f"create: {why}")
        game = RoomGame(gid, "play", env_id, kwargs, seed, _now(), seats, owner=token_digest(owner))
        game.seed_chosen = msg.get("seed") is not None
        for i, s in enumerate(seats):
            if s.kind == "agent":
                self.scheduler.attach(game, i)
                if s.error:
                    raise RoomError(f"seat {i}: {s.error}")
        header = play_header(game)
        check_encodable(header, "create: the game's settings")
        first = game.trial().settle()  # forced moves at the start: journaled with the header
        try:
            game.journal = await anyio.to_thread.run_sync(Journal.create, self.records / f"{gid}.jsonl", header, first)
        except (OSError, JournalWriteError) as e:  # the server's log has the path; the page only the reason
            log.warning("room: cannot create the journal of game %s: %s", gid, e)
            why = e.reason if isinstance(e, JournalWriteError) else client_text(e)
            raise RoomError(f"the room cannot write the new game's journal ({why}); no game was created") from None
        for ev in first:
            replay_event(game, ev)
        game.journaled = len(first)
        game.cache_size = self.limits.svg_cache_size
        self.games[gid] = game
        self.creators[gid] = conn.visitor
        assert game.owner is not None  # a game created here has an owner token
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

    async def _on_watch(self, conn: Connection, msg: WatchMessage) -> None:
        game = self._game(msg["game"])
        tokens = msg.get("tokens", [])
        if len(tokens) > 16 or not all(isinstance(t, str) and 0 < len(t) <= 128 for t in tokens):
            raise RoomError("watch: tokens must be a list of at most 16 strings (each 1 to 128 characters)")
        conn.game = game.id
        digests = {token_digest(t) for t in tokens}
        conn.tokens.update(digests)
        try:
            await self._claim_invites(conn, game, digests)
        except RoomError as e:  # the claim could not be journaled: the page still sees the game
            conn.send(error_frame("watch", str(e)))
        conn.send(game.view(game.seats_held(conn.tokens), game.is_owner(conn.tokens)))

    async def _claim_invites(self, conn, game: RoomGame, digests: set[str]) -> None:
        """An invitation link opened (a ``watch`` with the token of a seat not yet claimed): the
        seat gets a fresh token for this browser (answered with ``joined``) and the link's token
        stops working (journaled, so a restart keeps it)."""
        if game.kind != "play" or game.read_only or not any(s.invited and s.token in digests for s in game.seats):
            return
        claimed, refused = [], []
        async with self.lock(game):
            for i, s in enumerate(game.seats):
                if not (s.invited and s.token in digests):
                    continue
                try:
                    tok = await self._new_holder(game, i, self._person(conn, game))
                except RoomError as e:  # a second seat in a game with hidden information
                    refused.append(f"the invitation to {game.label(i)} was not taken: {e}")
                    conn.tokens.discard(s.token)  # the link's token shows this page nothing of the seat
                    continue
                conn.tokens.add(token_digest(tok))
                claimed.append((i, tok))
        for i, tok in claimed:
            conn.send({"type": "joined", "game": game.id, "seat": i, "token": tok})
        for why in refused:
            conn.send(error_frame("watch", why))
        if claimed:
            self.broadcast(game)

    async def _new_holder(self, game: RoomGame, seat: int, holder: str | None) -> str:
        """Give ``seat`` to a person with a fresh token (journaled first, caller holds the lock);
        returns the token (the room keeps only its digest). ``holder``: the page's person
        (:meth:`_person`), ``None`` for a newcomer.

        Raises:
            RoomError: a second seat that :func:`room.trust.seats_refusal` refuses (nothing changed).
        """
        tok = secrets.token_urlsafe(18)
        d = token_digest(tok)
        new = Seat("human", None, d, claimed=True, holder=holder or d)
        self._check_fair(game, seat, new)
        await self._commit(
            game,
            {"event": "seat", "seat": seat, **new.journal(), "ply": game.ply},
            lambda g: g.set_seat(seat, new),
        )
        return tok

    def _person(self, conn: Connection, game: RoomGame) -> str | None:
        """Who the page ``conn`` is in ``game`` (:attr:`room.game.Seat.holder`): the holder of its
        lowest held seat, else the creator when it has the owner token, else ``None`` (nobody yet)."""
        held = {i for i in self._held(conn, game) if game.seats[i].held}  # not an invitation being opened
        if held:
            s = game.seats[min(held)]
            return s.holder or s.token
        return game.owner if game.is_owner(conn.tokens) else None

    def _check_fair(self, game: RoomGame, seat: int, new: Seat) -> None:
        """Refuse giving ``seat`` to ``new`` where :func:`room.trust.seats_refusal` or
        :func:`room.trust.seen_refusal` does."""
        if why := seen_refusal(game.hidden, game.label(seat), new, game.seen[seat]):
            raise RoomError(why)
        after = list(game.seats)
        after[seat] = new
        if why := seats_refusal(game.hidden, after, game.owner, game.seed_chosen):
            raise RoomError(why)

    def _held(self, conn, game: RoomGame) -> set[int]:
        return game.seats_held(conn.tokens)

    async def _on_join(self, conn: Connection, msg: JoinMessage) -> None:
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
            try:
                tok = await self._new_holder(game, i, self._person(conn, game))
            except RoomError as e:
                raise RoomError(f"join: {e}") from None
        conn.tokens.add(token_digest(tok))
        conn.game = game.id
        conn.send({"type": "joined", "game": game.id, "seat": i, "token": tok})
        self.broadcast(game)

    async def _on_move(self, conn: Connection, msg: MoveMessage) -> None:
        game = self._game(msg["game"])
        if ("action" in msg) == ("notation" in msg):
            raise RoomError("move: give exactly one of 'action' (an integer) and 'notation' (text)")
        async with self.lock(game):
            game.check_live()
            mover = game.to_move()
            assert mover is not None  # check_live: a game being played has a seat to move
            held = self._held(conn, game)
            if not held:
                raise RoomError(f"move: you hold no seat of game {game.id} (spectators cannot move)")
            if mover not in held:
                raise RoomError(f"move: it is not your turn: {game.label(mover)} is to move")
            action = msg["action"] if "action" in msg else game.state.string_to_action(msg["notation"].strip())
            await self._play(game, action, "human")
        self.broadcast(game)
        self.kick(game)

    async def _on_preview(self, conn: Connection, msg: PreviewMessage) -> None:
        game = self._game(msg["game"])
        game.check_live()
        mover = game.to_move()
        assert mover is not None  # check_live: a game being played has a seat to move
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
                "svg": game.svg(game.ply, mover, pending=a, perspective=min(self._held(conn, game))),
                "words": game.state.move_in_words(game.state.action_to_string(a)),
            }
        )

    async def _on_position(self, conn: Connection, msg: PositionMessage) -> None:
        game = self._game(msg["game"])
        conn.send(game.position(msg["ply"], self._held(conn, game)))

    async def _on_undo(self, conn: Connection, msg: UndoMessage) -> None:
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
            await self._write(game, [{"event": "undo", "to": target}])
            game.rebuild(target)
            self.scheduler.drop_stale(game)
        self.broadcast(game)
        self.kick(game)

    async def _on_resign(self, conn: Connection, msg: ResignMessage) -> None:
        game = self._game(msg["game"])
        async with self.lock(game):
            game.check_live()
            held = self._held(conn, game)
            live = held - game.out_seats()
            seat = msg.get("seat", min(live) if live else (min(held) if held else None))
            if seat is None or seat not in held:
                raise RoomError(
                    f"resign: you do not hold {'a seat' if seat is None else f'seat {seat}'} of game {game.id}"
                )
            game.resign_check(seat)
            await self._commit(game, {"event": "resign", "seat": seat}, lambda g: g.resign(seat))
            self.scheduler.drop_stale(game)
        self.broadcast(game)
        self.kick(game)  # play goes on where the rules keep the other sides playing

    async def _on_seat(self, conn: Connection, msg: SeatMessage) -> None:
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
            if to in HUMAN_CHOICES:
                tok = None if to == "open" else secrets.token_urlsafe(18)
                d = None if tok is None else token_digest(tok)
                holder = (self._person(conn, game) or d) if to == "me" else None
                new = Seat("human", None, d, claimed=to == "me", holder=holder)
                try:
                    self._check_fair(game, i, new)
                except RoomError as e:
                    raise RoomError(f"seat: {e}") from None
            else:
                self.agents.spec_of(to, game.env_id, game.env_kwargs)
                _, env = self._new_env(game.env_id, game.env_kwargs)
                await self._check_agent(to, env, game.env_id, game.env_kwargs, f"seat: {game.label(i)}")
                new = Seat("agent", to)
                old = game.seats[i]
                game.seats[i] = new
                self.scheduler.attach(game, i)
                game.seats[i] = old  # the seat changes once journaled (_commit)
                if new.error:
                    raise RoomError(f"seat {i}: {new.error}")
            await self._commit(
                game, {"event": "seat", "seat": i, **new.journal(), "ply": game.ply}, lambda g: g.set_seat(i, new)
            )
            self.scheduler.drop_stale(game)
        if to == "me":  # an invitation's token is for the link, not for this page
            assert tok is not None  # "me" gets a token
            conn.tokens.add(token_digest(tok))
        conn.send({"type": "seated", "game": game.id, "seat": i, "to": to, "token": tok})
        self.broadcast(game)
        self.kick(game)

    async def _check_agent(self, name: str, env, env_id: str, env_kwargs: dict, where: str) -> None:
        """Refuse seating the agent ``name`` where the seat menus of this setting refuse it
        (:meth:`room.agents.RoomAgents.refusal`, off the event loop as the menus are): a crafted
        message gets no agent the menus call too slow. Games restored from a journal are not
        checked (their agents reattach as they were)."""
        why = await anyio.to_thread.run_sync(self.agents.refusal, name, env, env_id, env_kwargs)
        if why:
            raise RoomError(
                f"{where}: agent {name!r} is not offered for this setting: {why}; "
                "expected one of the agents of the seat menu"
            )

    def connection_refusal(self, visitor: str) -> str | None:
        """``None`` when one more page (WebSocket) of ``visitor`` may connect, else why not (a
        WebSocket close reason, at most 123 bytes): past ``max_connections`` open pages in all or
        ``max_connections_per_visitor`` of one visitor (each may hold ``max_send_queue_bytes`` of
        unsent frames)."""
        lim = self.limits
        if len(self.connections) >= lim.max_connections:
            return f"the room has {len(self.connections)} pages open, its bound (--max-connections); try again later"
        mine = sum(1 for c in self.connections if c.visitor == visitor)
        if mine >= lim.max_connections_per_visitor:
            pages = f"{mine} page{'s' * (mine != 1)}"
            return f"you have {pages} of this room open, the bound (--max-connections-per-visitor); close one"
        return None

    def _check_game_bounds(self, visitor: str) -> None:
        """Refuse a new game past ``max_open_games`` or ``max_games_per_visitor`` (RoomError)."""
        lim = self.limits
        open_games = [g for g in self.games.values() if g.kind == "play" and not g.over]
        if len(open_games) >= lim.max_open_games:
            raise RoomError(
                f"create: the room has {len(open_games)} unfinished games, its bound "
                f"({lim.option('max_open_games')} {lim.max_open_games}); finish or resign one first"
            )
        mine = sum(1 for g in open_games if self.creators.get(g.id) == visitor)
        if mine >= lim.max_games_per_visitor:
            raise RoomError(
                f"create: you have {mine} unfinished games, the bound for one visitor "
                f"({lim.option('max_games_per_visitor')} {lim.max_games_per_visitor}); finish or resign one first"
            )

    # ------------------------------------------------------------------ uploads
    def _check_record_memory(self, rec: dict) -> None:
        """Refuse a record whose positions would take more than ``max_record_memory`` bytes
        (estimated: its first position pickled, times the number of positions) (RoomError)."""
        import pickle

        from envs.core.records import replay

        lim = self.limits
        positions = len(rec.get("moves") or []) + 1
        estimate = len(pickle.dumps(replay(rec, upto=0))) * positions
        if estimate > lim.max_record_memory:
            raise RoomError(
                f"record too large to replay: its {positions} positions would take about {estimate} bytes, "
                f"at most {lim.max_record_memory} ({lim.option('max_record_memory')})"
            )

    def add_record(self, filename: str, data: bytes, visitor: str = "") -> RoomGame:
        """Open an uploaded record file as a replay (kept in the records folder).

        Args:
            visitor: who uploads (the connection's address), for ``max_uploads_per_visitor``.

        Raises:
            RoomError: past a bound (size, moves, uploads of this visitor), or not a readable
                record (the reader's message). Nothing is stored then.
        """
        lim = self.limits
        if len(data) > lim.max_upload_bytes:
            raise RoomError(
                f"record file too large: {len(data)} bytes, at most {lim.max_upload_bytes} "
                f"({lim.option('max_upload_bytes')})"
            )
        if self.uploads.get(visitor, 0) >= lim.max_uploads_per_visitor:
            raise RoomError(
                f"upload refused: {self.uploads[visitor]} uploads from you since the room started, its bound "
                f"({lim.option('max_uploads_per_visitor')} {lim.max_uploads_per_visitor})"
            )
        try:
            rec = import_record(filename, data)
            check_encodable(rec, "the record")  # before any message quotes a part of it
            moves = rec.get("moves")
            if isinstance(moves, list) and len(moves) > lim.max_record_moves:
                raise RoomError(
                    f"record too long: {len(moves)} moves, at most {lim.max_record_moves} "
                    f"({lim.option('max_record_moves')})"
                )
            self._check_record_memory(rec)
            gid = secrets.token_hex(4)
            while gid in self.index:
                gid = secrets.token_hex(4)
            game = RoomGame(gid, "record", rec["env_id"], {}, None, _now(), [], record=rec)
            header = record_header(game, rec, filename)
            check_encodable(header, "the record")
        except (InvalidPositionError, ParameterError, ValueError) as e:
            raise RoomError(str(e)) from None
        try:
            Journal.create(self.records / f"{gid}.jsonl", header).close()
        except (OSError, JournalWriteError) as e:  # the server's log has the path; the page only the reason
            log.warning("room: cannot store the uploaded record as game %s: %s", gid, e)
            why = e.reason if isinstance(e, JournalWriteError) else client_text(e)
            raise RoomError(f"the room cannot store the record ({why}); nothing was stored") from None
        self.uploads[visitor] = self.uploads.get(visitor, 0) + 1
        game.cache_size = lim.svg_cache_size
        self.games[gid] = game
        self._finished(game)
        return game


def _what(event: dict) -> str:
    """A journal event's change, in words (for a refusal)."""
    kind = event.get("event")
    if kind == "move":
        return f"The move {event.get('notation', '')}".rstrip()
    return {"resign": "The resignation", "seat": "The seat change", "undo": "The undo"}.get(str(kind), "The change")
