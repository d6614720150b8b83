#!/usr/bin/env python3
"""inferd benchmarks: prints figures, asserts nothing.

    .venv/bin/python bench/bench.py [--build-dir build] [--duration 5] [--warmup 1]
                                    [--skip-wrk] [--skip-perf-analyzer]
                                    [--skip-perf-analyzer-ensemble] [--skip-startup]
                                    [--skip-streaming] [--skip-sequences]
                                    [--skip-python] [--skip-ensembles]
                                    [--skip-grpc-ceiling] [--skip-compute]
                                    [--skip-cache] [--skip-memory] [--skip-tracing]
                                    [--skip-llamacpp]
                                    [--cycles N] [--starts N]

(`make bench` installs the tools, builds and runs this.) Sections:

1. The identity model (16 x FP32 in, the same out), without and with dynamic
   batching, under build/tools/inferd-loadgen at concurrency 1, 16 and 64 over
   HTTP (JSON and binary tensors) and gRPC: throughput and latency percentiles.
2. The ratio the project tracks: wrk -c16 -t2 POSTing the JSON inference of that
   model to inferd, next to wrk fetching a static body of the response's size
   from nginx on the same machine; and the p50 latency of both at -c1 -t1.
3. perf_analyzer (from tritonclient) against inferd at concurrency 16, when its
   libraries are there (libb64, libcudart.so.12 from nvidia-cuda-runtime-cu12).
   3b: the same perf_analyzer driving an ensemble of two identity steps (HTTP,
   gRPC) next to one step alone.
4. Idle RSS of inferd on an empty repository (before any gRPC client, after
   one gRPC call, with gRPC loaded at start), a new client's first gRPC call
   (gRPC loads on the first connection), and the time from start to
   /v2/health/ready on an empty repository, with 100 identity models, and with
   100 small ONNX models when build/backends/onnxruntime exists.
5. A decoupled model streaming 100 small responses over gRPC ModelStreamInfer
   and HTTP generate_stream (SSE): time to first response and per-response
   overhead, next to a unary round trip (bench/streaming.py).
6. 64 concurrent sequences of 20 requests against a stateful model (the
   accumulate backend) under the sequence batcher, direct and oldest, next to
   the same load against the identity model under the dynamic batcher without
   state (bench/sequences.py).
7. The Python tax: p50 latency at concurrency 1 and throughput at 16 of a
   model.py returning its input, next to the identity backend, over gRPC and
   HTTP; the control channel's round trip (bench/python_tax.py).
8. An ensemble of two identity steps against the client calling the two
   models one after the other, 16 gRPC clients (bench/ensembles.py).
9. gRPC ModelInfer of the identity model against the gRPC ceiling, a minimal
   server answering canned responses on the same gRPC settings
   (bench/grpc_ceiling.py, bench/grpc_ceiling.cc).
10. Compute: a compute-bound MLP under dynamic batching at concurrency 64,
    next to its runtime called in-process at batch 64: ONNX Runtime
    (bench/onnx_mlp.py: inferd_http_load and perf_analyzer as clients, CPU per
    row and the CPU bound) and, when the pytorch backend was built, LibTorch
    (bench/torch_mlp.py).
11. The response cache: the identity model with response_cache enabled (every
    request after the first a hit) next to the same model uncached, HTTP binary
    and gRPC at concurrency 1 and 16 (bench/cache.py).
12. Memory: the RSS a loaded ONNX model costs (the first and a second copy of
    the MLP) against its weights + 10 MiB, and the RSS after 1,000
    load/unload cycles of a small ONNX model against after the first
    (bench/memory.py).
14. The llamacpp backend against llama.cpp's own llama-server on a tiny GGUF:
    tokens/s and time to first token at 1 and 8 concurrent streams
    (bench/llamacpp.py), when scripts/install-llamacpp.sh built llama.cpp.

Everything runs on this machine: the load tools take CPU from the server.
"""
import argparse
import csv
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

