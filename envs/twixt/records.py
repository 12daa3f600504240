"""TwixT game records: plain move lists, Little Golem ``.tsgf`` and T1 (T1j) files.

Every reader returns a :class:`TwixtRecord` (settings, moves in this project's notation, and what
the file says about the result); :func:`replay` plays a record into a
:class:`~envs.twixt.state.TwixtState`; the writers produce text that reads back into an equal
record. :func:`read_twixt_file` / :func:`write_twixt_file` pick the format from the file name.

Conventions (worked out by replaying ``tests/data/twixt/``; see ``tests/envs/test_twixt_records.py``):

**Plain move lists** (``.txt`` or anything else): moves in our notation (``c5``, ``swap``, ``c5!``),
one per line or separated by commas / white space, case-insensitive; a final ``resign`` (the
player to move resigns) or ``draw`` (agreed draw). ``#`` starts a comment; a comment line
``# key=value`` sets ``board_size``, ``rules``, ``swap``, ``num_players``, ``draw``, ``links``, ``event``,
``source``, ``game_over`` or ``player_<i>`` (a name). Settings missing from the file come from the reader's
keyword arguments. A game with ``links="manual"`` (the box rules) is written with ``# links=manual``
and its moves in that notation: ``c5``, ``swap``, ``+c5e6``, ``-c5e6``, ``end``, ``end!``.
Little Golem and T1 files cannot hold such games (their servers link automatically): the writers
refuse them.

**Little Golem ``.tsgf``** (``(;FF[4]EV[..]PB[..]PW[..]SZ[24]SO[..];b[dd];r[th];...)``): each move
node is ``b[..]`` or ``r[..]``; ``b`` is the *first* player (our red, player 0, connecting top to
bottom: row 1 to row S) and the letters alternate ``b, r, b, ...``. A move is two letters, column
then row, ``a`` = 1, in the same frame as ours: ``b[cu]`` is ``c21``. ``r[swap]`` is the
transposing swap; ``x[resign]`` a resignation by that player; ``r[qi|draw]`` the move ``q9`` with a
draw offer; a bare ``x[draw]`` an accepted draw. ``PB`` / ``PW`` name the first / second player.
Little Golem plays TwixT PP with the swap, so a ``.tsgf`` reads as ``rules="pp", swap=True``; our
writer adds the non-standard properties ``RU[standard]`` / ``SW[no]`` only when a record differs
from that (boards up to 26 only: one letter per coordinate).

*How the mapping was settled.* Placing a peg is legal on every empty hole outside the opponent's
border rows, and every move of the two sample games lies strictly inside the board, so all four
candidate mappings (``b`` = red or black, letters column-row or row-column) replay legally: the
files cannot decide by legality. The mapping above is the Little Golem / twixtbot convention the
specification names, and it is the one under which each side builds along its own direction: in
the two sample games, 8 of red's 9 links (``b``) are long in the row direction (running top to
bottom) and 6 of black's 7 links (``r``) are long in the column direction (left to right); with the
other colour assignment both players would be building across their own goal.

**T1 (T1j) files**: a header of 13 lines ``value # comment`` (T1j's layout: file version, names of
players 1 and 2, y-size, x-size, human/computer x2, starting player, direction of letters, pie
rule ``Y/N``, game over ``Y/N``; empty values allowed), then one move per line: ``L10`` style
(column letter, row number, row 1 at the top, case-insensitive), ``swap``, and a final ``resign``
(the player to move resigns). Player 1 plays top-down and moves first (our red). T1j plays the
standard rules, so a T1 file reads as ``rules="standard"``; the pie rule is on when the header says
``Y`` or a ``swap`` move occurs. The sample ``e15, swap, f17, H18, P12, resign`` replays legally
with the transposing swap (``e15`` becomes a black peg on ``o5``; black resigns at the end).

**Uploads** (the play room's replay, :func:`envs.core.records.import_record`): importing this
module registers ``.tsgf`` and ``.t1`` (any case: ``sample.T1``) with
:func:`envs.core.records.register_import_format`; :func:`import_tsgf` / :func:`import_t1` turn
a file's text into a common-format record (:func:`to_common_record`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from envs.core import records as _core
from envs.core.errors import IllegalActionError, InvalidPositionError, ParameterError
from envs.twixt.geometry import colour_of
from envs.twixt.notation import column_label, parse_hole
from envs.twixt.state import TwixtState

__all__ = [
    "TwixtRecord",
    "parse_moves",
    "format_moves",
    "parse_tsgf",
    "format_tsgf",
    "parse_t1",
    "format_t1",
    "read_twixt_file",
    "write_twixt_file",
    "replay",
    "record_from_state",
    "to_common_record",
    "import_tsgf",
    "import_t1",
]


@dataclass
class TwixtRecord:
    """A game record: the settings, the moves (our notation) and the declared result.

    Attributes:
        moves: move texts (``c5``, ``swap``, ``c5!``), lower case.
        board_size, rules, swap, num_players: the game's settings (as :class:`TwixtState` takes them).
        links: ``"auto"`` or ``"manual"`` (the box rules; moves then include ``+c5e6``, ``-c5e6``,
            ``end``, ``end!``).
        draw: the draw rule if the record states it, else ``None`` (replay then uses ``"board_full"``).
        resigned: the player who resigned after the last move, or ``None``.
        draw_agreed: the game ended by an agreed draw after the last move.
        draw_offers: indices in ``moves`` of the moves that carried a draw offer (Little Golem).
        players: player names (first player first), possibly empty.
        event, source: free text (``EV`` / ``SO`` in tsgf).
        game_over: the T1 header's "game already over" flag (``None`` if unknown).
    """

    moves: list[str] = field(default_factory=list)
    board_size: int = 24
    rules: str = "standard"
    swap: bool = False
    num_players: int = 2
    links: str = "auto"
    draw: str | None = None
    resigned: int | None = None
    draw_agreed: bool = False
    draw_offers: list[int] = field(default_factory=list)
    players: list[str] = field(default_factory=list)
    event: str = ""
    source: str = ""
    game_over: bool | None = None

    def settings(self) -> dict:
        """Keyword arguments for :class:`TwixtState` (``draw`` only if the record states it)."""
        d = dict(board_size=self.board_size, rules=self.rules, swap=self.swap, num_players=self.num_players)
        if self.links != "auto":
            d["links"] = self.links
        if self.draw is not None:
            d["draw"] = self.draw
        return d

    @property
    def result(self) -> str | None:
        """The declared result: ``'1-0'`` (red won), ``'0-1'``, ``'1/2-1/2'``, or ``None`` (not
        declared; replay the moves to see whether the board decides it)."""
        if self.resigned is not None:
            return "0-1" if colour_of(self.resigned) == 0 else "1-0"
        if self.draw_agreed:
            return "1/2-1/2"
        return None


def _player_after(moves: list[str], num_players: int, manual: bool = False) -> int:
    """The seat to move after ``moves`` from the start (ignoring a possible game end). With
    ``manual`` (``links="manual"``) the turn passes at ``end`` / ``end!`` only."""
    p = 0
    for m in moves:
        if manual and m not in ("end", "end!"):
            continue
        if num_players == 4 and m.endswith("!"):
            p = (p + 2) % 4
        else:
            p = (p + 1) % num_players
    return p


def _normalise_move(text: str, board_size: int, what: str) -> str:
    t = text.strip().lower()
    if t in ("swap", "end", "end!"):
        return t
    if t[:1] in ("+", "-"):
        m = re.fullmatch(r"([+-])([a-z]{1,2}[0-9]{1,2})([a-z]{1,2}[0-9]{1,2})", t)
        if m is None:
            raise InvalidPositionError(f"{what}: {text!r} is not a link move: expected '+c5e6' or '-c5e6'")
        holes = []
        for h in m.group(2, 3):
            try:
                r, c = parse_hole(h, board_size)
            except IllegalActionError as e:
                raise InvalidPositionError(f"{what}: {e}") from None
            holes.append(f"{column_label(c)}{r + 1}")
        return m.group(1) + "".join(holes)
    body = t[:-1] if t.endswith("!") else t
    try:
        r, c = parse_hole(body, board_size)
    except IllegalActionError as e:
        raise InvalidPositionError(f"{what}: {e}") from None
    return f"{column_label(c)}{r + 1}" + ("!" if t.endswith("!") else "")


def _end_token(rec: TwixtRecord, token: str, rest: list[str], what: str) -> bool:
    """Handle ``resign`` / ``draw`` (which must be last); return True if ``token`` was one."""
    if token not in ("resign", "draw"):
        return False
    if rest:
        raise InvalidPositionError(f"{what}: '{token}' must be the last entry, found {rest[0]!r} after it")
    if token == "resign":
        rec.resigned = _player_after(rec.moves, rec.num_players, rec.links == "manual")
    else:
        rec.draw_agreed = True
    return True


# ---------------------------------------------------------------------------- plain move lists
_BOOL = {"true": True, "yes": True, "y": True, "1": True, "false": False, "no": False, "n": False, "0": False}


def parse_moves(text: str, **settings) -> TwixtRecord:
    """Read a plain move list (see the module docstring).

    Args:
        text: the file's text.
        **settings: defaults for ``board_size``, ``rules``, ``swap``, ``num_players``, ``draw``
            where the file does not state them.

    Raises:
        InvalidPositionError: malformed text (bad setting, bad move, ``resign`` not last).
    """
    rec = TwixtRecord()
    for k, v in settings.items():
        if k not in ("board_size", "rules", "swap", "num_players", "draw", "links"):
            raise ParameterError(f"unknown setting {k!r} for a move list")
        setattr(rec, k, v)
    names: dict[int, str] = {}
    tokens: list[tuple[int, str]] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        body, hash_, comment = line.partition("#")
        if hash_:
            key, eq, value = comment.strip().partition("=")
            key, value = key.strip(), value.strip()
            if eq and key:
                try:
                    if key in ("board_size", "num_players"):
                        setattr(rec, key, int(value))
                    elif key == "swap":
                        rec.swap = _BOOL[value.lower()]
                    elif key == "game_over":
                        rec.game_over = _BOOL[value.lower()]
                    elif key in ("rules", "draw", "links", "event", "source"):
                        setattr(rec, key, value)
                    elif re.fullmatch(r"player_\d", key):
                        names[int(key[7:])] = value
                except (ValueError, KeyError):
                    raise InvalidPositionError(f"line {lineno}: bad value {value!r} for {key}") from None
        tokens.extend((lineno, t) for t in re.split(r"[\s,]+", body) if t)
    if names:
        rec.players = [names.get(i, "") for i in range(max(names) + 1)]
    for i, (lineno, tok) in enumerate(tokens):
        t = tok.lower()
        if _end_token(rec, t, [x for _, x in tokens[i + 1 :]], f"line {lineno}"):
            break
        rec.moves.append(_normalise_move(t, rec.board_size, f"line {lineno}"))
    return rec


def format_moves(record: TwixtRecord, sep: str = "\n") -> str:
    """Write a plain move list: ``# key=value`` settings lines, then the moves joined by ``sep``."""
    lines = ["# TwixT game record (tabletop-rl move list)"]
    lines += [
        f"# board_size={record.board_size}",
        f"# rules={record.rules}",
        f"# swap={'yes' if record.swap else 'no'}",
        f"# num_players={record.num_players}",
    ]
    if record.links != "auto":
        lines.append(f"# links={record.links}")
    if record.draw is not None:
        lines.append(f"# draw={record.draw}")
    if record.event:
        lines.append(f"# event={record.event}")
    if record.source:
        lines.append(f"# source={record.source}")
    if record.game_over is not None:
        lines.append(f"# game_over={'yes' if record.game_over else 'no'}")
    for i, name in enumerate(record.players):
        lines.append(f"# player_{i}={name}")
    tail = record.moves + (["resign"] if record.resigned is not None else ["draw"] if record.draw_agreed else [])
    if tail:
        lines.append(sep.join(tail))
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- Little Golem tsgf
_PROP_RE = re.compile(r"([A-Za-z]+)\[([^\]]*)\]")
_TSGF_HEADER = ("FF", "EV", "PB", "PW", "SZ", "SO")


