"""Connection distances for TwixT: how many more pegs a colour needs to join its borders.

Used by the TwixT greedy baseline and as the evaluation of search agents: the contract of
:mod:`envs.core.heuristics` is :func:`evaluate` (the distance gap), :func:`greedy_action` (the
hole on the mover's shortest remaining connection) and :data:`VALUE_SCALE` (10 holes). Double
TwixT shares them (a seat's colour is ``seat % 2``). A colour's *distance* is the least number of empty holes on a path
of knight steps between its two borders that uses only holes the colour may still use (empty
or its own pegs, inside its legal area) and only steps no existing link blocks under the active
rules — the graph of the early-draw test (``TwixtState.can_still_connect``), with own pegs free.
It ignores that the opponent moves in between, so it is a lower bound, not a forecast.

All searches run on Python-int bitboards (bit ``row * S + col``) with a 0-1 breadth-first
search; the tables come from :func:`envs.twixt.geometry.geometry`.
"""

from __future__ import annotations

import numpy as np

from envs.twixt.geometry import geometry
from envs.twixt.state import TwixtState

__all__ = [
    "evaluate",
    "greedy_action",
    "VALUE_SCALE",
    "distance_maps",
    "connection_distance",
    "distance_gap",
    "manual_followup",
    "UNREACHABLE",
]

#: Connection-distance holes per unit of ``atanh`` value for MCTS leaf evaluation.
VALUE_SCALE = 10.0

#: Distance reported for holes (or colours) that cannot reach a border at all.
UNREACHABLE = 10_000


def _board(state: TwixtState, colour: int):
    """(ok step masks, own peg bits, allowed hole bits, tables) for ``colour``."""
    g = geometry(state.board_size)
    ok, own, allowed = state.connection_bitboards(colour)
    return ok, own, allowed, g, g.bits()


def _levels(g, ok, own: int, allowed: int, start: int) -> list[int]:
    """0-1 BFS from the holes ``start``: ``levels[k]`` = holes at distance ``k`` (own pegs cost 0,
    empty holes 1, counting the hole itself)."""
    o = g.koff

    def expand(x: int) -> int:
        return (
            ((x & ok[0]) << o[0])
            | ((x >> o[0]) & ok[0])
            | ((x & ok[1]) << o[1])
            | ((x >> o[1]) & ok[1])
            | ((x & ok[2]) << o[2])
            | ((x >> o[2]) & ok[2])
            | ((x & ok[3]) << o[3])
            | ((x >> o[3]) & ok[3])
        )

    own &= allowed
    empty = allowed & ~own
    reached = 0

    def close(x: int) -> int:  # add the own pegs reachable from x through own pegs (cost 0)
        acc = frontier = x
        while frontier:
            frontier = expand(frontier) & own & ~reached & ~acc
            acc |= frontier
        return acc

    start &= allowed
    level = close(start & own)
    reached |= level
    levels = [level]
    while True:
        cand = (expand(levels[-1]) | (start if len(levels) == 1 else 0)) & empty & ~reached
        if not cand:
            # Own pegs next to nothing new: the search is over.
            break
        level = close(cand)
        reached |= level
        levels.append(level)
    return levels


def _to_array(levels: list[int], n: int) -> np.ndarray:
    out = np.full(n, UNREACHABLE, dtype=np.int32)
    for k, bits in enumerate(levels):
        while bits:
            low = bits & -bits
            out[low.bit_length() - 1] = k
            bits ^= low
    return out


def distance_maps(state: TwixtState, colour: int) -> tuple[np.ndarray, np.ndarray, int]:
    """Distances of every hole from ``colour``'s two borders.

    Returns:
        ``(from_first, from_second, total)``: two ``int32 (S*S,)`` arrays, the least number of
        empty holes on a path from the first border (red: row 1; black: column a) or from the
        second border to each hole, the hole included (:data:`UNREACHABLE` where there is none);
        and ``total``, the colour's connection distance (:func:`connection_distance`).
    """
    ok, own, allowed, g, b = _board(state, colour)
    first = _levels(g, ok, own, allowed, b.src[colour])
    second = _levels(g, ok, own, allowed, b.dst[colour])
    dst = b.dst[colour]
    total = next((k for k, bits in enumerate(first) if bits & dst), UNREACHABLE)
    return _to_array(first, g.n), _to_array(second, g.n), total