from bench_kit import IDENTITY_CONFIG, ROOT, Inferd, free_port, write_model
from cache import section_cache
from cloud_repository import section_cloud_repository
from cpu_per_request import section_cpu_per_request
from ensembles import section_ensembles
from grpc_ceiling import section_grpc_ceiling
from memory import section_memory
from memory_budget import section_memory_budget
from perf_analyzer import section_perf_analyzer, section_perf_analyzer_ensemble
from sequences import section_sequences
from python_tax import section_python
from streaming import section_streaming
from tracing import section_tracing
from wrk_tools import run_wrk, start_nginx, wrk_microseconds
from llamacpp import section_llamacpp

CONCURRENCIES = (1, 16, 64)

def loadgen(build, args, server, model, protocol, binary, concurrency, rate=None):
    """One inferd-loadgen step, closed loop at `concurrency` or, given `rate`,
    open loop at that many requests per second; its CSV row as a dict (or None)."""
    with tempfile.NamedTemporaryFile(suffix=".csv") as out:
        port = server.http_port if protocol == "http" else server.grpc_port
        command = [os.path.join(build, "tools", "inferd-loadgen"), "-q", "-u", f"127.0.0.1:{port}",
                   "-i", protocol, "-m", model,
                   *(["--request-rate", str(rate)] if rate else
                     ["--concurrency-range", str(concurrency)]),
                   "--duration-secs", str(args.duration), "--warmup-secs", str(args.warmup),
                   "--csv", out.name] + (["--binary"] if binary else [])
        result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if result.stderr.strip():
            print(f"    inferd-loadgen: {result.stderr.strip()[:300]}")
        rows = list(csv.DictReader(open(out.name)))
        return rows[0] if rows else None


def section_loadgen(build, args):
    print("== 1. identity model (16 x FP32), inferd-loadgen, closed loop ==")
    repo = tempfile.mkdtemp(prefix="inferd-bench-")
    write_model(repo, "identity_fp32", IDENTITY_CONFIG.format(name="identity_fp32", extra=""))
    write_model(repo, "identity_fp32_dynamic",
                IDENTITY_CONFIG.format(name="identity_fp32_dynamic", extra="dynamic_batching { }\n"))
    print("   models: identity backend, max_batch_size 64, 1 CPU instance; "
          "'dynamic' adds dynamic_batching { } (no queue delay)")
    print(f"   {args.duration:g} s measured per step after {args.warmup:g} s warm-up; "
          "loadgen on the same 2 cores as the server\n")
    server = Inferd(build, repo)
    server.wait_ready()
    header = (f"   {'batching':9} {'protocol':12} {'conc':>5} {'infer/s':>10} {'p50 ms':>8} "
              f"{'p90 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'errors':>7}")
    print(header)
    results = {}
    try:
        for model, batching in (("identity_fp32", "off"), ("identity_fp32_dynamic", "dynamic")):
            for protocol, binary, label in (("http", False, "http json"), ("http", True, "http binary"),
                                            ("grpc", False, "grpc")):
                for concurrency in CONCURRENCIES:
                    row = loadgen(build, args, server, model, protocol, binary, concurrency)
                    if row is None:
                        print(f"   {batching:9} {label:12} {concurrency:>5} (no result)")
                        continue
                    results[(batching, label, concurrency)] = float(row["infer_per_sec"])
                    ms = lambda key: float(row[key]) / 1000
                    print(f"   {batching:9} {label:12} {concurrency:>5} {float(row['infer_per_sec']):>10.0f} "
                          f"{ms('p50_us'):>8.3f} {ms('p90_us'):>8.3f} {ms('p95_us'):>8.3f} "
                          f"{ms('p99_us'):>8.3f} {row['errors']:>7}", flush=True)
        print(f"\n   inferd RSS after the load: {server.rss_mib():.1f} MiB\n")
    finally:
        server.stop()
        shutil.rmtree(repo, ignore_errors=True)
    return results


