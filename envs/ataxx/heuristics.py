"""Ataxx heuristics (the contract of :mod:`envs.core.heuristics`): material for search, one ply for greedy.

* :func:`evaluate` — the stone difference, own minus opponent's (the usual Ataxx evaluation).
* :func:`greedy_action` — the move after which that difference is largest for the mover, a move
  that wins outright first (:func:`envs.core.heuristics.one_ply_greedy`); ties uniformly at random.
* :data:`VALUE_SCALE` — 10 stones per unit of ``atanh`` value for MCTS leaves.
"""

from __future__ import annotations

import numpy as np

from envs.ataxx.state import AtaxxState
from envs.core.heuristics import one_ply_greedy

__all__ = ["evaluate", "greedy_action", "VALUE_SCALE", "material"]

#: Stones per unit of ``atanh`` value (MCTS leaf evaluation ``tanh(evaluate / VALUE_SCALE)``).
VALUE_SCALE = 10.0


def material(state: AtaxxState, player: int) -> float:
    """Stone difference (own minus opponent) from ``player``'s point of view.

    Args:
        state: an :class:`AtaxxState`.
        player: 0 (x) or 1 (o).

    Returns:
        ``own stones - opponent stones`` as a float (gaps and empty squares do not count).
    """
    nx, no = state.stone_counts()
    return float(nx - no) if player == 0 else float(no - nx)


#: The static evaluation of the contract: :func:`material`.
evaluate = material


def greedy_action(state: AtaxxState, rng: np.random.Generator) -> int:
    """The one-ply greedy move: most stones gained (stone difference after the move), a move that
    wins at once before any other; ties broken with one ``rng.integers`` draw.

    Args:
        state: the position (not modified); ``state.current_player`` moves.
        rng: the tie-breaking generator.

    Returns:
        An action index (absolute frame; Ataxx has no other).

    Raises:
        ValueError: the game is over.
    """
    return one_ply_greedy(state, rng, material)
