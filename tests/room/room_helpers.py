"""Helpers of the play room's tests (tests/room/test_room_protocol.py, tests/room/test_room_browser.py)."""

from __future__ import annotations

import json
import re

import anyio

from training.agents import Agent

__all__ = ["Page", "FailingAgent", "SlowAgent", "agents_with", "hidden_card_patterns", "hidden_cards_in"]


class Page:
    """One browser page's WebSocket in Starlette's ``TestClient``, with a timed receive (the
    client's own ``receive`` waits forever) and every frame kept, raw, in :attr:`frames`."""

    def __init__(self, ws):
        self.ws = ws
        self.frames: list[str] = []

    def send(self, msg) -> None:
        self.ws.send_text(msg if isinstance(msg, str) else json.dumps(msg))

    def recv(self, timeout: float = 15) -> dict:
        async def get():
            with anyio.fail_after(timeout):
                return await self.ws._send_rx.receive()  # TestClient's queue of frames (no public timeout)

        message = self.ws.portal.call(get)
        if message.get("type") == "websocket.close":
            raise ConnectionError(f"the room closed the WebSocket: {message}")
        self.frames.append(message["text"])
        return json.loads(message["text"])

    def until(self, pred, timeout: float = 15, limit: int = 400) -> dict:
        """The first frame for which ``pred(frame)`` is true (frames before it are kept too)."""
        for _ in range(limit):
            m = self.recv(timeout)
            if pred(m):
                return m
        raise AssertionError(f"no matching frame in {limit} frames")

    def error(self, msg) -> str:
        """Send ``msg`` and return the message of the ``error`` frame it gets."""
        self.send(msg)
        m = self.until(lambda f: f["type"] == "error")
        return m["message"]

    def state(self, pred=lambda f: True) -> dict:
        return self.until(lambda f: f["type"] == "state" and pred(f))


class FailingAgent(Agent):
    """An agent that raises on every move."""

    name = "failing"

    def _act(self, state, obs):
        raise RuntimeError("the failing agent failed on purpose")


class SlowAgent(Agent):
    """A random agent that first sleeps (a slow search)."""

    name = "slow"
    seconds = 3.0

    def _act(self, state, obs):
        import time

        time.sleep(self.seconds)
        return state.legal_actions()[0]


def agents_with(**extra):
    """A :class:`room.agents.RoomAgents` that also offers ``name=AgentClass`` agents."""
    from room.agents import RoomAgents

    class TestAgents(RoomAgents):
        def spec_of(self, name, env_id, env_kwargs):
            return name if name in extra else super().spec_of(name, env_id, env_kwargs)

        def refusal(self, name, env, env_id, env_kwargs):
            # the tests' own agents are seated whatever the speed probe says (no test depends on
            # the machine's speed); the room's agents as the menus say
            return None if name in extra else super().refusal(name, env, env_id, env_kwargs)

        def make(self, name, env, env_id, env_kwargs, seed):
            if name in extra:
                return extra[name](seed)
            return super().make(name, env, env_id, env_kwargs, seed)

    return TestAgents()


def hidden_card_patterns(state, seat: int) -> list[re.Pattern]:
    """How a card of ``seat``'s hand would show in a frame: its key or label (``card:17``,
    ``card 17``), a move naming it (``17r1@...``), a text hand listing it (``hand [7, 17]``)."""
    return [
        re.compile(rf"card[: ]{n}(?!\d)|(?<![\w.@,+-]){n}r[0-3]@|hand \[[^\]]*(?<!\d){n}(?!\d)")
        for n in state.hand(seat)
    ]


def hidden_cards_in(frame: str, state, seat: int) -> list[str]:
    """The texts of ``frame`` that show a card of ``seat``'s hand in ``state`` (none: nothing leaks)."""
    return [m.group(0) for pattern in hidden_card_patterns(state, seat) for m in [pattern.search(frame)] if m]
