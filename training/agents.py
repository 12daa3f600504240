"""Baseline and trained agents behind one small interface.

Every agent implements ``act(state, obs) -> int``:

* ``state`` is the rules state (:class:`envs.core.state.GameState`) of the game being played.
  Agents must not modify it; search agents work on ``state.clone()``.
* ``obs`` is the acting agent's observation dict from the environment
  (``{"observation": ..., "action_mask": int8 (num_actions,)}``).

The returned action is in the acting agent's frame — the environment's action space, what
``env.step`` takes — and always legal (``obs["action_mask"][a] == 1``). Search agents think in
the state's absolute frame and convert with ``state.to_agent_action`` (the identity for every
game but TwixT, whose environment transposes the board for black).

Agents are built from short specs by :func:`make_agent`: ``random``, ``greedy``, ``mcts:200``
(UCT with 200 simulations), ``alphabeta:2`` (depth 2), or a path to a trained checkpoint ``.zip``.

An agent asked to move in a finished game (``state.current_player < 0``) or in a position without
a legal action raises ``ValueError`` (:meth:`Agent.act` checks this before calling the agent's
own ``_act``).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Callable

import numpy as np

from envs.core.state import GameState

__all__ = [
    "Agent",
    "RandomAgent",
    "GreedyAgent",
    "MCTSAgent",
    "AlphaBetaAgent",
    "PolicyAgent",
    "make_agent",
    "parse_checkpoint_spec",
    "HEURISTICS",
    "GREEDY_POLICIES",
    "VALUE_SCALES",
    "twixt_greedy_action",
    "twixt_distance_gap",
    "tantrix_greedy_action",
    "tantrix_score_gap",
    "smartrix_greedy_action",
    "smartrix_score_gap",
    "policy_action",
]


class Agent:
    """Base class: ``act(state, obs) -> action``; ``reset(seed)`` before a game (optional).

    Subclasses implement ``_act(state, obs)``; the public :meth:`act` first checks that there is
    a move to make. (A subclass may still override ``act`` itself, skipping that check.)

    Args:
        seed: seed of the agent's random generator ``self.rng`` (``None``: unseeded).

    Raises:
        ValueError: a negative seed. TypeError: a seed that is not an integer (numpy's checks).
    """

    name: str = "agent"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the agent's random choices before a game.

        Args:
            seed: the new seed; ``None`` keeps the current generator.

        Returns:
            Nothing.

        Raises:
            ValueError: a negative seed. TypeError: a seed that is not an integer.
        """
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, state: GameState, obs: dict | None) -> int:
        """Choose a legal action for ``state.current_player``.

        Args:
            state: the rules state (not modified).
            obs: the acting agent's observation dict (``"observation"``, ``"action_mask"``), or
                ``None`` for agents that only read the state (all but :class:`PolicyAgent`).

        Returns:
            The action, in the acting agent's frame (what ``env.step`` takes).

        Raises:
            ValueError: the game is over (``state.current_player < 0``) or there is no legal
                action (empty ``obs["action_mask"]``, or no legal action of ``state`` when
                ``obs`` is ``None``).
        """
        _check_can_move(self, state, obs)
        return self._act(state, obs)

    def check_env(self, env) -> None:
        """Raise ``ValueError`` (saying why) when this agent cannot play in ``env``, a reset raw
        environment; called by ``training.evaluate`` and ``training.play`` before any game.
        Every agent can by default; alpha-beta needs two sides, a checkpoint its training spaces."""

    def _act(self, state: GameState, obs: dict | None) -> int:
        """The agent's choice; called by :meth:`act` once it is known that there is a move."""
        raise NotImplementedError(f"{type(self).__name__} must implement _act(state, obs)")

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"