def parse_tsgf(text: str) -> TwixtRecord:
    """Read a Little Golem ``.tsgf`` game (see the module docstring for the conventions).

    Raises:
        InvalidPositionError: malformed file (not ``(;...)``, a bad node, players out of turn,
        a hole off the board, ``resign`` not last).
    """
    t = text.strip()
    if not (t.startswith("(;") and t.endswith(")")):
        raise InvalidPositionError("not a tsgf game: expected '(;FF[4]...;b[..];r[..]...)'")
    nodes = t[2:-1].split(";")
    header = dict(_PROP_RE.findall(nodes[0]))
    if _PROP_RE.sub("", nodes[0]).strip():
        raise InvalidPositionError(f"malformed tsgf header node {nodes[0]!r}")
    rec = TwixtRecord(rules="pp", swap=True)
    try:
        rec.board_size = int(header.get("SZ", "24"))
    except ValueError:
        raise InvalidPositionError(f"tsgf: bad board size SZ[{header['SZ']}]") from None
    if not 5 <= rec.board_size <= 26:
        raise InvalidPositionError(f"tsgf: board size {rec.board_size} outside 5..26")
    if "RU" in header:
        if header["RU"] not in ("standard", "pp"):
            raise InvalidPositionError(f"tsgf: bad rules RU[{header['RU']}]")
        rec.rules = header["RU"]
    if "SW" in header:
        if header["SW"].lower() not in _BOOL:
            raise InvalidPositionError(f"tsgf: bad swap flag SW[{header['SW']}]")
        rec.swap = _BOOL[header["SW"].lower()]
    if "PB" in header or "PW" in header:
        rec.players = [header.get("PB", ""), header.get("PW", "")]
    rec.event = header.get("EV", "")
    rec.source = header.get("SO", "")
    size = rec.board_size
    for i, node in enumerate(nodes[1:]):
        m = re.fullmatch(r"\s*([br])\[([^\]]*)\]\s*", node)
        what = f"tsgf node {i + 1} ({node.strip()!r})"
        if m is None:
            raise InvalidPositionError(f"{what}: expected b[..] or r[..]")
        who, value = m.group(1), m.group(2).strip().lower()
        expected = "br"[_player_after(rec.moves, 2)]
        if who != expected:
            raise InvalidPositionError(f"{what}: it is {expected}'s turn ('b' is the first player)")
        value, bar, extra = value.partition("|")
        if _end_token(rec, value, nodes[i + 2 :], what):
            continue
        if bar:
            if extra != "draw":
                raise InvalidPositionError(f"{what}: unknown annotation {extra!r} (expected '|draw')")
            rec.draw_offers.append(len(rec.moves))
        if value == "swap":
            rec.moves.append("swap")
            continue
        if len(value) != 2 or not all("a" <= ch < chr(97 + size) for ch in value):
            raise InvalidPositionError(f"{what}: a move is two letters a..{chr(96 + size)} (column, row)")
        rec.moves.append(f"{value[0]}{ord(value[1]) - 96}")
    return rec


