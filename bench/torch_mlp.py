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

Prints both, their ratio, latency percentiles, the average batch the dynamic
batcher formed, and as onnx_mlp.py the CPU per row of the server (by thread
group) and of the load generator against LibTorch's in-process CPU per row:
the "CPU bound", the best ratio two shared cores allow. The load generator runs on the same machine and takes some CPU
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


sys.path.insert(0, str(Path(__file__).resolve().parent))

import onnx_mlp  # noqa: E402  (its server start-up, load run and statistics)

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
            load = onnx_mlp.run_load(load_tool, server.pid, port, args.concurrency, args.warmup,
                                     args.seconds, Path(tmp), MODEL_NAME,
                                     onnx_mlp.request_body("INPUT__0", "OUTPUT__0"))
            batch = onnx_mlp.average_batch(port, MODEL_NAME)
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
          f"{top['rows_per_s']:9.1f} rows/s  ({top['ms_per_batch']:.1f} ms per batch, "
          f"{top['cpu_us_per_row']:.0f} us CPU per row)")
    print(f"  ratio inferd / in-process: {ratio:.2f}")
    # OpenMP's pool threads take the name of the instance thread that starts them.
    onnx_mlp.print_cpu_per_row(load, top["cpu_us_per_row"],
                               "LibTorch's calling thread and its OpenMP pool, gather, scatter",
                               "helpers")
    print(f"  average batch formed by the server: "
          f"{'%.1f' % batch if batch is not None else 'n/a'}")
    return 0 if load["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
