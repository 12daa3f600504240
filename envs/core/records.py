"""One JSON game-record format for every game, and the helpers the games' own record modules share.

A record names the environment, how its start was dealt, the moves in notation and the result.
It replays through the registry and the state contract only (:func:`replay`): the same record
layout, checks and error messages for Ataxx, TwixT, Double TwixT, Tantrix and Smartrix::

    {
     "format": "tabletop-record",
     "version": 1,
     "env_id": "tantrix_v0",                     # a registered id (envs.spec)
     "env_kwargs": {"num_players": 3},           # the environment's constructor arguments
     "seed": 7,                                  # the environment's reset seed, or null
     "deal": {"bag": [17, 3, 56, ...]},          # GameState.deal(): the start's chance outcome, or null
     "moves": ["t41@0,0r3", "t12@1,0r0", ...],   # GameState.moves(), in notation
     "result": {"result": "player 1 won", "termination": "...", "winners": [1],
                "returns": [-1.0, 1.0, -1.0], "scores": [12, 15, 9]},   # outcome(); null: not over
     "resignations": [[12, 2]],                  # optional: GameState.resignations, [ply, seat]
     "meta": {"players": {...}}                  # optional, free (who played, when, ...)
    }

**Seed or deal.** The *deal* is what makes a replay exact: the chance outcome that fixed the
start (Tantrix: the bag's drawing order; Smartrix: the deck's deal order, i.e. the hands, the
face-up card and the whole pile; ``null`` for Ataxx and TwixT, which have no chance). It does
not depend on a random generator, on numpy's version or on how an environment uses its seed,
so :func:`record_from_state` always stores it and :func:`replay` always uses it when present.
The *seed* is provenance only (the ``reset`` seed of the environment the game was played in,
or ``null``): it is used, as ``env.reset(seed=seed)``, only by a record of a game with chance
that has no deal (hand-written records); such a record replays exactly only with the same
library and numpy versions.

**Replay.** :func:`replay` makes the raw environment ``envs.spec(env_id).make_raw(**env_kwargs)``,
resets it (``seed``, or 0), takes its state, applies the deal (``GameState.with_deal``), then
``push``-es every move, each checked legal, and makes each resignation
(``GameState.resign(seat)``, for the games whose rules have one) after the first ``ply`` moves.
``result``, when present, is compared with the
replay's :meth:`~envs.core.state.GameState.outcome`, key by key (a partial result is checked as
far as it goes); ``"result": null`` says the game is not over, and is checked too; an absent
``result`` is not checked. ``env_kwargs`` (default ``{}``), ``seed``, ``deal`` (default
``null``), ``result``, ``resignations`` (written only when there is one) and ``meta`` may be left
out; no other keys are allowed.

**Older files.** :func:`read_record` (and :func:`replay`) also read the formats written before
this one (``"format": "tantrix-record"`` from :mod:`envs.tantrix.records`, ``"game":
"smartrix"`` from :mod:`envs.smartrix.records`), converted by the reader each game's record module
(declared in its ``GameInfo.records``) registers with :func:`register_legacy_reader` when it is
imported; the registry imports them when such a record is read. TwixT's Little Golem / T1
files and Ataxx's PGN stay in their games' own modules.

Every malformed record raises :class:`~envs.core.errors.InvalidPositionError` (a ``ValueError``)
naming the key (or the move number) and what was expected.

**Names.** The same names mean the same thing in every game:

* here, the common format: :func:`record_from_state`, :func:`replay`, :func:`read_record` (a
  file), :func:`write_record`, :func:`check_record`, :func:`import_record` (any readable file);
* a game's own record module (``envs/<game>/records.py``, declared as its ``GameInfo.records``)
  names its file functions after its format, ``read_<format>_file(path)`` and
  ``write_<format>_file(...)`` (Ataxx ``read_pgn_file``, TwixT ``read_twixt_file`` for its
  ``.tsgf`` / ``.T1`` / move-list files, Tantrix ``read_tantrix_file``, Smartrix
  ``read_smartrix_file``); its ``record_from_state``, ``replay`` and ``check_record`` (Ataxx:
  ``pgn_record_from_state``, ``AtaxxRecord.replay``) are those of its own record;
* ``to_common_record(record)`` turns the game's own record into a common one in every game
  (Ataxx: an ``AtaxxRecord``; TwixT: a ``TwixtRecord``; Tantrix, Smartrix: an older-format dict,
  ``None`` when the dict is not of that format);
* ``import_<suffix>(text)`` turns another program's file text into a common record and is what
  the game registers with :func:`register_import_format` (Ataxx ``import_pgn``, TwixT
  ``import_tsgf`` and ``import_t1``).

``envs.twixt.records.read_record`` remains as the former name of ``read_twixt_file`` (the
figure command of docs/usage/aec.md uses it).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from envs.core.checks import is_plain_int, is_plain_number
from envs.core.errors import IllegalActionError, InvalidPositionError, ParameterError, UnknownEnvError
from envs.core.state import GameState

__all__ = [
    "FORMAT",
    "VERSION",
    "record_from_state",
    "replay",
    "write_record",
    "read_record",
    "check_record",
    "record_to_json",
    "register_legacy_reader",
    "register_import_format",
    "import_formats",
    "import_record",
    "check_permutation",
    "check_result",
    "write_json_record",
    "few",
    "is_int",
    "is_number",
]

#: The ``"format"`` value of the common record format, and its ``"version"``.
FORMAT = "tabletop-record"
VERSION = 1

_KEYS = ("format", "version", "env_id", "env_kwargs", "seed", "deal", "moves", "result", "resignations", "meta")
_REQUIRED = ("format", "version", "env_id", "moves")
_RESULT_KEYS = ("result", "termination", "winners", "returns", "scores")


#: Former names of :func:`envs.core.checks.is_plain_int` and :func:`~envs.core.checks.is_plain_number`
#: (kept for existing imports: ``training.train`` reads ``is_int`` from here).
is_int = is_plain_int
is_number = is_plain_number


def few(xs: list) -> str:
    """``xs`` as text, the first 8 items only when there are more (for error messages)."""
    return str(xs) if len(xs) <= 8 else str(xs[:8])[:-1] + f", ... ({len(xs)} in all)]"


def check_permutation(seq, n: int, what: str, item: str = "number") -> list[int]:
    """Check that ``seq`` is a list of the integers ``1..n`` in some order; return it as a new list.

    Used by the games' ``with_deal`` (a Tantrix bag, a Smartrix deck).

    Raises:
        InvalidPositionError: naming ``what``: not a list of integers, or not a permutation (with
            the count, the missing numbers and those out of range or repeated).
    """
    if not isinstance(seq, list) or not all(is_plain_int(x) for x in seq):
        raise InvalidPositionError(f"{what} must be a list of the {n} {item} numbers, got {seq!r:.80}")
    if sorted(seq) != list(range(1, n + 1)):
        missing = sorted(set(range(1, n + 1)) - set(seq))
        extra = sorted({x for x in seq if not 1 <= x <= n or seq.count(x) > 1})
        raise InvalidPositionError(
            f"{what} must be a permutation of the {item} numbers 1..{n}; got {len(seq)} "
            f"numbers, missing {few(missing)}, out of range or repeated {few(extra)}"
        )
    return list(seq)


# ---------------------------------------------------------------------------------- the common format
def _result_of(state: GameState) -> dict | None:
    """The record's ``result`` for ``state``: its :meth:`outcome` as JSON, ``None`` before the end."""
    out = state.outcome()
    if out is None:
        return None
    return {
        "result": out.result,
        "termination": out.termination,
        "winners": list(out.winners),
        "returns": list(out.returns),
        "scores": None if out.scores is None else list(out.scores),
    }