def _check_can_move(agent: Agent, state: GameState, obs: dict | None) -> None:
    """Raise ``ValueError`` unless ``state`` has a player to move with at least one legal action."""
    if state is not None and state.current_player < 0:
        raise ValueError(f"{agent.name} cannot choose an action: the game is over "
                         f"(state.current_player is {state.current_player})")
    mask = obs["action_mask"] if obs is not None else state.legal_action_mask() if state is not None else None
    if mask is None:
        raise ValueError(f"{agent.name} needs the state or the observation to choose an action, got neither")
    if not np.any(mask):
        raise ValueError(f"{agent.name} cannot choose an action: no legal action in this position "
                         f"(the game is over, or the action mask is empty)")


class RandomAgent(Agent):
    """Uniformly random legal action (from the observation's mask, else from the state).

    Args:
        seed: seed of the agent's random generator.
    """

    name = "random"

    def _act(self, state, obs):
        if obs is not None:
            legal = np.flatnonzero(obs["action_mask"])
            return int(legal[self.rng.integers(len(legal))])
        legal = state.legal_actions()
        return state.to_agent_action(state.current_player, int(legal[self.rng.integers(len(legal))]))


# ---------------------------------------------------------------------------- heuristics
def ataxx_material(state, player: int) -> float:
    """Stone difference (own minus opponent) from ``player``'s point of view.

    Args:
        state: an :class:`envs.ataxx.AtaxxState`.
        player: 0 (x) or 1 (o).

    Returns:
        ``own stones - opponent stones`` as a float.

    Raises:
        AttributeError: ``state`` is not an Ataxx state (it has no ``stone_counts``).
    """
    nx, no = state.stone_counts()
    return float(nx - no) if player == 0 else float(no - nx)


def twixt_distance_gap(state, player: int) -> float:
    """Opponent's connection distance minus ``player``'s colour's (pegs still needed to join the
    borders, :func:`envs.twixt.heuristics.connection_distance`); higher is better."""
    from envs.twixt.heuristics import connection_distance

    colour = player % 2
    return float(connection_distance(state, 1 - colour) - connection_distance(state, colour))


def twixt_greedy_action(state, rng: np.random.Generator) -> int:
    """TwixT greedy move (state frame): the hole on the mover's shortest remaining connection.

    For every hole the agent may take, ``through(h)`` = the fewest empty holes on a border-to-
    border path of the mover's colour through ``h`` (:func:`envs.twixt.heuristics.distance_maps`).
    The agent minimises it, breaking ties by the same measure for the opponent (a hole on the
    opponent's shortest path blocks it) and then at random; when the opponent is strictly closer
    to connecting than the mover, blocking comes first. It never swaps or claims a Privilege.
    """
    from envs.twixt.heuristics import distance_maps, manual_followup

    follow = manual_followup(state)  # links="manual": the new peg's links, then end
    if follow is not None:
        return follow
    colour = state.current_player % 2
    a1, a2, mine = distance_maps(state, colour)
    b1, b2, theirs = distance_maps(state, 1 - colour)
    through, block = a1 + a2 - 1, b1 + b2 - 1
    n = state.board_size ** 2
    holes = np.array([a for a in state.legal_actions() if a < n], dtype=np.int64)
    if holes.size == 0:  # only swap (or nothing placeable): take any legal action
        legal = state.legal_actions()
        return int(legal[rng.integers(len(legal))])
    keys = (through[holes], block[holes]) if mine <= theirs else (block[holes], through[holes])
    order = np.lexsort((rng.random(holes.size), keys[1], keys[0]))
    return int(holes[order[0]])


def tantrix_score_gap(state, player: int) -> float:
    """Tantrix: ``player``'s (team's) score minus the best other side's
    (:func:`envs.tantrix.heuristics.tantrix_score_gap`)."""
    from envs.tantrix.heuristics import tantrix_score_gap as gap

    return gap(state, player)


def tantrix_greedy_action(state, rng: np.random.Generator) -> int:
    """Tantrix greedy move (:func:`envs.tantrix.heuristics.tantrix_greedy_action`): the placement
    making the mover's own line or loop through the placed tile longest."""
    from envs.tantrix.heuristics import tantrix_greedy_action as greedy

    return greedy(state, rng)


