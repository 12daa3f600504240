"""``envs.core.vector.sample_legal``: the ``floor(u * n)``-th legal action of each row, counted
8 mask bytes at a time; checked against a plain per-row reference on every kind of row length
(shorter than a word, across word edges, wide) and layout (a row starting off a word boundary)."""

import numpy as np
import pytest

from envs.core.vector import sample_legal


def _reference(mask, u):
    out = np.zeros(len(mask), np.int64)
    for i, row in enumerate(mask):
        legal = np.flatnonzero(row)
        if legal.size:
            out[i] = legal[min(int(u[i] * legal.size), legal.size - 1)]
    return out


@pytest.mark.parametrize("num_actions", [1, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 834, 1000])
def test_sample_legal_draws_the_counted_legal_action(num_actions):
    rng = np.random.default_rng(num_actions)
    for batch in (1, 3, 50):
        for p in (0.0, 0.01, 0.3, 1.0):
            mask = rng.random((batch, num_actions)) < p
            u = rng.random(batch)
            u[0] = np.nextafter(1.0, 0.0)  # the last legal action
            got = sample_legal(mask, u)
            assert got.dtype == np.int64 and np.array_equal(got, _reference(mask, u))
            assert mask[np.arange(batch), got][mask.any(axis=1)].all()


def test_sample_legal_on_a_view_and_its_errors():
    rng = np.random.default_rng(0)
    mask = (rng.random((100, 835)) < 0.2)[1:]  # rows that start off an 8-byte boundary
    u = rng.random(99)
    assert np.array_equal(sample_legal(mask, u), _reference(mask, u))
    assert sample_legal(np.zeros((2, 5), bool), np.array([0.5, 0.9])).tolist() == [0, 0]
    with pytest.raises(ValueError, match="bool \\(B, A\\) mask"):
        sample_legal(np.zeros((2, 5), np.int8), np.zeros(2))
    with pytest.raises(ValueError, match="u of shape"):
        sample_legal(np.zeros((2, 5), bool), np.zeros(3))
