"""The room's protocol: the messages between a browser page and the room, their schema and its checks.

One WebSocket per page at ``/ws``; every message is a JSON object with a ``type``. A message from a
browser is at most :data:`MAX_MESSAGE` bytes (64 KiB; the server closes a connection sending more
than 1 MiB at once); :func:`check_message` checks it against its schema (JSON, known type, each
field present with its type and no other), and the room then checks it against the game (the game
and seat exist, the browser's tokens hold the seat, it is that seat's turn, the action is legal).
Any refusal is answered with
``{"type": "error", "request": <type or null>, "message": <what was wrong and what was expected>}``
(:func:`error_frame`), the game unchanged.

**Browser to room**: the messages of :data:`MESSAGES`, one typed dictionary each, validated by
pydantic (strict: an integer is never a boolean, a float or a string; no field other than the
schema's):

* :class:`LobbyMessage` ``{"type": "lobby"}``: follow the lobby; answered with ``lobby`` now and
  after changes.
* :class:`SetupMessage` ``{"type": "setup", "env_id", "env_kwargs"?}``: the seats of a setting and
  the agents that can play it; answered with ``setup``.
* :class:`CreateMessage` ``{"type": "create", "env_id", "env_kwargs"?, "seats": [choice per seat],
  "seed"?}``: a new game; a choice is ``"me"`` (this browser), ``"invite"`` (a token for a share
  link), ``"open"`` (anyone may join from the lobby) or an agent name from the menus; answered with
  ``created``. In a game with hidden information a ``seed`` is refused unless every person's seat
  is ``"me"``, and nobody gets two seats while another person plays (:mod:`room.trust`).
* :class:`WatchMessage` ``{"type": "watch", "game", "tokens"?: [token...]}``: show this game on this
  page, as the seats the tokens hold (none: a spectator); answered with ``state``, and again after
  every change. An invitation's token opens its seat once: the room answers ``joined`` with a fresh
  token for this browser and the link's token stops working (journaled); one that would be this
  page's second seat of a game with hidden information is not taken (an ``error`` says why).
* :class:`JoinMessage` ``{"type": "join", "game", "seat"}``: take an open seat; answered with
  ``joined``.
* :class:`MoveMessage` ``{"type": "move", "game", "action"}`` or ``{"type": "move", "game",
  "notation"}``: play for the held seat to move (action in the state's absolute frame, or the move
  in the game's notation).
* :class:`PreviewMessage` ``{"type": "preview", "game", "action"}``: the drawing with ``action``
  pending (seat to move only); answered with ``preview``.
* :class:`PositionMessage` ``{"type": "position", "game", "ply"}``: position ``ply`` (0 = the start)
  for the replay controls, drawn for this page's viewer; answered with ``position``.
* :class:`UndoMessage` ``{"type": "undo", "game"}``: back to before your last move (only when every
  other seat is an agent, and not once the game is over). :class:`ResignMessage` ``{"type":
  "resign", "game", "seat"?}``.
* :class:`SeatMessage` ``{"type": "seat", "game", "seat", "to"}``: give a seat to ``"me"``,
  ``"invite"``, ``"open"`` or an agent; answered with ``seated``. Who may: a seat held by a person
  (a token was issued and used: ``"me"``, a join, an opened invitation) only by its holder; an agent
  seat, an open seat or an invitation not yet opened by the game's creator (owner token) or any
  player of the game.

**Room to browser**:

* ``lobby``: ``games`` (each: ``game``, ``kind`` "play"/"record", ``env_id``, ``name``,
  ``setting`` (the setting in players' words), ``env_kwargs``, ``created``, ``ply``, ``over``,
  ``to_move``, ``outcome``, ``seats``, ``problem``), ``envs`` (each: ``id``, ``name``,
  ``arguments`` [{name, default}], ``argument_words`` {name: {label, help}}, ``variants``,
  ``variant_labels`` {variant: label}, ``notation``, ``how_to_play``, ``legend`` [[mark,
  meaning]], ``rules_url``: the words each game declares, :mod:`room.words`), ``formats``
  (readable record suffixes), ``problems`` (journals that could not be read).
* ``setup``: ``env_id``, ``env_kwargs``, ``seats`` [{seat, label}], ``teams``, ``agents``
  [{name, summary}], ``unavailable`` [{name, why}] (the room's agents that cannot play this
  setting, and why: the lobby names a seat's agent dropped by a change of setting),
  ``notation``.
* ``created``: ``game``, ``owner`` (token to change seats), ``tokens`` {seat: token} for the
  ``me`` and ``invite`` seats, ``me``, ``invite`` (seat lists).
* ``joined`` / ``seated``: ``game``, ``seat``, ``token`` (``null`` for an agent or open seat).
* ``state``: ``game``, ``kind``, ``env_id``, ``name``, ``setting``, ``help`` ({how_to_play,
  legend, rules_url}), ``env_kwargs``, ``ply``, ``moves`` (the game in notation, public),
  ``move_seats`` (the seat that played each of ``moves``), ``moves_words`` (each of ``moves`` in
  players' words, ``GameState.move_in_words``), ``seats`` [{seat, label, kind, agent, open,
  invited, error, thinking, resigned (out by a resignation under the rules, play going on)}],
  ``to_move``, ``over``, ``outcome`` ({result, termination (the game's own texts), winners
  (``[]`` for a draw), scores, draw, words (the result for people, seats numbered from 1)} or
  null),
  ``scores`` (only in games of perfect information or once over), ``confirm``,
  ``notation_help``, ``problem`` (null, or what went wrong reading the game's journal at start
  or writing it: a refused write, the game then read-only or retried at the next change),
  ``version``, ``downloadable`` (null, or why not), and for this page: ``you`` (held seats),
  ``viewer``, ``svg`` (``to_svg(viewer)``), ``phase`` (the board's status line), ``legal`` (only
  to the holder of the seat to move: [{a, n (notation), p (click paths), k (kind)}], else null;
  null too in a read-only game), ``can_undo``, ``can_resign``, ``owner`` (this page shows the
  owner token), ``can_seat`` (the seats this page may give away).
* ``preview``: ``game``, ``action``, ``ply``, ``svg``, ``words`` (the action in players' words,
  ``GameState.move_in_words``: the Confirm button's text). ``position``: ``game``, ``ply``, ``svg``,
  ``phase``.
* ``error``: ``request``, ``message`` (:func:`error_frame`).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, get_origin

from pydantic import AfterValidator, ConfigDict, TypeAdapter, ValidationError, ValidationInfo, with_config
from typing_extensions import NotRequired, TypedDict, get_type_hints  # pydantic's TypedDict below 3.12

from room.game import RoomError

__all__ = [
    "MAX_MESSAGE",
    "ECHO",
    "MESSAGES",
    "HUMAN_CHOICES",
    "Message",
    "LobbyMessage",
    "SetupMessage",
    "CreateMessage",
    "WatchMessage",
    "JoinMessage",
    "MoveMessage",
    "PreviewMessage",
    "PositionMessage",
    "UndoMessage",
    "ResignMessage",
    "SeatMessage",
    "check_message",
    "error_frame",
]

#: The largest WebSocket message the room reads (bytes of UTF-8); larger ones get an ``error``.
MAX_MESSAGE = 64 * 1024
#: The most characters of a browser's own input an error message quotes back.
ECHO = 80
#: The seat choices that give a seat to a person (anything else names an agent).
HUMAN_CHOICES = ("me", "invite", "open")

#: The most seat choices a ``create`` message may give, and the longest choice (characters).
MAX_SEATS = 64
MAX_CHOICE = 100


def _limits(info: ValidationInfo):
    from room.limits import RoomLimits

    ctx = info.context or {}
    return ctx.get("limits") or RoomLimits()


def _check_kwargs(value: dict[str, Any], info: ValidationInfo) -> dict[str, Any]:
    """A setting's ``env_kwargs``: at most ``max_kwargs_bytes`` of JSON, no string longer than
    ``max_kwargs_string`` (a setting rides every lobby and state frame)."""
    lim = _limits(info)
    size = len(json.dumps(value, separators=(",", ":")).encode("utf-8"))
    if size > lim.max_kwargs_bytes:
        raise ValueError(f"{size} bytes of JSON, at most {lim.max_kwargs_bytes} ({lim.option('max_kwargs_bytes')})")
    stack: list[Any] = [value]
    while stack:
        v = stack.pop()
        items = list(v.items()) if isinstance(v, dict) else [(None, x) for x in v] if isinstance(v, list) else []
        for k, x in items:
            for text in (k, x):
                if isinstance(text, str) and len(text) > lim.max_kwargs_string:
                    raise ValueError(
                        f"a string of {len(text)} characters, at most {lim.max_kwargs_string} "
                        f"({lim.option('max_kwargs_string')})"
                    )
            if isinstance(x, (dict, list)):
                stack.append(x)
    return value


def _check_seats(value: list[Any]) -> list[Any]:
    if len(value) > MAX_SEATS:
        raise ValueError(f"{len(value)} seat choices, at most {MAX_SEATS}")
    for c in value:
        if isinstance(c, str) and len(c) > MAX_CHOICE:
            raise ValueError(f"a seat choice of {len(c)} characters, at most {MAX_CHOICE}")
    return value


#: A setting's constructor arguments, bounded in size (:func:`_check_kwargs`).
EnvKwargs = Annotated[dict[str, Any], AfterValidator(_check_kwargs)]
#: A create message's seat choices, bounded in number and length.
SeatChoices = Annotated[list[Any], AfterValidator(_check_seats)]

#: Every field strictly typed (JSON's ``true`` is no integer), and no field outside the schema.
_STRICT = ConfigDict(extra="forbid", strict=True)


@with_config(_STRICT)
class LobbyMessage(TypedDict):
    """Follow the lobby: answered with ``lobby`` now and after every change."""

    type: Literal["lobby"]


@with_config(_STRICT)
class SetupMessage(TypedDict):
    """The seats of a setting (``env_id`` with the constructor arguments ``env_kwargs``) and the
    agents that can play it: answered with ``setup``."""

    type: Literal["setup"]
    env_id: str
    env_kwargs: NotRequired[EnvKwargs]


@with_config(_STRICT)
class CreateMessage(TypedDict):
    """A new game: ``seats`` holds one choice per seat (``"me"``, ``"invite"``, ``"open"`` or an
    agent name); ``seed`` (0 to 2**32 - 1) is drawn by the room when absent, and may be given in a
    game with hidden information only when every person's seat is ``"me"``. Answered with
    ``created``."""

    type: Literal["create"]
    env_id: str
    env_kwargs: NotRequired[EnvKwargs]
    seats: SeatChoices
    seed: NotRequired[int]


@with_config(_STRICT)
class WatchMessage(TypedDict):
    """Show ``game`` on this page as the seats ``tokens`` hold (at most 16 tokens, each 1 to 128
    characters): answered with ``state``, and again after every change."""

    type: Literal["watch"]
    game: str
    tokens: NotRequired[list[Any]]


@with_config(_STRICT)
class JoinMessage(TypedDict):
    """Take the open seat ``seat`` of ``game``: answered with ``joined``."""

    type: Literal["join"]
    game: str
    seat: int


@with_config(_STRICT)
class MoveMessage(TypedDict):
    """Play for the held seat to move: exactly one of ``action`` (the state's absolute frame) and
    ``notation`` (the game's notation)."""

    type: Literal["move"]
    game: str
    action: NotRequired[int]
    notation: NotRequired[str]


@with_config(_STRICT)
class PreviewMessage(TypedDict):
    """The drawing with ``action`` pending (the seat to move only): answered with ``preview``."""

    type: Literal["preview"]
    game: str
    action: int


@with_config(_STRICT)
class PositionMessage(TypedDict):
    """Position ``ply`` (0 = the start) drawn for this page's viewer: answered with ``position``."""

    type: Literal["position"]
    game: str
    ply: int


@with_config(_STRICT)
class UndoMessage(TypedDict):
    """Back to before this page's last move (every other seat an agent, the game not over)."""

    type: Literal["undo"]
    game: str


@with_config(_STRICT)
class ResignMessage(TypedDict):
    """Resign ``seat`` (default: the lowest seat this page holds)."""

    type: Literal["resign"]
    game: str
    seat: NotRequired[int]


@with_config(_STRICT)
class SeatMessage(TypedDict):
    """Give ``seat`` to ``to`` (``"me"``, ``"invite"``, ``"open"`` or an agent name): answered with
    ``seated``."""

    type: Literal["seat"]
    game: str
    seat: int
    to: str


Message = (
    LobbyMessage
    | SetupMessage
    | CreateMessage
    | WatchMessage
    | JoinMessage
    | MoveMessage
    | PreviewMessage
    | PositionMessage
    | UndoMessage
    | ResignMessage
    | SeatMessage
)

#: Every message a browser may send, by its ``type``.
MESSAGES: dict[str, type] = {
    "lobby": LobbyMessage,
    "setup": SetupMessage,
    "create": CreateMessage,
    "watch": WatchMessage,
    "join": JoinMessage,
    "move": MoveMessage,
    "preview": PreviewMessage,
    "position": PositionMessage,
    "undo": UndoMessage,
    "resign": ResignMessage,
    "seat": SeatMessage,
}
_ADAPTERS: dict[str, TypeAdapter] = {kind: TypeAdapter(cls) for kind, cls in MESSAGES.items()}
#: The words for a field's type, in the refusals.
_TYPE_WORDS: dict[Any, str] = {str: "a string", int: "an integer", dict: "an object", list: "a list"}
_ERROR_WORDS = {"string_type": "a string", "int_type": "an integer", "dict_type": "an object", "list_type": "a list"}


def _fields(kind: str) -> dict[str, str]:
    """The fields of message ``kind`` other than ``type``, in the schema's order: ``{name: type words}``."""
    hints = get_type_hints(MESSAGES[kind])
    return {name: _TYPE_WORDS[get_origin(t) or t] for name, t in hints.items() if name != "type"}


def _refusal(kind: str, error: ValidationError) -> RoomError:
    """The first thing wrong in a message of ``kind`` that pydantic refused, in the room's words:
    unknown fields first (all of them), then the first missing or mistyped field in the schema's order."""
    fields = _fields(kind)
    errors = error.errors(include_url=False)
    unknown = sorted(str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden")
    if unknown:
        return RoomError(
            f"{kind}: unknown field(s) {', '.join(unknown)}; expected {', '.join(sorted(fields)) or 'none'}"
        )
    order = list(fields)
    first = min(errors, key=lambda e: order.index(e["loc"][0]) if e["loc"] and e["loc"][0] in order else len(order))
    name = str(first["loc"][0]) if first["loc"] else ""
    if first["type"] == "missing":
        return RoomError(f"{kind}: missing field {name!r} ({fields[name]})")
    if first["type"] == "value_error":  # a bound of AfterValidator: its own words
        return RoomError(f"{kind}: field {name!r} too large: {first['ctx']['error']}")
    if name in fields:
        words = _ERROR_WORDS.get(first["type"], fields[name])
        return RoomError(f"{kind}: field {name!r} must be {words}, got {json.dumps(first['input'])[:40]}")
    return RoomError(f"{kind}: {first['msg']}")


def check_message(text: str | bytes, limits=None) -> Any:
    """Parse and check one browser message against its schema (:data:`MESSAGES`).

    Args:
        text: the WebSocket message, text or UTF-8 bytes.
        limits: the room's :class:`~room.limits.RoomLimits` (default: its defaults), for the
            bounds of ``env_kwargs`` (``max_kwargs_bytes``, ``max_kwargs_string``).

    Returns:
        The message, a dict of one of the :data:`MESSAGES` types (optional fields absent when not
        sent).

    Raises:
        RoomError: too large, not JSON, nested too deeply, not an object, unknown ``type``, a
            missing, unknown or mistyped field (the message names it and the expected type), a
            field past its bound (``env_kwargs``, ``seats``).
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise RoomError("a message must be UTF-8 JSON text") from None
    size = len(text.encode("utf-8"))
    if size > MAX_MESSAGE:
        raise RoomError(f"message too large: {size} bytes, at most {MAX_MESSAGE}")
    try:
        msg = json.loads(text)
    except json.JSONDecodeError as e:
        raise RoomError(f"a message must be JSON: {e}") from None
    except RecursionError:
        raise RoomError("malformed message: nested too deeply (a message is a flat JSON object)") from None
    if not isinstance(msg, dict):
        raise RoomError(f"a message must be a JSON object with a 'type', got {type(msg).__name__}")
    kind = msg.get("type")
    if not isinstance(kind, str) or kind not in MESSAGES:
        raise RoomError(f"unknown message type {kind!r}: expected one of {', '.join(MESSAGES)}")
    try:
        return _ADAPTERS[kind].validate_python(msg, context={"limits": limits})
    except ValidationError as e:
        raise _refusal(kind, e) from None


def _shorten_echo(message: str, msg: dict | None) -> str:
    """``message`` with every string field of the browser's ``msg`` longer than :data:`ECHO`
    characters quoted as its first :data:`ECHO` characters and "…" (as written or as ``repr``)."""
    for v in (msg or {}).values():
        if isinstance(v, str) and len(v) > ECHO:
            for text in (v, repr(v)[1:-1]):
                if text in message:
                    message = message.replace(text, text[:ECHO] + "…")
    return message


def error_frame(request: str | None, message: str, msg: dict | None = None) -> dict:
    """The ``error`` frame refusing a ``request`` message (its ``type``, ``None`` when unknown): the
    browser's own long strings of ``msg`` quoted back cut to :data:`ECHO` characters and "…"."""
    return {"type": "error", "request": request, "message": _shorten_echo(message, msg)}
