"""Batched self-play: the learner's seat of ``N`` games as one Gymnasium ``VectorEnv``, and SB3's view of it.

:class:`SelfPlayVectorEnv` is :class:`~training.selfplay.SelfPlayEnv` for ``N`` games at once, on
the batched games of :func:`envs.make_vec` (a game's batched core, or ``backend="reference"``:
one rules state per game). Each game puts the learner in one seat (drawn per episode, or fixed)
and fills the other seats from an :class:`~training.selfplay.OpponentPool`, drawn per game per
episode. What changes is how the opponents move: every *round*, all the games where an opponent
is to move are answered together, and the games where one policy opponent (a snapshot, or
``"latest"``, the learner's live policy) is to move get **one forward pass** of that policy over
their observations (masked, then sampled per game); rounds repeat until every game is at the
learner's turn or over. Baselines that need a rules state (greedy, alpha-beta, MCTS, the
Tantrix robot, any other :class:`~training.agents.Agent`) act one game at a time on that
game's state, as in :class:`SelfPlayEnv`; ``random`` draws from the mask directly (uniform over
the legal actions, the same draw as :class:`~training.agents.RandomAgent`).

The same semantics as :class:`SelfPlayEnv`, game by game:

* observation: the learner seat's ``observation`` (the array, or dict of arrays, inside the
  env's dict observation); action: ``Discrete(num_actions)`` per game; :meth:`action_masks`:
  ``bool (N, num_actions)``, the learner's legal actions;
* reward: the learner seat's own final return, on its *last* transition, also when the game
  ends on an opponent's move; 0 on a truncation (the step limit); plus the potential-based
  shaping term when ``shaping > 0``;
* ``info`` per game: ``seat`` and ``opponents`` (names by seat) every step, and at the end of an
  episode ``returns`` (every seat's final reward) and ``plies``;
* seeding: game ``i`` reset with seed ``s`` has one generator, seeded from
  ``SeedSequence([s, seed_salt])``, that draws, in the same order as :class:`SelfPlayEnv`, the
  opponents' generator, the deal, the learner's seat and the opponents; the opponents' random
  choices come from that game's opponent generator (swapped in while they move, see
  :func:`~training.selfplay.act_with_rng`). So with the same seeds and learner actions, game ``i``
  plays exactly the episodes of a :class:`SelfPlayEnv` reset with seed ``s`` (a policy
  opponent's sampled moves too, up to the last bits of a batched forward pass against a single
  one: float sums of another batch size may differ).

Autoreset: Gymnasium 1.x's ``same_step`` (``metadata["autoreset_mode"]``), which is what SB3
does: a game that ends restarts within the step, the returned observation is the new episode's
(already advanced to the learner's first turn), and the finished one's last observation and
info are in ``infos["final_obs"]`` / ``infos["final_info"]`` (masked by ``"_final_obs"`` /
``"_final_info"``). A game that ends before the learner's first move is dealt again, as in
:class:`SelfPlayEnv`.

:class:`SelfPlaySB3VecEnv` is the thin SB3 ``VecEnv`` over it that ``training.train`` trains on
(instead of a ``DummyVecEnv`` of ``Monitor(SelfPlayEnv)``): ``infos`` as a list of dicts with
``terminal_observation``, ``TimeLimit.truncated`` and Monitor's ``episode`` statistics,
``seed()`` for the next ``reset()``, and ``env_method("action_masks")`` for sb3-contrib's
``get_action_masks``.

>>> from training.vector_selfplay import SelfPlayVectorEnv
>>> venv = SelfPlayVectorEnv("ataxx_v0", ["random", "greedy"], num_envs=4, backend="reference")
>>> obs, infos = venv.reset(seed=0)
>>> obs.shape, venv.action_masks().shape
((4, 7, 7, 5), (4, 834))
>>> import numpy as np
>>> obs, rewards, terminated, truncated, infos = venv.step(np.argmax(venv.action_masks(), axis=1))
>>> rewards.shape, sorted(infos)[:2]
((4,), ['_opponents', '_seat'])

Backends: ``backend="batched"`` (default) uses the game's batched core, and falls back to
``"reference"`` where there is none for the setting (``envs.make_vec`` raises ``ParameterError``
naming ``backend='reference'``, e.g. TwixT's ``links="manual"``); :attr:`backend` says which
runs and :attr:`backend_note` why (``None`` without a fallback).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from envs.core.checks import is_plain_number
from envs.core.state import GameState, IllegalActionError, ParameterError
from envs.core.vector import StateCore, obs_take
from envs.registry import make_vec, spec
from training.agents import Agent, PolicyAgent, RandomAgent
from training.selfplay import OpponentPool, act_with_rng

__all__ = ["SelfPlayVectorEnv", "SelfPlaySB3VecEnv", "make_games", "policy_logits"]


def make_games(env_id: str, num_envs: int, backend: str = "batched", **kwargs):
    """``envs.make_vec(env_id, num_envs, backend=backend, **kwargs)``, falling back to the
    reference backend where the game has no batched core for this setting.

    Returns:
        ``(vec, note)``: the :class:`~envs.core.vector.TabletopVectorEnv`, and ``None`` or the
        sentence saying why the reference backend runs instead of the batched one.

    Raises:
        ParameterError: any other bad argument (from ``make_vec``).
    """
    try:
        return make_vec(env_id, num_envs, backend=backend, autoreset="disabled", **kwargs), None
    except ParameterError as e:
        if backend != "batched" or "backend='reference'" not in str(e):
            raise
        note = f"fell back from backend='batched': {e}"
        return make_vec(env_id, num_envs, backend="reference", autoreset="disabled", **kwargs), note


def policy_logits(policy, observations) -> np.ndarray:
    """The action logits of an SB3 ``MaskableActorCriticPolicy`` for a batch of observations:
    one forward pass under ``torch.no_grad`` (the same layers as
    :func:`training.agents.policy_action`, with a batch axis).

    Args:
        policy: the policy.
        observations: ``(k, *shape)``, or a dict of such arrays.

    Returns:
        ``float64 (k, num_actions)``, unmasked.
    """
    import torch

    obs_t: dict[Any, torch.Tensor] | torch.Tensor
    with torch.no_grad():
        if isinstance(observations, dict):
            obs_t = {k: torch.as_tensor(v, dtype=torch.float32) for k, v in observations.items()}
        else:
            obs_t = torch.as_tensor(observations, dtype=torch.float32)
        features = policy.extract_features(obs_t, policy.pi_features_extractor)
        latent_pi = policy.mlp_extractor.forward_actor(features)
        return policy.action_net(latent_pi).numpy().astype(np.float64)


def _is_batched_policy(agent) -> bool:
    """A :class:`PolicyAgent` whose choice is the policy's masked logits (not a subclass that
    chooses otherwise): its moves can be batched."""
    return isinstance(agent, PolicyAgent) and type(agent)._act is PolicyAgent._act


def _is_plain_random(agent) -> bool:
    return isinstance(agent, RandomAgent) and type(agent)._act is RandomAgent._act


class SelfPlayVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` games of one seat each against the pool, the opponents' moves batched (see
    the module docstring).

    Args:
        env_id, pool, env_kwargs, max_steps, seat, partner, seed_salt, shaping, gamma: as
            :class:`~training.selfplay.SelfPlayEnv` (``pool``: an :class:`OpponentPool`, shared,
            or a non-empty list of agent specs or :class:`~training.agents.Agent` objects).
        num_envs: the number of games ``N`` (a positive int).
        backend: ``"batched"`` (default: the game's batched core where it has one for this
            setting, else the reference, said in :attr:`backend_note`) or ``"reference"``.

    Raises:
        ValueError: a bad argument (the same checks and messages as :class:`SelfPlayEnv`), an
            opponent that cannot play the game, a bad ``num_envs`` or ``backend``.

    Attributes: ``num_envs``, ``num_players``, ``single_observation_space``,
    ``single_action_space``, ``observation_space`` / ``action_space`` (batched), ``seats``
    (``int64 (N,)``, the learner's seat in each game), ``opponents`` (per game, ``{seat:
    Agent}``), ``episode_steps`` (``int64 (N,)``, plies so far), ``backend``, ``backend_note``,
    ``core`` (the :class:`~envs.core.vector.VectorCore`), ``stats`` (counters: ``rounds`` of
    opponent moves, ``policy_forwards`` and the ``policy_rows`` they answered, ``state_moves`` of
    the agents that act on a rules state, ``random_moves``).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        env_id: str,
        pool,
        num_envs: int,
        env_kwargs: dict | None = None,
        max_steps: int | None = None,
        seat: int | None = None,
        partner: str = "latest",
        seed_salt: int = 0,
        shaping: float = 0.0,
        gamma: float = 0.99,
        backend: str = "batched",
    ):
        if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if backend not in ("batched", "reference"):
            raise ValueError(f"backend must be 'batched' or 'reference', got {backend!r}")
        self.env_id = env_id
        kwargs = dict(env_kwargs or {})
        if max_steps is not None:
            kwargs["max_steps"] = max_steps
        self.raw = spec(env_id).make_raw(**kwargs)  # a probe: checks, spaces, teams, heuristics
        first = self.raw.possible_agents[0]
        self.num_envs = int(num_envs)
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
        self.raw.reset(seed=0)
        self._heuristic: Callable[[GameState, int], float] | None = None
        if self.shaping:
            heuristics = self.raw.state.heuristics()
            if heuristics is None:
                raise ValueError(
                    f"shaping needs the game's heuristics, and {env_id} declares none (GameInfo.heuristics)"
                )
            self._heuristic = heuristics.evaluate
        self._teams = [list(t) for t in self.raw.state.teams()]
        if not isinstance(pool, OpponentPool):
            if isinstance(pool, (str, Agent)) or not list(pool):
                raise ValueError(
                    f"{env_id}: give the opponents as a non-empty list of agent specs or Agent "
                    f"objects (or an OpponentPool), got {pool!r}"
                )
            pool = OpponentPool(pool, baseline_prob=1.0, latest_prob=0.0)
        for agent in pool.baselines:  # an opponent that cannot play this game: say so now, not at step()
            agent.check_env(self.raw)
        self.pool = pool

        self.vec, self.backend_note = make_games(env_id, self.num_envs, backend, **kwargs)
        self.core = self.vec.core
        self.backend = self.core.backend
        self.max_steps = self.vec.max_steps
        self._states = self.core.states if isinstance(self.core, StateCore) else None  # no clone needed
        self.num_actions = int(self.raw.num_actions)
        self.single_observation_space = self.raw.observation_space(first)["observation"]
        self.single_action_space = self.raw.action_space(first)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

        n = self.num_envs
        self._rngs: list[np.random.Generator | None] = [None] * n  # each game's np_random
        self._opponent_rngs: list[np.random.Generator] = [np.random.default_rng() for _ in range(n)]
        self.seats = np.zeros(n, dtype=np.int64)
        self.opponents: list[dict[int, Agent]] = [{} for _ in range(n)]
        self._names: list[dict[int, str]] = [{} for _ in range(n)]
        self.episode_steps = np.zeros(n, dtype=np.int64)
        self._truncated = np.zeros(n, dtype=bool)
        self._potential = np.zeros(n, dtype=np.float64)
        self._mask: np.ndarray | None = None
        self._started = False
        self.stats = {"rounds": 0, "policy_forwards": 0, "policy_rows": 0, "state_moves": 0, "random_moves": 0}

    # ------------------------------------------------------------------ games
    def _state(self, i: int):
        """Game ``i``'s rules state (the live one for the reference backend: agents do not modify it)."""
        return self._states[i] if self._states is not None else self.core.to_state(i)

    def _phi(self, i: int) -> float:
        if not self.shaping:
            return 0.0
        assert self._heuristic is not None  # set whenever shaping is
        return self.shaping * float(self._heuristic(self._state(i), int(self.seats[i])))

    def _draw_episode(self, i: int) -> int:
        """Draw game ``i``'s next deal seed, learner seat and opponents (SelfPlayEnv's order)."""
        rng = self._rngs[i]
        assert rng is not None  # seeded by _seed before a game is dealt
        deal = int(rng.integers(2**31 - 1))
        seat = int(rng.integers(self.num_players)) if self.fixed_seat is None else self.fixed_seat
        self.seats[i] = seat
        partners = next(team for team in self._teams if seat in team)
        opponents = {}
        for p in range(self.num_players):
            if p == seat:
                continue
            if p in partners and self.partner == "latest" and self.pool.latest is not None:
                opponents[p] = self.pool.latest
            else:
                opponents[p] = self.pool.sample(rng)
        self.opponents[i] = opponents
        self._names[i] = {p: a.name for p, a in opponents.items()}
        return deal

    def _start(self, index: list[int]) -> None:
        """New episodes in games ``index`` (their generators set), advanced to the learner's
        first turn; a game over before it is dealt again (up to 1000 times, as SelfPlayEnv)."""
        for i in index:
            rng = self._rngs[i]
            assert rng is not None  # _start's games have their generators set
            self._opponent_rngs[i] = np.random.default_rng(int(rng.integers(2**63 - 1)))
        pending, attempts = list(index), 0
        while pending:
            attempts += 1
            if attempts > 1000:
                raise RuntimeError(f"{self.env_id}: 1000 games in a row ended before the learner's first move")
            deals = [self._draw_episode(i) for i in pending]
            idx = np.asarray(pending, dtype=np.int64)
            self.core.reset_games(idx, [seeding.np_random(d)[0] for d in deals])
            self.episode_steps[idx] = 0
            self._truncated[idx] = False
            self._advance()
            cp = self.core.current_player()
            pending = [i for i in pending if cp[i] < 0 or self._truncated[i]]
            for i in idx.tolist():
                if i not in pending:
                    self._potential[i] = self._phi(i)

    def _apply(self, actions: np.ndarray, active: np.ndarray) -> None:
        """One ply in every ``active`` game, with the step limit (a truncation, as the AEC env)."""
        self.core.step(actions, active)
        self.episode_steps[active] += 1
        if self.max_steps is not None:
            self._truncated |= active & ~self.core.terminated() & (self.episode_steps >= self.max_steps)

    def _masks(self, index: np.ndarray, players: np.ndarray) -> np.ndarray:
        """``bool (k, A)``: the legal actions of ``players[j]`` (the mover) in game ``index[j]``."""
        if self._states is not None:  # the reference: only the games asked (the core computes all)
            return np.stack(
                [self._states[i].agent_action_mask(p) for i, p in zip(index.tolist(), players.tolist())]
            ).astype(bool)
        return self.core.legal_action_mask()[index]

    def _observe(self, index: np.ndarray, players: np.ndarray):
        """Game ``index[j]`` seen by seat ``players[j]``: a batch of ``k`` observations (copies)."""
        if self._states is not None:
            one = [self.core.encoder.encode(self._states[i], p) for i, p in zip(index.tolist(), players.tolist())]
            if isinstance(one[0], dict):
                return {k: np.stack([o[k] for o in one]) for k in one[0]}
            return np.stack(one)
        viewers = np.zeros(self.num_envs, dtype=np.int32)
        viewers[index] = players
        return obs_take(self.core.observe(viewers), index)

    def _advance(self) -> None:
        """Rounds of opponent moves until every game is at the learner's turn or over: per round
        one forward pass per policy over the games where it is to move."""
        while True:
            cp = self.core.current_player()
            movers = (cp >= 0) & ~self._truncated & (cp != self.seats)
            if not movers.any():
                return
            self.stats["rounds"] += 1
            index = np.flatnonzero(movers)
            players = cp[index].astype(np.int64)
            agents = [self.opponents[i][p] for i, p in zip(index.tolist(), players.tolist())]
            mask = self._masks(index, players)
            seen = [j for j, a in enumerate(agents) if not _is_plain_random(a)]  # who reads an observation
            obs = self._observe(index[seen], players[seen]) if seen else None
            row_of = {j: r for r, j in enumerate(seen)}
            actions = np.zeros(self.num_envs, dtype=np.int64)
            groups: dict[int, tuple] = {}  # id(policy) -> (policy, [positions j], [agents])
            for j, (i, agent) in enumerate(zip(index.tolist(), agents)):
                if _is_batched_policy(agent):
                    g = groups.setdefault(id(agent.policy), (agent.policy, [], []))
                    g[1].append(j)
                    g[2].append(agent)
                elif _is_plain_random(agent):  # RandomAgent's draw, from this game's opponent generator
                    legal = np.flatnonzero(mask[j])
                    actions[i] = legal[self._opponent_rngs[i].integers(len(legal))]
                    self.stats["random_moves"] += 1
                else:
                    ob = {"observation": obs_take(obs, row_of[j]), "action_mask": mask[j].astype(np.int8)}
                    actions[i] = act_with_rng(agent, self._opponent_rngs[i], self._state(i), ob)
                    self.stats["state_moves"] += 1
            for policy, positions, group in groups.values():
                rows = np.array([row_of[j] for j in positions])
                batch = obs_take(obs, rows)
                for agent in group:  # the spaces check PolicyAgent makes on its first move
                    if not getattr(agent, "_checked", False):
                        agent.check_spaces(obs_take(obs, int(rows[0])), self.num_actions)
                        agent._checked = True
                logits = policy_logits(policy, batch)
                self.stats["policy_forwards"] += 1
                self.stats["policy_rows"] += len(positions)
                logits[~mask[positions]] = -np.inf
                for lg, j, agent in zip(logits, positions, group):
                    i = int(index[j])
                    if agent.deterministic:
                        actions[i] = int(np.argmax(lg))
                    else:  # policy_action's draw, from this game's opponent generator
                        p = np.exp(lg - lg.max())
                        p /= p.sum()
                        actions[i] = int(self._opponent_rngs[i].choice(len(p), p=p))
            self._apply(actions, movers)

    def _seed(self, i: int, seed) -> None:
        if seed is None:
            if self._rngs[i] is None:
                self._rngs[i] = seeding.np_random()[0]
            return
        mixed = int(np.random.SeedSequence([int(seed), self.seed_salt]).generate_state(1)[0])
        self._rngs[i] = seeding.np_random(mixed)[0]

    def _info(self, i: int) -> dict:
        return {"seat": int(self.seats[i]), "opponents": dict(self._names[i])}

    # ------------------------------------------------------------------ the batched API
    def reset_games(self, seed=None) -> list[dict]:
        """Start every game (``seed``: ``None``, an int (game ``i`` gets ``seed + i``) or a
        list of ``N`` ints or ``None``); returns the per-game infos. The observation is
        :meth:`observe`'s."""
        if seed is None or isinstance(seed, (int, np.integer)):
            seeds = [None if seed is None else int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"reset needs one seed per game ({self.num_envs}), got {len(seeds)}")
        for i, s in enumerate(seeds):
            self._seed(i, s)
        self._start(list(range(self.num_envs)))
        self._started = True
        self._mask = None
        return [self._info(i) for i in range(self.num_envs)]

    def observe(self):
        """Every game from the learner's seat: ``(N, *shape)`` (or a dict of such arrays)."""
        return self.core.observe(self.seats)

    def play(self, actions):
        """The learner's moves in every game, the opponents' answers, the ends and restarts.

        Returns:
            ``(obs, rewards, terminated, truncated, infos, final_obs, reset_infos)``: the
            learner's observations after the step (of the new episode where one ended),
            ``float64 (N,)`` rewards, the ends (``bool (N,)``), the per-game infos of the
            step (of the finished episode where one ended), the finished games' last
            observations from the learner's seat (rows in the order of
            ``np.flatnonzero(terminated | truncated)``; ``None`` when none ended) and the new
            episodes' infos (``{game: info}``).

        Raises:
            IllegalActionError: wrong shape or dtype, or an action the learner's mask forbids in
                some game; nothing is played then.
            RuntimeError: before :meth:`reset`.
        """
        if not self._started:
            raise RuntimeError("call reset() before step()")
        n = self.num_envs
        a = np.asarray(actions)
        if a.dtype == bool or not np.issubdtype(a.dtype, np.integer) or a.shape != (n,):
            raise IllegalActionError(f"actions must be an integer array of shape ({n},), got {a.dtype} {a.shape}")
        a = a.astype(np.int64, copy=False)
        mask = self.action_masks()
        ok = (a >= 0) & (a < self.num_actions)
        ok[ok] = mask[np.flatnonzero(ok), a[ok]]
        if not ok.all():
            i = int(np.flatnonzero(~ok)[0])
            raise IllegalActionError(
                f"game {i}: action {int(a[i])} is not legal for the learner "
                f"(player_{int(self.seats[i])}, {int(mask[i].sum())} legal actions); "
                "nothing was played"
            )
        self._mask = None
        self._apply(a, np.ones(n, dtype=bool))
        self._advance()
        terminated = self.core.terminated().copy()
        truncated = self._truncated & ~terminated
        done = terminated | truncated
        rewards = np.zeros(n, dtype=np.float64)
        infos = [self._info(i) for i in range(n)]
        final_obs, reset_infos = None, {}
        ended = np.flatnonzero(done).tolist()
        if ended:
            returns = self.core.returns()
            rewards[terminated] = returns[terminated, self.seats[terminated]]
            for i in ended:
                infos[i]["returns"] = [float(x) for x in returns[i]] if terminated[i] else [0.0] * self.num_players
                infos[i]["plies"] = int(self.episode_steps[i])
        if self.shaping:  # potential-based: gamma * phi(next) - phi(now), phi = 0 once the episode is over
            for i in range(n):
                phi = 0.0 if done[i] else self._phi(i)
                rewards[i] += self.gamma * phi - self._potential[i]
                self._potential[i] = phi
        if ended:
            ended_index = np.asarray(ended)
            final_obs = self._observe(ended_index, self.seats[ended_index])  # copies
            self._start(ended)
            reset_infos = {i: self._info(i) for i in ended}
        return self.observe(), rewards, terminated, truncated, infos, final_obs, reset_infos

    def action_masks(self) -> np.ndarray:
        """``bool (N, num_actions)``: the learner's legal actions in each game (read-only)."""
        if not self._started:
            raise RuntimeError("call reset() before action_masks()")
        if self._mask is None:
            m = self.core.legal_action_mask()
            m.flags.writeable = False
            self._mask = m
        return self._mask

    # ------------------------------------------------------------------ Gymnasium's VectorEnv
    def reset(self, *, seed: int | list | None = None, options: dict | None = None):
        """Gymnasium's ``reset``: ``(observations, infos)``, infos as a dict of arrays with
        ``_key`` masks (``seat``, ``opponents``)."""
        per_game = self.reset_games(seed)
        infos: dict = {}
        for i, info in enumerate(per_game):
            infos = self._add_info(infos, info, i)
        return self.observe(), infos

    def step(self, actions):
        """Gymnasium's ``step`` (``same_step`` autoreset): ``(observations, rewards,
        terminations, truncations, infos)``; see the module docstring."""
        obs, rewards, terminated, truncated, per_game, final_obs, reset_infos = self.play(actions)
        infos: dict = {}
        ended = np.flatnonzero(terminated | truncated).tolist()
        for i, info in enumerate(per_game):
            if i in reset_infos:
                row = obs_take(final_obs, ended.index(i))
                infos = self._add_info(infos, {"final_obs": row, "final_info": info}, i)
                info = reset_infos[i]
            infos = self._add_info(infos, info, i)
        return obs, rewards, terminated, truncated, infos

    def __repr__(self) -> str:
        return (
            f"SelfPlayVectorEnv({self.env_id!r}, num_envs={self.num_envs}, backend={self.backend!r}, "
            f"kwargs={self.vec.env_kwargs})"
        )


