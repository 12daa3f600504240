"""Smartrix's own (older) JSON game records.

The library-wide record format is :mod:`envs.core.records` (``record_from_state(state,
"smartrix_v0", env_kwargs)``; its ``deal`` is this format's ``start``). This module keeps reading
and writing the older ``"game": "smartrix"`` files, and registers :func:`to_common_record` so that
:func:`envs.core.records.read_record` reads them too.

A record holds the settings, how the game started, the moves in notation and the result::

    {"game": "smartrix", "version": 1,
     "settings": {"num_players": 2, "grid_limit": true, "teams": false, "window": 7},
     "start": {"deck": [12, 57, ...]},          # the deal order (70 card numbers), or
     "start": {"position": {...}},              # a hand-built position (SmartrixState.position())
     "moves": ["17r1@-1,+2", "pass", ...],
     "result": {"scores": [31, -4], "returns": [1.0, -1.0]}}   # null while the game is live

The deck order fixes every hand, the face-up card and the whole draw pile, so :func:`replay`
reproduces every state of the game exactly (the moves are then checked for legality one by one).
``settings`` may leave out keys (the constructor's defaults apply) but may not hold unknown ones;
``result`` may be absent (older records) or ``null``; when present, :func:`replay` checks it.
"""

from __future__ import annotations

import json
from pathlib import Path

from envs.core import records as _core
from envs.core.checks import is_plain_int, is_plain_number
from envs.core.errors import IllegalActionError, InvalidPositionError, ParameterError
from envs.core.records import check_result, write_json_record
from envs.core.records import few as _few
from envs.smartrix.cards import NUM_CARDS
from envs.smartrix.state import SmartrixState

__all__ = [
    "record_from_state",
    "check_record",
    "replay",
    "read_smartrix_file",
    "write_smartrix_file",
    "FORMAT_VERSION",
    "to_common_record",
]

FORMAT_VERSION = 1

_KEYS = ("game", "version", "settings", "start", "moves", "result")
_SETTINGS = ("num_players", "grid_limit", "teams", "window")
_POSITION = (
    "num_players",
    "grid_limit",
    "teams",
    "window",
    "table",
    "hands",
    "pile",
    "collected",
    "current_player",
    "out",
)
_RESULT = ("scores", "returns")


def record_from_state(state: SmartrixState) -> dict:
    """The JSON-compatible record of the game that led to ``state``."""
    if not isinstance(state, SmartrixState):
        raise TypeError(f"record_from_state needs a SmartrixState, got {type(state).__name__}")
    result = None
    if state.is_terminal():
        result = {"scores": state.scores(), "returns": state.returns().tolist()}
    return {
        "game": "smartrix",
        "version": FORMAT_VERSION,
        "settings": {
            "num_players": state.num_players,
            "grid_limit": state.grid_limit,
            "teams": state.team_game,
            "window": state.window,
        },
        "start": state.start,
        "moves": state.moves(),
        "result": result,
    }


def check_record(record) -> None:
    """Check a record's structure (not the legality of its moves; :func:`replay` does that).

    Raises:
        InvalidPositionError: naming the first key that is missing, unknown or of the wrong kind.
    """
    if not isinstance(record, dict) or record.get("game") != "smartrix":
        raise InvalidPositionError("not a Smartrix record (expected a dict with game='smartrix')")
    version = record.get("version")
    if version != FORMAT_VERSION or isinstance(version, bool):
        raise InvalidPositionError(f"unsupported record version {version!r}: expected {FORMAT_VERSION}")
    unknown = [k for k in record if k not in _KEYS]
    if unknown:
        raise InvalidPositionError(f"record has unknown keys {unknown}: expected only {list(_KEYS)}")
    settings = record.get("settings", {})
    if not isinstance(settings, dict):
        raise InvalidPositionError(
            f"record 'settings' must be an object with keys among {list(_SETTINGS)}, got {settings!r}"
        )
    unknown = [k for k in settings if k not in _SETTINGS]
    if unknown:
        raise InvalidPositionError(f"record 'settings' has unknown keys {unknown}: expected only {list(_SETTINGS)}")
    if "start" not in record:
        raise InvalidPositionError("record lacks 'start' (an object with 'deck' or 'position')")
    start = record["start"]
    if not isinstance(start, dict) or len(start) != 1 or not ("deck" in start or "position" in start):
        raise InvalidPositionError(
            f"record 'start' must be an object with exactly one key, 'deck' or 'position', got {start!r}"
        )
    if "deck" in start:
        deck = start["deck"]
        if not isinstance(deck, list) or not all(is_plain_int(x) for x in deck):
            raise InvalidPositionError(
                f"record 'start.deck' must be a list of the {NUM_CARDS} card numbers in deal order, got {deck!r}"
            )
        if sorted(deck) != list(range(1, NUM_CARDS + 1)):
            missing = sorted(set(range(1, NUM_CARDS + 1)) - set(deck))
            extra = sorted({x for x in deck if not 1 <= x <= NUM_CARDS or deck.count(x) > 1})
            raise InvalidPositionError(
                f"record 'start.deck' must be a permutation of the card numbers 1..{NUM_CARDS}; "
                f"got {len(deck)} numbers, missing {_few(missing)}, out of range or repeated {_few(extra)}"
            )
    else:
        pos = start["position"]
        if not isinstance(pos, dict):
            raise InvalidPositionError(
                f"record 'start.position' must be an object (SmartrixState.position()), got {pos!r}"
            )
        unknown = [k for k in pos if k not in _POSITION]
        if unknown:
            raise InvalidPositionError(
                f"record 'start.position' has unknown keys {unknown}: expected only {list(_POSITION)}"
            )
        if "hands" not in pos:
            raise InvalidPositionError("record 'start.position' lacks 'hands'")
        for k, v in settings.items():
            if k in pos and pos[k] != v:
                raise InvalidPositionError(f"record 'settings' {k}={v!r} contradicts 'start.position' {k}={pos[k]!r}")
    if "moves" not in record:
        raise InvalidPositionError("record lacks 'moves' (a list of moves in notation, possibly empty)")
    moves = record["moves"]
    if not isinstance(moves, list):
        raise InvalidPositionError(
            f'record \'moves\' must be a list of moves in notation (e.g. ["17r1@-1,+2", "pass"]), got {moves!r}'
        )
    for i, m in enumerate(moves):
        if not isinstance(m, str):
            raise InvalidPositionError(
                f'record \'moves\': move {i + 1} must be a string such as "17r1@-1,+2" or "pass", got {m!r}'
            )
    res = record.get("result")
    if res is None:
        return
    if not isinstance(res, dict):
        raise InvalidPositionError(f"record 'result' must be null or an object with keys {list(_RESULT)}, got {res!r}")
    unknown = [k for k in res if k not in _RESULT]
    if unknown:
        raise InvalidPositionError(f"record 'result' has unknown keys {unknown}: expected only {list(_RESULT)}")
    if "scores" in res and (not isinstance(res["scores"], list) or not all(is_plain_int(x) for x in res["scores"])):
        raise InvalidPositionError(f"record 'result.scores' must be a list of integers, got {res['scores']!r}")
    if "returns" in res and (
        not isinstance(res["returns"], list) or not all(is_plain_number(x) for x in res["returns"])
    ):
        raise InvalidPositionError(f"record 'result.returns' must be a list of numbers, got {res['returns']!r}")