def section_wrk(build, args, loadgen_results):
    print("== 2. HTTP inference vs a static file: wrk -c16 -t2 and -c1 -t1, -d5s, best of 2 "
          "alternating runs ==")
    if not shutil.which("wrk") or not shutil.which("nginx"):
        print("   skipped: wrk or nginx is not installed (scripts/install-bench-deps.sh)\n")
        return
    workdir = tempfile.mkdtemp(prefix="inferd-bench-wrk-")
    repo = os.path.join(workdir, "models")
    write_model(repo, "identity_fp32", IDENTITY_CONFIG.format(name="identity_fp32", extra=""))
    server = Inferd(build, repo)
    nginx = None
    try:
        server.wait_ready()
        infer_url = f"http://127.0.0.1:{server.http_port}/v2/models/identity_fp32/infer"
        values = ", ".join(f"{0.5 + i:.1f}" for i in range(16))
        request = ('{"inputs":[{"name":"INPUT0","shape":[1,16],"datatype":"FP32","data":[%s]}]}' % values)
        post = urllib.request.Request(infer_url, data=request.encode(),
                                      headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(post) as response:
            body = response.read()
        script = os.path.join(workdir, "post.lua")
        with open(script, "w") as f:
            f.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\n'
                    f"wrk.body = '{request}'\n")
        nginx, static_url = start_nginx(workdir, body)
        if nginx is None:
            print(f"   skipped: nginx did not start (see {workdir}/error.log)\n")
            return
        print(f"   request body {len(request)} bytes (JSON), response body {len(body)} bytes; "
              f"nginx serves the same {len(body)} bytes as a static file")
        # Alternate the two twice and keep each one's best run: this box is shared.
        runs = [(run_wrk(static_url), run_wrk(infer_url, script)) for _ in range(2)]
        best = lambda results: max((r for r in results if r), key=lambda r: r[0], default=None)
        static = best(r[0] for r in runs)
        inferd = best(r[1] for r in runs)
        if static and inferd:
            print(f"   nginx static file      {static[0]:>10.0f} req/s   p50 {static[1]:>8}  p99 {static[2]:>8}")
            print(f"   inferd POST infer      {inferd[0]:>10.0f} req/s   p50 {inferd[1]:>8}  p99 {inferd[2]:>8}"
                  f"   non-2xx {inferd[3]}")
            print(f"   ratio inferd / nginx   {inferd[0] / static[0]:>10.2f}   (target >= 0.6)")
        # One connection: latency, each side's best p50 of two alternating runs.
        runs = [(run_wrk(static_url, connections=1), run_wrk(infer_url, script, connections=1))
                for _ in range(2)]
        p50 = lambda results: min((wrk_microseconds(r[1]) for r in results
                                   if r and wrk_microseconds(r[1])), default=None)
        static_p50, inferd_p50 = p50(r[0] for r in runs), p50(r[1] for r in runs)
        if static_p50 and inferd_p50:
            print(f"   c1 p50: nginx {static_p50:.0f} us, inferd {inferd_p50:.0f} us, ratio "
                  f"{inferd_p50 / static_p50:.2f}   (target <= 1.2)")
        figure = loadgen_results.get(("off", "http json", 16))
        if figure:
            print(f"   (inferd-loadgen, same model, HTTP JSON, concurrency 16: {figure:.0f} infer/s)")
        print()
    finally:
        if nginx:
            nginx.terminate()
            nginx.wait()
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


# Issue 26's start-up and memory targets, and Triton 2.51's figure on this box kind.
TARGET_IDLE_RSS_MIB = 10
TARGET_EMPTY_READY_MS = 5
TARGET_ONNX_READY_MS = 30
TRITON_ONNX_READY_MS = 294


def cpu_ms_by_ready(build, repo, extra_args=()):
    """User + system CPU, in ms at microsecond resolution, a server spends
    from launch to ready: killed the moment it answers ready, its threads'
    CPU (ended ones too) read from the kernel's accounting of the child."""
    server = Inferd(build, repo, extra_args)
    try:
        server.wait_ready()
    finally:
        server.process.kill()
    _, _, usage = os.wait4(server.process.pid, 0)
    server.process.returncode = -signal.SIGKILL  # reaped here, not by Popen
    return (usage.ru_utime + usage.ru_stime) * 1000


