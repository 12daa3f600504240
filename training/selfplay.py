"""Self-play: a single-agent Gymnasium view of any multi-agent game, and the opponent pool.

:class:`SelfPlayEnv` puts the learner in one seat of a game (drawn at random every episode) and
fills every other seat with an opponent drawn from an :class:`OpponentPool` (the learner's own
past snapshots, its current policy, and baseline agents). The opponents' moves are played inside
``step()``, so from the learner's side the game is an ordinary single-agent episode.

Rewards: the episode's only reward is the learner seat's own final return, delivered on the
learner's *last* transition — also when the game ends on an opponent's move (the seat that did
not make the last move still receives its -1 / +1). This is the point where naive AEC-to-SB3
adapters go wrong: they credit the terminal reward only to the agent that moved last.

Nothing here assumes two players or alternating turns: the learner may act several times in a
row, and any number of seats is filled from the pool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypedDict

import gymnasium as gym
import numpy as np

from envs.core.checks import is_plain_number
from envs.core.state import GameState
from envs.registry import spec
from training.agents import Agent, PolicyAgent, make_agent

__all__ = ["POOL_DEFAULTS", "OpponentPool", "SelfPlayEnv", "clone_policy", "act_with_rng"]

_NO_RNG = object()  # an opponent without an ``rng`` attribute of its own


def act_with_rng(agent: Agent, rng: np.random.Generator, state, observation) -> int:
    """``agent.act(state, observation)`` with ``rng`` as the agent's generator for this one move,
    its own put back after (an agent object may be shared by several envs, each with its stream).

    Returns:
        The agent's action (an ``int``); whatever ``act`` raises propagates, the agent's ``rng``
        restored.
    """
    own = agent.__dict__.get("rng", _NO_RNG)
    agent.rng = rng
    try:
        return agent.act(state, observation)
    finally:
        if own is _NO_RNG:
            del agent.rng
        else:
            agent.rng = own


def clone_policy(policy):
    """A frozen copy of an SB3 policy (same class and weights, in eval mode, no optimizer state)."""
    new = policy.__class__(**policy._get_constructor_parameters())
    new.load_state_dict(policy.state_dict())
    new.set_training_mode(False)
    return new


class _PoolDefaults(TypedDict):
    baseline_prob: float
    latest_prob: float
    max_snapshots: int


#: The pool's defaults, which run configs take too (:class:`training.config.PoolConfig`): one home.
POOL_DEFAULTS: _PoolDefaults = {"baseline_prob": 0.3, "latest_prob": 0.3, "max_snapshots": 10}


class OpponentPool:
    """Where the non-learning seats get their players from.

    Each draw returns one :class:`~training.agents.Agent`:

    * with probability ``latest_prob`` the learner's current policy (sampling, not argmax);
    * with probability ``baseline_prob`` one of the baseline agents (e.g. ``random``, ``greedy``);
    * otherwise one of the stored snapshots (the most recent ``max_snapshots``), uniformly.

    Before the first snapshot exists its share goes to the baselines and the current policy in
    proportion to their probabilities.

    Args:
        baselines: agent specs for :func:`training.agents.make_agent`, or
            :class:`~training.agents.Agent` objects (used as they are).
        baseline_prob, latest_prob: probabilities in [0, 1], summing to at most 1 (defaults:
            :data:`POOL_DEFAULTS`, which run configs share).
        max_snapshots: how many past snapshots to keep (oldest dropped first).
        seed: seeds the baseline agents built from specs. (In a :class:`SelfPlayEnv` an
            opponent's random choices come from the env's generator instead; see there.)

    Raises:
        ValueError: bad probabilities or sizes, unknown baseline spec.
    """

    def __init__(
        self,
        baselines=("random", "greedy"),
        baseline_prob: float = POOL_DEFAULTS["baseline_prob"],
        latest_prob: float = POOL_DEFAULTS["latest_prob"],
        max_snapshots: int = POOL_DEFAULTS["max_snapshots"],
        seed: int | None = None,
    ):
        for name, p in (("baseline_prob", baseline_prob), ("latest_prob", latest_prob)):
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {p}")
        if baseline_prob + latest_prob > 1.0 + 1e-9:
            raise ValueError(f"baseline_prob + latest_prob must be <= 1, got {baseline_prob + latest_prob}")
        if not isinstance(max_snapshots, int) or max_snapshots < 1:
            raise ValueError(f"max_snapshots must be a positive integer, got {max_snapshots!r}")
        if isinstance(baselines, (str, Agent)):
            baselines = [baselines]
        self.baselines: list[Agent] = [
            s if isinstance(s, Agent) else make_agent(s, seed=None if seed is None else seed + i)
            for i, s in enumerate(baselines)
        ]
        if baseline_prob > 0 and not self.baselines:
            raise ValueError("baseline_prob > 0 needs at least one baseline agent")
        self.baseline_prob = baseline_prob
        self.latest_prob = latest_prob
        self.max_snapshots = max_snapshots
        self.snapshots: list[PolicyAgent] = []
        self.latest: Agent | None = None

    def set_latest(self, policy) -> None:
        """Use ``policy`` (the live learner policy, shared, not copied) as the 'latest' opponent."""
        self.latest = PolicyAgent(policy, deterministic=False, name="latest")

    def add_snapshot(self, policy, name: str) -> None:
        """Store a frozen copy of ``policy`` under ``name``."""
        self.snapshots.append(PolicyAgent(clone_policy(policy), deterministic=False, name=name))
        del self.snapshots[: -self.max_snapshots]

    def sample(self, rng: np.random.Generator) -> Agent:
        """Draw one opponent (see the class docstring for the probabilities)."""
        p_latest = self.latest_prob if self.latest is not None else 0.0
        p_base = self.baseline_prob if self.baselines else 0.0
        p_snap = (1.0 - self.latest_prob - self.baseline_prob) if self.snapshots else 0.0
        total = p_latest + p_base + p_snap
        if total <= 0:
            if self.baselines:
                p_base, total = 1.0, 1.0
            elif self.latest is not None:
                p_latest, total = 1.0, 1.0
            else:
                raise RuntimeError("the opponent pool is empty: no baseline, no snapshot and no current policy")
        u = rng.random() * total
        if u < p_latest:
            assert self.latest is not None  # p_latest > 0 only with a latest policy
            return self.latest
        if u < p_latest + p_base:
            return self.baselines[int(rng.integers(len(self.baselines)))]
        return self.snapshots[int(rng.integers(len(self.snapshots)))]

    def names(self) -> list[str]:
        return [a.name for a in self.baselines] + [a.name for a in self.snapshots] + (["latest"] if self.latest else [])


class SelfPlayEnv(gym.Env):
    """One seat of a multi-agent game as a single-agent ``gymnasium.Env``, for MaskablePPO.

    Observation: the learner seat's ``observation`` (the array inside the env's dict
    observation; its space is ``observation_space``). Action: ``Discrete(num_actions)``.
    ``action_masks()`` returns the learner's legal-action mask as ``bool (num_actions,)`` — the
    method sb3-contrib's MaskablePPO calls, also through vectorised environments.

    Seeding: ``reset(seed=s)`` reseeds everything the episode's course depends on, from one
    generator (``self.np_random``, seeded from ``s`` and ``seed_salt``): the game's chance (deal,
    bag, pile), the learner's seat, the opponents drawn from the pool, and every random choice
    the opponents make. An opponent object may be shared by several envs (the pool is), so while
    it moves here its ``rng`` is swapped for this env's opponent generator and put back after.
    Identical seeds and identical learner actions therefore give identical trajectories
    (observations, rewards, masks, infos), whatever other envs do with the same opponents; a
    ``reset()`` without a seed continues the generator. (A policy opponent's choices depend on
    its weights too: ``"latest"`` changes as the learner trains.)

    Single-agent use (one seat learning against chosen opponents)::

        env = SelfPlayEnv("ataxx_v0", ["greedy"], seat=0)    # opponents: a list of agent specs
        obs, info = env.reset(seed=0)
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))

    Gymnasium's ``check_env`` passes apart from masking: it draws its actions with
    ``action_space.sample()`` (some before it resets the env), which knows nothing of the
    legal-action mask, and an illegal action is an error here (``IllegalActionError``, as in
    ``raw_env``). With those actions replaced by legal ones every check passes, reset and step
    determinism included (``tests/training/test_selfplay.py``).

    Args:
        env_id: a registered environment id (``envs.env_ids()``); the environment is made by
            the registry (:meth:`envs.registry.EnvSpec.make_raw`), which checks ``env_kwargs``.
        pool: the :class:`OpponentPool` filling the other seats (shared by all copies of the env),
            or the opponents themselves: a list of agent specs (``"random"``, ``"greedy"``,
            ``"mcts:200"``, ``"PATH.zip"``...) or :class:`~training.agents.Agent` objects, each
            other seat drawing one uniformly every episode
            (``OpponentPool(opponents, baseline_prob=1.0, latest_prob=0.0)``).
        env_kwargs: constructor arguments of the environment.
        max_steps: episode limit in plies of the whole game (truncation); ``None``: a ``max_steps``
            in ``env_kwargs``, else the environment spec's default.
        seat: fix the learner's seat (``None``: uniformly random each episode).
        partner: who plays the learner's partners in team games (the other seats of the
            learner's team in ``state.teams()``): ``"latest"`` (default) the learner's current policy, so the
            team is the learner playing with itself; ``"pool"`` a draw from the pool like the
            opponents. Two-player games have no partners.
        seed_salt: mixed into every ``reset(seed=...)`` (``SeedSequence([seed, salt])``), so that
            runs seeded ``s`` and ``s + 1`` (whose vectorised envs get seeds ``s + i``) do not
            share random streams.
        shaping: coefficient ``k >= 0`` of potential-based reward shaping (Ng, Harada and
            Russell, 1999, "Policy invariance under reward transformations"): each learner
            transition also gets ``gamma * phi(s') - phi(s)`` with ``phi = k * h(state, seat)``,
            ``h`` the game's static evaluation (``state.heuristics().evaluate``: a score or
            material gap from public information) at the learner's decision points, and ``phi = 0`` once
            the episode is over, so the shaped return differs from the game's by the constant
            ``-phi(s_0)`` and the optimal policies are unchanged. ``0`` (default): no shaping.
        gamma: the discount of that shaping term (use PPO's ``gamma``).

    ``info`` carries ``seat`` and ``opponents`` (names) every step, and at the end of an episode
    ``returns`` (every seat's final reward) and ``plies``.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        env_id: str,
        pool: OpponentPool,
        env_kwargs: dict | None = None,
        max_steps: int | None = None,
        seat: int | None = None,
        partner: str = "latest",
        seed_salt: int = 0,
        shaping: float = 0.0,
        gamma: float = 0.99,
    ):
        super().__init__()
        self.env_id = env_id
        kwargs = dict(env_kwargs or {})
        if max_steps is not None:
            kwargs["max_steps"] = max_steps
        self.raw = spec(env_id).make_raw(**kwargs)
        first = self.raw.possible_agents[0]
        self.observation_space = self.raw.observation_space(first)["observation"]
        self.action_space = self.raw.action_space(first)
        self.num_players = self.raw.num_players
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self.num_players):
            raise ValueError(f"seat must be None or an integer in [0, {self.num_players}), got {seat!r}")
        self.fixed_seat = seat
        if partner not in ("latest", "pool"):
            raise ValueError(f"partner must be 'latest' or 'pool', got {partner!r}")
        self.partner = partner
        self.seed_salt = int(seed_salt)
        if not is_plain_number(shaping) or not np.isfinite(shaping) or shaping < 0:
            raise ValueError(f"shaping must be a finite number >= 0, got {shaping!r}")
        if not is_plain_number(gamma) or not 0 < gamma <= 1:
            raise ValueError(f"gamma must be a number in (0, 1], got {gamma!r}")
        self.shaping, self.gamma = float(shaping), float(gamma)
        self._heuristic: Callable[[GameState, int], float] | None = None
        if self.shaping:
            self.raw.reset(seed=0)
            heuristics = self.raw.state.heuristics()
            if heuristics is None:
                raise ValueError(
                    f"shaping needs the game's heuristics, and {env_id} declares none (GameInfo.heuristics)"
                )
            self._heuristic = heuristics.evaluate
        self._potential = 0.0
        if not isinstance(pool, OpponentPool):
            if isinstance(pool, (str, Agent)) or not list(pool):
                raise ValueError(
                    f"{env_id}: give the opponents as a non-empty list of agent specs or Agent "
                    f"objects (or an OpponentPool), got {pool!r}"
                )
            pool = OpponentPool(pool, baseline_prob=1.0, latest_prob=0.0)
        self.raw.reset(seed=0)
        for agent in pool.baselines:  # an opponent that cannot play this game: say so now, not at step()
            agent.check_env(self.raw)
        self.pool = pool
        self._opponent_rng = np.random.default_rng()
        self.seat = 0
        self.learner = first
        self.opponents: dict[int, Agent] = {}

    def _done(self) -> bool:
        return self.raw.terminations[self.learner] or self.raw.truncations[self.learner]

    def _advance(self) -> None:
        """Let the opponents move until it is the learner's turn or the game is over."""
        raw = self.raw
        while not self._done() and raw.agent_selection != self.learner:
            agent_id = raw.agent_selection
            player = raw.possible_agents.index(agent_id)
            opponent = self.opponents[player]
            # this env's stream while it moves here (see the class doc)
            raw.step(act_with_rng(opponent, self._opponent_rng, raw.state, raw.observe(agent_id)))

    def _info(self) -> dict:
        info = {"seat": self.seat, "opponents": {p: a.name for p, a in self.opponents.items()}}
        if self._done():
            info["returns"] = [float(self.raw._cumulative_rewards[a]) for a in self.raw.possible_agents]
            info["plies"] = self.raw.num_steps
        return info

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            seed = int(np.random.SeedSequence([seed, self.seed_salt]).generate_state(1)[0])
        super().reset(seed=seed)
        rng = self.np_random
        self._opponent_rng = np.random.default_rng(int(rng.integers(2**63 - 1)))
        # A game that ends before the learner's first move has nothing to learn from: deal again.
        for _ in range(1000):
            self.raw.reset(seed=int(rng.integers(2**31 - 1)))
            self.seat = int(rng.integers(self.num_players)) if self.fixed_seat is None else self.fixed_seat
            self.learner = self.raw.possible_agents[self.seat]
            partners = next(team for team in self.raw.state.teams() if self.seat in team)
            self.opponents = {}
            for p in range(self.num_players):
                if p == self.seat:
                    continue
                is_partner = p in partners
                if is_partner and self.partner == "latest" and self.pool.latest is not None:
                    self.opponents[p] = self.pool.latest
                else:
                    self.opponents[p] = self.pool.sample(rng)
            self._advance()
            if not self._done():
                self._potential = self._phi()
                return self.raw.observe(self.learner)["observation"], self._info()
        raise RuntimeError(f"{self.env_id}: 1000 games in a row ended before the learner's first move")

    def step(self, action):
        self.raw.step(int(action))
        self._advance()
        terminated = bool(self.raw.terminations[self.learner])
        truncated = bool(self.raw.truncations[self.learner]) and not terminated
        reward = float(self.raw._cumulative_rewards[self.learner]) if terminated else 0.0
        if self.shaping:  # potential-based: gamma * phi(next) - phi(now), phi = 0 once the episode is over
            phi = 0.0 if (terminated or truncated) else self._phi()
            reward += self.gamma * phi - self._potential
            self._potential = phi
        obs = self.raw.observe(self.learner)["observation"]
        return obs, reward, terminated, truncated, self._info()

    def _phi(self) -> float:
        """Shaping potential of the learner's decision point: ``shaping * heuristic(state, seat)``."""
        if not self.shaping:
            return 0.0
        assert self._heuristic is not None  # set whenever shaping is
        return self.shaping * float(self._heuristic(self.raw.state, self.seat))

    def action_masks(self) -> np.ndarray:
        """``bool (num_actions,)``: the learner's legal actions now."""
        return self.raw.observe(self.learner)["action_mask"].astype(bool)
