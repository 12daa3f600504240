"""Agent scheduling: the agents of the room's games think in worker threads, off the event loop.

An agent thinks on a clone of the state in a worker thread (``anyio.to_thread``, at most
``threads`` at once): the event loop never waits for it, a slow agent slows no other game, and an
agent that raises is reported in its seat (the seat can then be given to someone else). Its move is
played through the room (journaled before any browser hears of it) only if the game did not
change meanwhile (an undo, a seat given away).

A search agent (``alphabeta``, ``mcts``) and an agent a game offers by name (e.g. a ``robot``)
think in a worker process instead, stopped after ``move_time_limit`` seconds (:mod:`room.workers`):
the seat is then reported ("the agent did not answer within N s"), the game waits unchanged, and
the seat can be given to another agent or a person (or to the same agent to retry).

The other agents (random, greedy, the trained agents with their fixed network and search) think
in a thread, which cannot be stopped: the room waits for one at most ``move_time_limit`` seconds
too, then reports the seat the same way and drops the answer when it comes (the thread runs to its
end in the background). The trained agents stay in threads because a process forked from a server
whose PyTorch thread pools have started can deadlock in the child, and a fresh process would load
the network for every move.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import anyio
import anyio.to_thread

from room.agents import RoomAgents
from room.game import RoomError, RoomGame
from room.workers import think_in_process, uses_process

__all__ = ["AgentScheduler"]

log = logging.getLogger("room")


def _think(agent, state, obs, seat: int, time_limit: float) -> int:
    """An agent's move (run in a worker thread), as an action of the state's absolute frame; a
    search agent's in a worker process stopped after ``time_limit`` seconds."""
    if uses_process(agent):
        return think_in_process(agent, state, obs, seat, time_limit)
    return int(state.to_state_action(seat, agent.act(state, obs)))


