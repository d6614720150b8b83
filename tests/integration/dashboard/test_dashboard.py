"""The /dashboard page in a real browser (chromium, Playwright) against a real
server under load: the model table shows every model with its version, state
and reason; the plots update each second; the load and unload buttons work
with the repository API on; the page loads nothing from beyond the server;
/dashboard/data carries the counters the page plots. Screenshots are saved
(conftest.artifacts)."""

from __future__ import annotations

from urllib.parse import urlparse

import pytest

from conftest import Load, wait_for_js
from util import single_identity, wait_until

CACHE_BYTES = 1 << 20
# Batches form (queue delay) and executions take time (5 ms), so queue depth,
# in flight, latency and batch sizes all move under load.
BUSY = single_identity("busy", "FP32", [4], max_batch_size=8, extra=(
    "dynamic_batching { max_queue_delay_microseconds: 2000 }\n"
    'parameters { key: "execute_delay_ms" value: { string_value: "5" } }\n'))
CACHED = single_identity("cached", "FP32", [4], max_batch_size=8,
                         extra="response_cache { enable: true }\n")
BROKEN = single_identity("broken", "FP32", [4]).replace('"identity"', '"no_such_backend"')
REPO = {"busy": BUSY, "cached": CACHED, "broken": BROKEN}


def body(values, shape=(1, 4)):
    return {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": list(shape),
                        "data": values}]}


LOAD = {
    "busy": [body([1, 2, 3, 4]), body([0.5] * 8, shape=(2, 4))],
    # The same input again and again: cache hits after the first; a wrong
    # shape: an error the errors plot counts.
    "cached": [body([1, 1, 1, 1]), body([1, 1, 1, 1]), body([1, 2, 3], shape=(1, 3))],
}


@pytest.fixture(scope="module")
def server(inferd):
    return inferd(REPO, extra_args=[
        "--model-control-mode=explicit", "--load-model=*", "--exit-on-error=false",
        f"--cache-config=local,size={CACHE_BYTES}"], wait_for="live")


@pytest.fixture(scope="module")
def load(server):
    with Load(server.url, LOAD) as running:
        wait_until(lambda: running.sent > 20)
        yield running


@pytest.fixture
def page(browser, server, load):
    page = browser.new_page()
    outside, errors = [], []
    page.on("request", lambda request: outside.append(request.url)
            if urlparse(request.url).netloc != urlparse(server.url).netloc else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(server.url + "/dashboard")
    yield page
    page.close()
    assert not outside, f"the page reached beyond the server: {outside}"
    # A failed load answers 400 (the browser logs the status); nothing else may fail.
    errors = [e for e in errors if "status of 400" not in e]
    assert not errors, f"the page logged errors: {errors}"


def updates(page) -> int:
    return int(page.evaluate("document.body.dataset.updates || '0'"))


def wait_updates(page, more: int = 1) -> None:
    """Waits until the page has applied `more` further answers of /dashboard/data."""
    target = updates(page) + more
    wait_for_js(page, f"Number(document.body.dataset.updates || 0) >= {target}")


def table(page) -> dict[str, dict]:
    rows = {}
    for row in page.query_selector_all("#models tbody tr"):
        cells = [c.inner_text() for c in row.query_selector_all("td")]
        rows[cells[0]] = {"version": cells[1], "state": cells[2], "reason": cells[3],
                          "buttons": [b.inner_text() for b in row.query_selector_all("button")]}
    return rows


def row_state(page, model: str) -> str:
    cell = page.query_selector(f'#models tbody tr[data-model="{model}"] td.state')
    return cell.inner_text() if cell else ""


def test_model_table_shows_every_model_with_version_state_and_reason(page):
    page.wait_for_selector('#models tbody tr[data-model="broken"]')
    rows = table(page)
    assert set(rows) == {"busy", "cached", "broken"}
    assert rows["busy"]["version"] == "1" and rows["busy"]["state"] == "READY"
    assert rows["cached"]["state"] == "READY"
    assert rows["broken"]["state"] == "UNAVAILABLE"
    assert "no_such_backend" in rows["broken"]["reason"]
    assert rows["busy"]["buttons"] == ["Reload", "Unload"]
    assert rows["broken"]["buttons"] == ["Load"]


def plot_image(page, model: str, plot: str) -> str:
    return page.evaluate(
        "([m, p]) => document.querySelector("
        "`.model-panel[data-model=\"${m}\"] [data-plot=\"${p}\"] canvas`).toDataURL()",
        [model, plot])


def test_plots_update_every_second_under_load(page, artifacts):
    busy = '.model-panel[data-model="busy"]'
    page.wait_for_selector(busy)
    # Two answers make the first rates; the load shows in the rate and batches.
    wait_for_js(page,
        f"Number(document.querySelector('{busy} [data-plot=requests]').dataset.rate) > 0")
    wait_for_js(page,
        f"Number(document.querySelector('{busy} [data-plot=batch]').dataset.executions) > 0")
    for name in ("requests", "load", "latency", "batch", "cache"):
        assert page.query_selector(f"{busy} [data-plot={name}] canvas"), name
    points = int(page.get_attribute(f"{busy} [data-plot=latency]", "data-points"))
    before = plot_image(page, "busy", "requests")
    wait_updates(page, 2)
    assert int(page.get_attribute(f"{busy} [data-plot=latency]", "data-points")) > points
    assert plot_image(page, "busy", "requests") != before  # the canvas was redrawn
    # The response cache answers the repeated input of "cached".
    wait_for_js(page,
        "document.querySelector('.model-panel[data-model=\"cached\"] [data-plot=cache]')"
        ".dataset.points > 2")
    assert page.inner_text("#process-memory").endswith("iB")
    assert page.inner_text("#process-cpu").endswith("%")
    shot = artifacts / "dashboard-under-load.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot: {shot}")
    assert shot.stat().st_size > 10_000
    # The first screen alone, as docs/dashboard.png shows it.
    page.screenshot(path=str(artifacts / "dashboard-first-screen.png"))