def _json_copy(value, what: str):
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError) as e:
        raise ParameterError(f"{what} must be JSON data (dicts, lists, str, int, float, bool, None): {e}") from None


def record_from_state(
    state: GameState,
    env_id: str,
    env_kwargs: dict | None = None,
    seed: int | None = None,
    *,
    meta: dict | None = None,
    check: bool = True,
) -> dict:
    """The record (a JSON-ready dict, format above) of the game that led to ``state``.

    Args:
        state: a state played from the start of a game of ``env_id`` with ``env_kwargs`` (an
            environment's ``env.state``, or a rules state built with the same settings).
        env_id: its registered environment id, e.g. ``"ataxx_v0"``.
        env_kwargs: the environment's constructor arguments (``None``: the defaults), e.g.
            ``{"fen": "..."}`` or ``{"num_players": 3}``; must be JSON data (tuples become lists).
        seed: the environment's reset seed, for provenance (``None``: unknown); an int >= 0.
        meta: optional free JSON object stored as ``"meta"`` (players, date, ...).
        check: replay the record and compare it with ``state`` (``==`` and ``history``), so that a
            record that would not replay (e.g. ``env_kwargs`` other than the state's settings) is
            never written.

    Returns:
        ``dict`` with keys format, version, env_id, env_kwargs, seed, deal, moves, result (and
        meta when given); ``result`` is ``None`` while the game is not over.

    Raises:
        TypeError: ``state`` is not a :class:`~envs.core.state.GameState`.
        UnknownEnvError (a ``KeyError`` and ``ValueError``): ``env_id`` is not registered.
        ParameterError: ``env_kwargs`` not a dict of the environment's arguments or not JSON data,
            a bad ``seed`` or ``meta``, a state whose start has no deal (e.g. a Tantrix
            ``from_position``), or (``check``) a record that does not replay to ``state``.
    """
    if not isinstance(state, GameState):
        raise TypeError(f"record_from_state needs a GameState, got {type(state).__name__}")
    sp = _registry_spec(env_id)
    kwargs = {} if env_kwargs is None else env_kwargs
    sp.resolve_kwargs(kwargs)  # a dict naming only the environment's arguments
    kwargs = _json_copy(kwargs, "env_kwargs")
    if seed is not None:
        if isinstance(seed, bool) or not hasattr(seed, "__index__") or int(seed) < 0:
            raise ParameterError(f"seed must be None or an int >= 0, got {seed!r}")
        seed = int(seed)
    if meta is not None and not isinstance(meta, dict):
        raise ParameterError(f"meta must be None or a dict, got {type(meta).__name__}")
    rec = {
        "format": FORMAT,
        "version": VERSION,
        "env_id": env_id,
        "env_kwargs": kwargs,
        "seed": seed,
        "deal": _json_copy(state.deal(), "the state's deal()"),
        "moves": list(state.moves()),
        "result": _result_of(state),
    }
    if state.resignations:
        rec["resignations"] = [[int(ply), int(seat)] for ply, seat in state.resignations]
    if meta is not None:
        rec["meta"] = _json_copy(meta, "meta")
    if check:
        hint = f"are env_id {env_id!r} and env_kwargs {kwargs} the settings the state was made with?"
        try:
            again = replay(rec)
        except InvalidPositionError as e:
            raise ParameterError(f"the record of this state does not replay ({e}); {hint}") from None
        if again != state or list(again.history) != list(state.history):
            raise ParameterError(f"the record of this state replays to another position; {hint}")
    return rec


