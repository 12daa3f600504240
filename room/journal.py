"""One journal file per game: JSON lines, each appended and fsynced, all or nothing, before the
room tells anyone of the change it records.

The first line is the header, the others are events, in order::

    {"format": "tabletop-room-journal", "version": 1, "game": "a1b2c3d4", "kind": "play",
     "env_id": "<env id>", "env_kwargs": {}, "seed": 1234, "seed_chosen": false, "created": "2026-12-02T03:00:00Z",
     "seats": [{"kind": "human", "token": "<sha256 of the seat's token>", "claimed": true},
               {"kind": "agent", "agent": "random"}],
     "owner": "<sha256 of the owner's token>"}
    {"event": "move", "ply": 0, "action": 831, "notation": "g2", "seat": 0, "by": "human"}
    {"event": "undo", "to": 0}
    {"event": "seat", "seat": 1, "kind": "agent", "agent": "greedy", "ply": 0}
    {"event": "seat", "seat": 2, "kind": "human", "token": "<sha256>", "claimed": true, "holder": "<sha256>", "ply": 0}
    {"event": "resign", "seat": 0,
     "then": [{"event": "result", "result": "player 1 (red, x) resigned", "termination": "resignation",
               "winners": [1], "words": "player 1 (red, x) resigned: player 2 (blue, o) won", "ply": 57}]}

A seat event marks every change of a seat's holder, at ``ply`` (absent in older journals);
``holder`` tells persons apart (:mod:`room.trust`), and the header's ``seed_chosen`` says the
creator gave the seed (absent: false). ``by`` is ``human``, ``agent`` or ``auto`` (a forced move
the room played itself). A person's
seat has ``claimed`` false while it is an invitation whose link was not yet opened (opening it
writes a seat event with the fresh token); a journal without ``claimed`` (older) counts as true. Tokens are
stored only as their SHA-256 digests: a records folder holds no secret, yet a browser that kept
its token takes its seat back after a restart. An uploaded record is a journal of kind
``"record"`` whose header holds the library's JSON record (``"record": {...}``) and no events.

**One change, one line.** A change and what follows from it (the forced moves the room plays
itself, the ``result`` of a game it ends) are one line: the change's event with the others in
its ``then`` list (events without ``then`` of their own). A line is written with one unbuffered
``os.write`` and fsynced before the room acknowledges the change, so it is on disk whole or not at
all: a write the disk refuses (full, unwritable, an I/O error) is rolled back, the file truncated
to its last complete line, and :class:`JournalWriteError` says whether that worked
(``rolled_back``); nothing refused stays in a buffer to reach the file later. Journals written
before ``then`` existed (one event per line) read the same.

A crash can leave a last line half written; :func:`read_journal` stops at the first line that
is not a well-formed event and says which line and why, and the room restores the game from the
lines before it (keeping the damaged file beside it).
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from envs.core.checks import is_plain_int

__all__ = [
    "FORMAT",
    "VERSION",
    "Journal",
    "JournalContent",
    "JournalWriteError",
    "read_journal",
    "EVENTS",
    "THEN_EVENTS",
]

FORMAT = "tabletop-room-journal"
VERSION = 1
#: The event names and the fields each needs (name -> type).
EVENTS: dict[str, dict[str, type]] = {
    "move": {"ply": int, "action": int, "notation": str, "seat": int, "by": str},
    "undo": {"to": int},
    "seat": {"seat": int, "kind": str},
    "resign": {"seat": int},
    "result": {"result": str},
}
#: The events a ``then`` list may hold: what follows from a change by itself.
THEN_EVENTS = ("move", "result")


class JournalWriteError(Exception):
    """The disk refused a journal write; nothing of it is in the file.

    Attributes:
        reason: the system's words for the failure (``"No space left on device"``), without the
            file's path.
        errno: the ``OSError``'s errno (``None`` if it had none).
        rolled_back: ``True`` when the file is back to its last complete line (the journal may be
            written again: the write can be retried); ``False`` when the part written could not
            be taken back (the journal is closed for good, :attr:`Journal.broken`; a restart cuts
            the unfinished line off, as after a crash).
    """

    def __init__(self, reason: str, errno_: int | None, rolled_back: bool):
        super().__init__(reason)
        self.reason = reason
        self.errno = errno_
        self.rolled_back = rolled_back


def _reason(e: OSError) -> str:
    return e.strerror or (errno.errorcode.get(e.errno, "") if e.errno else "") or type(e).__name__


def _line(entries: dict | Sequence[dict]) -> bytes:
    """One journal line: a dict, or a change's events as one dict (the first, the others in its
    ``then``). Raises ValueError (a value JSON or UTF-8 cannot hold) before anything is written."""
    if isinstance(entries, dict):
        entry = entries
    else:
        if not entries:
            raise ValueError("a journal line needs at least one event")
        entry = dict(entries[0])
        if len(entries) > 1:
            entry["then"] = list(entries[1:])
    return (json.dumps(entry, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        if n <= 0:  # pragma: no cover - a regular file either writes or raises
            raise OSError(errno.EIO, "the write made no progress")
        view = view[n:]


def _fsync_dir(folder: Path) -> None:
    """Make a new file's name durable (best effort: some filesystems cannot open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - not on Linux
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - a folder that cannot be fsynced
        pass
    finally:
        os.close(fd)


