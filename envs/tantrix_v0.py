"""``tantrix_v0``: Tantrix for 2-4 agents (Doubles with ``teams=True``).

See :mod:`envs.tantrix.env` for the table of spaces, the observation planes, the action
encoding and the version history (v0 — first release).
"""

from envs.tantrix.env import env, raw_env

__all__ = ["env", "raw_env", "vector_core"]


def vector_core(num_envs: int, **kwargs):
    """The batched core of ``envs.make_vec("tantrix_v0", ...)``: :func:`envs.tantrix.vector.vector_core`
    (imported on first use, so making the AEC env does not load numba's kernels)."""
    from envs.tantrix.vector import vector_core as make

    return make(num_envs, **kwargs)