def _bad(msg: str) -> NoReturn:
    raise InvalidPositionError(msg)


def check_record(rec) -> None:
    """Check a common-format record's structure (not its moves' legality; :func:`replay` does that).

    Raises:
        InvalidPositionError: naming the first key that is missing, unknown or of the wrong kind.
    """
    if not isinstance(rec, dict):
        _bad(f"a game record must be a JSON object (dict), got {type(rec).__name__}")
    if rec.get("format") != FORMAT or rec.get("version") != VERSION or isinstance(rec.get("version"), bool):
        _bad(
            f'not a {FORMAT} version {VERSION} record: expected "format": {FORMAT!r} and "version": {VERSION}, '
            f"got format={rec.get('format')!r}, version={rec.get('version')!r}"
        )
    unknown = [k for k in rec if k not in _KEYS]
    if unknown:
        _bad(f"record has unknown keys {unknown}: expected only {list(_KEYS)}")
    for key in _REQUIRED:
        if key not in rec:
            _bad(
                f"record lacks {key!r} (a record needs {list(_REQUIRED)}; {[k for k in _KEYS if k not in _REQUIRED]} "
                f"are optional)"
            )
    if not isinstance(rec["env_id"], str) or not rec["env_id"]:
        _bad(f"record 'env_id' must be an environment id such as \"ataxx_v0\", got {rec['env_id']!r}")
    kwargs = rec.get("env_kwargs")
    if kwargs is not None and not isinstance(kwargs, dict):
        _bad(f"record 'env_kwargs' must be an object of the environment's arguments (or null), got {kwargs!r:.80}")
    seed = rec.get("seed")
    if seed is not None and (not is_plain_int(seed) or seed < 0):
        _bad(f"record 'seed' must be null or an integer >= 0, got {seed!r}")
    moves = rec["moves"]
    if not isinstance(moves, list):
        _bad(f'record \'moves\' must be a list of moves in notation (e.g. ["g2", "a7a5"]), got {moves!r:.80}')
    for i, m in enumerate(moves):
        if not isinstance(m, str):
            _bad(f"record 'moves': move {i + 1} must be a string in the game's notation, got {m!r}")
    if "meta" in rec and not isinstance(rec["meta"], dict):
        _bad(f"record 'meta' must be an object, got {rec['meta']!r:.80}")
    res_ = rec.get("resignations", [])
    if not (
        isinstance(res_, list)
        and all(isinstance(r, list) and len(r) == 2 and all(is_plain_int(x) and x >= 0 for x in r) for r in res_)
        and all(r[0] <= len(moves) for r in res_)
        and [r[0] for r in res_] == sorted(r[0] for r in res_)
    ):
        _bad(
            f"record 'resignations' must be a list of [ply, seat] pairs (ints, ply from 0 to the number of "
            f"moves, ascending), got {res_!r:.80}"
        )
    res = rec.get("result")
    if res is None:
        return
    if not isinstance(res, dict):
        _bad(f"record 'result' must be null or an object with keys among {list(_RESULT_KEYS)}, got {res!r:.80}")
    unknown = [k for k in res if k not in _RESULT_KEYS]
    if unknown:
        _bad(f"record 'result' has unknown keys {unknown}: expected only {list(_RESULT_KEYS)}")
    for k in ("result", "termination"):
        if k in res and not isinstance(res[k], str):
            _bad(f"record 'result.{k}' must be a string, got {res[k]!r}")
    if "winners" in res and (not isinstance(res["winners"], list) or not all(is_plain_int(x) for x in res["winners"])):
        _bad(f"record 'result.winners' must be a list of seat numbers, got {res['winners']!r}")
    if "returns" in res and (
        not isinstance(res["returns"], list) or not all(is_plain_number(x) for x in res["returns"])
    ):
        _bad(f"record 'result.returns' must be a list of numbers, got {res['returns']!r}")
    if (
        "scores" in res
        and res["scores"] is not None
        and (not isinstance(res["scores"], list) or not all(is_plain_int(x) for x in res["scores"]))
    ):
        _bad(f"record 'result.scores' must be null or a list of integers, got {res['scores']!r}")


