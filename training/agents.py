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
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
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
    "HEURISTICS",
    "policy_action",
]


class Agent(ABC):
    """Base class: ``act(state, obs) -> action``; ``reset(seed)`` before a game (optional)."""

    name: str = "agent"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the agent's random choices (``None`` keeps the current generator)."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, state: GameState, obs: dict) -> int:
        """Choose a legal action for ``state.current_player``."""

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"


class RandomAgent(Agent):
    """Uniformly random legal action (from the observation's mask, else from the state)."""

    name = "random"

    def act(self, state, obs):
        if obs is not None:
            legal = np.flatnonzero(obs["action_mask"])
            return int(legal[self.rng.integers(len(legal))])
        legal = state.legal_actions()
        return state.to_agent_action(state.current_player, int(legal[self.rng.integers(len(legal))]))


# ---------------------------------------------------------------------------- heuristics
def ataxx_material(state, player: int) -> float:
    """Stone difference (own minus opponent) from ``player``'s point of view."""
    nx, no = state.stone_counts()
    return float(nx - no) if player == 0 else float(no - nx)


#: Per game (keyed by the rules-state class name): ``f(state, player) -> float``, higher is
#: better for ``player``. Used by the greedy and alpha-beta agents.
HEURISTICS: dict[str, Callable[[GameState, int], float]] = {
    "AtaxxState": ataxx_material,
}


def _heuristic_for(state: GameState) -> Callable[[GameState, int], float]:
    name = type(state).__name__
    if name not in HEURISTICS:
        raise ValueError(f"no heuristic registered for {name}; known: {sorted(HEURISTICS)}")
    return HEURISTICS[name]


def _terminal_value(state: GameState, player: int) -> float:
    return 1e6 * float(state.returns()[player])


class GreedyAgent(Agent):
    """One-ply greedy: the action after which the game's heuristic is best for the mover.

    For Ataxx that is the move that gains the most stones (stone difference after the move);
    a move that wins outright is always preferred. Ties are broken at random (seeded).
    """

    name = "greedy"

    def act(self, state, obs):
        player = state.current_player
        h = _heuristic_for(state)
        best, best_actions = -math.inf, []
        for a in state.legal_actions():
            child = state.clone()
            child.apply(a)
            v = _terminal_value(child, player) if child.is_terminal() else h(child, player)
            if v > best:
                best, best_actions = v, [a]
            elif v == best:
                best_actions.append(a)
        return state.to_agent_action(player, best_actions[self.rng.integers(len(best_actions))])