def format_tsgf(record: TwixtRecord) -> str:
    """Write a Little Golem ``.tsgf`` game (two players, boards up to 26).

    Raises:
        ParameterError: four players, a board wider than 26, a Privilege move, or
            ``links="manual"`` (Little Golem links automatically).
    """
    if record.links != "auto":
        raise ParameterError(
            "tsgf cannot hold a links='manual' game (Little Golem links automatically); write a move list instead"
        )
    if record.num_players != 2:
        raise ParameterError("tsgf holds two-player games only")
    if record.board_size > 26:
        raise ParameterError(f"tsgf writes one letter per coordinate: boards up to 26, got {record.board_size}")
    players = record.players + ["", ""]
    out = [f"(;FF[4]EV[{record.event}]PB[{players[0]}]PW[{players[1]}]SZ[{record.board_size}]SO[{record.source}]"]
    if record.rules != "pp":
        out[0] += f"RU[{record.rules}]"
    if not record.swap:
        out[0] += "SW[no]"
    offers = set(record.draw_offers)
    for i, m in enumerate(record.moves):
        who = "br"[i % 2]
        if m == "swap":
            value = "swap"
        else:
            r, c = parse_hole(m, record.board_size)
            value = chr(97 + c) + chr(97 + r)
        if i in offers:
            value += "|draw"
        out.append(f"{who}[{value}]")
    if record.resigned is not None:
        out.append(f"{'br'[record.resigned]}[resign]")
    elif record.draw_agreed:
        out.append(f"{'br'[len(record.moves) % 2]}[draw]")
    return ";".join(out) + ")"