def smartrix_score_gap(state, player: int) -> float:
    """Smartrix: ``player``'s (team's) estimated score minus the best opponent's, from public
    information and the player's own hand only (:func:`envs.smartrix.heuristics.smartrix_score_gap`)."""
    from envs.smartrix.heuristics import smartrix_score_gap as gap

    return gap(state, player)


def smartrix_greedy_action(state, rng: np.random.Generator) -> int:
    """Smartrix greedy move (:func:`envs.smartrix.heuristics.smartrix_greedy_action`): most points
    collected now, else shed the highest card that can be placed, else pass; no hidden card read."""
    from envs.smartrix.heuristics import smartrix_greedy_action as greedy

    return greedy(state, rng)


#: Per game (keyed by the rules-state class name): ``f(state, player) -> float``, higher is
#: better for ``player``. Used by the greedy and alpha-beta agents and MCTS leaf evaluation.
HEURISTICS: dict[str, Callable[[GameState, int], float]] = {
    "AtaxxState": ataxx_material,
    "TwixtState": twixt_distance_gap,
    "TantrixState": tantrix_score_gap,
    "SmartrixState": smartrix_score_gap,
}

#: Heuristic units per unit of ``atanh`` value for MCTS leaf evaluation, per game (default 10):
#: Ataxx stones, TwixT connection-distance holes, Tantrix tiles of line (score points), Smartrix
#: card points.
VALUE_SCALES: dict[str, float] = {
    "AtaxxState": 10.0,
    "TwixtState": 10.0,
    "TantrixState": 5.0,
    "SmartrixState": 20.0,
}

#: Games whose greedy baseline is a dedicated policy rather than one ply of :data:`HEURISTICS`:
#: ``f(state, rng) -> action`` in the state's frame.
GREEDY_POLICIES: dict[str, Callable[[GameState, np.random.Generator], int]] = {
    "TwixtState": twixt_greedy_action,
    "TantrixState": tantrix_greedy_action,
    "SmartrixState": smartrix_greedy_action,
}


def _registered(table: dict, state: GameState, default=None):
    """``state``'s entry in a per-game table (keyed by class name): its class's, or that of its
    nearest registered base class; ``default`` when there is none."""
    for cls in type(state).__mro__:
        if cls.__name__ in table:
            return table[cls.__name__]
    return default


def _heuristic_for(state: GameState) -> Callable[[GameState, int], float]:
    """The registered heuristic of ``state``'s class or of its nearest registered base class."""
    h = _registered(HEURISTICS, state)
    if h is None:
        raise ValueError(f"no heuristic registered for {type(state).__name__}; known: {sorted(HEURISTICS)}")
    return h


def _evaluate(state: GameState, player: int, h: Callable[[GameState, int], float]) -> float:
    """``h(state, player)``, or +-1e6 (0 for a draw) once the game is over."""
    return 1e6 * float(state.returns()[player]) if state.is_terminal() else h(state, player)


class GreedyAgent(Agent):
    """One-ply greedy: the action after which the game's heuristic is best for the mover.

    For Ataxx that is the move that gains the most stones (stone difference after the move);
    a move that wins outright is always preferred. Ties are broken at random (seeded). Games in
    :data:`GREEDY_POLICIES` use their own greedy policy instead (TwixT: the hole on the shortest
    remaining connection, :func:`twixt_greedy_action`).

    Args:
        seed: seed of the tie-breaking generator.

    Raises:
        ValueError: from :meth:`act`: no heuristic is registered for the game
            (:data:`HEURISTICS`), or the game is over.
    """

    name = "greedy"

    def _act(self, state, obs):
        player = state.current_player
        policy = _registered(GREEDY_POLICIES, state)
        if policy is not None:
            return state.to_agent_action(player, policy(state, self.rng))
        h = _heuristic_for(state)
        best, best_actions = -math.inf, []
        for a in state.legal_actions():
            child = state.clone()
            child.apply(a)
            v = _evaluate(child, player, h)
            if v > best:
                best, best_actions = v, [a]
            elif v == best:
                best_actions.append(a)
        return state.to_agent_action(player, best_actions[self.rng.integers(len(best_actions))])


