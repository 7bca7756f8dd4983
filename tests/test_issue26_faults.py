"""Issue 26, item 7: faults end in a message naming their cause. A damaged shipped sample is named (library, CLI,
app); an invalid FSLAB_* value is refused before any page runs, naming the setting; the library's edge calls
(subsets that are not index lists, npfs seeds, n_jobs and absurd n_bootstraps, F-beta with an enormous beta) end in
a specific FslabError or a result, never a raw exception."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from fslab import Dataset, bayes_value, measure, npfs
from fslab.data import samples
from fslab.errors import DataError, FslabError, ParameterError, TooLargeError
from fslab.limits import check_server_settings, server_limits
from fslab.tables import check_subset
from tests.conftest import ROOT

APP = str(ROOT / "app.py")


@pytest.fixture
def damaged(tmp_path, monkeypatch):
    """A copy of sample_data/ whose mushroom file (the app's default) is cut in half."""
    for f in samples.sample_data_dir().iterdir():
        shutil.copy(f, tmp_path)
    whole = (tmp_path / "mushroom.csv.gz").read_bytes()
    (tmp_path / "mushroom.csv.gz").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "splice.csv.gz").write_bytes(b"not gzip at all")
    (tmp_path / "pcmac.npz").write_bytes(b"PK\x03\x04 not a zip")
    monkeypatch.setattr(samples, "sample_data_dir", lambda: tmp_path)
    st.cache_data.clear()
    st.cache_resource.clear()  # ui.cache.sample_encoded keeps the loaded samples as a resource
    yield tmp_path
    st.cache_data.clear()
    st.cache_resource.clear()


@pytest.mark.parametrize("name, file", [("mushroom", "mushroom.csv.gz"), ("splice", "splice.csv.gz"),
                                        ("pcmac", "pcmac.npz")])
def test_a_damaged_sample_names_its_file(damaged, name, file):
    with pytest.raises(DataError) as err:
        samples.load_sample(name)
    text = str(err.value)
    assert f"sample_data/{file}" in text and "damaged" in text and "tools/make_samples.py" in text
    assert str(damaged) not in text  # the server's directory stays private


def test_the_cli_names_the_damaged_file(damaged, capsys):
    from fslab.cli import main
    assert main(["select", "mushroom", "--k", "2"]) == 1
    err = capsys.readouterr().err
    assert "internal error" not in err and "sample_data/mushroom.csv.gz" in err and "damaged" in err


def test_the_app_names_the_damaged_default_sample_and_keeps_running(damaged):
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    errors = " ".join(e.value for e in at.error)
    assert "sample\\_data/mushroom.csv.gz" in errors or "sample_data/mushroom.csv.gz" in errors
    at.switch_page("pages/toy.py").run()     # the pages that need no data set still work
    assert not at.exception


@pytest.fixture
def env(monkeypatch):
    def setter(**values):
        for key, value in values.items():
            monkeypatch.setenv(key, value)
        server_limits.cache_clear()
    yield setter
    monkeypatch.undo()
    server_limits.cache_clear()


@pytest.mark.parametrize("setting, value", [("FSLAB_MAX_ROWS", "abc"), ("FSLAB_MAX_BOOTSTRAPS", "-3"),
                                            ("FSLAB_CACHE_MB", "1.5"), ("FSLAB_DASK_SCHEDULER", "tcp://host:99999"),
                                            ("FSLAB_DASK_SCHEDULER", "tcp:/no slash"),
                                            ("FSLAB_DASK_SCHEDULER", "ucx://host:8786")])
def test_an_invalid_setting_is_refused_before_any_page_naming_it(env, setting, value):
    env(**{setting: value})
    with pytest.raises(ParameterError, match=setting):
        check_server_settings()
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(at.error) == 1 and setting in at.error[0].value and "no page can run" in at.error[0].value
    assert not at.title and not at.get("plotly_chart")


def test_valid_settings_pass():
    assert check_server_settings({"FSLAB_MAX_ROWS": "500", "FSLAB_DASK_SCHEDULER": "tcp://10.0.0.2:8786"}).max_rows \
        == 500
    assert check_server_settings({"FSLAB_DASK_SCHEDULER": "scheduler:8786"}).max_rows == 200_000


@pytest.fixture(scope="module")
def ds():
    rng = np.random.default_rng(0)
    return Dataset.from_arrays(rng.integers(0, 3, (60, 3)), rng.integers(0, 2, 60), feature_names=["a", "b", "c"])


@pytest.mark.parametrize("subset, words", [(["a"], "not 'a'"), (0, "list of feature indices"), ([0.5], "0.5"),
                                           ([True], "not True"), ("ab", "list of feature indices"),
                                           (None, "list of feature indices"), ([[0]], "[0]")])
def test_check_subset_says_what_is_wrong(subset, words):
    with pytest.raises(ParameterError, match="subset") as err:
        check_subset(subset, 3)
    assert words in str(err.value)
    assert check_subset([np.int64(2), 1.0], 3) == (2, 1)


@pytest.mark.parametrize("subset", [["a"], 0, [0.5]])
def test_bayes_value_refuses_what_is_not_an_index_list(ds, subset):
    with pytest.raises(ParameterError):
        bayes_value(ds, subset)


@pytest.mark.parametrize("kwargs, error, words", [
    ({"seed": -1}, ParameterError, "seed"), ({"seed": "x"}, ParameterError, "seed"),
    ({"n_jobs": 0}, ParameterError, "n_jobs"), ({"n_jobs": 1.5}, ParameterError, "n_jobs"),
    ({"n_bootstraps": 2.5}, ParameterError, "n_bootstraps"),
    ({"n_bootstraps": 10**12}, TooLargeError, "bootstraps"),
])
def test_npfs_arguments_end_in_a_specific_error(ds, kwargs, error, words):
    with pytest.raises(error, match=words):
        npfs(ds, "bayes-greedy", 1, **{"n_bootstraps": 3, "seed": 0, **kwargs})


def test_npfs_keeps_accepting_what_joblib_and_numpy_take(ds):
    for kwargs in ({"n_jobs": -1}, {"n_jobs": None}, {"seed": np.random.default_rng(1)}, {"n_bootstraps": 3.0}):
        assert npfs(ds, "bayes-greedy", 1, **{"n_bootstraps": 3, "seed": 0, **kwargs}).n_bootstraps == 3


def test_f_beta_never_overflows(ds):
    with np.errstate(all="raise"):
        big = bayes_value(ds, [0], measure("f-beta", beta=1e100))
        small = bayes_value(ds, [0], measure("f-beta", beta=1e-100))
    assert big == pytest.approx(1.0) and 0 < small <= 1  # all-positive classifier; the best precision
    for beta in (1e154, 1e200, 1e-200):
        with pytest.raises(ParameterError, match="beta must lie in"):
            measure("f-beta", beta=beta)
    assert bayes_value(ds, [0], measure("f-beta", beta=2.0)) == pytest.approx(
        bayes_value(ds, [0], measure("f-beta", beta=2)))
    assert issubclass(ParameterError, FslabError)