# ---------------------------------------------------------------------------------- older formats
_LEGACY: dict[str, Callable[[dict], dict | None]] = {}


def register_legacy_reader(name: str, convert: Callable[[dict], dict | None]) -> None:
    """Declare a reader of an older record format (called by a game package when imported).

    Args:
        name: the older format's name, for messages (e.g. ``"tantrix-record"``).
        convert: ``convert(data) -> dict | None``: the common-format record of ``data``, or
            ``None`` when ``data`` is not of this format; raises ``InvalidPositionError`` for a
            malformed record of its format.
    """
    _LEGACY[name] = convert


#: Readers of other programs' record formats, by file suffix (see :func:`register_import_format`).
_IMPORTERS: dict[str, tuple[str, Callable[[str], dict]]] = {}


def register_import_format(suffix: str, name: str, convert: Callable[[str], dict]) -> None:
    """Declare a reader of another program's record files (called by a game package when imported),
    e.g. Little Golem's ``.tsgf`` for TwixT or PGN for Ataxx.

    Args:
        suffix: the file suffix, lower case with its dot (``".tsgf"``); one reader per suffix.
        name: the format's name for people (``"Little Golem TSGF"``).
        convert: ``convert(text) -> dict``: the common-format record of the file's text; raises
            ``InvalidPositionError`` (or another ``ValueError``) saying what is malformed.

    Raises:
        ParameterError: a suffix that is not lower case with a leading dot, ``.json`` (the
            library's own), or one already taken by another reader.
    """
    if not (isinstance(suffix, str) and suffix.startswith(".") and len(suffix) > 1 and suffix == suffix.lower()):
        raise ParameterError(f"import suffix must be lower case with its dot, e.g. '.tsgf', got {suffix!r}")
    if suffix == ".json" or (suffix in _IMPORTERS and _IMPORTERS[suffix][1] is not convert):
        raise ParameterError(f"the suffix {suffix!r} already has a reader")
    _IMPORTERS[suffix] = (name, convert)


