#!/usr/bin/env python3
"""Throughput of the example MLP (examples/models/onnx_mlp) through inferd next to
the same model run in-process by ONNX Runtime: how close the server comes to
the ceiling.

    .venv/bin/python bench/onnx_mlp.py [--seconds 10] [--concurrency 64]

1. Ceiling: build/backends/onnxruntime/inferd_ort_bench runs the model with the
   same libonnxruntime at batch 64, with as many intra-op threads as the server's
   single instance gets (every core), and reports rows per second. It runs twice,
   with ORT's pool threads spinning (ORT's default) and blocking (what the server
   configures), and the faster of the two is the ceiling.
2. inferd: build/inferd serves only onnx_mlp (dynamic batching, max_batch_size
   64); build/backends/onnxruntime/inferd_http_load keeps `concurrency` one-row
   binary HTTP requests in flight (a C++ closed loop, so the client is not the
   limit). Rows per second are counted after a warm-up.

Prints both, their ratio, latency percentiles and, when the server offers model
statistics, the average batch the dynamic batcher formed. The load generator
runs on the same machine and takes some CPU from the server. $INFERD_BINARY
overrides the server binary.

3. When tritonclient's perf_analyzer is in .venv, the same server under it at
   the same concurrency (HTTP, binary tensors, random data), after the above:
   rows per second, ratio, average batch and CPU per row (`--skip-perf-analyzer`).
4. 2 and 3 again with one instance per core (instance_group count = cores, so
   the backend gives each instance one intra-op thread) and max_batch_size
   concurrency / cores, next to its own in-process match: as many
   inferd_ort_bench processes at that batch with one thread each, run together
   (`--skip-per-core`). With the frontends and the client on the same cores,
   ORT's calling thread spins (SpinPause) at the end of every parallel section
   waiting for a pool thread that was scheduled late; one thread per instance
   has no parallel sections, and one instance's run overlaps the other's HTTP
   work. max_batch_size splits the clients into one cohort per instance: with
   64, the 64 requests a finished batch answers come back within the queue
   delay on a quiet machine and fill one batch again, leaving the other
   instance (and core) idle.

Also the CPU time per row (user + system, every thread; steadier than rows per
second on a shared box): in-process, the server's and the load generator's over
the measured window. With every core busy, the served rate cannot pass
in-process / (server + client) of the in-process rate: the "CPU bound" printed
(in-process: the run without spinning, whose threads burn no CPU waiting).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import resource
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


def ceiling(bench_tool: Path, model: Path, seconds: float, threads: int, spin: str) -> dict:
    out = subprocess.run([str(bench_tool), str(model), "--batch", str(CEILING_BATCH),
                          "--threads", str(threads), "--seconds", str(seconds), "--spin", spin],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def per_core_ceiling(bench_tool: Path, model: Path, seconds: float, cores: int,
                     batch: int) -> dict:
    """`cores` inferd_ort_bench processes at `batch` with one thread each (spinning
    off: there is no pool), run together: their rows per second summed, their
    CPU per row averaged."""
    procs = [subprocess.Popen([str(bench_tool), str(model), "--batch", str(batch),
                               "--threads", "1", "--seconds", str(seconds), "--spin", "0"],
                              stdout=subprocess.PIPE, text=True) for _ in range(cores)]
    runs = []
    for proc in procs:
        stdout, _ = proc.communicate()
        if proc.returncode != 0:
            raise RuntimeError(f"{bench_tool} failed with status {proc.returncode}")
        runs.append(json.loads(stdout.strip().splitlines()[-1]))
    return {"sessions": cores, "batch": batch, "rows_per_s": sum(r["rows_per_s"] for r in runs),
            "cpu_us_per_row": sum(r["cpu_us_per_row"] for r in runs) / len(runs)}


def cpu_seconds(pid: int, tid: str | None = None) -> float:
    """User + system CPU seconds so far of every thread of process `pid` (of one
    thread `tid`)."""
    with open(f"/proc/{pid}/task/{tid}/stat" if tid else f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# Server threads by name: the model instance's execution thread (ORT's calling
# thread, which also gathers inputs and scatters outputs), the HTTP I/O threads,
# and the rest (ORT's pool threads, unnamed, and the server's own helpers).
THREAD_GROUPS = {"inferd-instance": "instance", "inferd-http": "http"}


def cpu_by_thread_group(pid: int) -> dict[str, float]:
    """CPU seconds so far of the live threads of `pid`, summed by THREAD_GROUPS."""
    groups: dict[str, float] = {"instance": 0.0, "http": 0.0, "other": 0.0}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            seconds = cpu_seconds(pid, tid)
        except OSError:
            continue  # the thread ended
        groups[THREAD_GROUPS.get(name, "other")] += seconds
    return groups


def model_stats(port: int, model: str = MODEL_NAME) -> dict | None:
    """The model's entry of /v2/models/<model>/stats, or None."""
    status, body = _get(port, f"/v2/models/{model}/stats")
    if status != 200:
        return None
    try:
        return json.loads(body)["model_stats"][0]
    except (KeyError, IndexError, ValueError, TypeError):
        return None


