"""The command line of the play room::

    python -m room [--host 127.0.0.1] [--port 8000] [--records DIR] [--agent NAME=SPEC ...]
        [--agent-delay SECONDS] [--threads N] [--allowed-host NAME ...] [--max-open-games N ...]

It prints the room's URL and serves until interrupted. ``--records`` (default ``./room_records``)
holds one journal per game; ``--agent`` adds a named agent to the seat menus (a checkpoint
path or any spec of ``training.agents.make_agent``: only the command line names files).
``--threads`` (default 1) is torch's thread count for the agents' networks, in every agent thread
(:func:`training.threads.set_torch_threads`; nothing to set when torch is not installed).
``--allowed-host`` (repeatable) adds a host name the room answers to: by default only
127.0.0.1, localhost and [::1] (any port), and the ``--host`` address itself unless it is
0.0.0.0 or ::; a request naming any other host in ``Host`` is refused (DNS rebinding,
:mod:`room.trust`). The resource bounds (``--max-open-games``, ``--max-upload-bytes``,
``--move-time-limit``, ...) are the fields of :class:`room.limits.RoomLimits`, one option each with
its default. Exit status 2 for bad arguments, a missing ``room`` extra, or an ``--agent`` checkpoint without
the ``train`` extra (torch), each told in one ``error:`` line.
"""

from __future__ import annotations

import argparse
import sys

from training.cli import MissingExtraError, require_extra
from training.threads import add_threads_argument, set_torch_threads

__all__ = ["main", "ROOM_MODULES"]

#: The modules of the ``room`` extra (pyproject.toml), by import name.
ROOM_MODULES = ("starlette", "uvicorn", "jinja2", "multipart", "websockets", "pydantic")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m room",
        description=("Serve the play room: play every game in the browser against agents or people, watch, replay."),
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument(
        "--records",
        default="room_records",
        metavar="DIR",
        help="folder of the games' journals (default ./room_records)",
    )
    p.add_argument(
        "--agent",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="add an agent to the seat menus, e.g. mine=runs/x/checkpoints/final.zip (repeatable)",
    )
    p.add_argument(
        "--agent-delay",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="pause before each agent move in games without a person (0 to 60; default 0.5)",
    )
    p.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help=(
            "a host name the room answers to besides 127.0.0.1, localhost, [::1] and the --host address, "
            "e.g. myhost.lan (repeatable; any other Host is refused)"
        ),
    )
    add_threads_argument(p)
    from room.limits import RoomLimits

    bounds = p.add_argument_group("resource bounds (see docs/room.md, Bounds)")
    for name, field in RoomLimits.model_fields.items():
        kind = float if field.annotation is float else int
        bounds.add_argument(
            RoomLimits().option(name),
            dest=name,
            type=kind,
            default=field.default,
            metavar="N" if kind is int else "SECONDS",
            help=f"{field.description} (default {field.default})",
        )
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    require_extra(
        "room",
        "python -m room",
        ROOM_MODULES,
        as_command=True,
        hint="README, Play room: no torch needed, except for the trained agents",
    )
    if not 0 <= args.port <= 65535:
        print(f"error: --port must be from 0 to 65535, got {args.port}", file=sys.stderr)
        return 2
    if not 0 <= args.agent_delay <= 60:  # also refuses nan and inf
        print(f"error: --agent-delay must be a number of seconds from 0 to 60, got {args.agent_delay}", file=sys.stderr)
        return 2
    from pydantic import ValidationError

    from room.limits import RoomLimits

    try:
        limits = RoomLimits(**{name: getattr(args, name) for name in RoomLimits.model_fields})
    except ValidationError as e:
        err = e.errors(include_url=False)[0]
        name = str(err["loc"][0])
        print(f"error: {RoomLimits().option(name)}: {err['msg']}, got {err['input']!r}", file=sys.stderr)
        return 2
    set_torch_threads(args.threads, missing_ok=True)
    import uvicorn

    from room.agents import RoomAgents, parse_agent_option
    from room.app import create_app
    from room.trust import allowed_host

    try:
        hosts = [allowed_host(h) for h in args.allowed_host]
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.host not in ("0.0.0.0", "::", ""):
        try:
            hosts.append(allowed_host(args.host))
        except ValueError:
            pass  # not a name a browser sends in Host: the bind below says what is wrong with it
    try:
        named = dict(parse_agent_option(a) for a in args.agent)
        agents = RoomAgents(named, limits=limits)
        app = create_app(args.records, agents, agent_delay=args.agent_delay, allowed_hosts=hosts, limits=limits)
    except (ValueError, FileNotFoundError, MissingExtraError) as e:  # a checkpoint agent needs the train extra
        print(f"error: {e}", file=sys.stderr)
        return 2
    room = app.state.room
    for problem in room.problems:
        print(f"warning: {problem}", file=sys.stderr)
    import socket

    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as e:
        print(f"error: cannot listen on {args.host}:{args.port}: {e}", file=sys.stderr)
        return 2
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    unfinished = sum(1 for g in room.games.values() if g.kind == "play" and not g.over)
    print(
        f"Play room: http://{shown}:{port}/  (records in {room.records}: {len(room.index)} games, "
        f"{unfinished} unfinished; Ctrl+C stops)",
        flush=True,
    )
    config = uvicorn.Config(app, ws="websockets-sansio", log_level="warning", ws_max_size=1024 * 1024)
    uvicorn.Server(config).run(sockets=[sock])
    return 0