def replay(record: dict, upto: int | None = None) -> SmartrixState:
    """Play a record (a dict or its JSON text; the first ``upto`` moves, default all) into a new state.

    The record's ``result``, when present, is checked once all the moves are played.

    Raises:
        InvalidPositionError: a malformed record (the message names the key and what it should
        be), or a result that differs from the replay's. IllegalActionError: an illegal move (the
        message gives its number, from 1, and why). ParameterError: ``upto`` out of range.
    """
    if isinstance(record, str):
        try:
            record = json.loads(record)
        except json.JSONDecodeError as e:
            raise InvalidPositionError(f"not a JSON Smartrix record: {e}") from None
    check_record(record)
    moves = record["moves"]
    if upto is not None and (not is_plain_int(upto) or not 0 <= upto <= len(moves)):
        raise ParameterError(f"upto must be an int from 0 to the number of moves ({len(moves)}), got {upto!r}")
    settings = record.get("settings", {})
    start = record["start"]
    if "deck" in start:
        try:
            state = SmartrixState(**settings, deck=start["deck"])
        except ParameterError as e:
            raise InvalidPositionError(f"bad record settings: {e}") from None
    else:
        try:
            state = SmartrixState.from_position(**{**settings, **start["position"]})
        except InvalidPositionError as e:
            raise InvalidPositionError(f"record 'start.position': {e}") from None
        except (ParameterError, TypeError, ValueError) as e:
            raise InvalidPositionError(f"record 'start.position' is not a valid position: {e}") from None
    for i, move in enumerate(moves[:upto] if upto is not None else moves):
        try:
            state.apply(state.string_to_action(move))
        except IllegalActionError as e:
            raise IllegalActionError(f"move {i + 1} ({move!r}) of the record is illegal: {e}") from None
    if upto is None or upto == len(moves):
        check_result(record.get("result"), state, _RESULT, len(moves))
    return state


def write_smartrix_file(state_or_record, path) -> None:
    """Write a game record as JSON: ``state_or_record`` is a :class:`SmartrixState` or a record dict.

    Raises:
        InvalidPositionError: a malformed record dict. TypeError: neither a state nor a dict.
    """
    write_json_record(state_or_record, path, SmartrixState, record_from_state, check_record)


def read_smartrix_file(path) -> dict:
    """Read a record written by :func:`write_smartrix_file` and check its structure (:func:`check_record`).

    Raises:
        InvalidPositionError: not JSON, or not a well-formed record.
    """
    try:
        rec = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise InvalidPositionError(f"{path}: not valid JSON ({e})") from None
    check_record(rec)
    return rec


def to_common_record(record) -> dict | None:
    """A Smartrix record (``"game": "smartrix"``) as a common-format record (:mod:`envs.core.records`),
    ``None`` when ``record`` is not one: env ``smartrix_v0`` with the settings as env kwargs (those
    left out taken from a hand-built start position), ``start`` as the deal, the result as it is.

    Raises:
        InvalidPositionError: a malformed Smartrix record (:func:`check_record`).
    """
    if not isinstance(record, dict) or record.get("game") != "smartrix":
        return None
    check_record(record)
    start = record["start"]
    kwargs = dict(record.get("settings", {}))
    if "position" in start:
        kwargs = {**{k: start["position"][k] for k in _SETTINGS if k in start["position"]}, **kwargs}
    out = {
        "format": _core.FORMAT,
        "version": _core.VERSION,
        "env_id": "smartrix_v0",
        "env_kwargs": kwargs,
        "seed": None,
        "deal": json.loads(json.dumps(start)),
        "moves": list(record["moves"]),
    }
    if "result" in record:
        out["result"] = record["result"]
    return out


_core.register_legacy_reader('smartrix ("game": "smartrix")', to_common_record)