class AlphaBetaAgent(Agent):
    """Depth-limited minimax with alpha-beta pruning for two-sided zero-sum games.

    Two-sided: two players, or two teams (Double TwixT), where a node maximises when its mover
    is on the root player's team and minimises otherwise (a player may move several times in a
    row; the test is the mover's team, not alternation). In games with hidden information
    (``state.info.perfect_information`` false: Smartrix hands and pile, Tantrix's bag order) it
    searches one deal sampled from what the mover knows, never the true one. Leaves are scored
    with the game's heuristic (stone count for Ataxx), finished games with ``+-1e6``. Moves are ordered by their one-ply heuristic value; ties between equally valued
    root moves are broken at random (seeded).

    Args:
        depth: search depth in plies (an ``int >= 1``).
        seed: seed of the tie-breaking generator.

    Raises:
        ValueError: a bad ``depth``; from :meth:`act`: a game without exactly two sides, no
            heuristic registered for the game, or the game is over.
    """

    def __init__(self, depth: int = 2, seed: int | None = None):
        super().__init__(seed)
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"alpha-beta depth must be a positive integer, got {depth!r}")
        self.depth = depth
        self.name = f"alphabeta:{depth}"

    def check_env(self, env) -> None:
        self.check_game(env.state)

    def check_game(self, state) -> None:
        """Raise ``ValueError`` unless this agent can play ``state``'s game (two sides, a heuristic)."""
        teams = {state.team_of(p) for p in range(state.num_players)}
        if len(teams) != 2:
            raise ValueError(f"alpha-beta needs a game of two players or two teams, this one has "
                             f"{state.num_players} players in {len(teams)} teams")
        _heuristic_for(state)

    def _act(self, state, obs):
        self.check_game(state)
        h = _heuristic_for(state)
        player = state.current_player
        hidden = not state.info.perfect_information
        root = state.sample_determinization(player, self.rng) if hidden else state  # never the true deal
        children = []
        for a in root.legal_actions():
            c = root.clone()
            c.apply(a)
            children.append((a, c))
        # Order by one-ply value for better pruning.
        children.sort(key=lambda ac: -_evaluate(ac[1], player, h))
        best, best_actions = -math.inf, []
        for a, c in children:
            # A window just below the best value so far keeps equally good moves exact (ties).
            v = self._ab(c, player, self.depth - 1, best - 1e-6, math.inf, h)
            if v > best + 1e-9:
                best, best_actions = v, [a]
            elif abs(v - best) <= 1e-9:
                best_actions.append(a)
        return state.to_agent_action(player, best_actions[self.rng.integers(len(best_actions))])

    def _ab(self, state, root, depth, alpha, beta, h):
        if depth == 0 or state.is_terminal():
            return _evaluate(state, root, h)
        maximizing = state.team_of(state.current_player) == state.team_of(root)
        children = []
        for a in state.legal_actions():
            c = state.clone()
            c.apply(a)
            children.append(c)
        children.sort(key=lambda c: _evaluate(c, root, h), reverse=maximizing)
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