# ---------------------------------------------------------------------------- T1 (T1j)
_T1_COMMENTS = (
    "version of file-format",
    "Name of player 1",
    "Name of player 2",
    "y-size of board",
    "x-size of board",
    "player 1 human or computer",
    "player 2 human or computer",
    "starting player (1 plays top-down)",
    "direction of letters",
    "pierule?",
    "game already over?",
)


def parse_t1(text: str) -> TwixtRecord:
    """Read a T1 (T1j) file (see the module docstring).

    Raises:
        InvalidPositionError: malformed file (different x and y sizes, starting player 2, a swap
        although the header says no pie rule, a bad move, ``resign`` not last).
    """
    lines = text.splitlines()
    header: list[str] = []
    i = 0
    while i < len(lines) and "#" in lines[i]:
        header.append(lines[i].split("#", 1)[0].strip())
        i += 1
    body = [ln.strip() for ln in lines[i:] if ln.strip()]
    rec = TwixtRecord(rules="standard")

    def field_(k: int) -> str:
        return header[k] if len(header) > k else ""

    if field_(3) or field_(4):
        rec.players = [field_(3), field_(4)]
    ysz, xsz = field_(5), field_(6)
    if ysz or xsz:
        try:
            y, x = int(ysz or xsz), int(xsz or ysz)
        except ValueError:
            raise InvalidPositionError(f"T1 header: bad board size {ysz!r} x {xsz!r}") from None
        if y != x:
            raise InvalidPositionError(f"T1 header: only square boards are supported, got {y} x {x}")
        rec.board_size = y
    if field_(9) not in ("", "1"):
        raise InvalidPositionError(
            f"T1 header: starting player {field_(9)!r} is not supported (player 1, top-down, must start)"
        )
    pie = field_(11).upper()
    over = field_(12).upper()
    rec.game_over = {"Y": True, "N": False}.get(over)
    for j, tok in enumerate(body):
        what = f"T1 move line {j + 1} ({tok!r})"
        t = tok.lower()
        if _end_token(rec, t, body[j + 1 :], what):
            break
        rec.moves.append(_normalise_move(t, rec.board_size, what))
    if pie == "Y":
        rec.swap = True
    elif pie == "N":
        if "swap" in rec.moves:
            raise InvalidPositionError("T1 file: a swap move although the header says no pie rule")
        rec.swap = False
    else:
        rec.swap = "swap" in rec.moves
    return rec


