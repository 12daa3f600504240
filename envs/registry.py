"""Registry of environment ids: ``envs.make(env_id, **kwargs)`` and ``envs.ENV_IDS``."""

from __future__ import annotations

import importlib
import inspect

from envs.core.state import ParameterError

__all__ = ["ENV_IDS", "make", "make_raw"]

#: Every environment id, mapped to its module (which provides ``env()`` and ``raw_env()``).
_MODULES = {
    "ataxx_v0": "envs.ataxx_v0",
    "twixt_v0": "envs.twixt_v0",
    "double_twixt_v0": "envs.double_twixt_v0",
    "tantrix_v0": "envs.tantrix_v0",
    "smartrix_v0": "envs.smartrix_v0",
}
ENV_IDS: tuple[str, ...] = tuple(_MODULES)


def _module(env_id: str):
    if env_id not in _MODULES:
        raise KeyError(f"unknown environment id {env_id!r}; known ids: {', '.join(ENV_IDS)}")
    return importlib.import_module(_MODULES[env_id])


def _check_kwargs(env_id: str, cls, kwargs: dict) -> None:
    params = inspect.signature(cls.__init__).parameters
    known = [n for n in params if n != "self"]
    unknown = sorted(set(kwargs) - set(known))
    if unknown:
        raise ParameterError(f"{env_id} has no argument {', '.join(map(repr, unknown))}; its arguments are: {', '.join(known)}")


def make(env_id: str, **kwargs):
    """The wrapped PettingZoo ``AECEnv`` for ``env_id`` (as ``envs.<env_id>.env(**kwargs)``).

    Raises:
        KeyError: unknown id (the message lists the known ones).
        ParameterError (a ``ValueError``): an unknown or bad keyword argument (the message lists
            the environment's arguments).
    """
    module = _module(env_id)
    _check_kwargs(env_id, module.raw_env, kwargs)
    return module.env(**kwargs)


def make_raw(env_id: str, **kwargs):
    """The unwrapped environment (``raw_env``): illegal actions raise instead of ending the game.

    Raises: as :func:`make`.
    """
    module = _module(env_id)
    _check_kwargs(env_id, module.raw_env, kwargs)
    return module.raw_env(**kwargs)
