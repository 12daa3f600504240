"""Batched games: the vector contract every game's batched core implements, and the vector env on it.

Many games of one setting are stepped together, as arrays (a *struct of arrays*), with a
per-game current player, as Pgx does. Two layers:

* :class:`VectorCore` — a game's batched rules (``envs/<game>/vector.py``): ``B`` games whose
  state lives in named arrays with a leading axis ``B`` (:attr:`VectorCore.arrays`). It starts
  games, applies one legal action per game, and reports each game's current player, legal-action
  mask, end, returns and observation (encoded exactly as the game's AEC environment encodes it).
  It converts to and from the reference rules state (:class:`envs.core.state.GameState`), which
  stays the specification: every batched core is tested step by step against it. Every game also
  has :class:`StateCore`, the same contract over one reference state per game (no speed-up; the
  ``backend="reference"`` of :func:`envs.make_vec`, and the other side of the differential tests).
* :class:`TabletopVectorEnv` — what :func:`envs.make_vec` returns: the checks of the actions,
  the step limit (a truncation), Gymnasium 1.x's autoreset modes, the per-game generators, and the
  copies between batches that tree search needs (:meth:`~TabletopVectorEnv.take`,
  :meth:`~TabletopVectorEnv.put`). It never names a game.

>>> import numpy as np, envs
>>> vec = envs.make_vec("ataxx_v0", 4, seed=0)
>>> out = vec.reset()
>>> out.observation.shape, out.action_mask.shape, out.current_player.tolist()
((4, 7, 7, 5), (4, 834), [0, 0, 0, 0])
>>> out = vec.step(np.argmax(out.action_mask, axis=1))
>>> out.current_player.tolist(), out.rewards.shape
([1, 1, 1, 1], (4, 2))
"""

from __future__ import annotations

import copy
import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from numba import njit

from envs.core.checks import is_int
from envs.core.errors import IllegalActionError, ParameterError
from envs.core.state import GameState

__all__ = [
    "VecStep",
    "VectorCore",
    "StateCore",
    "TabletopVectorEnv",
    "AUTORESET_MODES",
    "pack_mask",
    "unpack_mask",
    "sample_legal",
    "obs_take",
    "obs_put",
    "obs_zeros",
    "obs_equal",
]

#: The autoreset modes, with Gymnasium 1.x's meanings (``gymnasium.vector.AutoresetMode``).
AUTORESET_MODES = ("next_step", "same_step", "disabled")


# ---------------------------------------------------------------------------- observation batches
# A batch of observations is an array ``(B, *shape)`` or a dict of such arrays (a Dict space).


def obs_take(obs, index):
    """Rows ``index`` of an observation batch (array or dict of arrays), as copies."""
    if isinstance(obs, dict):
        return {k: v[index] for k, v in obs.items()}
    return obs[index]


def obs_put(obs, index, values) -> None:
    """Write ``values`` (a batch of ``len(index)`` observations) into rows ``index`` of ``obs``."""
    if isinstance(obs, dict):
        for k, v in obs.items():
            v[index] = values[k]
    else:
        obs[index] = values


def obs_zeros(space, n: int):
    """A zero batch of ``n`` observations of ``space`` (a ``Box`` or a ``Dict`` of ``Box``)."""
    if isinstance(space, spaces.Dict):
        return {k: obs_zeros(s, n) for k, s in space.spaces.items()}
    return np.zeros((n, *space.shape), dtype=space.dtype)


def obs_equal(a, b) -> bool:
    """Whether two observation batches (or single observations) are equal: same keys, shapes,
    dtypes and values."""
    if isinstance(a, dict) or isinstance(b, dict):
        return (
            isinstance(a, dict)
            and isinstance(b, dict)
            and a.keys() == b.keys()
            and all(obs_equal(a[k], b[k]) for k in a)
        )
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


def pack_mask(mask: np.ndarray) -> np.ndarray:
    """The packed form of a mask batch: ``bool (B, A)`` to ``uint8 (B, ceil(A / 8))``, bit ``a % 8``
    (little-endian bit order) of byte ``a // 8`` for action ``a`` (``numpy.packbits``)."""
    return np.packbits(np.asarray(mask, dtype=bool), axis=-1, bitorder="little")


def unpack_mask(packed: np.ndarray, num_actions: int) -> np.ndarray:
    """Inverse of :func:`pack_mask`: ``uint8 (B, ceil(A / 8))`` to ``bool (B, A)``."""
    return np.unpackbits(packed, axis=-1, count=num_actions, bitorder="little").astype(bool)


_ONES = np.uint64(0x0101010101010101)


