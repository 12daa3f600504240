"""Search agents: greedy (one ply), alpha-beta and MCTS, on any game of the state contract.

They think in the state's absolute frame (:attr:`Agent.frame` ``"state"``); :meth:`Agent.act`
converts their answer to the acting agent's frame.

Evaluators
----------
Like OpenSpiel's ``MCTSBot(game, ..., evaluator)``, the search agents take an *evaluator*, by
default the game's own (``state.heuristics()``, from ``envs/<game>/heuristics.py``; see
:mod:`envs.core.heuristics`). An evaluator is either

* a function ``evaluate(state, player) -> float``: a static evaluation of a position that is not
  over, higher is better for ``player``'s side, in any units (alpha-beta compares values; MCTS
  maps them to ``tanh(value / value_scale)``); it must not modify ``state`` and should read only
  what ``player`` may see; or
* an object with such an ``evaluate`` method and optionally a ``value_scale`` attribute (e.g. an
  :class:`envs.core.heuristics.Heuristics`), which MCTS uses when it is given no ``value_scale``.

Finished positions are never passed to it: they are scored ``+-1e6`` (0 for a draw) by
alpha-beta and greedy, and by their returns by MCTS.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from envs.core.checks import is_plain_int
from envs.core.heuristics import one_ply_greedy, terminal_or
from envs.core.state import GameState
from training.agents.base import Agent

__all__ = ["Evaluator", "GreedyAgent", "AlphaBetaAgent", "MCTSAgent", "DEFAULT_VALUE_SCALE", "is_real_number"]

#: ``f(state, player) -> float``, higher is better for ``player`` (see the module docstring).
Evaluator = Callable[[GameState, int], float]

#: MCTS's value scale for an evaluator that brings none and a game that declares none.
DEFAULT_VALUE_SCALE = 10.0


def _check_evaluator(evaluator) -> None:
    if evaluator is not None and not callable(evaluator) and not callable(getattr(evaluator, "evaluate", None)):
        raise ValueError(
            f"evaluator must be None, a function f(state, player) -> float or an object with "
            f"such an evaluate method, got {evaluator!r}"
        )


def _evaluator_parts(evaluator, state: GameState) -> tuple[Evaluator | None, float | None]:
    """``(evaluate function, its value scale or None)`` of ``evaluator``, or the game's own
    (``state.heuristics()``) when ``evaluator`` is ``None``; ``(None, None)`` when neither exists."""
    if evaluator is None:
        evaluator = state.heuristics()
        if evaluator is None:
            return None, None
    if callable(getattr(evaluator, "evaluate", None)):
        scale = getattr(evaluator, "value_scale", None)
        return evaluator.evaluate, None if scale is None else float(scale)
    return evaluator, None


def _require_evaluator(agent: Agent, evaluator, state: GameState) -> Evaluator:
    h, _ = _evaluator_parts(evaluator, state)
    if h is None:
        raise ValueError(
            f"{agent.name} needs an evaluator: the game {state.info.long_name} declares no "
            f"heuristics (GameInfo.heuristics) and none was given"
        )
    return h


class GreedyAgent(Agent):
    """The game's greedy baseline (``greedy_action`` of ``envs/<game>/heuristics.py``, e.g. the
    one-ply material move of a capture game); with an ``evaluator``, one ply of that evaluator instead
    (the move after which it is best for the mover, a win first; ties at random).

    Args:
        seed: seed of the tie-breaking generator.
        evaluator: ``None`` (the game's greedy move) or an evaluator (see the module docstring).

    Raises:
        ValueError: a bad evaluator; from :meth:`act`: the game declares no heuristics and no
            evaluator was given, or the game is over.
    """

    name = "greedy"

    def __init__(self, seed: int | None = None, evaluator=None):
        super().__init__(seed)
        _check_evaluator(evaluator)
        self.evaluator = evaluator

    def _act(self, state, obs):
        if self.evaluator is not None:
            return one_ply_greedy(state, self.rng, _require_evaluator(self, self.evaluator, state))
        heuristics = state.heuristics()
        if heuristics is None:
            _require_evaluator(self, None, state)  # raises, naming the game
        return heuristics.greedy_action(state, self.rng)


class AlphaBetaAgent(Agent):
    """Depth-limited minimax with alpha-beta pruning for two-sided zero-sum games.

    Two-sided: two players, or two teams of partners, where a node maximises when its mover
    is on the root player's team and minimises otherwise (a player may move several times in a
    row; the test is the mover's team, not alternation). In games with hidden information
    (``state.info.perfect_information`` false: hidden hands, a hidden draw order) it
    searches one deal sampled from what the mover knows (``sample_determinization``), never the
    true one. Leaves are scored with the evaluator (by default the game's ``evaluate``), finished
    games with ``+-1e6``. Moves are ordered by their one-ply value; ties between equally valued
    root moves are broken at random (seeded).

    Args:
        depth: search depth in plies (an ``int >= 1``).
        seed: seed of the tie-breaking generator.
        evaluator: ``None`` (the game's own) or an evaluator (see the module docstring).

    Raises:
        ValueError: a bad ``depth`` or evaluator; from :meth:`act`: a game without exactly two
            sides, no evaluator (the game declares no heuristics), or the game is over.
    """

    def __init__(self, depth: int = 2, seed: int | None = None, evaluator=None):
        super().__init__(seed)
        if not is_plain_int(depth) or depth < 1:
            raise ValueError(f"alpha-beta depth must be a positive integer, got {depth!r}")
        _check_evaluator(evaluator)
        self.depth = depth
        self.evaluator = evaluator
        self.name = f"alphabeta:{depth}"

    def check_env(self, env) -> None:
        self.check_game(env.state)

    def check_game(self, state) -> None:
        """Raise ``ValueError`` unless this agent can play ``state``'s game (two sides, an evaluator)."""
        teams = {state.team_of(p) for p in range(state.num_players)}
        if len(teams) != 2:
            raise ValueError(
                f"alpha-beta needs a game of two players or two teams, this one has "
                f"{state.num_players} players in {len(teams)} teams"
            )
        _require_evaluator(self, self.evaluator, state)

    def _act(self, state, obs):
        self.check_game(state)
        h = _require_evaluator(self, self.evaluator, state)
        player = state.current_player
        hidden = not state.info.perfect_information
        root = state.sample_determinization(player, self.rng) if hidden else state  # never the true deal
        children = []
        for a in root.legal_actions():
            c = root.clone()
            c.apply(a)
            children.append((a, c))
        # Order by one-ply value for better pruning.
        children.sort(key=lambda ac: -terminal_or(ac[1], player, h))
        best, best_actions = -math.inf, []
        for a, c in children:
            # A window just below the best value so far keeps equally good moves exact (ties).
            v = self._ab(c, player, self.depth - 1, best - 1e-6, math.inf, h)
            if v > best + 1e-9:
                best, best_actions = v, [a]
            elif abs(v - best) <= 1e-9:
                best_actions.append(a)
        return best_actions[self.rng.integers(len(best_actions))]

    def _ab(self, state, root, depth, alpha, beta, h):
        if depth == 0 or state.is_terminal():
            return terminal_or(state, root, h)
        maximizing = state.team_of(state.current_player) == state.team_of(root)
        children = []
        for a in state.legal_actions():
            c = state.clone()
            c.apply(a)
            children.append(c)
        children.sort(key=lambda c: terminal_or(c, root, h), reverse=maximizing)
        if maximizing:
            v = -math.inf
            for c in children:
                v = max(v, self._ab(c, root, depth - 1, alpha, beta, h))
                alpha = max(alpha, v)
                if alpha >= beta:
                    break
        else:
            v = math.inf
            for c in children:
                v = min(v, self._ab(c, root, depth - 1, alpha, beta, h))
                beta = min(beta, v)
                if alpha >= beta:
                    break
        return v


def is_real_number(x) -> bool:
    """A real number (Python or numpy int / float), not a bool."""
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, (bool, np.bool_))


class _Node:
    __slots__ = ("parent", "action", "player", "children", "untried", "visits", "value")

    def __init__(self, parent, action, player, untried):
        self.parent = parent
        self.action = action
        self.player = player  # the player who chose `action` to reach this node
        self.children = []
        self.untried = untried
        self.visits = 0
        self.value = 0.0


class MCTSAgent(Agent):
    """UCT Monte-Carlo tree search on ``state.clone()``, for any number of players.

    Each node keeps the total return of the player who moved into it; selection uses UCB1 with
    exploration constant ``c``. Rollouts play uniformly random legal moves. With an evaluator (by
    default the game's own ``evaluate``) a rollout stops after ``rollout_limit`` plies and is
    scored ``tanh(h(state, p) / value_scale)`` for each player ``p`` (in two-player games
    ``h(state, 0)`` for player 0 and its opposite for player 1); the default ``rollout_limit=0``
    scores the new leaf at once (random games of a capture game last about 180 plies, mostly
    meaningless moves, and random rollouts made a much weaker player there: 0 of 4 games against
    greedy at 200 simulations, against 4 of 6 with leaf evaluation). Without an evaluator (a game declaring no
    heuristics), or with ``rollout_limit=None``, rollouts run to the end of the game. The most
    visited root action is played.

    Hidden information (``state.info.perfect_information`` false; the state's
    ``sample_determinization(player, rng)``: hidden hands, draw pile or bag order): the
    agent never searches the true state. It samples ``determinizations`` states consistent with
    what the mover knows (hidden hands and draw pile redealt), runs an independent UCT on each
    with an equal share of the simulations, and plays the root action with the most visits summed
    over the trees ("determinized UCT", also called perfect information Monte Carlo; Long et al.,
    2010, "Understanding the success of perfect information Monte Carlo sampling in game tree
    search").

    Args:
        simulations: number of simulations per move (an ``int >= 1``).
        c: UCB1 exploration constant (a finite number ``>= 0``).
        rollout_limit: rollout length cap in plies (an ``int >= 0``; ``None``: play to the end).
        value_scale: evaluation units per unit of ``atanh`` value (a finite number ``> 0``;
            ``None``: the evaluator's ``value_scale``, else the game's ``VALUE_SCALE``, else 10).
        determinizations: sampled states per move in hidden-information games (an ``int >= 1``;
            at most ``simulations`` are used).
        seed: seed of the agent's random generator.
        evaluator: ``None`` (the game's own) or an evaluator (see the module docstring).

    Raises:
        ValueError: a parameter outside its domain (bools are not accepted as numbers).
    """

    def __init__(
        self,
        simulations: int = 200,
        c: float = 1.4,
        rollout_limit: int | None = 0,
        value_scale: float | None = None,
        determinizations: int = 8,
        seed: int | None = None,
        evaluator=None,
    ):
        super().__init__(seed)
        if not is_plain_int(simulations) or simulations < 1:
            raise ValueError(f"MCTS simulations must be a positive integer, got {simulations!r}")
        if not is_real_number(c) or not math.isfinite(c) or c < 0:
            raise ValueError(f"MCTS exploration constant c must be a finite number >= 0, got {c!r}")
        if rollout_limit is not None and (not is_plain_int(rollout_limit) or rollout_limit < 0):
            raise ValueError(f"MCTS rollout_limit must be None or a non-negative integer, got {rollout_limit!r}")
        if value_scale is not None and (
            not is_real_number(value_scale) or not math.isfinite(value_scale) or value_scale <= 0
        ):
            raise ValueError(f"MCTS value_scale must be None or a finite number > 0, got {value_scale!r}")
        if not is_plain_int(determinizations) or determinizations < 1:
            raise ValueError(f"MCTS determinizations must be a positive integer, got {determinizations!r}")
        _check_evaluator(evaluator)
        self.simulations = simulations
        self.c = float(c)
        self.rollout_limit = rollout_limit
        self.value_scale = None if value_scale is None else float(value_scale)
        self.determinizations = determinizations
        self.evaluator = evaluator
        self.name = f"mcts:{simulations}"

    def _leaf(self, state) -> tuple[Evaluator | None, float]:
        """The evaluation function for rollout cut-offs (``None``: play to the end) and its scale."""
        h, scale = _evaluator_parts(self.evaluator, state)
        if self.value_scale is not None:
            scale = self.value_scale
        elif scale is None:
            own = state.heuristics() if self.evaluator is not None else None
            scale = own.value_scale if own is not None else DEFAULT_VALUE_SCALE
        return h, scale

    def _act(self, state, obs):
        player = state.current_player
        legal = list(state.legal_actions())
        if len(legal) == 1:
            return legal[0]
        leaf = self._leaf(state)
        sampler = None if state.info.perfect_information else state.sample_determinization
        visits: dict[int, int] = {}
        if sampler is None:
            roots = [(state, self.simulations)]
        else:  # hidden information: one tree per determinization, visit counts summed at the root
            d = min(self.determinizations, self.simulations)
            share = [self.simulations // d + (i < self.simulations % d) for i in range(d)]
            roots = [(sampler(player, self.rng), n) for n in share]
        for root_state, n in roots:
            for a, v in self._search(root_state, n, leaf).items():
                visits[a] = visits.get(a, 0) + v
        return max(legal, key=lambda a: visits.get(a, 0))

    def _search(self, state, simulations: int, leaf) -> dict[int, int]:
        """UCT from ``state`` (not modified): visit count of each root action."""
        rng = self.rng
        legal = list(state.legal_actions())
        root = _Node(None, None, None, legal)
        rng.shuffle(root.untried)
        n_players = state.num_players
        for _ in range(simulations):
            node, s = root, state.clone()
            # Selection
            while not node.untried and node.children:
                log_n = math.log(node.visits)
                node = max(node.children, key=lambda ch: ch.value / ch.visits + self.c * math.sqrt(log_n / ch.visits))
                s.apply(node.action)
            # Expansion
            if node.untried:
                a = node.untried.pop()
                mover = s.current_player
                s.apply(a)
                untried = s.legal_actions() if not s.is_terminal() else []
                rng.shuffle(untried)
                child = _Node(node, a, mover, untried)
                node.children.append(child)
                node = child
            # Rollout
            ret = self._rollout(s, n_players, leaf)
            # Backpropagation
            while node is not None:
                node.visits += 1
                if node.player is not None:
                    node.value += ret[node.player]
                node = node.parent
        return {ch.action: ch.visits for ch in root.children}

    def _rollout(self, s, n_players, leaf):
        rng = self.rng
        heuristic, scale = leaf
        plies = 0
        limit = self.rollout_limit if heuristic is not None else None
        while not s.is_terminal():
            if limit is not None and plies >= limit:
                if n_players == 2:
                    v = math.tanh(heuristic(s, 0) / scale)
                    return np.array([v, -v])
                return np.array([math.tanh(heuristic(s, p) / scale) for p in range(n_players)])
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
            plies += 1
        return s.returns()
