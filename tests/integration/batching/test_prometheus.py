"""A real Prometheus server (Debian's `prometheus` package, installed by
scripts/install-deps.sh) scrapes inferd's metrics port every second; the test
then reads Prometheus' HTTP API: the target must be healthy ("up") and the
query nv_inference_count must return what inferd counted. Skipped only when the
prometheus binary is not installed.
"""

import shutil
import socket
import subprocess
import time

import pytest
import requests

from batching_util import expect_ok, start_env

PROMETHEUS = shutil.which("prometheus")
WAIT_S = 30.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def env(inferd, tmp_path_factory):
    return start_env(inferd, tmp_path_factory, {"m": dict(max_batch_size=8)})


@pytest.fixture
def prometheus(env, tmp_path):
    """A Prometheus scraping env.server's metrics port; yields its base URL."""
    if PROMETHEUS is None:
        pytest.skip("the prometheus binary is not installed "
                    "(Debian package `prometheus`; scripts/install-deps.sh installs it)")
    config = tmp_path / "prometheus.yml"
    config.write_text(
        "global:\n"
        "  scrape_interval: 1s\n"
        "  scrape_timeout: 1s\n"
        "scrape_configs:\n"
        "  - job_name: inferd\n"
        "    metrics_path: /metrics\n"
        "    static_configs:\n"
        f"      - targets: ['127.0.0.1:{env.server.metrics_port}']\n")
    port = free_port()
    log_path = tmp_path / "prometheus.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{port}", "--log.level=warn"],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        yield f"http://127.0.0.1:{port}", process, log_path
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


def poll(what, probe, process, log_path):
    """Calls probe() until it returns a non-None value, within WAIT_S. `what`
    (text, or a function giving it) describes the failure."""
    deadline = time.monotonic() + WAIT_S
    last = None
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"prometheus exited with {process.returncode}:\n{log_path.read_text()}")
        try:
            result = probe()
            if result is not None:
                return result
            last = "not yet"
        except requests.RequestException as exc:
            last = repr(exc)
        time.sleep(0.2)
    what = what() if callable(what) else what
    pytest.fail(f"{what} within {WAIT_S}s (last: {last})\n{log_path.read_text()[-3000:]}")


def test_prometheus_scrapes_inferd(env, prometheus):
    url, process, log_path = prometheus
    with env.exchange("m") as ex:
        for i in range(3):
            expect_ok(ex.send(f"x{i}", rows=2))
    expected = env.stats("m")["inference_count"]
    assert expected == 6

    def target_up():
        targets = requests.get(f"{url}/api/v1/targets", timeout=2).json()["data"]["activeTargets"]
        for target in targets:
            if target["labels"].get("job") == "inferd":
                assert target["health"] in ("up", "unknown"), (
                    f"prometheus cannot scrape inferd: {target}")
                return target if target["health"] == "up" else None
        return None

    target = poll("the inferd target is not up", target_up, process, log_path)
    assert target["scrapeUrl"] == f"http://127.0.0.1:{env.server.metrics_port}/metrics"
    assert target["lastError"] == ""

    def query(expr, want):
        """Polls the instant query `expr` until want(results) holds (scrapes
        taken before the requests ran show older values)."""
        seen = []

        def probe():
            body = requests.get(f"{url}/api/v1/query", params={"query": expr}, timeout=2).json()
            assert body["status"] == "success", body
            seen[:] = [body["data"]["result"]]
            return body["data"]["result"] if want(body["data"]["result"]) else None

        return poll(lambda: f"{expr}: expected value not seen (last result {seen})", probe,
                    process, log_path)

    def single(value):
        return lambda results: len(results) == 1 and float(results[0]["value"][1]) == value

    (sample,) = query("nv_inference_count", single(expected))
    assert sample["metric"]["__name__"] == "nv_inference_count"
    assert sample["metric"]["model"] == "m" and sample["metric"]["version"] == "1"
    assert sample["metric"]["job"] == "inferd"
    query('nv_inference_exec_count{model="m"}', single(3))
    query('nv_inference_request_success{model="m"}', single(3))
    query('inferd_request_latency_seconds_count{model="m"}', single(3))
    buckets = query('inferd_request_latency_seconds_bucket{model="m",le="+Inf"}', single(3))
    assert buckets[0]["metric"]["le"] == "+Inf"
