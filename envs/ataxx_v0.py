"""``ataxx_v0``: Ataxx for two agents. See :mod:`envs.ataxx.env` for spaces and options, and
:mod:`envs.ataxx.vector` for the batched core (``envs.make_vec("ataxx_v0", B)``)."""

from envs.ataxx.env import env, raw_env

__all__ = ["env", "raw_env", "vector_core"]


def vector_core(num_envs: int, **kwargs):
    """The batched core of ``ataxx_v0`` (:func:`envs.ataxx.vector.vector_core`; imported on first
    use, so that the AEC environment does not load numba)."""
    from envs.ataxx.vector import vector_core as make

    return make(num_envs, **kwargs)
