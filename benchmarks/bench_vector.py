"""Batched random play (``envs.make_vec``) against our own AEC env, and against Pgx on the CPU.

For each game: uniform random legal actions drawn from the returned masks, autoreset
``next_step``, at several batch sizes; steps/s counts games stepped (``B`` per call). The peer in the
same run is the game's own ``env()`` (PettingZoo AEC, one game at a time, the loop of
``benchmarks/envloop.py``); with ``--pgx``, Pgx's Othello beside our Ataxx and Pgx's Hex 11x11
beside our TwixT 11x11 (``jax.jit(jax.vmap(...))``, random legal actions, autoreset), at the same
batch sizes. Also the memory of one game's state and the first call's time (numba compiles or
loads its cache then).

    python benchmarks/bench_vector.py                         # every game, B = 1, 64, 1024, 4096
    python benchmarks/bench_vector.py --games ataxx --pgx     # Ataxx against Pgx's Othello
    python benchmarks/bench_vector.py --batch 1024 --seconds 1 --json out.json

Set the thread count of the process before comparing (``NUMBA_NUM_THREADS``, ``XLA_FLAGS``); the
figures are per run, on a shared machine compare only within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from envloop import run_env  # noqa: E402

import envs  # noqa: E402
from envs.core.vector import sample_legal  # noqa: E402

#: name -> (env id, kwargs, Pgx peer id or None)
GAMES = {
    "ataxx": ("ataxx_v0", {}, "othello"),
    "twixt11": ("twixt_v0", {"board_size": 11}, "hex"),
    "twixt24": ("twixt_v0", {}, None),
    "double_twixt": ("double_twixt_v0", {"board_size": 8}, None),
    "tantrix": ("tantrix_v0", {}, None),
    "tantrix4": ("tantrix_v0", {"num_players": 4}, None),
    "smartrix": ("smartrix_v0", {}, None),
    "smartrix7": ("smartrix_v0", {"num_players": 7}, None),
}


def bench_ours(env_id: str, kwargs: dict, batch: int, seconds: float, seed: int, backend: str = "batched") -> dict:
    t0 = time.perf_counter()
    vec = envs.make_vec(env_id, batch, seed=seed, backend=backend, **kwargs)
    out = vec.reset()
    rng = np.random.default_rng(seed)
    out = vec.step(sample_legal(out.action_mask, rng.random(batch)))
    first = time.perf_counter() - t0
    steps, calls, games = 0, 0, 0
    t0 = time.perf_counter()
    while True:
        out = vec.step(sample_legal(out.action_mask, rng.random(batch)))
        calls += 1
        games += int((out.terminated | out.truncated).sum())
        if calls % 8 == 0 and time.perf_counter() - t0 >= seconds:
            break
    elapsed = time.perf_counter() - t0
    steps = calls * batch
    return {
        "batch": batch,
        "steps_per_s": steps / elapsed,
        "calls": calls,
        "games": games,
        "seconds": elapsed,
        "first_call_s": first,
        "bytes_per_game": vec.memory_per_game(),
        "backend": vec.backend,
    }


def bench_aec(env_id: str, kwargs: dict, seconds: float, seed: int) -> dict:
    steps = 200
    while True:
        elapsed, n, games = run_env(lambda: envs.make(env_id, **kwargs), steps, seed)
        if elapsed >= seconds or steps > 10**7:
            return {"steps_per_s": n / elapsed, "steps": n, "games": games, "seconds": elapsed}
        steps = int(steps * max(2.0, 1.2 * seconds / max(elapsed, 1e-3)))


def bench_pgx(name: str, batch: int, seconds: float, seed: int) -> dict:
    import jax
    import jax.numpy as jnp
    import pgx
    from pgx.experimental import auto_reset

    env = pgx.make(name) if name != "hex" else pgx.make("hex")  # Pgx's Hex is 11x11
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))

    @jax.jit
    def act(key, mask):
        logits = jnp.where(mask, 0.0, -jnp.inf)
        return jax.random.categorical(key, logits, axis=-1)

    key = jax.random.PRNGKey(seed)
    key, sub = jax.random.split(key)
    t0 = time.perf_counter()
    state = init(jax.random.split(sub, batch))
    key, k1, k2 = jax.random.split(key, 3)
    state = step(state, act(k1, state.legal_action_mask), jax.random.split(k2, batch))
    state.observation.block_until_ready()
    first = time.perf_counter() - t0
    calls = 0
    t0 = time.perf_counter()
    while True:
        key, k1, k2 = jax.random.split(key, 3)
        state = step(state, act(k1, state.legal_action_mask), jax.random.split(k2, batch))
        calls += 1
        if calls % 8 == 0:
            state.observation.block_until_ready()
            if time.perf_counter() - t0 >= seconds:
                break
    elapsed = time.perf_counter() - t0
    one = jax.tree_util.tree_map(lambda x: x[0], state)
    nbytes = sum(int(np.asarray(x).nbytes) for x in jax.tree_util.tree_leaves(one))
    return {
        "batch": batch,
        "steps_per_s": calls * batch / elapsed,
        "calls": calls,
        "seconds": elapsed,
        "first_call_s": first,
        "bytes_per_game": nbytes,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default=",".join(GAMES), help=f"comma-separated, of: {', '.join(GAMES)}")
    ap.add_argument("--batch", default="1,64,1024,4096", help="comma-separated batch sizes")
    ap.add_argument("--seconds", type=float, default=2.0, help="time per measurement")
    ap.add_argument("--pgx", action="store_true", help="also Pgx's peers (needs jax and pgx: the bench extra)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--backend",
        default="batched",
        choices=["batched", "reference"],
        help="the vector backend (reference: one rules state per game, for comparison)",
    )
    ap.add_argument("--json", help="write the figures to this file")
    args = ap.parse_args(argv)
    names = [g for g in args.games.split(",") if g]
    unknown = [g for g in names if g not in GAMES]
    if unknown:
        ap.error(f"unknown game {', '.join(unknown)}; known: {', '.join(GAMES)}")
    batches = [int(b) for b in args.batch.split(",")]
    report = {
        "threads": {k: os.environ.get(k) for k in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "XLA_FLAGS")},
        "cpus": os.cpu_count(),
        "games": {},
    }
    for name in names:
        env_id, kwargs, peer = GAMES[name]
        aec = bench_aec(env_id, kwargs, args.seconds, args.seed)
        row = {"env_id": env_id, "kwargs": kwargs, "aec": aec, "ours": [], "pgx": []}
        print(f"\n{name}: {env_id} {kwargs}  AEC env(): {aec['steps_per_s']:,.0f} steps/s")
        print(
            f"{'B':>6} {'ours steps/s':>14} {'x AEC':>8} {'first call s':>12} {'bytes/game':>10}"
            + (f" {'Pgx ' + peer + ' steps/s':>22} {'ours / Pgx':>10}" if args.pgx and peer else "")
        )
        for b in batches:
            ours = bench_ours(env_id, kwargs, b, args.seconds, args.seed, args.backend)
            ours["x_aec"] = ours["steps_per_s"] / aec["steps_per_s"]
            row["ours"].append(ours)
            line = (
                f"{b:>6} {ours['steps_per_s']:>14,.0f} {ours['x_aec']:>7.1f}x {ours['first_call_s']:>12.2f} "
                f"{ours['bytes_per_game']:>10,}"
            )
            if args.pgx and peer:
                p = bench_pgx(peer, b, args.seconds, args.seed)
                p["ratio"] = ours["steps_per_s"] / p["steps_per_s"]
                row["pgx"].append({"peer": peer, **p})
                line += f" {p['steps_per_s']:>22,.0f} {p['ratio']:>9.2f}x"
            print(line, flush=True)
        report["games"][name] = row
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