def import_formats() -> dict[str, str]:
    """Every readable record suffix and its format's name: ``.json`` (the library's records, older
    formats included) and those the game packages registered."""
    _legacy_readers()  # the registry imports every game's record module, which registers its formats
    return {".json": "tabletop-rl JSON record", **{k: v[0] for k, v in sorted(_IMPORTERS.items())}}


def _loads(text: str, where: str):
    """``json.loads(text)``; text that is not JSON, or JSON nested deeper than Python's parser
    recurses (``'[' * 5000``: a ``RecursionError``), is an :class:`InvalidPositionError` whose
    message starts with ``where``."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise InvalidPositionError(f"{where}: not valid JSON ({e})") from None
    except RecursionError:
        raise InvalidPositionError(
            f"{where}: JSON nested too deeply (a game record is a flat object of lists and strings)"
        ) from None


def import_record(filename: str, data: bytes | str) -> dict:
    """A record file's content, whatever the readable format, as a checked common-format record
    (its moves are checked by :func:`replay`). The format is chosen by ``filename``'s suffix; the
    file is never opened here (the play room passes uploads).

    Args:
        filename: the file's name (only its suffix is used).
        data: its content, UTF-8 bytes or text.

    Raises:
        InvalidPositionError: an unknown suffix (the message lists the known ones), text that is
            not UTF-8, JSON that is malformed or nested too deeply, or a malformed record (the
            reader's message).
    """
    suffix = Path(str(filename)).suffix.lower()
    formats = import_formats()
    if suffix not in formats:
        _bad(
            f"{filename!r}: unknown record format {suffix or '(no suffix)'!r}; expected one of "
            f"{', '.join(f'{k} ({v})' for k, v in formats.items())}"
        )
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as e:
            _bad(f"{filename!r} is not UTF-8 text ({e})")
    if suffix == ".json":
        return _to_common(_loads(data, repr(filename)))
    try:
        rec = _IMPORTERS[suffix][1](data)
    except InvalidPositionError:
        raise
    except ValueError as e:
        _bad(f"{filename!r}: {e}")
    check_record(rec)
    return rec


#: The environment registry's two entry points this module uses (``spec`` and
#: ``load_record_formats``), plugged in by :mod:`envs.registry` when it is imported
#: (:func:`use_registry`). The registry sits above the games, which sit above ``envs.core``: a core
#: module reaches it through this hook, never by import.
_REGISTRY: dict[str, Callable] = {}


def use_registry(spec: Callable, load_record_formats: Callable[[], None]) -> None:
    """Plug the environment registry in: ``spec(env_id)`` returns the ``EnvSpec`` of a registered
    id (raising :class:`~envs.core.errors.UnknownEnvError`), ``load_record_formats()`` imports every
    game's record module once. Called by :mod:`envs.registry` at import (``import envs`` does it)."""
    _REGISTRY["spec"] = spec
    _REGISTRY["load_record_formats"] = load_record_formats


def _registry(name: str) -> Callable:
    if name not in _REGISTRY:  # envs/__init__.py imports envs.registry before any submodule runs
        raise RuntimeError("envs.core.records needs the environment registry: import envs first")
    return _REGISTRY[name]


def _registry_spec(env_id: str):
    return _registry("spec")(env_id)


def _legacy_readers() -> dict:
    """The registered readers, after the registry has imported every game's record module
    (:func:`envs.registry.load_record_formats`, once)."""
    _registry("load_record_formats")()
    return _LEGACY


def _to_common(data) -> dict:
    """``data`` as a checked common-format record (converting an older format)."""
    if isinstance(data, dict) and data.get("format") != FORMAT:
        for convert in _legacy_readers().values():
            out = convert(data)
            if out is not None:
                check_record(out)
                return out
        _bad(
            f'not a {FORMAT} version {VERSION} record: expected "format": {FORMAT!r} and "version": {VERSION}, '
            f"got format={data.get('format')!r}, version={data.get('version')!r} (nor an older format: "
            f"{', '.join(sorted(_LEGACY)) or 'none registered'})"
        )
    check_record(data)
    return data


# ---------------------------------------------------------------------------------- replay, files
def _check_outcome(recorded, state: GameState, moves: int) -> None:
    got = _result_of(state)
    if recorded is None:
        if got is not None:
            _bad(
                f"the record's result is null (a game not over) but the replay's game is over after {moves} moves "
                f"({got})"
            )
        return
    if got is None or any(recorded[k] != got[k] for k in recorded):
        _bad(
            f"the record's result {recorded} differs from the replay's "
            f"({got if got is not None else f'the game is not over after {moves} moves'})"
        )


def replay(record, upto: int | None = None) -> GameState:
    """Play a record into a new state, through the registry and the state contract only.

    Args:
        record: a record dict (the common format, or an older one :func:`read_record` converts)
            or its JSON text.
        upto: play only the first ``upto`` moves (default all); the result is checked only when
            every move is played.

    Returns:
        The state after the moves (a :class:`~envs.core.state.GameState` of ``env_id``'s game).

    Raises:
        InvalidPositionError: a malformed record (the message names the key and what it should
            be), an unknown ``env_id`` or bad ``env_kwargs``, a bad ``deal``, a game with chance
            with neither deal nor seed, an illegal or malformed move (its number, from 1, and
            why), or a result that differs from the replay's.
        ParameterError: ``upto`` is not an int from 0 to the number of moves.
    """
    if isinstance(record, str):
        record = _loads(record, "not a JSON game record")
    rec = _to_common(record)
    moves = rec["moves"]
    if upto is not None and (not is_plain_int(upto) or not 0 <= upto <= len(moves)):
        raise ParameterError(f"upto must be an int from 0 to the number of moves ({len(moves)}), got {upto!r}")
    try:
        sp = _registry_spec(rec["env_id"])
    except UnknownEnvError as e:
        raise InvalidPositionError(f"record 'env_id': {e}") from None
    kwargs = rec.get("env_kwargs") or {}
    try:
        env = sp.make_raw(**kwargs)
    except (TypeError, ValueError) as e:
        raise InvalidPositionError(f"record 'env_kwargs' {kwargs} are not arguments of {sp.id}: {e}") from None
    seed, deal = rec.get("seed"), rec.get("deal")
    try:
        env.reset(seed=0 if seed is None else seed)
        state = env.state
    finally:
        env.close()
    if deal is None and state.info.chance and seed is None:
        _bad(
            f"a record of {state.info.long_name} (a game with chance) needs its 'deal' (GameState.deal()) or at "
            f"least the 'seed' of its environment; both are null"
        )
    if deal is not None:
        try:
            state = state.with_deal(deal)
        except (InvalidPositionError, ParameterError) as e:
            raise InvalidPositionError(f"record 'deal': {e}") from None
    resignations = list(rec.get("resignations", []))
    last = len(moves) if upto is None else upto

    def resign_upto(ply: int) -> None:
        while resignations and resignations[0][0] <= ply:
            at, seat = resignations.pop(0)
            try:
                state.resign(seat)
            except (NotImplementedError, ValueError) as e:  # IllegalActionError is a ValueError
                raise InvalidPositionError(f"record 'resignations': seat {seat} after move {at}: {e}") from None

    for i, move in enumerate(moves[:last]):
        resign_upto(i)
        try:
            state.push(move)
        except IllegalActionError as e:
            raise InvalidPositionError(f"move {i + 1} ({move}) of the record is illegal: {e}") from None
    resign_upto(last)
    if (upto is None or upto == len(moves)) and "result" in rec:
        _check_outcome(rec["result"], state, len(moves))
    return state


def record_to_json(record: dict) -> str:
    """The record as JSON text: one line per top-level key, each value compact (ends with a newline)."""
    items = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in record.items()]
    return "{\n" + ",\n".join(items) + "\n}\n"


