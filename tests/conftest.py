"""Shared fixtures: the repository root, and for tests/e2e a live `streamlit run` plus Debian chromium; every test's
tier marker (unit, app, cli, e2e), assigned from its file in `pytest_collection_modifyitems`; timeouts of app and
browser tests scaled to the machine's load (:func:`load_factor`)."""

from __future__ import annotations

import ast
import os
import re
import signal
import socket
import subprocess
import sys
import time
import types
import urllib.request
from contextlib import contextmanager
from fnmatch import fnmatch
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hypothesis import settings

# Property tests check invariants, never speed (performance lives in bench/): no per-example deadline, which a
# loaded machine would otherwise turn into flaky DeadlineExceeded failures.
# CI (.ci/run sets FSLAB_HYPOTHESIS=ci) draws the same examples on every run (derandomize: a gate cannot fail on a
# draw no one can reproduce); a developer's run explores new ones, and a failure it finds is kept in a test.
settings.register_profile("fslab", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, database=None)
settings.load_profile(os.environ.get("FSLAB_HYPOTHESIS", "fslab"))

# One BLAS thread per process (before numpy is imported; subprocesses and servers inherit it): pytest runs one worker
# per core, so OpenBLAS's own threads only oversubscribe the cores and spin (Fisher scores on Mushroom: 0.19 -> 0.026 s
# of CPU at load 22; test_pages_select.py side by side 46.0 -> 37.3 s).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "artifacts"
CHROMIUM = os.environ.get("FSLAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--no-first-run", "--disable-quic",
]


# Test tiers (README "Tests"). Every test gets exactly one tier marker, decided by its file, so a new file falls into
# a tier without anyone marking it; an explicit tier marker on a test or module wins. `slow` is separate and manual.
TIERS = ("unit", "app", "cli", "e2e")
APP_FILES = ("test_pages_*.py", "test_*_app.py", "test_isolation.py")  # AppTest sessions of app.py and its pages
CLI_FILES = ("test_cli*.py", "test_*_cli.py")                         # python -m fslab / fslab.cli.main


def _uses_app_test(item) -> bool:
    """The test's module imports ``AppTest`` at top level, or the test function imports it itself."""
    if getattr(getattr(item, "module", None), "AppTest", None) is not None:
        return True
    code = getattr(getattr(item, "function", None), "__code__", None)
    return code is not None and "AppTest" in code.co_varnames + code.co_names


def tier_of(item) -> str:
    path = Path(item.path)
    if "e2e" in path.parent.parts:
        return "e2e"
    if any(fnmatch(path.name, pattern) for pattern in CLI_FILES):
        return "cli"
    if any(fnmatch(path.name, pattern) for pattern in APP_FILES) or _uses_app_test(item):
        return "app"
    return "unit"


# Worker groups for `pytest -n N --dist loadgroup` (.ci/run, issue 36.5). Tests that share a costly server run on
# one worker, one after another, so no two of them overlap and the server starts once: every file that starts Dask
# clusters (two worker processes each), every PostgreSQL-parametrised test (one server). A file with a module-scoped
# fixture goes to one worker whole, so the fixture is built once. Browser tests go by file: each worker that takes
# one starts its own `streamlit run` and chromium (session fixtures, once per worker), so both workers can run
# browser files side by side; a file's tests stay together (they share pages and flows). Everything else runs
# wherever a worker is free: each test has its own tmp_path, free ports and environment (a worker is a process of
# its own). The groups are read from the nodeid and the file's source,
# because the controller that schedules sees only nodeids (and pytest 9 ignores xdist 3.8's renaming of an
# xdist_group-marked nodeid, so marks alone would not group anything).
_MODULE_SCOPES = ("module", "class", "package")


def _starts_a_cluster(node: ast.AST) -> bool:
    """The code names LocalCluster or the cluster mark."""
    return any((isinstance(n, ast.Name) and n.id == "LocalCluster") or (isinstance(n, ast.alias)
               and n.name == "LocalCluster") or (isinstance(n, ast.Attribute) and n.attr == "cluster"
               and isinstance(n.value, ast.Attribute) and n.value.attr == "mark") for n in ast.walk(node))


