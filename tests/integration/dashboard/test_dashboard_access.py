"""Who reaches the dashboard: --allow-dashboard=false removes it (404), the
statistics group of --http-restricted-api guards it like /v2/models/stats (a
browser then needs the header, as from a proxy that adds it), and without the
repository API (model control mode none) the page shows no load or unload
buttons."""

from __future__ import annotations

import pytest

from conftest import wait_for_js
from util import single_identity

REPO = {"m": single_identity("m", "FP32", [4])}
PATHS = ["/dashboard", "/dashboard/data", "/dashboard/dashboard.js", "/dashboard/uPlot.min.css"]
KEY = {"stats-key": "stats-value"}


@pytest.fixture(scope="module")
def restricted(inferd):
    return inferd(REPO, extra_args=["--http-restricted-api=statistics:stats-key=stats-value"])


def test_off_flag_removes_every_dashboard_path(inferd):
    server = inferd(REPO, extra_args=["--allow-dashboard=false"])
    for path in PATHS:
        assert server.get(path).status_code == 404, path
    assert server.get("/v2/health/ready").status_code == 200
    assert server.get("/v2/models/stats").status_code == 200


def test_statistics_restriction_guards_the_dashboard(restricted):
    for path in PATHS:
        refused = restricted.get(path)
        assert refused.status_code == 403, path
        assert "stats-key" in refused.json()["error"], path
        assert restricted.get(path, headers=KEY).status_code == 200, path
    # The same group as the statistics it shows; other groups stay open.
    assert restricted.get("/v2/models/stats").status_code == 403
    assert restricted.get("/v2/health/ready").status_code == 200


def test_browser_with_the_header_sees_the_page_without_buttons(browser, restricted, artifacts):
    page = browser.new_page()
    try:
        response = page.goto(restricted.url + "/dashboard")
        assert response.status == 403
        page.set_extra_http_headers(KEY)
        page.goto(restricted.url + "/dashboard")
        page.wait_for_selector('#models tbody tr[data-model="m"]')
        wait_for_js(page, "Number(document.body.dataset.updates || 0) >= 2")
        row = page.query_selector('#models tbody tr[data-model="m"]')
        assert row.get_attribute("data-state") == "READY"
        # Model control mode none: the repository API does not load or unload.
        assert row.query_selector_all("button") == []
        assert page.is_hidden("#actions-header")
        page.screenshot(path=str(artifacts / "dashboard-restricted.png"), full_page=True)
    finally:
        page.close()
