#!/usr/bin/env python3
"""Throughput of the example MLP (examples/models/onnx_mlp) through inferd next to
the same model run in-process by ONNX Runtime: how close the server comes to
the ceiling.

    .venv/bin/python bench/onnx_mlp.py [--seconds 10] [--concurrency 64]

1. Ceiling: build/backends/onnxruntime/inferd_ort_bench runs the model with the
   same libonnxruntime at batch 64, with as many intra-op threads as the server's
   single instance gets (every core), and reports rows per second.
2. inferd: build/inferd serves only onnx_mlp (dynamic batching, max_batch_size
   64); build/backends/onnxruntime/inferd_http_load keeps `concurrency` one-row
   binary HTTP requests in flight (a C++ closed loop, so the client is not the
   limit). Rows per second are counted after a warm-up.

Prints both, their ratio, latency percentiles and, when the server offers model
statistics, the average batch the dynamic batcher formed. The load generator
runs on the same machine and takes some CPU from the server. $INFERD_BINARY
overrides the server binary.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
MODEL_DIR = REPO_ROOT / "examples" / "models" / "onnx_mlp"
MODEL_NAME = "onnx_mlp"
INPUT_WIDTH = 512
CEILING_BATCH = 64
STARTED_RE = re.compile(r"Started HTTPService at (\S+):(\d+)")


def ensure_model() -> Path:
    path = MODEL_DIR / "1" / "model.onnx"
    if not path.is_file():
        subprocess.run([sys.executable, str(REPO_ROOT / "scripts" / "make_example_models.py")],
                       check=True)
    return path


def ceiling(bench_tool: Path, model: Path, seconds: float, threads: int) -> dict:
    out = subprocess.run([str(bench_tool), str(model), "--batch", str(CEILING_BATCH),
                          "--threads", str(threads), "--seconds", str(seconds)],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def start_server(binary: Path, repo: Path, log_path: Path) -> tuple[subprocess.Popen, int]:
    log = open(log_path, "wb")
    proc = subprocess.Popen(
        [str(binary), f"--model-repository={repo}", "--http-port=0", "--metrics-port=0", "--allow-grpc=false",
         f"--backend-directory={binary.parent / 'backends'}"],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        match = STARTED_RE.search(log_path.read_text(errors="replace"))
        if match:
            port = int(match.group(2))
            if _get(port, "/v2/health/ready")[0] == 200:
                return proc, port
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError(f"inferd did not become ready; log:\n{log_path.read_text()[-4000:]}")


def _get(port: int, path: str) -> tuple[int, bytes]:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        conn.request("GET", path)
        resp = conn.getresponse()
        return resp.status, resp.read()
    except OSError:
        return 0, b""


def request_body() -> tuple[bytes, int]:
    row = np.random.default_rng(0).standard_normal((1, INPUT_WIDTH)).astype("<f4").tobytes()
    header = json.dumps({
        "inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [1, INPUT_WIDTH],
                    "parameters": {"binary_data_size": len(row)}}],
        "outputs": [{"name": "OUTPUT0", "parameters": {"binary_data": True}}],
    }).encode()
    return header + row, len(header)


def run_load(load_tool: Path, port: int, concurrency: int, warmup: float, seconds: float,
             tmp: Path) -> dict:
    body, header_length = request_body()
    body_file = tmp / "request.bin"
    body_file.write_bytes(body)
    out = subprocess.run(
        [str(load_tool), "--port", str(port), "--path", f"/v2/models/{MODEL_NAME}/infer",
         "--body", str(body_file), "--header-length", str(header_length),
         "--concurrency", str(concurrency), "--warmup", str(warmup), "--seconds", str(seconds)],
        capture_output=True, text=True)
    if not out.stdout.strip():
        raise RuntimeError(f"inferd_http_load failed: {out.stderr}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["rows_per_s"] = result["requests_per_s"]  # one row per request
    return result


def average_batch(port: int) -> float | None:
    status, body = _get(port, f"/v2/models/{MODEL_NAME}/stats")
    if status != 200:
        return None
    try:
        stats = json.loads(body)["model_stats"][0]
        return int(stats["inference_count"]) / max(1, int(stats["execution_count"]))
    except (KeyError, IndexError, ValueError, TypeError):
        return None


def main() -> int:
    cores = os.cpu_count() or 1
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per side")
    parser.add_argument("--warmup", type=float, default=2.0, help="unmeasured seconds first")
    parser.add_argument("--concurrency", type=int, default=64, help="requests in flight")
    parser.add_argument("--build-dir", type=Path, default=REPO_ROOT / "build")
    args = parser.parse_args()

    binary = Path(os.environ.get("INFERD_BINARY", args.build_dir / "inferd")).resolve()
    tools = binary.parent / "backends" / "onnxruntime"
    bench_tool, load_tool = tools / "inferd_ort_bench", tools / "inferd_http_load"
    for path in (binary, bench_tool, load_tool):
        if not path.is_file():
            sys.exit(f"onnx_mlp: {path} not found; run `make build` first")
    model = ensure_model()

    top = ceiling(bench_tool, model, args.seconds, cores)
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        (repo / MODEL_NAME / "1").mkdir(parents=True)
        shutil.copy(MODEL_DIR / "config.pbtxt", repo / MODEL_NAME / "config.pbtxt")
        os.symlink(model, repo / MODEL_NAME / "1" / "model.onnx")
        server, port = start_server(binary, repo, Path(tmp) / "inferd.log")
        try:
            load = run_load(load_tool, port, args.concurrency, args.warmup, args.seconds,
                            Path(tmp))
            batch = average_batch(port)
        finally:
            server.terminate()
            server.wait(timeout=30)

    ratio = load["rows_per_s"] / top["rows_per_s"]
    print(f"onnx_mlp ({INPUT_WIDTH} -> 2048 x3 -> 16, FP32) on {cores} cores, "
          f"{args.seconds:g} s measured each")
    print(f"  inferd HTTP, concurrency {args.concurrency}, 1 row per request: "
          f"{load['rows_per_s']:9.1f} rows/s  (p50 {load['p50_ms']:.1f} ms, "
          f"p99 {load['p99_ms']:.1f} ms, {load['errors']} errors)")
    print(f"  ONNX Runtime in-process, batch {CEILING_BATCH}, {top['threads']} threads:   "
          f"{top['rows_per_s']:9.1f} rows/s  ({top['ms_per_batch']:.1f} ms per batch)")
    print(f"  ratio inferd / in-process: {ratio:.2f}")
    print(f"  average batch formed by the server: "
          f"{'%.1f' % batch if batch is not None else 'n/a (no statistics endpoint)'}")
    return 0 if load["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
