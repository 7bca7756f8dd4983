"""The SQL reader's quantile edges are numpy's to the last bit: its ranks and interpolation (sql_read._quantile_ranks,
_lerp) applied to the sorted values equal np.quantile's 'linear' method, whose virtual index is (n - 1) q. The old
n q + 1 - q - 1 (equal in exact arithmetic) differed in the last digits on 825 of these 3,000 draws (29.55999999999999
for 29.56), so a value on an edge could be coded in another bin than in memory."""

from __future__ import annotations

import numpy as np

from fslab.data.sql_read import _lerp, _quantile_ranks


def test_quantile_edges_are_numpys_bit_for_bit():
    rng = np.random.default_rng(0)
    for _ in range(3000):
        n, bins = int(rng.integers(2, 2000)), int(rng.integers(2, 10))
        x = np.sort(np.round(rng.lognormal(2, 1, n), 2))
        q = np.linspace(0.0, 1.0, bins + 1)[1:-1]
        below, above, fraction = _quantile_ranks(n, q)
        assert np.array_equal(_lerp(x[below], x[above], fraction), np.quantile(x, q)), (n, bins)


def test_quantile_ranks_by_hand():
    below, above, fraction = _quantile_ranks(5, np.array([0.25, 0.5, 0.9]))   # virtual indexes 1, 2, 3.6
    assert below.tolist() == [1, 2, 3] and above.tolist() == [2, 3, 4]
    assert np.allclose(fraction, [0.0, 0.0, 0.6])
