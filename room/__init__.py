"""The play room: every game of the library in the browser, against agents or people, with
spectators and replays (``pip install -e ".[room]"``, then ``python -m room``).

Nothing here names a game: boards are drawn by each game's ``to_svg`` and chosen with clicks
along its ``action_paths`` (:mod:`envs.core.svg`); seats, moves, results and records come from
the state contract (:mod:`envs.core.state`) and the registry.

Modules: :mod:`~room.server` (the Starlette application, :func:`create_app`),
:mod:`~room.game` (one game and what each viewer may see), :mod:`~room.journal`
(one journal file per game), :mod:`~room.agents` (the agents of the seat menus),
:mod:`~room.cli` (the command line).

Pages: ``/`` the lobby, ``/game/ID`` a game (a share link adds ``#seat=S&token=T``: the fragment
never reaches the server's logs), ``/game/ID/record.json`` the library's JSON record (refused
with 409 for a game with hidden information or chance until it is over: the record holds the
deal), ``POST /upload`` (form field ``file``: a record, ``.json`` or a format a game registered,
at most 2 MiB) opens a record as a replay. Static files under ``/static``.

**Protocol.** One WebSocket per page at ``/ws``; every message is a JSON object with a ``type``.
A message from a browser is at most 64 KiB (the server closes a connection sending more than
1 MiB at once); it is checked (JSON, known type, each field present
with its type and no other, the game and seat exist, the browser's tokens hold the seat, it is
that seat's turn, the action is legal) and any refusal is answered with
``{"type": "error", "request": <type or null>, "message": <what was wrong and what was expected>}``,
the game unchanged.

Browser to room:

* ``{"type": "lobby"}``: follow the lobby; answered with ``lobby`` now and after changes.
* ``{"type": "setup", "env_id", "env_kwargs"?}``: the seats of a setting and the agents that can
  play it; answered with ``setup``.
* ``{"type": "create", "env_id", "env_kwargs"?, "seats": [choice per seat], "seed"?}``: a new
  game; a choice is ``"me"`` (this browser), ``"invite"`` (a token for a share link), ``"open"``
  (anyone may join from the lobby) or an agent name from the menus; answered with ``created``.
* ``{"type": "watch", "game", "tokens"?: [token...]}``: show this game on this page, as the seats
  the tokens hold (none: a spectator); answered with ``state``, and again after every change. An
  invitation's token opens its seat once: the room answers ``joined`` with a fresh token for this
  browser and the link's token stops working (journaled).
* ``{"type": "join", "game", "seat"}``: take an open seat; answered with ``joined``.
* ``{"type": "move", "game", "action"}`` or ``{"type": "move", "game", "notation"}``: play for the
  held seat to move (action in the state's absolute frame, or the move in the game's notation).
* ``{"type": "preview", "game", "action"}``: the drawing with ``action`` pending (seat to move
  only); answered with ``preview``.
* ``{"type": "position", "game", "ply"}``: position ``ply`` (0 = the start) for the replay
  controls, drawn for this page's viewer; answered with ``position``.
* ``{"type": "undo", "game"}``: back to before your last move (only when every other seat is an
  agent, and not once the game is over). ``{"type": "resign", "game", "seat"?}``.
* ``{"type": "seat", "game", "seat", "to"}``: give a seat to ``"me"``, ``"invite"``, ``"open"``
  or an agent; answered with ``seated``. Who may: a seat held by a person (a token was issued and
  used: ``"me"``, a join, an opened invitation) only by its holder; an agent seat, an open seat or
  an invitation not yet opened by the game's creator (owner token) or any player of the game.

Room to browser:

* ``lobby``: ``games`` (each: ``game``, ``kind`` "play"/"record", ``env_id``, ``name``,
  ``env_kwargs``, ``created``, ``ply``, ``over``, ``to_move``, ``outcome``, ``seats``,
  ``problem``), ``envs`` (each: ``id``, ``name``, ``arguments`` [{name, default}], ``variants``,
  ``notation``), ``formats`` (readable record suffixes), ``problems`` (journals that could not
  be read).
* ``setup``: ``env_id``, ``env_kwargs``, ``seats`` [{seat, label}], ``teams``, ``agents``
  [{name, summary}], ``notation``.
* ``created``: ``game``, ``owner`` (token to change seats), ``tokens`` {seat: token} for the
  ``me`` and ``invite`` seats, ``me``, ``invite`` (seat lists).
* ``joined`` / ``seated``: ``game``, ``seat``, ``token`` (``null`` for an agent or open seat).
* ``state``: ``game``, ``kind``, ``env_id``, ``name``, ``env_kwargs``, ``ply``, ``moves`` (the
  game in notation, public), ``seats`` [{seat, label, kind, agent, open, invited, error, thinking}],
  ``to_move``, ``over``, ``outcome`` ({result, termination, winners, scores} or null),
  ``scores`` (only in games of perfect information or once over), ``confirm``,
  ``notation_help``, ``problem``, ``version``, ``downloadable`` (null, or why not), and for
  this page: ``you`` (held seats), ``viewer``, ``svg`` (``to_svg(viewer)``), ``phase`` (the
  board's status line), ``legal`` (only to the holder of the seat to move: [{a, n (notation),
  p (click paths), k (kind)}], else null), ``can_undo``, ``can_resign``, ``owner`` (this page
  shows the owner token), ``can_seat`` (the seats this page may give away).
* ``preview``: ``game``, ``action``, ``ply``, ``svg``. ``position``: ``game``, ``ply``, ``svg``,
  ``phase``.

**Hidden information.** Every frame is built for its page's viewer only (see
:meth:`room.game.RoomGame.view`): a seat's drawing is ``to_svg(seat)``, a spectator's
``to_svg(None)`` (public until the end); legal actions and paths (which name the mover's cards
or tiles) go only to the mover's page; scores, which may count cards in hand, only when the game
has perfect information or is over. Seat tokens are random, kept by the room only as SHA-256
digests.

**Agents** think in worker threads (``anyio.to_thread``, at most 16 at once), on a clone of the
state: the event loop never waits for them, a slow agent slows no other game, and an agent that
raises is reported in its seat; its seat can then be given to someone else. Moves are appended
to the game's journal (flushed and fsynced) before any browser hears of them.
"""

__all__ = ["create_app", "Room"]


def __getattr__(name):
    if name in ("create_app", "Room"):
        from room import server

        return getattr(server, name)
    raise AttributeError(f"module 'room' has no attribute {name!r}")
