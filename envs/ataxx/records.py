"""Ataxx game records in PGN, as the Ataxx engine community writes them.

:func:`write_pgn` turns a game (an :class:`~envs.ataxx.state.AtaxxState` with the moves it was
played through, an :class:`AtaxxRecord`, or a list of moves) into PGN text; :func:`read_pgn`
reads one game back into an :class:`AtaxxRecord`, replaying and checking every move with this
project's rules core; :func:`iter_pgn` reads every game of a text with several.
:func:`read_pgn_file` / :func:`read_pgn_file_games` / :func:`write_pgn_file` do the same with files.

Format
------
PGN (the chess "Portable Game Notation", 1994 standard) with Ataxx moves, as python-ataxx 2.2
(``ataxx.pgn``) and cuteataxx (kz04px's engine match runner) write it::

    [Event "?"]
    [Site "?"]
    [Date "????.??.??"]
    [Round "?"]
    [White "?"]
    [Black "?"]
    [Result "1-0"]
    [SetUp "1"]
    [FEN "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1"]

    1. f2 a1c3 2. g1e3 b1 ... 31. 0000 d4 1-0

* **Moves** in UAI notation: a clone by its destination (``f2``), a jump by source and
  destination (``a1c3``), a pass ``0000`` (see :mod:`envs.ataxx.state`). Suffix annotations
  (``f2!``, ``a1c3?!``) are accepted and dropped.
* **Sides.** ``x`` (player 0, moves first) is *Black* and ``o`` (player 1) is *White*, as in
  libataxx / python-ataxx (``ataxx.BLACK`` is ``x``): the ``Black`` tag names player 0.
* **Result**: ``1-0`` x (Black) won, ``0-1`` o (White) won, ``1/2-1/2`` a draw, ``*`` unknown or
  unfinished (python-ataxx's ``Board.result()``, cuteataxx's ``BlackWin -> "1-0"``). It ends the
  movetext and is repeated in the ``Result`` tag.
* **Start position**: the ``FEN`` tag (with ``SetUp "1"``) when the game did not start from the
  standard position ``x5o/7/7/7/7/7/o5x x 0 1``. cuteataxx writes ``FEN`` for every game and no
  ``SetUp``; both forms are read.
* **Move numbers** count full moves (x then o) from the FEN's fullmove number; a game whose first
  mover is ``o`` starts with ``N...``. Readers ignore them (python-ataxx writes ``1.`` whatever the
  FEN says).

Tags written, in this order: the Seven Tag Roster (``Event``, ``Site``, ``Date``, ``Round``,
``White``, ``Black``, ``Result``; ``"?"`` / ``"????.??.??"`` when unknown), then ``SetUp`` and
``FEN`` for a non-standard start, then ``HalfmoveClock "off"`` for a game played with the 100-ply
draw rule switched off (``AtaxxState(halfmove_clock=False)``; this project's own tag, other
readers keep it as an unknown tag and replay with the rule on), then the caller's other tags in
their order. Tag values are escaped (``\\"``, ``\\\\``) as the PGN standard says.

The movetext is written on **one line** (python-ataxx does the same): python-ataxx's reader
restarts at the root of the game tree on every movetext line, so a game wrapped at 80 columns
would read back as a one-line game plus variations. Several games in one text are separated by a
blank line; every game starts with its ``Event`` tag, which python-ataxx's ``PGNIterator`` uses to
split a file.

Reading follows the PGN import rules: tags ``[Name "value"]``; ``{...}`` and ``; ...`` comments,
``%`` escape lines, NAGs (``$1``) and recursive variations ``( ... )`` are skipped (only the main
line is replayed); a game ends at its termination marker, at the next tag, or at the end of the
text. Also read: cuteataxx's ``FinalFEN`` tag, whose board and side to move must match the replay.

Errors (the message names the game, from 1, and the line):

* :class:`~envs.core.errors.InvalidPositionError`: malformed PGN (a bad tag, an unclosed comment or
  variation, a stray character, a bad ``FEN``), a ``Result`` tag that differs from the termination
  marker, or a result that contradicts a finished final position (a ``1-0`` where o has won).
  A result on a position that is not over is accepted: games end by adjudication, resignation or
  time forfeit too (cuteataxx writes an ``Adjudicated`` tag then).
* :class:`~envs.core.errors.IllegalActionError` (or the subclass the rules core raises for
  malformed text): a move that is not Ataxx notation or is illegal where it stands; the message
  gives the ply (from 1), the move number as written in PGN (``12.`` / ``12...``) and the move.

Importing this module registers ``.pgn`` with :func:`envs.core.records.register_import_format`
(:func:`import_pgn`), so ``envs.core.records.import_record("game.pgn", text)`` (the play
room's uploads) reads one Ataxx PGN game as a common JSON record.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import envs.core.records as _core
from envs.ataxx.state import START_FEN, AtaxxState
from envs.core.errors import IllegalActionError, InvalidPositionError, ParameterError

__all__ = [
    "AtaxxRecord",
    "RESULTS",
    "ROSTER",
    "iter_pgn",
    "read_pgn",
    "write_pgn",
    "read_pgn_file",
    "read_pgn_file_games",
    "write_pgn_file",
    "pgn_record_from_state",
    "to_common_record",
    "import_pgn",
    "replay",
]

#: The Seven Tag Roster, in the order PGN writes it.
ROSTER = ("Event", "Site", "Date", "Round", "White", "Black", "Result")
_ROSTER_DEFAULTS = {"Event": "?", "Site": "?", "Date": "????.??.??", "Round": "?", "White": "?", "Black": "?"}
#: Game termination markers: x won, o won, draw, unknown / unfinished.
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
#: Tags :func:`write_pgn` derives from the game (the caller cannot set them through ``tags``).
_DERIVED = ("Result", "SetUp", "FEN", "HalfmoveClock")
_TAG_NAME = re.compile(r"[A-Za-z0-9_]+")


@dataclass
class AtaxxRecord:
    """One game read from (or written to) PGN.

    Attributes:
        moves: the main line in UAI notation, lower case (``'f2'``, ``'a1c3'``, ``'0000'``).
        start_fen: the start position as a full FEN (board, side, halfmove clock, fullmove number).
        result: the game termination marker, one of :data:`RESULTS`.
        tags: every tag pair as read, in file order (``Result``, ``FEN``... included); on writing,
            the derived tags (``Result``, ``SetUp``, ``FEN``, ``HalfmoveClock``) come from the other
            fields instead.
        halfmove_clock: whether the 100-ply draw rule applies (``False`` when the file has
            ``[HalfmoveClock "off"]``).
    """

    moves: list[str] = field(default_factory=list)
    start_fen: str = START_FEN
    result: str = "*"
    tags: dict[str, str] = field(default_factory=dict)
    halfmove_clock: bool = True

    def replay(self) -> AtaxxState:
        """A new :class:`AtaxxState` at ``start_fen`` with every move played (``history`` holds
        their actions).

        Raises:
            InvalidPositionError: a malformed ``start_fen``. IllegalActionError: a malformed or
            illegal move (the message names the ply and the move).
        """
        _, state, _ = _replay(self.moves, self.start_fen, self.halfmove_clock, where="")
        return state


def replay(record: AtaxxRecord) -> AtaxxState:
    """:meth:`AtaxxRecord.replay` (the name the other games' record modules use)."""
    return record.replay()


# ---------------------------------------------------------------------------- helpers
def _start_state(fen: str, halfmove_clock: bool, prefix: str) -> AtaxxState:
    try:
        return AtaxxState(fen, halfmove_clock=halfmove_clock)
    except InvalidPositionError as e:
        raise InvalidPositionError(f"{prefix}{e}") from None


def _move_label(state: AtaxxState, ply: int) -> str:
    """``'ply 7 (move 4.)'`` / ``'ply 8 (move 4...)'``: the ply from 1 and the PGN move number."""
    dots = "." if state.turn == 0 else "..."
    return f"ply {ply} (move {state.fullmove}{dots})"


def _play(state: AtaxxState, move, ply: int, where: str) -> str:
    """Play one move (text or action) on ``state``; return it in notation. Errors keep their class
    and gain the game, ply and move number."""
    label = _move_label(state, ply)
    try:
        if isinstance(move, str):
            action = state.string_to_action(move)
        else:
            action = move
        text = state.action_to_string(action)
        state.apply(action)
    except IllegalActionError as e:
        raise type(e)(f"{where}{label} {move!r}: {e}") from None
    return text


def _replay(moves, fen: str, halfmove_clock: bool, where: str) -> tuple[str, AtaxxState, list[str]]:
    """(the start FEN in full, the final state, the moves in notation)."""
    state = _start_state(fen, halfmove_clock, f"{where}start FEN: ")
    start = state.fen()
    texts = [_play(state, m, i + 1, where) for i, m in enumerate(moves)]
    return start, state, texts


def _result_of(state: AtaxxState) -> str:
    """The PGN result of ``state`` by the rules: ``*`` while the game is on."""
    if not state.is_terminal():
        return "*"
    r = state.returns()
    return "1-0" if r[0] > r[1] else "0-1" if r[1] > r[0] else "1/2-1/2"


def _check_result(result: str, state: AtaxxState, where: str) -> None:
    """A declared result must agree with a finished position (any result on an unfinished one)."""
    actual = _result_of(state)
    if actual != "*" and result not in ("*", actual):
        raise InvalidPositionError(
            f"{where}the result {result!r} contradicts the final position {state.fen()!r}, where the game is "
            f"over with {actual} (x {state.stone_counts()[0]} stones, o {state.stone_counts()[1]})"
        )


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


# ---------------------------------------------------------------------------- writing
def _check_tags(tags) -> dict[str, str]:
    if tags is None:
        return {}
    if not isinstance(tags, dict):
        raise ParameterError(f"tags must be a dict of tag name -> value, got {type(tags).__name__}")
    out = {}
    for k, v in tags.items():
        if not isinstance(k, str) or not _TAG_NAME.fullmatch(k):
            raise ParameterError(f"tag name {k!r} is not a PGN tag name: expected letters, digits and '_' only")
        if k in _DERIVED:
            raise ParameterError(
                f"tag {k!r} is derived from the game: pass result= or start_fen= instead "
                f"(the derived tags are {list(_DERIVED)})"
            )
        if not isinstance(v, str) or "\n" in v or "\r" in v:
            raise ParameterError(f"tag {k!r}: the value must be a one-line string, got {v!r}")
        out[k] = v
    return out


def _finish(start: str, final: AtaxxState, moves: list[str], tags: dict, result) -> AtaxxRecord:
    if result is None:
        result = _result_of(final)
    elif result not in RESULTS:
        raise ParameterError(f"result must be one of {list(RESULTS)}, got {result!r}")
    _check_result(result, final, "")
    return AtaxxRecord(moves=moves, start_fen=start, result=result, tags=tags, halfmove_clock=final.halfmove_clock)


def pgn_record_from_state(
    state: AtaxxState, tags: dict | None = None, *, start_fen: str | None = None, result: str | None = None
) -> AtaxxRecord:
    """The PGN record of the game that led to ``state``. (Not named ``record_from_state``: that name
    is the games' JSON record, which ``training.play`` looks up in every ``records`` module.)

    Args:
        state: a state whose ``history`` holds every action played since ``start_fen``.
        tags: extra tag pairs (``White``, ``Black``, ``Event``, ...), not the derived ones
            (``Result``, ``SetUp``, ``FEN``, ``HalfmoveClock``).
        start_fen: the FEN the state was created from; default the standard start. (A state does
            not keep its start position, so a game from any other position needs it.)
        result: the result to declare, one of :data:`RESULTS`; default the rules' result (``*``
            while the game is on). A finished game accepts only its own result or ``*``; an
            unfinished one any (adjudications, resignations).

    Raises:
        ParameterError: ``state`` is not an :class:`AtaxxState`; its history does not lead from
            ``start_fen`` to its position; a bad tag name or value; a result outside :data:`RESULTS`.
        InvalidPositionError: a malformed ``start_fen``, or a result the final position contradicts.
    """
    if not isinstance(state, AtaxxState):
        raise ParameterError(f"pgn_record_from_state needs an AtaxxState, got {type(state).__name__}")
    fen = START_FEN if start_fen is None else start_fen
    tags = _check_tags(tags)
    try:
        start, final, moves = _replay(state.history, fen, state.halfmove_clock, where="")
    except IllegalActionError as e:
        raise ParameterError(
            f"the state's history is not a game from {fen!r} ({e}); pass start_fen= the FEN the state was created from"
        ) from None
    if final.fen() != state.fen():
        raise ParameterError(
            f"the state's history played from {fen!r} reaches {final.fen()!r}, not the state's "
            f"position {state.fen()!r}: pass start_fen= the FEN the state was created from"
        )
    return _finish(start, final, moves, tags, result)


def _to_record(game, tags, start_fen, result) -> AtaxxRecord:
    if isinstance(game, AtaxxState):
        return pgn_record_from_state(game, tags, start_fen=start_fen, result=result)
    if isinstance(game, AtaxxRecord):
        if start_fen is not None:
            raise ParameterError("start_fen= is for a state or a move list; a record has its own start_fen")
        merged = _check_tags({k: v for k, v in game.tags.items() if k not in _DERIVED})
        merged.update(_check_tags(tags))
        start, final, moves = _replay(game.moves, game.start_fen, game.halfmove_clock, where="")
        return _finish(start, final, moves, merged, game.result if result is None else result)
    if isinstance(game, (str, bytes)) or not isinstance(game, Sequence) and not isinstance(game, np.ndarray):
        raise ParameterError(
            f"write_pgn needs an AtaxxState, an AtaxxRecord or a list of moves (UAI strings or "
            f"action ints), got {type(game).__name__}"
        )
    tags = _check_tags(tags)
    start, final, moves = _replay(list(game), START_FEN if start_fen is None else start_fen, True, where="")
    return _finish(start, final, moves, tags, result)


def _movetext(record: AtaxxRecord) -> str:
    _, side, _, full = record.start_fen.split()
    turn, fullmove = (0 if side == "x" else 1), int(full)
    parts = []
    for i, move in enumerate(record.moves):
        if turn == 0:
            parts.append(f"{fullmove}.")
        elif i == 0:
            parts.append(f"{fullmove}...")
        parts.append(move)
        if turn == 1:
            fullmove += 1
        turn = 1 - turn
    parts.append(record.result)
    return " ".join(parts)


def write_pgn(game, tags: dict | None = None, *, start_fen: str | None = None, result: str | None = None) -> str:
    """One game as PGN text (tags, a blank line, the movetext on one line, a final newline).

    Args:
        game: an :class:`AtaxxState` (its ``history`` is the game, played from ``start_fen``), an
            :class:`AtaxxRecord` (its tags are kept, ``tags`` added over them), or a sequence of
            moves (UAI strings or action ints) played from ``start_fen``.
        tags: tag pairs to write after the derived ones (roster tags replace their ``"?"``).
        start_fen: the start position for a state or a move list; default the standard start.
        result: one of :data:`RESULTS`; default the game's (the rules' result for a state or move
            list, the record's own for a record).

    Returns:
        ``str``: the PGN, e.g. ``'[Event "?"]\\n...\\n\\n1. f2 a1c3 *\\n'``. Concatenating several
        games' texts, separated by a blank line, gives a multi-game PGN file.

    Raises:
        ParameterError: see :func:`pgn_record_from_state`; ``game`` of another type.
        InvalidPositionError: a malformed start FEN; a result the final position contradicts.
        IllegalActionError: a malformed or illegal move in a move list or record (the message
            names the ply, the move number and the move).
    """
    rec = _to_record(game, tags, start_fen, result)
    head = {k: rec.tags.get(k, _ROSTER_DEFAULTS[k]) for k in ROSTER[:-1]}
    head["Result"] = rec.result
    if rec.start_fen != START_FEN:
        head["SetUp"] = "1"
        head["FEN"] = rec.start_fen
    if not rec.halfmove_clock:
        head["HalfmoveClock"] = "off"
    head.update((k, v) for k, v in rec.tags.items() if k not in head)
    lines = [f'[{k} "{_escape(v)}"]' for k, v in head.items()]
    return "\n".join(lines) + "\n\n" + _movetext(rec) + "\n"


# ---------------------------------------------------------------------------- reading
_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<tag>\[\s*(?P<name>[A-Za-z0-9_]+)\s+"(?P<value>(?:[^"\\\n]|\\.)*)"\s*\])
  | (?P<badtag>\[[^\n]*)
  | (?P<comment>\{[^}]*\})
  | (?P<opencomment>\{)
  | (?P<line_comment>;[^\n]*)
  | (?P<open>\()
  | (?P<close>\))
  | (?P<nag>\$\d+)
  | (?P<result>(?:1-0|0-1|1/2-1/2|\*)(?![A-Za-z0-9_/\-]))
  | (?P<number>\d+\.+)
  | (?P<move>[A-Za-z0-9][A-Za-z0-9_+#=:/\-]*)(?P<suffix>[!?]*)
  | (?P<other>.)
""",
    re.VERBOSE,
)


@dataclass
class _Game:
    line: int
    tags: dict = field(default_factory=dict)
    tag_lines: dict = field(default_factory=dict)
    moves: list = field(default_factory=list)  # (move text, line)
    marker: str | None = None
    has_movetext: bool = False


def _scan(text: str) -> Iterator[_Game]:
    """Split ``text`` into games (tags, main-line move tokens, marker); structure errors only."""
    if not isinstance(text, str):
        raise InvalidPositionError(f"PGN text must be a string, got {type(text).__name__}")
    # Escape lines: '%' in the first column, skipped whole.
    text = "\n".join("" if ln.startswith("%") else ln for ln in text.splitlines())
    game: _Game | None = None
    number = 0
    depth = 0
    depth_line = 0
    pos, line = 0, 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        assert m is not None  # (?P<other>.) and \s+ match any character
        kind, tok = m.lastgroup, m.group(0)
        if kind == "suffix":
            kind = "move"
        where = f"game {number + (game is None)}, line {line}: "
        if kind == "tag":
            if game is not None and game.has_movetext:  # a new game without a termination marker
                if depth:
                    raise InvalidPositionError(f"game {number}, line {depth_line}: variation '(' is never closed")
                yield game
                game = None
            if game is None:
                number += 1
                game = _Game(line=line)
            name = m.group("name")
            if name in game.tags:
                raise InvalidPositionError(
                    f"game {number}, line {line}: tag {name!r} appears twice (first on line {game.tag_lines[name]})"
                )
            game.tags[name] = re.sub(r"\\(.)", r"\1", m.group("value"))
            game.tag_lines[name] = line
        elif kind in ("badtag", "opencomment", "other"):
            what = {
                "badtag": f'malformed tag {tok.strip()!r}: expected [Name "value"] on one line',
                "opencomment": "comment '{' is never closed with '}'",
                "other": f"unexpected character {tok!r} in the movetext",
            }[kind]
            raise InvalidPositionError(where + what)
        elif kind in ("ws", "comment", "line_comment", "nag", "number"):
            pass
        else:
            if game is None:
                number += 1
                game = _Game(line=line)
            game.has_movetext = True
            if kind == "open":
                if depth == 0:
                    if not game.moves:
                        raise InvalidPositionError(where + "a variation '(' before the first move")
                    depth_line = line
                depth += 1
            elif kind == "close":
                if depth == 0:
                    raise InvalidPositionError(where + "')' closes no variation")
                depth -= 1
            elif kind == "result":
                if depth:
                    raise InvalidPositionError(
                        where + f"result {tok!r} inside a variation (opened on line "
                        f"{depth_line}); a game ends outside all variations"
                    )
                game.marker = tok
                yield game
                game = None
            elif depth == 0:  # a move of the main line (variations are skipped)
                game.moves.append((m.group("move"), line))
        line += tok.count("\n")
        pos = m.end()
    if depth:
        raise InvalidPositionError(f"game {number}, line {depth_line}: variation '(' is never closed")
    if game is not None:
        yield game


def _build(game: _Game, number: int) -> AtaxxRecord:
    where = f"game {number} (line {game.line}): "
    tags = game.tags
    fen = tags.get("FEN")
    if fen is None and tags.get("SetUp", "0").strip() == "1":
        raise InvalidPositionError(where + 'tag SetUp "1" but no FEN tag: the start position is unknown')
    clock = tags.get("HalfmoveClock", "on").strip().lower()
    if clock not in ("on", "off"):
        raise InvalidPositionError(where + f'tag HalfmoveClock must be "on" or "off", got {tags["HalfmoveClock"]!r}')
    state = _start_state(START_FEN if fen is None else fen, clock == "on", where + "FEN tag: ")
    start = state.fen()
    moves = []
    for i, (move, line) in enumerate(game.moves):
        moves.append(_play(state, move, i + 1, f"game {number}, line {line}, "))
    declared = tags.get("Result")
    if declared is not None and declared not in RESULTS:
        raise InvalidPositionError(where + f"tag Result must be one of {list(RESULTS)}, got {declared!r}")
    if declared is not None and game.marker is not None and declared != game.marker:
        raise InvalidPositionError(
            where + f"tag Result {declared!r} differs from the movetext's result {game.marker!r}"
        )
    result = game.marker or declared or "*"
    _check_result(result, state, where)
    final = tags.get("FinalFEN")
    if final is not None and final.split()[:2] != state.fen().split()[:2]:
        raise InvalidPositionError(
            where + f"tag FinalFEN {final!r} differs from the replay's final position "
            f"{state.fen()!r} (board and side to move)"
        )
    return AtaxxRecord(moves=moves, start_fen=start, result=result, tags=dict(tags), halfmove_clock=clock == "on")


def iter_pgn(text: str) -> Iterator[AtaxxRecord]:
    """Every game of a PGN text, in order, each replayed and checked (see the module docstring).

    Yields:
        :class:`AtaxxRecord`, one per game.

    Raises:
        InvalidPositionError, IllegalActionError: at the first bad game (its number, from 1, and
        the line are in the message); the games before it have been yielded.
    """
    for number, game in enumerate(_scan(text), 1):
        yield _build(game, number)


def read_pgn(text: str) -> AtaxxRecord:
    """The one game of a PGN text (use :func:`iter_pgn` for several).

    Raises:
        InvalidPositionError: no game, or more than one; malformed PGN (see the module docstring).
        IllegalActionError: a malformed or illegal move.
    """
    games = list(iter_pgn(text))
    if len(games) != 1:
        raise InvalidPositionError(
            f"expected one game in the PGN text, found {len(games)}"
            + ("; iter_pgn() or read_pgn_file_games() read several" if games else "")
        )
    return games[0]


# ---------------------------------------------------------------------------- files
def read_pgn_file(path) -> AtaxxRecord:
    """The one game of a PGN file (UTF-8). Errors as :func:`read_pgn`."""
    return read_pgn(Path(path).read_text(encoding="utf-8"))


def read_pgn_file_games(path) -> list[AtaxxRecord]:
    """Every game of a PGN file (UTF-8), in order. Errors as :func:`iter_pgn`."""
    return list(iter_pgn(Path(path).read_text(encoding="utf-8")))


def write_pgn_file(
    game,
    path,
    tags: dict | None = None,
    *,
    start_fen: str | None = None,
    result: str | None = None,
    append: bool = False,
) -> None:
    """Write one game to a PGN file (UTF-8); ``append=True`` adds it after the games already there,
    separated by a blank line (as cuteataxx does). Arguments and errors as :func:`write_pgn`; the
    file is not touched when an error is raised."""
    text = write_pgn(game, tags, start_fen=start_fen, result=result)
    p = Path(path)
    if append and p.exists() and p.stat().st_size:
        old = p.read_text(encoding="utf-8")
        text = old.rstrip("\n") + "\n\n" + text
    p.write_text(text, encoding="utf-8")


# ---------------------------------------------------------------------------- the common JSON record
def import_pgn(text: str) -> dict:
    """The one game of a PGN text as a record of the common JSON format: :func:`to_common_record`
    of :func:`read_pgn`. Registered for the suffix ``.pgn`` (see the module docstring).

    Raises: as :func:`read_pgn` and :func:`to_common_record`.
    """
    return to_common_record(read_pgn(text))


def to_common_record(rec: AtaxxRecord) -> dict:
    """A PGN game (an :class:`AtaxxRecord`) as a record of the common JSON format (:mod:`envs.core.records`):
    env id ``ataxx_v0``; ``env_kwargs`` ``{"fen": start}`` for a game that does not start from the
    standard position (the environment starts from any FEN the rules core accepts) and
    ``{"halfmove_clock": False}`` for a ``[HalfmoveClock "off"]`` game; the moves in UAI notation;
    ``result`` the replay's :meth:`~envs.core.state.GameState.outcome` (``null`` for a game not over
    by the rules, e.g. adjudicated); ``meta`` ``{"imported_from": "PGN", "pgn_result": "1-0",
    "pgn_tags": {...every tag as read...}}``.

    Args:
        rec: the game, as :func:`read_pgn` returns it.

    Returns:
        ``dict``: the record, checked by replaying it (``record_from_state(..., check=True)``).

    Raises:
        InvalidPositionError: a start the environment cannot take, a result the final position
            contradicts, or a record that does not replay.
        IllegalActionError: a malformed or illegal move (the ply, move number and move named).
    """
    state = rec.replay()
    kwargs: dict = {}
    if rec.start_fen != START_FEN:
        kwargs["fen"] = rec.start_fen
    if not rec.halfmove_clock:
        kwargs["halfmove_clock"] = False
    meta = {"imported_from": "PGN", "pgn_result": rec.result, "pgn_tags": dict(rec.tags)}
    try:
        return _core.record_from_state(state, "ataxx_v0", kwargs, meta=meta)
    except ParameterError as e:  # the environment refused the start or the replay differs
        raise InvalidPositionError(f"the PGN game cannot be a record of ataxx_v0: {e}") from None


_core.register_import_format(".pgn", "Ataxx PGN", import_pgn)
