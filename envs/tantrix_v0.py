"""``tantrix_v0``: Tantrix for 2-4 agents (Doubles with ``teams=True``).

See :mod:`envs.tantrix.env` for the table of spaces, the observation planes, the action
encoding and the version history (v0 — first release).
"""

from envs.tantrix.env import env, raw_env
from envs.tantrix.vector import vector_core

__all__ = ["env", "raw_env", "vector_core"]
