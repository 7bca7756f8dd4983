"""The RBF-kernel logistic regression of Ahmed et al. Figs. 3 and 4(b) (Nystroem approximation, fslab.learners)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.kernel_approximation import Nystroem

from fslab.learners import LEARNERS, RBF_COMPONENTS


def _rings(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    return X, (np.hypot(X[:, 0], X[:, 1]) > 1.2).astype(int)


@pytest.mark.slow  # 0.84 s measured (inner loop: unit and not slow)
def test_the_kernel_model_learns_what_a_linear_one_cannot():
    # y depends on the radius only: no hyperplane separates it (linear accuracy near the majority rate 0.5-0.8),
    # an RBF kernel does.
    X, y = _rings()
    rbf = LEARNERS["logistic-rbf"].build().fit(X[:200], y[:200])
    lin = LEARNERS["logistic"].build().fit(X[:200], y[:200])
    assert np.mean(rbf.predict(X[200:]) == y[200:]) >= 0.9
    assert np.mean(lin.predict(X[200:]) == y[200:]) < 0.85


def test_few_rows_cap_the_basis_and_keep_the_parameter():
    X, y = _rings(50)
    est = LEARNERS["logistic-rbf"].build().fit(X, y)
    nys = est[1]
    assert nys.components_.shape[0] == 50 and nys.n_components == RBF_COMPONENTS
    assert clone(est)[1].n_components == RBF_COMPONENTS


@pytest.mark.slow  # 0.27 s measured (inner loop: unit and not slow)
def test_a_failed_svd_is_retried_on_jittered_rows(monkeypatch):
    calls = []
    original = Nystroem.fit

    def flaky(self, X, y=None):
        calls.append(1)
        if len(calls) == 1:
            raise np.linalg.LinAlgError("SVD did not converge")
        return original(self, X, y)

    monkeypatch.setattr(Nystroem, "fit", flaky)
    X, y = _rings()
    est = LEARNERS["logistic-rbf"].build().fit(X, y)
    assert len(calls) == 2 and est.predict(X).shape == y.shape


@pytest.mark.parametrize("name", ["logistic-rbf", "logistic-rbf-threshold"])
def test_tuning_grid_builds(name):
    spec = LEARNERS[name]
    assert len(spec.grid) == 6
    for hyper in spec.grid:
        spec.build(**hyper)
