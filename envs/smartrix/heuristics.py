"""Smartrix heuristics for the greedy baseline and for search agents' evaluation.

The contract of :mod:`envs.core.heuristics`: ``evaluate`` is :func:`smartrix_score_gap`,
``greedy_action`` is :func:`smartrix_greedy_action`, ``VALUE_SCALE`` is 20 card points.

Both functions use only what the player to evaluate (or to move) may know: the public state
(table, collected cards and points, hand sizes, pile size, who is out) and that player's own hand.
Other players' hands are never read: :func:`smartrix_score_gap` values an opponent's hand as its
size times the mean value of the cards the evaluating player has not seen.
"""

from __future__ import annotations

import numpy as np

from envs.smartrix.cards import CARD_VALUES
from envs.smartrix.state import SmartrixState

__all__ = [
    "evaluate",
    "greedy_action",
    "VALUE_SCALE",
    "smartrix_score_gap",
    "smartrix_greedy_action",
    "expected_hand_value",
]

#: Card points per unit of ``atanh`` value for MCTS leaf evaluation.
VALUE_SCALE = 20.0


def expected_hand_value(state: SmartrixState, player: int, other: int) -> float:
    """``other``'s hand value as ``player`` may estimate it: the true value for ``other == player``,
    else hand size x mean value of the cards ``player`` has not seen (public information only)."""
    if other == player:
        return float(state.hand_value(player))
    unseen = state.unseen_cards(player)
    if not unseen:
        return 0.0
    mean = float(CARD_VALUES[np.asarray(unseen) - 1].mean())
    return state.hand_size(other) * mean


def smartrix_score_gap(state: SmartrixState, player: int) -> float:
    """``player``'s (team's) estimated score minus the best opponent's (other team's).

    Score = collected points - hand value; opponents' hand values are estimated from public
    information (:func:`expected_hand_value`), never read. Once the game is over the true scores
    are used (hands are then revealed).
    """
    n = state.num_players
    if state.is_terminal():
        est = [float(s) for s in state.scores()]
    else:
        est = [state.points(q) - expected_hand_value(state, player, q) for q in range(n)]
    if state.team_game:
        team = [est[0] + est[2], est[1] + est[3]]
        mine = state.team_of(player)
        return team[mine] - team[1 - mine]
    return est[player] - max(est[q] for q in range(n) if q != player)


def smartrix_greedy_action(state: SmartrixState, rng: np.random.Generator) -> int:
    """One-ply greedy move for the player to move (a state action).

    Maximise the points collected now (the values of every card the placement collects, the
    placed card included); with no collection available, shed the highest-value card that can be
    placed (anywhere); with no placement at all, pass. Ties are broken uniformly with ``rng``. Uses
    only the mover's own hand and the public table.
    """
    legal = state.legal_placements()
    if not legal:
        return state.pass_action
    ww = state.window * state.window
    legal_a = np.asarray(legal)
    cards = legal_a // (4 * ww)  # card index
    cells = legal_a % ww
    gain = np.zeros(len(legal), dtype=np.int64)
    cache: dict[int, int] = {}
    for i, (a, cell) in enumerate(zip(legal, cells.tolist())):
        if cell not in cache:
            taken = state.placement_collects(a)
            cache[cell] = -1 if not taken else int(CARD_VALUES[np.asarray(taken) - 1].sum())
        if cache[cell] >= 0:
            gain[i] = cache[cell] + CARD_VALUES[cards[i]]
    if gain.max() > 0:
        best = np.flatnonzero(gain == gain.max())
    else:
        vals = CARD_VALUES[cards]
        best = np.flatnonzero(vals == vals.max())
    return int(legal_a[best[rng.integers(len(best))]])


#: The contract of :mod:`envs.core.heuristics`: the estimated score gap evaluates, the greedy policy moves.
evaluate = smartrix_score_gap
greedy_action = smartrix_greedy_action
