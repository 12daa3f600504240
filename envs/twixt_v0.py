"""``twixt_v0``: TwixT for two agents. See :mod:`envs.twixt.env` for spaces and options."""

from envs.twixt.env import env, raw_env

__all__ = ["env", "raw_env"]
