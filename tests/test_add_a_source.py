"""Adding a data source takes two files (issue 36.3): tests/toy_rows_source.py, a count-only source over Python dict
rows with its opener, and its registration (``register_source`` in the process, or an entry point of the group
``fslab.sources``: the ``entry_points.txt`` an installed package's pyproject.toml writes). The source takes the
plan's rules (typing, IDs, constant columns, the target) and the folds of row_hash from the library, counts its own
tables, and then selects, evaluates and holds out exactly as the in-memory engine does on the same rows, from the
library (``open_source("rows:PATH")``), the command line (``python -m fslab select rows:PATH``, or a ``.jsonl`` file)
and the app (a ``.jsonl`` upload, then the Select page)."""

from __future__ import annotations

import contextlib
import io
import json
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import fslab
from fslab import row_hash
from fslab.cli.main import main
from fslab.compare import compare_selectors
from fslab.data import registry
from fslab.data.registry import UnknownSourceError, open_source, register_source, unregister_source
from fslab.measures.cross_fit import FoldCounting, can_hold_out
from tests.conftest import ROOT
from tests.toy_rows_source import RowsSource, open_rows

pytestmark = pytest.mark.slow   # the module fixture types 300 exported rows twice: about 1 s


def _rows(m: int = 300) -> list[dict]:
    """An export: an ID, a plan level, amounts with "$" and thousands commas, a percentage, an ISO date, a
    constant column, a count, and churn that depends on the plan and the calls."""
    rng = np.random.default_rng(0)
    calls = rng.integers(0, 6, m)
    return [{"id": f"C{i:04d}", "plan": ("basic", "pro", "max")[i % 3], "spend": f"${rng.gamma(2, 700):,.2f}",
             "rate": f"{rng.integers(1, 100)}%", "signup": f"2021-{1 + i % 12:02d}-{1 + i % 27:02d}", "region": "EU",
             "calls": int(calls[i]), "churn": "yes" if rng.random() < 0.15 + 0.1 * (i % 3) + 0.08 * calls[i] else "no"}
            for i in range(m)]


@pytest.fixture(scope="module")
def both():
    rows = _rows()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # the ID and the constant column are said, and left out, by both
        return RowsSource(rows, "churn", chunk=64), fslab.Dataset.from_frame(pd.DataFrame(rows), "churn").discretize()


def test_the_plan_reads_it_as_memory_does(both):
    src, mem = both
    assert src.feature_names == mem.feature_names == ("plan", "spend", "rate", "signup", "calls")   # no id, region
    assert src.arities.tolist() == mem.arities.tolist()
    assert [c.type for c in src.plan.kept] == [c.type for c in mem.plan.kept]   # "$1,234.50", "62%", dates read
    assert src.plan.target.positive == "yes" and src.table([]).counts.ravel().tolist() == \
        mem.table([]).counts.ravel().tolist()


@pytest.mark.parametrize(("selector", "measure"), [("bayes-greedy", "zero-one"), ("bayes-greedy", "balanced"),
                                                   ("jmi", None), ("mrmr", None)])
def test_the_library_selects_and_evaluates_it_as_memory_does(both, selector, measure):
    src, mem = both
    params = {"measure": measure} if measure else {}
    a, b = fslab.select(src, 3, selector, **params), fslab.select(mem, 3, selector, **params)
    assert list(a.features) == list(b.features)
    np.testing.assert_allclose(a.scores, b.scores, atol=1e-12)
    for name in ("zero-one", "balanced", "mi"):
        assert fslab.criterion(src, list(a.features), name) == pytest.approx(
            fslab.criterion(mem, list(a.features), name), abs=1e-12)


