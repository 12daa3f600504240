"""The Tantrix robot: an evaluator that predicts each colour's final score, a lookahead through
whole turns and a small expectimax over sampled draws.

Sources of the ideas:

* tantrix.com, "How do the robots work?": the online robots do not score a line by what it is
  worth now but predict what it will eventually be worth (its open ends, the spaces they face,
  the chance of closing a loop), which is why they handle loops well;
* P. Bolle, "Design and realisation of a program for playing Tantrix" (KU Leuven, 2005): the
  program Oliver searches a minimax tree with heuristics for a line's *real* length (tiles now),
  its *virtual* length (what its ends can still add) and the player's *fair share* of the
  remaining tiles.

The evaluator (:func:`predict_scores`)
--------------------------------------
For every colour in play it predicts the final score (RULES.md, "End of game and scoring": the
longest line, or twice the largest loop):

* every line's two ends face empty spaces; an end is *dead* when its space is blocked (a tile
  there would break restriction 2 or 3: ``TantrixState.blocked_spaces``) or when no tile left
  (bag and hands: public knowledge, the bag as a set, never its order) fits the space's colours;
  an end facing a forced space is extended for certain (whoever fills it continues the line);
* two ends of one line facing the same space are a loop in waiting: every tile that fits that
  space joins them (a tile shows each of its colours on exactly two edges), so the line is
  worth ``2 * (tiles + 1)`` once the space can be filled; two ends of different lines facing
  one space join the lines;
* a line grows by about one tile per turn of its owner, from its live ends, for the owner's
  fair share of the tiles still to be placed (``remaining / players``, doubled for a Doubles
  team), scaled by the share of those tiles that carry the colour; a line with one live end
  grows more slowly (one block ends it), one with none not at all;
* a colour's prediction is the best of its lines' predictions.

The robot (:class:`TantrixRobot`)
---------------------------------
At each decision it samples ``samples`` orders of the bag from what the mover knows
(``sample_determinization``; never the true order). For every legal action it plays the rest of
the turn (forced moves, the free move, forced moves again: the state sequences them) by the
evaluator, one placement at a time, and scores the position at the end of the turn: the
mover's predicted score minus the best opponent's (teams share a colour). The ``width`` best
actions are then searched one turn deeper: each opponent in turn answers with its own best
whole turn by the same evaluator (a max-n reply), and the values are averaged over the sampled
draws. Ties are broken by the robot's seeded generator, so a seed fixes every decision.
"""

from __future__ import annotations

import numpy as np

from envs.core.checks import is_plain_int
from envs.tantrix.state import TantrixState
from envs.tantrix.tiles import NUM_TILES, fit_table

__all__ = [
    "predict_scores",
    "line_prospects",
    "robot_value",
    "turn_end_value",
    "TURN_BUDGET",
    "TantrixRobot",
    "make_robot",
    "robot_agent",
]

#: Growth per own turn of a line with two live ends / one live end (fitted by play, see docs/results.md).
GROWTH_TWO = 0.75
GROWTH_ONE = 0.45
#: Weight of an end whose space only a few tiles left can fill: ``min(1, fits / FIT_FULL)``.
FIT_FULL = 3.0
#: Evaluations :func:`turn_end_value` may spend playing out a turn (as the robot's ``budget``).
TURN_BUDGET = 300


def _pool(state: TantrixState) -> list[int]:
    """Tiles still to be placed: every hand's and the bag's, in tile-number order (public
    knowledge: the bag as a set, never its order)."""
    out = [t for h in state._hands for t in h if t != -1]
    out.extend(state._bag[state._bpos :])
    return sorted(out)


def predict_scores(state: TantrixState) -> dict[int, float]:
    """The predicted final score of every colour in play (see the module docstring).

    Args:
        state: a Tantrix position (not modified). Reads the table, the hands and the bag's size
            and contents as a set, never the bag's order.

    Returns:
        ``{colour code: predicted score}`` for each colour of ``state.colors`` (codes 1-4:
        red, yellow, blue, green), floats ``>=`` the colour's current score.
    """
    return _analyse(state, None)


