"""One rule for a data descriptor (issue 25.1): links, recipes and the app's sample cache load a sample's
descriptor the same way (fslab.recipe.plain_sample). Before, a sample with column types or a missing-value rule but
no target took the plain-sample shortcut in fslab.recipe.load_dataset and in ui/share.py and lost them."""

import pytest

from fslab.recipe import load_dataset, plain_sample


@pytest.mark.parametrize("data,plain", [({"sample": "waveform"}, True),
                                        ({"sample": "waveform", "method": "quantile", "bins": 5}, True),
                                        ({"sample": "waveform", "types": ["wave1=drop"]}, False),
                                        ({"sample": "waveform", "missing": "drop"}, False),
                                        ({"sample": "waveform", "exclude": ["wave2"]}, False),
                                        ({"file": "a.csv", "sha256": "0" * 64}, False), (None, False)])
def test_plain_sample_is_a_sample_with_only_its_discretisation(data, plain):
    assert plain_sample(data) is plain


def test_a_samples_column_types_are_applied():
    whole = load_dataset({"sample": "waveform"})
    dropped = load_dataset({"sample": "waveform", "types": ["wave1=drop"]})
    assert dropped.n_features == whole.n_features - 1 and "wave1" not in dropped.feature_names
