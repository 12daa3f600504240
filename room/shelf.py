"""Finished games off memory: what the lobby shows of a game whose journal is not replayed.

A finished game (its journal ends with a ``result`` event) and an uploaded record are not replayed
when the room starts: :func:`peek_finished` reads only the journal's first line (the header) and
its last line, and makes the game's lobby summary from them. The room replays the journal
(:func:`room.records.load_journal`) when someone opens the game, and keeps at most
``max_loaded_finished`` such games in memory (:class:`~room.limits.RoomLimits`). So start-up time
and memory do not grow with the number of finished games. A journal whose last line is not a
complete ``result`` event (an unfinished game, or a damaged tail) is replayed at start as before.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from pathlib import Path
from typing import Any

from envs.registry import spec
from room.journal import FORMAT, VERSION
from room.words import result_words, seat_label, seat_names, setting_words

__all__ = ["peek_finished", "TAIL_BYTES"]

#: How many bytes of a journal's end are read for its last line.
TAIL_BYTES = 4096


@lru_cache(maxsize=64)
def _setting(env_id: str, kwargs_json: str) -> tuple[str, tuple[str, ...], str]:
    """The setting's name, its seats' names and the setting in players' words
    (``initial_state``), per setting (cached, bounded)."""
    kwargs = json.loads(kwargs_json)
    st = spec(env_id).initial_state(**kwargs)
    return st.setting_name(), seat_names(st), setting_words(st, kwargs)


def _event_outcome(event: dict, labels: list[str]) -> dict:
    """The lobby's outcome of a journal's ``result`` event (or an uploaded record's ``result``):
    its result and termination, and the winners and words the room journals since they were
    added. Without words but with winners (a record's result) the words are made from the winners
    (every seat winning: a draw); with neither (an older journal) they are the game's result
    text, the winners unknown (``[]``)."""
    result_text, termination = str(event.get("result", "")), str(event.get("termination", ""))
    given = event.get("winners")
    known = isinstance(given, list) and all(type(w) is int and 0 <= w < len(labels) for w in given)
    winners: list[int] = sorted(set(given)) if isinstance(given, list) and known else []
    words = event.get("words")
    if not isinstance(words, str) or not words:
        if known and winners and labels and len(labels) > 1:
            draw = len(winners) == len(labels)
            words = result_words(labels, [] if draw else winners, draw=draw)
            winners = [] if draw else winners
        else:
            words = result_text
    return {
        "result": result_text,
        "termination": termination,
        "winners": winners,
        "scores": None,
        "draw": words == "draw",
        "words": words,
    }


def _last_line(path: Path) -> bytes | None:
    """The journal's last complete line (without its newline), ``None`` when the file does not end
    with one (a write cut short: the room replays such a journal at start, which repairs it)."""
    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        f.seek(max(0, size - TAIL_BYTES))
        tail = f.read()
    if not tail.endswith(b"\n"):
        return None
    lines = tail[:-1].split(b"\n")
    return lines[-1] if len(lines) > 1 or size <= TAIL_BYTES else None


def peek_finished(path: Path) -> dict | None:
    """The lobby summary (as :meth:`room.game.RoomGame.summary`) of the finished game or uploaded
    record of journal ``path``, read from its header and last line only; ``None`` when the game is
    not finished or the file is not a well-formed journal of this name (the room then replays it
    as before, which reports any problem).

    The summary's outcome has the result, termination, winners and words of the ``result`` event
    (journals written before the winners and words were journaled: the result text as the words,
    no winners; the scores are given when the game is opened); its seats are the header's.
    """
    try:
        with open(path, "rb") as f:
            header = json.loads(f.readline().decode("utf-8"))
        if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("version") != VERSION:
            return None
        gid, kind, env_id = header.get("game"), header.get("kind"), header.get("env_id")
        if gid != path.stem or not isinstance(env_id, str) or not isinstance(header.get("created"), str):
            return None
        if kind == "record":
            record = header.get("record")
            if not isinstance(record, dict) or not isinstance(record.get("moves"), list):
                return None
            kwargs = record.get("env_kwargs") or {}
            result = record.get("result")
            event: Any = dict(result) if isinstance(result, dict) else {"result": str(result or "")}
            ply: Any = len(record["moves"])
            seats: list = []
        elif kind == "play":
            last = _last_line(path)
            event = json.loads(last.decode("utf-8")) if last else None
            # the result ends the last line: the line itself (older journals) or the last of the
            # events that followed from the line's change (room.journal: ``then``)
            if isinstance(event, dict) and event.get("event") != "result" and isinstance(event.get("then"), list):
                event = event["then"][-1] if event["then"] else None
            if not isinstance(event, dict) or event.get("event") != "result" or not isinstance(event.get("ply"), int):
                return None
            kwargs = header.get("env_kwargs")
            ply = event["ply"]
            header_seats = header.get("seats")
            if not isinstance(header_seats, list) or not all(isinstance(s, dict) for s in header_seats):
                return None
            seats = header_seats
        else:
            return None
        if not isinstance(kwargs, dict):
            return None
        name, seat_names, setting = _setting(env_id, json.dumps(kwargs, sort_keys=True))
        labels = [seat_label(seat_names, i) for i in range(len(seat_names))]
        outcome = _event_outcome(event, labels)
    except Exception:  # noqa: BLE001 - anything odd: the journal is replayed as before, which says what is wrong
        return None
    return {
        "game": gid,
        "kind": kind,
        "env_id": env_id,
        "name": name,
        "setting": setting,
        "env_kwargs": kwargs,
        "created": header["created"],
        "ply": ply,
        "over": True,
        "to_move": None,
        "outcome": outcome,
        "seats": [
            {
                "seat": i,
                "label": seat_label(seat_names, i),
                "kind": s.get("kind"),
                "agent": s.get("agent"),
                "open": s.get("kind") == "human" and s.get("token") is None,
                "invited": False,
                "error": None,
                "thinking": False,
            }
            for i, s in enumerate(seats)
        ],
        "problem": None,
    }
