"""Registry of environment ids: ``envs.make(env_id, **kwargs)`` and ``envs.ENV_IDS``."""

from __future__ import annotations

import importlib

__all__ = ["ENV_IDS", "make", "make_raw"]

#: Every environment id, mapped to its module (which provides ``env()`` and ``raw_env()``).
_MODULES = {
    "ataxx_v0": "envs.ataxx_v0",
}
ENV_IDS: tuple[str, ...] = tuple(_MODULES)


def _module(env_id: str):
    if env_id not in _MODULES:
        raise KeyError(f"unknown environment id {env_id!r}; known ids: {', '.join(ENV_IDS)}")
    return importlib.import_module(_MODULES[env_id])


def make(env_id: str, **kwargs):
    """The wrapped PettingZoo ``AECEnv`` for ``env_id`` (as ``envs.<env_id>.env(**kwargs)``).

    Raises:
        KeyError: unknown id (the message lists the known ones).
        ValueError: a bad keyword argument for that environment.
    """
    return _module(env_id).env(**kwargs)


def make_raw(env_id: str, **kwargs):
    """The unwrapped environment (``raw_env``): illegal actions raise instead of ending the game."""
    return _module(env_id).raw_env(**kwargs)