def write_record(
    record_or_state, path, env_id: str | None = None, env_kwargs: dict | None = None, seed: int | None = None
) -> dict:
    """Write a game record as JSON (:func:`record_to_json`) to ``path``.

    Args:
        record_or_state: a record dict (checked first; an older format is converted) or a
            :class:`~envs.core.state.GameState` (then ``env_id`` is needed, as for
            :func:`record_from_state`).
        path: the file to write (its folder must exist).
        env_id, env_kwargs, seed: for a state only, as :func:`record_from_state`.

    Returns:
        The record written (a dict).

    Raises:
        InvalidPositionError: a malformed record dict (nothing is written). ParameterError: a
        state without ``env_id``, or ``env_id``/``env_kwargs``/``seed`` given with a dict; as
        :func:`record_from_state`. TypeError: neither a state nor a dict. OSError: the file
        cannot be written.
    """
    if isinstance(record_or_state, GameState):
        if env_id is None:
            raise ParameterError(
                "write_record of a state needs its env_id (and the env_kwargs it was made with), "
                "e.g. write_record(state, path, 'tantrix_v0', {'num_players': 3})"
            )
        rec = record_from_state(record_or_state, env_id, env_kwargs, seed)
    elif isinstance(record_or_state, dict):
        if (env_id, env_kwargs, seed) != (None, None, None):
            raise ParameterError("env_id, env_kwargs and seed are for a state; a record dict holds its own")
        rec = _to_common(record_or_state)
    else:
        raise TypeError(f"write_record needs a GameState or a record dict, got {type(record_or_state).__name__}")
    Path(path).write_text(record_to_json(rec), encoding="utf-8")
    return rec


