"""Tantrix's own (older) JSON game records: settings, the bag's drawing order and the moves.

The library-wide record format is :mod:`envs.core.records` (``record_from_state(state,
"tantrix_v0", env_kwargs)``; its ``deal`` is this format's ``bag``). This module keeps reading
and writing the older ``tantrix-record`` files, and registers :func:`to_common_record` so that
:func:`envs.core.records.read_record` reads them too.

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

``result`` is ``null`` for an unfinished game; :func:`replay` checks it when present. Malformed
records (missing, unknown or ill-typed keys, a bag that is not an order of the 56 tiles, moves that
are not a list of strings) raise :class:`~envs.core.errors.InvalidPositionError`.
"""

from __future__ import annotations

import json
from pathlib import Path

from envs.core import records as _core
from envs.core.checks import is_plain_int, is_plain_number
from envs.core.errors import IllegalActionError, InvalidPositionError, ParameterError
from envs.core.records import check_permutation, check_result, write_json_record
from envs.tantrix.state import TantrixState
from envs.tantrix.tiles import COLOURS, NUM_TILES

__all__ = [
    "record_from_state",
    "record_to_json",
    "record_from_json",
    "check_record",
    "replay",
    "write_tantrix_file",
    "read_tantrix_file",
    "to_common_record",
]

FORMAT = "tantrix-record"
VERSION = 1