def format_t1(record: TwixtRecord) -> str:
    """Write a T1 (T1j) file: the 13-line header, then one move per line in upper case.

    Raises:
        ParameterError: four players, ``rules="pp"`` (T1 cannot say so) or ``links="manual"``
            (T1j links automatically).
    """
    if record.links != "auto":
        raise ParameterError(
            "T1 files cannot hold a links='manual' game (T1j links automatically); write a move list instead"
        )
    if record.num_players != 2:
        raise ParameterError("T1 files hold two-player games only")
    if record.rules != "standard":
        raise ParameterError("T1 files cannot state rules='pp' (T1j plays the standard rules)")
    players = record.players + ["", ""]
    over = record.game_over
    values = [
        "1",
        players[0],
        players[1],
        str(record.board_size),
        str(record.board_size),
        "H",
        "H",
        "1",
        "V",
        "Y" if record.swap else "N",
        "" if over is None else ("Y" if over else "N"),
    ]
    lines = ["# File created by tabletop-rl", "# TwixT record (T1j format)"]
    lines += [f"{v} # {c}" for v, c in zip(values, _T1_COMMENTS)]
    lines += [m.upper() for m in record.moves]
    if record.resigned is not None:
        lines.append("resign")
    elif record.draw_agreed:
        lines.append("draw")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- files, replay
_READERS = {".tsgf": parse_tsgf, ".t1": parse_t1}
_WRITERS = {".tsgf": format_tsgf, ".t1": format_t1}


def read_twixt_file(path, **settings) -> TwixtRecord:
    """Read a record file: ``.tsgf`` (Little Golem), ``.T1`` (T1j), anything else a move list
    (``settings`` are the move list's defaults)."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    reader = _READERS.get(p.suffix.lower())
    if reader is None:
        return parse_moves(text, **settings)
    return reader(text)


def write_twixt_file(record: TwixtRecord, path) -> None:
    """Write a record in the format named by the file's suffix (as :func:`read_twixt_file`)."""
    p = Path(path)
    writer = _WRITERS.get(p.suffix.lower(), format_moves)
    p.write_text(writer(record), encoding="utf-8")