def line_prospects(state: TantrixState) -> list[dict]:
    """What :func:`predict_scores` sees, line by line, for the colours in play.

    Returns:
        One dict per line (loops included), sorted by colour then placement order of the
        line's first tile: ``colour`` (code 1-4), ``tiles`` (its length), ``loop`` (closed),
        ``ends``: ``[((q, r), weight, forced), ...]`` the spaces its ends face (weight 0: dead,
        the space blocked or no tile left fits it; 1: live; ``forced``: a forced space some
        tile left can fill), ``closes_at``: the space both ends face (a loop in waiting) or
        ``None``, and ``value``: the line's predicted final worth.
    """
    rows: list[dict] = []
    _analyse(state, rows)
    return sorted(rows, key=lambda d: (d["colour"], d["first"]))


def _analyse(state: TantrixState, rows: list | None) -> dict[int, float]:
    g = state._g
    nb, need, cnt, pidx = g.nb, state._need, state._cnt, state._pidx
    restricted = state.restrictions_active
    pool = _pool(state)
    remaining = len(pool)
    colours = set(state._colour_of_team)
    npl = state.num_players
    # per colour: root -> list of (cell, weight, forced) for its ends
    ends: dict[int, dict[int, list]] = {c: {} for c in colours}
    meet: dict[int, list] = {c: [] for c in colours}
    for n in state._cand:
        p = need[n]
        if not p:
            continue
        cols_here = [(p >> (3 * d)) & 7 for d in range(6)]
        if not any(c in colours for c in cols_here):
            continue
        fits = fit_table(p)
        nfit = 0
        for t in pool:
            if fits[t]:
                nfit += 1
        if nfit and restricted and not state._geom_ok(n):
            w = 0.0
        else:
            w = min(1.0, nfit / FIT_FULL)
        forced = cnt[n] >= 3 and w > 0
        for c in colours:
            roots = []
            for d in range(6):
                if cols_here[d] == c:
                    par = state._uf[c]
                    x = pidx[n + nb[d]]
                    while par[x] != x:
                        x = par[x]
                    roots.append(x)
            if not roots:
                continue
            for x in roots:
                ends[c].setdefault(x, []).append((n, w, forced))
            if len(roots) == 2:
                meet[c].append((roots[0], roots[1], w))
    out = {}
    for c in colours:
        share = 2.0 if state.team_game else 1.0
        turns = remaining * share / npl
        # tiles carrying colour c among those left: 3 of 4 colours on average
        cfrac = sum(1 for t in pool if c in _tile_colours(t)) / remaining if remaining else 0.0
        size, cyc, par = state._usize[c], state._ucyc[c], state._uf[c]
        best = 0.0
        loop_now = 0
        for i in range(len(par)):
            if par[i] == i and size[i]:
                if cyc[i]:
                    loop_now = max(loop_now, 2 * size[i])
                else:
                    best = max(best, float(size[i]))
                if rows is not None and (cyc[i] or i not in ends[c]):
                    rows.append(
                        {
                            "colour": c,
                            "first": i,
                            "tiles": size[i],
                            "loop": cyc[i],
                            "ends": [],
                            "closes_at": None,
                            "value": float(2 * size[i] if cyc[i] else size[i]),
                        }
                    )
        best = max(best, float(loop_now))
        meet_self: dict[int, float] = {}
        for r1, r2, w in meet[c]:
            if r1 == r2:
                meet_self[r1] = max(meet_self.get(r1, 0.0), w)
        for root, es in ends[c].items():
            L = size[root]
            if root in meet_self:
                w = meet_self[root]
                val = L + w * (L + 2)  # 2 (L + 1) when certain
                best = max(best, val)
                if rows is not None:
                    rows.append(_row(state, c, root, L, es, val, es[0][0]))
                continue
            live = sorted((w for _, w, _ in es), reverse=True)
            forced_ext = sum(1 for _, w, f in es if f)
            a = live[0] + (live[1] if len(live) > 1 else 0.0)
            if a >= 1.0:
                rate = GROWTH_ONE + (GROWTH_TWO - GROWTH_ONE) * (a - 1.0)
            else:
                rate = GROWTH_ONE * a
            val = L + forced_ext + rate * turns * cfrac
            best = max(best, val)
            if rows is not None:
                rows.append(_row(state, c, root, L, es, val, None))
        # joins of two different lines meeting at one space
        for r1, r2, w in meet[c]:
            if r1 != r2 and w > 0:
                L = size[r1] + size[r2] + 1
                other = [e for e in ends[c].get(r1, []) + ends[c].get(r2, []) if e[1] > 0]
                a = min(2.0, sum(e[1] for e in other)) - w * 2  # the two meeting ends are used up
                a = max(0.0, a)
                rate = GROWTH_ONE + (GROWTH_TWO - GROWTH_ONE) * (a - 1.0) if a >= 1.0 else GROWTH_ONE * a
                best = max(best, size[r1] + size[r2] + w * (1 + rate * turns * cfrac))
        out[c] = best
    return out