def test_it_is_held_out_through_the_count_only_seam(both):
    src, mem = both
    assert isinstance(src, FoldCounting) and can_hold_out(src)
    a = fslab.select(src, 3, "bayes-greedy", measure="balanced", estimate="cross-fitted")
    b = fslab.select(mem, 3, "bayes-greedy", measure="balanced", estimate="cross-fitted")
    assert list(a.features) == list(b.features)
    np.testing.assert_allclose(a.scores, b.scores, atol=1e-12)
    held = fslab.measure("zero-one").on(src, estimate="cross-fitted", folds=4, seed=3)
    ref = fslab.measure("zero-one").on(mem, estimate="cross-fitted", folds=4, seed=3)
    assert held.value([0, 4]) == pytest.approx(ref.value([0, 4]), abs=1e-12)


# ---- registered: the library, the command line, the app ------------------------------------------------------

@pytest.fixture(scope="module")
def export(tmp_path_factory):
    """The rows as a JSON lines file, and the same rows in memory coded as the command line codes a user's file
    (robust bins, "auto")."""
    path = tmp_path_factory.mktemp("rows") / "export.jsonl"
    rows = _rows()
    path.write_text("\n".join(json.dumps(r) for r in rows))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return path, fslab.Dataset.from_frame(pd.DataFrame(rows), "churn").discretize("auto")


@pytest.fixture
def registered():
    """The registration, the second file of a real source (here in the test): a scheme and a suffix."""
    kinds = [register_source("rows", open_rows), register_source(".jsonl", open_rows)]
    yield kinds
    for kind in kinds:
        unregister_source(kind.name)


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_the_library_opens_it_by_scheme_and_by_suffix(registered, export):
    path, mem = export
    by_scheme, by_suffix = open_source(f"rows:{path}"), open_source(str(path), target="churn")
    assert isinstance(by_scheme, RowsSource) and isinstance(by_suffix, RowsSource)
    assert by_scheme.target == "churn"   # the last key of a row, as the last column of a CSV
    assert by_scheme.feature_names == by_suffix.feature_names == mem.feature_names
    assert by_scheme.arities.tolist() == mem.arities.tolist()   # robust bins ("auto") by default, as a user's CSV
    a = fslab.select(by_scheme, 3, "bayes-greedy", measure="balanced", estimate="cross-fitted")
    b = fslab.select(mem, 3, "bayes-greedy", measure="balanced", estimate="cross-fitted")
    assert list(a.features) == list(b.features)
    np.testing.assert_allclose(a.scores, b.scores, atol=1e-12)


@pytest.mark.parametrize("spec", ["rows:{path}", "{path}"])
def test_the_command_line_selects_it_as_memory_does(registered, export, spec):
    path, mem = export
    code, out, err = _cli("select", spec.format(path=path), "--k", "3", "--json", "-q")
    assert code == 0, err
    doc = json.loads(out)
    expected = fslab.select(mem, 3, "bayes-greedy", estimate="cross-fitted")   # held out: the user's own data
    assert doc["features"] == list(expected.features) and doc["estimate"] == "cross-fitted"
    np.testing.assert_allclose(doc["scores"], expected.scores, atol=1e-12)
    assert doc["data"] == {"kind": "dataset", "name": spec.format(path=path if "rows:" in spec else path.name),
                           "features": 5, "rows": 300, "task": "binary", "target": "churn", "positive": "yes"}


def _install(tmp_path, monkeypatch) -> None:
    """A package that declares the source by entry point (the entry_points.txt pip writes from its pyproject.toml's
    [project.entry-points."fslab.sources"]), on this process's path: installed, registered nowhere in code."""
    info = tmp_path / "toy_rows-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-rows\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[fslab.sources]\nrows = tests.toy_rows_source:open_rows\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    monkeypatch.delitem(sys.modules, "tests.toy_rows_source")