def startup_seconds(build, repo, runs=3, extra_args=()):
    """Median seconds from launch to ready over `runs` starts, the median CPU
    milliseconds spent by then (steadier than wall time on a busy machine;
    from starts of their own, killed at ready), and the last RSS in MiB."""
    times, cpus, rss = [], [], 0
    for _ in range(runs):
        server = Inferd(build, repo, extra_args)
        try:
            times.append(server.wait_ready())
            time.sleep(0.5)
            rss = server.rss_mib()
        finally:
            server.stop()
        cpus.append(cpu_ms_by_ready(build, repo, extra_args))
    return statistics.median(times), statistics.median(cpus), rss


def ort_load_floor_ms(build, model, runs, sessions=100, threads=4):
    """Median milliseconds from launching inferd_ort_load_bench to its exit:
    ONNX Runtime linked and started, its environment made as the backend makes
    it, `sessions` sessions of `model` created on `threads` threads (the
    server's default --model-load-thread-count). None when it is not built."""
    tool = os.path.join(build, "backends", "onnxruntime", "inferd_ort_load_bench")
    if not os.path.isfile(tool):
        return None
    times = []
    for _ in range(runs):
        begin = time.perf_counter()
        subprocess.run([tool, model, "--sessions", str(sessions), "--threads", str(threads)],
                       check=True, capture_output=True)
        times.append(time.perf_counter() - begin)
    return statistics.median(times) * 1000


def first_grpc_call(build, repo, runs=3, extra_args=()):
    """Median milliseconds of a new client's first gRPC call (channel set-up
    and ServerLive; with gRPC loaded on the first connection, the load too),
    and the idle RSS in MiB before that call and after it (last run)."""
    import tritonclient.grpc as grpcclient

    times, before, after = [], 0, 0
    for _ in range(runs):
        server = Inferd(build, repo, extra_args)
        try:
            server.wait_ready()
            time.sleep(0.5)
            before = server.rss_mib()
            begin = time.perf_counter()
            client = grpcclient.InferenceServerClient(url=f"127.0.0.1:{server.grpc_port}")
            client.is_server_live()
            times.append(time.perf_counter() - begin)
            client.close()
            time.sleep(0.5)
            after = server.rss_mib()
        finally:
            server.stop()
    return statistics.median(times) * 1000, before, after


def startup_empty(build, empty, runs):
    """Section 4 on an empty repository: idle RSS and start to ready, with gRPC,
    without, and loaded at its first connection or at start."""
    seconds, cpu, rss = startup_seconds(build, empty, runs)
    print(f"   idle RSS, empty repository           {rss:8.1f} MiB (VmRSS)   "
          f"target <= {TARGET_IDLE_RSS_MIB} MiB: ratio {rss / TARGET_IDLE_RSS_MIB:.2f}")
    print(f"   start to ready, empty repository     {seconds * 1000:8.1f} ms    "
          f"target <= {TARGET_EMPTY_READY_MS} ms: ratio "
          f"{seconds * 1000 / TARGET_EMPTY_READY_MS:.2f}   (CPU {cpu:.1f} ms)")
    seconds, cpu, rss = startup_seconds(build, empty, runs, extra_args=["--allow-grpc=false"])
    print(f"   idle RSS, empty repository, no gRPC  {rss:8.1f} MiB (--allow-grpc=false)")
    print(f"   start to ready, the same             {seconds * 1000:8.1f} ms")
    # gRPC loads on its first connection: the RSS once a client has come,
    # and what that first call costs against gRPC loaded at start.
    ms, before, after = first_grpc_call(build, empty, runs)
    print(f"   idle RSS, after one gRPC call        {after:8.1f} MiB (before it {before:.1f}; "
          f"first call {ms:.1f} ms, gRPC loaded by it)")
    ms, before, _ = first_grpc_call(build, empty, runs,
                                    extra_args=["--grpc-load-on-first-connection=false"])
    print(f"   idle RSS, gRPC loaded at start       {before:8.1f} MiB "
          f"(--grpc-load-on-first-connection=false; first call {ms:.1f} ms)")


