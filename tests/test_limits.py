"""Every limit of fslab.limits: refused just above it with a message naming the limit and its FSLAB_* setting,
accepted exactly at it. Small Limits(...) instances keep the inputs tiny."""

from __future__ import annotations

import io
import json
import re
from dataclasses import fields
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from fslab.curves import count_fits, learning_curves
from fslab.data import Dataset, read_table
from fslab.data.data_checks import DataLimitError
from fslab.data.data_checks import Limits as ChecksLimits
from fslab.data.distributions import Distribution, example1
from fslab.data.safe_json import JSONInputError, loads
from fslab.data.synthetic import uniform_dataset
from fslab.errors import FslabError, ParameterError, TooLargeError
from fslab.limits import LIMITS, MB, Limits, limits_table, server_limits, setting
from fslab.npfs import npfs
from fslab.pena_nilsson.orderings import check_enumerable, subset_risks
from fslab.selectors import SELECTORS, select
from fslab.selectors._exhaustive import exhaustive_search


def table(rows: int, cols: int) -> bytes:
    """A CSV of ``rows`` data rows and ``cols`` columns (the last one a 0/1 target)."""
    header = ",".join(f"c{j}" for j in range(cols - 1)) + ",y"
    body = "\n".join(",".join(str((i + j) % 3) for j in range(cols - 1)) + f",{i % 2}" for i in range(rows))
    return (header + "\n" + body + "\n").encode()


def test_one_source_of_limits():
    assert ChecksLimits is Limits and LIMITS == server_limits()  # DESIGN.md's name: the server's limits, read on use
    import fslab.data
    import fslab.data.data_checks

    for module in (fslab.data, fslab.data.data_checks):  # the old re-exports are gone (0.x: no deprecation period)
        assert not hasattr(module, "LIMITS")
    assert SELECTORS["exhaustive"].params["max_subsets"] is None                   # None: read when it runs


@pytest.mark.parametrize("field", [f.name for f in fields(Limits)])
def test_from_env_reads_every_field(field):
    assert getattr(Limits.from_env({setting(field): "7"}), field) == 7
    with pytest.raises(ParameterError, match=setting(field)):
        Limits.from_env({setting(field): "0"})
    with pytest.raises(ParameterError, match="positive integer; got 'lots'"):
        Limits.from_env({setting(field): "lots"})


def test_limits_table_names_every_setting():
    rows = limits_table(Limits(max_rows=9))
    assert len(rows) == len(fields(Limits))
    assert {"limit": "rows", "value": 9, "bounds": "rows of a data table", "setting": "FSLAB_MAX_ROWS"} in rows


# --- tables: rows, columns, cells, field length, upload size -------------------------------------------------

@pytest.mark.parametrize("rows, cols, limits, fragment", [
    (6, 3, Limits(max_rows=5), "the data has 6 rows; the limit is 5 rows"),
    (2, 5, Limits(max_columns=4), "the header line has 5 columns; the limit is 4 columns"),
    (4, 4, Limits(max_cells=15), "the data has 16 cells (rows x columns); the limit is 15"),
])
def test_table_limits_in_read_table(rows, cols, limits, fragment):
    field = next(f.name for f in fields(Limits) if getattr(limits, f.name) != getattr(Limits(), f.name))
    with pytest.raises(DataLimitError, match=re.escape(fragment)) as info:
        read_table(table(rows, cols), limits=limits)
    assert setting(field) in str(info.value) and f"Limits({field}=...)" in str(info.value)
    at = Limits(**{field: getattr(limits, field) + 1 if field != "max_cells" else 16})
    assert read_table(table(rows, cols), limits=at).shape == (rows, cols)


@pytest.mark.parametrize("limits, fragment", [
    (Limits(max_rows=5), "the data has 6 rows; the limit is 5 rows"),
    (Limits(max_columns=2), "the data has 3 columns; the limit is 2 columns"),
    (Limits(max_cells=17), "the data has 18 cells"),
])
def test_table_limits_in_from_frame(limits, fragment):
    frame = pd.DataFrame({"a": range(6), "b": [1, 2] * 3, "y": [0, 1] * 3})
    with pytest.raises(DataLimitError, match=re.escape(fragment)):
        Dataset.from_frame(frame, "y", limits=limits)
    at = Limits(max_rows=6, max_columns=3, max_cells=18)
    assert Dataset.from_frame(frame, "y", limits=at).n_rows == 6