def source_groups(path: str, source: str) -> tuple[str | None, frozenset[str]]:
    """(group of every test of a file, the tests that start a cluster) from the file's path (relative to the root)
    and source. The file's group: "browser PATH" under tests/e2e/; "cluster" if code outside its tests starts a
    LocalCluster (a fixture, ``pytestmark``); "file PATH" if it declares a module-scoped fixture; else None. A test
    starts a cluster if it takes the ``client`` fixture, names LocalCluster or carries the cluster mark."""
    if path.startswith("tests/e2e/"):
        return f"browser {path}", frozenset()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None, frozenset()
    tests = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")]
    tests += [n for c in tree.body if isinstance(c, ast.ClassDef) for n in c.body
              if isinstance(n, ast.FunctionDef) and n.name.startswith("test")]
    cluster = frozenset(t.name for t in tests if _starts_a_cluster(t) or any(a.arg == "client" for a in t.args.args))
    rest = [n for n in ast.walk(tree) if n not in tests]
    if any(_starts_a_cluster(n) for n in tree.body if n not in tests
           and not (isinstance(n, ast.ClassDef) and set(n.body) & set(tests))):
        return "cluster", cluster
    module_scoped = any(isinstance(n, ast.keyword) and n.arg == "scope" and isinstance(n.value, ast.Constant)
                        and n.value.value in _MODULE_SCOPES for n in rest)
    return (f"file {path}" if module_scoped else None), cluster


@cache
def _file_groups(path: str) -> tuple[str | None, frozenset[str]]:
    try:
        return source_groups(path, (ROOT / path).read_text(encoding="utf-8"))
    except OSError:
        return None, frozenset()


def work_group(nodeid: str) -> str | None:
    """The worker group of the test ``nodeid`` (None: any free worker)."""
    path, _, rest = nodeid.partition("::")
    group, cluster = _file_groups(path)
    name, _, params = rest.partition("[")
    if group is None and name.rpartition("::")[2] in cluster:
        return "cluster"
    if group is None and re.search(r"\bpostgres\b", params):
        return "postgres"
    return group


# Longest units first (.ci/run's wall is the last worker's finish: a long test started last keeps one worker busy
# while the other idles). The scheduler sees only nodeids, so a unit's seconds are estimated from its tests' kind,
# read from the source: a browser test starts pages in a real browser, a cluster or PostgreSQL test talks to a
# server, an app, command-line or slow-marked test runs a script or a process; the rest are quick unit tests.
BROWSER_S, SERVER_S, PROCESS_S, QUICK_S = 20.0, 3.0, 2.0, 0.1


def _marks_slow(node: ast.AST) -> bool:
    """``node`` is, or lists, ``pytest.mark.slow`` (called or not)."""
    return any(isinstance(n, ast.Attribute) and n.attr == "slow" and isinstance(n.value, ast.Attribute)
               and n.value.attr == "mark" for n in ast.walk(node))


def source_costs(path: str, source: str) -> tuple[float, dict[str, float]]:
    """Estimated seconds of one test of a file (path relative to the root) and of the tests that differ, by name:
    :data:`BROWSER_S` under tests/e2e/; :data:`PROCESS_S` for an app or command-line file (by name, or one that
    imports AppTest), a module marked slow, or a test marked slow; :data:`QUICK_S` otherwise."""
    if path.startswith("tests/e2e/"):
        return BROWSER_S, {}
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return QUICK_S, {}
    name = Path(path).name
    module_slow = any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "pytestmark"
                                                        for t in n.targets) and _marks_slow(n.value)
                      for n in tree.body)
    app_test = any(isinstance(n, ast.alias) and n.name == "AppTest" for n in ast.walk(tree))   # imported anywhere
    heavy = module_slow or app_test or any(fnmatch(name, p) for p in CLI_FILES + APP_FILES)
    tests = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("test")]
    slow = {t.name: PROCESS_S for t in tests if any(_marks_slow(d) for d in t.decorator_list)}
    return (PROCESS_S if heavy else QUICK_S), ({} if heavy else slow)


@cache
def _file_costs(path: str) -> tuple[float, dict[str, float]]:
    try:
        source = (ROOT / path).read_text(encoding="utf-8")
    except OSError:
        source = ""
    return source_costs(path, source)