def test_unload_and_load_buttons_use_the_repository_api(page, server, artifacts):
    page.wait_for_selector('#models tbody tr[data-model="cached"] button[data-action="unload"]')
    page.click('#models tbody tr[data-model="cached"] button[data-action="unload"]')
    wait_for_js(page,
        "document.querySelector('#models tbody tr[data-model=\"cached\"]')"
        "?.dataset.state === 'UNAVAILABLE'")
    assert server.get("/v2/models/cached/ready").status_code == 400
    assert "unload cached: done" in page.inner_text("#message")
    page.screenshot(path=str(artifacts / "dashboard-unloaded.png"), full_page=True)
    page.click('#models tbody tr[data-model="cached"] button[data-action="load"]')
    wait_for_js(page,
        "document.querySelector('#models tbody tr[data-model=\"cached\"]')"
        "?.dataset.state === 'READY'")
    assert server.get("/v2/models/cached/ready").status_code == 200
    # A load that fails shows the server's reason.
    page.click('#models tbody tr[data-model="broken"] button[data-action="load"]')
    wait_for_js(page, "document.querySelector('#message').textContent.includes('failed')")
    assert "no_such_backend" in page.inner_text("#message")


def test_data_endpoint_carries_counters_the_page_plots(server, load):
    first = server.get("/dashboard/data")
    assert first.status_code == 200
    assert first.headers["Content-Type"] == "application/json"
    data = first.json()
    bounds = data["latency_bounds_seconds"]
    assert bounds == sorted(bounds) and len(bounds) > 3
    models = {m["name"]: m for m in data["models"]}
    assert models["broken"]["stats"] is None
    busy = models["busy"]["stats"]
    assert len(busy["queue_buckets"]) == len(bounds) + 1
    assert len(busy["compute_buckets"]) == len(bounds) + 1
    assert data["repository_api"] is True
    assert data["process"]["resident_bytes"] > 0


    def busy_success():
        answer = server.get("/dashboard/data").json()
        return next(m for m in answer["models"] if m["name"] == "busy")["stats"]["success"]

    # Counters: the next answers carry more, under load.
    wait_until(lambda: busy_success() > busy["success"], what="busy's success count to grow")
    assert server.get("/dashboard/dashboard.js").headers["Content-Type"].startswith(
        "text/javascript")
    assert server.get("/dashboard/nothing.js").status_code == 404
    assert server.post("/dashboard/data").status_code == 405