class AlphaBetaAgent(Agent):
    """Depth-limited minimax with alpha-beta pruning for two-player zero-sum games.

    Leaves are scored with the game's heuristic (stone count for Ataxx), finished games with
    ``+-1e6``. Moves are ordered by their one-ply heuristic value; ties between equally valued
    root moves are broken at random (seeded).

    Args:
        depth: search depth in plies (>= 1).
    """

    def __init__(self, depth: int = 2, seed: int | None = None):
        super().__init__(seed)
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"alpha-beta depth must be a positive integer, got {depth!r}")
        self.depth = depth
        self.name = f"alphabeta:{depth}"

    def act(self, state, obs):
        if state.num_players != 2:
            raise ValueError(f"alpha-beta needs a two-player game, this one has {state.num_players} players")
        h = _heuristic_for(state)
        player = state.current_player
        children = []
        for a in state.legal_actions():
            c = state.clone()
            c.apply(a)
            children.append((a, c))
        # Order by one-ply value for better pruning.
        children.sort(key=lambda ac: -self._static(ac[1], player, h))
        best, best_actions = -math.inf, []
        for a, c in children:
            # A window just below the best value so far keeps equally good moves exact (ties).
            v = self._ab(c, player, self.depth - 1, best - 1e-6, math.inf, h)
            if v > best + 1e-9:
                best, best_actions = v, [a]
            elif abs(v - best) <= 1e-9:
                best_actions.append(a)
        return state.to_agent_action(player, best_actions[self.rng.integers(len(best_actions))])

    @staticmethod
    def _static(state, player, h):
        return _terminal_value(state, player) if state.is_terminal() else h(state, player)

    def _ab(self, state, root, depth, alpha, beta, h):
        if depth == 0 or state.is_terminal():
            return self._static(state, root, h)
        maximizing = state.current_player == root
        children = []
        for a in state.legal_actions():
            c = state.clone()
            c.apply(a)
            children.append(c)
        children.sort(key=lambda c: self._static(c, root, h), reverse=maximizing)
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
    exploration constant ``c``. Rollouts play uniformly random legal moves. In two-player games
    with a registered heuristic (:data:`HEURISTICS`) a rollout stops after ``rollout_limit``
    plies and is scored ``tanh(h / value_scale)`` for player 0 (and the opposite for player 1),
    where ``h`` is the heuristic; the default ``rollout_limit=0`` scores the new leaf at once
    (random Ataxx games last about 180 plies, mostly meaningless jumps, and random rollouts made
    a much weaker player: 0 of 4 games against greedy at 200 simulations, against 4 of 6 with
    leaf evaluation). Otherwise, or with ``rollout_limit=None``, rollouts run to the end of the
    game. The most visited root action is played.

    Args:
        simulations: number of simulations per move (>= 1).
        c: UCB1 exploration constant.
        rollout_limit: rollout length cap in plies (``None``: play to the end).
        value_scale: heuristic units per unit of ``atanh`` value (Ataxx: stones).
    """

    def __init__(self, simulations: int = 200, c: float = 1.4, rollout_limit: int | None = 0,
                 value_scale: float = 10.0, seed: int | None = None):
        super().__init__(seed)
        if isinstance(simulations, bool) or not isinstance(simulations, int) or simulations < 1:
            raise ValueError(f"MCTS simulations must be a positive integer, got {simulations!r}")
        if rollout_limit is not None and (not isinstance(rollout_limit, int) or rollout_limit < 0):
            raise ValueError(f"MCTS rollout_limit must be None or a non-negative integer, got {rollout_limit!r}")
        self.simulations = simulations
        self.c = c
        self.rollout_limit = rollout_limit
        self.value_scale = float(value_scale)
        self.name = f"mcts:{simulations}"

    def act(self, state, obs):
        player = state.current_player
        legal = list(state.legal_actions())
        if len(legal) == 1:
            return state.to_agent_action(player, legal[0])
        rng = self.rng
        root = _Node(None, None, None, list(legal))
        rng.shuffle(root.untried)
        n_players = state.num_players
        for _ in range(self.simulations):
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
        best = max(root.children, key=lambda ch: ch.visits)
        return state.to_agent_action(player, best.action)

    def _rollout(self, s, n_players):
        rng = self.rng
        plies = 0
        heuristic = HEURISTICS.get(type(s).__name__) if n_players == 2 else None
        limit = self.rollout_limit if heuristic is not None else None
        while not s.is_terminal():
            if limit is not None and plies >= limit:
                v = math.tanh(heuristic(s, 0) / self.value_scale)
                return np.array([v, -v])
            legal = s.legal_actions()
            s.apply(legal[rng.integers(len(legal))])
            plies += 1
        return s.returns()


# ---------------------------------------------------------------------------- trained policies
def policy_action(policy, observation: np.ndarray, mask: np.ndarray, deterministic: bool = True,
                  rng: np.random.Generator | None = None) -> int:
    """Masked action from an SB3 ``MaskableActorCriticPolicy`` for one observation.

    Faster than ``policy.predict`` for single observations: one forward pass under
    ``torch.no_grad``; illegal logits are set to ``-inf``; ``deterministic`` takes the argmax,
    otherwise samples from the masked softmax with ``rng``.
    """
    import torch

    with torch.no_grad():
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

    Args:
        model: a path to a checkpoint ``.zip`` written by ``training.train``, a loaded
            ``MaskablePPO`` model, or its ``policy``.
        deterministic: play the most probable legal action (default) or sample.

    Raises:
        FileNotFoundError: the checkpoint does not exist.
    """

    def __init__(self, model, deterministic: bool = True, seed: int | None = None, name: str | None = None):
        super().__init__(seed)
        if isinstance(model, (str, Path)):
            path = Path(model)
            if not path.exists():
                raise FileNotFoundError(f"checkpoint {path} does not exist")
            from sb3_contrib import MaskablePPO

            model = MaskablePPO.load(path, device="cpu")
            self.name = name or path.stem
        else:
            self.name = name or "policy"
        self.policy = getattr(model, "policy", model)
        self.policy.set_training_mode(False)
        self.deterministic = deterministic

    def act(self, state, obs):
        return policy_action(self.policy, obs["observation"], obs["action_mask"], self.deterministic, self.rng)


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """Build an agent from a spec string.

    Specs: ``random``, ``greedy``, ``mcts`` / ``mcts:N`` (N simulations, default 200),
    ``alphabeta`` / ``alphabeta:D`` (depth D, default 2), or a path to a ``.zip`` checkpoint
    (``PATH.zip`` or ``PATH.zip:sample`` to sample instead of taking the argmax).

    Raises:
        ValueError: unknown spec or bad parameter. FileNotFoundError: missing checkpoint.
    """
    if not isinstance(spec, str) or not spec:
        raise ValueError(f"agent spec must be a non-empty string, got {spec!r}")
    name, _, arg = spec.partition(":")
    if name.endswith(".zip") or Path(name).suffix == ".zip":
        if arg not in ("", "sample"):
            raise ValueError(f"checkpoint spec {spec!r}: the only option is ':sample'")
        return PolicyAgent(name, deterministic=(arg != "sample"), seed=seed)

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