def _row(state, c, root, tiles, es, val, closes) -> dict:
    qr = state._g.qr
    first = min(i for i in range(len(state._uf[c])) if TantrixState._find(state._uf[c], i) == root)
    return {
        "colour": c,
        "first": first,
        "tiles": tiles,
        "loop": False,
        "ends": sorted((qr[n], w, f) for n, w, f in es),
        "closes_at": None if closes is None else qr[closes],
        "value": float(val),
    }


_COLOURS_OF: list[frozenset] = []


def _tile_colours(t: int) -> frozenset:
    if not _COLOURS_OF:
        from envs.tantrix.tiles import TR_SEG

        _COLOURS_OF.append(frozenset())
        for k in range(1, NUM_TILES + 1):
            seg = TR_SEG[k * 6]
            _COLOURS_OF.append(frozenset(c for c in range(1, 5) if seg[c]))
    return _COLOURS_OF[t]


def robot_value(state: TantrixState, player: int) -> float:
    """``player``'s predicted final score minus the best predicted score of the other sides
    (:func:`predict_scores`); for a finished game the true score gap times 10 plus 1000 times
    the result (a win outranks every prediction)."""
    if state.is_terminal():
        sc = state.scores()
        team = state.team_of(player)
        gap = sc[player] - max(sc[p] for p in range(state.num_players) if state.team_of(p) != team)
        return 1000.0 * float(state.returns()[player]) + gap
    pred = predict_scores(state)
    mine = state.colour_of(player)
    others = {state.colour_of(p) for p in range(state.num_players)} - {mine}
    return pred[mine] - max(pred[c] for c in others)


def turn_end_value(state: TantrixState, player: int, budget: int = TURN_BUDGET) -> float:
    """:func:`robot_value` for ``player`` once the player to move has played the rest of its
    turn (the evaluation ``predicted_turn`` of the game's ``GameInfo.evaluators``, which the
    search mixes in with ``search.heuristic: predicted_turn``): the robot's whole-turn lookahead
    as a static evaluation, so that a searched position is valued as the robot values its
    candidates (after the forced moves, the free move and the forced moves again of the turn
    under way), not halfway through a turn.

    The turn is played on a copy, each placement the one after which :func:`robot_value` is
    best for the mover (the first in action order on ties), drawing from ``state``'s own bag
    (the search calls this on a determinization: the bag as a set, sampled); a placement forced
    to one action is played without an evaluation. Once a choice would spend more than
    ``budget`` evaluations in all (``int >= 0``; default :data:`TURN_BUDGET`, the robot's),
    the turn stops there and that position is valued (the long forced cascades of the endgame
    stay cheap). A finished game is valued as it stands. Deterministic.

    Args:
        state: a Tantrix position (not modified).
        player: the seat whose value it is (``0 <= player < num_players``).
        budget: evaluations allowed (see above).

    Returns:
        A float in :func:`robot_value`'s units (the predicted final score gap; ±1000 x the
        result plus the gap for a finished game).

    Raises:
        ValueError: ``budget`` is not an integer ``>= 0``.
    """
    if not is_plain_int(budget) or budget < 0:
        raise ValueError(f"turn_end_value budget must be an integer >= 0, got {budget!r}")
    c = state.clone()
    _finish_turn(c, c.current_player, [budget], stop_when_spent=True)
    return robot_value(c, player)


