"""Regenerate ``tests/data/mctx_gumbel_cases.json``: DeepMind mctx's Gumbel MuZero search on small
tabular game trees, the reference ``tests/training/test_gumbel_search.py`` compares
:func:`training.search.gumbel_search` with.

Made with jax 0.10.2 and mctx 0.0.71 (CPU), numpy 2.4. CI has no JAX: the test reads the JSON only.
To regenerate (a few minutes)::

    pip install jax mctx
    python tests/data/make_mctx_cases.py

What it writes:

* ``forests``: two sets of random game trees over ``A = 8`` actions (numpy seed fixed below), one
  for two players (turns alternate, with some turns where the same player moves again) and one for
  four seats in two teams ``[[0, 2], [1, 3]]`` (the next seat, or sometimes the partner or the same
  seat again). Per node: ``mover`` (the seat to move, ``-1`` at the end of a game), ``legal``,
  ``children`` (node ids, ``-1`` for illegal actions), the prior ``logits`` and ``value`` an
  evaluation gives there (from the mover's side), and ``returns`` (one per seat, at the end).
  Each forest's ``roots`` include a root with one legal action and a root with a winning move whose
  prior is low.
* ``cases``: per forest, for ``num_simulations`` in 1, 2, 4, 7, 16, 32 and
  ``max_num_considered_actions`` in 1, 2, 4, 16, ``mctx.gumbel_muzero_policy`` with
  ``gumbel_scale=0`` over all the forest's roots as one batch; and a few with ``gumbel_scale=1``,
  whose noise (``gumbel``, drawn the way mctx 0.0.71 draws it from the key) is stored so the test
  can replay it. Results: ``action``, ``action_weights``, and the root summary
  (``search_tree.summary()``): ``value``, ``qvalues``, ``visit_counts``.

The game trees are given to mctx as AlphaZero with a perfect simulator uses it (as Pgx's example
does): the embedding is the node id; ``recurrent_fn`` returns the mover's reward (the returns of the
seat that moved when the game ends), discount 0 at the end, +1 when the next mover is on the same
team, -1 otherwise, and the value 0 at the end; prior logits are masked to the legal actions
(``finfo.min`` elsewhere). A finished game stays finished with reward and discount 0.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np

A = 8
SEED = 20261205
SIMS = (1, 2, 4, 7, 16, 32)
CONSIDERED = (1, 2, 4, 16)
NOISY = ((8, 4), (16, 16), (32, 4), (32, 16))
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mctx_gumbel_cases.json")


def grid(x):
    """Round to a multiple of 1/64: exact in float32 and float64, and short in JSON."""
    return np.round(np.asarray(x, dtype=np.float64) * 64) / 64


def short(x):
    """Results to 1e-7 (the test compares to 1e-5)."""
    return np.round(np.asarray(x, dtype=np.float64), 7).tolist()


def make_forest(rng: np.random.Generator, num_players: int, teams: list[list[int]], num_trees: int) -> dict:
    team_of = {p: t for t, g in enumerate(teams) for p in g}
    nodes: list[dict] = []

    def terminal(winner_team):
        ret = (
            [0.0] * num_players
            if winner_team is None
            else [1.0 if team_of[p] == winner_team else -1.0 for p in range(num_players)]
        )
        nodes.append(dict(mover=-1, legal=[False] * A, children=[-1] * A, logits=[0.0] * A, value=0.0, returns=ret))
        return len(nodes) - 1

    def next_mover(p):
        u = rng.random()
        if u < 0.2:
            return p
        if num_players == 4 and u < 0.3:
            return (p + 2) % 4
        return (p + 1) % num_players

    def node(depth, mover, num_legal=None):
        if depth > 0 and (depth >= 4 or rng.random() < 0.2):
            u = rng.random()
            return terminal(None if u < 0.2 else int(rng.integers(len(teams))))
        k = int(num_legal if num_legal is not None else rng.integers(1, 4))
        acts = sorted(rng.choice(A, size=k, replace=False).tolist())
        me = dict(
            mover=mover,
            legal=[a in acts for a in range(A)],
            children=[-1] * A,
            logits=grid(rng.normal(0, 1.5, A)).tolist(),
            value=float(grid(rng.uniform(-1, 1))),
            returns=[0.0] * num_players,
        )
        nodes.append(me)
        i = len(nodes) - 1
        for a in acts:
            me["children"][a] = node(depth + 1, next_mover(mover))
        return i

    roots = []
    for _t in range(num_trees):
        roots.append(node(0, int(rng.integers(num_players)), num_legal=int(rng.integers(5, A + 1))))
    roots.append(node(0, 0, num_legal=1))  # one legal action
    # a winning move of low prior beside ordinary moves
    me = dict(
        mover=1,
        legal=[True] * A,
        children=[-1] * A,
        logits=grid(rng.normal(0, 1.0, A)).tolist(),
        value=0.0,
        returns=[0.0] * num_players,
    )
    me["logits"][5] = -3.0
    nodes.append(me)
    i = len(nodes) - 1
    for a in range(A):
        me["children"][a] = terminal(team_of[1]) if a == 5 else node(1, next_mover(1))
    roots.append(i)
    return dict(num_players=num_players, teams=teams, num_actions=A, nodes=nodes, roots=roots)


def run_mctx(forest: dict, num_simulations: int, m: int, gumbel_scale: float, key_seed: int) -> dict:
    import jax
    import jax.numpy as jnp
    import mctx

    nodes = forest["nodes"]
    team_of = np.zeros(forest["num_players"], dtype=np.int32)
    for t, g in enumerate(forest["teams"]):
        team_of[g] = t
    n = len(nodes)
    sink = n  # illegal actions lead here (never chosen): a finished game with nothing
    mover = np.array([d["mover"] for d in nodes] + [-1], dtype=np.int32)
    legal = np.array([d["legal"] for d in nodes] + [[False] * A], dtype=bool)
    children = np.array([d["children"] for d in nodes] + [[-1] * A], dtype=np.int32)
    children = np.where(children < 0, sink, children)
    children[mover < 0] = np.arange(n + 1)[mover < 0, None]  # a finished game stays put
    logits = np.array([d["logits"] for d in nodes] + [[0.0] * A], dtype=np.float32)
    value = np.array([d["value"] for d in nodes] + [0.0], dtype=np.float32)
    returns = np.array([d["returns"] for d in nodes] + [[0.0] * forest["num_players"]], dtype=np.float32)
    term = mover < 0
    min_logit = np.finfo(np.float32).min
    masked = logits - logits.max(axis=1, keepdims=True)
    masked = np.where(legal, masked, min_logit).astype(np.float32)
    # per (node, action): reward for the mover, discount
    nxt = children
    rew = np.where(term[nxt], returns[nxt, np.maximum(mover, 0)[:, None]], 0.0)
    rew = np.where(term[:, None], 0.0, rew).astype(np.float32)
    same = team_of[np.maximum(mover[nxt], 0)] == team_of[np.maximum(mover, 0)][:, None]
    disc = np.where(term[nxt] | term[:, None], 0.0, np.where(same, 1.0, -1.0)).astype(np.float32)
    j_children, j_rew, j_disc = jnp.asarray(children), jnp.asarray(rew), jnp.asarray(disc)
    j_masked, j_value, j_term = jnp.asarray(masked), jnp.asarray(value), jnp.asarray(term)

    def recurrent_fn(params, rng_key, action, embedding):
        del params, rng_key
        nx = j_children[embedding, action]
        out = mctx.RecurrentFnOutput(
            reward=j_rew[embedding, action],
            discount=j_disc[embedding, action],
            prior_logits=j_masked[nx],
            value=jnp.where(j_term[nx], 0.0, j_value[nx]),
        )
        return out, nx

    roots = np.array(forest["roots"], dtype=np.int32)
    root = mctx.RootFnOutput(
        prior_logits=jnp.asarray(logits[roots]), value=jnp.asarray(value[roots]), embedding=jnp.asarray(roots)
    )
    key = jax.random.PRNGKey(key_seed)
    out = mctx.gumbel_muzero_policy(
        params=(),
        rng_key=key,
        root=root,
        recurrent_fn=recurrent_fn,
        num_simulations=num_simulations,
        invalid_actions=jnp.asarray(~legal[roots]),
        max_num_considered_actions=m,
        gumbel_scale=gumbel_scale,
    )
    # the noise exactly as gumbel_muzero_policy draws it (mctx 0.0.71, policies.py)
    _, gumbel_rng = jax.random.split(key)
    gumbel = gumbel_scale * jax.random.gumbel(gumbel_rng, shape=(roots.size, A), dtype=jnp.float32)
    s = out.search_tree.summary()
    return dict(
        num_simulations=num_simulations,
        max_num_considered_actions=m,
        gumbel_scale=gumbel_scale,
        gumbel=np.asarray(gumbel, dtype=np.float64).tolist() if gumbel_scale else None,
        action=np.asarray(out.action).tolist(),
        action_weights=short(out.action_weights),
        value=short(s.value),
        qvalues=short(s.qvalues),
        visit_counts=np.asarray(s.visit_counts).astype(int).tolist(),
    )


def main() -> None:
    import jax
    import mctx

    rng = np.random.default_rng(SEED)
    forests = [make_forest(rng, 2, [[0], [1]], 5), make_forest(rng, 4, [[0, 2], [1, 3]], 5)]
    cases = []
    for fi, forest in enumerate(forests):
        for s in SIMS:
            for m in CONSIDERED:
                cases.append(dict(forest=fi, **run_mctx(forest, s, m, 0.0, 0)))
        for k, (s, m) in enumerate(NOISY):
            cases.append(dict(forest=fi, **run_mctx(forest, s, m, 1.0, 100 + k)))
        print(f"forest {fi}: {len(forest['nodes'])} nodes, {len(forest['roots'])} roots", file=sys.stderr)
    data = dict(
        made_with=dict(jax=jax.__version__, mctx=mctx.__version__, numpy=np.__version__), forests=forests, cases=cases
    )
    with open(OUT, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {len(cases)} cases to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
