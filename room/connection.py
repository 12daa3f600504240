"""One browser page's WebSocket as the room sees it: its queue of frames and what it showed."""

from __future__ import annotations

import asyncio
import json
from typing import Any

__all__ = ["Connection", "MAX_QUEUE", "MAX_QUEUE_BYTES"]

#: Frames waiting for a slow browser before the room drops its connection.
MAX_QUEUE = 512
#: Bytes of frames waiting for a slow browser before the room drops its connection (default of
#: ``RoomLimits.max_send_queue_bytes``).
MAX_QUEUE_BYTES = 8 * 1024 * 1024


class Connection:
    """One browser page's WebSocket: a queue of frames written by its own task (:meth:`writer`), the
    token digests it showed, the game it watches, whether it follows the lobby.

    Args:
        ws: the page's WebSocket (anything with an async ``send_text``).
        visitor: who the page is for the per-visitor bounds (the connection's address).
        max_bytes: the bytes of frames not yet sent past which the page is dropped.

    Attributes:
        dropped: set when the page fell behind (:data:`MAX_QUEUE` frames or ``max_bytes`` not yet
            sent): nothing more is queued, the writer stops and the room closes the WebSocket.
    """

    def __init__(self, ws: Any, visitor: str = "", max_bytes: int = MAX_QUEUE_BYTES):
        self.ws = ws
        self.visitor = visitor
        self.max_bytes = int(max_bytes)
        self.queue: asyncio.Queue = asyncio.Queue()
        self.queued_bytes = 0
        self.tokens: set[str] = set()
        self.game: str | None = None
        self.lobby = False
        self.closed = False
        self.dropped = asyncio.Event()

    def send(self, msg: dict) -> None:
        """Queue ``msg`` (as compact JSON) for the page; a page more than :data:`MAX_QUEUE` frames
        or ``max_bytes`` bytes behind is dropped (:attr:`dropped`)."""
        if self.closed:
            return
        text = json.dumps(msg, separators=(",", ":"))
        if self.queue.qsize() > MAX_QUEUE or self.queued_bytes + len(text) > self.max_bytes:
            self.closed = True
            self.dropped.set()
            self.queue.put_nowait(None)
            return
        self.queued_bytes += len(text)
        self.queue.put_nowait(text)

    async def writer(self) -> None:
        """Send the queued frames until the connection closes (run as the connection's task)."""
        while True:
            text = await self.queue.get()
            if text is None:
                break
            try:
                await self.ws.send_text(text)
            except Exception:  # noqa: BLE001 - the browser went away
                break
            finally:
                self.queued_bytes -= len(text)
        self.closed = True
