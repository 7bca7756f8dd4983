"""Load test: many browser sessions at once against one `streamlit run app.py` (issue 9, part 1).

Starts the app on 127.0.0.1 (a free port, headless, no usage statistics), waits for ``/_stcore/health``, then
drives N concurrent Playwright contexts of one Debian chromium through the teaching flow:

1. Toy distribution page: load a preset (sessions rotate through Example 1, XOR and the redundant copy, so
   neighbouring sessions hold different data and must get different answers);
2. Select page, source = toy distribution: BayesGreedy with the 0-1 error, then MIGreedy, each checked
   against the session's own expected pick (Example 1, k = 1: X1 and X2; the others from ``fslab.select``);
3. Orderings page: the Hasse diagram is drawn for the session's own lattice (2^n subsets of its preset).

Each session records its time per step; the table gives ok / failed, median, p90 and worst seconds, the
server's peak resident memory (VmHWM of the server process) and the wall time. ``--heavy`` repeats the round
with a fresh server plus one extra session that runs NPFS with many bootstraps in a loop on the NPFS page,
and reports the light sessions with and without it.

    .venv/bin/python bench/load_test.py                   # 30 sessions
    .venv/bin/python bench/load_test.py --heavy           # 30 sessions alone, then 30 + one heavy session
    .venv/bin/python bench/load_test.py --sessions 5 --headed

``--upload`` (issue 32) is another benchmark on the same server: one session uploads each hostile file of
tests/upload_bombs.py on the Data page while another loads Home ``--home-loads`` times; the table gives Home's
median during each upload against the idle server's, and the server's resident memory before and at its peak.

    .venv/bin/python bench/load_test.py --upload                        # this checkout
    .venv/bin/python bench/load_test.py --upload --root /tmp/before     # another one (e.g. git archive of HEAD~)
    .venv/bin/python bench/load_test.py --upload --files /tmp/fslab-upload-memory/numeric45.csv   # legitimate ones

It is a benchmark, not a unit test: timeouts are generous and a failed session is counted, not raised.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fslab.pena_nilsson.toy import PRESETS  # noqa: E402
from fslab.selectors import select  # noqa: E402

CHROMIUM = os.environ.get("FSLAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--disable-quic"]
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
# (preset key, k): the answers differ between the three, so a session shown a neighbour's result fails
PLANS = (("bayes-example-1", 1), ("xor", 2), ("redundant-copies", 3))
STEPS = ("open", "preset", "bayes-greedy", "mi-greedy", "hasse")


@dataclass(frozen=True)
class Plan:
    preset: str
    label: str
    k: int
    n_features: int
    bayes: str  # expected "Selected: ..." text of BayesGreedy 0-1
    mi: str     # and of MIGreedy


def make_plan(preset: str, k: int) -> Plan:
    dist = PRESETS[preset].factory()
    bayes = select(dist, k, "bayes-greedy", measure="zero-one").names
    mi = select(dist, k, "mi-greedy").names
    if preset == "bayes-example-1":  # the paper's Example 1: the 0-1 error picks X1, mutual information X2
        assert (tuple(bayes), tuple(mi)) == (("X1",), ("X2",)), (bayes, mi)
    return Plan(preset, PRESETS[preset].label, k, dist.n_features,
                "Selected: " + ", ".join(bayes), "Selected: " + ", ".join(mi))


@dataclass
class Outcome:
    name: str
    ok: bool = False
    seconds: float = 0.0
    steps: dict[str, float] = field(default_factory=dict)
    error: str = ""


# --- the server -----------------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, log_path: Path, root: Path = ROOT) -> subprocess.Popen:
    """``streamlit run app.py`` of the checkout ``root`` on 127.0.0.1:port, once its health check answers."""
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", "PYTHONPATH": str(root)}
    log = open(log_path, "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"], cwd=root, stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 90
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}; see {log_path}")
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2).read() == b"ok":
                return proc
        except OSError:
            pass
        if time.monotonic() > deadline:
            stop_server(proc)
            raise RuntimeError("streamlit did not become healthy within 90 s")
        time.sleep(0.25)


def stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def peak_rss_mb(pid: int) -> float:
    """VmHWM (peak resident set) of a live process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process (and its waited-for children)."""
    fields_ = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(v) for v in fields_[11:15]) / os.sysconf("SC_CLK_TCK")


# --- one browser session --------------------------------------------------------------------------

async def wait_idle(page) -> None:
    await page.wait_for_timeout(300)
    await page.wait_for_selector(IDLE)


async def goto_page(page, title: str) -> None:
    await page.locator('[data-testid="stSidebarNavLink"]', has_text=title).first.click()
    await wait_idle(page)


async def choose(page, label: str, option: str) -> None:
    box = page.locator('[data-testid="stSelectbox"]').filter(has_text=label).first
    for _ in range(3):  # retried like the clicks in light_session: a choice made during a busy rerun can be lost
        await box.click()
        await box.locator("input").fill(option)
        await page.get_by_role("option", name=option, exact=True).click()
        await wait_idle(page)
        if await page.get_by_role("combobox", name=label).input_value() == option:
            return


async def light_session(browser, url: str, number: int, plan: Plan, timeout_ms: int) -> Outcome:
    from playwright.async_api import expect

    out = Outcome(f"light-{number:02d} {plan.preset}")
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await ctx.new_page()
    page.set_default_timeout(timeout_ms)
    start = last = time.perf_counter()

    def lap(step: str) -> None:
        nonlocal last
        now = time.perf_counter()
        out.steps[step], last = now - last, now

    try:
        await page.goto(url)
        await wait_idle(page)
        lap("open")
        main = page.locator('[data-testid="stMain"]')
        await goto_page(page, "Toy distribution")
        if plan.preset != "bayes-example-1":
            await choose(page, "Preset", plan.label)
        await main.get_by_role("button", name="Load preset").click()
        await wait_idle(page)
        await expect(main.get_by_text(f"Current distribution: {plan.label}")).to_be_visible(timeout=timeout_ms)
        lap("preset")

        await goto_page(page, "Select")
        # a click or an edit sent while the server is still busy with the previous run can be lost: retry
        toy = page.get_by_role("radio", name="Toy distribution:", exact=False)
        k_box = page.locator('[data-testid="stNumberInput"]').filter(has_text="k (features").locator("input")
        for _ in range(5):
            if not await toy.is_checked():
                await main.get_by_text("Toy distribution:", exact=False).first.click()
                await wait_idle(page)
            if await k_box.input_value() != str(plan.k):
                await k_box.fill(str(plan.k))
                await k_box.press("Enter")
                await wait_idle(page)
            if await toy.is_checked() and await k_box.input_value() == str(plan.k):
                break
        await expect(page.get_by_role("combobox", name="Measure")).to_have_value("0-1 error", timeout=timeout_ms)
        selected = main.get_by_text("Selected:").first
        await expect(selected).to_have_text(plan.bayes, timeout=timeout_ms)
        lap("bayes-greedy")
        await choose(page, "Selector", "MIGreedy")
        await expect(selected).to_have_text(plan.mi, timeout=timeout_ms)
        lap("mi-greedy")

        await goto_page(page, "Orderings")
        hasse = main.locator('[data-testid="stPlotlyChart"]').first
        await hasse.locator("g.scatterlayer g.trace").first.wait_for()
        await expect(main.get_by_text(f"{2 ** plan.n_features} subsets of {plan.label}")).to_be_visible(
            timeout=timeout_ms)
        lap("hasse")
        out.ok = True
    except Exception as err:  # a benchmark counts failures instead of stopping at the first one
        out.error = f"{type(err).__name__}: {' | '.join(str(err).splitlines()[:6])[:400]}"
        shot = Path(tempfile.gettempdir()) / f"fslab-load-light-{number:02d}.png"
        await page.screenshot(path=str(shot))
        out.error += f" (screenshot {shot})"
    out.seconds = time.perf_counter() - start
    await ctx.close()
    return out


async def looping_session(browser, name: str, timeout_ms: int, body) -> Outcome:
    """A browser context that runs ``await body(page, out)`` (a loop until the round ends, recording each run's
    seconds in ``out.steps``); a failure is counted in the outcome, and the last view is saved as a screenshot."""
    out = Outcome(name)
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await ctx.new_page()
    page.set_default_timeout(timeout_ms)
    start = time.perf_counter()
    try:
        await body(page, out)
        await page.screenshot(path=str(Path(tempfile.gettempdir()) / f"fslab-load-{name.split()[0]}.png"))
        out.ok = True
    except Exception as err:
        out.error = f"{type(err).__name__}: {' | '.join(str(err).splitlines()[:6])[:400]}"
    out.seconds = time.perf_counter() - start
    await ctx.close()
    return out


async def heavy_session(browser, url: str, stop: asyncio.Event, bootstraps: int, timeout_ms: int) -> Outcome:
    """NPFS on the default data set (Mushroom, JMI, k = 10) with ``bootstraps`` bootstraps, a new seed per run,
    until ``stop`` is set; ``steps`` holds each run's seconds."""
    from playwright.async_api import expect

    async def body(page, out: Outcome) -> None:
        await page.goto(url)
        await wait_idle(page)
        await goto_page(page, "NPFS")
        boxes = page.locator('[data-testid="stNumberInput"]')
        n_box = boxes.filter(has_text="n (bootstraps)").locator("input")
        seed_box = boxes.filter(has_text="seed").locator("input")
        main = page.locator('[data-testid="stMain"]')
        run = 0
        while not stop.is_set():
            run += 1
            for box, value in ((n_box, bootstraps), (seed_box, run)):  # edits made during a busy rerun can be lost
                while await box.input_value() != str(value):
                    await box.fill(str(value))
                    await box.press("Enter")
                    await wait_idle(page)
            t0 = time.perf_counter()
            await page.get_by_role("button", name="Run NPFS").click()  # a large run shows its estimate above it
            await page.wait_for_timeout(500)  # under load the rerun may start after a first idle check
            await wait_idle(page)
            # the finished run of these settings is on the page (not an error, not the previous run)
            await expect(main.get_by_text("The settings changed")).to_have_count(0, timeout=timeout_ms)
            await expect(main.get_by_text("k* (relevant features)")).to_be_visible(timeout=timeout_ms)
            out.steps[f"run {run}"] = time.perf_counter() - t0

    return await looping_session(browser, "heavy NPFS", timeout_ms, body)


