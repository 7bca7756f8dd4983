"""A rerun that leaves the Select page's selection as it is builds no figure, curve or binning cost again (issue
34.5): the two Plotly figures (``ui.theme.memo_chart``), the comparison curves (``ui.selection.comparison_curves``)
and the binning check's cost (``ui.compare.raw_binning_cost``: ``Shape.of(raw)`` counts every column's levels) were
rebuilt on every click, 0.12 of the page's 0.18 s of CPU a rerun on Mushroom. A changed input builds them again."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

import fslab.cost
import fslab.plots.selection as plots
import ui.selection
from tests.conftest import ROOT
from ui import theme

pytestmark = pytest.mark.slow


@pytest.fixture
def counted(monkeypatch):
    """Calls to the Select page's figure builders, its prefix curves and ``Shape.of`` on a raw dataset."""
    calls = {"curves": 0, "heatmap": 0, "prefix": 0, "raw shape": 0}

    def count(name, fn):
        def wrapped(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)
        return wrapped

    monkeypatch.setattr(plots, "trace_curves_figure", count("curves", plots.trace_curves_figure))
    monkeypatch.setattr(plots, "trace_heatmap_figure", count("heatmap", plots.trace_heatmap_figure))
    monkeypatch.setattr(ui.selection, "curve_frame", count("prefix", ui.selection.curve_frame))
    shape_of = fslab.cost.Shape.of.__func__

    def of(cls, source):
        if not isinstance(source, fslab.cost.TableSource):
            calls["raw shape"] += 1
        return shape_of(cls, source)

    monkeypatch.setattr(fslab.cost.Shape, "of", classmethod(of))
    return calls


def _charts(app) -> list[str]:
    return [chart.proto.spec for chart in app.get("plotly_chart")]


def test_a_rerun_reuses_the_figures_and_a_change_rebuilds_them(counted):
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    app.switch_page("pages/selection.py").run()
    assert not app.exception, [e.value for e in app.exception]
    # Mushroom, BayesGreedy, k = 5: both figures once; the run's curve in two estimates plus BayesScore's and
    # MIGreedy's (the binning cost is cached server-wide: another test of this process may have asked it first)
    first = dict(counted)
    assert (first["curves"], first["heatmap"], first["prefix"]) == (1, 1, 4)
    charts = _charts(app)
    assert len(charts) == 2

    app.run()  # a click that changes nothing the figures show (e.g. a fold opened)
    app.session_state["select.how"] = True
    app.run()
    assert counted == first  # nothing rebuilt, no raw column's levels counted again
    assert _charts(app) == charts  # the same figures sent

    app.number_input(key="select.k").set_value(4).run()  # a new selection: both figures and its curves again
    assert (counted["curves"], counted["heatmap"], counted["prefix"]) == (2, 2, 8)
    assert _charts(app) != charts and len(_charts(app)) == 2

    app.number_input(key="select.k").set_value(5).run()  # back: the session's memos still hold k = 5
    assert (counted["curves"], counted["heatmap"], counted["prefix"]) == (2, 2, 8)
    assert _charts(app) == charts


def test_presentation_mode_rebuilds_the_figures_with_its_fonts(counted):
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    app.switch_page("pages/selection.py").run()
    plain = _charts(app)
    app.session_state[theme.CHOSEN] = app.session_state[theme.PRESENT] = True  # the sidebar's toggle
    app.run()
    assert (counted["curves"], counted["heatmap"]) == (2, 2)
    projected = _charts(app)
    assert projected != plain and all('"size":16' in spec for spec in projected)  # theme.CHART_FONT
    assert counted["prefix"] == 4  # the curves' values are the same: not computed again


