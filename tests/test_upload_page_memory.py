"""What the Data page holds of an upload (issue 32's last goal): its codes made in the capped worker come back
without a copy of the raw features (fslab.data.upload.bare_codes / with_raw) and equal ds.discretize's; the copy of
the uploaded file that st.file_uploader returns on each run shares the file's bytes (ui.data.share_uploaded_bytes)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pandas as pd
import pytest

from fslab.data import Dataset
from fslab.data.upload import bare_codes, with_raw


def _numeric() -> Dataset:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(size=(200, 3)).round(3), columns=["a", "b", "c"])
    frame["y"] = rng.integers(0, 2, 200)
    return Dataset.from_frame(frame, "y")


def _mixed() -> Dataset:
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"t": rng.choice(["red", "green", "blue"], 200), "v": rng.normal(size=200).round(3),
                          "k": rng.integers(0, 4, 200), "y": rng.choice(["yes", "no"], 200)})
    return Dataset.from_frame(frame, "y")


@pytest.mark.parametrize("make", [_numeric, _mixed])
@pytest.mark.parametrize("method, bins", [("auto", 3), ("quantile", 4), ("uniform", 5)])
def test_codes_made_elsewhere_equal_discretize_and_hold_this_datasets_raw_values(make, method, bins):
    ds = make()
    here = ds.discretize(method, bins)
    answer = pickle.loads(pickle.dumps(bare_codes(ds, method, bins), protocol=5))   # as it comes from the worker
    assert answer[0]._raw is None and answer[1] == here.has_values
    got = with_raw(ds, answer)
    assert got == here   # codes, arities, labels, names, categories, plan's fields and raw values
    assert got.categories == here.categories and got.notes == here.notes
    if here.has_values:   # the raw source is this Dataset's own (its array, else its features), not a copy
        if ds.array is not None:   # kept as a read-only view of the array
            assert np.shares_memory(got._raw, ds.array)
        else:
            assert got._raw is ds.features
        np.testing.assert_array_equal(got.values, here.values)


@pytest.mark.slow   # imports streamlit (ui.data)
def test_the_uploaders_copy_shares_the_files_bytes():
    from streamlit.proto.Common_pb2 import FileURLs
    from streamlit.runtime.uploaded_file_manager import UploadedFile, UploadedFileRec

    from ui.data import share_uploaded_bytes

    data = bytes(range(256)) * 4096   # 1 MiB
    stored = UploadedFile(UploadedFileRec("id-1", "f.csv", "text/csv", data), FileURLs())
    stored.seek(10)
    share_uploaded_bytes()
    share_uploaded_bytes()   # idempotent
    twin = copy.deepcopy(stored)
    assert twin.getvalue() is data and twin.tell() == 10
    assert (twin.file_id, twin.name, twin.type, twin.size) == ("id-1", "f.csv", "text/csv", len(data))
    assert isinstance(twin, UploadedFile) and twin == stored
    twin.seek(0)
    twin.write(b"changed")   # a write copies (BytesIO's copy-on-write): neither the file nor the original change
    assert twin.getvalue()[:7] == b"changed" and data[:7] == bytes(range(7)) and stored.getvalue() is data


@pytest.mark.slow   # 1.6 s: five typings
def test_text_kept_as_categoricals_reads_like_the_plain_table():
    """compact's categoricals (fslab.data.upload.compact) change where text is stored, not what it says: the same
    plan, codes, summary and one-class alerts as the table typed as read, and the same Dataset when the compact
    table is typed again with an override or without a column (the Data page's retyping)."""
    import warnings

    from fslab.alerts import one_class_alerts
    from fslab.data.csv_io import read_table
    from fslab.data.upload import read_upload, typed_dataset

    rng = np.random.default_rng(5)
    n = 90
    frame = pd.DataFrame({"colour": rng.choice(["red", "green", None], n), "size": rng.choice(["S", "M", "L"], n),
                          "when": [f"2021-01-{i % 28 + 1:02d}" for i in range(n - 6)] + ["soon"] * 6,
                          "v": rng.normal(size=n).round(2), "y": rng.choice(["yes", "no"], n)})
    data = frame.to_csv(index=False).encode()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        up, plain = read_upload(data), read_table(data)
        assert isinstance(up.base.features["colour"].dtype, pd.CategoricalDtype)
        for types, drop in [((), []), ((("size", "category"),), []), ((), ["colour"]), ((("when", "category"),), [])]:
            a = typed_dataset(plain.drop(columns=drop), "y", types)
            b = typed_dataset(up.frame.drop(columns=drop), "y", types)
            assert a.plan.describe() == b.plan.describe()
            coded, again = a.discretize(), b.discretize()
            assert (coded.X == again.X).all() and coded.categories == again.categories
            assert a.summary().equals(b.summary()) and one_class_alerts(a) == one_class_alerts(b)
        base = typed_dataset(plain, "y")
        assert (base.discretize().X == up.base.discretize().X).all() and base.summary().equals(up.base.summary())
        assert up.frame["colour"].isna().sum() == frame["colour"].isna().sum()


@pytest.mark.slow   # the Data page in AppTest
def test_the_page_keeps_the_uploaded_bytes_without_a_copy():
    """Through reruns (a binning change), the kept upload is the file manager's own bytes object (here the test's:
    AppTest registers it as given), not a copy made by the uploader's per-run deep copy."""
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    from ui.data import PENDING

    rng = np.random.default_rng(6)
    table = pd.DataFrame(rng.normal(size=(3000, 4)).round(4), columns=list("abcd"))
    table["y"] = rng.integers(0, 2, 3000)
    content = table.to_csv(index=False).encode()
    at = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=120).run()
    at.switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value(("t.csv", content, "text/csv")).run()
    at.selectbox(key="data_method").set_value("quantile").run()
    assert not at.exception and not at.error, [e.value for e in (*at.exception, *at.error)]
    assert at.session_state[PENDING].data is content
