"""Tantrix game records as JSON: settings, the bag's drawing order and the moves.

A record replays exactly without any random generator: the bag order fixes every draw (the
initial draws and each replacement), the moves (``t23@0,-1r2`` notation, see
:mod:`envs.tantrix.state`) fix every placement. Format (``"format": "tantrix-record"``,
``"version": 1``)::

    {
      "format": "tantrix-record", "version": 1,
      "settings": {"num_players": 2, "teams": false, "colors": ["R", "Y"], "window_radius": 16},
      "bag": [17, 3, 56, ...],            # all 56 tiles in drawing order
      "moves": ["t41@0,0r3", "t12@1,0r0", ...],
      "result": {"outcome": "player 1 won", "scores": [12, 15], "returns": [-1.0, 1.0]}
    }

``result`` is informative (``null`` for an unfinished game); :func:`replay` checks it when present.
"""

from __future__ import annotations

import json
from pathlib import Path

from envs.core.state import IllegalActionError, InvalidPositionError, ParameterError
from envs.tantrix.state import COLOURS, TantrixState

__all__ = ["record_from_state", "record_to_json", "record_from_json", "replay", "write_record", "read_record"]

FORMAT = "tantrix-record"
VERSION = 1


def record_from_state(state: TantrixState) -> dict:
    """The record (a JSON-ready dict) of a game played from the start with :class:`TantrixState`."""
    if len(state.initial_bag) != 56:
        raise ParameterError("only games started by the constructor (full bag) can be recorded")
    result = None
    if state.is_terminal():
        result = {"outcome": state.outcome(), "scores": state.scores(), "returns": state.returns().tolist()}
    return {
        "format": FORMAT,
        "version": VERSION,
        "settings": {
            "num_players": state.num_players,
            "teams": state.teams,
            "colors": [COLOURS[c - 1] for c in state._colour_of_team],
            "window_radius": state.window_radius,
        },
        "bag": list(state.initial_bag),
        "moves": state.moves(),
        "result": result,
    }


def record_to_json(record: dict) -> str:
    return json.dumps(record, indent=None, separators=(",", ":"))


def record_from_json(text: str) -> dict:
    try:
        rec = json.loads(text)
    except json.JSONDecodeError as e:
        raise InvalidPositionError(f"not a JSON Tantrix record: {e}") from None
    if not isinstance(rec, dict) or rec.get("format") != FORMAT or rec.get("version") != VERSION:
        raise InvalidPositionError(f"not a {FORMAT} version {VERSION} record")
    for key in ("settings", "bag", "moves"):
        if key not in rec:
            raise InvalidPositionError(f"record lacks {key!r}")
    return rec


def replay(record: dict) -> TantrixState:
    """Play a record into a state (no random generator involved).

    Raises:
        InvalidPositionError: a malformed record, an illegal move, or a result that differs.
    """
    if isinstance(record, str):
        record = record_from_json(record)
    try:
        state = TantrixState(**record["settings"], bag=record["bag"])
    except (TypeError, ParameterError) as e:
        raise InvalidPositionError(f"bad record settings: {e}") from None
    for i, move in enumerate(record["moves"]):
        try:
            state.push(move)
        except IllegalActionError as e:
            raise InvalidPositionError(f"move {i + 1} ({move}) of the record: {e}") from None
    res = record.get("result")
    if res is not None:
        if not state.is_terminal() or state.outcome() != res.get("outcome") or state.scores() != list(res.get("scores", [])):
            raise InvalidPositionError(f"the record's result {res} differs from the replay's ({state.outcome()}, {state.scores()})")
    return state


def write_record(state_or_record, path) -> None:
    rec = state_or_record if isinstance(state_or_record, dict) else record_from_state(state_or_record)
    Path(path).write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")


def read_record(path) -> dict:
    return record_from_json(Path(path).read_text(encoding="utf-8"))