def test_cost(nodeid: str) -> float:
    """Estimated seconds of the test ``nodeid`` (:func:`source_costs`; at least :data:`SERVER_S` in the cluster or
    PostgreSQL group)."""
    path, _, rest = nodeid.partition("::")
    default, named = _file_costs(path)
    cost = named.get(rest.partition("[")[0].rpartition("::")[2], default)
    return max(cost, SERVER_S) if work_group(nodeid) in ("cluster", "postgres") else cost


test_cost.__test__ = False  # a helper, not a test


def longest_first(units: dict[str, dict[str, bool]]) -> list[tuple[str, dict[str, bool]]]:
    """xdist's work units (scope -> its nodeids) ordered by estimated seconds, longest first; ties keep their order."""
    return sorted(units.items(), key=lambda unit: -sum(map(test_cost, unit[1])))


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist (the dev extra); without it, never called
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` schedules by :func:`work_group`: a group is one unit of work, every other test its own;
    units go out longest first (:func:`longest_first`)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return work_group(nodeid) or nodeid

        def _assign_work_unit(self, node) -> None:
            if not self.ordered:   # the queue is complete before the first unit is handed out
                units = longest_first(self.workqueue)
                self.workqueue.clear()
                self.workqueue.update(units)
                self.ordered = True
            super()._assign_work_unit(node)

    return GroupScheduling(config, log)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if not any(item.get_closest_marker(tier) for tier in TIERS):
            item.add_marker(tier_of(item))
        if "client" in getattr(item, "fixturenames", ()):  # the LocalCluster fixture below
            item.add_marker("cluster")


def load_factor() -> float:
    """How many times slower than idle this machine runs now: max(1, 1-minute load average / cores). Every wait in
    the app and browser tests is its idle-machine figure times this (issue 25.6: fixed timeouts failed under load)."""
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


def scaled(seconds: float) -> float:
    """``seconds`` (enough on an idle machine) times :func:`load_factor`."""
    return seconds * load_factor()


def pytest_runtest_setup(item):
    """AppTest sessions get their ``default_timeout`` scaled to the load and AppTest's per-run overheads cut
    (tests/apptest_cache.py: one script cache, one component scan, no polling wait), patched once, on the first test
    that uses AppTest (an app test, or a command-line test comparing with a page), so a unit-only run never imports
    Streamlit."""
    if item.get_closest_marker("app") is not None or _uses_app_test(item):
        _scale_app_test_timeouts()
        import tests.apptest_cache  # noqa: F401


def _scale_app_test_timeouts() -> None:
    from streamlit.testing.v1 import AppTest

    if getattr(AppTest.__init__, "_fslab_scaled", False):
        return
    original = AppTest.__init__

    def __init__(self, *args, default_timeout: float, **kwargs):
        original(self, *args, default_timeout=scaled(default_timeout), **kwargs)

    __init__._fslab_scaled = True
    AppTest.__init__ = __init__


def _free_port() -> int:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def streamlit_argv(port: int) -> list[str]:
    """``streamlit run app.py`` headless on 127.0.0.1:port (no usage statistics, no file watcher)."""
    return ["streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
            "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]


# The servers this process runs: base URL -> (pid, log file), for the report of a page that never becomes idle.
SERVERS: dict[str, tuple[int, Path]] = {}


@contextmanager
def running_streamlit(log_path: Path, argv=streamlit_argv, cwd: Path = ROOT, env: dict | None = None):
    """``python -m`` + ``argv(port)`` on a free loopback port, until /_stcore/health says ok (a wait scaled to the
    load); yields the base URL and stops the server on exit. The health endpoint runs no script."""
    port = _free_port()
    log_path.parent.mkdir(exist_ok=True)
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([sys.executable, "-m", *argv(port)], cwd=cwd, env=env, stdout=log,
                                stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        SERVERS[url] = (proc.pid, log_path)
        try:
            wait = scaled(60)
            deadline = time.monotonic() + wait
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"streamlit exited with {proc.returncode}; see {log_path}")
                try:
                    if urllib.request.urlopen(url + "/_stcore/health", timeout=2).read() == b"ok":
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"streamlit did not become healthy within {wait:.0f} s; see {log_path}")
                time.sleep(0.25)
            yield url
        finally:
            SERVERS.pop(url, None)
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture(scope="session")
def streamlit_url():
    """`streamlit run app.py` on a free loopback port for the browser tests; its log in artifacts/ (one server per
    xdist worker: streamlit-e2e-gw0.log, ...)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    with running_streamlit(ARTIFACTS / f"streamlit-e2e{'-' + worker if worker else ''}.log") as url:
        yield url


# Loaded into every page of the browser tests (the browser fixture's contexts): what wait_idle needs to know when a
# click's rerun is over without a fixed sleep. Streamlit marks the app div with the script's state, but a click only
# sends a rerun request over the websocket; the state turns "running" a round trip later. So the page notes when it
# last sent a websocket message, when a run last ended (and how many have), and how many HTTP requests (an upload's
# PUT, sent before its rerun) are in flight.
IDLE_WATCH = """(() => {
  const w = window.__fslabIdle = {sent: 0, ended: 0, runs: 0, seen: 0, since: 0, inflight: 0};
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (...args) { w.sent = performance.now(); return send.apply(this, args); };
  const open = XMLHttpRequest.prototype.send;
  XMLHttpRequest.prototype.send = function (...args) {
    w.inflight += 1;
    this.addEventListener("loadend", () => { w.inflight -= 1; }, {once: true});
    return open.apply(this, args);
  };
  new MutationObserver((records) => {
    for (const r of records) {
      if (r.oldValue !== "notRunning" && r.target.getAttribute("data-test-script-state") === "notRunning") {
        w.ended = performance.now(); w.runs += 1;
      }
    }
  }).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-test-script-state"],
                        attributeOldValue: true});
})()"""
# The page is idle: the script is not running, no upload is in flight, and either a run ended since the last wait
# with nothing sent after it (the click's rerun is over: no sleep), or nothing was sent for `grace` ms (a click that
# starts no run, an upload whose rerun request has not left yet, a page without the watcher: the old fixed wait).
_IDLE = """([grace, settle]) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute("data-test-script-state") !== "notRunning") return false;
  const w = window.__fslabIdle, now = performance.now();
  if (!w) { window.__fslabSince ??= now; return now - window.__fslabSince >= grace; }
  if (w.inflight > 0) return false;
  const done = w.sent > w.ended ? now - w.sent >= grace                  // sent, no run since: a rerun unless
             : (w.runs > w.seen && now - w.ended >= settle) || now - w.since >= grace;  // none starts in time
  if (done) w.seen = w.runs;
  return done;
}"""


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=scaled(5_000))  # expect(...)'s own default, 5 s, scaled like every other wait
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        new_context = b.new_context

        def watched_context(**kwargs):
            ctx = new_context(**kwargs)
            ctx.add_init_script(IDLE_WATCH)
            return ctx

        b.new_context = watched_context  # every test's contexts: wait_idle's watcher in each page
        yield b
        b.close()


class _Tab:
    """One browser tab per worker, reused by test after test (:func:`page`): a new tab starts a renderer process and
    compiles Streamlit's bundle again (2.1-2.9 s of chromium CPU to open a page), a reload in a used tab 0.8-1.4 s.
    A tab that was closed or broke is replaced."""

    def __init__(self, browser) -> None:
        self.browser, self.ctx, self.page = browser, None, None

    def get(self):
        if self.page is None or self.page.is_closed():
            self.close()
            self.ctx = self.browser.new_context(viewport={"width": 1400, "height": 1000})
            self.page = self.ctx.new_page()
        return self.page

    def leave(self) -> None:
        """Back to about:blank with nothing kept: the test's Streamlit session closes (its websocket), the origin's
        storage (the sidebar's folded sections) and cookies are cleared; a tab that cannot is replaced."""
        try:
            if self.page.url.startswith("http"):
                self.page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
            self.page.goto("about:blank", timeout=scaled(10_000))
            self.ctx.clear_cookies()
        except Exception:   # a crashed or stuck tab: the next test gets a new one
            self.close()

    def close(self) -> None:
        if self.ctx is not None:
            try:
                self.ctx.close()
            except Exception:
                pass
        self.ctx = self.page = None


@pytest.fixture(scope="session")
def _tab(browser):
    tab = _Tab(browser)
    yield tab
    tab.close()


@pytest.fixture
def page(_tab, streamlit_url):
    """A browser tab at about:blank, 1400 x 1000 (a new Streamlit session once it opens the app: a page load is a
    new session): the test's first :func:`goto_page` opens its page by address, so the session's first run is that
    page's (opening Home first, then the page, cost every browser test Home's run and drawing: ~1.5 s);
    :func:`open_home` for a test that starts on Home. The tab is the worker's one reused tab (:class:`_Tab`); at
    the test's end it goes back to about:blank with nothing kept."""
    pg = _tab.get()
    pg.set_viewport_size({"width": 1400, "height": 1000})
    pg.set_default_timeout(scaled(60_000))
    pg.fslab_url = streamlit_url
    yield pg
    _tab.leave()


def new_session(page, url: str) -> None:
    """Open ``url`` in ``page`` as a new visitor: the origin's storage and the cookies cleared first, then a page load
    (a new Streamlit session with nothing in it, as a fresh browser context's but without a new renderer)."""
    if page.url.startswith("http"):
        page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
    page.context.clear_cookies()
    page.goto(url)
    wait_idle(page)


def open_home(page) -> None:
    """Open the app's default page (Home) in the :func:`page` fixture's tab and wait until its run is over."""
    page.goto(page.fslab_url)
    wait_idle(page)


@cache
def page_paths() -> dict[str, str]:
    """Each page's title -> its address under the app's URL (ui/pages.py's PAGES, read as source: importing ``ui``
    in a test process would import every page): Streamlit's default, the file's stem; "" for the default page."""
    tree = ast.parse((ROOT / "ui" / "pages.py").read_text(encoding="utf-8"))
    paths = {}
    for call in ast.walk(tree):
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "PageInfo":
            file, title = (a.value for a in call.args[:2])
            default = any(k.arg == "default" and k.value.value is True for k in call.keywords)
            paths[title] = "" if default else Path(file).stem
    return paths


def wait_idle(page, timeout: float = 120_000) -> None:
    """Wait until the Streamlit script has finished the run the last action started (if it started one): as soon
    as that run ends after a click, else once nothing has been sent for 300 ms (:data:`IDLE_WATCH`). ``timeout``
    in ms on an idle machine (scaled to the load); past it, an AssertionError says what the page shows and what the
    server was doing (:func:`stuck_report`)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    page.evaluate("() => { if (window.__fslabIdle) window.__fslabIdle.since = performance.now(); "
                  "else window.__fslabSince = performance.now(); }")
    wait = scaled(timeout)
    try:
        page.wait_for_function(_IDLE, arg=[300, 50], timeout=wait)
    except PlaywrightTimeoutError:
        raise AssertionError(f"the page did not become idle within {wait / 1000:.0f} s\n{stuck_report(page)}") \
            from None


def stuck_report(page) -> str:
    """What a page that never became idle shows (:data:`_STUCK`), and the tail of its server's log. A server that
    handles SIGUSR1 (``faulthandler.register``) is sent it first, so the log ends with every thread's stack; one
    that does not is never sent it (SIGUSR1's default action would end the server)."""
    try:
        shown = page.evaluate(_STUCK)
    except Exception as err:   # a crashed page: say so, and still read the server's side
        shown = f"(the page cannot be read: {err})"
    pid, log = SERVERS.get("/".join(page.url.split("/", 3)[:3]), (None, None))   # by the page's origin
    tail = ""
    if pid is not None:
        try:
            caught = int(next(line.split()[1] for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                              if line.startswith("SigCgt:")), 16)
            if caught >> (signal.SIGUSR1 - 1) & 1:
                os.kill(pid, signal.SIGUSR1)
                time.sleep(1)
            tail = "\n".join(log.read_text(errors="replace").splitlines()[-60:])
        except (OSError, StopIteration, ValueError):
            pass
    return f"the page: {shown}\nthe server's log ({log}), last lines:\n{tail}"


# What a page that never becomes idle shows: the script's state, the watcher's counters, the app's connection
# status, and the main area's notices (a heavy job's "Waiting for another user's heavy job..." or "Another session
# is computing this same result...", a progress bar's text): a hang fails with its cause instead of a bare timeout.
_STUCK = """() => { const app = document.querySelector('[data-testid="stApp"]');
  const text = (sel) => [...document.querySelectorAll(sel)].map(e => e.innerText.trim()).filter(Boolean);
  return JSON.stringify({state: app && app.getAttribute("data-test-script-state"), idle: window.__fslabIdle || null,
    now: performance.now(), status: text('[data-testid="stStatusWidget"]'),
    notices: text('[data-testid="stMain"] [data-testid="stAlert"], [data-testid="stMain"] [data-testid="stProgress"]')
      .slice(0, 8)}); }"""


# The view has settled: every visible chart drawn, and the sidebar's edge and the charts' boxes the same in three polls
# 100 ms apart (a fold animation, a chart's first draw, the reflow after a resize or a scroll are over).
_SETTLED = """() => { const charts = [...document.querySelectorAll('[data-testid="stPlotlyChart"]')]
    .filter(c => c.getBoundingClientRect().width > 0);
  if (charts.some(c => !c.querySelector('.main-svg'))) return false;
  const s = document.querySelector('[data-testid="stSidebar"]');
  const now = JSON.stringify([s ? s.getBoundingClientRect().right : 0, ...charts.map(c => {
    const r = c.getBoundingClientRect(); return [r.top, r.left, r.width, r.height]; })]);
  const w = window, same = w.__fslabLayout === now;
  w.__fslabLayout = now; w.__fslabSame = same ? (w.__fslabSame || 0) + 1 : 0; return w.__fslabSame >= 2; }"""


def wait_settled(page, timeout: float = 15_000) -> None:
    """Wait until the view holds still (:data:`_SETTLED`), instead of a fixed sleep before a measure or a screenshot;
    ``timeout`` in ms on an idle machine (scaled to the load)."""
    page.evaluate("() => { window.__fslabLayout = null; window.__fslabSame = 0; }")   # no count from a former view
    page.wait_for_function(_SETTLED, polling=100, timeout=scaled(timeout))


def goto_page(page, title: str) -> None:
    """Click a sidebar navigation link (keeps the session, unlike page.goto), once more if the first click opened
    nothing (seen after "Use this dataset": the address stayed /data); in a :func:`page` tab that has opened nothing
    yet, open the page by its address (a new session either way)."""
    if page.url == "about:blank" and hasattr(page, "fslab_url"):
        page.goto(f"{page.fslab_url}/{page_paths()[title]}")
        wait_idle(page)
        return
    link = page.locator('[data-testid="stSidebarNavLink"]', has_text=title).first
    for _ in range(2):   # a click landing while Streamlit redraws the sidebar (a rerun's end) opens nothing
        link.click()
        wait_idle(page)
        if urlsplit(page.url).path.strip("/") == page_paths()[title]:
            return
    raise AssertionError(f"the sidebar's {title!r} link did not open its page: still at {page.url}")


def download_recipe(page, sidebar) -> Path:
    """Click the share box's "Download recipe (JSON)" once the page's run is over and return the saved file.
    A click that lands while Streamlit redraws the sidebar (the button replaced under the pointer) starts
    no download: one more click after the next idle, never a silent pass."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
    from playwright.sync_api import expect

    button = sidebar.get_by_role("button", name="Download recipe (JSON)")
    for attempt in range(2):
        wait_idle(page)
        expect(button).to_be_visible()
        try:
            with page.expect_download(timeout=scaled(20_000)) as download:
                button.click()
            return Path(download.value.path())
        except PlaywrightTimeoutError:
            if attempt:
                raise
    raise AssertionError("unreachable")


def screenshot(page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def choose(page, label: str, option: str) -> None:
    """Pick ``option`` in the selectbox labelled ``label``.

    Typing into the open dropdown filters it first: Streamlit renders long option lists lazily, so an option far
    down may not exist in the DOM until the list is filtered or scrolled.
    """
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text=label).first
    box.click()
    box.locator("input").fill(option)
    page.get_by_role("option", name=option, exact=True).click()
    wait_idle(page)


@pytest.fixture(scope="module")
def client():
    """A Dask client on a LocalCluster of two worker processes on 127.0.0.1 (issue 14's tests; one per module).

    Workers (and a nanny's restart of a killed one) are spawned, and spawn re-runs the parent's ``__main__`` from
    its file: after an AppTest in the same pytest process that is a page script, so they get a blank one.
    """
    distributed = pytest.importorskip("distributed", reason="dask[distributed] is not installed: "
                                      "pip install 'fslab[dask]'")
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, host="127.0.0.1",
                                       dashboard_address=None)
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()
        sys.modules["__main__"] = main