def connection_distance(state: TwixtState, colour: int) -> int:
    """Least number of pegs ``colour`` still has to place to join its borders (0 once it has
    won; :data:`UNREACHABLE` when it cannot connect any more)."""
    ok, own, allowed, g, b = _board(state, colour)
    dst = b.dst[colour]
    for k, bits in enumerate(_levels(g, ok, own, allowed, b.src[colour])):
        if bits & dst:
            return k
    return UNREACHABLE


def manual_followup(state: TwixtState) -> int | None:
    """The greedy baseline's action after its placement with ``links="manual"`` (state frame).

    After the turn's placement (``state.placed``): add a legal link from the new peg, the first
    in :data:`~envs.twixt.geometry.KNIGHT_DIRS` order; when none is left, ``end`` (never ``end!``:
    the greedy baseline claims no Privilege). So greedy plays the automatic game's links and
    never removes one. Returns ``None`` before the placement (choose the hole as in the
    automatic game: removals are never chosen) and with ``links="auto"``.
    """
    if not state.placed or state.current_player < 0:
        return None
    g = geometry(state.board_size)
    assert state.last_placed is not None  # state.placed: this turn's peg is down
    r, c = state.last_placed
    p = r * state.board_size + c
    legal = set(state.legal_actions())
    for q, _lid in g.adj[p]:
        a = state.link_action(divmod(p, state.board_size), divmod(q, state.board_size))
        if a in legal:
            return a
    return state.string_to_action("end")


def distance_gap(state: TwixtState, player: int) -> float:
    """The opponent colour's connection distance minus that of ``player``'s colour (``player % 2``:
    partners in Double TwixT share a colour); higher is better for ``player``.

    Returns:
        A float; :data:`UNREACHABLE` enters as it is, so a colour that can no longer connect
        weighs about 10,000 holes.
    """
    colour = player % 2
    return float(connection_distance(state, 1 - colour) - connection_distance(state, colour))


def greedy_action(state: TwixtState, rng: np.random.Generator) -> int:
    """TwixT greedy move (state frame): the hole on the mover's shortest remaining connection.

    For every hole the mover may take, ``through(h)`` = the fewest empty holes on a border-to-
    border path of the mover's colour through ``h`` (:func:`distance_maps`). The move minimises
    it, breaking ties by the same measure for the opponent (a hole on the opponent's shortest path
    blocks it) and then at random (one ``rng.random`` draw per hole); when the opponent is strictly
    closer to connecting than the mover, blocking comes first. It never swaps or claims a
    Privilege; where no hole may be taken (only swap) it takes any legal action at random. With
    ``links="manual"`` it then adds the new peg's links and ends the turn (:func:`manual_followup`).

    Args:
        state: the position (not modified).
        rng: the tie-breaking generator.

    Returns:
        An action of the state's absolute frame (hole ``row * S + col``, or another legal action).
    """
    follow = manual_followup(state)  # links="manual", after the placement: the new peg's links, then end
    if follow is not None:
        return follow
    colour = state.current_player % 2
    a1, a2, mine = distance_maps(state, colour)
    b1, b2, theirs = distance_maps(state, 1 - colour)
    through, block = a1 + a2 - 1, b1 + b2 - 1
    n = state.board_size**2
    holes = np.array([a for a in state.legal_actions() if a < n], dtype=np.int64)
    if holes.size == 0:  # only swap (or nothing placeable): take any legal action
        legal = state.legal_actions()
        return int(legal[rng.integers(len(legal))])
    keys = (through[holes], block[holes]) if mine <= theirs else (block[holes], through[holes])
    order = np.lexsort((rng.random(holes.size), keys[1], keys[0]))
    return int(holes[order[0]])


#: The static evaluation of the contract: :func:`distance_gap`.
evaluate = distance_gap
