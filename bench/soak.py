"""Bounded soak: one `streamlit run app.py` on 127.0.0.1, sessions opening random valid links for a set time.

Every session is a fresh browser context (a new Streamlit session) that opens one random link from ``LINKS`` (every
page, every sample, selectors, measures, k, NPFS settings), waits until the script is idle, records an error when
the page shows an exception or a traceback, and closes (the session ends). ``--parallel`` sessions run at once. Every
``--every`` seconds the server's resident memory (VmRSS), its high-water mark (VmHWM), the sessions so far and the
load average are sampled; the table at the end is memory over time and the errors. ``--worst`` also opens, once
per minute, the worst legal link found (see ``WORST``), refused or asked before work.

    .venv/bin/python bench/soak.py --minutes 5 --parallel 3
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from load_test import CHROMIUM, CHROMIUM_ARGS, IDLE, free_port, start_server, stop_server  # noqa: E402

SAMPLES = ("mushroom", "splice", "waveform", "adult", "semeion", "optdigits")
LINKS = (
    "/",
    "/toy?dist=xor", "/toy?dist=bayes-example-1",
    "/orderings?dist=xor", "/orderings?data=mushroom&source=dataset&measure=zero-one",
    "/compare?data={sample}&k=3", "/compare?data={sample}&measure=mi&k=4",
    "/selection?data={sample}&selector=bayes-greedy&measure=zero-one&k={k}",
    "/selection?data={sample}&selector=mi-greedy&k={k}",
    "/selection?data={sample}&selector=jmi&k={k}",
    "/selection?data={sample}&selector=bayes-greedy&use_s=true&s=2&k={k}",
    "/selection?data={sample}&selector=backward&k={big_k}",
    "/npfs?data={sample}&selector=jmi&k={k}&n={n}&seed={seed}",
    "/npfs?data={sample}&selector=mi-score&k={k}&n={n}&seed={seed}",
)
WORST = ("/selection?data=adult&selector=bayes-greedy&use_s=true&s=6&k=123",
         "/selection?data=adult&selector=backward&k=1",
         "/npfs?data=adult&selector=jmi&k=10&n=5000")
ERROR = '[data-testid="stException"]'


def random_link(rng: random.Random) -> str:
    sample = rng.choice(SAMPLES)
    return rng.choice(LINKS).format(sample=sample, k=rng.randint(1, 8), big_k=rng.choice((100, 110, 200, 250)),
                                    n=rng.choice((20, 50, 100)), seed=rng.randint(0, 3))


def memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) of the server process and its children (NPFS workers), in MB."""
    rss = hwm = 0.0
    for p in [pid, *_children(pid)]:
        try:
            fields = dict(line.split(":", 1) for line in Path(f"/proc/{p}/status").read_text().splitlines()
                          if ":" in line)
        except OSError:
            continue
        rss += float(fields.get("VmRSS", "0 kB").split()[0]) / 1024
        if p == pid:
            hwm = float(fields.get("VmHWM", "0 kB").split()[0]) / 1024
    return rss, hwm


def _children(pid: int) -> list[int]:
    try:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return []
    out = [int(k) for k in kids]
    for k in list(out):
        out += _children(k)
    return out


async def one_session(browser, url: str, timeout_ms: int) -> tuple[str, float, str | None]:
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    start = time.perf_counter()
    try:
        await page.goto(url, timeout=timeout_ms)
        await page.wait_for_selector(IDLE, timeout=timeout_ms)
        await page.wait_for_timeout(300)
        await page.wait_for_selector(IDLE, timeout=timeout_ms)
        error = None
        if await page.locator(ERROR).count():
            error = (await page.locator(ERROR).first.inner_text())[:300]
        elif "Traceback" in await page.content():
            error = "traceback in page"
    except Exception as err:  # a benchmark counts failures, it does not raise
        error = f"{type(err).__name__}: {str(err)[:200]}"
    finally:
        await context.close()
    return url, time.perf_counter() - start, error


async def upload_once(browser, base: str, path: Path, timeout_ms: int) -> str | None:
    """One session uploads ``path`` on the Data page, uses it, opens Select on it, then closes."""
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    try:
        await page.goto(base + "/data", timeout=timeout_ms)
        await page.wait_for_selector(IDLE, timeout=timeout_ms)
        await page.get_by_text("Upload a CSV").click()
        await page.wait_for_selector(IDLE, timeout=timeout_ms)
        await page.get_by_test_id("stMain").locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
            str(path))
        await page.wait_for_timeout(1000)
        await page.wait_for_selector(IDLE, timeout=timeout_ms)
        await page.get_by_role("button", name="Use this dataset").click()
        await page.wait_for_timeout(1000)
        await page.wait_for_selector(IDLE, timeout=timeout_ms)
        await page.get_by_role("link", name="Select").first.click()
        await page.wait_for_timeout(1000)
        await page.wait_for_selector(IDLE, timeout=timeout_ms)
        return (await page.locator(ERROR).first.inner_text())[:300] if await page.locator(ERROR).count() else None
    except Exception as err:
        return f"{type(err).__name__}: {str(err)[:200]}"
    finally:
        await context.close()