def _finish_turn(state: TantrixState, player: int, budget: list | None = None, stop_when_spent: bool = False) -> None:
    """Play ``player``'s remaining placements of this turn in place, each the one after which
    :func:`robot_value` is best (first in action order on ties).

    ``budget`` is a one-element list counting the evaluations still allowed in this decision;
    once a choice would spend more than is left, the rest of the turn is played by the greedy
    rule (the longest own line through the placed tile,
    :func:`envs.tantrix.heuristics.placement_value`), so that the long cascades of forced moves
    after the bag is empty stay cheap, or with ``stop_when_spent`` not played at all (the turn
    stops there: :func:`turn_end_value`). Deterministic either way."""
    from envs.tantrix.heuristics import placement_value

    while not state.is_terminal() and state.current_player == player:
        legal = state.legal_actions()
        if len(legal) == 1:
            state.apply(legal[0])
            continue
        best, best_v = legal[0], -1e18
        if budget is not None and budget[0] < len(legal):
            if stop_when_spent:
                return
            colour = state.colour_of(player)
            for a in legal:
                v: float = placement_value(state, a, colour)
                if v > best_v:
                    best, best_v = a, v
        else:
            if budget is not None:
                budget[0] -= len(legal)
            for a in legal:
                c = state.clone()
                c.apply(a)
                v = robot_value(c, player)
                if v > best_v:
                    best, best_v = a, v
        state.apply(best)


def _turn_value(
    state: TantrixState, action: int, player: int, budget: list | None = None
) -> tuple[float, TantrixState]:
    c = state.clone()
    c.apply(action)
    if c.current_player == player:
        _finish_turn(c, player, budget)
    return robot_value(c, player), c


def _sample(state: TantrixState, player: int, rng: np.random.Generator) -> TantrixState:
    """``state.sample_determinization(player, rng)`` made independent of the true bag order: the
    bag is first put in tile-number order (a set, what everyone knows), then shuffled by ``rng``;
    two positions that differ only in the bag's order give the same samples. That is the game's
    :meth:`~envs.tantrix.state.TantrixState.determinize` (the same draws, the same samples)."""
    return state.determinize(player, rng)


