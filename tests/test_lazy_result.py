"""Selection's trace and alerts are made on first read (issue 35: a third of a small select's fixed cost), and are
then the same as made at once: the trace's rows, the code alerts, a pickled copy, dataclasses.replace."""

import dataclasses
import pickle

import numpy as np
import pandas as pd

import fslab
from fslab.alerts import code_alerts
from fslab.selectors._result import Deferred, build_trace


def _data():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 120)
    X = rng.integers(0, 4, (120, 6)).astype(np.uint8)
    X[:, 4] = y  # a copy of the target: one function-of-target alert when chosen
    return fslab.Dataset.from_arrays(X, y).discretize()


def test_trace_and_alerts_wait_for_a_read_then_stay():
    d = _data()
    sel = fslab.select(d, 3, selector="cmim")
    assert isinstance(sel.__dict__["_trace"], Deferred) and isinstance(sel.__dict__["_alerts"], Deferred)
    trace = sel.trace
    assert isinstance(trace, pd.DataFrame) and sel.trace is trace  # made once
    assert list(trace.columns) == ["step", "candidate", "name", "value", "chosen", "n_tied", "tied"]
    assert len(trace) == 6 + 5 + 4  # every candidate of the three steps
    assert trace.loc[trace["chosen"], "candidate"].tolist() == list(sel.features)
    assert sel.features[0] == 4
    assert sel.alerts == code_alerts(d, sel.features)
    assert [a.kind for a in sel.alerts] == ["function-of-target"]


def test_pickle_and_replace_carry_the_made_values():
    d = _data()
    sel = fslab.select(d, 2, selector="jmi")
    copy = pickle.loads(pickle.dumps(sel))
    assert not any(isinstance(v, Deferred) for v in copy.__dict__.values())  # no source travels in the pickle
    assert copy.alerts == code_alerts(d, sel.features)
    pd.testing.assert_frame_equal(copy.trace, sel.trace)
    assert dataclasses.replace(sel, k=1).trace is sel.trace


def test_an_empty_log_gives_the_typed_empty_trace():
    from fslab.selectors._loop import SearchLog

    empty = build_trace(SearchLog(), ())
    assert len(empty) == 0 and str(empty["value"].dtype) == "float64" and str(empty["chosen"].dtype) == "bool"
