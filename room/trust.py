"""What the room trusts: which host names it answers to, which pages may drive it, and who may
hold which seats of a game with hidden information.

**Host and Origin** (:class:`HostCheck`, an ASGI middleware around the whole application). A page
of another site whose name resolves to this machine (DNS rebinding) reaches the room with its own
name in ``Host``; a page of another site on a known name sends its own ``Origin``. So every HTTP
request and every WebSocket handshake must name, in ``Host``, one of the served host names
(:data:`LOOPBACK_HOSTS` by default, plus each ``--allowed-host``), any port; and, where the
browser sends ``Origin``, the origin must be this very host and port (``http://`` or
``https://`` + the ``Host`` header). A refused request gets ``400`` (wrong host) or ``403``
(another site's page) and a one-line text saying why; a refused WebSocket is closed before it is
accepted, which the server answers with HTTP ``403`` to the handshake (the page sees the
connection fail, without the reason). :func:`csp` is the
Content-Security-Policy of a page, whose ``connect-src`` names the room's own origin (``ws://`` and
``wss://`` of the request's host: ``'self'`` matches a WebSocket only since Chrome 71 and Safari 16).

**Fair hidden information** (:func:`seed_refusal`, :func:`seats_refusal`). In a game whose rules
keep something hidden (``GameInfo.perfect_information`` false: hands, a bag's or pile's order) the
seed decides the deal, and a page holding two seats shows two hands. So:

* the room draws the seed unless every person's seat is the creator's (``"me"`` or agents): a
  creator may replay a chosen seed offline and read everyone's cards;
* nobody may hold two seats of such a game (a partner's, an agent's, an open or invited one)
  unless every person's seat of the game is theirs: alone against agents, or all seats, one
  person may hold several; with anyone else (a person, an invitation, an open seat) nobody may;
* once the creator chose the seed, no seat of the game goes to anyone else;
* a seat that a person has held (and so seen its cards) goes afterwards only back to that person
  or to an agent, never to another person (an invitation, an open seat, a join): a person who
  took over an agent's seat alone, read its hand and then invited someone to it would know the
  invitee's hand. What each seat's holders were is rebuilt from the journal's seats
  (:attr:`room.game.RoomGame.seen`), so a restart keeps the rule.

Persons are told apart by a *holder* kept with each person's seat (:attr:`room.game.Seat.holder`,
journaled): the creator's seats carry the owner token's digest, a seat taken by a page that holds
a seat (or the owner token) carries that page's holder, a seat taken by anyone else a holder of
its own. Two browsers of one person cannot be told from two persons; what the room guarantees is
that no page it serves ever shows two hands of a game in which another person sits.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from room.game import Seat

__all__ = [
    "LOOPBACK_HOSTS",
    "HostCheck",
    "allowed_host",
    "csp",
    "seed_refusal",
    "seats_refusal",
    "seen_refusal",
    "person",
    "client_text",
    "safe_text",
    "check_encodable",
]

#: The host names a room answers to by default (each with any port).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


def allowed_host(name: str) -> str:
    """``name`` checked as a host name for ``--allowed-host``: a DNS name or an IP address,
    without scheme, port or path (an IPv6 address with or without brackets); returned lower-case,
    IPv6 without brackets.

    Raises:
        ValueError: anything else (the message says what was expected).
    """
    raw = name.strip().lower()
    bracketed = raw.startswith("[") and raw.endswith("]")
    bare = raw[1:-1] if bracketed else raw
    ok = bool(bare) and len(bare) <= 253
    if ok and (":" in bare or bracketed):  # IPv6
        import ipaddress

        try:
            ipaddress.IPv6Address(bare)
        except ValueError:
            ok = False
    elif ok:
        ok = all(c.isalnum() or c in "-." for c in bare) and not bare.startswith(("-", ".")) and bare.isascii()
    if not ok:
        raise ValueError(
            f"--allowed-host must be a host name or IP address without scheme, port or path "
            f"(e.g. myhost.lan, 192.168.1.5 or [fe80::1]), got {name!r}"
        )
    return bare


def _split_host(value: str | None) -> tuple[str, int | None] | None:
    """``(name, port)`` of a ``Host`` header (name lower-case, IPv6 without brackets), ``None``
    when malformed."""
    if not value or any(c in value for c in "/?#@ \\") or not value.isascii():
        return None
    try:
        parts = urlsplit("//" + value)
        name, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not name:
        return None
    return name, port


def _authority(name: str, port: int | None) -> str:
    shown = f"[{name}]" if ":" in name else name
    return shown if port is None else f"{shown}:{port}"


class HostCheck:
    """ASGI middleware: refuse every HTTP request and WebSocket handshake whose ``Host`` is not a
    served host name, or whose ``Origin`` (when sent) is not this host (see the module docstring).

    Args:
        app: the application.
        hosts: the accepted host names (lower-case, IPv6 without brackets; any port).
    """

    def __init__(self, app: Any, hosts: Iterable[str]):
        self.app = app
        self.hosts = frozenset(hosts)

    def refusal(self, headers: dict[str, str]) -> tuple[int, str] | None:
        """``None`` when a request with these headers (lower-case names) is accepted, else the
        HTTP status and the reason."""
        host = headers.get("host")
        split = _split_host(host)
        if split is None or split[0] not in self.hosts:
            names = ", ".join(_authority(h, None) for h in sorted(self.hosts))
            return 400, (
                f"this room answers only to the host names {names} (any port), not to Host {host!r}: "
                "start it with --allowed-host NAME to serve another name"
            )
        origin = headers.get("origin")
        if origin is not None:
            try:
                o = urlsplit(origin)
                same = (
                    o.scheme in ("http", "https") and o.netloc.lower() == (host or "").lower() and not o.path.strip("/")
                )
            except ValueError:
                same = False
            if not same:
                return 403, (
                    f"a page of another site (Origin {origin[:100]!r}) may not use this room; "
                    "open the room's own page instead"
                )
        return None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers: dict[str, str] = {}
        for k, v in scope.get("headers", ()):
            name = k.decode("latin-1").lower()
            if name in ("host", "origin"):
                if name in headers:  # two Host or two Origin headers: refused as malformed
                    headers[name] = "\x00"
                else:
                    headers[name] = v.decode("latin-1")
        why = self.refusal(headers)
        if why is None:
            await self.app(scope, receive, send)
            return
        status, text = why
        if scope["type"] == "websocket":
            await receive()  # the websocket.connect message
            await send({"type": "websocket.close", "code": 1008, "reason": text[:120]})
            return
        from starlette.responses import PlainTextResponse

        await PlainTextResponse(text, status_code=status)(scope, receive, send)


def csp(host: str | None) -> str:
    """The Content-Security-Policy of a page served for ``Host`` ``host`` (already accepted by
    :class:`HostCheck`): the room's own scripts and styles, and the WebSocket of its own origin.
    The host is rebuilt from its parsed parts, never echoed."""
    split = _split_host(host)
    own = "" if split is None else " ws://{0} wss://{0}".format(_authority(*split))
    return (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        f"connect-src 'self'{own}; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )


# ---------------------------------------------------------------------------------- seats and seeds
def seed_refusal(hidden: bool, choices: Sequence[str], human_choices: Sequence[str]) -> str | None:
    """``None`` when a creator may choose the seed of a new game with the seat ``choices``, else
    why not: in a game with hidden information only when every person's seat is the creator's.

    Args:
        hidden: the game keeps something hidden (``not GameInfo.perfect_information``).
        choices: one per seat: ``"me"``, ``"invite"``, ``"open"`` or an agent name.
        human_choices: the choices that are persons' seats (``room.protocol.HUMAN_CHOICES``).
    """
    others = [i for i, c in enumerate(choices) if c in human_choices and c != "me"]
    if hidden and others:
        return (
            f"a seed may be given only when every person's seat is yours: in this game with hidden "
            f"information the seed decides the deal, and player{'s' if len(others) > 1 else ''} "
            f"{', '.join(str(i + 1) for i in others)} {'are' if len(others) > 1 else 'is'} for someone else. "
            "Leave the seed empty: the room draws it"
        )
    return None


def seats_refusal(hidden: bool, seats: Sequence[Seat], owner: str | None, seed_chosen: bool) -> str | None:
    """``None`` when the seats ``seats`` (as they would be after a change) are fair, else why not
    (see the module docstring).

    Args:
        hidden: the game keeps something hidden.
        seats: the seats after the change.
        owner: the digest of the game's owner token (the creator's holder).
        seed_chosen: the creator chose the seed.
    """
    if not hidden:
        return None
    groups: dict[object, list[int]] = {}
    for i, s in enumerate(seats):
        if s.kind != "human":
            continue
        # an open seat or an unopened invitation is someone else, each a person of its own
        key = (s.holder or s.token) if (s.claimed and s.token is not None) else ("nobody yet", i)
        groups.setdefault(key, []).append(i)
    if seed_chosen:
        others = [i for key, seats_ in groups.items() if key != owner for i in seats_]
        if others:
            return (
                "the creator chose this game's seed, which decides the hidden deal: its seats "
                "cannot go to anyone else (start a new game with the seed left empty)"
            )
    if len(groups) > 1:
        for seats_ in groups.values():
            if len(seats_) > 1:
                return (
                    "in a game with hidden information nobody may hold two seats while another "
                    f"person plays (or may join): a page holding players {', '.join(str(i + 1) for i in seats_)} "
                    "would show two hands"
                )
    return None


def person(seat: Seat) -> str | None:
    """Who holds ``seat`` (a person's seat whose token was used): its holder, or its token's
    digest in journals older than holders; ``None`` for an agent, an open seat or an invitation
    not yet opened."""
    return (seat.holder or seat.token) if seat.held else None


def seen_refusal(hidden: bool, label: str, new: Seat, seen: Collection[str]) -> str | None:
    """``None`` when a seat whose hidden cards the persons ``seen`` have seen (they held it) may
    go to ``new``, else why not: in a game with hidden information only to one of them (in
    practice the one person who held it) or to an agent.

    Args:
        hidden: the game keeps something hidden.
        label: the seat for people (``player 2``).
        new: the seat as it would be after the change.
        seen: the persons who have held the seat (:func:`person` of each).
    """
    if not hidden or not seen or new.kind != "human":
        return None
    who = person(new)
    if who is not None and who in seen:
        return None
    to = "another person" if who is not None else ("an invitation" if new.invited else "an open seat")
    return (
        f"{label}'s hidden cards were seen by the person who held it: in a game with hidden information "
        f"that seat may go only to that person or to an agent, not to {to} (who would play a hand "
        "someone else has read); start a new game to play with someone else"
    )


# ---------------------------------------------------------------------------------- what clients read
def client_text(e: BaseException) -> str:
    """An exception as a client may read it: for a file system error, its reason without the
    file's name (no server path ever reaches a page)."""
    if isinstance(e, OSError):
        return f"{type(e).__name__}: {e.strerror or 'the file system refused it'}"
    return f"{type(e).__name__}: {e}"


def safe_text(text: str) -> str:
    """``text`` with every character UTF-8 cannot encode (a lone surrogate such as ``"\\udc00"``,
    from a client's input quoted in an error) written as its escape: a text any response can
    send."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def check_encodable(data: Any, what: str) -> None:
    """Check that ``data`` can be written as a UTF-8 JSON line (as :mod:`room.journal` writes).

    Raises:
        ValueError: it holds text that UTF-8 cannot encode (a lone surrogate such as ``"\\ud800"``)
            or is not JSON data; the message says where.
    """
    try:
        json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError as e:
        bad = e.object[e.start : e.end].encode("unicode_escape").decode("ascii")
        raise ValueError(
            f"{what} holds text that is not valid Unicode ({bad}, a lone surrogate): expected text "
            "of whole characters; nothing was stored"
        ) from None
    except (TypeError, ValueError) as e:
        raise ValueError(f"{what} is not JSON data ({e}); nothing was stored") from None