def test_an_installed_source_is_imported_when_named_and_selects(export, tmp_path, monkeypatch):
    """The command line finds the installed source by its entry point, importing its module only when DATA names
    it, and picks what memory picks."""
    path, mem = export
    _install(tmp_path, monkeypatch)
    assert "rows" in registry.names() and registry.find("other.csv") is None
    assert "tests.toy_rows_source" not in sys.modules   # listed, not imported
    code, out, err = _cli("select", f"rows:{path}", "--k", "3", "--measure", "balanced", "--json", "-q")
    assert code == 0, err
    assert "tests.toy_rows_source" in sys.modules
    expected = fslab.select(mem, 3, "bayes-greedy", measure="balanced", estimate="cross-fitted")
    assert json.loads(out)["features"] == list(expected.features)


def test_bad_names_and_specs_are_said(registered, export, tmp_path):
    path, _ = export
    with pytest.raises(UnknownSourceError, match=r"no data source 'nope'.*the sources are rows, \.jsonl"):
        open_source("nope:x")
    code, _, err = _cli("select", "nope:x", "-q")
    assert code == 1 and "no data source 'nope'" in err and "fslab.sources" in err
    with pytest.raises(UnknownSourceError, match="needs a location after 'rows:'"):
        open_source("rows:")
    with pytest.raises(fslab.DataError, match=r"the source 'rows' \(Rows as JSON lines.*could not read.*No such file"):
        open_source(f"rows:{tmp_path / 'gone.jsonl'}")
    (tmp_path / "bad.jsonl").write_text('{"a": 1}\nnot json\n')
    with pytest.raises(fslab.DataError, match="could not read .*bad.jsonl.*Expecting value"):
        open_source(str(tmp_path / "bad.jsonl"))
    with pytest.raises(fslab.DataError, match="counts a binary target; 'plan' is not one"):   # the source's own
        open_source(f"rows:{path}", target="plan")
    code, _, err = _cli("select", f"rows:{path}", "--sql", "--split", "median", "-q")
    assert code == 1 and "--sql, --split do not apply" in err and "reads and types its own rows" in err
    for name in ("sample", "C", "Rows", "rows"):   # fslab's own prefix, a drive letter, upper case, taken
        with pytest.raises(fslab.ParameterError, match=f"source (name )?'{name}'"):
            register_source(name, open_rows)
    with pytest.raises(fslab.ParameterError, match=r"the opener must be a function opener\(location, \*, target"):
        register_source("short", lambda location: location)   # it could not take the options
    register_source("junk", lambda location, **options: [location])
    try:
        with pytest.raises(fslab.ParameterError, match="'junk' returned a list, not a table source: it lacks"):
            open_source("junk:x")
    finally:
        unregister_source("junk")


def test_a_file_named_with_a_colon_stays_a_file(registered, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "nope:x.csv").write_text("a,y\n0,no\n1,yes\n0,no\n1,yes\n0,no\n1,yes\n")
    assert registry.scheme_of("C:\\data.csv") is None and registry.scheme_of("nope:x.csv") == "nope"
    code, out, err = _cli("select", "nope:x.csv", "--k", "1", "--estimate", "plug-in", "-q")
    assert code == 0 and "selected: a" in out, err
    code, out, err = _cli("select", "nope:y.csv", "--k", "1", "-q")   # no such file and no such source
    assert code == 1 and "no such file: 'nope:y.csv', and no data source 'nope': the sources are rows" in err


def _upload_widget():
    """The Data page's reading of an upload named for a registered source (ui.source.registered_upload)."""
    import streamlit as st

    from ui.source import registered_upload

    st.write(registered_upload("export.jsonl", st.session_state["toy_bytes"]))


