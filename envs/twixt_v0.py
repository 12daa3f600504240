"""``twixt_v0``: TwixT for two agents. See :mod:`envs.twixt.env` for spaces and options."""

from envs.twixt.env import env, raw_env

__all__ = ["env", "raw_env", "vector_core"]


def vector_core(num_envs: int, **kwargs):
    """The batched core of ``envs.make_vec("twixt_v0", ...)``: :func:`envs.twixt.vector.vector_core`
    (imported on first use, so making the AEC env does not load numba's kernels)."""
    from envs.twixt.vector import vector_core as make

    return make(num_envs, **kwargs)
