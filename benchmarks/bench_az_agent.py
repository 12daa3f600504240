"""Time a move of an AlphaZero agent at several search sizes (one torch thread): what the play room's
``room_simulations`` of a shipped AlphaZero agent is chosen by (a move within about a second).

The agent is a config's network freshly initialised (the cost of a move does not depend on the
weights), or a checkpoint's (``--agent``: ``az:PATH``, or a shipped agent's name). It moves from
``--positions`` states along a game of random moves (every ``--stride`` plies), after one warm-up
move; printed per search size: the median and the largest time of a move, and ms per simulation.

    python benchmarks/bench_az_agent.py configs/ataxx_az.yaml configs/twixt24_az.yaml
    python benchmarks/bench_az_agent.py --agent ataxx_az --simulations 256 512 1024

Wall-clock figures: on a shared machine say the load (``uptime``) with them.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import envs  # noqa: E402
from training.agents import make_agent  # noqa: E402
from training.agents.alphazero import AlphaZeroAgent  # noqa: E402
from training.agents.alphazero_net import build_network  # noqa: E402
from training.config import load_config  # noqa: E402


def states_along(env_id: str, env_kwargs: dict, n: int, stride: int, seed: int) -> list:
    """Up to ``n`` states of one game of random moves, every ``stride`` plies (fewer if it ends)."""
    vec = envs.make_vec(env_id, 1, seed=seed, **env_kwargs)
    step, rng, out = vec.reset(), np.random.default_rng(seed), []
    for ply in range(n * stride):
        if ply % stride == 0:
            out.append(vec.to_state(0))
        step = vec.step(np.array([rng.choice(np.flatnonzero(step.action_mask[0]))]))
        if step.terminated[0] or step.truncated[0]:
            break
    return out


def agents(args) -> list[tuple[str, Callable[[int], AlphaZeroAgent]]]:
    """``(label, build)`` of each agent to time, ``build(simulations)`` making it."""
    out: list[tuple[str, Callable[[int], AlphaZeroAgent]]] = []
    for config in args.configs:
        cfg = load_config(config)
        torch.manual_seed(0)
        net = build_network(cfg.env_id, cfg.env_kwargs, cfg.policy.to_dict())
        trained_on, m = (cfg.env_id, dict(cfg.env_kwargs)), cfg.search.max_num_considered_actions

        def fresh(sims: int, net=net, trained_on=trained_on, m=m) -> AlphaZeroAgent:
            return AlphaZeroAgent(net, simulations=sims, max_num_considered_actions=m, trained_on=trained_on)

        out.append((cfg.name, fresh))
    for spec in args.agent:

        def loaded(sims: int, spec=spec) -> AlphaZeroAgent:
            path = spec[len("az:") :] if spec.startswith("az:") else None
            agent = AlphaZeroAgent(path, simulations=sims) if path else make_agent(f"{spec}:{sims}", seed=0)
            if not isinstance(agent, AlphaZeroAgent):
                raise SystemExit(f"{spec} is not an AlphaZero agent")
            return agent

        out.append((spec, loaded))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("configs", nargs="*", help="engine: alphazero configs (a fresh network of each)")
    p.add_argument("--agent", action="append", default=[], help="az:PATH or a shipped AlphaZero agent's name")
    p.add_argument("--simulations", type=int, nargs="+", default=[0, 16, 64, 256, 512, 1024])
    p.add_argument("--positions", type=int, default=6, help="moves timed per search size (default 6)")
    p.add_argument("--stride", type=int, default=10, help="plies between the positions (default 10)")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    if not args.configs and not args.agent:
        p.error("give a config or --agent")
    torch.set_num_threads(1)
    for label, build in agents(args):
        for sims in args.simulations:
            agent = build(sims)
            assert agent.trained_on is not None
            states = states_along(agent.trained_on[0], agent.trained_on[1], args.positions, args.stride, args.seed)
            agent.act(states[0], None)  # warm-up
            times = []
            for s in states:
                t0 = time.perf_counter()
                agent.act(s, None)
                times.append(time.perf_counter() - t0)
            ms = 1000 * np.array(times)
            per = f", {np.median(ms) / sims:.2f} ms/simulation" if sims else ""
            print(
                f"{label:20s} {sims:5d} simulations: median {np.median(ms):7.1f} ms/move, "
                f"max {ms.max():7.1f} ({len(ms)} moves){per}",
                flush=True,
            )


if __name__ == "__main__":
    main()
