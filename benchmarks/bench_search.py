"""Speed of the batched Gumbel search (``training.search.gumbel_search``) against itself unbatched.

Both sides search the same positions (``--games`` positions of ``--env`` with ``--kwargs``, Ataxx
7x7 by default, after ``--plies`` random plies from the start, seed 0) with ``--sims`` simulations
and ``--considered`` root actions, the uniform evaluation (zero logits and values, one per side where
there are more than two, so the figures are the search's own cost, no network); a game with hidden
information is searched on ``--determinizations`` samples per game (drawing them is timed too):

* **batched**: one ``gumbel_search`` call over all ``B = --games`` games in lockstep;
* **peer**: the same search one game at a time (``B = 1``), over the first ``--peer-games`` games.

Printed: simulations/s (games x simulations / seconds), nodes/s (new tree nodes / seconds) and
evaluated positions/s for each, and the ratio batched / peer. The best of ``--repeat`` runs counts.
Torch (if installed) and BLAS are held to one thread.

    python benchmarks/bench_search.py                          # B = 64, 32 simulations, m = 16
    python benchmarks/bench_search.py --games 256 --sims 16
    python benchmarks/bench_search.py --env tantrix_v0 --games 16 --sims 16 --peer-games 4
    python benchmarks/bench_search.py --env smartrix_v0 --kwargs '{"num_players": 4}' --games 16 --sims 16

Wall-clock figures: on a shared machine compare only the ratio within one run (and say the load).
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import envs  # noqa: E402
from envs.core.vector import sample_legal  # noqa: E402
from training.search import gumbel_search, has_hidden_information, seat_teams, uniform_evaluate  # noqa: E402


def positions(games: int, plies: int, env_id: str, kwargs: dict):
    vec = envs.make_vec(env_id, games, seed=0, autoreset="disabled", **kwargs)
    out = vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(plies):
        out = vec.step(sample_legal(out.action_mask, rng.random(games)))
    return vec


def uniform_sides(sides: int):
    """The uniform evaluation with a value per side (``(N, sides)`` zeros), or the scalar one."""
    if sides == 2:
        return uniform_evaluate
    return lambda obs, masks: (np.zeros(masks.shape, np.float32), np.zeros((len(masks), sides), np.float32))


def timed(vec, sims: int, considered: int, repeat: int, determinizations: int = 1):
    best, res = float("inf"), None
    evaluate = uniform_sides(len(set(seat_teams(vec).tolist())))
    extra = {"num_determinizations": determinizations} if has_hidden_information(vec) else {}
    for r in range(repeat):
        t = time.perf_counter()
        res = gumbel_search(
            vec,
            evaluate,
            np.random.default_rng(r),
            num_simulations=sims,
            max_num_considered_actions=considered,
            **extra,
        )
        best = min(best, time.perf_counter() - t)
    return best, res


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--env", default="ataxx_v0")
    p.add_argument("--kwargs", type=json.loads, default={}, help="the env's keyword arguments, as JSON")
    p.add_argument("--determinizations", type=int, default=1)
    p.add_argument("--games", type=int, default=64)
    p.add_argument("--peer-games", type=int, default=16)
    p.add_argument("--sims", type=int, default=32)
    p.add_argument("--considered", type=int, default=16)
    p.add_argument("--plies", type=int, default=10)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    try:
        import torch

        torch.set_num_threads(1)
    except ImportError:
        pass
    vec = positions(a.games, a.plies, a.env, a.kwargs)
    live = int((vec.current_player() >= 0).sum())
    timed(vec.take(np.arange(min(2, a.games))), a.sims, a.considered, 1, a.determinizations)  # warm numba
    t_b, res = timed(vec, a.sims, a.considered, a.repeat, a.determinizations)
    n_peer = min(a.peer_games, a.games)
    t_p, nodes_p, evals_p = 0.0, 0, 0
    for i in range(n_peer):
        t, r = timed(vec.take([i]), a.sims, a.considered, a.repeat, a.determinizations)
        t_p += t
        nodes_p += r.num_nodes
        evals_p += r.num_evaluations
    legal = vec.action_mask().sum(axis=1)
    print(
        f"{a.env} {a.kwargs}: {a.games} positions after {a.plies} random plies ({live} live, {legal.mean():.1f} "
        f"legal moves on average), {a.sims} simulations, m = {a.considered}, uniform evaluation"
        f"{f', {a.determinizations} determinizations' if has_hidden_information(vec) else ''}; load average "
        f"{os.getloadavg()[0]:.2f}"
    )
    print(f"{'':10} {'games':>6} {'seconds':>9} {'sims/s':>10} {'nodes/s':>10} {'evals/s':>10}")
    rows = [("batched", live, t_b, res.num_nodes, res.num_evaluations), ("peer B=1", n_peer, t_p, nodes_p, evals_p)]
    rates = []
    for name, g, t, nodes, evals in rows:
        rates.append(g * a.sims / t)
        print(f"{name:10} {g:6d} {t:9.4f} {g * a.sims / t:10.0f} {nodes / t:10.0f} {evals / t:10.0f}")
    print(f"ratio batched / peer (simulations/s): {rates[0] / rates[1]:.1f}x")


if __name__ == "__main__":
    main()