async def link_session(browser, url: str, link: str, done: str, stop: asyncio.Event, timeout_ms: int) -> Outcome:
    """Opens ``link`` (a share link, e.g. the worst legal one) again and again until ``stop`` is set, each time
    with a new ``seed`` so no shared result can be reused, presses the first "Run..." button it shows (the cost
    guard's *Run* or the page's own, e.g. *Run NPFS*) and waits until ``done`` (a text of the finished result) is
    on the page; ``steps`` holds each opening's seconds."""
    import re

    from playwright.async_api import expect

    async def body(page, out: Outcome) -> None:
        main = page.locator('[data-testid="stMain"]')
        run = 0
        while not stop.is_set():
            run += 1
            t0 = time.perf_counter()
            await page.goto(f"{url}/{link}{'&' if '?' in link else '?'}seed={run}")
            button = main.get_by_role("button", name=re.compile(r"^Run\b"))
            await button.first.wait_for()
            await button.first.click()
            await expect(main.get_by_text(done).first).to_be_visible(timeout=timeout_ms)
            out.steps[f"run {run}"] = time.perf_counter() - t0
            print(f"  link run {run}: {out.steps[f'run {run}']:.1f} s", flush=True)

    return await looping_session(browser, "link", timeout_ms, body)


# --- one round: a fresh server, N light sessions, optionally one heavy one -------------------------

