"""A real browser for the dashboard's tests: Debian's chromium (scripts/install-deps.sh)
driven by Playwright. `playwright install` is never run; every flag that makes
chromium reach out to the network on its own is off, since nothing beyond this
machine can be reached (the page must work with the server alone).

Screenshots go to $INFERD_TEST_ARTIFACTS/dashboard when set, else to the test's
temporary folder; the test names the path it wrote in its output.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
import requests

from util import wait_until

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """A persistent chromium context with a fresh user-data-dir."""
    if not CHROMIUM.is_file():
        pytest.fail(f"{CHROMIUM} is missing: run scripts/install-deps.sh", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=str(CHROMIUM),
            headless=True, args=CHROMIUM_ARGS, viewport={"width": 1400, "height": 1000})
        context.set_default_timeout(15_000)
        yield context
        context.close()


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory) -> Path:
    root = os.environ.get("INFERD_TEST_ARTIFACTS")
    folder = Path(root) / "dashboard" if root else tmp_path_factory.mktemp("dashboard-artifacts")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def wait_for_js(page, expression: str):
    """Waits until `expression`, evaluated in the page, is truthy; returns it.
    Polled from here: Playwright's wait_for_function evaluates its predicate as
    a string, which the page's Content-Security-Policy (no eval) refuses."""
    return wait_until(lambda: page.evaluate(expression), timeout=15,
                      what=f"page state {expression}")


class Load:
    """Threads sending infer requests until stopped: the server under load the
    dashboard shows. Counts what it sent so the tests know load is running."""

    def __init__(self, url: str, requests_by_model: dict[str, list[dict]], threads: int = 3):
        self.url = url
        self.requests_by_model = requests_by_model
        self.sent = 0
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._run, daemon=True) for _ in range(threads)]

    def _run(self) -> None:
        session = requests.Session()
        while not self._stop.is_set():
            for model, bodies in self.requests_by_model.items():
                for body in bodies:
                    try:
                        session.post(f"{self.url}/v2/models/{model}/infer", json=body, timeout=10)
                    except requests.RequestException:
                        pass  # a model being unloaded by the test answers errors
                    self.sent += 1

    def __enter__(self) -> "Load":
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=15)