def test_the_app_takes_it_as_an_upload_and_selects_on_it(registered, export):
    """A .jsonl upload is read by the registered source (in the capped worker every upload is read in), "Use this
    dataset" makes its codes the current dataset, and the Select page picks what the library picks on the source."""
    from streamlit.testing.v1 import AppTest

    from ui import state

    path, _ = export
    at = AppTest.from_function(_upload_widget, default_timeout=90)
    at.session_state["toy_bytes"] = path.read_bytes()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.selectbox(key="data_registered_target").value == "churn"
    assert "read by a registered source (Rows as JSON lines)" in at.success[0].value
    assert "300 rows x 5 features, target 'churn', positive class 'yes'" in at.success[0].value
    at.selectbox(key="data_registered_target").set_value("plan").run()   # a target the source cannot count
    assert not at.exception and "counts a binary target; 'plan' is not one" in at.error[0].value
    at.selectbox(key="data_registered_target").set_value("churn").run()
    at.button(key="data_use").click().run()
    current = at.session_state[state.CURRENT]
    assert current.name == "export.jsonl" and current.spec is None   # no link names a server's own source

    src = open_source(f"rows:{path}")
    np.testing.assert_array_equal(current.encoded.X, src.to_encoded().X)
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    state.install(app.session_state, current)
    app.switch_page("pages/selection.py").run()   # one run: the page's defaults on it (BayesGreedy, 0-1 error)
    assert not app.exception, [e.value for e in app.exception]
    selector, measure, k = (app.session_state[f"select.{w}"] for w in ("selector", "measure", "k"))
    picked = fslab.select(src, k, selector, measure=measure).names
    shown = " ".join(str(v) for d in [*app.dataframe, *app.table] for v in d.value.to_numpy().ravel())  # static
    assert all(name in shown for name in picked), (picked, shown[:300])


def test_the_data_page_reads_its_upload(registered, export):
    """On the Data page, a .jsonl upload goes to the registered source instead of the CSV reader."""
    from streamlit.testing.v1 import AppTest

    from ui import state

    path, _ = export
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    at.switch_page("pages/data.py").run()
    at.radio(key="data_source").set_value("upload").run()
    at.file_uploader(key="data_upload").set_value(("export.jsonl", path.read_bytes(), "application/jsonl")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "read by a registered source (Rows as JSON lines): 300 rows x 5 features" in at.success[0].value
    at.button(key="data_use").click().run()
    assert at.session_state[state.CURRENT].name == "export.jsonl"


def test_npfs_bootstraps_it_by_poisson_weights(registered, export):
    """NPFS on a count-only source: bootstrap l counts row i w_i times (row_hash.poisson_weights, key = the first 64
    bits of seed l), so it picks what memory picks on the rows repeated w_i times; the command line runs it, held out
    (a bootstrap row counts w_i times in its own fold) as the library does."""
    path, mem = export
    src = open_source(f"rows:{path}")
    result = fslab.npfs(src, "jmi", 2, n_bootstraps=4, seed=7)
    for b, seq in enumerate(np.random.SeedSequence(7).spawn(4)):
        w = row_hash.poisson_weights(np.arange(mem.n_rows), int(seq.generate_state(1, np.uint64)[0]))
        drawn = mem.subsample(np.repeat(np.arange(mem.n_rows), w.astype(np.int64)))
        assert np.flatnonzero(result.matrix[:, b]).tolist() == sorted(fslab.select(drawn, 2, "jmi").features)
    code, out, err = _cli("npfs", f"rows:{path}", "--n", "4", "--k", "2", "--seed", "7", "--json", "-q")
    assert code == 0, err
    held = fslab.npfs(src, "jmi", 2, n_bootstraps=4, seed=7, estimate="cross-fitted")
    assert json.loads(out)["counts"] == held.counts.tolist()


def test_compare_on_it_leaves_out_what_reads_rows(registered, export):
    path, mem = export
    code, out, err = _cli("compare", f"rows:{path}", "--k", "2", "--json", "-q")
    assert code == 0, err
    assert "left out Fisher score: it reads every row's codes, and this RowsSource gives count tables only" in err
    subsets = {r["selector"]: r["features"] for r in json.loads(out)["subsets"]}
    six = ("bayes-greedy", "bayes-score", "mi-greedy", "mi-score", "mrmr", "jmi")
    expected = compare_selectors(mem, 2, six, estimate="cross-fitted").subsets
    assert subsets == dict(zip(expected["selector"], expected["features"], strict=True))
