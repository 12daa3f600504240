"""The AlphaZero engine with more than two sides: a value per side beyond two (network, targets,
buffer, loss)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from training.engines.alphazero.learning import ReplayBuffer, train_step, value_targets  # noqa: E402

SMALL_NET = {"channels": 8, "blocks": 1}
#: A small network of Smartrix's family (as its configs name it).
SMARTRIX_NET = {
    "features": "card_table_net",
    "features_kwargs": SMALL_NET,
    "head": "factored",
    "net_arch": {"pi": [], "vf": [64]},
    "value_head": "dense",
}


# ---------------------------------------------------------------------------- values per side
def test_value_targets_are_each_sides_return_from_the_movers_side():
    # four seats alone: column j is seat (mover + j) mod 4
    returns = np.array([1.0, -1.0, 0.0, -1.0], dtype=np.float32)
    got = value_targets(returns, np.array([0, 1, 3, 3]), np.array([0, 1, 2, 3]))
    assert got.dtype == np.float32 and got.shape == (4, 4)
    assert got.tolist() == [[1, -1, 0, -1], [-1, 0, -1, 1], [-1, 1, -1, 0], [-1, 1, -1, 0]]
    # two teams of two (K = 2): the mover's return, a scalar per position, shared by partners
    got = value_targets(np.array([1, -1, 1, -1], np.float32), np.array([0, 1, 2, 3]), np.array([0, 1, 0, 1]))
    assert got.shape == (4,) and got.tolist() == [1, -1, 1, -1]
    # three teams of two (seats 0+3, 1+4, 2+5): a side's return is its first seat's; clipped to [-1, 1]
    got = value_targets(np.array([2, -1, 0, 2, -1, 0], np.float32), np.array([4, 2]), np.array([0, 1, 2, 0, 1, 2]))
    assert got.tolist() == [[-1, 0, 1], [0, 1, -1]]
    # a game cut at max_steps: zero returns, zero targets of the right shape
    assert value_targets(np.zeros(3, np.float32), np.array([2]), np.array([0, 1, 2])).tolist() == [[0, 0, 0]]


def test_the_network_has_one_value_for_two_sides_and_one_per_side_beyond():
    import envs
    from training.agents.alphazero_net import build_network, make_evaluate, num_sides, value_outputs

    policy = SMARTRIX_NET
    assert [value_outputs(k) for k in (2, 3, 4)] == [1, 3, 4]
    for kwargs, k, shape in (
        ({"num_players": 2}, 2, (3,)),
        ({"num_players": 4, "teams": True}, 2, (3,)),
        ({"num_players": 3}, 3, (3, 3)),
        ({"num_players": 4}, 4, (3, 4)),
    ):
        assert num_sides("smartrix_v0", kwargs) == k
        torch.manual_seed(0)
        net = build_network("smartrix_v0", kwargs, policy)
        assert net.net.value_net.out_features == value_outputs(k)
        vec = envs.make_vec("smartrix_v0", 3, seed=1, **kwargs)
        step = vec.reset()
        logits, values = make_evaluate(net)(step.observation, step.action_mask)
        assert logits.shape == (3, vec.num_actions) and values.shape == shape and values.dtype == np.float32
        assert np.all(np.abs(values) <= 1) and np.ptp(values) > 0  # tanh, and not a constant
    with pytest.raises(ValueError, match="value_outputs must be an integer >= 1"):
        from training.features import ActorCriticNet

        space = vec.core.observation_space
        ActorCriticNet(space, None, 5, "card_table_net", {"features_dim": 8}, "linear", None, "dense", 0)


def test_the_buffer_and_the_loss_take_a_value_per_side():
    import envs
    from envs.core.vector import pack_mask
    from training.agents.alphazero_net import build_network

    vec = envs.make_vec("smartrix_v0", 4, seed=0, num_players=4)
    step = vec.reset()
    mask = np.asarray(step.action_mask)
    policy = (mask / mask.sum(axis=1, keepdims=True)).astype(np.float32)
    z = np.array([[1, -1, -1, -1], [-1, 1, -1, -1], [0, 0, -1, -1], [-1, -1, -1, 1]], np.float32)
    buf = ReplayBuffer(8, vec.core.observation_space, vec.num_actions, value_dim=4)
    buf.add(step.observation, pack_mask(mask), policy, z)
    assert buf.value.shape == (8, 4) and buf.size == 4
    _, _, _, got = buf.batch(np.array([2, 0]))
    assert got.tolist() == [z[2].tolist(), z[0].tolist()]
    # the value loss is the MSE averaged over positions and sides
    torch.manual_seed(0)
    net = build_network("smartrix_v0", {"num_players": 4}, SMARTRIX_NET)
    rng = np.random.default_rng(5)
    idx = np.random.default_rng(5).integers(buf.size, size=6)
    obs, _, _, target = buf.batch(idx)
    from training.agents.alphazero_net import obs_tensor

    net.train()
    with torch.no_grad():
        _, v = net(obs_tensor(obs))
    expected = float(((v.numpy() - target) ** 2).mean())
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    losses = train_step(net, opt, buf, rng, 6, 1.0)
    assert losses["value_loss"] == pytest.approx(expected, rel=1e-5)
    assert expected > 0.1  # a real error, not a vacuous zero
