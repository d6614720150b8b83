#!/usr/bin/env python3
"""Throughput of a compute-bound TorchScript MLP through inferd's pytorch backend
next to the same model run in-process by LibTorch: how close the server comes to
the ceiling.

    .venv/bin/python bench/torch_mlp.py [--seconds 10] [--concurrency 64]

The model (512 -> three dense ReLU layers of 2048 -> 16, FP32, as
examples/models/onnx_mlp) is scripted with python3-torch into a temporary
repository (dynamic batching up to 64 rows, a 4 ms queue delay, one instance).

1. Ceiling: build/backends/pytorch/inferd_torch_bench runs it with the same
   LibTorch at batch 64 under InferenceMode, with as many intra-op threads as
   the server's single instance gets (every core) and the OpenMP wait policy
   the backend sets (PASSIVE unless OMP_WAIT_POLICY says otherwise), and
   reports rows per second.
2. inferd: build/inferd serves only that model; build/backends/onnxruntime/
   inferd_http_load keeps `concurrency` one-row binary HTTP requests in flight
   (a C++ closed loop, so the client is not the limit). Rows per second are
   counted after a warm-up.

Prints both, their ratio, latency percentiles and the average batch the dynamic
batcher formed. The load generator runs on the same machine and takes some CPU
from the server. $INFERD_BINARY overrides the server binary.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import onnx_mlp  # noqa: E402  (its server start-up and HTTP helper)

MODEL_NAME = "torch_mlp"
INPUT_WIDTH = onnx_mlp.INPUT_WIDTH
CONFIG = f"""name: "{MODEL_NAME}"
platform: "pytorch_libtorch"
max_batch_size: 64
input [ {{ name: "INPUT__0" data_type: TYPE_FP32 dims: [ {INPUT_WIDTH} ] }} ]
output [ {{ name: "OUTPUT__0" data_type: TYPE_FP32 dims: [ 16 ] }} ]
dynamic_batching {{ max_queue_delay_microseconds: 4000 }}
instance_group [ {{ count: 1, kind: KIND_CPU }} ]
"""


def make_model(path: Path) -> None:
    import torch

    torch.manual_seed(0)
    layers, width = [], INPUT_WIDTH
    for _ in range(3):
        layers += [torch.nn.Linear(width, 2048), torch.nn.ReLU()]
        width = 2048
    layers.append(torch.nn.Linear(width, 16))
    torch.jit.script(torch.nn.Sequential(*layers).eval()).save(str(path))


def ceiling(bench_tool: Path, model: Path, seconds: float, threads: int) -> dict:
    # The OpenMP wait policy the backend sets for the server (backend_loader.cc).
    env = dict(os.environ)
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    out = subprocess.run([str(bench_tool), str(model), "--width", str(INPUT_WIDTH),
                          "--batch", str(onnx_mlp.CEILING_BATCH), "--threads", str(threads),
                          "--seconds", str(seconds)],
                         check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_load(load_tool: Path, port: int, concurrency: int, warmup: float, seconds: float,
             tmp: Path) -> dict:
    row = np.random.default_rng(0).standard_normal((1, INPUT_WIDTH)).astype("<f4").tobytes()
    header = json.dumps({
        "inputs": [{"name": "INPUT__0", "datatype": "FP32", "shape": [1, INPUT_WIDTH],
                    "parameters": {"binary_data_size": len(row)}}],
        "outputs": [{"name": "OUTPUT__0", "parameters": {"binary_data": True}}],
    }).encode()
    body_file = tmp / "request.bin"
    body_file.write_bytes(header + row)
    out = subprocess.run(
        [str(load_tool), "--port", str(port), "--path", f"/v2/models/{MODEL_NAME}/infer",
         "--body", str(body_file), "--header-length", str(len(header)),
         "--concurrency", str(concurrency), "--warmup", str(warmup), "--seconds", str(seconds)],
        capture_output=True, text=True)
    if not out.stdout.strip():
        raise RuntimeError(f"inferd_http_load failed: {out.stderr}")
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["rows_per_s"] = result["requests_per_s"]  # one row per request
    return result


def average_batch(port: int) -> float | None:
    status, body = onnx_mlp._get(port, f"/v2/models/{MODEL_NAME}/stats")
    if status != 200:
        return None
    stats = json.loads(body)["model_stats"][0]
    return int(stats["inference_count"]) / max(1, int(stats["execution_count"]))


def main() -> int:
    cores = os.cpu_count() or 1
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per side")
    parser.add_argument("--warmup", type=float, default=2.0, help="unmeasured seconds first")
    parser.add_argument("--concurrency", type=int, default=64, help="requests in flight")
    parser.add_argument("--build-dir", type=Path, default=onnx_mlp.REPO_ROOT / "build")
    args = parser.parse_args()

    binary = Path(os.environ.get("INFERD_BINARY", args.build_dir / "inferd")).resolve()
    bench_tool = binary.parent / "backends" / "pytorch" / "inferd_torch_bench"
    load_tool = binary.parent / "backends" / "onnxruntime" / "inferd_http_load"
    for path in (binary, bench_tool, load_tool):
        if not path.is_file():
            sys.exit(f"torch_mlp: {path} not found; run `make build` first")

    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        (repo / MODEL_NAME / "1").mkdir(parents=True)
        (repo / MODEL_NAME / "config.pbtxt").write_text(CONFIG)
        model = repo / MODEL_NAME / "1" / "model.pt"
        make_model(model)
        top = ceiling(bench_tool, model, args.seconds, cores)
        server, port = onnx_mlp.start_server(binary, repo, Path(tmp) / "inferd.log")
        try:
            load = run_load(load_tool, port, args.concurrency, args.warmup, args.seconds,
                            Path(tmp))
            batch = average_batch(port)
        finally:
            server.terminate()
            server.wait(timeout=30)

    ratio = load["rows_per_s"] / top["rows_per_s"]
    print(f"torch_mlp ({INPUT_WIDTH} -> 2048 x3 -> 16, FP32, TorchScript) on {cores} cores, "
          f"{args.seconds:g} s measured each")
    print(f"  inferd HTTP, concurrency {args.concurrency}, 1 row per request: "
          f"{load['rows_per_s']:9.1f} rows/s  (p50 {load['p50_ms']:.1f} ms, "
          f"p99 {load['p99_ms']:.1f} ms, {load['errors']} errors)")
    print(f"  LibTorch in-process, batch {onnx_mlp.CEILING_BATCH}, {top['threads']} threads:  "
          f"{top['rows_per_s']:9.1f} rows/s  ({top['ms_per_batch']:.1f} ms per batch)")
    print(f"  ratio inferd / in-process: {ratio:.2f}")
    print(f"  average batch formed by the server: "
          f"{'%.1f' % batch if batch is not None else 'n/a'}")
    return 0 if load["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
