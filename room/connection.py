"""One browser page's WebSocket as the room sees it: its queue of frames and what it showed."""

from __future__ import annotations

import asyncio
import json
from typing import Any

__all__ = ["Connection", "MAX_QUEUE"]

#: Frames waiting for a slow browser before the room drops its connection.
MAX_QUEUE = 512


class Connection:
    """One browser page's WebSocket: a queue of frames written by its own task (:meth:`writer`), the
    token digests it showed, the game it watches, whether it follows the lobby.

    Args:
        ws: the page's WebSocket (anything with an async ``send_text``).
    """

    def __init__(self, ws: Any):
        self.ws = ws
        self.queue: asyncio.Queue = asyncio.Queue()
        self.tokens: set[str] = set()
        self.game: str | None = None
        self.lobby = False
        self.closed = False

    def send(self, msg: dict) -> None:
        """Queue ``msg`` (as compact JSON) for the page; a page more than :data:`MAX_QUEUE` frames
        behind is dropped."""
        if self.closed:
            return
        if self.queue.qsize() > MAX_QUEUE:
            self.closed = True
            self.queue.put_nowait(None)
            return
        self.queue.put_nowait(json.dumps(msg, separators=(",", ":")))

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
        self.closed = True