@njit(cache=True)
def _sample_legal(flat, words, num_actions, u, out):
    """``flat``: the masks, ``uint8 (B * A,)`` (0 or 1); ``words``: its whole 8-byte words
    (``uint64``, the same memory). A row's legal actions are counted and skipped 8 at a time: a
    word's byte sum is ``(w * 0x0101010101010101) >> 56`` (each byte is 0 or 1)."""
    A = num_actions
    for i in range(out.shape[0]):
        s = i * A
        e = s + A
        w0 = (s + 7) >> 3  # the row's whole words: w0 .. w1 - 1
        w1 = e >> 3
        if w0 >= w1:  # none: the whole row is head
            w0 = w1 = 0
            h = e
            t0 = e
        else:
            h = w0 * 8  # the head bytes s .. h - 1, the tail bytes t0 .. e - 1
            t0 = w1 * 8
        n = 0
        for a in range(s, h):
            n += flat[a]
        for j in range(w0, w1):
            n += (words[j] * _ONES) >> np.uint64(56)
        for a in range(t0, e):
            n += flat[a]
        out[i] = 0
        if n == 0:
            continue
        k = min(int(u[i] * n), n - 1)
        start = s
        for a in range(s, h):  # the head
            if flat[a]:
                if k == 0:
                    break
                k -= 1
            start = a + 1
        else:
            start = t0
            for j in range(w0, w1):  # whole words
                c = int((words[j] * _ONES) >> np.uint64(56))
                if k < c:
                    start = j * 8
                    break
                k -= c
        for a in range(start, e):
            if flat[a]:
                if k == 0:
                    out[i] = a - s
                    break
                k -= 1


def sample_legal(mask: np.ndarray, u: np.ndarray) -> np.ndarray:
    """One uniformly drawn legal action per game: ``int64 (B,)`` from a mask batch ``bool (B, A)``
    and uniform numbers ``u`` in ``[0, 1)`` (``float64 (B,)``, e.g. ``rng.random(B)``): the
    ``floor(u * n)``-th legal action of a row with ``n``; 0 for a row without any (a finished
    game, whose action the vector env ignores).

    Raises:
        ValueError: shapes or dtypes other than these.
    """
    mask = np.asarray(mask)
    u = np.asarray(u, dtype=np.float64)
    if mask.dtype != bool or mask.ndim != 2 or u.shape != (mask.shape[0],):
        raise ValueError(
            f"sample_legal needs a bool (B, A) mask and u of shape (B,), got {mask.dtype} {mask.shape} and {u.shape}"
        )
    out = np.empty(mask.shape[0], dtype=np.int64)
    flat = np.ascontiguousarray(mask).view(np.uint8).reshape(-1)
    if flat.ctypes.data % 8:  # the word view needs 8-byte alignment
        flat = flat.copy()
    words = flat[: flat.size - flat.size % 8].view(np.uint64)
    _sample_legal(flat, words, mask.shape[1], u, out)
    return out