@dataclass
class Round:
    label: str
    outcomes: list[Outcome]
    heavy: Outcome | None
    wall: float
    peak_mb: float
    server_cpu: float


async def run_round(args, label: str, with_heavy: bool) -> Round:
    from playwright.async_api import async_playwright

    plans = [make_plan(p, k) for p, k in PLANS]
    port = args.port or free_port()
    log_path = Path(tempfile.gettempdir()) / f"fslab-load-{port}.log"
    server = start_server(port, log_path, Path(args.root).resolve())
    url = f"http://127.0.0.1:{port}"
    timeout_ms = int(args.timeout * 1000)
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, headless=not args.headed,
                                              args=CHROMIUM_ARGS if not args.headed else CHROMIUM_ARGS[1:])
            stop = asyncio.Event()
            heavy_task = None
            if with_heavy and args.link:
                heavy_task = asyncio.create_task(
                    link_session(browser, url, args.link, args.link_done, stop, timeout_ms))
                await asyncio.sleep(args.heavy_lead)
            elif with_heavy:
                heavy_task = asyncio.create_task(heavy_session(browser, url, stop, args.bootstraps, timeout_ms))
                await asyncio.sleep(args.heavy_lead)  # the heavy job is under way before the class arrives
            start = time.perf_counter()

            async def staggered(i: int) -> Outcome:
                await asyncio.sleep(i * args.stagger)
                out = await light_session(browser, url, i + 1, plans[i % len(plans)], timeout_ms)
                print(f"  {out.name}: {'ok' if out.ok else 'FAILED'} {out.seconds:.1f} s", flush=True)
                return out

            outcomes = await asyncio.gather(*(staggered(i) for i in range(args.sessions)))
            wall = time.perf_counter() - start
            stop.set()
            heavy = await heavy_task if heavy_task else None
            await browser.close()
        return Round(label, list(outcomes), heavy, wall, peak_rss_mb(server.pid), cpu_seconds(server.pid))
    finally:
        stop_server(server)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def report(rounds: list[Round]) -> None:
    head = (f"{'round':<22} {'sessions':>8} {'ok':>4} {'failed':>6} {'median s':>9} {'p90 s':>7} {'worst s':>8} "
            f"{'peak RSS MB':>11} {'server CPU s':>12} {'wall s':>7}")
    print(head)
    print("-" * len(head))
    for r in rounds:
        times = [o.seconds for o in r.outcomes if o.ok] or [float("nan")]
        ok = sum(o.ok for o in r.outcomes)
        print(f"{r.label:<22} {len(r.outcomes):>8} {ok:>4} {len(r.outcomes) - ok:>6} {statistics.median(times):>9.1f} "
              f"{quantile(times, 0.9):>7.1f} {max(times):>8.1f} {r.peak_mb:>11.0f} {r.server_cpu:>12.1f} "
              f"{r.wall:>7.1f}")
    for r in rounds:
        cells = []
        for s in STEPS:
            vals = [o.steps[s] for o in r.outcomes if o.ok and s in o.steps]
            if vals:
                cells.append(f"{s} {statistics.median(vals):.1f}/{max(vals):.1f}")
        print(f"  {r.label}: per step median/worst s: " + ", ".join(cells))
        if r.heavy is not None:
            runs = list(r.heavy.steps.values())
            print(f"  {r.label}: {r.heavy.name} session {len(runs)} run(s), "
                  + (f"median {statistics.median(runs):.1f} s" if runs else "none finished")
                  + (f"; error: {r.heavy.error}" if r.heavy.error else ""))
        for o in r.outcomes:
            if not o.ok:
                print(f"  FAILED {o.name} after {o.seconds:.1f} s: {o.error}")