async def upload_probe(browser, server, base: str, path: Path, args) -> None:
    """Memory before, at the peak of and after one session's upload (the issue: +7 GB peak, ~5 GB held after)."""
    before, hwm0 = memory_mb(server.pid)
    error = await upload_once(browser, base, path, args.timeout * 1000)
    during, hwm1 = memory_mb(server.pid)
    print(f"upload {path.name} ({path.stat().st_size / 1e6:.1f} MB): RSS before {before:.0f} MB, right after the "
          f"session closed {during:.0f} MB, server peak {hwm0:.0f} -> {hwm1:.0f} MB; error: {error}")
    await asyncio.sleep(30)
    print(f"  30 s after: RSS {memory_mb(server.pid)[0]:.0f} MB")
    # Streamlit keeps a closed session for reconnection (server.disconnectedSessionTTL, 2 minutes) and drops it
    # when its session store is next touched: another session opens once the TTL is over.
    await asyncio.sleep(100)
    await one_session(browser, base + "/", args.timeout * 1000)
    await asyncio.sleep(40)
    print(f"  170 s after (another session opened at 130 s): RSS {memory_mb(server.pid)[0]:.0f} MB")


async def soak(args) -> int:
    from playwright.async_api import async_playwright

    port = free_port()
    log = Path(tempfile.mkdtemp()) / "server.log"
    server = start_server(port, log)
    base = f"http://127.0.0.1:{port}"
    rng = random.Random(args.seed)
    samples, results = [], []
    deadline = time.monotonic() + args.minutes * 60
    begin = time.monotonic()
    try:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            if args.upload:
                await upload_probe(browser, server, base, Path(args.upload), args)
                deadline = time.monotonic() + args.minutes * 60

            async def worker(number: int) -> None:
                next_worst = time.monotonic() + 60 if args.worst and number == 0 else float("inf")
                while time.monotonic() < deadline:
                    if time.monotonic() >= next_worst:
                        link = WORST[int(time.monotonic() - begin) // 60 % len(WORST)]
                        next_worst += 60
                    else:
                        link = random_link(rng)
                    results.append(await one_session(browser, base + link, args.timeout * 1000))

            async def sampler() -> None:
                while time.monotonic() < deadline + 1:
                    rss, hwm = memory_mb(server.pid)
                    samples.append((time.monotonic() - begin, rss, hwm, len(results), os.getloadavg()[0]))
                    await asyncio.sleep(args.every)

            await asyncio.gather(sampler(), *(worker(i) for i in range(args.parallel)))
            await browser.close()
        await asyncio.sleep(args.settle)  # sessions closed: memory after the caches settle
        rss, hwm = memory_mb(server.pid)
        samples.append((time.monotonic() - begin, rss, hwm, len(results), os.getloadavg()[0]))
    finally:
        stop_server(server)
    print(f"{'t (s)':>6} {'RSS MB':>8} {'HWM MB':>8} {'sessions':>8} {'load':>5}")
    for t, rss, hwm, n, load in samples:
        print(f"{t:6.0f} {rss:8.0f} {hwm:8.0f} {n:8d} {load:5.2f}")
    errors = [(url, err) for url, _, err in results if err]
    times = sorted(seconds for _, seconds, _ in results)
    print(f"\nsessions: {len(results)}, errors: {len(errors)}, median open-to-idle {times[len(times) // 2]:.1f} s, "
          f"p90 {times[int(len(times) * 0.9)]:.1f} s, worst {times[-1]:.1f} s")
    for url, err in errors[:20]:
        print(f"  ERROR {url.removeprefix(base)}: {err}")
    warnings = sum("Traceback" in line for line in log.read_text(errors="replace").splitlines())
    print(f"server log: {log} ({warnings} tracebacks)")
    return 1 if errors else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--parallel", type=int, default=3)
    parser.add_argument("--every", type=float, default=15.0)
    parser.add_argument("--settle", type=float, default=10.0)
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--worst", action="store_true")
    parser.add_argument("--upload", help="a CSV to upload in one session first (memory before / after)")
    return asyncio.run(soak(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
