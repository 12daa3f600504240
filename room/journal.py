"""One journal file per game: JSON lines, each appended, flushed and fsynced as it happens.

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
    {"event": "resign", "seat": 0}
    {"event": "result", "result": "1-0", "termination": "...", "ply": 57}

A seat event marks every change of a seat's holder, at ``ply`` (absent in older journals);
``holder`` tells persons apart (:mod:`room.trust`), and the header's ``seed_chosen`` says the
creator gave the seed (absent: false). ``by`` is ``human``, ``agent`` or ``auto`` (a forced move
the room played itself). A person's
seat has ``claimed`` false while it is an invitation whose link was not yet opened (opening it
writes a seat event with the fresh token); a journal without ``claimed`` (older) counts as true. Tokens are
stored only as their SHA-256 digests: a records folder holds no secret, yet a browser that kept
its token takes its seat back after a restart. An uploaded record is a journal of kind
``"record"`` whose header holds the library's JSON record (``"record": {...}``) and no events.

A crash can leave a last line half written; :func:`read_journal` stops at the first line that
is not a well-formed event and says which line and why, and the room restores the game from the
lines before it (keeping the damaged file beside it).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from envs.core.checks import is_plain_int

__all__ = ["FORMAT", "VERSION", "Journal", "JournalContent", "read_journal", "EVENTS"]

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


class Journal:
    """An open journal file, appended to one line at a time.

    Args:
        path: the file (``<records>/<game>.jsonl``).
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self._file: TextIO | None = None

    @classmethod
    def create(cls, path: Path, header: dict) -> Journal:
        """Create the file (it must not exist) with ``header`` as its first line.

        Raises:
            FileExistsError: the file exists. OSError: it cannot be written.
        """
        j = cls(path)
        j._file = open(j.path, "x", encoding="utf-8")
        j.write(header)
        return j

    def write(self, entry: dict) -> None:
        """Append ``entry`` as one JSON line, flushed and fsynced before returning.

        Raises:
            OSError: the disk refused it (the caller undoes what it recorded).
        """
        if self._file is None:
            self._file = open(self.path, "a", encoding="utf-8")
        self._file.write(json.dumps(entry, separators=(",", ":"), ensure_ascii=False) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


@dataclass
class JournalContent:
    """What :func:`read_journal` found.

    Attributes:
        header: the header dict (``None`` when even the header is unreadable).
        events: the well-formed events before the first bad line.
        problem: ``None``, or which line is bad and why (the game is restored without it and
            what follows).
        good_lines: the number of good lines (header included).
    """

    header: dict | None
    events: list[dict] = field(default_factory=list)
    problem: str | None = None
    good_lines: int = 0


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


def _check_event(e) -> str | None:
    if not isinstance(e, dict) or e.get("event") not in EVENTS:
        return f"not an event (expected an object with 'event' among {sorted(EVENTS)})"
    for key, kind in EVENTS[e["event"]].items():
        v = e.get(key)
        if not isinstance(v, kind) or isinstance(v, bool):
            return f"{e['event']} event field {key!r} must be a {kind.__name__}, got {v!r}"
    return None


def read_journal(path: Path) -> JournalContent:
    """Read a journal, stopping at the first bad line.

    A line is bad when it is not UTF-8 JSON, lacks its newline (a write cut short), or is not a
    well-formed header / event. Whether the events are legal moves is checked by the room when
    it replays them.

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
            out.events.append(entry)
        out.good_lines = i + 1
    if out.header is None and out.problem is None:
        out.problem = f"{Path(path).name} is empty"
    return out