# --- hostile uploads (issue 32): one session uploads, another loads Home ---------------------------

def rss_mb(pid: int) -> float:
    """VmRSS (resident set now) of a live process, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def home_times(browser, url: str, times: int, timeout_ms: int) -> list[float]:
    """Seconds of ``times`` loads of Home in a new session each (open the page, wait for its script to finish)."""
    out = []
    for _ in range(times):
        ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
        page = await ctx.new_page()
        page.set_default_timeout(timeout_ms)
        t0 = time.perf_counter()
        await page.goto(url)
        await wait_idle(page)
        await page.locator('[data-testid="stMain"]').get_by_text("Current dataset:").first.wait_for()
        out.append(time.perf_counter() - t0)
        await ctx.close()
    return out


async def upload_file(browser, url: str, path: Path, timeout_ms: int, started: asyncio.Event) -> tuple[float, str]:
    """Upload ``path`` on the Data page (``started`` is set as the file is sent); (seconds until the page answered,
    its first error or "accepted")."""
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
    page = await ctx.new_page()
    page.set_default_timeout(timeout_ms)
    await page.goto(url)
    await wait_idle(page)
    await goto_page(page, "Data")
    main = page.locator('[data-testid="stMain"]')
    uploader = page.locator('[data-testid="stFileUploaderDropzoneInput"][accept*=".parquet"]')
    t0 = time.perf_counter()
    try:
        for _ in range(5):   # a click sent during a busy rerun can be lost: until the uploader shows
            await main.get_by_text("Upload a CSV").first.click()
            await wait_idle(page)
            if await uploader.count():
                break
        t0 = time.perf_counter()
        started.set()
        await uploader.set_input_files(str(path))
        answer = main.locator('[data-testid="stAlertContentError"]').or_(main.get_by_text("Target column"))
        await answer.first.wait_for(timeout=timeout_ms)
        await wait_idle(page)
        errors = main.locator('[data-testid="stAlertContentError"]')
        said = (await errors.first.inner_text()).splitlines()[0] if await errors.count() else "accepted"
    except Exception as err:   # a benchmark records the failure
        said = f"FAILED {type(err).__name__}: {str(err).splitlines()[0][:200]}"
    seconds = time.perf_counter() - t0
    started.set()
    await ctx.close()
    return seconds, said


async def watch_rss(pid: int, stop: asyncio.Event, peak: list[float]) -> None:
    while not stop.is_set():
        peak[0] = max(peak[0], rss_mb(pid))
        await asyncio.sleep(0.05)


def hostile_files(directory: Path, cells: int = 50) -> dict[str, Path]:
    """The issue's hostile uploads (tests/upload_bombs.py), written once to ``directory`` (a file is rebuilt when
    tests/upload_bombs.py is newer); ``cells``: the pathological CSV's cells of 100,000 characters."""
    from tests import upload_bombs as bombs

    directory.mkdir(parents=True, exist_ok=True)
    built = Path(bombs.__file__).stat().st_mtime
    made = {f"pathological cells ({cells / 10:g} MB CSV)": (f"cells{cells}.csv",
                                                            lambda: bombs.pathological_cells(cells)),
            "fixed_size_binary bomb (26 KB parquet)": ("fixed.parquet", bombs.parquet_fixed_binary_bomb),
            "string_view bomb (47 KB parquet)": ("view.parquet", bombs.parquet_string_view_bomb),
            "lying page headers (4.7 KB parquet)": ("lying.parquet", bombs.parquet_lying_pages),
            "lying 2 GB gzip page (1.9 MB parquet)": ("page.parquet", bombs.parquet_page_bomb),
            "gzip bomb renamed .csv (261 KB)": ("bomb.csv", bombs.gzip_bomb)}
    files = {}
    for label, (name, build) in made.items():
        path = directory / name
        if not path.exists() or path.stat().st_mtime < built:
            path.write_bytes(build())
        files[label] = path
    return files