class Journal:
    """An open journal file, appended to one whole line at a time (see the module docstring).

    Each :meth:`write` is one unbuffered ``os.write`` of the complete line, then ``fsync``; a
    failure truncates the file back to the length it had before (its last complete line), so a
    refused line never reaches the file, then or later.

    Args:
        path: the file (``<records>/<game>.jsonl``); opened (append only) at the first write.

    Attributes:
        broken: ``None``, or why the journal is closed for good: a failed write whose part
            written could not be taken back. Every later :meth:`write` is refused.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self._fd: int | None = None
        self._size = 0
        self.broken: str | None = None

    @classmethod
    def create(cls, path: Path, header: dict, events: Sequence[dict] = ()) -> Journal:
        """Create the file (it must not exist) with ``header`` as its first line and, when
        ``events`` is not empty, the line of those events (what follows at once from the start,
        see :meth:`write`); fsynced, the folder too. On failure no file is left.

        Raises:
            FileExistsError: the file exists. JournalWriteError: it cannot be written (nothing is
                left, ``rolled_back`` true). ValueError: a value JSON or UTF-8 cannot hold
                (nothing created).
        """
        data = _line(header) + (_line(events) if events else b"")
        path = Path(path)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o666)
        except FileExistsError:
            raise
        except OSError as e:
            raise JournalWriteError(_reason(e), e.errno, True) from None
        try:
            _write_all(fd, data)
            os.fsync(fd)
            _fsync_dir(path.parent)
        except OSError as e:
            os.close(fd)
            try:
                path.unlink()
            except OSError:  # pragma: no cover - created a moment ago; a restart reports it
                pass
            raise JournalWriteError(_reason(e), e.errno, True) from None
        j = cls(path)
        j._fd, j._size = fd, len(data)
        return j

    def write(self, entry: dict | Sequence[dict]) -> None:
        """Append one line: ``entry`` (a dict), or a change's events (a list: the first with the
        others in its ``then``), on disk (fsynced) when this returns, or not in the file at all.

        Raises:
            JournalWriteError: the disk refused it; the file is back to its last complete line
                (``rolled_back``), or could not be, and then the journal is :attr:`broken`.
            ValueError: a value JSON or UTF-8 cannot hold (nothing written).
        """
        if self.broken is not None:
            raise JournalWriteError(self.broken, None, False)
        data = _line(entry)
        if self._fd is None:
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
            except OSError as e:
                raise JournalWriteError(_reason(e), e.errno, True) from None
            try:
                self._size = os.fstat(fd).st_size
            except OSError as e:  # pragma: no cover - an open file that cannot be stat'ed
                os.close(fd)
                raise JournalWriteError(_reason(e), e.errno, True) from None
            self._fd = fd
        good = self._size
        try:
            _write_all(self._fd, data)
            os.fsync(self._fd)
        except OSError as e:
            self._roll_back(good, e)
        self._size = good + len(data)

    def _roll_back(self, good: int, cause: OSError) -> None:
        """Truncate the file back to ``good`` bytes after ``cause``; raise JournalWriteError."""
        assert self._fd is not None
        reason = _reason(cause)
        try:
            if os.fstat(self._fd).st_size != good:
                os.ftruncate(self._fd, good)
            os.fsync(self._fd)
            if os.fstat(self._fd).st_size != good:  # pragma: no cover - a truncate that did not
                raise OSError(errno.EIO, "the journal did not shrink back")
        except OSError as e:
            self.broken = (
                f"{reason}, and the part written could not be taken back ({_reason(e)}): "
                "the journal is closed until the room restarts"
            )
            self.close()
            raise JournalWriteError(self.broken, cause.errno, False) from None
        raise JournalWriteError(reason, cause.errno, True) from None

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            try:
                os.close(fd)
            except OSError:  # pragma: no cover - nothing left to keep
                pass


@dataclass
class JournalContent:
    """What :func:`read_journal` found.

    Attributes:
        header: the header dict (``None`` when even the header is unreadable).
        events: the well-formed events before the first bad line, in order (a line's ``then``
            events after its own, each without ``then``).
        problem: ``None``, or which line is bad and why (the game is restored without it and
            what follows).
        good_lines: the number of good lines (header included).
        event_lines: the line number (from 1: the header is line 1) of each event of
            ``events``.
    """

    header: dict | None
    events: list[dict] = field(default_factory=list)
    problem: str | None = None
    good_lines: int = 0
    event_lines: list[int] = field(default_factory=list)

    def lines(self) -> list[tuple[int, list[dict]]]:
        """The events line by line: ``(line number, the events of that line)``, in order (a
        change with its consequences: to be applied all or none)."""
        out: list[tuple[int, list[dict]]] = []
        for n, ev in zip(self.event_lines, self.events):
            if out and out[-1][0] == n:
                out[-1][1].append(ev)
            else:
                out.append((n, [ev]))
        return out


def _check_header(h) -> str | None:
    if not isinstance(h, dict) or h.get("format") != FORMAT or h.get("version") != VERSION:
        return f"not a {FORMAT} version {VERSION} header"
    for key, kind in (("game", str), ("kind", str), ("env_id", str), ("created", str)):
        if not isinstance(h.get(key), kind):
            return f"header field {key!r} must be a {kind.__name__}"
    if h["kind"] == "play":
        if not isinstance(h.get("env_kwargs"), dict) or not isinstance(h.get("seats"), list):
            return "header needs env_kwargs (object) and seats (list)"
        if not is_plain_int(h.get("seed")):
            return "header field 'seed' must be an integer"
    elif h["kind"] == "record":
        if not isinstance(h.get("record"), dict):
            return "header of an uploaded record needs 'record' (object)"
    else:
        return f"header kind must be 'play' or 'record', got {h['kind']!r}"
    return None


def _check_event(e, nested: bool = False) -> str | None:
    if not isinstance(e, dict) or e.get("event") not in EVENTS:
        return f"not an event (expected an object with 'event' among {sorted(EVENTS)})"
    for key, kind in EVENTS[e["event"]].items():
        v = e.get(key)
        if not isinstance(v, kind) or isinstance(v, bool):
            return f"{e['event']} event field {key!r} must be a {kind.__name__}, got {v!r}"
    if "then" in e:
        if nested:
            return "an event of a 'then' list has a 'then' of its own"
        if e["event"] == "undo":
            return "an undo event has no 'then' (nothing follows from it)"
        if not isinstance(e["then"], list) or not e["then"]:
            return f"{e['event']} event field 'then' must be a non-empty list of events"
        for k, sub in enumerate(e["then"]):
            problem = _check_event(sub, nested=True)
            if not problem and sub["event"] not in THEN_EVENTS:
                problem = f"a {sub['event']} event does not follow from a change (only {', '.join(THEN_EVENTS)})"
            if problem:
                return f"event {k + 1} of 'then': {problem}"
    return None


def read_journal(path: Path) -> JournalContent:
    """Read a journal, stopping at the first bad line.

    A line is bad when it is not UTF-8 JSON, lacks its newline (a write cut short), or is not a
    well-formed header / event (with its ``then`` list, if any). Whether the events are legal
    moves is checked by the room when it replays them.

    Raises:
        OSError: the file cannot be read.
    """
    data = Path(path).read_bytes()
    lines = data.split(b"\n")
    out = JournalContent(None)
    for i, raw in enumerate(lines):
        last = i == len(lines) - 1
        if last and raw == b"":
            break
        where = f"{Path(path).name} line {i + 1}"
        if last:
            out.problem = f"{where} is cut short (no end of line: a crash while it was written?)"
            break
        try:
            entry = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            out.problem = f"{where} is not JSON ({e})"
            break
        problem = _check_header(entry) if i == 0 else _check_event(entry)
        if problem:
            out.problem = f"{where}: {problem}"
            break
        if i == 0:
            out.header = entry
        else:
            for ev in [{k: v for k, v in entry.items() if k != "then"}, *entry.get("then", [])]:
                out.events.append(ev)
                out.event_lines.append(i + 1)
        out.good_lines = i + 1
    if out.header is None and out.problem is None:
        out.problem = f"{Path(path).name} is empty"
    return out
