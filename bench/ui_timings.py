"""Click-to-settled times of the teaching and analyst flows in a real browser (issue 16, "Speed of every interaction").

Starts ``streamlit run app.py`` on 127.0.0.1 (headless, a free port), opens one Debian chromium (Playwright) and
drives, in one session per repetition, the flows below. Each interaction is timed from the click (or the
navigation) to the moment the page has **settled**: the script is not running and nothing in the page's body has
changed for 0.5 s (a MutationObserver records the time of the last change outside <head>; that time, as seen when the
quiet period is detected, is reported, not the end of the quiet period). A main-thread task longer than 0.25 s counts
as a change when it ends (a 50 ms heartbeat that came late): before, a long task such as Plotly's module evaluation
could look like 0.5 s of quiet, and a chart drawn right after it fell outside the time. So the time includes drawing:
Plotly charts, KaTeX formulas and tables.

    .venv/bin/python bench/ui_timings.py                 # 3 repetitions, this checkout
    .venv/bin/python bench/ui_timings.py --root /tmp/old  # another checkout (its app.py and pages)
    .venv/bin/python bench/ui_timings.py --reps 1 --only teaching
    .venv/bin/python bench/ui_timings.py --only wide --compare /tmp/before   # the wide samples on the Data page
    .venv/bin/python bench/ui_timings.py --compare /tmp/before   # A/B: alternate this checkout and another
    .venv/bin/python bench/ui_timings.py --only teaching --dwell 2   # look at each page for 2 s before clicking
    .venv/bin/python bench/ui_timings.py --only teaching --reps 1 --profile   # where each click's time goes
    .venv/bin/python bench/ui_timings.py --only first --reps 8 --profile --compare /tmp/before  # first paint, 1st click

``--profile`` samples the browser's main thread (Chrome DevTools Protocol's CPU profiler, every 0.5 ms) during each
interaction and prints its largest costs: self time per script file (a renderer's module evaluation shows under its
file name, e.g. ``PlotlyChart.*.js``), "(idle)" being the wait for the server and the network; the table then has a
"busy" column: the median of the main thread's busy seconds per interaction (everything but "(idle)", the 0.5 s quiet
period included), which a loaded machine moves less than the wall time (``--top N``: N files per interaction).

Steps absent from a checkout (for example a page it does not have) are reported as "-". The first repetition's
first step is the first request to a freshly started server (cold imports and caches); later repetitions open a
new browser context (a new Streamlit session) on the same server. The table gives, per interaction, the cold
(first repetition) time, the median and the worst over the repetitions, in seconds, the median time at which the
interaction's script run ended ("script": the server's part, round trips included; what follows it is the browser
drawing what it was sent), and what the settled page held
(the last repetition): elements in the document's body, those of them inside a folded expander (drawn but not seen),
Plotly charts and KaTeX formulas. These counts do not move with the machine's load, so they show a change that
draws less where a noisy machine's seconds cannot.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
from load_test import CHROMIUM, CHROMIUM_ARGS, free_port, start_server, stop_server  # noqa: E402  (one server helper)

QUIET_MS = 500
XOR = "XOR of two features (plus a noise feature)"
PCMAC, BASEHOCK = "PCMAC (20 Newsgroups: IBM PC vs Mac hardware)", "BASEHOCK (20 Newsgroups: baseball vs hockey)"
BLOCKED_MS = 250  # a heartbeat gap this long: the main thread ran one long task (a renderer's module, a chart)
# installed before any page script: remembers when the visible document last changed (changes inside <head>, such
# as the style sheet a script injects when it loads, are not drawing) and when the main thread was last blocked (a
# 50 ms heartbeat that came late): a long task, e.g. Plotly's module evaluated, is work, not quiet, even when it
# changes nothing in the document (the page answers no click meanwhile, and a chart is often drawn right after it)
OBSERVER = f"""
window.__fslabLastChange = window.__fslabBeat = performance.now();
new MutationObserver((changes) => {{
  if (changes.some((c) => !(document.head && document.head.contains(c.target)))) {{
    window.__fslabLastChange = performance.now();
  }}
}}).observe(document, {{subtree: true, childList: true, attributes: true, characterData: true}});
window.__fslabRunEnd = 0;  // when the script last finished a run (the server's part of a click ends there)
new MutationObserver((changes) => {{
  if (changes.some((c) => c.target.getAttribute('data-test-script-state') === 'notRunning')) {{
    window.__fslabRunEnd = performance.now();
  }}
}}).observe(document, {{subtree: true, attributes: true, attributeFilter: ['data-test-script-state']}});
setInterval(() => {{
  const now = performance.now();
  if (now - window.__fslabBeat > {BLOCKED_MS}) window.__fslabLastChange = now;
  window.__fslabBeat = now;
}}, 50);
"""
SETTLED = f"""(t0) => {{
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (performance.now() - window.__fslabBeat > {BLOCKED_MS}) return false;  // just after a long task: beat first
  const now = performance.now(), last = window.__fslabLastChange;
  return now - t0 > {QUIET_MS} && now - last > {QUIET_MS} ? Math.max(last, t0 + 1e-3) : false;
}}"""  # the last change as seen when the quiet period is detected (a later change cannot slip into the time)
# what the settled page holds: elements in the body, those inside a folded expander (drawn, not seen), Plotly charts
# and KaTeX formulas; counts, so unlike seconds the machine's load does not move them
DRAWN = """() => [document.body.getElementsByTagName('*').length,
  document.querySelectorAll('details:not([open]) *').length,
  document.querySelectorAll('.js-plotly-plot').length, document.querySelectorAll('.katex').length]"""
DRAWN_NAMES = ("nodes", "hidden", "charts", "katex")


class Missing(Exception):
    """The checkout has no such page or widget: the step is reported as "-"."""


# --- timing one interaction -------------------------------------------------------------------------

def settle(page, t0: float, timeout_ms: int) -> float:
    """Seconds from ``t0`` (the page's performance.now() at the click) to the page's last change."""
    last = page.wait_for_function(SETTLED, arg=t0, timeout=timeout_ms, polling=100).json_value()
    return (last - t0) / 1000


def script_end(page, t0: float) -> float | None:
    """Seconds from ``t0`` to the end of the last script run it started (None: the interaction ran no script): the
    server's part of an interaction (the run and the round trips to it); the rest up to settled is the browser's."""
    end = page.evaluate("window.__fslabRunEnd")
    return (end - t0) / 1000 if end > t0 else None


def timed(page, action: Callable[[], None], timeout_ms: int) -> float:
    t0 = page.evaluate("performance.now()")
    action()
    return settle(page, t0, timeout_ms)


def self_times(profile: dict, top: int = 5) -> list[tuple[str, float]]:
    """The ``top`` largest main-thread self times (s) of a CDP ``Profiler.stop`` profile, by script file (by
    function name for the browser's own: "(idle)", "(program)", "(garbage collector)", ...), after "busy": the
    sum of all but "(idle)", the main thread's work in the interaction."""
    frames = {n["id"]: n["callFrame"] for n in profile["nodes"]}
    spent: dict[str, float] = {}
    for node, delta in zip(profile["samples"], [*profile["timeDeltas"][1:], 0], strict=True):
        frame = frames[node]
        where = frame["url"].rsplit("/", 1)[-1] or frame["functionName"] or "(program)"
        spent[where] = spent.get(where, 0.0) + delta / 1e6
    busy = sum(sec for where, sec in spent.items() if where != "(idle)")
    return [("busy", busy), *sorted(spent.items(), key=lambda kv: -kv[1])[:top]]


class Profiler:
    """The page's main-thread CPU profiler (CDP), one profile per interaction; a no-op when ``on`` is False."""

    def __init__(self, context, page, on: bool, top: int = 5):
        self.cdp, self.top = (context.new_cdp_session(page) if on else None), top
        if self.cdp is not None:
            self.cdp.send("Profiler.enable")
            self.cdp.send("Profiler.setSamplingInterval", {"interval": 500})

    def start(self) -> None:
        if self.cdp is not None:
            self.cdp.send("Profiler.start")

    def stop(self) -> tuple[float | None, str]:
        """The main thread's busy seconds in the interaction just timed and '  [busy 1.29, (idle) 0.57,
        PlotlyChart.js 0.46, ...]' ((None, "") when off)."""
        if self.cdp is None:
            return None, ""
        costs = self_times(self.cdp.send("Profiler.stop")["profile"], self.top)
        return costs[0][1], "  [" + ", ".join(f"{where} {sec:.2f}" for where, sec in costs) + "]"


def nav_link(page, title: str):
    link = page.locator('[data-testid="stSidebarNavLink"]').filter(has_text=title)
    if link.count() == 0:
        raise Missing(title)
    return link.first


def select_option(page, label: str, option: str) -> Callable[[], None]:
    def act():
        box = page.locator('[data-testid="stSelectbox"]').filter(has_text=label).first
        if box.count() == 0:
            raise Missing(label)
        box.click()
        box.locator("input").fill(option)
        page.get_by_role("option", name=option, exact=True).click()
    return act


def click_button(page, name: str) -> Callable[[], None]:
    def act():
        button = page.locator('[data-testid="stMain"]').get_by_role("button", name=name)
        if button.count() == 0:
            raise Missing(name)
        button.first.click()
    return act


def set_number(page, label: str, value: int) -> Callable[[], None]:
    def act():
        box = page.locator('[data-testid="stNumberInput"]').filter(has_text=label).locator("input").first
        if box.count() == 0:
            raise Missing(label)
        box.fill(str(value))
        box.press("Enter")
    return act


def click_text(page, text: str) -> Callable[[], None]:
    def act():
        target = page.locator('[data-testid="stMain"]').get_by_text(text, exact=False)
        if target.count() == 0:
            raise Missing(text)
        target.first.click()
    return act


# --- the flows --------------------------------------------------------------------------------------

def flows(page) -> dict[str, list[tuple[str, Callable[[], None]]]]:
    """(name, action) per interaction; every action only clicks or types, ``timed`` waits for the page."""
    def nav(title):
        return lambda: nav_link(page, title).click()
    return {
        "teaching": [
            ("Home -> Toy distribution", nav("Toy distribution")),
            ("Toy: load preset XOR",
             lambda: (select_option(page, "Preset", XOR)(), click_button(page, "Load preset")())),
            ("Toy -> Orderings", nav("Orderings")),
            ("Orderings -> Select", nav("Select")),
            ("Select: run on the toy distribution", click_text(page, "Toy distribution:")),
            ("Select: selector MIGreedy", select_option(page, "Selector", "MIGreedy")),
            ("Select -> By measure", nav("By measure")),
            ("-> Home", nav("Home")),
            ("Home: start the Example 1 tour", click_button(page, "Start the Example 1 tour")),
            ("Tour: Next", click_button(page, "Next")),
        ],
        "analyst": [
            ("-> Data", nav("Data")),
            ("Data -> Select (Mushroom)", nav("Select")),
            ("Select: measure balanced error", select_option(page, "Measure", "balanced error")),
            ("Select: k = 3", set_number(page, "k (features", 3)),
            ("Select -> Compare", nav("Compare")),
            ("Compare -> NPFS", nav("NPFS")),
            ("NPFS -> Select", nav("Select")),
            ("Select -> By measure (Mushroom)", nav("By measure")),
        ],
        "first": [  # --only first: the session's first click alone (many repetitions of the costliest one cheaply)
            ("Home -> Toy distribution", nav("Toy distribution")),
        ],
        "wide": [  # the 20 Newsgroups samples: 3,289 and 4,862 columns
            ("-> Data", nav("Data")),
            ("Data: sample PCMAC", select_option(page, "Sample data set", PCMAC)),
            ("Data: sample BASEHOCK", select_option(page, "Sample data set", BASEHOCK)),
            ("Data: use BASEHOCK", click_button(page, "Use this dataset")),
            ("Data -> Select (BASEHOCK)", nav("Select")),
            ("Select: selector JMI", select_option(page, "Selector", "JMI")),
            ("Select -> Compare (BASEHOCK)", nav("Compare")),
        ],
    }


def run_once(browser, url: str, only: str | None, timeout_ms: int, shots: Path | None,
             dwell_ms: int = 0, profile: bool = False, top: int = 5) -> tuple[dict, dict, dict, dict]:
    """One session's click-to-settled seconds per interaction, with ``profile`` the main thread's busy seconds per
    interaction (else an empty dict), what each settled page holds (:data:`DRAWN_NAMES`) and when its script run
    ended (:func:`script_end`)."""
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    ctx.add_init_script(OBSERVER)
    page = ctx.new_page()
    page.set_default_timeout(timeout_ms)
    profiler = Profiler(ctx, page, profile, top)
    times: dict[str, float | None] = {}
    busy: dict[str, float | None] = {}
    drawn: dict[str, list[int]] = {}
    ran: dict[str, float | None] = {}

    def record(name: str, t0: float) -> None:
        busy[name], costs = profiler.stop()
        drawn[name] = page.evaluate(DRAWN)
        ran[name] = script_end(page, t0) if times[name] is not None else None
        counts = ", ".join(f"{what} {count}" for what, count in zip(DRAWN_NAMES, drawn[name], strict=True))
        print(f"    {name}: {fmt(times[name])} (script ended {fmt(ran[name])})  ({counts}){costs}", flush=True)

    try:
        profiler.start()
        page.goto(url)
        times["open Home (first paint)"] = settle(page, 0.0, timeout_ms)
        record("open Home (first paint)", 0.0)
        for flow, steps in flows(page).items():
            if flow != only and (only or flow == "first"):  # "first" repeats teaching's first click: on request only
                continue
            for name, action in steps:
                page.wait_for_timeout(dwell_ms)  # a reader looks at the page before the next click
                profiler.start()
                t0 = page.evaluate("performance.now()")
                try:
                    action()
                    times[f"{flow}: {name}"] = settle(page, t0, timeout_ms)
                except Missing:
                    times[f"{flow}: {name}"] = None
                    page.keyboard.press("Escape")
                record(f"{flow}: {name}", t0)
        if shots is not None:
            page.screenshot(path=str(shots))
    finally:
        ctx.close()
    return times, {k: v for k, v in busy.items() if v is not None}, drawn, ran


def fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def report(runs: list[dict[str, float | None]], label: str, busy: list[dict[str, float]] | None = None,
           drawn: list[dict[str, list[int]]] | None = None, ran: list[dict[str, float | None]] | None = None) -> None:
    """The table: per interaction the cold (first repetition), median and worst seconds; the median time at which
    its script run ended (``ran``: the server's part, the rest is the browser's; "-" when it ran none); with
    ``busy`` (--profile) also the median of the main thread's busy seconds, which the machine's load moves less
    than wall time; then what the settled page held (``drawn``, the last repetition: nodes / hidden / charts /
    katex)."""
    names = list(dict.fromkeys(n for run in runs for n in run))
    width = max(len(n) for n in names) + 2
    print(f"\n{label}: click-to-settled seconds, {len(runs)} repetition(s), {os.cpu_count()} cores, "
          f"load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    head = f"{'interaction':<{width}} {'cold':>6} {'median':>7} {'worst':>6} {'script':>6}" \
        + (f" {'busy':>6}" if busy else "") \
        + "  nodes/hidden/charts/katex"
    print(head)
    print("-" * len(head))
    for n in names:
        values = [run.get(n) for run in runs]
        present = [v for v in values if v is not None]
        cpu = [b[n] for b in busy or () if n in b]
        ends = [r[n] for r in ran or () if r.get(n) is not None]
        print(f"{n:<{width}} {fmt(values[0]):>6} {fmt(statistics.median(present) if present else None):>7} "
              f"{fmt(max(present) if present else None):>6} {fmt(statistics.median(ends) if ends else None):>6}"
              + (f" {fmt(statistics.median(cpu) if cpu else None):>6}" if busy else "")
              + "  " + "/".join(str(c) for c in next((d[n] for d in reversed(drawn or ()) if n in d), ["-"])))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to serve (default: this one)")
    parser.add_argument("--compare", type=Path, default=None,
                        help="a second checkout (e.g. the code before a change): both servers run, the repetitions "
                             "alternate between them, and two tables are printed (a fair A/B on a noisy machine)")
    parser.add_argument("--reps", type=int, default=3, help="repetitions (new session each; default 3)")
    parser.add_argument("--only", choices=("teaching", "analyst", "wide", "first"),
                        help="one flow only (first: open Home, then Home -> Toy, nothing else)")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds any one interaction may take")
    parser.add_argument("--label", default="", help="a name for the table (e.g. before / after)")
    parser.add_argument("--profile", action="store_true",
                        help="print each interaction's largest main-thread costs in the browser (CDP CPU profile) "
                             "and add the median busy seconds of the main thread to the table")
    parser.add_argument("--top", type=int, default=5, help="with --profile: how many script files to print")
    parser.add_argument("--dwell", type=float, default=0.0,
                        help="seconds on each settled page before the next click, as a reader would (default 0: "
                             "click as soon as the page has settled)")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    roots = [args.root.resolve()] + ([args.compare.resolve()] if args.compare else [])
    servers, urls = [], []
    try:
        for root in roots:
            port = free_port()
            log_path = Path(tempfile.gettempdir()) / f"fslab-ui-timings-{port}.log"
            servers.append(start_server(port, log_path, root))
            urls.append(f"http://127.0.0.1:{port}")
        runs: list[list[dict]] = [[] for _ in roots]
        busy: list[list[dict]] = [[] for _ in roots]
        drawn: list[list[dict]] = [[] for _ in roots]
        ran: list[list[dict]] = [[] for _ in roots]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            for rep in range(args.reps):
                for i, (root, url) in enumerate(zip(roots, urls, strict=True)):
                    print(f"  repetition {rep + 1}: {root}", flush=True)
                    shot = Path(tempfile.gettempdir()) / f"fslab-ui-timings-{i}-{rep + 1}.png"
                    times, cpu, held, ends = run_once(browser, url, args.only, int(args.timeout * 1000), shot,
                                          int(args.dwell * 1000), args.profile, args.top)
                    runs[i].append(times)
                    busy[i].append(cpu)
                    drawn[i].append(held)
                    ran[i].append(ends)
            browser.close()
    finally:
        for server in servers:
            stop_server(server)
    for i, root in enumerate(roots):
        report(runs[i], (args.label + ": " if args.label else "") + str(root), busy[i] if args.profile else None,
               drawn[i], ran[i])
    return 0


if __name__ == "__main__":
    sys.exit(main())
