"""``smartrix_v0``: Smartrix for 2-7 agents (teams and kids variants). See :mod:`envs.smartrix.env`
for the table of spaces, options and version history."""

from envs.smartrix.env import env, raw_env
from envs.smartrix.vector import vector_core

__all__ = ["env", "raw_env", "vector_core"]