def rows_served(port: int, model: str = MODEL_NAME) -> int | None:
    stats = model_stats(port, model)
    try:
        return int(stats["inference_count"]) if stats else None
    except (KeyError, ValueError, TypeError):
        return None


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


def request_body(input_name: str = "INPUT0", output_name: str = "OUTPUT0") -> tuple[bytes, int]:
    """One row of the MLP's input as a binary-tensor request, and its JSON header's length."""
    row = np.random.default_rng(0).standard_normal((1, INPUT_WIDTH)).astype("<f4").tobytes()
    header = json.dumps({
        "inputs": [{"name": input_name, "datatype": "FP32", "shape": [1, INPUT_WIDTH],
                    "parameters": {"binary_data_size": len(row)}}],
        "outputs": [{"name": output_name, "parameters": {"binary_data": True}}],
    }).encode()
    return header + row, len(header)


def run_load(load_tool: Path, server_pid: int, port: int, concurrency: int, warmup: float,
             seconds: float, tmp: Path, model: str = MODEL_NAME,
             request: tuple[bytes, int] | None = None) -> dict:
    """inferd_http_load's closed loop of one-row requests (`request`: body and
    header length, request_body() by default) against `model`, with the CPU
    per row of the server, its thread groups and the client."""
    body, header_length = request or request_body()
    body_file = tmp / "request.bin"
    body_file.write_bytes(body)
    client = subprocess.Popen(
        [str(load_tool), "--port", str(port), "--path", f"/v2/models/{model}/infer",
         "--body", str(body_file), "--header-length", str(header_length),
         "--concurrency", str(concurrency), "--warmup", str(warmup), "--seconds", str(seconds)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # CPU per row over most of the measured window: both processes' CPU and the
    # server's row count read together at its start and just before its end.
    time.sleep(warmup + 0.2)
    start = (cpu_seconds(server_pid), cpu_seconds(client.pid), rows_served(port, model),
             cpu_by_thread_group(server_pid))
    time.sleep(max(0.5, seconds - 0.6))
    end = (cpu_seconds(server_pid), cpu_seconds(client.pid), rows_served(port, model),
           cpu_by_thread_group(server_pid))
    stdout, stderr = client.communicate()
    if not stdout.strip():
        raise RuntimeError(f"inferd_http_load failed: {stderr}")
    result = json.loads(stdout.strip().splitlines()[-1])
    result["rows_per_s"] = result["requests_per_s"]  # one row per request
    if start[2] is not None and end[2] is not None and end[2] > start[2]:
        rows = end[2] - start[2]
        result["server_cpu_us_per_row"] = 1e6 * (end[0] - start[0]) / rows
        result["client_cpu_us_per_row"] = 1e6 * (end[1] - start[1]) / rows
        result["server_threads_us_per_row"] = {
            group: 1e6 * (end[3][group] - start[3][group]) / rows for group in end[3]}
    return result


def average_batch(port: int, model: str = MODEL_NAME) -> float | None:
    stats = model_stats(port, model)
    try:
        return int(stats["inference_count"]) / max(1, int(stats["execution_count"])) \
            if stats else None
    except (KeyError, ValueError, TypeError):
        return None


def find_perf_analyzer() -> tuple[Path | None, list[str]]:
    venv = REPO_ROOT / ".venv"
    candidates = sorted(venv.glob("lib/python3*/site-packages/tritonclient/bin/perf_analyzer"))
    candidates.append(venv / "bin" / "perf_analyzer")
    binary = next((c for c in candidates if c.is_file()), None)
    cudart = [str(p) for p in venv.glob("lib/python3*/site-packages/nvidia/cuda_runtime/lib")]
    return binary, cudart


def stats_counts(port: int) -> tuple[int, int] | None:
    status, body = _get(port, f"/v2/models/{MODEL_NAME}/stats")
    if status != 200:
        return None
    try:
        stats = json.loads(body)["model_stats"][0]
        return int(stats["inference_count"]), int(stats["execution_count"])
    except (KeyError, IndexError, ValueError, TypeError):
        return None


def run_perf_analyzer(binary: Path, cudart: list[str], server_pid: int, port: int,
                      concurrency: int, seconds: float) -> dict | None:
    """perf_analyzer's throughput at `concurrency`; CPU per row and the average
    batch over its whole run (its warm-up and trials), from /proc and statistics."""
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = ":".join(cudart + [env.get("LD_LIBRARY_PATH", "")])
    command = [str(binary), "-m", MODEL_NAME, "-u", f"127.0.0.1:{port}", "-i", "http",
               "--concurrency-range", str(concurrency),
               "--measurement-interval", str(int(seconds * 1000 / 3)),
               "--max-trials", "6", "--stability-percentage", "20"]
    before, server_before = stats_counts(port), cpu_seconds(server_pid)
    usage_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        out = subprocess.run(command, capture_output=True, text=True, env=env,
                             timeout=30 + 10 * seconds)
    except subprocess.TimeoutExpired:
        return None
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    after, server_after = stats_counts(port), cpu_seconds(server_pid)
    match = re.search(rf"Concurrency: {concurrency}, throughput: ([\d.]+) infer/sec",
                      out.stdout + out.stderr)
    if not match or before is None or after is None or after[0] <= before[0]:
        return None
    rows = after[0] - before[0]
    client = (usage.ru_utime + usage.ru_stime) - (usage_before.ru_utime + usage_before.ru_stime)
    return {"rows_per_s": float(match.group(1)),
            "batch": rows / max(1, after[1] - before[1]),
            "server_cpu_us_per_row": 1e6 * (server_after - server_before) / rows,
            "client_cpu_us_per_row": 1e6 * client / rows}


def print_cpu_per_row(load: dict, compute_us: float, instance_work: str, other_work: str,
                      indent: str = "  ") -> None:
    """run_load's CPU per row (server, load generator, the server's thread
    groups) against `compute_us`, the in-process CPU per row, and their ratio:
    the CPU bound. `instance_work`, `other_work`: what those thread groups run."""
    if "server_cpu_us_per_row" not in load:
        return
    served = load["server_cpu_us_per_row"] + load["client_cpu_us_per_row"]
    print(f"{indent}CPU per row: server {load['server_cpu_us_per_row']:.0f} us + load generator "
          f"{load['client_cpu_us_per_row']:.0f} us; in-process {compute_us:.0f} us; "
          f"CPU bound {compute_us / served:.2f}")
    threads = load["server_threads_us_per_row"]
    print(f"{indent}  server threads: instance {threads['instance']:.0f} us ({instance_work}), "
          f"other {threads['other']:.0f} us ({other_work}), HTTP I/O {threads['http']:.0f} us")


def serve(binary: Path, model: Path, config: str, args: argparse.Namespace) -> dict:
    """One server of onnx_mlp with `config` under inferd_http_load, then (unless
    skipped or absent) perf_analyzer: {"load", "batch", "pa"}."""
    load_tool = binary.parent / "backends" / "onnxruntime" / "inferd_http_load"
    with tempfile.TemporaryDirectory() as tmp:
        repo = Path(tmp) / "repo"
        (repo / MODEL_NAME / "1").mkdir(parents=True)
        (repo / MODEL_NAME / "config.pbtxt").write_text(config)
        os.symlink(model, repo / MODEL_NAME / "1" / "model.onnx")
        server, port = start_server(binary, repo, Path(tmp) / "inferd.log")
        try:
            load = run_load(load_tool, server.pid, port, args.concurrency, args.warmup,
                            args.seconds, Path(tmp))
            batch = average_batch(port)
            analyzer, cudart = find_perf_analyzer()
            pa = None
            if analyzer is not None and not args.skip_perf_analyzer:
                pa = run_perf_analyzer(analyzer, cudart, server.pid, port, args.concurrency,
                                       args.seconds)
        finally:
            server.terminate()
            server.wait(timeout=30)
    return {"load": load, "batch": batch, "pa": pa}


def per_core_config(config: str, cores: int, batch: int) -> str:
    """The example's configuration with one instance per core, batches of up to
    `batch` rows."""
    changed = re.sub(r"count:\s*1\b", f"count: {cores}", config)
    changed = re.sub(r"max_batch_size:\s*\d+", f"max_batch_size: {batch}", changed)
    if changed.count(f"count: {cores}") != 1 or f"max_batch_size: {batch}" not in changed:
        raise RuntimeError("onnx_mlp: the example's configuration is not as expected")
    return changed


def print_served(served: dict, top: dict, compute: float, concurrency: int) -> None:
    """inferd_http_load's and perf_analyzer's figures of one serve() against `top`
    (rows per second), with the CPU bound against `compute` (us CPU per row)."""
    load, pa = served["load"], served["pa"]
    print(f"    inferd HTTP, concurrency {concurrency}, 1 row per request: "
          f"{load['rows_per_s']:9.1f} rows/s, ratio {load['rows_per_s'] / top['rows_per_s']:.2f}  "
          f"(p50 {load['p50_ms']:.1f} ms, p99 {load['p99_ms']:.1f} ms, {load['errors']} errors)")
    print_cpu_per_row(load, compute, "ORT's calling thread, gather, scatter",
                      "ORT's pool, helpers", indent="    ")
    batch = served["batch"]
    print(f"    average batch formed by the server: "
          f"{'%.1f' % batch if batch is not None else 'n/a (no statistics endpoint)'}")
    if pa is not None:
        spent = pa["server_cpu_us_per_row"] + pa["client_cpu_us_per_row"]
        print(f"    inferd under perf_analyzer (HTTP, concurrency {concurrency}): "
              f"{pa['rows_per_s']:9.1f} rows/s, ratio {pa['rows_per_s'] / top['rows_per_s']:.2f}, "
              f"average batch {pa['batch']:.1f}")
        print(f"    CPU per row: server {pa['server_cpu_us_per_row']:.0f} us + perf_analyzer "
              f"{pa['client_cpu_us_per_row']:.0f} us; CPU bound {compute / spent:.2f}")


def main() -> int:
    cores = os.cpu_count() or 1
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per side")
    parser.add_argument("--warmup", type=float, default=2.0, help="unmeasured seconds first")
    parser.add_argument("--concurrency", type=int, default=64, help="requests in flight")
    parser.add_argument("--build-dir", type=Path, default=REPO_ROOT / "build")
    parser.add_argument("--skip-perf-analyzer", action="store_true",
                        help="no perf_analyzer run after inferd_http_load's")
    parser.add_argument("--skip-per-core", action="store_true",
                        help="no runs with one instance per core")
    args = parser.parse_args()

    binary = Path(os.environ.get("INFERD_BINARY", args.build_dir / "inferd")).resolve()
    tools = binary.parent / "backends" / "onnxruntime"
    bench_tool = tools / "inferd_ort_bench"
    for path in (binary, bench_tool, tools / "inferd_http_load"):
        if not path.is_file():
            sys.exit(f"onnx_mlp: {path} not found; run `make build` first")
    model = ensure_model()
    config = (MODEL_DIR / "config.pbtxt").read_text()

    tops = [ceiling(bench_tool, model, args.seconds, cores, spin) for spin in ("1", "0")]
    top = max(tops, key=lambda t: t["rows_per_s"])
    served = serve(binary, model, config, args)
    per_core = None
    if not args.skip_per_core and cores > 1:
        cohort = max(1, args.concurrency // cores)
        per_core_top = per_core_ceiling(bench_tool, model, args.seconds, cores, cohort)
        per_core = serve(binary, model, per_core_config(config, cores, cohort), args)

    print(f"onnx_mlp ({INPUT_WIDTH} -> 2048 x3 -> 16, FP32) on {cores} cores, "
          f"{args.seconds:g} s measured each")
    for t in tops:
        print(f"  ONNX Runtime in-process, batch {CEILING_BATCH}, {t['threads']} threads, "
              f"spin {t['spin']}: {t['rows_per_s']:9.1f} rows/s  ({t['ms_per_batch']:.1f} ms per "
              f"batch, {t['cpu_us_per_row']:.0f} us CPU per row)")
    # Spinning threads burn CPU without computing: the leaner run is the
    # compute's cost.
    compute = min(t["cpu_us_per_row"] for t in tops)
    print(f"  the example's configuration (1 instance, {cores} intra-op threads); "
          f"ratios to in-process spin {top['spin']}:")
    print_served(served, top, compute, args.concurrency)
    errors = served["load"]["errors"]
    if per_core is not None:
        print(f"  one instance per core ({cores} instances, 1 intra-op thread each, max_batch_size "
              f"{per_core_top['batch']}); ratios to the same in-process ceiling "
              f"(spin {top['spin']}):")
        print_served(per_core, top, compute, args.concurrency)
        print(f"    in-process the same way ({cores} sessions of 1 thread at batch "
              f"{per_core_top['batch']}, run together): {per_core_top['rows_per_s']:9.1f} rows/s "
              f"({per_core_top['cpu_us_per_row']:.0f} us CPU per row); ratio to it "
              f"{per_core['load']['rows_per_s'] / per_core_top['rows_per_s']:.2f}")
        errors += per_core["load"]["errors"]
    return 0 if errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
