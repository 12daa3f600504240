"""The room's records folder: one journal per game (:mod:`room.journal`), written as the game goes
and read back when the room starts.

:func:`load_records` restores every game of the folder: an unfinished game resumes where its
journal ends, a finished one is listed and replayable, an uploaded record is a replay. A journal
whose tail is damaged (a crash in the middle of a line, an event that does not replay) is cut back
to its last good line, the damaged file kept beside it, and the game says so. :func:`play_header`
and :func:`record_header` are the first lines of a new game's and an upload's journal.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from envs.core.state import InvalidPositionError
from room.game import RoomError, RoomGame, Seat
from room.journal import FORMAT, VERSION, Journal, read_journal
from room.trust import client_text

__all__ = ["load_records", "load_journal", "replay_line", "replay_event", "play_header", "record_header"]


def load_records(records: Path, attach: Callable[[RoomGame, int], None]) -> tuple[dict[str, RoomGame], list[str]]:
    """Every game of the folder ``records`` (its ``*.jsonl`` journals, by name).

    Args:
        records: the records folder.
        attach: builds the agent of an agent seat (``attach(game, seat)``) of a restored game.

    Returns:
        ``(games, problems)``: the games by id, and one line per journal that could not be read
        or was cut back (one bad file never stops the room).
    """
    games: dict[str, RoomGame] = {}
    problems: list[str] = []
    for path in sorted(records.glob("*.jsonl")):
        try:
            load_journal(path, games, problems, attach)
        except Exception as e:  # noqa: BLE001 - one bad file must not stop the room
            problems.append(f"{path.name}: could not be read ({client_text(e)})")  # the lobby shows it: no path
    return games, problems


def load_journal(
    path: Path, games: dict[str, RoomGame], problems: list[str], attach: Callable[[RoomGame, int], None]
) -> None:
    """Restore the game of journal ``path`` into ``games`` (a damaged tail cut back, said in
    ``problems``).

    Raises:
        InvalidPositionError, RoomError, KeyError: a header that does not describe a game.
    """
    content = read_journal(path)
    h = content.header
    if h is None:
        problems.append(f"{path.name}: {content.problem}; the file is left as it is")
        return
    gid = h["game"]
    if gid in games or path.stem != gid:
        problems.append(f"{path.name}: game id {gid!r} does not match the file name or is taken; skipped")
        return
    if h["kind"] == "record":
        games[gid] = RoomGame(gid, "record", h["env_id"], {}, None, h["created"], [], record=h["record"])
        return
    seats = []
    for s in h["seats"]:
        if not isinstance(s, dict) or s.get("kind") not in ("human", "agent"):
            raise InvalidPositionError(f"header seat {s!r} is not a seat")
        seats.append(_seat(s))
    game = RoomGame(gid, "play", h["env_id"], h["env_kwargs"], h["seed"], h["created"], seats, owner=h.get("owner"))
    game.seed_chosen = h.get("seed_chosen") is True
    problem, good = content.problem, content.good_lines
    for line, events in content.lines():
        try:
            replay_line(game, events)
        except Exception as e:  # noqa: BLE001 - an event that does not replay
            problem = f"{path.name} line {line}: {e}"
            good = line - 1
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
        problems.append(game.problem)
    for i, seat in enumerate(game.seats):
        if seat.kind == "agent":
            attach(game, i)
    game.journal = Journal(path)
    games[gid] = game


def replay_line(game: RoomGame, events: list[dict]) -> None:
    """Apply the events of one journal line (a change and what followed from it), all or none:
    a line of several events is tried on :meth:`~room.game.RoomGame.trial` first.

    Raises:
        as :func:`replay_event` (``game`` unchanged).
    """
    if len(events) > 1:
        trial = game.trial()
        for ev in events:
            replay_event(trial, ev)
    for ev in events:
        replay_event(game, ev)
    game.journaled += len(events)


def replay_event(game: RoomGame, ev: dict) -> None:
    """Apply one journal event (:data:`room.journal.EVENTS`) to ``game``.

    Raises:
        RoomError: an event that does not fit the game (a move for another ply, an undo past the
            start, a bad seat, a result of a game that is not over); the game's own errors for an
            illegal move.
    """
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
        game.set_seat(ev["seat"], _seat(ev))
    elif kind == "resign":
        if not 0 <= ev["seat"] < game.num_players:
            raise RoomError(f"bad resign event {ev}")
        game.resign(ev["seat"])
    elif kind == "result":
        if not game.over and ev.get("termination") == "resignation" and game.state.resignations:
            # written before resignations under the rules: that resignation ended the game then
            game.resigned = game.state.resignations[-1][1]
            game.changed()
        if not game.over:
            raise RoomError(f"a result ({ev['result']}) is recorded but the game is not over after {game.ply} moves")


def _seat(s: dict) -> Seat:
    """A seat of a journal (header or seat event); ``holder`` only when it is a string."""
    holder = s.get("holder")
    return Seat(
        s["kind"],
        s.get("agent"),
        s.get("token"),
        claimed=s.get("claimed", True) is True,
        holder=holder if isinstance(holder, str) else None,
    )


def play_header(game: RoomGame) -> dict:
    """The header line of the journal of a new game being played (its seats as they are now)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game.id,
        "kind": "play",
        "env_id": game.env_id,
        "env_kwargs": game.env_kwargs,
        "seed": game.seed,
        "seed_chosen": game.seed_chosen,
        "created": game.created,
        "seats": [s.journal() for s in game.seats],
        "owner": game.owner,
    }


def record_header(game: RoomGame, record: dict, filename: str) -> dict:
    """The header line of the journal of an uploaded record (``filename`` as the browser sent it)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game.id,
        "kind": "record",
        "env_id": record["env_id"],
        "created": game.created,
        "record": record,
        "filename": Path(str(filename)).name[:100],
    }