# ---------------------------------------------------------------------------- SB3
try:  # SB3 (the train extra) is needed only for the class below
    from stable_baselines3.common.vec_env import VecEnv as _VecEnv
except ImportError:  # pragma: no cover - without the train extra
    _VecEnv = object  # type: ignore[misc,assignment]  # a stand-in base when SB3 is absent


class SelfPlaySB3VecEnv(_VecEnv):
    """SB3's ``VecEnv`` over a :class:`SelfPlayVectorEnv` (what ``training.train`` trains on).

    The same contract as a ``DummyVecEnv`` of ``Monitor(SelfPlayEnv)``: ``step`` returns
    ``(obs, rewards, dones, infos)``, ``infos[i]`` being game ``i``'s info with
    ``TimeLimit.truncated`` and, where an episode ended (the game restarted in the same step),
    ``terminal_observation`` (the learner's last view) and Monitor's ``episode`` statistics
    (``r``: the return rounded to 6 decimals, ``l``: the learner's transitions, ``t``: seconds
    since this env was made); ``seed(s)`` seeds the next ``reset()`` (game ``i``: ``s + i``, mixed
    with ``seed_salt``); ``env_method("action_masks")`` gives the learner's masks, one per game
    (sb3-contrib's ``get_action_masks``); ``env_is_wrapped(Monitor)`` is true, since the
    statistics Monitor would add are here. ``get_attr`` reads an attribute of the vector env (the
    same value for every game).

    Args:
        venv: the :class:`SelfPlayVectorEnv`.
    """

    def __init__(self, venv: SelfPlayVectorEnv):
        self.venv = venv
        self.render_mode = None
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)
        self._actions: np.ndarray | None = None
        self._t_start = time.time()
        self._ep_return = np.zeros(venv.num_envs, dtype=np.float64)
        self._ep_length = np.zeros(venv.num_envs, dtype=np.int64)

    def reset(self):
        self.reset_infos = self.venv.reset_games(self._seeds)
        self._reset_seeds()
        self._reset_options()
        self._ep_return[:] = 0.0
        self._ep_length[:] = 0
        return self.venv.observe()

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        obs, rewards, terminated, truncated, infos, final_obs, reset_infos = self.venv.play(self._actions)
        self._ep_return += rewards  # float64, in order: Monitor's sum of the rewards
        self._ep_length += 1
        dones = terminated | truncated
        row = 0
        for i, info in enumerate(infos):
            info["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            if dones[i]:
                info["terminal_observation"] = obs_take(final_obs, row)
                row += 1
                info["episode"] = {
                    "r": round(float(self._ep_return[i]), 6),
                    "l": int(self._ep_length[i]),
                    "t": round(time.time() - self._t_start, 6),
                }
                self._ep_return[i] = 0.0
                self._ep_length[i] = 0
                self.reset_infos[i] = reset_infos[i]
        return obs, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        self.venv.close()

    def _indices(self, indices) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, int):
            return [indices]
        return list(indices)

    def get_attr(self, attr_name: str, indices=None) -> list:
        if attr_name == "render_mode":
            return [None] * len(self._indices(indices))
        value = getattr(self.venv, attr_name)  # AttributeError when absent (SB3's has_attr)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        if indices is not None and self._indices(indices) != list(range(self.num_envs)):
            raise ValueError("set_attr: the games share one vector env, set an attribute of all of them")
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in self._indices(indices)]
        raise AttributeError(
            f"SelfPlaySB3VecEnv has no per-game method {method_name!r} (only action_masks); "
            "use .venv for the vector env"
        )

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        from stable_baselines3.common.monitor import Monitor

        return [issubclass(Monitor, wrapper_class)] * len(self._indices(indices))

    def __repr__(self) -> str:
        return f"SelfPlaySB3VecEnv({self.venv!r})"