class TantrixRobot:
    """The robot's decision procedure (see the module docstring).

    Args:
        samples: bag orders sampled per decision (``>= 1``).
        width: actions searched one turn deeper (``>= 0``; 0: whole-turn lookahead only; 1 is the
            same as 0, since the answer to a single candidate cannot change the choice).
        reply_width: the replying opponent's candidate placements considered, best by the
            evaluator one placement deep (``>= 1``).
        budget: evaluations allowed per decision for playing out the rest of a turn placement
            by placement (``>= 0``); beyond it the rest of a turn is played by the greedy rule
            (see :func:`_finish_turn`), which keeps the long forced cascades of the endgame cheap.

    The defaults (one sampled bag, width 2, 4 answers, budget 300) measured a median of 0.10 s
    a decision (0.17 s where there is a choice; longest 0.46 s) on the loaded 2-core machine
    (``benchmarks/bench_tantrix_robot.py``; docs/results.md, **Tantrix robot**).

    Raises:
        ValueError: a parameter outside its domain.
    """

    def __init__(self, samples: int = 1, width: int = 2, reply_width: int = 4, budget: int = 300):
        for name, v, lo in (
            ("samples", samples, 1),
            ("width", width, 0),
            ("reply_width", reply_width, 1),
            ("budget", budget, 0),
        ):
            if not is_plain_int(v) or v < lo:
                raise ValueError(f"robot {name} must be an integer >= {lo}, got {v!r}")
        self.samples, self.width, self.reply_width, self.budget = samples, width, reply_width, budget

    def check(self, state: TantrixState) -> None:
        """Raise ``ValueError`` unless ``state`` is a Tantrix position the robot can play."""
        if not isinstance(state, TantrixState):
            raise ValueError(f"the Tantrix robot plays Tantrix positions, got {type(state).__name__}")

    def choose(self, state: TantrixState, rng: np.random.Generator) -> int:
        """The robot's action for ``state.current_player`` (state's absolute frame).

        Args:
            state: the position (not modified; its bag order is never read: the search runs on
                ``state.sample_determinization`` copies).
            rng: the generator for the sampled bags and the tie-break.

        Returns:
            A legal action of ``state`` (an ``int``).

        Raises:
            ValueError: the game is over, or ``state`` is not a Tantrix position.
        """
        self.check(state)
        player = state.current_player
        legal = state.legal_actions()
        if player < 0 or not legal:
            raise ValueError("the Tantrix robot cannot move: the game is over")
        if len(legal) == 1:
            return legal[0]
        sims = [_sample(state, player, rng) for _ in range(self.samples)]
        # whole-turn lookahead on the first sample
        budget = [self.budget]
        first = []
        for a in legal:
            v, after = _turn_value(sims[0], a, player, budget)
            first.append((v, a))
        order = sorted(range(len(first)), key=lambda i: -first[i][0])
        if self.width <= 1:  # one candidate: its answering turn cannot change the choice
            top = first[order[0]][0]
            tied = [first[i][1] for i in order if first[i][0] == top]
            return int(tied[int(rng.integers(len(tied)))])
        cand = [first[i][1] for i in order[: self.width]]
        vals = []
        for a in cand:
            tot = 0.0
            for s in sims:
                _, after = _turn_value(s, a, player, budget)
                tot += self._reply_value(after, player, budget)
            vals.append(tot / len(sims))
        top = max(vals)
        tied = [a for a, v in zip(cand, vals) if v == top]
        return int(tied[int(rng.integers(len(tied)))])

    def _reply_value(self, state: TantrixState, player: int, budget: list) -> float:
        """Value for ``player`` after the next opponent's best whole turn (by its own evaluation)."""
        opp = state.current_player
        if opp < 0 or state.team_of(opp) == state.team_of(player):
            return robot_value(state, player)
        legal = state.legal_actions()
        scored = []
        for a in legal:
            c = state.clone()
            c.apply(a)
            scored.append((robot_value(c, opp), a))
        scored.sort(key=lambda x: -x[0])
        best_v, best_after = -1e18, None
        for _, a in scored[: self.reply_width]:
            v, after = _turn_value(state, a, opp, budget)
            if v > best_v:
                best_v, best_after = v, after
        assert best_after is not None  # reply_width >= 1 and a live game has a legal action
        return robot_value(best_after, player)


def robot_agent(width: int = 2) -> TantrixRobot:
    """Tantrix robot: predicts each colour's final score (line ends' prospects, loops, blocked and
    forced spaces, tiles left), looks through whole turns and answers, bag orders sampled.

    ``width`` (spec ``robot:W``, default 2): the placements searched a turn deeper, against the
    next opponent's answers; 0 keeps the whole-turn lookahead alone (much faster, weaker;
    docs/results.md, **Tantrix robot**), and 1 plays as 0. Raises ``ValueError`` below 0.
    """
    return TantrixRobot(width=width)


def make_robot(**kwargs) -> TantrixRobot:
    """A :class:`TantrixRobot` with these settings (the ``robot`` agent's factory is :func:`robot_agent`,
    declared in ``TantrixState.info.agents``)."""
    return TantrixRobot(**kwargs)
