"""The registry of environments: the one place a game's environment ids are declared.

>>> import envs
>>> s = envs.spec("double_twixt_v0")
>>> s.num_players(board_size=8), s.teams(board_size=8)
(4, [[0, 2], [1, 3]])

``register(env_id, entry_point, ...)`` declares an id; :func:`spec` returns its :class:`EnvSpec`
(id, entry point, default kwargs, step limit), which makes the environment (wrapped or raw) and
answers what consumers need to know before a game: the number of seats and the teams for given
kwargs. The checks of env ids and env kwargs, and their messages, live here only.

The registry is also the one place that walks every registered game for its plug-ins (declared
in each game's :class:`~envs.core.state.GameInfo` and loaded by name): the named agents the games
offer (:func:`game_agents`) and their record modules (:func:`load_record_formats`). Nothing in
``envs.core`` walks the registry.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from envs.core.checks import is_int, is_plain_int
from envs.core.errors import ParameterError, UnknownEnvError
from envs.core.records import use_registry

__all__ = [
    "ENV_IDS",
    "EnvSpec",
    "UnknownEnvError",
    "register",
    "spec",
    "env_ids",
    "make",
    "make_raw",
    "make_vec",
    "game_agents",
    "game_agent_factories",
    "game_agent_names",
    "load_record_formats",
]


@dataclass(frozen=True)
class EnvSpec:
    """One registered environment.

    Attributes:
        id: the environment id, e.g. ``"ataxx_v0"``.
        entry_point: the module (``"envs.ataxx_v0"``) that provides ``env(**kwargs)`` (the
            wrapped PettingZoo ``AECEnv``) and ``raw_env(**kwargs)`` (unwrapped: illegal actions
            raise).
        kwargs: default constructor arguments, overridden by those given to :meth:`make`.
        max_episode_steps: default step limit (the environments' ``max_steps`` truncation),
            ``None`` for none; a ``max_steps`` given to :meth:`make` wins.
        variants: named keyword arguments (``{name: kwargs}``) that together cover the
            environment's settings (board sizes, rule options, player counts, teams); the contract
            suite (``tests/envs/test_contract.py``) runs every check on each, so a new id is tested as
            soon as it is registered. ``{"default": {}}`` unless given.
    """

    id: str
    entry_point: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    max_episode_steps: int | None = None
    variants: dict[str, dict[str, Any]] = field(default_factory=lambda: {"default": {}})

    def module(self):
        """The entry-point module (imported on first use).

        Raises:
            ModuleNotFoundError: the entry point cannot be imported (the message names the env id).
            AttributeError: the module has no ``env`` / ``raw_env``.
        """
        try:
            module = importlib.import_module(self.entry_point)
        except ModuleNotFoundError as e:
            raise ModuleNotFoundError(
                f"{self.id} is registered with the entry point {self.entry_point!r}, which cannot be imported: {e}",
                name=e.name,
            ) from e
        missing = [name for name in ("env", "raw_env") if not hasattr(module, name)]
        if missing:
            raise AttributeError(
                f"{self.id}'s entry point {self.entry_point!r} has no {' or '.join(missing)}: "
                "an environment module provides env() and raw_env"
            )
        return module

    def arguments(self) -> list[str]:
        """The names of the environment's constructor arguments."""
        params = inspect.signature(self.module().raw_env.__init__).parameters
        return [n for n in params if n != "self"]

    def resolve_kwargs(self, kwargs: dict | None = None) -> dict:
        """The defaults of this spec updated with ``kwargs``, checked against the environment's
        arguments (values are checked by the environment itself).

        Raises:
            ParameterError: ``kwargs`` is not a dict, or names an argument the environment lacks
                (the message lists its arguments).
        """
        if kwargs is None:
            kwargs = {}
        if not isinstance(kwargs, dict):
            raise ParameterError(f"env kwargs of {self.id} must be a dict, got {type(kwargs).__name__}")
        known = self.arguments()
        unknown = sorted(set(kwargs) - set(known), key=str)
        if unknown:
            raise ParameterError(
                f"{self.id} has no argument {', '.join(map(repr, unknown))}; its arguments are: {', '.join(known)}"
            )
        out = dict(self.kwargs)
        if self.max_episode_steps is not None and "max_steps" in known:
            out["max_steps"] = self.max_episode_steps
        out.update(kwargs)
        return out

    def make(self, **kwargs):
        """The wrapped PettingZoo ``AECEnv`` (as ``<entry_point>.env(**kwargs)``).

        Raises:
            ParameterError (a ``ValueError``): an unknown or bad keyword argument.
        """
        return self.module().env(**self.resolve_kwargs(kwargs))

    def make_raw(self, **kwargs):
        """The unwrapped environment (``raw_env``): illegal actions raise instead of ending the game.

        Raises: as :meth:`make`.
        """
        return self.module().raw_env(**self.resolve_kwargs(kwargs))

    def make_vec(
        self,
        num_envs: int,
        *,
        seed: int | None = None,
        autoreset: str = "next_step",
        backend: str = "batched",
        illegal: str = "raise",
        **kwargs,
    ):
        """``num_envs`` games of this environment stepped together: a
        :class:`envs.core.vector.TabletopVectorEnv` (see there and :func:`make_vec`).

        Raises:
            ParameterError (a ``ValueError``): a bad ``num_envs``, ``backend``, mode or keyword
                argument, or a setting the game's batched core does not cover (the message says
                so and names ``backend="reference"``).
        """
        from envs.core.vector import AUTORESET_MODES, StateCore, TabletopVectorEnv

        if not is_int(num_envs) or num_envs < 1:
            raise ParameterError(f"num_envs must be a positive integer, got {num_envs!r}")
        if backend not in ("batched", "reference"):
            raise ParameterError(
                f"backend must be 'batched' (the game's batched core) or 'reference' (one rules "
                f"state per game, no speed-up), got {backend!r}"
            )
        if autoreset not in AUTORESET_MODES:
            raise ParameterError(f"autoreset must be one of {', '.join(AUTORESET_MODES)}, got {autoreset!r}")
        if illegal not in ("raise", "penalty"):
            raise ParameterError(f"illegal must be 'raise' or 'penalty', got {illegal!r}")
        resolved = self.resolve_kwargs(kwargs)
        if resolved.get("render_mode") is not None:
            raise ParameterError(
                f"a vector env does not render (render_mode={resolved['render_mode']!r}); "
                "draw a game with to_state(i) instead"
            )
        resolved.pop("render_mode", None)
        max_steps = resolved.pop("max_steps", None)
        raw = self.module().raw_env(**resolved, max_steps=max_steps)  # the AEC env's own checks and messages
        if backend == "reference":
            core = StateCore(raw, int(num_envs))
        else:
            factory = getattr(self.module(), "vector_core", None)
            if factory is None:
                raise ParameterError(
                    f"{self.id} has no batched core; backend='reference' runs its rules state "
                    "per game through the same API"
                )
            core = factory(int(num_envs), **resolved)  # raises ParameterError for a setting it does not cover
        first = raw.possible_agents[0]
        return TabletopVectorEnv(
            core,
            env_id=self.id,
            env_kwargs=resolved,
            seed=seed,
            autoreset=autoreset,
            max_steps=max_steps,
            illegal=illegal,
            single_observation_space=raw.observation_space(first),
            single_action_space=raw.action_space(first),
        )

    def initial_state(self, **kwargs):
        """The rules state (:class:`envs.core.state.GameState`) at the start of a game with these
        kwargs (the raw environment reset with seed 0).

        Raises: as :meth:`make`.
        """
        env = self.make_raw(**kwargs)
        env.reset(seed=0)
        state = env.state
        env.close()
        return state

    def game_info(self):
        """The :class:`~envs.core.state.GameInfo` of this environment's game (of its start with
        the default kwargs; cached). Raises: as :meth:`make`."""
        info = _INFOS.get(self.id)
        if info is None:
            info = _INFOS[self.id] = self.initial_state().info
        return info

    def num_players(self, **kwargs) -> int:
        """The number of seats of a game with these kwargs. Raises: as :meth:`make`."""
        return self.initial_state(**kwargs).num_players

    def teams(self, **kwargs) -> list[list[int]]:
        """The seats grouped by team (``GameState.teams()``) for these kwargs, e.g.
        ``[[0], [1]]`` or ``[[0, 2], [1, 3]]``. Raises: as :meth:`make`."""
        return self.initial_state(**kwargs).teams()


_REGISTRY: dict[str, EnvSpec] = {}
_INFOS: dict[str, Any] = {}


def register(
    env_id: str,
    entry_point: str,
    *,
    kwargs: dict | None = None,
    max_episode_steps: int | None = None,
    variants: dict[str, dict] | None = None,
) -> EnvSpec:
    """Declare an environment id.

    Args:
        env_id: the new id (a non-empty string).
        entry_point: the module providing ``env`` and ``raw_env`` (imported when first made).
        kwargs: default constructor arguments.
        max_episode_steps: default step limit (``None``: none), a positive int.
        variants: ``{name: kwargs}``, the settings the contract suite tests (see
            :class:`EnvSpec`); ``None`` for ``{"default": {}}``.

    Returns:
        The :class:`EnvSpec`.

    Raises:
        ParameterError: the id is empty or already registered, or a bad argument.
    """
    if not isinstance(env_id, str) or not env_id:
        raise ParameterError(f"env_id must be a non-empty string, got {env_id!r}")
    if env_id in _REGISTRY:
        raise ParameterError(
            f"environment id {env_id!r} is already registered (entry point {_REGISTRY[env_id].entry_point})"
        )
    if not isinstance(entry_point, str) or not entry_point:
        raise ParameterError(f"entry_point must be a module path such as 'envs.ataxx_v0', got {entry_point!r}")
    if kwargs is not None and not isinstance(kwargs, dict):
        raise ParameterError(f"kwargs must be a dict or None, got {type(kwargs).__name__}")
    if max_episode_steps is not None and (not is_plain_int(max_episode_steps) or max_episode_steps < 1):
        raise ParameterError(f"max_episode_steps must be None or a positive integer, got {max_episode_steps!r}")
    if variants is None:
        variants = {"default": {}}
    if (
        not isinstance(variants, dict)
        or not variants
        or not all(isinstance(k, str) and k and isinstance(v, dict) for k, v in variants.items())
    ):
        raise ParameterError(f"variants must be None or a non-empty dict of name -> kwargs dict, got {variants!r}")
    s = EnvSpec(
        env_id, entry_point, dict(kwargs or {}), max_episode_steps, {name: dict(kw) for name, kw in variants.items()}
    )
    _REGISTRY[env_id] = s
    return s


def env_ids() -> tuple[str, ...]:
    """Every registered id, in registration order (``ENV_IDS`` plus any registered later)."""
    return tuple(_REGISTRY)


def spec(env_id: str) -> EnvSpec:
    """The :class:`EnvSpec` of ``env_id``.

    Raises:
        UnknownEnvError (a ``KeyError`` and a ``ValueError``): unknown id; the message lists the
            known ones.
    """
    try:
        return _REGISTRY[env_id]
    except (KeyError, TypeError):
        raise UnknownEnvError(f"unknown environment id {env_id!r}; known ids: {', '.join(_REGISTRY)}") from None


def make(env_id: str, **kwargs):
    """The wrapped PettingZoo ``AECEnv`` for ``env_id`` (``spec(env_id).make(**kwargs)``).

    Raises:
        UnknownEnvError (a ``KeyError``): unknown id (the message lists the known ones).
        ParameterError (a ``ValueError``): an unknown or bad keyword argument (the message lists
            the environment's arguments).
    """
    return spec(env_id).make(**kwargs)


def make_vec(
    env_id: str,
    num_envs: int,
    *,
    seed: int | None = None,
    autoreset: str = "next_step",
    backend: str = "batched",
    illegal: str = "raise",
    **kwargs,
):
    """``num_envs`` games of ``env_id`` stepped together, as arrays: a
    :class:`envs.core.vector.TabletopVectorEnv` with the same ids, kwargs and checks as :func:`make`.

    >>> import envs
    >>> vec = envs.make_vec("twixt_v0", 8, seed=0, board_size=8)
    >>> vec.reset().action_mask.shape
    (8, 65)

    Args:
        env_id: a registered id.
        num_envs: the number of games ``B`` (a positive int).
        seed: game ``i`` is dealt by a generator seeded ``seed + i``, as ``envs.make(env_id)``'s
            ``reset(seed=seed + i)`` (``None``: fresh entropy).
        autoreset: ``"next_step"`` (default), ``"same_step"`` or ``"disabled"``, with Gymnasium 1.x's
            meanings (see :class:`~envs.core.vector.TabletopVectorEnv`).
        backend: ``"batched"`` (default): the game's batched core (numpy / numba arrays);
            ``"reference"``: one rules state per game, the same code as the AEC environment (exact,
            no speed-up; also for the settings a batched core does not cover).
        illegal: ``"raise"`` (default) or ``"penalty"`` (an illegal action ends its game with -1 for
            the mover, as PettingZoo's ``TerminateIllegalWrapper``).
        **kwargs: the environment's arguments (``max_steps`` is the truncation limit; no
            ``render_mode``).

    Raises:
        UnknownEnvError (a ``KeyError``): unknown id.
        ParameterError (a ``ValueError``): a bad argument, or a setting the batched core does not
            cover (the message says so).
    """
    return spec(env_id).make_vec(num_envs, seed=seed, autoreset=autoreset, backend=backend, illegal=illegal, **kwargs)


def make_raw(env_id: str, **kwargs):
    """The unwrapped environment (``raw_env``): illegal actions raise instead of ending the game.

    Raises: as :func:`make`.
    """
    return spec(env_id).make_raw(**kwargs)


# ---------------------------------------------------------------------------------- the games' plug-ins
_GAME_AGENTS: dict[str, dict[str, Callable]] | None = None
_RECORD_FORMATS_LOADED = False


def _game_agent_factories() -> dict[str, dict[str, Callable]]:
    global _GAME_AGENTS
    if _GAME_AGENTS is not None:
        return _GAME_AGENTS
    out: dict[str, dict[str, Callable]] = {}
    for env_id in env_ids():
        state = spec(env_id).initial_state()
        h = state.heuristics()
        for name, factory in (h.agents if h is not None else state.agents()).items():
            out.setdefault(name, {}).setdefault(state.info.long_name, factory)
    _GAME_AGENTS = {k: out[k] for k in sorted(out)}
    return _GAME_AGENTS


def game_agents() -> dict[str, list[str]]:
    """The named agents the registered games offer (each game's ``GameInfo.agents``, see
    :mod:`envs.core.heuristics`): ``{agent name: [long names of the games offering it]}``, names
    sorted, each game once.

    Imports every registered environment's game (its rules state at the start, seed 0); cached
    after the first call.
    """
    return {name: list(games) for name, games in _game_agent_factories().items()}


def game_agent_factories(name: str) -> dict[str, Callable]:
    """The factories of the agent ``name``: ``{long name of a game offering it: factory}``
    (empty when no registered game offers it)."""
    return dict(_game_agent_factories().get(name, {}))


def game_agent_names() -> list[str]:
    """The names of :func:`game_agents`, sorted (e.g. ``["robot"]``)."""
    return list(game_agents())


def load_record_formats() -> None:
    """Import every registered game's record module (``GameInfo.records``, which registers the
    game's older JSON formats and file imports with :mod:`envs.core.records`), the first time only.

    A game whose environment or record module cannot be imported is skipped: a broken plug-in
    must not stop reading other games' records.
    """
    global _RECORD_FORMATS_LOADED
    if _RECORD_FORMATS_LOADED:
        return
    from envs.core.plugins import load_module

    for env_id in env_ids():
        try:
            module = spec(env_id).game_info().records
            if module:
                load_module(module, f"{env_id}'s record module")
        except ImportError:
            pass
    _RECORD_FORMATS_LOADED = True


# envs.core.records reaches the registry through this hook (core modules never import it)
use_registry(spec, load_record_formats)

register(
    "ataxx_v0",
    "envs.ataxx_v0",
    variants={
        "standard": {},
        "blockers": {"fen": "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1"},
    },
)
register(
    "twixt_v0",
    "envs.twixt_v0",
    variants={
        "8x8": {"board_size": 8},
        "24x24": {},
        "pp": {"board_size": 8, "rules": "pp"},
        "swap": {"board_size": 8, "swap": True},
        "manual": {"board_size": 8, "links": "manual", "swap": True},
    },
)
register(
    "double_twixt_v0",
    "envs.double_twixt_v0",
    variants={
        "8x8": {"board_size": 8},
        "10x10-board-full": {"board_size": 10, "draw": "board_full"},
        "manual": {"board_size": 8, "links": "manual"},
    },
)
register(
    "tantrix_v0",
    "envs.tantrix_v0",
    variants={
        "2p": {},
        "3p": {"num_players": 3},
        "4p": {"num_players": 4},
        "doubles": {"num_players": 4, "teams": True},
        "window6": {"window_radius": 6},
    },
)
register(
    "smartrix_v0",
    "envs.smartrix_v0",
    variants={
        "2p": {},
        "4p": {"num_players": 4},
        "7p": {"num_players": 7},
        "teams": {"num_players": 4, "teams": True},
        "kids": {"num_players": 3, "grid_limit": False},
        "kids-window11": {"grid_limit": False, "window": 11},
    },
)

#: The built-in environment ids (see :func:`env_ids` for all registered ones).
ENV_IDS: tuple[str, ...] = env_ids()
