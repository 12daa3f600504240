"""The room's resource bounds: one validated settings object (:class:`RoomLimits`), one option each.

Every bound is a command-line option of ``python -m room`` (:mod:`room.cli`, the option is the
field's name with dashes: ``--max-open-games``) with the default below. A request past a bound is
refused with a message that names the bound and its option, and nothing of it is stored (no game,
no journal, no upload file).

* **Games**: at most ``max_open_games`` unfinished games in the room, ``max_games_per_visitor`` of
  them created by one visitor; at most ``max_loaded_finished`` finished games (and uploaded
  records) kept in memory: the others are read back from their journal when opened (least recently
  used first out). At start only each journal's first and last lines are read for a finished
  game, so start-up time and memory do not grow with the number of finished games. The lobby lists
  the ``max_lobby_games`` newest games.
* **Uploads**: at most ``max_upload_bytes`` a file, counted while the body streams in (a larger
  upload is cut off as soon as it passes the bound, chunked or not), ``max_record_moves`` moves a
  record, ``max_record_memory`` bytes for its positions (estimated before they are built: the size
  of its first position, pickled, times the number of positions), ``max_uploads_per_visitor``
  uploads a visitor (since the server started).
* **Messages**: a game's ``env_kwargs`` at most ``max_kwargs_bytes`` of JSON, one string at most
  ``max_kwargs_string`` characters (the setting rides every lobby and state frame).
* **Caches**: each game keeps at most ``svg_cache_size`` drawings (board positions and previews,
  least recently used first out).
* **Agents**: the menus allow ``alphabeta:D`` up to ``max_alphabeta_depth`` and ``mcts:N`` up to
  ``max_mcts_simulations``; a search agent (``alphabeta``, ``mcts``) thinks in a worker process
  that is stopped after ``move_time_limit`` seconds: its seat is then reported (the agent took too
  long; give the seat to another agent or a person) and the game waits, unchanged.
* **Game length**: at most ``max_game_events`` journaled events a game (moves, the room's forced
  moves, undos, seat changes; a resignation, which ends the game, is always taken). No game has a
  step limit by default (``max_steps`` is an option of each game), and some never end by
  themselves (Ataxx without its 100-ply rule, TwixT with links by hand: links added and removed
  again) or loop through undos: the bound keeps each journal, its replay at start and the
  positions in memory bounded. A change past it is refused, the game unchanged; it can still be
  resigned.
* **Pages**: a page whose frames not yet sent pass ``max_send_queue_bytes`` (it does not read
  them) is dropped: its WebSocket is closed and it reconnects by reloading. At most
  ``max_connections`` pages (WebSockets) are open at once, ``max_connections_per_visitor`` of one
  visitor (each may hold ``max_send_queue_bytes``): one more is closed at once with code 1008 and
  a reason that says which bound.

A *visitor* is the address of the connection (``request.client.host``): on the default loopback
server every visitor is this machine's one person, so the per-visitor bounds then bound the room.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["RoomLimits"]


class RoomLimits(BaseModel):
    """The room's bounds (see the module docstring); each field is an option of :mod:`room.cli`.

    Raises:
        pydantic.ValidationError: a bound that is not a positive number (or an unknown field).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    max_open_games: int = Field(200, ge=1, description="unfinished games in the room")
    max_games_per_visitor: int = Field(20, ge=1, description="unfinished games one visitor created")
    max_loaded_finished: int = Field(16, ge=1, description="finished games and records kept in memory")
    max_lobby_games: int = Field(200, ge=1, description="games the lobby lists (the newest)")
    max_upload_bytes: int = Field(2 * 1024 * 1024, ge=1, description="bytes of one uploaded record")
    max_record_moves: int = Field(2000, ge=1, description="moves of one uploaded record")
    max_record_memory: int = Field(64 * 1024 * 1024, ge=1024, description="bytes of a record's positions")
    max_uploads_per_visitor: int = Field(50, ge=1, description="uploads of one visitor since the start")
    max_kwargs_bytes: int = Field(1024, ge=2, description="bytes of a game's env_kwargs as JSON")
    max_kwargs_string: int = Field(200, ge=1, description="characters of one string in env_kwargs")
    svg_cache_size: int = Field(64, ge=1, description="drawings a game keeps cached")
    max_alphabeta_depth: int = Field(4, ge=1, le=6, description="deepest alphabeta:D of the menus")
    max_mcts_simulations: int = Field(5000, ge=1, le=20000, description="largest mcts:N of the menus")
    move_time_limit: float = Field(30.0, gt=0, le=3600, description="seconds an agent may think a move")
    max_send_queue_bytes: int = Field(8 * 1024 * 1024, ge=1024, description="bytes queued for a page")
    max_game_events: int = Field(10000, ge=2, description="journaled changes of one game")
    max_connections: int = Field(256, ge=1, description="open WebSockets (pages) in the room")
    max_connections_per_visitor: int = Field(32, ge=1, description="open WebSockets (pages) of one visitor")

    def option(self, field: str) -> str:
        """The command-line option of ``field`` (``--max-open-games``)."""
        return "--" + field.replace("_", "-")