class AgentScheduler:
    """Starts the agent of the seat to move of a room's games, one turn at a time per game.

    Args:
        agents: the room's agents (:class:`~room.agents.RoomAgents`), which build a seat's agent.
        lock: the lock of a game (held while its state is read or changed).
        play: plays an agent's move in a game (journaled first; called with the game's lock held).
        broadcast: tells a game's pages that it changed.
        spawn: runs a coroutine as a task of the room (cancelled when the room stops).
        agent_delay: seconds an agent waits before moving in a game without a human seat (so
            people can watch; a seat out by resignation does not count); games with a person are
            answered at once.
        threads: how many agents may think at once (worker threads).
        move_time_limit: seconds a search agent may think a move (:mod:`room.workers`).
    """

    def __init__(
        self,
        agents: RoomAgents,
        *,
        lock: Callable[[RoomGame], asyncio.Lock],
        play: Callable[[RoomGame, int, str], Awaitable[None]],
        broadcast: Callable[[RoomGame], None],
        spawn: Callable[[Coroutine[Any, Any, None]], asyncio.Task],
        agent_delay: float = 0.5,
        threads: int = 16,
        move_time_limit: float = 30.0,
    ):
        self.agents = agents
        self.lock = lock
        self.play = play
        self.broadcast = broadcast
        self.spawn = spawn
        self.agent_delay = float(agent_delay)
        self.threads = int(threads)
        self.move_time_limit = float(move_time_limit)
        self._turns: dict[str, int] = {}
        self._tasks: dict[str, tuple[int, asyncio.Task]] = {}
        self._limiter: anyio.CapacityLimiter | None = None

    def attach(self, game: RoomGame, seat: int) -> None:
        """Build the agent of ``seat`` (an agent seat of ``game``); an agent that cannot play the
        game leaves the seat without a player and with its ``error``."""
        s = game.seats[seat]
        try:
            s.player = self.agents.make(
                s.agent,
                game.env,
                game.env_id,
                game.env_kwargs,
                seed=None if game.seed is None else game.seed * 1000 + seat,
            )
            s.spec = self.agents.spec_of(s.agent, game.env_id, game.env_kwargs)  # what the record names
            s.error = None
        except Exception as e:  # noqa: BLE001 - reported in the game, the seat can be given to someone else
            s.player = None
            # the agents' own messages may name the agent already ("agent 'x': ..."): once is enough
            s.error = f"agent {s.agent!r} cannot play: {str(e).removeprefix(f'agent {s.agent!r}: ')}"

    def drop_stale(self, game: RoomGame) -> None:
        """Cancel the turn of an agent that is thinking on a former version of ``game`` (an undo,
        a seat given away, a resignation changed it): its task stops waiting for the answer (the
        worker thread cannot be interrupted; its answer is dropped when it comes), and its seat no
        longer shows ``thinking``. Caller holds the game's lock or is on the event loop."""
        turn = self._tasks.get(game.id)
        if turn is None or turn[0] == game.version:
            return
        del self._tasks[game.id]
        turn[1].cancel()
        if game.thinking is not None:
            game.thinking = None
            game.touch()

    def kick(self, game: RoomGame) -> None:
        """Start the agent of the seat to move, if it is an agent's turn and none is thinking
        (a stale turn is cancelled first: :meth:`drop_stale`)."""
        self.drop_stale(game)
        if game.kind != "play" or game.over or game.read_only:
            return
        seat = game.state.current_player
        s = game.seats[seat]
        if s.kind != "agent" or s.player is None or s.error is not None:
            return
        if self._turns.get(game.id) == game.version:
            return
        self._turns[game.id] = game.version
        self._tasks[game.id] = (game.version, self.spawn(self._turn(game, game.version, seat)))

    async def _turn(self, game: RoomGame, version: int, seat: int) -> None:
        out = game.out_seats()  # people who resigned watch the rest: the agents keep the pace
        if self.agent_delay > 0 and all(s.kind == "agent" for i, s in enumerate(game.seats) if i not in out):
            await asyncio.sleep(self.agent_delay)
        lock = self.lock(game)
        async with lock:
            if game.version != version or game.over:
                return
            agent = game.seats[seat].player
            assert game.env is not None  # kick: only a game being played has agent turns
            state = game.env.state.clone()
            obs = game.env.observe(game.env.possible_agents[seat])
            obs = {k: (v.copy() if hasattr(v, "copy") else v) for k, v in obs.items()}
            game.thinking = seat
            game.touch()
        self.broadcast(game)
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.threads)
        # a thread cannot be stopped: stop waiting for it (a worker process stops itself, a little later)
        wait = self.move_time_limit if not uses_process(agent) else self.move_time_limit + 10
        try:
            with anyio.fail_after(wait):
                action = await anyio.to_thread.run_sync(
                    _think, agent, state, obs, seat, self.move_time_limit, limiter=self._limiter, abandon_on_cancel=True
                )
            failure = None
        except TimeoutError:
            failure = (
                f"MoveTimeout: the agent did not answer within {self.move_time_limit:g} s (--move-time-limit; "
                "it thinks in a thread, which cannot be stopped: its answer will be dropped)"
            )
            log.warning("game %s: agent %s of seat %d: %s", game.id, game.seats[seat].agent, seat, failure)
        except Exception as e:  # noqa: BLE001 - any agent failure is reported in its game
            failure = f"{type(e).__name__}: {e}"
            log.warning("game %s: agent %s of seat %d failed: %s", game.id, game.seats[seat].agent, seat, failure)
        async with lock:
            if self._tasks.get(game.id, (None,))[0] == version:  # else drop_stale ended this turn
                del self._tasks[game.id]
                if game.thinking == seat:
                    game.thinking = None
                    game.touch()
            if game.version != version:
                return
            if failure is None:
                try:
                    await self.play(game, action, "agent")
                except RoomError as e:  # its move was not journaled (the records folder refused it)
                    game.seats[seat].error = f"{e} Give the seat to the same agent (or someone else) to try again."
                    game.touch()
                except Exception as e:  # noqa: BLE001 - an illegal answer
                    failure = f"{type(e).__name__}: {e}"
            if failure is not None:
                game.seats[seat].error = (
                    f"the agent {game.seats[seat].agent} failed: {failure}. Give the seat to "
                    f"someone else (or to the same agent to retry)"
                )
                game.touch()
        self.broadcast(game)
        self.kick(game)
