"""A search agent's move in a worker process that is stopped at a deadline.

Threads cannot be stopped, so a search agent (``alphabeta:D``, ``mcts:N``: their time grows with
the depth or simulations a browser picks) and an agent a game offers by name (``robot``) think in
a child process forked for the move (:func:`think_in_process`): the child inherits the agent and
the position (nothing is pickled but the answer), plays ``agent.act`` and sends back the action
and the agent's random generator state (so the agent's next moves are those it would have played
in a thread). When the deadline passes the child is killed (SIGKILL) and :class:`MoveTimeout` is
raised: the room reports the seat (the agent took too long; give the seat to another agent or a
person) and the game waits, unchanged. :func:`stop_all` kills the children still thinking (the
room's shutdown).
"""

from __future__ import annotations

import multiprocessing
import threading
import traceback

__all__ = ["MoveTimeout", "think_in_process", "call_in_process", "stop_all", "uses_process"]

_live: set = set()
_live_lock = threading.Lock()


class MoveTimeout(RuntimeError):
    """The agent did not answer within its time limit (its worker process was killed)."""


def uses_process(agent) -> bool:
    """Whether ``agent`` thinks in a worker process: the search baselines, whose cost the browser
    chooses, and the agents a game offers by name (their cost is the game's: the room cannot
    bound it). The others think in a thread (:mod:`room.scheduler`): random and greedy (one
    evaluation a move), the trained agents (a network with a fixed search; a process forked from a
    server whose PyTorch thread pools have started can deadlock)."""
    from training.agents.game import GameAgent
    from training.agents.search import AlphaBetaAgent, MCTSAgent

    return isinstance(agent, (AlphaBetaAgent, MCTSAgent, GameAgent))


def _move(agent, state, obs, seat: int) -> tuple[int, dict]:
    """``agent``'s action in ``state`` for ``seat`` (the state's frame) and its generator's state."""
    return int(state.to_state_action(seat, agent.act(state, obs))), agent.rng.bit_generator.state


def think_in_process(agent, state, obs, seat: int, timeout: float) -> int:
    """``agent``'s move in ``state`` for ``seat`` (the state's absolute frame), thought in a
    forked child process killed after ``timeout`` seconds (call it from a worker thread).

    Raises:
        MoveTimeout: no answer within ``timeout`` seconds (the child was killed).
        RuntimeError: the agent raised in the child (its type and message), or the child died.
    """
    action, rng_state = _in_child(
        _call_child,
        (_move, (agent, state, obs, seat)),
        timeout,
        f"the agent did not answer within {timeout:g} s (its search was stopped)",
        "the agent's worker process",
    )[1]
    agent.rng.bit_generator.state = rng_state
    return action


def _call_child(conn, func, args) -> None:
    try:
        conn.send(("ok", func(*args)))
    except BaseException as e:  # noqa: BLE001 - told to the parent
        conn.send(("error", f"{type(e).__name__}: {e}", traceback.format_exc(limit=5)))
    finally:
        conn.close()


def call_in_process(func, args: tuple, timeout: float):
    """``func(*args)`` computed in a forked child process killed after ``timeout`` seconds (call
    it from a worker thread): Python work that would otherwise hold the server's GIL, such as the
    agents' speed probe (:mod:`room.agents`), runs beside the event loop instead of stopping it.
    The child inherits ``func`` and ``args`` (nothing is pickled but the result).

    Raises:
        MoveTimeout: no result within ``timeout`` seconds (the child was killed).
        RuntimeError: ``func`` raised in the child (its type and message), or the child died.
    """
    answer = _in_child(
        _call_child,
        (func, args),
        timeout,
        f"no result within {timeout:g} s (the work was stopped)",
        "the worker process",
    )
    return answer[1]


def _in_child(target, args: tuple, timeout: float, late: str, who: str) -> tuple:
    """Fork a child running ``target(conn, *args)``, wait up to ``timeout`` seconds for its one
    message, kill it, and return the message (``("ok", ...)``), or raise ``MoveTimeout(late)`` or
    ``RuntimeError``."""
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=target, args=(child, *args), daemon=True)
    with _live_lock:
        proc.start()
        _live.add(proc)
    child.close()
    try:
        if not parent.poll(timeout):
            raise MoveTimeout(late)
        try:
            answer = parent.recv()
        except EOFError:
            raise RuntimeError(f"{who} died (exit code {proc.exitcode})") from None
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        parent.close()
        with _live_lock:
            _live.discard(proc)
    if answer[0] != "ok":
        raise RuntimeError(answer[1])
    return answer


def stop_all() -> None:
    """Kill every worker process still thinking (their threads then raise :class:`MoveTimeout`
    or ``RuntimeError``)."""
    with _live_lock:
        procs = list(_live)
    for p in procs:
        if p.is_alive():
            p.kill()
