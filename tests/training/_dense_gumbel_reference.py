"""A test oracle: the dense Gumbel search, the body of ``training.search.gumbel_search`` as it was
before the tree went compact (tree arrays ``(NB, N, A)`` over every action of every node), kept
verbatim so that ``tests/training/test_gumbel_search.py`` can check the compact search against it
on the same inputs. Not part of the package; the formulas and helpers are the package's."""

from __future__ import annotations

import numpy as np

from training.search.gumbel import (
    _LOW_LOGIT,
    SearchResult,
    _absolute,
    _as_float32_obs,
    _call_evaluate,
    _check_count,
    _check_real,
    _completed,
    _considered_table,
    _obs_rows,
    _relative,
    _softmax,
    has_hidden_information,
    improved_policy,
    score_considered,
    seat_teams,
)


def dense_gumbel_search(
    env,
    evaluate,
    rng,
    *,
    num_simulations,
    max_num_considered_actions=16,
    gumbel_scale=1.0,
    value_scale=0.1,
    maxvisit_init=50.0,
    rescale_values=True,
    use_mixed_value=True,
    teams=None,
    gumbel=None,
    determinize=None,
    determinization_rngs=None,
    num_determinizations=1,
) -> SearchResult:
    """``gumbel_search`` with dense tree arrays (same arguments, same result)."""
    S = _check_count("num_simulations", num_simulations, 1)
    D = _check_count("num_determinizations", num_determinizations, 1)
    M = _check_count("max_num_considered_actions", max_num_considered_actions, 1)
    gscale = _check_real("gumbel_scale", gumbel_scale, 0.0)
    vscale = _check_real("value_scale", value_scale, 0.0)
    vinit = _check_real("maxvisit_init", maxvisit_init, 0.0)
    if not callable(evaluate):
        raise ValueError(f"evaluate must be callable, got {type(evaluate).__name__}")
    core = getattr(env, "core", None)
    if core is None or not hasattr(env, "action_mask") or not hasattr(env, "current_player"):
        raise ValueError(f"env must be a vector env from envs.make_vec, got {type(env).__name__}")
    if determinize is not None and not isinstance(determinize, (bool, np.bool_)):
        raise ValueError(f"determinize must be True, False or None (ask the game), got {determinize!r}")
    hidden = has_hidden_information(env) if determinize is None else bool(determinize)
    if D > 1 and not hidden:
        raise ValueError(
            f"num_determinizations={D} needs a search that determinizes (a game with hidden information, "
            "or determinize=True): this one searches the game as it is"
        )
    if (gumbel is None or (hidden and determinization_rngs is None)) and not isinstance(rng, np.random.Generator):
        raise ValueError(
            f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), got {type(rng).__name__}"
            + (" (it draws this game's determinizations)" if hidden else "")
        )
    try:
        root_mask = np.array(env.action_mask(), dtype=bool)
    except RuntimeError as e:
        raise ValueError(f"env must be started (reset) before a search: {e}") from None
    B, A = root_mask.shape
    if determinization_rngs is not None:
        listed = isinstance(determinization_rngs, (list, tuple))
        if (
            not listed
            or len(determinization_rngs) != B
            or not all(isinstance(x, np.random.Generator) for x in determinization_rngs)
        ):
            raise ValueError(
                f"determinization_rngs must be a list of {B} numpy.random.Generator (one per game), got "
                + (f"a list of {len(determinization_rngs)}" if listed else type(determinization_rngs).__name__)
            )
    team_of = seat_teams(env, teams)
    K = int(team_of.max()) + 1  # sides
    first_seat = np.array([int(np.flatnonzero(team_of == t)[0]) for t in range(K)], dtype=np.int64)
    if gumbel is None:
        g = gscale * rng.gumbel(size=(B, A))
    else:
        g = np.array(gumbel, dtype=np.float64)
        if g.shape != (B, A) or not np.isfinite(g).all():
            raise ValueError(f"gumbel must be a finite float array of shape ({B}, {A}), got {g.dtype} {g.shape}")

    root_player = np.asarray(env.current_player(), dtype=np.int64)
    live = (root_player >= 0) & root_mask.any(axis=1)
    trees = np.flatnonzero(live)
    # the trees' rows: D per game (row i * D + d: game i's sample d), one per game without samples
    NB = B * D
    game_of = np.repeat(np.arange(B), D)
    gr = g if D == 1 else g[game_of]
    if D > 1:
        root_mask, root_player, live = root_mask[game_of], root_player[game_of], live[game_of]
        trees = np.flatnonzero(live)
    if hidden and trees.size:
        # D determinizations per live game from its mover's view, in game order, after the noise
        states = [env.to_state(i) for i in range(B) for _ in range(D)]
        gens = [rng] * B if determinization_rngs is None else list(determinization_rngs)
        for r in trees.tolist():
            states[r] = states[r].determinize(int(root_player[r]), gens[r // D])
        core = env.from_states(states).core
    N = S + 1
    # the trees (mctx's Tree fields, one row per game, node 0 the root)
    # (rows of the big arrays are only read once their node exists: "empty" ones are filled then)
    child = np.empty((NB, N, A), dtype=np.int32)  # children_index, -1: unvisited
    logits = np.empty((NB, N, A), dtype=np.float64)  # children_prior_logits (masked)
    probs = np.empty((NB, N, A), dtype=np.float64)  # their softmax (for the mixed value)
    legal = np.zeros((NB, N, A), dtype=bool)
    cvisits = np.zeros((NB, N, A), dtype=np.int32)  # children_visits
    # values are vectors of the K sides in absolute side order (max-n); a node's q-values and
    # visits are of its own mover's side only (what its selection reads)
    cq = np.zeros((NB, N, A), dtype=np.float64)  # qvalues of the node's side: rewards + discounts * values
    reward = np.zeros((NB, N, K), dtype=np.float64)  # of the edge into each node, per side
    discount = np.zeros((NB, N), dtype=np.float64)  # 0 into a finished game, else 1
    nvisits = np.zeros((NB, N), dtype=np.int32)
    raw = np.zeros((NB, N, K), dtype=np.float64)
    nvalues = np.zeros((NB, N, K), dtype=np.float64)
    parent = np.full((NB, N), -1, dtype=np.int32)
    from_action = np.full((NB, N), -1, dtype=np.int32)
    mover = np.full((NB, N), -1, dtype=np.int64)
    side = np.full((NB, N), -1, dtype=np.int64)  # team_of[mover], -1 at a finished game
    count = np.ones(NB, dtype=np.int64)  # nodes used per tree
    n_eval = 0
    n_nodes = 0

    # the roots: one evaluation
    if trees.size:
        obs = _as_float32_obs(core.observe(np.where(root_player >= 0, root_player, 0).astype(np.int32)))
        lg, v = _call_evaluate(evaluate, _obs_rows(obs, trees), root_mask[trees], A, K)
        n_eval += trees.size
        child[trees, 0] = -1
        logits[trees, 0] = lg
        probs[trees, 0] = _softmax(lg)
        legal[trees, 0] = root_mask[trees]
        side[trees, 0] = team_of[root_player[trees]]
        raw[trees, 0] = _absolute(v, side[trees, 0])
        nvalues[trees, 0] = raw[trees, 0]
        nvisits[trees, 0] = 1
        mover[trees, 0] = root_player[trees]
    num_considered = np.minimum(M, root_mask.sum(axis=1))
    table = _considered_table(M, S)
    nodes = core.take(np.repeat(np.arange(NB), N))  # node n of row b is game b * N + n

    def root_stats(bb):
        """The roots of rows ``bb`` (every live row, D per game, in order): one row per game and
        its visits, q-values (the mean of its D trees': they visit the same root actions) and
        sigma(completed q)."""
        if D == 1:
            return bb, cvisits[bb, 0], cq[bb, 0], sigma(bb, 0)
        first = bb[::D]
        q = cq[bb, 0].reshape(-1, D, A).mean(axis=1)
        sq = _completed(
            q,
            cvisits[first, 0],
            raw[first, 0, side[first, 0]],
            probs[first, 0] if use_mixed_value else None,
            value_scale=vscale,
            maxvisit_init=vinit,
            rescale_values=bool(rescale_values),
        )
        return first, cvisits[first, 0], q, sq

    def sigma(bb, nn):
        return _completed(
            cq[bb, nn],
            cvisits[bb, nn],
            raw[bb, nn, side[bb, nn]],
            probs[bb, nn] if use_mixed_value else None,
            value_scale=vscale,
            maxvisit_init=vinit,
            rescale_values=bool(rescale_values),
        )

    for _sim in range(S):
        if not trees.size:
            break
        bb = trees
        # root: Sequential Halving with Gumbel (mctx gumbel_muzero_root_action_selection)
        first, visits, _, sq = root_stats(bb)
        considered_visit = table[num_considered[first], visits.sum(axis=1)]
        score = score_considered(considered_visit, gr[first], logits[first, 0], sq, visits)
        act = np.argmax(np.where(legal[first, 0], score, -np.inf), axis=1)
        if D > 1:  # the same root action in the D trees of a game
            act = np.repeat(act, D)
        node = np.zeros(bb.size, dtype=np.int64)
        nxt = child[bb, 0, act].astype(np.int64)
        # below: deterministic selection (mctx gumbel_muzero_interior_action_selection)
        going = nxt >= 0
        while True:
            going &= mover[bb, np.maximum(nxt, 0)] >= 0  # a finished game is a leaf
            if not going.any():
                break
            r = np.flatnonzero(going)
            b2, n2 = bb[r], nxt[r]
            sq2 = sigma(b2, n2)
            vis2 = cvisits[b2, n2]
            pi = _softmax(logits[b2, n2] + sq2)
            to_argmax = pi - vis2 / (1.0 + vis2.sum(axis=1, keepdims=True))
            a2 = np.argmax(np.where(legal[b2, n2], to_argmax, -np.inf), axis=1)
            node[r] = n2
            act[r] = a2
            nxt[r] = child[b2, n2, a2]
            going[r] = nxt[r] >= 0
        # expand the games whose path ends on an unvisited action: one take, step, put, evaluate
        new = nxt < 0
        leaf = nxt.copy()
        if new.any():
            r = np.flatnonzero(new)
            b3, p3, a3 = bb[r], node[r], act[r]
            n3 = count[b3]
            count[b3] += 1
            n_nodes += r.size
            sub = nodes.take(b3 * N + p3)
            sub.step(a3.astype(np.int64), np.ones(r.size, dtype=bool))
            nodes.put(b3 * N + n3, sub)
            cp = np.asarray(sub.current_player(), dtype=np.int64)
            over = (cp < 0) | np.asarray(sub.terminated(), dtype=bool)
            cp = np.where(over, -1, cp)
            sd = np.where(over, -1, team_of[np.maximum(cp, 0)])
            rew = np.zeros((r.size, K), dtype=np.float64)
            if over.any():  # each side's return (partners share theirs: the first seat's)
                rets = np.asarray(sub.returns(), dtype=np.float64)
                rew = np.where(over[:, None], rets[:, first_seat], 0.0)
            disc = np.where(over, 0.0, 1.0)
            value = np.zeros((r.size, K), dtype=np.float64)
            ev = np.flatnonzero(~over)
            if ev.size:
                m3 = np.asarray(sub.legal_action_mask(), dtype=bool)
                obs = _as_float32_obs(sub.observe(np.maximum(cp, 0).astype(np.int32)))
                lg, v = _call_evaluate(evaluate, _obs_rows(obs, ev), m3[ev], A, K)
                n_eval += ev.size
                child[b3[ev], n3[ev]] = -1
                logits[b3[ev], n3[ev]] = lg
                probs[b3[ev], n3[ev]] = _softmax(lg)
                legal[b3[ev], n3[ev]] = m3[ev]
                value[ev] = _absolute(v, sd[ev])
            raw[b3, n3] = value
            nvalues[b3, n3] = value
            nvisits[b3, n3] = 1
            parent[b3, n3] = p3
            from_action[b3, n3] = a3
            mover[b3, n3] = cp
            side[b3, n3] = sd
            child[b3, p3, a3] = n3
            reward[b3, n3] = rew
            discount[b3, n3] = disc
            leaf[r] = n3
        old = np.flatnonzero(~new)  # a finished game reached again: mctx's dummy child adds a visit of value 0
        if old.size:
            nvisits[bb[old], leaf[old]] += 1
        # back up (mctx search.backward, on vectors of the sides: max-n)
        idx = leaf
        val = nvalues[bb, idx]
        up = idx != 0
        while up.any():
            r = np.flatnonzero(up)
            b4, i4 = bb[r], idx[r]
            p4 = parent[b4, i4]
            a4 = from_action[b4, i4]
            d4 = discount[b4, i4][:, None]
            val[r] = reward[b4, i4] + d4 * val[r]
            c = nvisits[b4, p4][:, None]
            nvalues[b4, p4] = (nvalues[b4, p4] * c + val[r]) / (c + 1.0)
            nvisits[b4, p4] += 1
            s4 = side[b4, p4]
            cq[b4, p4, a4] = reward[b4, i4, s4] + discount[b4, i4] * nvalues[b4, i4, s4]
            cvisits[b4, p4, a4] += 1
            idx[r] = p4
            up[r] = p4 != 0

    # the result (mctx gumbel_muzero_policy)
    action = np.zeros(B, dtype=np.int64)
    weights = np.zeros((B, A), dtype=np.float32)
    sq_out = np.zeros((B, A), dtype=np.float32)
    q_out = np.zeros((B, A), dtype=np.float32)
    considered = np.zeros((B, A), dtype=bool)
    root_values = np.zeros((B, K), dtype=np.float32)
    root_value = np.zeros(B, dtype=np.float32)
    raw_value = np.zeros(B, dtype=np.float32)
    root_visits = np.zeros((B, A), dtype=np.int32)
    if trees.size:
        first, visits, q, sq = root_stats(trees)
        gi = first // D  # the games
        s0 = side[first, 0]
        values = nvalues[trees, 0] if D == 1 else nvalues[trees, 0].reshape(-1, D, K).mean(axis=1)
        root_value[gi] = values[np.arange(gi.size), s0]
        raw_value[gi] = raw[first, 0, s0]
        root_values[gi] = _relative(values, s0)
        root_visits[gi] = visits
        score = score_considered(visits.max(axis=1), g[gi], logits[first, 0], sq, visits)
        action[gi] = np.argmax(np.where(legal[first, 0], score, -np.inf), axis=1)
        weights[gi] = improved_policy(logits[first, 0], sq, legal[first, 0])
        sq_out[gi] = sq
        q_out[gi] = q
        # Gumbel-top-k: the first num_considered by g + logits (ties to the lower action, as argmax)
        key = np.where(legal[first, 0], np.maximum(_LOW_LOGIT, g[gi] + logits[first, 0]), -np.inf)
        order = np.argsort(-key, axis=1, kind="stable")
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(A)[None, :].repeat(gi.size, axis=0), axis=1)
        considered[gi] = rank < num_considered[first][:, None]
    return SearchResult(
        action=action,
        action_weights=weights,
        root_value=root_value,
        raw_value=raw_value,
        root_values=root_values,
        qvalues=q_out,
        completed_qvalues=sq_out,
        visit_counts=root_visits,
        considered=considered,
        gumbel=g,
        num_evaluations=int(n_eval),
        num_nodes=int(n_nodes),
    )