def _is_real(x) -> bool:
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
    exploration constant ``c``. Rollouts play uniformly random legal moves. In games with a
    registered heuristic (:data:`HEURISTICS`) a rollout stops after ``rollout_limit`` plies and
    is scored ``tanh(h(state, p) / value_scale)`` for each player ``p`` (in two-player games
    ``h(state, 0)`` for player 0 and its opposite for player 1), where ``h`` is the heuristic;
    the default ``rollout_limit=0`` scores the new leaf at once
    (random Ataxx games last about 180 plies, mostly meaningless jumps, and random rollouts made
    a much weaker player: 0 of 4 games against greedy at 200 simulations, against 4 of 6 with
    leaf evaluation). Otherwise, or with ``rollout_limit=None``, rollouts run to the end of the
    game. The most visited root action is played.

    Hidden information (``state.info.perfect_information`` false; the state's
    ``sample_determinization(player, rng)``: Smartrix's hands and pile, Tantrix's bag order): the agent never searches the true state. It samples ``determinizations`` states
    consistent with what the mover knows (hidden hands and draw pile redealt), runs an
    independent UCT on each with an equal share of the simulations, and plays the root action
    with the most visits summed over the trees ("determinized UCT", also called perfect
    information Monte Carlo; Long et al., 2010, "Understanding the success of perfect
    information Monte Carlo sampling in game tree search").

    Args:
        simulations: number of simulations per move (an ``int >= 1``).
        c: UCB1 exploration constant (a finite number ``>= 0``).
        rollout_limit: rollout length cap in plies (an ``int >= 0``; ``None``: play to the end).
        value_scale: heuristic units per unit of ``atanh`` value (a finite number ``> 0``;
            ``None``: the game's entry in :data:`VALUE_SCALES`, else 10).
        determinizations: sampled states per move in hidden-information games (an ``int >= 1``;
            at most ``simulations`` are used).
        seed: seed of the agent's random generator.

    Raises:
        ValueError: a parameter outside its domain (bools are not accepted as numbers).
    """

    def __init__(self, simulations: int = 200, c: float = 1.4, rollout_limit: int | None = 0,
                 value_scale: float | None = None, determinizations: int = 8, seed: int | None = None):
        super().__init__(seed)
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"MCTS simulations must be a positive integer, got {simulations!r}")
        if not _is_real(c) or not math.isfinite(c) or c < 0:
            raise ValueError(f"MCTS exploration constant c must be a finite number >= 0, got {c!r}")
        if rollout_limit is not None and (isinstance(rollout_limit, bool) or not isinstance(rollout_limit, int)
                                          or rollout_limit < 0):
            raise ValueError(f"MCTS rollout_limit must be None or a non-negative integer, got {rollout_limit!r}")
        if value_scale is not None and (not _is_real(value_scale) or not math.isfinite(value_scale) or value_scale <= 0):
            raise ValueError(f"MCTS value_scale must be None or a finite number > 0, got {value_scale!r}")
        if isinstance(determinizations, bool) or not isinstance(determinizations, int) or determinizations < 1:
            raise ValueError(f"MCTS determinizations must be a positive integer, got {determinizations!r}")
        self.simulations = simulations
        self.c = float(c)
        self.rollout_limit = rollout_limit
        self.value_scale = None if value_scale is None else float(value_scale)
        self.determinizations = determinizations
        self.name = f"mcts:{simulations}"

    def _act(self, state, obs):
        player = state.current_player
        legal = list(state.legal_actions())
        if len(legal) == 1:
            return state.to_agent_action(player, legal[0])
        sampler = None if state.info.perfect_information else state.sample_determinization
        visits: dict[int, int] = {}
        if sampler is None:
            roots = [(state, self.simulations)]
        else:  # hidden information: one tree per determinization, visit counts summed at the root
            d = min(self.determinizations, self.simulations)
            share = [self.simulations // d + (i < self.simulations % d) for i in range(d)]
            roots = [(sampler(player, self.rng), n) for n in share]
        for root_state, n in roots:
            for a, v in self._search(root_state, n).items():
                visits[a] = visits.get(a, 0) + v
        best = max(legal, key=lambda a: visits.get(a, 0))
        return state.to_agent_action(player, best)

    def _search(self, state, simulations: int) -> dict[int, int]:
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
            ret = self._rollout(s, n_players)
            # Backpropagation
            while node is not None:
                node.visits += 1
                if node.player is not None:
                    node.value += ret[node.player]
                node = node.parent
        return {ch.action: ch.visits for ch in root.children}

    def _rollout(self, s, n_players):
        rng = self.rng
        plies = 0
        heuristic = _registered(HEURISTICS, s)
        limit = self.rollout_limit if heuristic is not None else None
        while not s.is_terminal():
            if limit is not None and plies >= limit:
                scale = self.value_scale if self.value_scale is not None else _registered(VALUE_SCALES, s, 10.0)
                if n_players == 2:
                    v = math.tanh(heuristic(s, 0) / scale)
                    return np.array([v, -v])
                return np.array([math.tanh(heuristic(s, p) / scale) for p in range(n_players)])
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
            plies += 1
        return s.returns()


# ---------------------------------------------------------------------------- trained policies
def policy_action(policy, observation: np.ndarray | dict, mask: np.ndarray, deterministic: bool = True,
                  rng: np.random.Generator | None = None) -> int:
    """Masked action from an SB3 ``MaskableActorCriticPolicy`` for one observation.

    Faster than ``policy.predict`` for single observations: one forward pass under
    ``torch.no_grad``; illegal logits are set to ``-inf``; ``deterministic`` takes the argmax,
    otherwise samples from the masked softmax with ``rng``.

    Args:
        policy: the policy (``model.policy``).
        observation: one observation, without a batch dimension: an array, or a dict of arrays
            for games with ``Dict`` observations (Tantrix, Smartrix).
        mask: the action mask (nonzero = legal), shape ``(num_actions,)``.
        deterministic: take the most probable legal action instead of sampling.
        rng: generator for sampling (``None``: a fresh unseeded one).

    Returns:
        The action index (legal according to ``mask``).

    Raises:
        ValueError: ``mask`` has no legal action.
    """
    if not np.any(mask):
        raise ValueError("policy_action: the action mask has no legal action (the game is over?)")
    import torch

    with torch.no_grad():
        if isinstance(observation, dict):
            obs_t = {k: torch.as_tensor(v, dtype=torch.float32).unsqueeze(0) for k, v in observation.items()}
        else:
            obs_t = torch.as_tensor(observation, dtype=torch.float32).unsqueeze(0)
        features = policy.extract_features(obs_t, policy.pi_features_extractor)
        latent_pi = policy.mlp_extractor.forward_actor(features)
        logits = policy.action_net(latent_pi)[0].numpy().astype(np.float64)
    logits[mask == 0] = -np.inf
    if deterministic:
        return int(np.argmax(logits))
    p = np.exp(logits - logits.max())
    p /= p.sum()
    rng = rng if rng is not None else np.random.default_rng()
    return int(rng.choice(len(p), p=p))


class PolicyAgent(Agent):
    """A trained MaskablePPO policy.

    The agent reads only the observation: ``act(state, obs)`` needs ``obs``.

    Args:
        model: a path to a checkpoint ``.zip`` written by ``training.train``, a loaded
            ``MaskablePPO`` model, or its ``policy``.
        deterministic: play the most probable legal action (default) or sample.
        seed: seed of the sampling generator.
        name: the agent's name (default: the checkpoint's file stem, or ``"policy"``).

    Raises:
        FileNotFoundError: the checkpoint does not exist.
        ValueError: the path is not a file, or the file is not a MaskablePPO checkpoint (an empty
            or foreign zip, a corrupt file, ...); the message names the file.
    """

    def __init__(self, model, deterministic: bool = True, seed: int | None = None, name: str | None = None):
        super().__init__(seed)
        if isinstance(model, (str, Path)):
            path = Path(model)
            if not path.exists():
                raise FileNotFoundError(f"checkpoint {path} does not exist")
            if not path.is_file():
                raise ValueError(f"checkpoint {path} is not a file")
            from sb3_contrib import MaskablePPO

            try:
                model = MaskablePPO.load(path, device="cpu")
            except Exception as e:  # SB3 raises AssertionError, KeyError, BadZipFile, ... for foreign files
                raise ValueError(f"{path} is not a MaskablePPO checkpoint written by training.train: {e}") from e
            self.name = name or path.stem
        else:
            self.name = name or "policy"
        self.policy = getattr(model, "policy", model)
        self.policy.set_training_mode(False)
        self.deterministic = deterministic

    def check_env(self, env) -> None:
        first = env.possible_agents[0]
        self.check_spaces(env.observation_space(first)["observation"], env.action_space(first).n)

    def check_spaces(self, observation, num_actions: int) -> None:
        """Raise a clear error when the environment's spaces are not those the policy was trained on.

        Args:
            observation: the environment's ``observation`` space (``Box`` or ``Dict``), or one
                observation (an array, or a dict of arrays).
            num_actions: the size of its action space.

        Raises:
            ValueError: the shapes differ (the message says how, and that the environment
                settings of the training run, in its ``config.yaml``, must be used).
        """
        import gymnasium as gym

        def shapes(x):
            if isinstance(x, gym.spaces.Dict):
                x = x.spaces
            return {k: tuple(v.shape) for k, v in x.items()} if isinstance(x, dict) else tuple(x.shape)

        mine, theirs = shapes(self.policy.observation_space), shapes(observation)
        n = int(self.policy.action_space.n)
        if mine != theirs or n != int(num_actions):
            raise ValueError(
                f"{self.name} was trained on observations {mine} and {n} actions, but this environment has "
                f"{theirs} and {num_actions}: create it with the settings of the training run (env_kwargs in the "
                "run's config.yaml; --env-kwargs for training.evaluate and training.play)")

    def _act(self, state, obs):
        if obs is None:
            raise ValueError(f"{self.name}: a policy agent needs the observation dict, got obs=None")
        if not getattr(self, "_checked", False):
            self.check_spaces(obs["observation"], len(obs["action_mask"]))
            self._checked = True
        return policy_action(self.policy, obs["observation"], obs["action_mask"], self.deterministic, self.rng)


def parse_checkpoint_spec(spec: str) -> tuple[str, bool] | None:
    """Whether an agent spec names a checkpoint, and which.

    A spec is a checkpoint when it ends with ``.zip`` (whatever else it contains, ``:``
    included) or with ``.zip:sample``; only that last ``:sample`` is split off (from the right).
    The ``.zip`` suffix is matched case-insensitively.

    Args:
        spec: an agent spec.

    Returns:
        ``(path, sample)`` for a checkpoint spec, else ``None``.

    Raises:
        ValueError: the spec is ``PATH.zip:OPTION`` with an option other than ``sample``.
    """
    if spec.lower().endswith(".zip"):
        return spec, False
    head, sep, option = spec.rpartition(":")
    if sep and head.lower().endswith(".zip"):
        if option != "sample":
            raise ValueError(f"checkpoint spec {spec!r}: the only option is ':sample', got {option!r}")
        return head, True
    return None


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build an agent from a spec string.

    Specs: ``random``, ``greedy``, ``mcts`` / ``mcts:N`` (N simulations, default 200),
    ``alphabeta`` / ``alphabeta:D`` (depth D, default 2), or a path to a ``.zip`` checkpoint
    (``PATH.zip`` or ``PATH.zip:sample`` to sample instead of taking the argmax; the path may
    itself contain ``:``, see :func:`parse_checkpoint_spec`).

    Args:
        spec: the spec string.
        seed: seed of the agent's random generator (``None``: unseeded).

    Returns:
        The agent.

    Raises:
        ValueError: unknown spec, bad parameter, or a file that is not a MaskablePPO checkpoint.
        FileNotFoundError: missing checkpoint.
    """
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    checkpoint = parse_checkpoint_spec(spec)
    if checkpoint is not None:
        path, sample = checkpoint
        return PolicyAgent(path, deterministic=not sample, seed=seed)
    name, _, arg = spec.partition(":")

    def _int(default):
        if not arg:
            return default
        try:
            return int(arg)
        except ValueError:
            raise ValueError(f"agent spec {spec!r}: expected an integer after ':', got {arg!r}") from None

    if name == "random" and not arg:
        return RandomAgent(seed)
    if name == "greedy" and not arg:
        return GreedyAgent(seed)
    if name == "mcts":
        return MCTSAgent(_int(200), seed=seed)
    if name == "alphabeta":
        return AlphaBetaAgent(_int(2), seed=seed)
    raise ValueError(
        f"unknown agent spec {spec!r}: expected random, greedy, mcts[:N], alphabeta[:D] or a path to a .zip checkpoint"
    )
