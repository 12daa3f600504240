"""Seeded random games whose observations are hashed into ``tests/golden/observation_hashes.json``.

The hashes were recorded from the per-env ``_observe`` methods before the observation encoders
moved into the games' packages; ``tests/envs/test_observation.py`` asserts that every encoder still
produces the same bytes, dtypes, shapes and spaces. Regenerate (only for an intended change of
an observation) with ``python tests/envs/obs_golden_cases.py``.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np

import envs

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "observation_hashes.json"

#: (name, env id, kwargs, plies); plies bounds the game length to keep the test quick.
CASES = [
    ("ataxx", "ataxx_v0", {}, 60),
    ("ataxx_blockers", "ataxx_v0", {"fen": "x5o/7/2-1-2/7/2-1-2/7/o5x x 0 1"}, 60),
    ("twixt_8", "twixt_v0", {"board_size": 8}, 80),
    ("twixt_24", "twixt_v0", {"board_size": 24}, 60),
    ("twixt_8_pp_swap", "twixt_v0", {"board_size": 8, "rules": "pp", "swap": True}, 80),
    ("twixt_10_distance", "twixt_v0", {"board_size": 10, "distance_planes": True, "swap": True}, 60),
    ("double_twixt_10", "double_twixt_v0", {"board_size": 10}, 80),
    ("double_twixt_8_distance", "double_twixt_v0", {"board_size": 8, "distance_planes": True}, 60),
    ("tantrix_2", "tantrix_v0", {"num_players": 2, "window_radius": 8}, 60),
    ("tantrix_3", "tantrix_v0", {"num_players": 3, "window_radius": 6}, 60),
    ("tantrix_4", "tantrix_v0", {"num_players": 4}, 40),
    ("tantrix_doubles", "tantrix_v0", {"num_players": 4, "teams": True, "window_radius": 8}, 60),
    ("smartrix_2", "smartrix_v0", {"num_players": 2}, 80),
    ("smartrix_4", "smartrix_v0", {"num_players": 4}, 80),
    ("smartrix_7", "smartrix_v0", {"num_players": 7}, 80),
    ("smartrix_teams", "smartrix_v0", {"num_players": 4, "teams": True}, 80),
    ("smartrix_kids", "smartrix_v0", {"num_players": 3, "grid_limit": False, "window": 11}, 80),
]


def _feed(h, value) -> None:
    if isinstance(value, dict):
        for k in sorted(value):
            h.update(k.encode())
            _feed(h, value[k])
    else:
        a = np.asarray(value)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(np.ascontiguousarray(a).tobytes())


def observation_hash(env_id: str, kwargs: dict, plies: int, seed: int = 0) -> str:
    """sha256 of the spaces and of every agent's observation after every ply of a seeded random game."""
    env = envs.make_raw(env_id, **kwargs)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    h = hashlib.sha256()
    for a in env.possible_agents:
        h.update(repr(env.observation_space(a)).encode())
        h.update(repr(env.action_space(a)).encode())
    for _ in range(plies):
        for a in env.possible_agents:
            _feed(h, env.observe(a))
        if not env.agents or all(env.terminations[a] or env.truncations[a] for a in env.agents):
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    return h.hexdigest()


def compute() -> dict[str, str]:
    return {name: observation_hash(env_id, kw, plies) for name, env_id, kw, plies in CASES}


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(compute(), indent=1, sort_keys=True) + "\n")
    print(GOLDEN.read_text())
