"""Smartrix game records as JSON.

A record holds the settings, how the game started and the moves in notation::

    {"game": "smartrix", "version": 1,
     "settings": {"num_players": 2, "grid_limit": true, "teams": false, "window": 9},
     "start": {"deck": [12, 57, ...]},          # the deal order (70 card numbers), or
     "start": {"position": {...}},              # a hand-built position (SmartrixState.position())
     "moves": ["17r1@-1,+2", "pass", ...]}

The deck order fixes every hand, the face-up card and the whole draw pile, so :func:`replay`
reproduces every state of the game exactly (the moves are then checked for legality one by one).
"""

from __future__ import annotations

import json
from pathlib import Path

from envs.core.state import IllegalActionError, InvalidPositionError
from envs.smartrix.state import SmartrixState

__all__ = ["record_from_state", "replay", "read_record", "write_record", "FORMAT_VERSION"]

FORMAT_VERSION = 1


def record_from_state(state: SmartrixState) -> dict:
    """The JSON-compatible record of the game that led to ``state``."""
    return {
        "game": "smartrix",
        "version": FORMAT_VERSION,
        "settings": {"num_players": state.num_players, "grid_limit": state.grid_limit, "teams": state.teams,
                     "window": state.window},
        "start": state.start,
        "moves": state.history(),
    }


def replay(record: dict, upto: int | None = None) -> SmartrixState:
    """Play a record (the first ``upto`` moves, default all) into a new state.

    Raises:
        InvalidPositionError: a malformed record. IllegalActionError: an illegal move (the message
        names its index).
    """
    if not isinstance(record, dict) or record.get("game") != "smartrix":
        raise InvalidPositionError("not a Smartrix record (expected a dict with game='smartrix')")
    if record.get("version") != FORMAT_VERSION:
        raise InvalidPositionError(f"unsupported record version {record.get('version')!r}")
    settings = dict(record.get("settings", {}))
    start = record.get("start", {})
    if "deck" in start:
        state = SmartrixState(settings.get("num_players", 2), grid_limit=settings.get("grid_limit", True),
                              teams=settings.get("teams", False), window=settings.get("window"), deck=start["deck"])
    elif "position" in start:
        state = SmartrixState.from_position(**start["position"])
    else:
        raise InvalidPositionError("record 'start' must hold 'deck' or 'position'")
    moves = record.get("moves", [])
    for i, move in enumerate(moves[:upto] if upto is not None else moves):
        try:
            state.apply(state.string_to_action(move))
        except IllegalActionError as e:
            raise IllegalActionError(f"move {i} ({move!r}): {e}") from None
    return state


def write_record(record: dict, path) -> None:
    Path(path).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def read_record(path) -> dict:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InvalidPositionError(f"{path}: not valid JSON ({e})") from None