def record_from_state(state: TantrixState) -> dict:
    """The record (a JSON-ready dict) of a game played from the start with :class:`TantrixState`."""
    if len(state.initial_bag) != 56:
        raise ParameterError("only games started by the constructor (full bag) can be recorded")
    result = None
    if state.is_terminal():
        result = {"outcome": str(state.outcome()), "scores": state.scores(), "returns": state.returns().tolist()}
    return {
        "format": FORMAT,
        "version": VERSION,
        "settings": {
            "num_players": state.num_players,
            "teams": state.team_game,
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
    """Parse a record's JSON text and check its structure (:func:`check_record`).

    Raises:
        InvalidPositionError: not JSON, or not a well-formed record.
    """
    try:
        rec = json.loads(text)
    except (json.JSONDecodeError, TypeError) as e:
        raise InvalidPositionError(f"not a JSON Tantrix record: {e}") from None
    check_record(rec)
    return rec


_KEYS = ("format", "version", "settings", "bag", "moves", "result")
_SETTINGS = ("num_players", "teams", "colors", "window_radius")
_RESULT = ("outcome", "scores", "returns")


def check_record(rec) -> None:
    """Check a record's structure (not the legality of its moves; :func:`replay` does that).

    Raises:
        InvalidPositionError: naming the first key that is missing, unknown or of the wrong kind.
    """
    if not isinstance(rec, dict):
        raise InvalidPositionError(f"a {FORMAT} record must be a JSON object (dict), got {type(rec).__name__}")
    if rec.get("format") != FORMAT or rec.get("version") != VERSION or isinstance(rec.get("version"), bool):
        raise InvalidPositionError(
            f'not a {FORMAT} version {VERSION} record: expected "format": {FORMAT!r} and '
            f'"version": {VERSION}, got format={rec.get("format")!r}, version={rec.get("version")!r}'
        )
    unknown = [k for k in rec if k not in _KEYS]
    if unknown:
        raise InvalidPositionError(f"record has unknown keys {unknown}: expected only {list(_KEYS)}")
    for key in ("settings", "bag", "moves"):
        if key not in rec:
            raise InvalidPositionError(f"record lacks {key!r} (a record needs {list(_KEYS[:5])}; 'result' is optional)")
    settings = rec["settings"]
    if not isinstance(settings, dict):
        raise InvalidPositionError(f"record 'settings' must be an object with keys {list(_SETTINGS)}, got {settings!r}")
    unknown = [k for k in settings if k not in _SETTINGS]
    if unknown:
        raise InvalidPositionError(f"record 'settings' has unknown keys {unknown}: expected only {list(_SETTINGS)}")
    if "num_players" not in settings:
        raise InvalidPositionError("record 'settings' lacks 'num_players'")
    check_permutation(rec["bag"], NUM_TILES, "record 'bag'", "tile")  # the tiles in drawing order
    moves = rec["moves"]
    if not isinstance(moves, list):
        raise InvalidPositionError(
            f"record 'moves' must be a list of moves in notation (e.g. [\"t41@0,0r3\"]), got {moves!r}"
        )
    for i, m in enumerate(moves):
        if not isinstance(m, str):
            raise InvalidPositionError(
                f"record 'moves': move {i + 1} must be a string such as \"t41@0,0r3\", got {m!r}"
            )
    res = rec.get("result")
    if res is None:
        return
    if not isinstance(res, dict):
        raise InvalidPositionError(f"record 'result' must be null or an object with keys {list(_RESULT)}, got {res!r}")
    unknown = [k for k in res if k not in _RESULT]
    if unknown:
        raise InvalidPositionError(f"record 'result' has unknown keys {unknown}: expected only {list(_RESULT)}")
    if "outcome" in res and not isinstance(res["outcome"], str):
        raise InvalidPositionError(f"record 'result.outcome' must be a string, got {res['outcome']!r}")
    if "scores" in res and (not isinstance(res["scores"], list) or not all(is_plain_int(x) for x in res["scores"])):
        raise InvalidPositionError(f"record 'result.scores' must be a list of integers, got {res['scores']!r}")
    if "returns" in res and (
        not isinstance(res["returns"], list) or not all(is_plain_number(x) for x in res["returns"])
    ):
        raise InvalidPositionError(f"record 'result.returns' must be a list of numbers, got {res['returns']!r}")


def replay(record: dict) -> TantrixState:
    """Play a record (a dict or its JSON text) into a state (no random generator involved).

    Raises:
        InvalidPositionError: a malformed record (the message names the key and what it should
        be), an illegal move (its number, from 1, and why), or a result that differs.
    """
    if isinstance(record, str):
        record = record_from_json(record)
    check_record(record)
    try:
        state = TantrixState(**record["settings"], bag=record["bag"])
    except ParameterError as e:
        raise InvalidPositionError(f"bad record settings: {e}") from None
    for i, move in enumerate(record["moves"]):
        try:
            state.push(move)
        except IllegalActionError as e:
            raise InvalidPositionError(f"move {i + 1} ({move}) of the record is illegal: {e}") from None
    check_result(record.get("result"), state, _RESULT, len(record["moves"]))
    return state


def write_tantrix_file(state_or_record, path) -> None:
    """Write a game record as JSON: ``state_or_record`` is a :class:`TantrixState` or a record dict.

    Raises:
        InvalidPositionError: a malformed record dict. TypeError: neither a state nor a dict.
    """
    write_json_record(state_or_record, path, TantrixState, record_from_state, check_record)


def read_tantrix_file(path) -> dict:
    """Read a ``tantrix-record`` file written by :func:`write_tantrix_file` and check its structure
    (:func:`record_from_json`).

    Raises:
        InvalidPositionError: not JSON, or not a well-formed record. OSError: the file cannot be read.
    """
    return record_from_json(Path(path).read_text(encoding="utf-8"))


def to_common_record(rec) -> dict | None:
    """A ``tantrix-record`` as a common-format record (:mod:`envs.core.records`), ``None`` when
    ``rec`` is not a ``tantrix-record``: env ``tantrix_v0`` with the settings as env kwargs, the
    bag as the deal ``{"bag": [...]}``, the result's ``outcome`` as ``result``.

    Raises:
        InvalidPositionError: a malformed ``tantrix-record`` (:func:`check_record`).
    """
    if not isinstance(rec, dict) or rec.get("format") != FORMAT:
        return None
    check_record(rec)
    out = {
        "format": _core.FORMAT,
        "version": _core.VERSION,
        "env_id": "tantrix_v0",
        "env_kwargs": dict(rec["settings"]),
        "seed": None,
        "deal": {"bag": list(rec["bag"])},
        "moves": list(rec["moves"]),
    }
    if "result" in rec:
        res = rec["result"]
        out["result"] = None if res is None else {("result" if k == "outcome" else k): v for k, v in res.items()}
    return out


_core.register_legacy_reader(FORMAT, to_common_record)
