"""``double_twixt_v0``: Double TwixT, four agents in two teams. See :mod:`envs.twixt.env`."""

from envs.twixt.env import double_env as env
from envs.twixt.env import double_raw_env as raw_env

__all__ = ["env", "raw_env"]
