"""``smartrix_v0``: Smartrix for 2-7 agents (teams and kids variants). See :mod:`envs.smartrix.env`
for the table of spaces, options and version history."""

from envs.smartrix.env import env, raw_env

__all__ = ["env", "raw_env", "vector_core"]


def vector_core(num_envs: int, **kwargs):
    """The batched core of ``envs.make_vec("smartrix_v0", ...)``: :func:`envs.smartrix.vector.vector_core`
    (imported on first use, so making the AEC env does not load numba's kernels)."""
    from envs.smartrix.vector import vector_core as make

    return make(num_envs, **kwargs)