def test_npfs_reruns_reuse_the_figures_and_downloads_of_the_result_shown(monkeypatch):
    """D_uni's result: five figures and three files once; a rerun (the "Every feature's count" fold opened) builds
    none again; another order of the rows rebuilds the two figures it changes, not the path or the files."""
    import fslab.plots.npfs as npfs_plots
    import ui.npfs

    calls: dict[str, int] = {}

    def count(module, name):
        fn = getattr(module, name)

        def wrapped(*args, **kwargs):
            calls[name] = calls.get(name, 0) + 1
            return fn(*args, **kwargs)
        monkeypatch.setattr(module, name, wrapped)

    for name in ("selection_matrix_figure", "counts_figure", "relevant_path_figure", "stability_figure"):
        count(npfs_plots, name)
    count(ui.npfs, "_downloads")
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    app.switch_page("pages/npfs.py").run()
    app.button(key="npfs.load_uniform").click().run()
    assert not app.exception and app.metric[0].value == "5"
    first = dict(calls)
    assert first == {"selection_matrix_figure": 1, "counts_figure": 1, "relevant_path_figure": 1,
                     "stability_figure": 1, "_downloads": 1}
    app.session_state["npfs.table_open"] = True
    app.run()
    assert calls == first
    app.radio(key="npfs.order").set_value("index").run()
    assert calls == first | {"selection_matrix_figure": 2, "counts_figure": 2}


def test_compare_reruns_reuse_the_figures_and_make_the_files_when_clicked(monkeypatch):
    """Side by side on Mushroom: the step grid and the disagreement chart once; a rerun builds neither, and the
    pairwise overlaps behind the "Overlap (CSV)" file (rank correlations) are computed only when it is clicked."""
    import fslab.compare
    import ui.compare_panels as panels

    calls: dict[str, int] = {}

    def count(owner, name):
        fn = getattr(owner, name)

        def wrapped(*args, **kwargs):
            calls[name] = calls.get(name, 0) + 1
            return fn(*args, **kwargs)
        monkeypatch.setattr(owner, name, wrapped)

    count(panels, "step_grid_figure")
    count(panels, "disagreement_figure")
    count(fslab.compare.Comparison, "overlap")
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    app.switch_page("pages/compare.py").run()
    assert not app.exception and len(app.get("plotly_chart")) == 2
    assert calls == {"step_grid_figure": 1, "disagreement_figure": 1}
    app.run()
    assert calls == {"step_grid_figure": 1, "disagreement_figure": 1}
    assert len(app.get("download_button")) >= 4


def test_by_measure_reruns_reuse_its_chart(monkeypatch):
    """By measure's chart once per view and step: a rerun builds none, another step builds one."""
    import fslab.plots.by_measure as bym_plots

    built = []
    cross = bym_plots.cross_figure
    monkeypatch.setattr(bym_plots, "cross_figure", lambda *a, **kw: built.append(a[-1]) or cross(*a, **kw))
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    app.switch_page("pages/by_measure.py").run()
    assert not app.exception and len(built) == 1
    app.run()
    assert len(built) == 1
    k = built[0]  # the chart opens after the last step, t = k
    app.select_slider(key="bym.step").set_value(k - 1).run()
    assert built == [k, k - 1]


def test_orderings_reruns_reuse_its_three_charts(monkeypatch):
    """The lattice tab's Hasse diagram, ordering and gap charts once; a rerun builds none, another overlay path
    rebuilds the Hasse diagram alone."""
    import fslab.plots.orderings as plots_orderings

    calls: dict[str, int] = {}
    for name in ("hasse_figure", "ordering_figure", "gap_figure"):
        fn = getattr(plots_orderings, name)
        monkeypatch.setattr(plots_orderings, name,
                            lambda *a, _fn=fn, _name=name, **kw: calls.update({_name: calls.get(_name, 0) + 1})
                            or _fn(*a, **kw))
    app = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    app.session_state["orderings.views_open"] = True  # the ordering and gap charts are folded (issue 34.5)
    app.switch_page("pages/orderings.py").run()
    assert not app.exception
    first = {"hasse_figure": 1, "ordering_figure": 1, "gap_figure": 1}
    assert calls == first
    app.run()
    assert calls == first
    app.selectbox(key="orderings.other").set_value("none").run()
    assert calls == first | {"hasse_figure": 2}