def test_field_length_header_and_cell():
    header = b"aaaaaaaaaa,y\n1,0\n2,1\n"                      # the first line has 12 characters
    with pytest.raises(DataLimitError, match="the first line has 12 characters; the limit is 11") as info:
        read_table(header, limits=Limits(max_field_chars=11))
    assert "FSLAB_MAX_FIELD_CHARS" in str(info.value)
    assert read_table(header, limits=Limits(max_field_chars=12)).shape == (2, 2)
    cell = b"a,y\n" + b"x" * 20 + b",0\nb,1\n"                  # a 20-character cell in data row 1
    with pytest.raises(DataLimitError, match="column 'a', data row 1, has 20 characters; the limit is 19"):
        read_table(cell, limits=Limits(max_field_chars=19))
    assert read_table(cell, limits=Limits(max_field_chars=20)).shape == (2, 2)


def test_upload_size_in_mb_of_a_million_bytes_as_streamlit(tmp_path):
    """One unit everywhere (issue 18): Streamlit's max_upload_size counts MB of 1,000,000 bytes, so fslab does."""
    assert MB == 1_000_000
    data = b"a,y\n" + b"1,0\n" * ((MB - 4) // 4) + b"2,1\n"    # a little over 1 MB (1,000,004 bytes)
    assert len(data) > MB
    path = tmp_path / "big.csv"
    path.write_bytes(data)
    for source in (data, path, io.BytesIO(data)):
        too_big = rf"the file has 1\.0 MB \({len(data):,} bytes\); the limit is 1 MB \(1,000,000 bytes\) per uploaded"
        with pytest.raises(DataLimitError, match=too_big) as info:
            read_table(source, limits=Limits(max_upload_mb=1))
        assert "FSLAB_MAX_UPLOAD_MB" in str(info.value)
    exact = b"a,y\n" + b"1,0\n" * ((MB - 8) // 4) + b"2,1\n"   # exactly 1 MB
    assert len(exact) == MB
    assert read_table(exact, limits=Limits(max_upload_mb=1, max_rows=300_000)).shape == (MB // 4 - 1, 2)


def test_streamlit_config_counts_the_same_megabytes():
    config = (Path(__file__).resolve().parents[1] / ".streamlit" / "config.toml").read_text()
    assert re.search(r"^maxUploadSize\s*=\s*(\d+)", config, re.M).group(1) == str(LIMITS.max_upload_mb)


# --- JSON distributions -------------------------------------------------------------------------------------

def test_json_size_and_depth_go_through_safe_json():
    text = example1().to_json()
    with pytest.raises(JSONInputError, match=f"the distribution JSON has {len(text):,} bytes; the limit is "
                                             f"{len(text) - 1:,}"):
        Distribution.from_json(text, limits=Limits(max_json_bytes=len(text) - 1))
    assert Distribution.from_json(text, limits=Limits(max_json_bytes=len(text))).n_features == 2
    with pytest.raises(JSONInputError, match="nests arrays/objects 3 levels deep; the limit is 2"):
        Distribution.from_json(text, limits=Limits(max_json_depth=2))      # {"states": [[...]]} is 3 deep
    assert Distribution.from_json(text, limits=Limits(max_json_depth=3)).n_features == 2


def test_json_states():
    dist = example1()                                              # 4 states
    with pytest.raises(TooLargeError, match="the distribution has 4 states; the limit is 3 states") as info:
        Distribution.from_json(dist.to_json(), limits=Limits(max_states=3))
    assert "FSLAB_MAX_STATES" in str(info.value)
    assert len(Distribution.from_json(dist.to_json(), limits=Limits(max_states=4)).states) == 4


def test_safe_json_limits_named():
    with pytest.raises(JSONInputError, match="FSLAB_MAX_JSON_BYTES"):
        loads("[1, 2]", limits=Limits(max_json_bytes=5))
    assert loads("[1, 2]", limits=Limits(max_json_bytes=6)) == [1, 2]


# --- work: exhaustive subsets, lattices, bootstraps, learning-curve fits --------------------------------------

def test_exhaustive_subsets():
    data = uniform_dataset(m=60, n_features=6, k_star=2, seed=0).discretize()     # C(6, 2) = 15 subsets
    with pytest.raises(TooLargeError, match="all 15 subsets of size k=2 .* max_subsets=14") as info:
        select(data, 2, "exhaustive", max_subsets=14)
    assert "FSLAB_MAX_EXHAUSTIVE_SUBSETS" in str(info.value)
    assert len(select(data, 2, "exhaustive", max_subsets=15).features) == 2
    assert exhaustive_search.__defaults__[0] is None  # the server's max_exhaustive_subsets, read when called


def test_lattice_size():
    with pytest.raises(TooLargeError, match=r"4 features have 2\^4 = 16 subsets; .* limited to 3 features") as info:
        check_enumerable(4, 3)
    assert "FSLAB_MAX_LATTICE_FEATURES" in str(info.value)
    check_enumerable(3, 3)
    dist = example1()
    with pytest.raises(TooLargeError):
        subset_risks(dist, max_features=1)
    assert len(subset_risks(dist, max_features=2)) == 4


def test_bootstraps():
    data = uniform_dataset(m=80, n_features=5, k_star=2, seed=1).discretize()
    with pytest.raises(TooLargeError, match="n_bootstraps=4; the limit is 3 NPFS bootstraps per run") as info:
        npfs(data, "mi-score", k=2, n_bootstraps=4, seed=0, limits=Limits(max_bootstraps=3))
    assert "FSLAB_MAX_BOOTSTRAPS" in str(info.value)
    assert npfs(data, "mi-score", k=2, n_bootstraps=3, seed=0, limits=Limits(max_bootstraps=3)).n_bootstraps == 3


def test_count_fits():
    assert count_fits(5, 2, 10) == 100
    assert count_fits(5, 2, 10, grid_size=3) == 400                 # 3 grid points on held-out rows + the refit
    assert count_fits(5, 2, 10, grid_size=1) == 100


def test_learning_curve_fits():
    data = uniform_dataset(m=120, n_features=4, k_star=2, seed=2).discretize()
    args = {"selectors": ("mi-greedy",), "k_max": 3, "n_splits": 2}  # 2 splits x 1 selector x 3 k = 6 fits
    with pytest.raises(TooLargeError, match="= 6 learner fits; the limit is 5 learner fits") as info:
        learning_curves(data, limits=Limits(max_curve_fits=5), **args)
    assert "FSLAB_MAX_CURVE_FITS" in str(info.value)
    assert learning_curves(data, limits=Limits(max_curve_fits=6), **args).complete


def test_every_limit_error_is_a_fslab_error():
    for err in (DataLimitError, JSONInputError, TooLargeError):
        assert issubclass(err, FslabError)


def test_over_limit_large_json_is_refused_before_parsing():
    huge = json.dumps({"states": [[i] for i in range(10)], "probs": [[0.05, 0.05]] * 10})
    with pytest.raises(JSONInputError):
        Distribution.from_json(huge, limits=Limits(max_json_bytes=50))
    assert np.isclose(Distribution.from_json(huge, limits=Limits(max_states=10)).probs.sum(), 1.0)


def test_shipped_samples_fit_whatever_the_table_limits(monkeypatch):
    import fslab.data.samples as samples

    for name, value in (("FSLAB_MAX_ROWS", "10"), ("FSLAB_MAX_COLUMNS", "3"), ("FSLAB_MAX_CELLS", "30")):
        monkeypatch.setenv(name, value)
    server_limits.cache_clear()  # a server started with these settings
    try:
        frame = samples.read_sample_frame("mushroom")
        with pytest.raises(DataLimitError, match="the limit is 10 rows"):
            Dataset.from_frame(frame, "class", limits=server_limits())
        assert samples.load_sample("mushroom").n_rows == 8124
        assert samples.sample_limits(frame).max_rows == 8124 and samples.sample_limits(frame).max_json_depth == 16
    finally:
        server_limits.cache_clear()


def test_every_app_cache_is_bounded_by_limits():
    from ui.cache import BOUNDED

    assert BOUNDED == {"max_entries": LIMITS.cache_entries, "max_size": f"{LIMITS.cache_mb}MB"}
    root = Path(__file__).resolve().parents[1] / "ui"
    decorators = [line.strip() for path in root.glob("*.py") for line in path.read_text().splitlines()
                  if line.strip().startswith("@st.cache_data")]
    assert len(decorators) >= 15
    explicit = [int(m.group(1)) for d in decorators if (m := re.search(r"max_entries=(\d+)", d))]
    assert [d for d in decorators if "**BOUNDED" not in d and "max_entries=" not in d] == []
    assert all(n <= LIMITS.cache_entries for n in explicit)          # a few tiny caches set their own bound
    assert sum("**BOUNDED" in d for d in decorators) >= 15


def test_app_shows_the_limits_and_bounds_the_widgets():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=60).run()
    assert not at.exception
    at.session_state["home.limits"] = True  # Home draws the table only when its expander is opened (issue 16)
    at.run()
    box = next(e for e in at.expander if e.label == "Limits of this server")
    shown = box.dataframe[0].value
    assert list(shown["setting"]) == [row["setting"] for row in limits_table()]
    assert "FSLAB_MAX_ROWS" in box.caption[0].value
    at.switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    assert at.file_uploader(key="data_upload").proto.max_upload_size_mb == LIMITS.max_upload_mb


def test_sampled_rows_and_long_column_names():
    dist = example1()
    with pytest.raises(DataLimitError, match="the data has 6 rows; the limit is 5 rows"):
        dist.sample(6, seed=0, limits=Limits(max_rows=5))
    assert dist.sample(5, seed=0, limits=Limits(max_rows=5)).X.shape == (5, 2)
    frame = pd.DataFrame({"n" * 12: [1, 2], "y": [0, 1]})
    with pytest.raises(DataLimitError, match="column name 'nnnnnnnnnnnn'... has 12 characters; the limit is 11"):
        Dataset.from_frame(frame, "y", limits=Limits(max_field_chars=11))
    assert Dataset.from_frame(frame, "y", limits=Limits(max_field_chars=12)).n_features == 1


# --- library vs server (issue 13.1): the library takes no size caps; the app and the command line pass LIMITS ----

@pytest.mark.slow  # 6,000 x 5,000 and 1,000,000 x 60 arrays: about 2 s CPU, 0.3 GB
def test_library_defaults_take_the_papers_shapes_and_more():
    """6,000 x 5,000 (Gisette: over LIMITS' columns) and 1,000,000 x 60 (over its rows and cells) with default
    arguments."""
    rng = np.random.default_rng(0)
    X = (rng.random((6000, 5000), dtype=np.float32) < 0.2).astype(np.uint8)
    X[:, ::7] *= 3    # some columns with values 0 and 3 (codes 0, 1)
    enc = Dataset.from_arrays(X, np.arange(6000) % 2).discretize()
    assert enc.shape == (6000, 5000) and enc.X.dtype == np.uint8 and enc.arities.max() == 2
    assert enc.X[:, 7].tolist() == (X[:, 7] > 0).astype(int).tolist()
    del X, enc
    tall = rng.random((1_000_000, 60), dtype=np.float32) < 0.5
    assert tall.size > LIMITS.max_cells and len(tall) > LIMITS.max_rows
    enc = Dataset.from_arrays(tall, np.arange(1_000_000) % 3).discretize()
    assert enc.shape == (1_000_000, 60) and enc.X.dtype == np.uint8 and enc.task == "multiclass"
    assert np.array_equal(enc.X[:1000], tall[:1000]) and enc.values is None   # bool codes are the values


def test_library_refuses_only_what_cannot_fit_in_memory(monkeypatch):
    from fslab import limits as limits_module
    from fslab.limits import NotEnoughMemoryError

    monkeypatch.setattr(limits_module, "available_memory", lambda: 1000)
    # values 2, not codes 0 .. a-1: the codes need their own array (an array of codes would be viewed, no memory)
    ds = Dataset.from_arrays(np.full((100, 20), 2, dtype=np.uint8), np.arange(100) % 2)
    with pytest.raises(NotEnoughMemoryError, match=r"the codes of 100 x 20 cells need about 0\.00 GB of memory, but "
                                                   r"only 0\.00 GB is available; use fewer rows or columns"):
        ds.discretize()
    assert issubclass(NotEnoughMemoryError, TooLargeError)


def _wide_csv(cols: int) -> bytes:
    return (",".join(f"c{j}" for j in range(cols)) + ",y\n" + ",".join("1" for _ in range(cols)) + ",0\n"
            + ",".join("0" for _ in range(cols)) + ",1\n").encode()


def test_app_upload_path_keeps_the_server_limits():
    """The Data page parses an upload with ui.data.upload_frame and builds it with ui.data.inspect/prepare."""
    from ui.data import inspect, upload_frame

    message = (f"the header line has {LIMITS.max_columns + 1:,} columns; the limit is {LIMITS.max_columns:,} "
               "columns of a data table (columns limit: a server sets it with FSLAB_MAX_COLUMNS")
    with pytest.raises(DataLimitError, match=re.escape(message)):
        upload_frame(_wide_csv(LIMITS.max_columns))
    assert read_table(_wide_csv(LIMITS.max_columns)).shape == (2, LIMITS.max_columns + 1)   # the library: no cap
    wide = LIMITS.max_columns + 1
    frame = pd.DataFrame(np.zeros((2, wide)), columns=[f"c{j}" for j in range(wide)])
    frame["c0"] = [0, 1]
    with pytest.raises(DataLimitError, match=re.escape(f"the data has {LIMITS.max_columns + 1:,} columns; the limit")):
        inspect(frame, "upload:test-wide", "c0")


def test_command_line_keeps_the_server_limits(tmp_path):
    from fslab.cli.sources import load_csv

    path = tmp_path / "wide.csv"
    path.write_bytes(_wide_csv(LIMITS.max_columns))
    with pytest.raises(DataLimitError, match="FSLAB_MAX_COLUMNS"):
        load_csv(str(path), None, None, "mean-std", 3)