def replay(record: TwixtRecord, *, draw: str | None = None) -> TwixtState:
    """Play every move of ``record`` into a new :class:`TwixtState` with its settings.

    Args:
        draw: the draw rule; default the record's, else ``"board_full"`` (it never ends a game
            early, so any game that was really played replays).

    Raises:
        IllegalActionError: a move is illegal (the message gives its number and text).
    """
    settings = record.settings()
    settings["draw"] = draw or settings.get("draw") or "board_full"
    return TwixtState.from_moves(record.moves, **settings)


def record_from_state(
    state: TwixtState, *, players=(), event: str = "", source: str = "", resigned: int | None = None
) -> TwixtRecord:
    """The record of the game that led to ``state`` (its settings and moves)."""
    return TwixtRecord(
        moves=state.moves(),
        board_size=state.board_size,
        rules=state.rules,
        swap=state.swap,
        num_players=state.num_players,
        links=state.linking,
        draw=state.draw,
        resigned=resigned,
        players=list(players),
        event=event,
        source=source,
        game_over=state.is_terminal() or resigned is not None,
    )


# ---------------------------------------------------------------------------- the common record format
def to_common_record(record: TwixtRecord, source_format: str = "") -> dict:
    """``record`` as a record of the library's common JSON format (:mod:`envs.core.records`),
    which :func:`envs.core.records.replay` replays to the same position.

    ``env_id`` is ``twixt_v0`` (``double_twixt_v0`` for four players); ``env_kwargs`` hold
    ``board_size``, ``draw`` (the record's, else ``"board_full"``, as :func:`replay`: a game really
    played must never end early) and, when they differ from the defaults, ``rules``, ``swap`` and
    ``links``. ``result`` is the board's (:meth:`~envs.core.state.GameState.outcome`): ``None``
    when the game did not end on the board, e.g. by a resignation. What only the file says goes to
    ``meta``: ``imported_from`` (``source_format``, when given), ``players``, ``event``, ``source``,
    ``resigned`` (the seat that resigned), ``declared_result`` (``"1-0"``, ``"0-1"``,
    ``"1/2-1/2"``), ``draw_offers`` (indices of moves with a draw offer) and ``game_over`` (T1's
    header flag), each only when the file has it.

    Raises:
        InvalidPositionError: a move of the record is illegal (its number and why).
    """
    env_id = "twixt_v0" if record.num_players == 2 else "double_twixt_v0"
    kwargs: dict = {"board_size": record.board_size}
    if record.rules != "standard":
        kwargs["rules"] = record.rules
    if record.swap:
        kwargs["swap"] = True
    if record.links != "auto":
        kwargs["links"] = record.links
    kwargs["draw"] = record.draw or "board_full"
    try:
        state = replay(record, draw=kwargs["draw"])
    except IllegalActionError as e:
        raise InvalidPositionError(str(e)) from None
    meta: dict = {}
    if source_format:
        meta["imported_from"] = source_format
    if any(record.players):
        meta["players"] = list(record.players)
    if record.event:
        meta["event"] = record.event
    if record.source:
        meta["source"] = record.source
    if record.resigned is not None:
        meta["resigned"] = record.resigned
    if record.result is not None:
        meta["declared_result"] = record.result
    if record.draw_offers:
        meta["draw_offers"] = list(record.draw_offers)
    if record.game_over is not None:
        meta["game_over"] = record.game_over
    return _core.record_from_state(state, env_id, kwargs, meta=meta or None)


def import_tsgf(text: str) -> dict:
    """A Little Golem ``.tsgf`` file's text as a common-format record (:func:`parse_tsgf`, then
    :func:`to_common_record`). Raises ``InvalidPositionError`` for a malformed file or an illegal move."""
    return to_common_record(parse_tsgf(text), "Little Golem TSGF")


def import_t1(text: str) -> dict:
    """A T1 (T1j) file's text as a common-format record (:func:`parse_t1`, then
    :func:`to_common_record`). Raises ``InvalidPositionError`` for a malformed file or an illegal move."""
    return to_common_record(parse_t1(text), "T1j")


#: Former name of :func:`read_twixt_file` (the figure command of docs/usage/aec.md uses it); ``read_record`` is
#: otherwise the common format's reader, :func:`envs.core.records.read_record`.
read_record = read_twixt_file


_core.register_import_format(".tsgf", "Little Golem TSGF (TwixT)", import_tsgf)
_core.register_import_format(".t1", "T1j (TwixT)", import_t1)
