"""``double_twixt_v0``: Double TwixT, four agents in two teams. See :mod:`envs.twixt.env`."""

from envs.twixt.env import double_env as env
from envs.twixt.env import double_raw_env as raw_env

__all__ = ["env", "raw_env", "vector_core"]


def vector_core(num_envs: int, **kwargs):
    """The batched core of ``envs.make_vec("double_twixt_v0", ...)``:
    :func:`envs.twixt.vector.double_vector_core` (imported on first use)."""
    from envs.twixt.vector import double_vector_core as make

    return make(num_envs, **kwargs)
