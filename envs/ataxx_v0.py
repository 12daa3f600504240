"""``ataxx_v0``: Ataxx for two agents. See :mod:`envs.ataxx.env` for spaces and options."""

from envs.ataxx.env import env, raw_env

__all__ = ["env", "raw_env"]
