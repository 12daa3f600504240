"""Any registered game as an RLlib ``MultiAgentEnv`` for masked, turn-based, n-player self-play.

:class:`GameMultiAgentEnv` drives the registry's raw environment (``envs.spec(env_id).make_raw``)
and shows RLlib only the seats that RLlib modules play; baseline opponents (random, greedy or any
agent spec) move inside :meth:`~GameMultiAgentEnv.step`, from the game state, as in
:class:`training.selfplay.SelfPlayEnv`.

Agent ids carry the module that plays them: ``"<module>@<seat>"`` (``"main@0"``,
``"snapshot_3@1"``), so that a plain ``policy_mapping_fn`` (:func:`module_of`) maps them. Each
episode draws its line-up from the env's seeded generator: one learner seat (uniform, or fixed)
plays ``main``; its team partners play ``main`` too (``partner="latest"``) or are drawn like the
opponents (``"pool"``); each opponent seat is, with probability ``latest_prob``, ``main`` itself,
with ``baseline_prob`` a baseline (inside the env), otherwise one of the active snapshot modules
(:meth:`~GameMultiAgentEnv.set_snapshots`); without snapshots their share goes to the others in
proportion, as :class:`~training.selfplay.OpponentPool` does.

Observations (the RLlib layer's adaptation; the games are untouched): every agent id gets
``{"observations": <the game's observation, a Box or a nested Dict as the game emits it>,
"action_mask": int8 (num_actions,)}`` — the keys :class:`training.engines.rllib.module.GameRLModule`
reads. Only the agent to move observes (the same agent may observe several steps in a row:
Tantrix's extra turns); a hidden-hand game shows each agent only its own observation.

Rewards: the game's rewards come only at the end. When the game ends (on anyone's move, a
baseline's included) every RLlib agent that has observed at least once gets a final observation,
its own final reward and ``terminated`` (``truncated`` at the step limit: reward 0), and
``"__all__"`` ends the episode — so every seat's final reward reaches its own last transition.
The final ``infos`` of each agent carry ``returns`` (every seat's final reward), ``seat``,
``lineup`` (module or baseline name per seat), ``plies`` and ``last_mover`` (the seat that made
the last move).
"""

from __future__ import annotations

from collections.abc import Hashable

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from envs.registry import spec
from training.agents import Agent, make_agent
from training.selfplay import act_with_rng

__all__ = ["GameMultiAgentEnv", "module_of", "agent_id", "obs_space", "MAIN", "snapshot_ids"]

#: The trained module's id.
MAIN = "main"


def agent_id(module: str, seat: int) -> str:
    """The agent id of ``seat`` played by ``module``: ``"<module>@<seat>"``."""
    return f"{module}@{seat}"


def module_of(aid: Hashable, *args, **kwargs) -> str:
    """The ``policy_mapping_fn``: the module part of an agent id (``"main@2"`` -> ``"main"``;
    RLlib types agent ids as any hashable, this env's are strings)."""
    assert isinstance(aid, str), aid
    return aid.split("@", 1)[0]


def snapshot_ids(max_snapshots: int) -> list[str]:
    """The snapshot slots' module ids, ``snapshot_0 .. snapshot_{max_snapshots-1}``."""
    return [f"snapshot_{i}" for i in range(max_snapshots)]


def obs_space(raw) -> gym.spaces.Dict:
    """The RLlib observation space of a raw env's agents: ``Dict(observations=<game space>,
    action_mask=Box(0, 1, (num_actions,), int8))``."""
    first = raw.possible_agents[0]
    sp = raw.observation_space(first)
    return gym.spaces.Dict({"observations": sp["observation"], "action_mask": sp["action_mask"]})