# ---------------------------------------------------------------------------- the core contract
class VectorCore(ABC):
    """A game's batched rules: ``num_envs`` games of one setting as arrays.

    One subclass per game, in ``envs/<game>/vector.py``, built from the same keyword arguments
    as the game's raw environment (minus ``max_steps`` and ``render_mode``, which the vector env
    handles), validated with the same errors. Everything that differs between games stays in that
    package; :class:`TabletopVectorEnv` only calls the methods below.

    State: every per-game array lives in :attr:`arrays` (``{name: array}``, leading axis
    ``num_envs``), so that :meth:`take` and :meth:`put` copy games generically; tables shared by
    all games (geometry, tiles) are ordinary attributes and are never copied. A subclass that keeps
    per-game state elsewhere overrides :meth:`take` and :meth:`put`.

    Frames: masks, actions and observations are in the frame of the player they are for (the
    mover's, for masks and actions), exactly as the AEC environment shows them to that agent
    (TwixT's black sees the board transposed).

    Class attributes: ``backend`` (a short name, e.g. ``"numba"``, ``"numpy"``, ``"reference"``).
    Instance attributes: ``num_envs``, ``num_players``, ``num_actions``, ``observation_space``
    (the ``"observation"`` part of one game's observation space: the AEC encoder's ``space``).
    """

    backend: str = "batched"
    num_envs: int
    num_players: int
    num_actions: int
    observation_space: Any
    arrays: dict[str, np.ndarray]

    # ------------------------------------------------------------------ games
    @abstractmethod
    def reset_games(self, index: np.ndarray, rngs: Sequence[np.random.Generator]) -> None:
        """Put a new game at its start in every slot ``index[j]`` (``int64 (k,)``, distinct),
        drawing its chance (bag, deck) from ``rngs[j]`` exactly as the AEC environment's start
        does from its generator, so the same generator deals the same game."""

    @abstractmethod
    def step(self, actions: np.ndarray, active: np.ndarray) -> None:
        """Apply ``actions[i]`` (``int64 (B,)``, the mover's frame) in every game ``i`` where
        ``active[i]`` (``bool (B,)``); the other games are untouched. The caller has checked that
        every active game is live and its action legal."""

    @abstractmethod
    def current_player(self) -> np.ndarray:
        """``int32 (B,)``: the seat to act in each game, ``-1`` where the game is over."""

    @abstractmethod
    def legal_action_mask(self) -> np.ndarray:
        """``bool (B, A)``: the mover's legal actions, in the mover's frame; all ``False`` where the
        game is over. A fresh array the caller may keep."""

    @abstractmethod
    def terminated(self) -> np.ndarray:
        """``bool (B,)``: the game is over by the rules."""

    @abstractmethod
    def returns(self) -> np.ndarray:
        """``float32 (B, num_players)``: each seat's final return where the game is over (the
        state's ``returns()``), zeros elsewhere."""

    @abstractmethod
    def observe(self, players: np.ndarray):
        """The observation of game ``i`` for seat ``players[i]`` (``int (B,)``, every entry a
        seat), encoded exactly as the AEC environment's encoder encodes it: ``(B, *shape)`` arrays
        of the space's dtype, or a dict of them for a ``Dict`` space. Hidden information (other
        hands, bag or deck order) never shows."""

    # ------------------------------------------------------------------ the reference
    @abstractmethod
    def to_state(self, i: int) -> GameState:
        """Game ``i`` as a reference rules state, equal (``==``) to the reference game reached by
        the same actions, with its bag or deck; its ``history`` may be empty (the position, not
        the path)."""

    @abstractmethod
    def set_states(self, index: np.ndarray, states: Sequence[GameState]) -> None:
        """Load reference state ``states[j]`` into slot ``index[j]``.

        Raises:
            ParameterError: a state of another game or setting (the message says which).
        """

    # ------------------------------------------------------------------ the game's evaluation
    def heuristic_values(self, index: np.ndarray, seats: np.ndarray, evaluator: str = "evaluate") -> np.ndarray:
        """The game's own static evaluation of games ``index`` as values: ``float64 (k, s)``, entry
        ``[j, c]`` is ``tanh(f(state, seats[c]) / value_scale)`` of game ``index[j]``, ``f`` the
        evaluation called ``evaluator`` of the game's heuristics module (:mod:`envs.core.heuristics`:
        ``"evaluate"``, the module's own, or one of the game's named ``GameInfo.evaluators``) and
        ``value_scale`` the module's, in ``(-1, 1)``, higher better for that seat's side.

        This default goes through :meth:`to_state` (one reference state a game); a game's core may
        override it with a batched kernel that returns the same values. ``index``: ``int (k,)``
        games that are not over; ``seats``: ``int (s,)`` seats.

        Raises:
            ValueError: the game declares no heuristics module, or no evaluation ``evaluator``.
        """
        index = np.asarray(index, dtype=np.int64)
        players = [int(p) for p in np.asarray(seats, dtype=np.int64)]
        out = np.zeros((index.size, len(players)), dtype=np.float64)
        f = scale = None
        for j, i in enumerate(index.tolist()):
            st = self.to_state(i)
            if f is None:
                heur = st.heuristics()
                if heur is None:
                    raise ValueError(f"{type(st).__name__} declares no heuristics module: it has no evaluation")
                f, scale = heur.evaluator(evaluator), heur.value_scale
            for c, p in enumerate(players):
                out[j, c] = math.tanh(f(st, p) / scale)
        return out

    # ------------------------------------------------------------------ copies (generic)
    def take(self, index: np.ndarray) -> VectorCore:
        """A new core holding copies of games ``index`` (``int (k,)``, repeats allowed), in
        that order; shared tables are shared, per-game arrays copied."""
        index = np.asarray(index, dtype=np.int64)
        new = copy.copy(self)
        new.arrays = {k: v[index] for k, v in self.arrays.items()}
        new.num_envs = int(index.size)
        new._after_copy()
        return new

    def put(self, index: np.ndarray, other: VectorCore) -> None:
        """Overwrite games ``index`` (``int (k,)``, distinct) with copies of ``other``'s games
        ``0 .. k - 1`` (a core of the same class and setting, ``other.num_envs == k``)."""
        index = np.asarray(index, dtype=np.int64)
        for k, v in self.arrays.items():
            v[index] = other.arrays[k]

    def _after_copy(self) -> None:  # noqa: B027 - an optional hook, empty unless a subclass needs it
        """Hook run on a new core made by :meth:`take` (e.g. to rebind attribute views of
        :attr:`arrays`)."""

    def memory_per_game(self) -> int:
        """Bytes of per-game state (the sum of :attr:`arrays` over one game)."""
        return int(sum(v.nbytes for v in self.arrays.values()) // max(1, self.num_envs))


class StateCore(VectorCore):
    """The vector contract over one reference rules state per game (``backend="reference"``).

    No speed-up: each game is its environment's own rules state, stepped and encoded by the same
    code as the AEC environment, so it is exact by construction. It is the reference side of the
    differential tests of the batched cores, and the way to run the few settings a game has no
    batched core for (the game's ``vector_core`` says which) through the vector API.

    Args:
        raw_env: a raw AEC environment of the setting (its ``_new_state``, ``encoder``,
            ``num_players`` and ``num_actions`` are used; the environment itself is not stepped).
        num_envs: the number of games.
    """

    backend = "reference"

    def __init__(self, raw_env, num_envs: int):
        self._env = raw_env
        self.num_envs = int(num_envs)
        self.num_players = raw_env.num_players
        self.num_actions = raw_env.num_actions
        self.encoder = raw_env.encoder
        self.observation_space = raw_env.encoder.space
        probe = raw_env._new_state(np.random.default_rng(0))
        self._type = type(probe)
        self.states: list[GameState] = [probe.clone() for _ in range(self.num_envs)]
        self.arrays = {}

    def reset_games(self, index, rngs) -> None:
        for i, rng in zip(np.asarray(index).tolist(), rngs):
            self.states[i] = self._env._new_state(rng)

    def step(self, actions, active) -> None:
        for i in np.flatnonzero(active).tolist():
            st = self.states[i]
            st.apply(st.to_state_action(st.current_player, int(actions[i])))

    def current_player(self) -> np.ndarray:
        return np.array([s.current_player for s in self.states], dtype=np.int32)

    def legal_action_mask(self) -> np.ndarray:
        out = np.zeros((self.num_envs, self.num_actions), dtype=bool)
        for i, s in enumerate(self.states):
            p = s.current_player
            if p >= 0:
                out[i] = s.agent_action_mask(p)
        return out

    def terminated(self) -> np.ndarray:
        return np.array([s.is_terminal() for s in self.states], dtype=bool)

    def returns(self) -> np.ndarray:
        out = np.zeros((self.num_envs, self.num_players), dtype=np.float32)
        for i, s in enumerate(self.states):
            if s.is_terminal():
                out[i] = s.returns()
        return out

    def observe(self, players):
        one = [self.encoder.encode(s, int(p)) for s, p in zip(self.states, np.asarray(players).tolist())]
        if isinstance(self.observation_space, spaces.Dict):
            return {k: np.stack([o[k] for o in one]) for k in self.observation_space.spaces}
        return np.stack(one)

    def to_state(self, i: int) -> GameState:
        return self.states[i].clone()

    def set_states(self, index, states) -> None:
        for i, s in zip(np.asarray(index).tolist(), states):
            if not isinstance(s, self._type):
                raise ParameterError(f"a state of {type(s).__name__} cannot join a batch of {self._type.__name__}")
            self.states[i] = s.clone()

    def take(self, index) -> StateCore:
        new = copy.copy(self)
        new.states = [self.states[i].clone() for i in np.asarray(index).tolist()]
        new.num_envs = len(new.states)
        return new

    def put(self, index, other) -> None:
        for i, s in zip(np.asarray(index).tolist(), other.states):
            self.states[i] = s.clone()

    def memory_per_game(self) -> int:
        import pickle

        return len(pickle.dumps(self.states[0])) if self.states else 0


# ---------------------------------------------------------------------------- the vector env
@dataclass
class VecStep:
    """What :meth:`TabletopVectorEnv.reset` and :meth:`~TabletopVectorEnv.step` return: one struct
    of arrays over the ``B`` games.

    Attributes:
        observation: the current player's observation of each game (``(B, *shape)``, or a dict of
            such arrays), egocentric, encoded exactly as the AEC environment encodes it; where a
            game is over, the view of the seat that made its last move.
        action_mask: ``bool (B, A)``: the current player's legal actions, in its frame; all
            ``False`` where the game is over (as the AEC environment's mask). Read-only.
        current_player: ``int32 (B,)``: the seat to act, ``-1`` where the game is over.
        rewards: ``float32 (B, num_players)``: what each seat received on this step (the game's
            returns on the step it ended, the illegal-move penalty in ``illegal="penalty"`` mode,
            zeros otherwise).
        terminated: ``bool (B,)``: the game ended on this step by the rules (or by a penalty).
        truncated: ``bool (B,)``: the game reached the step limit on this step.
        info: ``same_step`` autoreset: ``"final_obs"`` (the finished games' last observations,
            valid where ``"_final_obs"``), ``"final_mover"`` (``int32 (B,)``: whose view that is,
            ``-1`` elsewhere); and ``"reset"`` (``bool (B,)``: the game restarted on this step),
            in every mode.
    """

    observation: Any
    action_mask: np.ndarray
    current_player: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    info: dict = field(default_factory=dict)


def _check_index(index, n: int, what: str, *, distinct: bool) -> np.ndarray:
    a = np.asarray(index)
    if a.ndim == 0:
        a = a.reshape(1)
    if a.dtype == bool or not (np.issubdtype(a.dtype, np.integer) or a.size == 0) or a.ndim != 1:
        raise ParameterError(
            f"{what} must be a 1-D array of integer game indices, got {a.dtype} array of shape {a.shape}"
        )
    a = a.astype(np.int64)
    if a.size and (a.min() < 0 or a.max() >= n):
        bad = a[(a < 0) | (a >= n)][0]
        raise ParameterError(f"{what}: game index {bad} is out of range [0, {n})")
    if distinct and np.unique(a).size != a.size:
        raise ParameterError(f"{what} must not repeat a game index, got {a.tolist()}")
    return a


class TabletopVectorEnv:
    """``num_envs`` games of one environment id and setting, stepped together (:func:`envs.make_vec`).

    Each call returns a :class:`VecStep` (observation, action mask, current player, rewards per
    seat, terminated, truncated). Actions are ``int (B,)``, each in its mover's frame, as the AEC
    environment's ``step`` takes them.

    Autoreset (Gymnasium 1.x's meanings, ``metadata["autoreset_mode"]``):

    * ``"next_step"`` (default): a game that ends is returned finished (its final observation,
      rewards, ``terminated`` / ``truncated``); on the next ``step`` its action is ignored and it
      restarts, returning its first observation with zero rewards (``info["reset"]`` marks it).
    * ``"same_step"``: a game that ends restarts within the same step; the returned observation is
      the new game's, ``rewards`` / ``terminated`` / ``truncated`` are the finished game's, and its
      final observation is in ``info["final_obs"]`` (valid where ``info["_final_obs"]``).
    * ``"disabled"``: finished games stay finished (their actions are ignored, their rewards zero)
      until :meth:`reset` with a ``mask`` restarts them.

    Chance: game ``i`` has a generator of its own, seeded ``seed + i`` (``seeding.np_random``, as
    the AEC environment's ``reset(seed=seed + i)``), so with the same seed the episodes of game
    ``i`` are dealt exactly as the AEC environment's, one after another.

    Illegal actions (``illegal="raise"``, default): an action of the wrong shape or dtype, out of
    range, or illegal in any live game raises :class:`~envs.core.errors.IllegalActionError` naming
    the game index, the action and the mover, and the batch is unchanged. ``illegal="penalty"``
    (the fast mode, PettingZoo's ``TerminateIllegalWrapper``): a game given an illegal action ends
    there, the offender receiving -1 and the others 0 (shape, dtype and range errors still raise).

    Attributes: ``env_id``, ``env_kwargs`` (the resolved setting), ``num_envs``, ``num_players``,
    ``num_actions``, ``max_steps`` (``None``: no limit), ``single_observation_space`` (a Dict with
    ``"observation"`` and ``"action_mask"``, as the AEC env's), ``single_action_space``,
    ``backend`` (the core's), ``core`` (the :class:`VectorCore`), ``episode_steps`` (``int64
    (B,)``: plies of each game so far).
    """

    def __init__(
        self,
        core: VectorCore,
        *,
        env_id: str,
        env_kwargs: dict,
        seed: int | None = None,
        autoreset: str = "next_step",
        max_steps: int | None = None,
        illegal: str = "raise",
        single_observation_space=None,
        single_action_space=None,
    ):
        if autoreset not in AUTORESET_MODES:
            raise ParameterError(f"autoreset must be one of {', '.join(AUTORESET_MODES)}, got {autoreset!r}")
        if illegal not in ("raise", "penalty"):
            raise ParameterError(f"illegal must be 'raise' or 'penalty', got {illegal!r}")
        if max_steps is not None and (not is_int(max_steps) or max_steps < 1):
            raise ParameterError(f"max_steps must be None or a positive integer, got {max_steps!r}")
        self.core = core
        self.env_id = env_id
        self.env_kwargs = dict(env_kwargs)
        self.num_envs = core.num_envs
        self.num_players = core.num_players
        self.num_actions = core.num_actions
        self.autoreset = autoreset
        self.illegal = illegal
        self.max_steps = None if max_steps is None else int(max_steps)
        self.metadata = {"autoreset_mode": autoreset, "name": env_id}
        self.single_observation_space = single_observation_space
        self.single_action_space = single_action_space
        self.backend = core.backend
        self._rngs: list[np.random.Generator] = []
        self._seed_all(seed)
        n = self.num_envs
        self.episode_steps = np.zeros(n, dtype=np.int64)
        self._last_mover = np.zeros(n, dtype=np.int32)
        self._penalized = np.zeros(n, dtype=bool)  # ended by the illegal-move penalty
        self._truncated = np.zeros(n, dtype=bool)  # reached the step limit
        self._pending = np.zeros(n, dtype=bool)  # next_step mode: restart on the next step
        self._started = False
        self._mask: np.ndarray | None = None  # the core's mask, until the batch changes

    # ------------------------------------------------------------------ generators
    def _seed_all(self, seed, index=None) -> None:
        if seed is not None and (not is_int(seed) or seed < 0):
            raise ParameterError(f"seed must be None or an integer >= 0, got {seed!r}")
        idx = range(self.num_envs) if index is None else index
        if not self._rngs:
            self._rngs = [None] * self.num_envs  # type: ignore[list-item]
        for i in idx:
            self._rngs[i] = seeding.np_random(None if seed is None else int(seed) + int(i))[0]

    # ------------------------------------------------------------------ state of the batch
    def _over(self) -> np.ndarray:
        return self.core.terminated() | self._penalized | self._truncated

    def current_player(self) -> np.ndarray:
        """``int32 (B,)``: the seat to act in each game, ``-1`` where it is over."""
        cp = self.core.current_player().copy()
        cp[self._penalized | self._truncated] = -1
        return cp

    def action_mask(self) -> np.ndarray:
        """``bool (B, A)``: the current player's legal actions (all ``False`` where over); a
        read-only array (copy it to change it)."""
        self._check_started("action_mask")
        if self._mask is None:
            m = self.core.legal_action_mask()
            m[self._penalized | self._truncated] = False
            m.flags.writeable = False
            self._mask = m
        return self._mask

    def _viewers(self, cp: np.ndarray) -> np.ndarray:
        return np.where(cp >= 0, cp, self._last_mover).astype(np.int32)

    def observe(self, player: int):
        """Every game seen by seat ``player`` (egocentric, hidden information hidden): a batch
        of observations as in :class:`VecStep`.

        Raises:
            ParameterError: ``player`` is not a seat.
        """
        if not is_int(player) or not 0 <= player < self.num_players:
            raise ParameterError(f"player must be a seat in [0, {self.num_players}), got {player!r}")
        self._check_started("observe")
        return self.core.observe(np.full(self.num_envs, int(player), dtype=np.int32))

    def _result(self, rewards, terminated, truncated, info) -> VecStep:
        self._mask = None
        cp = self.current_player()
        return VecStep(
            self.core.observe(self._viewers(cp)), self.action_mask(), cp, rewards, terminated, truncated, info
        )

    def _check_started(self, what: str) -> None:
        if not self._started:
            raise RuntimeError(f"call reset() before {what}()")

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, mask=None) -> VecStep:
        """Start new games: every game, or those where ``mask`` (``bool (B,)``) is true.

        ``seed`` reseeds the generators of the games reset (game ``i`` gets ``seed + i``); without
        it they continue.

        Raises:
            ParameterError: a bad seed or mask (wrong shape or dtype); nothing is reset then.
        """
        if mask is None:
            index = np.arange(self.num_envs)
        else:
            m = np.asarray(mask)
            if m.dtype != bool or m.shape != (self.num_envs,):
                raise ParameterError(f"mask must be a bool array of shape ({self.num_envs},), got {m.dtype} {m.shape}")
            index = np.flatnonzero(m)
        if seed is not None:
            self._seed_all(seed, index.tolist())  # validates the seed first
        self._restart(index)
        self._started = True
        n = self.num_envs
        reset = np.zeros(n, dtype=bool)
        reset[index] = True
        return self._result(
            np.zeros((n, self.num_players), np.float32), np.zeros(n, bool), np.zeros(n, bool), {"reset": reset}
        )

    def _restart(self, index: np.ndarray) -> None:
        if index.size == 0:
            return
        self.core.reset_games(index, [self._rngs[i] for i in index.tolist()])
        self.episode_steps[index] = 0
        self._penalized[index] = False
        self._truncated[index] = False
        self._pending[index] = False
        self._last_mover[index] = 0

    def _check_actions(self, actions) -> np.ndarray:
        a = actions
        if not isinstance(a, np.ndarray):
            if isinstance(a, (list, tuple)) and all(is_int(x) for x in a):
                a = np.asarray(a, dtype=np.int64)
            else:
                raise IllegalActionError(
                    f"actions must be an integer array of shape ({self.num_envs},), got {type(actions).__name__}"
                )
        if a.dtype == bool or not np.issubdtype(a.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be an integer array of shape ({self.num_envs},), got dtype {a.dtype}"
            )
        if a.shape != (self.num_envs,):
            raise IllegalActionError(f"actions must have shape ({self.num_envs},) (one per game), got {a.shape}")
        return a.astype(np.int64, copy=False)

    def _describe(self, i: int, action: int, player: int) -> str:
        try:
            st = self.core.to_state(i)
            return f" ({st.action_to_string(st.to_state_action(player, action))})"
        except Exception:  # noqa: BLE001 - the notation is a courtesy in an error message
            return ""

    def step(self, actions) -> VecStep:
        """Play one action in every live game (see the class docstring for autoreset and errors).

        Args:
            actions: ``int (B,)``, each in its mover's frame (ignored for a game that is over or
                restarts on this step).

        Raises:
            IllegalActionError: wrong shape, dtype or range, or (``illegal="raise"``) an illegal
                action in a live game; the batch is unchanged.
            RuntimeError: before :meth:`reset`.
        """
        self._check_started("step")
        a = self._check_actions(actions)
        n = self.num_envs
        restart = self._pending.copy()
        over = self._over()
        live = ~over & ~restart
        cp = self.current_player()
        bad_range = live & ((a < 0) | (a >= self.num_actions))
        if bad_range.any():
            i = int(np.flatnonzero(bad_range)[0])
            raise IllegalActionError(
                f"game {i}: action {int(a[i])} is out of range: expected 0 <= action < "
                f"{self.num_actions} (player_{int(cp[i])} to move); the batch is unchanged"
            )
        safe = np.where(live, a, 0)
        mask = self.action_mask()
        legal = mask[np.arange(n), safe]
        illegal = live & ~legal
        if illegal.any() and self.illegal == "raise":
            i = int(np.flatnonzero(illegal)[0])
            more = int(illegal.sum()) - 1
            raise IllegalActionError(
                f"game {i}: action {int(a[i])}{self._describe(i, int(a[i]), int(cp[i]))} is not legal for "
                f"player_{int(cp[i])} ({int(mask[i].sum())} legal actions)"
                + (f", and {more} more games have illegal actions" if more > 0 else "")
                + "; the batch is unchanged"
            )
        rewards = np.zeros((n, self.num_players), dtype=np.float32)
        play = live & ~illegal
        if illegal.any():  # penalty mode: those games end here, the offender -1
            idx = np.flatnonzero(illegal)
            self._penalized[idx] = True
            rewards[idx, cp[idx]] = -1.0
            self._last_mover[idx] = cp[idx]
        if play.any():
            self.core.step(safe, play)
            self._last_mover[play] = cp[play]
            self.episode_steps[play] += 1
        term_now = np.zeros(n, dtype=bool)
        if play.any():
            ended = self.core.terminated() & play
            if ended.any():
                rewards[ended] = self.core.returns()[ended]
                term_now |= ended
            if self.max_steps is not None:
                trunc_now = play & ~ended & (self.episode_steps >= self.max_steps)
                self._truncated |= trunc_now
            else:
                trunc_now = np.zeros(n, dtype=bool)
        else:
            trunc_now = np.zeros(n, dtype=bool)
        term_now |= illegal
        info: dict[str, Any] = {}
        done_now = term_now | trunc_now
        if self.autoreset == "next_step":
            self._restart(np.flatnonzero(restart))
            self._pending |= done_now
        elif self.autoreset == "same_step" and done_now.any():
            idx = np.flatnonzero(done_now)
            viewers = self._last_mover.copy()
            final = self.core.observe(viewers)
            info["final_obs"] = final
            info["_final_obs"] = done_now
            info["final_mover"] = np.where(done_now, viewers, -1).astype(np.int32)
            self._restart(idx)
            restart = restart | done_now
        info["reset"] = restart
        return self._result(rewards, term_now, trunc_now, info)

    # ------------------------------------------------------------------ the reference and copies
    def to_state(self, i: int) -> GameState:
        """Game ``i`` as a reference rules state (:meth:`VectorCore.to_state`): equal (``==``) to
        the game the AEC environment reaches with the same deal and actions.

        Raises:
            ParameterError: ``i`` is not a game index.
        """
        self._check_started("to_state")
        idx = _check_index(i, self.num_envs, "to_state", distinct=True)
        if np.ndim(i) != 0:
            raise ParameterError(f"to_state takes one game index, got {i!r}")
        return self.core.to_state(int(idx[0]))

    def _like(self, core: VectorCore) -> TabletopVectorEnv:
        new = copy.copy(self)
        new.core = core
        new.num_envs = core.num_envs
        new._mask = None
        return new

    def take(self, indices) -> TabletopVectorEnv:
        """A new vector env (same setting, modes and limit) holding copies of games ``indices``
        (``int (k,)``, repeats allowed: what tree search needs to branch a game), in that order,
        with their step counts, ends and generators (copied: each copy continues independently).

        Raises:
            ParameterError: an index out of range or not an integer.
        """
        self._check_started("take")
        idx = _check_index(indices, self.num_envs, "take", distinct=False)
        new = self._like(self.core.take(idx))
        for name in ("episode_steps", "_last_mover", "_penalized", "_truncated", "_pending"):
            setattr(new, name, getattr(self, name)[idx].copy())
        new._rngs = [copy.deepcopy(self._rngs[i]) for i in idx.tolist()]
        return new

    def put(self, indices, other: TabletopVectorEnv) -> None:
        """Overwrite games ``indices`` (``int (k,)``, distinct) with copies of ``other``'s games
        ``0 .. k - 1`` (their positions, step counts, ends and generators).

        Raises:
            ParameterError: bad indices, or ``other`` is not a vector env of the same id, setting
                and backend with ``k`` games; nothing is changed then.
        """
        self._check_started("put")
        idx = _check_index(indices, self.num_envs, "put", distinct=True)
        if (
            not isinstance(other, TabletopVectorEnv)
            or other.env_id != self.env_id
            or other.env_kwargs != self.env_kwargs
            or type(other.core) is not type(self.core)
        ):
            raise ParameterError("put needs a vector env of the same environment id, setting and backend")
        if other.num_envs != idx.size:
            raise ParameterError(f"put: {idx.size} indices but the other batch has {other.num_envs} games")
        other._check_started("put")
        self.core.put(idx, other.core)
        self._mask = None
        for name in ("episode_steps", "_last_mover", "_penalized", "_truncated", "_pending"):
            getattr(self, name)[idx] = getattr(other, name)
        for j, i in enumerate(idx.tolist()):
            self._rngs[i] = copy.deepcopy(other._rngs[j])

    def from_states(self, states: Sequence[GameState]) -> TabletopVectorEnv:
        """A new vector env of ``len(states)`` games (this one's setting, modes and limit) loaded
        from reference rules states, deals and bags included; step counts start at 0 and the
        generators (for the next deals) are fresh, seeded ``0 .. k - 1``.

        Raises:
            ParameterError: no states, or a state of another game or setting.
        """
        states = list(states)
        if not states:
            raise ParameterError("from_states needs at least one state")
        k = len(states)
        if not self._started:
            self.core.reset_games(np.arange(self.num_envs), [seeding.np_random(i)[0] for i in range(self.num_envs)])
        core = self.core.take(np.zeros(k, dtype=np.int64))
        core.set_states(np.arange(k), states)
        new = self._like(core)
        new._rngs = []
        new._seed_all(0)
        new.episode_steps = np.zeros(k, dtype=np.int64)
        new._last_mover = np.array([max(0, s.current_player) for s in states], dtype=np.int32)
        new._penalized = np.zeros(k, dtype=bool)
        new._truncated = np.zeros(k, dtype=bool)
        new._pending = np.zeros(k, dtype=bool)
        new._started = True
        return new

    def memory_per_game(self) -> int:
        """Bytes of per-game state in the core (plus this env's own per-game counters)."""
        return self.core.memory_per_game() + 8 + 4 + 3

    def close(self) -> None:
        """Nothing to release (for symmetry with Gymnasium)."""

    def __repr__(self) -> str:
        return (
            f"TabletopVectorEnv({self.env_id!r}, num_envs={self.num_envs}, backend={self.backend!r}, "
            f"autoreset={self.autoreset!r}, kwargs={self.env_kwargs})"
        )
