"""Section 14 of bench.py: serving more models than memory (--model-memory-budget).

A repository of MODELS ONNX models of 2 MiB of weights each (made here with the
onnx package, as the integration tests make them). First the cold-start
latency: one server whose budget holds them all; for each model, its first
request (the model loads on demand) and then a second (warm), one at a time;
p50/p99 of both. Then the Zipf workload (s = 1.1, CLIENTS Python HTTP client
threads on keep-alive connections) for --duration seconds at budgets that hold
5 %, 20 % and 100 % of the models: requests per second, p50/p99, and the cold
loads and evictions the server's metrics count.
"""
import http.client
import json
import os
import re
import sys
import tempfile
import time
import urllib.request

import numpy as np

# The integration tests' models and helpers: one definition of each.
_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(_ROOT, "tests", "integration"))
sys.path.insert(0, os.path.join(_ROOT, "tests", "integration", "memory_budget"))
from budget_models import run_threads, write_onnx_models  # noqa: E402

MODELS = 100
CLIENTS = 8
ZIPF_S = 1.1
BODY = json.dumps({"inputs": [{"name": "INDEX", "datatype": "INT64", "shape": [4],
                               "data": [0, 1, 2, 3]}]}).encode()


def _write_models(root):
    from pathlib import Path
    write_onnx_models(Path(root), {f"b{i:03d}": i for i in range(MODELS)})


def _metrics(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as response:
        text = response.read().decode()
    samples = {}
    for line in text.splitlines():
        match = re.match(r'^(inferd_model_\w+)(?:\{model="([^"]*)"\})? (\d+)$', line)
        if match:
            samples[(match.group(1), match.group(2) or "")] = int(match.group(3))
    return samples


def _total(samples, family):
    return sum(v for (f, _), v in samples.items() if f == family)


def _infer_ms(connection, model):
    start = time.perf_counter()
    connection.request("POST", f"/v2/models/{model}/infer", BODY,
                       {"Content-Type": "application/json"})
    response = connection.getresponse()
    response.read()
    if response.status != 200:
        raise RuntimeError(f"{model}: HTTP {response.status}")
    return (time.perf_counter() - start) * 1000


def _percentiles(values):
    return np.percentile(values, 50), np.percentile(values, 99)


def _cold_start(build, Inferd, repo):
    server = Inferd(build, repo, ["--model-memory-budget=4G"])
    try:
        server.wait_ready()
        connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=120)
        _infer_ms(connection, "b000")  # the backend's own first-use costs, not a model's
        cold, warm = [], []
        for i in range(1, MODELS):
            cold.append(_infer_ms(connection, f"b{i:03d}"))
            warm.append(_infer_ms(connection, f"b{i:03d}"))
        model_bytes = _metrics(server.metrics_port)[("inferd_model_memory_bytes", "b050")]
    finally:
        server.stop()
    (c50, c99), (w50, w99) = _percentiles(cold), _percentiles(warm)
    print(f"   first request to an unloaded model (cold, {len(cold)} models): p50 {c50:.2f} ms, "
          f"p99 {c99:.2f} ms; the next request (warm): p50 {w50:.2f} ms, p99 {w99:.2f} ms")
    print(f"   attributed bytes of one model: {model_bytes / 2**20:.2f} MiB (weights 2.00 MiB)")
    return model_bytes


def _zipf(build, args, Inferd, repo, budget):
    server = Inferd(build, repo, [f"--model-memory-budget={budget}"])
    latencies, failures = [[] for _ in range(CLIENTS)], []
    try:
        server.wait_ready()
        deadline = time.monotonic() + args.duration

        def client(slot):
            rng = np.random.default_rng(slot)
            weights = 1.0 / np.arange(1, MODELS + 1) ** ZIPF_S
            connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=120)
            while time.monotonic() < deadline:
                for rank in rng.choice(MODELS, size=32, p=weights / weights.sum()):
                    if time.monotonic() >= deadline:
                        break
                    try:
                        latencies[slot].append(_infer_ms(connection, f"b{rank:03d}"))
                    except (RuntimeError, OSError) as e:
                        failures.append(str(e))
                        connection = http.client.HTTPConnection("127.0.0.1", server.http_port,
                                                                timeout=120)

        elapsed = run_threads(client, CLIENTS)
        samples = _metrics(server.metrics_port)
    finally:
        server.stop()
    all_ms = [ms for per_client in latencies for ms in per_client]
    p50, p99 = _percentiles(all_ms) if all_ms else (0, 0)
    return (len(all_ms) / elapsed, p50, p99, len(failures),
            _total(samples, "inferd_model_cold_loads_total"),
            _total(samples, "inferd_model_evictions_total"))


def section_memory_budget(build, args, Inferd):
    print(f"14. memory budget: {MODELS} ONNX models of 2 MiB weights, on-demand loads and LRU "
          f"eviction (bench/memory_budget.py)")
    if not os.path.exists(os.path.join(build, "backends", "onnxruntime")):
        print("   skipped: the onnxruntime backend is not built\n")
        return
    with tempfile.TemporaryDirectory() as repo:
        _write_models(repo)
        model_bytes = _cold_start(build, Inferd, repo)
        for percent in (5, 20, 100):
            # The first model of the backend measures like the others here: its
            # backend was opened before the measurement.
            budget = int(model_bytes * MODELS * percent / 100 * 1.02)
            rate, p50, p99, failed, cold, evicted = _zipf(build, args, Inferd, repo, budget)
            print(f"   Zipf, budget {percent:3d}% of the models ({budget / 2**20:.0f} MiB): "
                  f"{rate:.0f} req/s, p50 {p50:.2f} ms, p99 {p99:.2f} ms, {failed} failed, "
                  f"{cold} cold loads, {evicted} evictions")
    print()