class GameMultiAgentEnv(MultiAgentEnv):
    """A registered game for RLlib's new API stack (see the module docstring).

    Args (the ``config`` mapping; RLlib passes ``env_config`` as an ``EnvContext``):
        env_id: a registered environment id. env_kwargs: its constructor arguments.
        max_steps: episode limit in plies (truncation); ``None``: the env spec's default.
        baselines: agent specs played inside the env (default ``["random", "greedy"]``).
        baseline_prob, latest_prob: opponent draw probabilities (see the module docstring).
        max_snapshots: number of snapshot slots (module ids :func:`snapshot_ids`).
        snapshots: the slots active from the start (default none).
        partner: ``"latest"`` (team partners play ``main``) or ``"pool"``.
        seat: fix the learner's seat (``None``: uniform each episode).
        seed: the run seed; the env's generator is ``SeedSequence([seed, worker_index,
            vector_index])`` and is reseeded by ``reset(seed=s)`` (``SeedSequence([s, seed])``).

    Raises:
        ValueError: a bad value (unknown env id or kwargs, probabilities, partner, seat,
            unknown baseline spec or one that cannot play this game).
    """

    def __init__(self, config: dict | None = None):
        super().__init__()
        cfg = dict(config or {})
        self.env_id = cfg["env_id"]
        kwargs = dict(cfg.get("env_kwargs") or {})
        if cfg.get("max_steps") is not None:
            kwargs["max_steps"] = cfg["max_steps"]
        self.raw = spec(self.env_id).make_raw(**kwargs)
        self.raw.reset(seed=0)
        self.num_players = self.raw.num_players
        self.baseline_prob = float(cfg.get("baseline_prob", 0.3))
        self.latest_prob = float(cfg.get("latest_prob", 0.3))
        for name, p in (("baseline_prob", self.baseline_prob), ("latest_prob", self.latest_prob)):
            if not 0.0 <= p <= 1.0:
                raise ValueError(f"{name} must be in [0, 1], got {p}")
        if self.baseline_prob + self.latest_prob > 1 + 1e-9:
            raise ValueError("baseline_prob + latest_prob must be <= 1")
        self.partner = cfg.get("partner", "latest")
        if self.partner not in ("latest", "pool"):
            raise ValueError(f"partner must be 'latest' or 'pool', got {self.partner!r}")
        seat = cfg.get("seat")
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self.num_players):
            raise ValueError(f"seat must be None or an integer in [0, {self.num_players}), got {seat!r}")
        self.fixed_seat = seat
        seed = int(cfg.get("seed", 0))
        worker = int(getattr(config, "worker_index", 0) or 0)
        vector = int(getattr(config, "vector_index", 0) or 0)
        self.seed_salt = seed
        self.rng = np.random.default_rng(np.random.SeedSequence([seed, worker, vector]))
        self.baselines: list[Agent] = [make_agent(s, seed=None) for s in cfg.get("baselines", ["random", "greedy"])]
        for agent in self.baselines:
            agent.check_env(self.raw)
        self.slots = snapshot_ids(int(cfg.get("max_snapshots", 10)))
        self.active: list[str] = []
        self.set_snapshots(cfg.get("snapshots", []))
        space = obs_space(self.raw)
        action_space = self.raw.action_space(self.raw.possible_agents[0])
        self.possible_agents = [agent_id(m, s) for m in [MAIN, *self.slots] for s in range(self.num_players)]
        self.agents = []
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: action_space for a in self.possible_agents}
        self.lineup: list[str | Agent] = []  # per seat: a module id (str) or a baseline Agent
        self.seat = 0
        self._seen: set[str] = set()
        self.last_mover = -1

    # -- the pool ------------------------------------------------------------------------------
    def set_snapshots(self, names) -> None:
        """Make the snapshot slots ``names`` drawable from the next episode on.

        Raises:
            ValueError: a name that is not a slot of this env.
        """
        names = list(names)
        bad = [n for n in names if n not in self.slots]
        if bad:
            raise ValueError(f"unknown snapshot slots {bad}; slots: {self.slots}")
        self.active = names

    def _draw_opponent(self):
        p_latest, p_base = self.latest_prob, self.baseline_prob if self.baselines else 0.0
        p_snap = (1.0 - self.latest_prob - self.baseline_prob) if self.active else 0.0
        total = p_latest + p_base + p_snap
        if total <= 0:
            p_latest, p_base, total = (0.0, 1.0, 1.0) if self.baselines else (1.0, 0.0, 1.0)
        u = self.rng.random() * total
        if u < p_latest:
            return MAIN
        if u < p_latest + p_base:
            return self.baselines[int(self.rng.integers(len(self.baselines)))]
        return self.active[int(self.rng.integers(len(self.active)))]

    # -- the game ------------------------------------------------------------------------------
    def _aid(self, player: int) -> str | None:
        who = self.lineup[player]
        return agent_id(who, player) if isinstance(who, str) else None

    def _over(self) -> bool:
        return bool(
            self.raw.terminations[self.raw.agent_selection] or self.raw.truncations[self.raw.agent_selection]
        ) or all(self.raw.terminations[a] or self.raw.truncations[a] for a in self.raw.possible_agents)

    def _advance(self) -> None:
        """Let the baselines move until an RLlib agent is to move or the game is over."""
        raw = self.raw
        while not self._over():
            player = raw.possible_agents.index(raw.agent_selection)
            who = self.lineup[player]
            if isinstance(who, str):
                return
            raw.step(act_with_rng(who, self.rng, raw.state, raw.observe(raw.agent_selection)))
            self.last_mover = player

    def _obs(self, player: int) -> dict:
        o = self.raw.observe(self.raw.possible_agents[player])
        return {"observations": o["observation"], "action_mask": o["action_mask"]}

    def _names(self) -> list[str]:
        return [w if isinstance(w, str) else w.name for w in self.lineup]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.rng = np.random.default_rng(np.random.SeedSequence([int(seed), self.seed_salt]))
        for _ in range(1000):  # a game that ends before any module moves teaches nothing: deal again
            self.raw.reset(seed=int(self.rng.integers(2**31 - 1)))
            n = self.num_players
            self.seat = int(self.rng.integers(n)) if self.fixed_seat is None else self.fixed_seat
            team = next(t for t in self.raw.state.teams() if self.seat in t)
            self.lineup = []
            for p in range(n):
                if p == self.seat or (p in team and self.partner == "latest"):
                    self.lineup.append(MAIN)
                else:
                    self.lineup.append(self._draw_opponent())
            self._advance()
            if not self._over():
                player = self.raw.possible_agents.index(self.raw.agent_selection)
                aid = self._aid(player)
                assert aid is not None  # _advance stops at an RLlib agent's move
                self.agents = [self._aid(p) for p in range(n) if self._aid(p) is not None]
                self._seen = {aid}
                return {aid: self._obs(player)}, {aid: {"seat": player, "lineup": self._names()}}
        raise RuntimeError(f"{self.env_id}: 1000 games in a row ended before any RLlib agent's first move")

    def step(self, action_dict: dict):
        raw = self.raw
        player = raw.possible_agents.index(raw.agent_selection)
        aid = self._aid(player)
        if aid not in action_dict or len(action_dict) != 1:
            raise ValueError(
                f"{self.env_id}: expected an action for {aid} only (the agent to move), got actions "
                f"for {sorted(action_dict)}"
            )
        raw.step(int(action_dict[aid]))
        self.last_mover = player
        self._advance()
        if not self._over():
            nxt = raw.possible_agents.index(raw.agent_selection)
            naid = self._aid(nxt)
            assert naid is not None  # _advance stops at an RLlib agent's move
            self._seen.add(naid)
            # RLlib wants a reward with every observation after an agent's first (0 until the end)
            return ({naid: self._obs(nxt)}, {naid: 0.0}, {"__all__": False}, {"__all__": False}, {})
        truncated = not any(raw.terminations.values())
        returns = [float(raw._cumulative_rewards[a]) for a in raw.possible_agents]
        obs, rew, term, trunc, infos = {}, {}, {"__all__": not truncated}, {"__all__": truncated}, {}
        for p in range(self.num_players):
            a = self._aid(p)
            if a is None or a not in self._seen:
                continue
            obs[a] = self._obs(p)
            rew[a] = 0.0 if truncated else returns[p]
            term[a] = not truncated
            trunc[a] = truncated
            infos[a] = {
                "returns": returns,
                "seat": p,
                "lineup": self._names(),
                "plies": raw.num_steps,
                "last_mover": self.last_mover,
            }
        return obs, rew, term, trunc, infos
