"""Helpers of the vector tests: comparing two batches of games step by step.

:func:`differential` plays random legal games in lockstep on a game's batched core
(``backend="batched"``) and on the reference (``backend="reference"``: one rules state per game,
the AEC environment's own code) and compares, at every step, everything the vector API returns
(observation, mask, current player, rewards, terminated, truncated), every seat's view, and the
games themselves through ``to_state``. Nothing here names a game.
"""

from __future__ import annotations

import numpy as np

import envs
from envs.core.vector import obs_equal, obs_take


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of ``mask`` (``bool (B, A)``); 0 for a row
    without any (a finished game, whose action is ignored)."""
    counts = mask.sum(axis=1)
    pick = np.floor(rng.random(mask.shape[0]) * np.maximum(counts, 1)).astype(np.int64)
    csum = np.cumsum(mask, axis=1)
    out = (csum <= pick[:, None]).sum(axis=1)
    return np.where(counts > 0, out, 0).astype(np.int64)


def _where(a, b) -> str:
    """A short description of where two observation batches differ."""
    if isinstance(a, dict):
        return ", ".join(f"{k}: {_where(a[k], b[k])}" for k in a if not obs_equal(a[k], b[k]))
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return f"{a.dtype}{a.shape} vs {b.dtype}{b.shape}"
    rows = np.flatnonzero((a != b).reshape(a.shape[0], -1).any(axis=1))
    return f"games {rows[:5].tolist()}"


def compare(fast, ref, out_f, out_r, step: int, *, states: np.ndarray | None = None, seats: bool = True) -> None:
    """Assert that two vector envs' results and games agree (``states``: the games whose
    ``to_state`` to compare, ``None`` for all)."""
    where = f"step {step}"
    for name in ("current_player", "terminated", "truncated"):
        a, b = getattr(out_f, name), getattr(out_r, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), (
            f"{where}: {name} differs at games {np.flatnonzero(a != b)[:5].tolist()}: "
            f"{a[a != b][:5]} vs {b[a != b][:5]}"
        )
    assert out_f.rewards.dtype == np.float32 and np.array_equal(out_f.rewards, out_r.rewards), (
        f"{where}: rewards differ at games {np.flatnonzero((out_f.rewards != out_r.rewards).any(1))[:5].tolist()}"
    )
    assert out_f.action_mask.dtype == bool and out_f.action_mask.shape == out_r.action_mask.shape
    bad = np.flatnonzero((out_f.action_mask != out_r.action_mask).any(axis=1))
    assert bad.size == 0, f"{where}: action masks differ at games {bad[:5].tolist()}"
    assert obs_equal(out_f.observation, out_r.observation), (
        f"{where}: observations differ: {_where(out_f.observation, out_r.observation)}"
    )
    assert np.array_equal(out_f.info["reset"], out_r.info["reset"]), f"{where}: reset flags differ"
    if seats:
        for p in range(fast.num_players):
            of, orf = fast.observe(p), ref.observe(p)
            assert obs_equal(of, orf), f"{where}: seat {p}'s view differs: {_where(of, orf)}"
    idx = range(fast.num_envs) if states is None else np.flatnonzero(states).tolist()
    for i in idx:
        sf, sr = fast.to_state(i), ref.to_state(i)
        assert sf == sr, f"{where}: game {i} differs from the reference:\n{sf}\nvs\n{sr}"


def differential(
    env_id: str,
    kwargs: dict,
    *,
    games: int = 1000,
    batch: int = 250,
    seed: int = 0,
    state_every: int = 1,
    seat_every: int = 1,
    max_plies: int | None = None,
) -> dict:
    """Play at least ``games`` random games (all of them finished, by the rules or the step
    limit) on both backends in lockstep, comparing at every step (``to_state`` of a game every
    ``state_every`` plies of it and at its end; every seat's view every ``seat_every`` steps).

    Returns:
        ``{"games": finished games, "steps": batched steps, "plies": plies played}``.
    """
    kw = dict(kwargs)
    if max_plies is not None:
        kw["max_steps"] = max_plies
    fast = envs.make_vec(env_id, batch, seed=seed, autoreset="disabled", **kw)
    ref = envs.make_vec(env_id, batch, seed=seed, autoreset="disabled", backend="reference", **kw)
    assert fast.backend != "reference"
    rng = np.random.default_rng(seed)
    out_f, out_r = fast.reset(), ref.reset()
    compare(fast, ref, out_f, out_r, 0)
    started = batch
    finished = plies = steps = 0
    done = np.zeros(batch, dtype=bool)
    while finished < games or not done.all():
        actions = random_actions(out_r.action_mask, rng)
        live = ~done
        out_f, out_r = fast.step(actions), ref.step(actions)
        steps += 1
        plies += int(live.sum())
        ended = (out_r.terminated | out_r.truncated) & live
        check = ended | ((ref.episode_steps % state_every) == 0) & live
        compare(fast, ref, out_f, out_r, steps, states=check, seats=steps % seat_every == 0)
        done |= ended
        finished += int(ended.sum())
        if done.any() and started < games:
            again = done.copy()
            room = games - started
            if again.sum() > room:
                again[np.flatnonzero(again)[room:]] = False
            out_f, out_r = fast.reset(mask=again), ref.reset(mask=again)
            compare(fast, ref, out_f, out_r, steps, states=again)
            started += int(again.sum())
            done &= ~again
    return {"games": finished, "steps": steps, "plies": plies}


def views(vec, i: int) -> list:
    """Every seat's observation of game ``i`` of a vector env."""
    return [obs_take(vec.observe(p), i) for p in range(vec.num_players)]
