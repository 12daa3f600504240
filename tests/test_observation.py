"""Observations and action layouts, for every env id and variant.

The observation hashes in ``tests/golden/observation_hashes.json`` were recorded from the
per-env ``_observe`` methods before the encoders moved into the games' packages
(``envs/<game>/observation.py``); these tests prove the encodings stayed bit-identical.
"""

from __future__ import annotations

import copy
import json
import pickle
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

import envs
from envs.core.observation import ActionLayout, ObservationEncoder
from tests.obs_golden_cases import CASES, GOLDEN, observation_hash

ROOT = Path(__file__).resolve().parents[1]
EXPECTED = json.loads(GOLDEN.read_text())


def test_every_case_has_a_recorded_hash():
    assert sorted(EXPECTED) == sorted(name for name, *_ in CASES)
    assert {env_id for _, env_id, _, _ in CASES} == set(envs.ENV_IDS)


@pytest.mark.parametrize("name,env_id,kwargs,plies", CASES, ids=[c[0] for c in CASES])
def test_observations_are_bit_identical_to_the_recorded_ones(name, env_id, kwargs, plies):
    assert observation_hash(env_id, kwargs, plies) == EXPECTED[name]