def startup_identity(build, workdir, runs):
    """Section 4 on 100, then 1000 identity models: start to ready."""
    identity = os.path.join(workdir, "identity")
    for i in range(100):
        name = f"identity_{i:03d}"
        write_model(identity, name, IDENTITY_CONFIG.format(name=name, extra=""))
    seconds, cpu, rss = startup_seconds(build, identity, runs)
    print(f"   start to ready, 100 identity models  {seconds * 1000:8.1f} ms   "
          f"(CPU {cpu:.1f} ms; RSS then {rss:.1f} MiB)")
    # Ten times the models should take about ten times as long.
    for i in range(100, 1000):
        name = f"identity_{i:03d}"
        write_model(identity, name, IDENTITY_CONFIG.format(name=name, extra=""))
    thousand, cpu, rss = startup_seconds(build, identity, runs)
    print(f"   start to ready, 1000 identity models {thousand * 1000:8.1f} ms   "
          f"({thousand / seconds:.1f}x the 100; CPU {cpu:.1f} ms; RSS then {rss:.1f} MiB)")


def startup_onnx(build, workdir, runs):
    """Section 4 on 100 ONNX models, against its target, Triton and ONNX Runtime
    alone; skipped without the onnxruntime backend or the example model."""
    onnx_model = os.path.join(ROOT, "examples", "models", "onnx_add_sub", "1", "model.onnx")
    onnx_config = os.path.join(ROOT, "examples", "models", "onnx_add_sub", "config.pbtxt")
    if not os.path.isfile(os.path.join(build, "backends", "onnxruntime", "libinferd_onnxruntime.so")):
        print(f"   100 ONNX models: skipped, {build}/backends/onnxruntime/libinferd_onnxruntime.so is not built")
    elif not os.path.isfile(onnx_model):
        print("   100 ONNX models: skipped, examples/models/onnx_add_sub/1/model.onnx is missing "
              "(make models)")
    else:
        onnx = os.path.join(workdir, "onnx")
        template = open(onnx_config).read()
        for i in range(100):
            name = f"onnx_{i:03d}"
            config = re.sub(r'name: "onnx_add_sub"', f'name: "{name}"', template)
            write_model(onnx, name, config, [onnx_model])
        seconds, cpu, rss = startup_seconds(build, onnx, runs)
        ms = seconds * 1000
        print(f"   start to ready, 100 ONNX models      {ms:8.1f} ms    "
              f"target <= {TARGET_ONNX_READY_MS} ms: ratio {ms / TARGET_ONNX_READY_MS:.2f}; "
              f"Triton {TRITON_ONNX_READY_MS} ms: ratio {ms / TRITON_ONNX_READY_MS:.2f}")
        print(f"                                        (onnx_add_sub copies; CPU {cpu:.1f} ms; "
              f"RSS then {rss:.1f} MiB)")
        floor = ort_load_floor_ms(build, onnx_model, runs)
        if floor is not None:
            print(f"   ONNX Runtime alone, the same 100      {floor:8.1f} ms    inferd's ratio to it "
                  f"{ms / floor:.2f} (floor: a process of its own, launch to 100 sessions, "
                  "bench/ort_load_bench.cc)")


def section_startup(build, args):
    print(f"== 4. footprint and start-up (median of {args.starts} starts; CPU: user + system "
          "by ready) ==")
    workdir = tempfile.mkdtemp(prefix="inferd-bench-start-")
    runs = args.starts
    try:
        empty = os.path.join(workdir, "empty")
        os.makedirs(empty)
        startup_empty(build, empty, runs)
        startup_identity(build, workdir, runs)
        startup_onnx(build, workdir, runs)
        print()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def section_compute(build):
    """Section 10: the MLP scripts, each a process of its own (they build their
    models and servers); the pytorch one only where its backend was built."""
    print("10. Compute-bound MLP, served vs in-process (ratio: target >= 0.95)")
    scripts = ["onnx_mlp.py"]
    if os.path.exists(os.path.join(build, "backends/pytorch/inferd_torch_bench")):
        scripts.append("torch_mlp.py")
    for script in scripts:
        result = subprocess.run([sys.executable, os.path.join(ROOT, "bench", script),
                                 "--build-dir", build], capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"{script}: {result.stderr.strip()[-500:]}")
        print("   " + result.stdout.strip().replace("\n", "\n   "))
    print()