def read_record(path) -> dict:
    """Read a record file: the common format, or an older one (Tantrix ``tantrix-record``, Smartrix
    ``game: smartrix`` records), converted to the common format. The structure is checked
    (:func:`check_record`); the moves are checked by :func:`replay`.

    Raises:
        InvalidPositionError: not JSON (or nested too deeply), or not a well-formed record (the
            message starts with ``path``). OSError: the file cannot be read.
    """
    text = Path(path).read_text(encoding="utf-8")
    data = _loads(text, str(path))
    try:
        return _to_common(data)
    except InvalidPositionError as e:
        raise InvalidPositionError(f"{path}: {e}") from None


# ---------------------------------------------------------------------------------- shared by older formats
def check_result(recorded: dict | None, state, keys: tuple[str, ...], moves: int) -> None:
    """Compare an older-format record's stored ``result`` with the replayed ``state``.

    Args:
        recorded: the record's ``result`` (``None``: nothing to check).
        state: the state after replaying the record; its ``returns()`` and the methods named in
            ``keys`` other than ``"returns"`` (e.g. ``scores``, ``outcome``) give the replay's result.
        keys: the result's entries; only those present in ``recorded`` are compared.
        moves: how many moves were replayed (for the message).

    Raises:
        InvalidPositionError: the recorded result differs, or the game is not over.
    """
    if recorded is None:
        return
    got = None
    if state.is_terminal():
        got = {k: state.returns().tolist() if k == "returns" else getattr(state, k)() for k in keys}
        if got.get("outcome") is not None:  # an Outcome is stored as its text
            got["outcome"] = str(got["outcome"])
    if got is None or any(k in recorded and recorded[k] != got[k] for k in keys):
        replay = got if got is not None else f"the game is not over after {moves} moves"
        raise InvalidPositionError(f"the record's result {recorded} differs from the replay's ({replay})")


def write_json_record(state_or_record, path, state_class, record_from_state, check_record) -> None:
    """Write ``state_or_record`` (a ``state_class`` state or a record dict, checked first) as JSON
    (the older per-game formats).

    Raises:
        InvalidPositionError: a malformed record dict. TypeError: neither a state nor a dict.
    """
    if isinstance(state_or_record, dict):
        check_record(state_or_record)
        rec = state_or_record
    elif isinstance(state_or_record, state_class):
        rec = record_from_state(state_or_record)
    else:
        raise TypeError(
            f"write_record needs a {state_class.__name__} or a record dict, got {type(state_or_record).__name__}"
        )
    Path(path).write_text(json.dumps(rec, indent=1) + "\n", encoding="utf-8")
