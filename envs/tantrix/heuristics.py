"""Tantrix heuristics: score gap (search evaluation) and a greedy one-ply policy.

The contract of :mod:`envs.core.heuristics`: ``evaluate`` is :func:`tantrix_score_gap`,
``greedy_action`` is :func:`tantrix_greedy_action`, ``VALUE_SCALE`` is 5 points. The game's
named agent ``robot`` (agent spec ``robot``) is :func:`envs.tantrix.robot.robot_agent`, declared in
``TantrixState.info.agents`` (this module does not import the robot, which uses it).

* :func:`tantrix_score_gap` — the player's (team's) current score minus the best opponent's.
* :func:`tantrix_greedy_action` — the placement that makes the player's own colour grow most: it
  maximises the value of the own-colour line or loop through the placed tile (tiles in the line,
  twice the tiles of a closed loop), then the player's resulting score estimate; ties broken
  uniformly at random. Uses the state's incremental line tables: no clone, a few microseconds
  per candidate.
"""

from __future__ import annotations

import numpy as np

from envs.tantrix.state import TantrixState
from envs.tantrix.tiles import TR_SEG

__all__ = ["evaluate", "greedy_action", "VALUE_SCALE", "tantrix_score_gap", "tantrix_greedy_action", "placement_value"]

#: Score points (tiles of line) per unit of ``atanh`` value for MCTS leaf evaluation.
VALUE_SCALE = 5.0


def tantrix_score_gap(state: TantrixState, player: int) -> float:
    """Score of ``player``'s colour minus the best score among the other sides' colours."""
    sc = state.scores()
    team = state.team_of(player)
    others = [sc[p] for p in range(state.num_players) if state.team_of(p) != team]
    return float(sc[player] - max(others))


def placement_value(state: TantrixState, action: int, colour: int) -> int:
    """Value of the ``colour`` line through the tile ``action`` would place: its length in tiles,
    or twice that if the placement closes a loop (0 if the tile lacks the colour)."""
    slot, rot, q, r = state.decode(action)
    t = state._hands[state._player][slot]
    seg = TR_SEG[t * 6 + rot][colour]
    if not seg:
        return 0
    g = state._g
    c = g.origin + q + r * g.S
    lines = [state._line_at(colour, c + g.nb[e]) for e in seg if state._tile[c + g.nb[e]]]
    if len(lines) == 2 and lines[0][0] == lines[1][0]:  # both ends on one line: the tile closes a loop
        return 2 * (lines[0][1] + 1)
    return 1 + sum(tiles for _, tiles in lines)


def tantrix_greedy_action(state: TantrixState, rng: np.random.Generator) -> int:
    """A legal action maximising the growth of the mover's own line/loop (random tie-break)."""
    legal = state.legal_actions()
    if not legal:
        raise ValueError("no legal action: the game is over")
    colour = state.colour_of(state.current_player)
    best, best_val = [], -1
    for a in legal:
        v = placement_value(state, a, colour)
        if v > best_val:
            best, best_val = [a], v
        elif v == best_val:
            best.append(a)
    return int(best[int(rng.integers(len(best)))])


#: The contract of :mod:`envs.core.heuristics`: the score gap evaluates, the line-growth move is greedy.
evaluate = tantrix_score_gap
greedy_action = tantrix_greedy_action
