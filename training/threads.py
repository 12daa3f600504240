"""Torch's thread count, set from one setting in every process that runs a network.

Torch starts with one intra-op thread per core. The networks here are small: one thread is the
fastest on a CPU, and it stays fast when other jobs share the cores, where torch's default
(every core) makes each process wait for the others (the games of ``python -m training.evaluate
ataxx_v0 --agents ataxx_quick random --games 20`` took 15 to 80 times as long with the default
as with one thread on a busy 2-core machine: docs/evaluation.md). So every command sets
it from one setting, default 1:

* ``python -m training.train``: the config's ``torch_threads``;
* ``python -m training.evaluate``, ``python -m training.play`` and the play room
  (``python -m room``): the ``--threads N`` option (:func:`add_threads_argument`).

The setting holds for the whole process: every thread that runs torch afterwards (the room's
agent threads, the tournament's games) uses it.
"""

from __future__ import annotations

import argparse

__all__ = ["DEFAULT_THREADS", "set_torch_threads", "thread_count", "add_threads_argument"]

#: The thread count of every command that runs a network, unless told otherwise.
DEFAULT_THREADS = 1


def _check(n: object) -> int:
    """``n`` if it is an ``int`` (not a ``bool``) of at least 1; else a ``TypeError`` or
    ``ValueError`` saying what was expected."""
    if not isinstance(n, int) or isinstance(n, bool):
        raise TypeError(f"torch's thread count must be an integer >= 1, got {n!r} ({type(n).__name__})")
    if n < 1:
        raise ValueError(f"torch's thread count must be an integer >= 1, got {n}")
    return n


def set_torch_threads(n: int, *, missing_ok: bool = False) -> bool:
    """Set torch's thread count for this process.

    Sets the intra-op threads (``torch.set_num_threads(n)``: the threads one operation such as a
    matrix product uses) and, when it can still be set, the inter-op pool
    (``torch.set_num_interop_threads(n)``). Torch lets the inter-op pool be sized only once and
    only before any parallel work started; later calls (a second call of this function, say)
    leave it as it is, without error. Imports torch.

    Args:
        n: the thread count, an ``int`` >= 1 (not a ``bool``).
        missing_ok: when torch is not installed, return False instead of raising (for commands
            that run a network only when one is asked for, such as ``training.play``).

    Returns:
        True when the count was set; False only with ``missing_ok`` and no torch.

    Raises:
        TypeError: ``n`` is not an ``int`` (or is a ``bool``).
        ValueError: ``n`` is below 1.
        ModuleNotFoundError: torch is not installed (unless ``missing_ok``).
    """
    _check(n)
    try:
        import torch
    except ModuleNotFoundError as e:
        if missing_ok and e.name == "torch":
            return False
        raise

    torch.set_num_threads(n)
    try:
        torch.set_num_interop_threads(n)
    except RuntimeError:  # already set, or inter-op work already started: torch allows one setting
        pass
    return True


def thread_count(text: str) -> int:
    """``argparse`` type of ``--threads``: an integer >= 1.

    Raises:
        argparse.ArgumentTypeError: not an integer, or below 1.
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a thread count, an integer >= 1, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a thread count, an integer >= 1, got {value}")
    return value


def add_threads_argument(parser: argparse.ArgumentParser) -> None:
    """Add ``--threads N`` (:func:`thread_count`; default :data:`DEFAULT_THREADS`) to ``parser``."""
    parser.add_argument(
        "--threads",
        type=thread_count,
        default=DEFAULT_THREADS,
        metavar="N",
        help=f"torch threads of the networks in this process (default {DEFAULT_THREADS}: "
        "fastest for these small networks, and when other jobs share the cores)",
    )
