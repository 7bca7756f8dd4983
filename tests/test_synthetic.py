"""The NPFS paper's synthetic data: D_uni (Section IV-A) and digits in noise (Section IV-D)."""

from __future__ import annotations

import numpy as np
import pytest

from fslab.data.synthetic import digits_in_noise, embed_in_noise, uniform_data, uniform_dataset, window_mask
from fslab.errors import ParameterError


def test_uniform_data_follows_the_labelling_rule():
    X, y = uniform_data(m=500, n_features=7, k_star=3, seed=1)
    assert X.shape == (500, 7) and X.min() >= 0 and X.max() <= 10
    assert np.array_equal(y, (X[:, :3].sum(axis=1) <= 15).astype(int))
    assert 0.4 < y.mean() < 0.6  # the threshold 5 k* is the mean of the sum: balanced classes
    X2, _ = uniform_data(m=500, n_features=7, k_star=3, seed=1)
    assert np.array_equal(X, X2)


def test_uniform_dataset_is_a_binary_dataset():
    ds = uniform_dataset(m=200, n_features=6, k_star=2, seed=0)
    enc = ds.discretize(method="uniform", bins=3)
    assert enc.X.shape == (200, 6) and enc.task == "binary"
    assert enc.feature_names[:2] == ("X1", "X2")
    _, y = uniform_data(m=200, n_features=6, k_star=2, seed=0)
    assert np.array_equal(enc.y, y)  # 1 (sum <= 5 k*) is the positive class


@pytest.mark.parametrize("kwargs", [{"m": 1}, {"k_star": 0}, {"k_star": 30}])
def test_uniform_errors(kwargs):
    with pytest.raises(ParameterError):
        uniform_data(**{"m": 100, "n_features": 25, "k_star": 5, **kwargs})


def test_embed_in_noise_places_the_image_and_noise():
    images = np.arange(2 * 64).reshape(2, 8, 8) % 17
    framed = embed_in_noise(images, seed=0, offset=(2, 5))
    assert framed.shape == (2, 16, 16)
    assert np.array_equal(framed[:, 2:10, 5:13], images)
    noise = framed.reshape(2, -1)[:, ~window_mask((2, 5))]
    assert noise.min() >= 1 and noise.max() <= 16 and len(np.unique(noise)) == 16
    assert window_mask().reshape(16, 16)[4:12, 4:12].all() and window_mask().sum() == 64
    with pytest.raises(ParameterError, match="offset"):
        embed_in_noise(images, offset=(9, 0))


def test_digits_in_noise_from_given_images():
    rng = np.random.default_rng(0)
    images, labels = rng.integers(0, 17, (30, 8, 8)), np.repeat([3, 5, 7], 10)
    ds = digits_in_noise(seed=0, images=images, labels=labels, digits=[3, 7])
    enc = ds.discretize()
    assert enc.X.shape == (20, 256) and enc.task == "binary"
    assert enc.feature_names[0] == "r1c1" and enc.feature_names[-1] == "r16c16"
    assert enc.class_names == ("3", "7")  # two digits: the larger one is positive
    full = digits_in_noise(seed=0, images=images, labels=labels)
    assert full.discretize().task == "multiclass"
    with pytest.raises(ParameterError, match="digits"):
        digits_in_noise(images=images, labels=labels, digits=[3])


def test_digits_in_noise_uses_optdigits():
    ds = digits_in_noise(seed=0, m=300)
    enc = ds.discretize()
    assert enc.X.shape == (300, 256) and len(enc.labels) == 10


@pytest.mark.slow  # a fresh interpreter: 1.2 s CPU
def test_samples_and_synthetic_import_one_way():
    """Issues 15 and 25: the registry imports synthetic for its generators, in plain sight; synthetic reads the
    optdigits images through fslab.data.shipped, never through samples, so there is no circle, hidden or not
    (tests/test_import_graph.py checks the whole package). One fresh interpreter imports synthetic first: fslab's
    ``__init__`` imports samples (which imports synthetic) before either, so "samples first" is the same order."""
    import subprocess
    import sys

    code = ("import importlib, sys; importlib.import_module('fslab.data.synthetic'); "
            "from fslab.data.samples import SAMPLES; print(SAMPLES['uniform'].load(m=10).shape)")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "(10, 25)"
    import inspect

    import fslab.data.samples
    from tests.test_import_graph import import_graph

    assert "import_module" not in inspect.getsource(fslab.data.samples)  # no import out of static analysis' sight
    edges = import_graph()[0]
    assert "fslab.data.synthetic" in edges["fslab.data.samples"]
    assert "fslab.data.samples" not in edges["fslab.data.synthetic"]
