"""Differential tests of every batched core against the reference rules states (the specification).

For every registered id and variant, at least 1,000 random games are played in lockstep on
``backend="batched"`` and ``backend="reference"`` (one rules state per game, the AEC environment's
own code), dealt by the same generators, and compared at every step: observation, action mask,
current player, rewards, terminated, truncated; every seat's view every 4th step, and the games
themselves through ``to_state`` every 8th ply of each game and at its end
(tests/envs/vector_check.py). A setting a batched core does not cover must be refused with a clear
error naming the reference backend.

The two intervals keep the suite's time: comparing every game's ``to_state`` and every seat's view
at every step doubled the time of these tests (Tantrix 2 players, 100 games: 10.8 s against 5.4 s;
Smartrix 4 players 7.2 s against 3.2 s), which are most of the suite's.
"""

from __future__ import annotations

import pytest
from vector_check import differential

import envs
from conftest import contract_cases
from envs import ParameterError

CASES = contract_cases()


@pytest.mark.parametrize("env_id,kwargs", CASES)
def test_batched_core_matches_the_reference(env_id, kwargs):
    try:
        envs.make_vec(env_id, 2, **kwargs)
    except ParameterError as e:
        assert "backend='reference'" in str(e), f"unclear refusal: {e}"
        return
    # the step limit of the registry (if any) truncates games; 1,000 games either way
    stats = differential(env_id, kwargs, games=1000, batch=250, seed=0, state_every=8, seat_every=4)
    assert stats["games"] >= 1000