SECTION_NAMES = ["loadgen", "wrk", "perf-analyzer", "perf-analyzer-ensemble", "startup",
                 "streaming", "sequences", "python", "ensembles", "grpc-ceiling", "compute",
                 "cache", "memory", "tracing", "memory-budget", "llamacpp", "cloud-repository",
                 "cpu-per-request"]


def sections(build, args):
    """(skip it?, run it) for each section, in order."""
    results = {}
    return [(args.skip_loadgen, lambda: results.update(section_loadgen(build, args))),
            (args.skip_wrk, lambda: section_wrk(build, args, results)),
            (args.skip_perf_analyzer, lambda: section_perf_analyzer(build, args)),
            (args.skip_perf_analyzer_ensemble,
             lambda: section_perf_analyzer_ensemble(build, args)),
            (args.skip_startup, lambda: section_startup(build, args)),
            (args.skip_streaming,
             lambda: section_streaming(build, args, Inferd, write_model)),
            (args.skip_sequences,
             lambda: section_sequences(build, args, Inferd, write_model)),
            (args.skip_python,
             lambda: section_python(build, args, Inferd, write_model, loadgen)),
            (args.skip_ensembles,
             lambda: section_ensembles(build, args, Inferd, write_model)),
            (args.skip_grpc_ceiling,
             lambda: section_grpc_ceiling(build, args, Inferd, write_model, IDENTITY_CONFIG,
                                          loadgen, free_port)),
            (args.skip_compute, lambda: section_compute(build)),
            (args.skip_cache,
             lambda: section_cache(build, args, Inferd, write_model, loadgen)),
            (args.skip_memory,
             lambda: section_memory(build, args, Inferd, ROOT, args.cycles)),
            (args.skip_tracing,
             lambda: section_tracing(build, args, Inferd, write_model, loadgen)),
            (args.skip_memory_budget,
             lambda: section_memory_budget(build, args, Inferd)),
            (args.skip_llamacpp,
             lambda: section_llamacpp(build, args, Inferd, write_model, free_port, ROOT)),
            (args.skip_cloud_repository,
             lambda: section_cloud_repository(build, args, Inferd, write_model)),
            (args.skip_cpu_per_request,
             lambda: section_cpu_per_request(build, args, Inferd, write_model, IDENTITY_CONFIG,
                                             loadgen, free_port))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=os.environ.get("INFERD_BUILD_DIR", os.path.join(ROOT, "build")))
    parser.add_argument("--duration", type=float, default=5, help="measured seconds per loadgen step")
    parser.add_argument("--warmup", type=float, default=1, help="warm-up seconds per loadgen step")
    # One --skip-<name> per section, in the order they run.
    for name in SECTION_NAMES:
        parser.add_argument(f"--skip-{name}", action="store_true")
    parser.add_argument("--starts", type=int, default=5,
                        help="starts per start-up figure (the median is printed)")
    parser.add_argument("--cycles", type=int, default=1000,
                        help="load/unload cycles in the memory section")
    args = parser.parse_args()
    build = os.path.abspath(args.build_dir)
    for needed in ("inferd", "tools/inferd-loadgen", "backends/identity/libinferd_identity.so"):
        if not os.path.exists(os.path.join(build, needed)):
            sys.exit(f"bench: {os.path.join(build, needed)} is missing; build first (make build)")
    cpu = re.search(r"model name\s*:\s*(.*)", open("/proc/cpuinfo").read())
    print(f"inferd bench on {os.cpu_count()} cores ({cpu.group(1) if cpu else 'unknown CPU'}), "
          f"binaries from {build}\n")
    for skip, section in sections(build, args):
        if skip:
            continue
        try:
            section()
        except RuntimeError as e:  # one section failing still prints the others
            print(f"   failed: {e}\n")


if __name__ == "__main__":
    main()
