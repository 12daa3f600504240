"""The play room: every game of the library in the browser, against agents or people, with
spectators and replays (``pip install -e ".[room]"``, then ``python -m room`` or ``tabletop-room``).

An application of its own on the games (:mod:`envs`) and the agents (:mod:`training.agents`):
nothing in ``envs`` or ``training`` imports it. Nothing here names a game: boards are drawn by each
game's ``to_svg`` and chosen with clicks along its ``action_paths`` (:mod:`envs.core.svg`); seats,
moves, results and records come from the state contract (:mod:`envs.core.state`) and the registry.

Modules:

* :mod:`room.protocol`: the messages between a page and the room, their schema (pydantic) and
  its documentation;
* :mod:`room.games`: the game-room logic (:class:`~room.games.Room`: games, seats, moves, undo,
  resign, the lobby), behind the protocol;
* :mod:`room.game`: one game and what each viewer may see;
* :mod:`room.scheduler`: the agents thinking in worker threads; :mod:`room.agents`: the agents of
  the seat menus;
* :mod:`room.journal`: one journal file per game; :mod:`room.records`: the records folder read
  back at start;
* :mod:`room.connection`: one page's WebSocket; :mod:`room.app`: the HTTP and WebSocket routes
  (:func:`~room.app.create_app`, the Starlette application);
* :mod:`room.trust`: the host names and origins the room answers to, and who may hold which seats
  of a game with hidden information;
* :mod:`room.words`: each game's words for players (option labels and help, variant labels,
  how to play, the board's legend: ``state.words()``, :mod:`envs.core.words`) beside the API's
  names;
* :mod:`room.limits`: the resource bounds (:class:`~room.limits.RoomLimits`, one option each);
  :mod:`room.shelf`: finished games off memory; :mod:`room.workers`: search agents in worker
  processes stopped at their move time limit;
* :mod:`room.cli`: the command line. The pages' templates are in ``templates/``, their scripts
  (one per page, and ``common.js``) and style in ``static/``.

**Hidden information.** Every frame is built for its page's viewer only (see
:meth:`room.game.RoomGame.view`): a seat's drawing is ``to_svg(seat)``, a spectator's
``to_svg(None)`` (public until the end); legal actions and paths (which name the mover's cards
or tiles) go only to the mover's page; scores, which may count cards in hand, only when the game
has perfect information or is over. Seat tokens are random, kept by the room only as SHA-256
digests. In a game with hidden information and more than one person the room draws the seed and
nobody holds two seats (:mod:`room.trust`).

**Agents** think in worker threads (``anyio.to_thread``, at most 16 at once), on a clone of the
state: the event loop never waits for them, a slow agent slows no other game, and an agent that
raises is reported in its seat; its seat can then be given to someone else. Moves are appended
to the game's journal (flushed and fsynced) before any browser hears of them.
"""

__all__ = ["create_app", "Room"]


def __getattr__(name):
    if name == "create_app":
        from room.app import create_app

        return create_app
    if name == "Room":
        from room.games import Room

        return Room
    raise AttributeError(f"module 'room' has no attribute {name!r}")