async def upload_round(args) -> list[dict]:
    """A fresh server; Home loaded ``--home-loads`` times on the idle server, then during each hostile upload."""
    from playwright.async_api import async_playwright

    files = {Path(f).name: Path(f).resolve() for f in args.files} if args.files else \
        hostile_files(Path(tempfile.gettempdir()) / "fslab-hostile-uploads", args.cells)
    if args.only:
        files = {k: v for k, v in files.items() if any(o in k for o in args.only)}
    port = args.port or free_port()
    log_path = Path(tempfile.gettempdir()) / f"fslab-load-{port}.log"
    server = start_server(port, log_path, Path(args.root).resolve())
    url = f"http://127.0.0.1:{port}"
    timeout_ms = int(args.timeout * 1000)
    rows = []
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            await home_times(browser, url, 1, timeout_ms)   # warm: the first Home run imports the pages
            base = rss_mb(server.pid)
            idle = await home_times(browser, url, args.home_loads, timeout_ms)
            rows.append({"upload": "(idle server)", "home": idle, "answer": "", "upload_s": 0.0,
                         "base_mb": base, "peak_mb": rss_mb(server.pid), "load": os.getloadavg()[0]})
            for i, label in enumerate(files):
                path = files[label]
                if args.paired and i:   # this upload's own idle baseline, just before it (a machine whose load
                    idle = await home_times(browser, url, args.home_loads, timeout_ms)   # drifts); the first: above
                stop, peak = asyncio.Event(), [0.0]
                before = rss_mb(server.pid)
                watcher = asyncio.create_task(watch_rss(server.pid, stop, peak))
                started = asyncio.Event()
                uploading = asyncio.create_task(upload_file(browser, url, path, timeout_ms, started))
                await started.wait()   # the other session arrives as the file is sent (not while the uploader's
                # own session opens the app and the Data page: that is any session's cost, not the upload's)
                home = await home_times(browser, url, args.home_loads, timeout_ms)
                seconds, said = await uploading
                stop.set()
                await watcher
                rows.append({"upload": label, "home": home, "answer": said, "upload_s": seconds, "idle": idle,
                             "base_mb": before, "peak_mb": peak[0], "load": os.getloadavg()[0]})
                print(f"  {label}: upload {seconds:.1f} s ({said[:90]}), Home median "
                      f"{statistics.median(home):.2f} s, server RSS {before:.0f} -> peak {peak[0]:.0f} MB", flush=True)
            await browser.close()
    finally:
        stop_server(server)
    return rows


