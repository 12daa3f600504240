"""Tree search over the vector API: batched Gumbel AlphaZero search (:mod:`training.search.gumbel`).

>>> import numpy as np, envs
>>> from training.search import gumbel_search, uniform_evaluate
>>> vec = envs.make_vec("ataxx_v0", 2, seed=0)
>>> _ = vec.reset()
>>> out = gumbel_search(vec, uniform_evaluate, np.random.default_rng(0), num_simulations=8)
>>> out.action.shape, out.action_weights.shape, int(out.visit_counts[0].sum())
((2,), (2, 834), 8)
"""

from training.search.gumbel import (
    SearchResult,
    completed_qvalues,
    considered_visit_sequence,
    gumbel_search,
    has_hidden_information,
    improved_policy,
    mixed_value,
    score_considered,
    seat_teams,
    uniform_evaluate,
)

__all__ = [
    "SearchResult",
    "gumbel_search",
    "uniform_evaluate",
    "seat_teams",
    "has_hidden_information",
    "considered_visit_sequence",
    "mixed_value",
    "completed_qvalues",
    "score_considered",
    "improved_policy",
]
