"""Streamlit's own floor on this machine: the click-to-settled times of a bare app, with ``ui_timings.py``'s clock.

Issue 34.5 asks for a first paint of at most 1 s and clicks of at most 0.5 s. Part of every such time is
Streamlit's, whatever a page draws: its bundle's start, the WebSocket session, a rerun's round trip, React's
render of the new page, Plotly's module the first time a session draws a chart. This script measures that part on
an app that does almost nothing (written to a temporary directory, served by the same ``streamlit run`` as fslab,
timed by the same MutationObserver and settle rule as :mod:`ui_timings`), so fslab's times can be read against it:

    .venv/bin/python bench/ui_floor.py              # 5 repetitions (a new browser session each)
    .venv/bin/python bench/ui_floor.py --reps 9

The bare app has eight pages in ``st.navigation``'s sidebar: Home (a title and three lines), then pages that each
draw one kind of element for the first time in the session: twenty Markdown lines, a formula (``st.latex``), a
small ``st.table``, a small ``st.dataframe``, an SVG through ``st.image``, a ``st.line_chart`` (Vega-Lite) and one
small Plotly chart; then Chart -> Home, Home -> Chart (Plotly already loaded) and a button that reruns the chart
page. A first use costs what the renderer's module costs to fetch and start, once per browser session.
``--widgets`` gives Home the kinds of widget fslab's Home needs (a sidebar toggle, a selectbox, a button, a page
link), each of which loads its renderer the first time a session meets it. ``--profile`` prints each
interaction's main-thread costs as ``ui_timings.py --profile`` does.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from load_test import CHROMIUM, CHROMIUM_ARGS, free_port, start_server, stop_server  # noqa: E402
from ui_timings import DRAWN, OBSERVER, Profiler, fmt, settle, timed  # noqa: E402  (the same clock as fslab's table)

BARE_APP = '''
import plotly.graph_objects as go
import streamlit as st

SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="200"><polyline fill="none" stroke="blue" '
       'points="20,20 140,100 260,140 380,140"/><text x="20" y="190" font-size="16">k</text></svg>')
ROWS = {"feature": ["X1", "X2", "X3"], "score": [0.25, 0.30, 0.5]}


def home():
    st.title("Home")
    for i in range(3):
        st.markdown(f"Line {i} of a bare page.")
    if WIDGETS:  # what fslab's Home offers: a sidebar toggle, a selectbox, a button, page links
        st.sidebar.toggle("Presentation mode", key="present")
        st.selectbox("Sample data set", ["Adult", "Mushroom"], key="sample")
        st.button("Start the tour", type="primary")
        st.page_link(st.Page(text, title="Text", url_path="text"), label="Text")


def text():
    st.title("Markdown")
    for i in range(20):
        st.markdown(f"Line {i}: some **bold** text and `code`.")


def formula():
    st.title("Formula")
    st.latex(r"H(Y \\mid X) = -\\sum_{x, y} p(x, y) \\log_2 p(y \\mid x)")


def table():
    st.title("Table")
    st.table(ROWS)


def dataframe():
    st.title("Dataframe")
    st.dataframe(ROWS)


def vega():
    st.title("Vega")
    st.line_chart({"k": [1, 2, 3, 4], "error": [0.5, 0.3, 0.25, 0.25]}, x="k", y="error")


def image():
    st.title("Image")
    st.image(SVG)


def chart():
    st.title("Chart")
    st.plotly_chart(go.Figure(go.Scatter(x=[1, 2, 3, 4], y=[0.5, 0.3, 0.25, 0.25], mode="lines+markers")))
    st.button("Rerun")


st.navigation([st.Page(home, title="Home", default=True)]
              + [st.Page(f, title=f.__name__.capitalize(), url_path=f.__name__)
                 for f in (text, formula, table, dataframe, image, vega, chart)]).run()
'''


def run_once(browser, url: str, timeout_ms: int, profile: bool = False) -> dict[str, float]:
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    ctx.add_init_script(OBSERVER)
    page = ctx.new_page()
    page.set_default_timeout(timeout_ms)
    profiler = Profiler(ctx, page, profile, 4)

    def nav(title: str):
        return lambda: page.locator('[data-testid="stSidebarNavLink"]').filter(has_text=title).first.click()

    times = {}
    try:
        profiler.start()
        page.goto(url)
        times["open Home (first paint)"] = settle(page, 0.0, timeout_ms)
        if profile:
            print(f"    first paint {fmt(times['open Home (first paint)'])} (nodes {page.evaluate(DRAWN)[0]})"
                  f"{profiler.stop()[1]}", flush=True)
        for name, action in [
            ("Home -> Markdown (20 lines)", nav("Text")),
            ("-> Formula (first st.latex)", nav("Formula")),
            ("-> Table (first st.table)", nav("Table")),
            ("-> Dataframe (first st.dataframe)", nav("Dataframe")),
            ("-> Image (first st.image, an SVG)", nav("Image")),
            ("-> Vega (first st.line_chart)", nav("Vega")),
            ("-> Chart (first Plotly chart)", nav("Chart")),
            ("Chart -> Home", nav("Home")),
            ("Home -> Chart (Plotly loaded)", nav("Chart")),
            ("Chart: rerun (button)", lambda: page.get_by_role("button", name="Rerun").click()),
        ]:
            profiler.start()
            times[name] = timed(page, action, timeout_ms)
            if profile:
                print(f"    {name} {fmt(times[name])} (nodes {page.evaluate(DRAWN)[0]}){profiler.stop()[1]}",
                      flush=True)
    finally:
        ctx.close()
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions (a new session each; default 5)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds any one interaction may take")
    parser.add_argument("--widgets", action="store_true",
                        help="Home also draws the kinds of widget fslab's Home needs (a sidebar toggle, a selectbox, "
                             "a button, a page link): first paint with their renderers")
    parser.add_argument("--profile", action="store_true",
                        help="print each interaction's main-thread costs in the browser (as ui_timings.py --profile)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "app.py").write_text(f"WIDGETS = {args.widgets}\n" + BARE_APP)
        port = free_port()
        server = start_server(port, Path(tmp) / "server.log", Path(tmp))
        runs = []
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
                for rep in range(args.reps):
                    runs.append(run_once(browser, f"http://127.0.0.1:{port}", int(args.timeout * 1000), args.profile))
                    print(f"  repetition {rep + 1}: " + ", ".join(f"{k} {fmt(v)}" for k, v in runs[-1].items()),
                          flush=True)
                browser.close()
        finally:
            stop_server(server)
    import os
    print(f"\nbare Streamlit app: click-to-settled seconds, {len(runs)} repetition(s), {os.cpu_count()} cores, "
          f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    width = max(len(n) for n in runs[0]) + 2
    print(f"{'interaction':<{width}} {'cold':>6} {'median':>7} {'best':>6} {'worst':>6}")
    for name in runs[0]:
        values = [run[name] for run in runs]
        print(f"{name:<{width}} {fmt(values[0]):>6} {fmt(statistics.median(values)):>7} {fmt(min(values)):>6} "
              f"{fmt(max(values)):>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