def upload_report(rows: list[dict]) -> bool:
    """The table of an upload round; True when Home's median stays within 2x of idle during every upload and the
    server's resident memory under the upload limit + 500 MB (the issue's goals)."""
    from fslab.limits import server_limits

    bound = server_limits().max_upload_mb + 500
    head = (f"{'upload':<40} {'upload s':>8} {'idle s':>6} {'Home median s':>13} {'x idle':>6} {'Home worst s':>12} "
            f"{'RSS before MB':>13} {'RSS peak MB':>11} {'load':>5}  answer")
    print(head)
    print("-" * len(head))
    ok = True
    for r in rows:
        median, idle = statistics.median(r["home"]), statistics.median(r.get("idle", rows[0]["home"]))
        ok &= r["peak_mb"] <= bound
        print(f"{r['upload']:<40} {r['upload_s']:>8.1f} {idle:>6.2f} {median:>13.2f} {median / idle:>6.2f} "
              f"{max(r['home']):>12.2f} {r['base_mb']:>13.0f} {r['peak_mb']:>11.0f} {r['load']:>5.1f}  "
              f"{r['answer'][:100]}")
    during = [t for r in rows[1:] for t in r["home"]]
    baselines = {id(r["idle"]): r["idle"] for r in rows[1:]}   # the idle loads each upload is compared with
    idle = [t for times in baselines.values() for t in times] or rows[0]["home"]
    ratio = statistics.median(during) / statistics.median(idle) if during else 1.0
    ok &= ratio <= 2
    print(f"goals: Home's median during the uploads {ratio:.2f}x its idle median ({len(during)} and {len(idle)} "
          f"loads; at most 2x), server RSS under {bound} MB: {'met' if ok else 'NOT met'}")
    return ok


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=30, help="concurrent light sessions (default 30)")
    parser.add_argument("--heavy", action="store_true",
                        help="also run a round with one extra session running NPFS in a loop, and compare")
    parser.add_argument("--heavy-only", action="store_true", help="only the round with the heavy session")
    parser.add_argument("--bootstraps", type=int, default=1000, help="NPFS bootstraps per heavy run (default 1000)")
    parser.add_argument("--port", type=int, default=0, help="server port (default: a free one)")
    parser.add_argument("--headed", action="store_true", help="show the browser (default: headless)")
    parser.add_argument("--stagger", type=float, default=0.2, help="seconds between session starts")
    parser.add_argument("--heavy-lead", type=float, default=8.0, help="seconds the heavy session runs alone first")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds any one browser wait may take")
    parser.add_argument("--link", default="",
                        help="the heavy session opens this share link in a loop (e.g. 'npfs?data=adult&n=5000') "
                             "instead of running NPFS from the page's widgets")
    parser.add_argument("--link-done", default="k* (relevant features)",
                        help="text on the page once the link's job has finished (default: NPFS's result)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="alternate the rounds this many times (A B A B ...) and compare medians of medians")
    parser.add_argument("--root", default=str(ROOT), help="checkout to serve (default: this one)")
    parser.add_argument("--upload", action="store_true",
                        help="issue 32: Home loaded --home-loads times while another session uploads each hostile "
                             "file (5 MB of pathological cells, parquet bombs, a gzip bomb); Home's median against "
                             "the idle server's, the server's peak RSS")
    parser.add_argument("--home-loads", type=int, default=10, help="Home loads per upload (default 10)")
    parser.add_argument("--paired", action="store_true", help="with --upload: measure idle Home again before each "
                                                              "upload and compare with that (a drifting load)")
    parser.add_argument("--only", nargs="*", default=[], help="with --upload: only the uploads whose label has one "
                                                              "of these words")
    parser.add_argument("--cells", type=int, default=50, help="with --upload: cells of 100,000 characters in the "
                                                               "pathological CSV (default 50: 5 MB)")
    parser.add_argument("--files", nargs="*", default=[], help="with --upload: upload these files instead of the "
                                                               "hostile ones (e.g. the legitimate tables of "
                                                               "bench/upload_memory.py)")
    args = parser.parse_args(argv)
    if args.upload:
        print(f"{os.cpu_count()} cores, load average {' / '.join(f'{v:.2f}' for v in os.getloadavg())}, serving "
              f"{args.root}", flush=True)
        return 0 if upload_report(asyncio.run(upload_round(args))) else 1
    print(f"{args.sessions} sessions, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}", flush=True)
    plan = [("light only", False)] if not args.heavy_only else []
    if args.heavy or args.heavy_only:
        plan.append((f"light + {'link' if args.link else '1 heavy NPFS'}", True))
    plan = plan * args.repeat
    rounds = []
    for label, with_heavy in plan:
        print(f"round: {label}", flush=True)
        rounds.append(asyncio.run(run_round(args, label, with_heavy)))
    report(rounds)
    if len({r.label for r in rounds}) == 2:
        medians = {}
        for r in rounds:
            times = [o.seconds for o in r.outcomes if o.ok]
            if times:
                medians.setdefault(r.label, []).append(statistics.median(times))
        if len(medians) == 2:
            (a, am), (b, bm) = medians.items()
            ratio = statistics.median(bm) / statistics.median(am)
            print(f"median session time, {b} / {a}: {ratio:.3f} (medians of {len(am)} and {len(bm)} rounds; "
                  f"load average now {os.getloadavg()[0]:.2f})")
    return 0 if all(o.ok for r in rounds for o in r.outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
