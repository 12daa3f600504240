"""``env()``'s wrappers (:func:`envs.core.aec.wrap_classic`) behave exactly as PettingZoo's own
TerminateIllegal / AssertOutOfBounds / OrderEnforcing chain: same observations, rewards, ends,
infos and errors, for every registered id and variant, legal and illegal actions alike."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.utils import wrappers

import envs
from conftest import contract_cases
from envs.core.aec import wrap_classic

CASES = [c for c in contract_cases() if "24x24" not in c.id]


def _pettingzoo_chain(raw):
    env = wrappers.TerminateIllegalWrapper(raw, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def _same(a, b) -> bool:
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    return a == b


@pytest.mark.parametrize("env_id, kwargs", CASES)
@pytest.mark.parametrize("illegal_at", [None, 5])
def test_wrapped_games_match_pettingzoo_wrappers(env_id, kwargs, illegal_at):
    spec = envs.spec(env_id)
    ours, theirs = wrap_classic(spec.make_raw(**kwargs)), _pettingzoo_chain(spec.make_raw(**kwargs))
    assert [type(w).__name__ for w in (ours, ours.env, ours.env.env)] == [
        type(w).__name__ for w in (theirs, theirs.env, theirs.env.env)
    ]
    for e in (ours, theirs):
        with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
            _ = e.agent_selection
        e.reset(seed=3)
    rng = np.random.default_rng(3)
    steps = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for agent in ours.agent_iter(200):
            assert agent == theirs.agent_selection
            last = ours.last()
            assert all(_same(x, y) for x, y in zip(last, theirs.last()))
            for attr in ("agents", "rewards", "terminations", "truncations", "_cumulative_rewards"):
                assert getattr(ours, attr) == getattr(theirs, attr), attr
            obs, _, term, trunc, _ = last
            if term or trunc:
                action = None
            elif steps == illegal_at:
                action = int(np.flatnonzero(obs["action_mask"] == 0)[0])  # an illegal action: -1, the end
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            ours.step(action)
            theirs.step(action)
            steps += 1
    assert steps > 5 and ours.agents == theirs.agents
    if illegal_at is not None:
        assert ours.agents == [] and steps == illegal_at + 1 + len(ours.possible_agents)
    # Out-of-bounds actions fail the same assertion; values set on the wrapper shadow as before.
    ours.reset(seed=1)
    theirs.reset(seed=1)
    for e in (ours, theirs):
        with pytest.raises(AssertionError, match="action is not in action space"):
            e.step(e.action_space(e.agent_selection).n)
        e.env.agent_selection = "shadow"
        assert e.env.agent_selection == "shadow" and e.agent_selection == "shadow"
        assert e.unwrapped.agent_selection == "player_0"


@pytest.mark.parametrize("action", [True, False, np.bool_(True)])
def test_a_bool_action_is_refused_by_the_bounds_wrapper_and_changes_nothing(action):
    """Found by a newcomer: env().step(True) reached TerminateIllegal's mask lookup and gave numpy's
    'truth value of an array is ambiguous'. A bool is no action (Discrete.contains accepts it)."""
    env = envs.make("ataxx_v0")
    env.reset(seed=0)
    before = env.unwrapped.state.clone()
    with pytest.raises(
        AssertionError, match=r"action is not in action space: .* is a bool, expected an integer in \[0, 834\)"
    ):
        env.step(action)
    assert env.unwrapped.state == before and env.unwrapped.state.history == []
    assert env.agent_selection == "player_0" and not any(env.terminations.values())
