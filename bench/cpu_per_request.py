"""Section 17 of bench.py: the server CPU one request costs at everyday load.

Production servers run at moderate utilisation, so what a user pays for is
the CPU each request takes at a fixed rate, not throughput at saturation. The
identity model (16 x FP32, one CPU instance) is driven at fixed request rates
(1,000 and 3,000 per second) over HTTP (binary tensors) and gRPC by two tools:
inferd-loadgen (open loop, constant arrivals) and perf_analyzer's request-rate
mode (the tool issue 43's Triton figures come from; its worker threads wake
per request). The server's CPU (user + system, every thread, from /proc) is
divided by the requests its statistics counted over the same run, and so are
the times its threads went to sleep (each a wake-up later). Beside it:
the server's idle CPU, and over gRPC the gRPC ceiling (bench/grpc_ceiling.cc:
the same gRPC API as inferd's, one completion queue polled by one thread,
answering at once, no model behind it, counting its answers in its
statistics) and "ceil-cb", the same answers on gRPC's callback API. Three alternating rounds,
medians; against issue 43's figures for Triton 2.51 on this box kind and its
targets.
"""
import glob
import os
import statistics
import subprocess
import tempfile
import time

import tritonclient.grpc as grpcclient

from grpc_ceiling import Ceiling
from perf_analyzer import perf_analyzer_and_env
from tracing import _cpu_seconds

RATES = (1000, 3000)
PROTOCOLS = (("http", True, "http binary"), ("grpc", False, "grpc"))
# Issue 43: server CPU per request at 3,000 req/s on this box kind (us), measured
# under perf_analyzer's request-rate mode.
TRITON_US = {"http binary": 123, "grpc": 202}
TARGET_US = {"http binary": 60, "grpc": 100}
IDLE_SECONDS = 3
# The gRPC ceiling on inferd's API (one completion queue, one polling thread),
# and on gRPC's callback API (whose threads share one epoll set with every
# other poller of gRPC's, so a call's events are handed between threads).
CEILINGS = (("async", 1, "ceiling"), ("callback", 2, "ceil-cb"))
MODEL = "identity_fp32"


def _idle_cpu_ms_per_s(pid):
    """CPU milliseconds per second the process spends with nothing to do."""
    before, start = _cpu_seconds(pid), time.monotonic()
    time.sleep(IDLE_SECONDS)
    return (_cpu_seconds(pid) - before) / (time.monotonic() - start) * 1e3


def _answered(target):
    """Requests the server (inferd or the ceiling) counts as answered, from its
    gRPC statistics."""
    with grpcclient.InferenceServerClient(f"127.0.0.1:{target.grpc_port}") as client:
        stats = client.get_inference_statistics(model_name=MODEL, as_json=True)
    return int(stats["model_stats"][0]["inference_stats"]["success"].get("count", 0))


def _sleeps(pid):
    """Times the server's threads went to sleep (voluntary context switches,
    every thread): each is a wake-up paid for later, and unlike CPU time the
    count hardly moves with the box's load."""
    total = 0
    for path in glob.glob(f"/proc/{pid}/task/*/status"):
        try:
            with open(path) as status:
                total += next(int(line.split()[1]) for line in status
                              if line.startswith("voluntary_ctxt_switches"))
        except (FileNotFoundError, StopIteration):
            pass  # a thread that ended meanwhile
    return total


def _cpu_us_per_request(target, drive):
    """Runs drive(); the server's CPU (us) and sleeps over that run, each divided
    by the requests it answered meanwhile (None when it answered none)."""
    pid = target.process.pid
    cpu, sleeps, done = _cpu_seconds(pid), _sleeps(pid), _answered(target)
    drive()
    requests = _answered(target) - done
    if requests <= 0:
        return None
    return ((_cpu_seconds(pid) - cpu) / requests * 1e6, (_sleeps(pid) - sleeps) / requests)


def _perf_analyzer_at_rate(target, protocol, rate):
    """perf_analyzer's request-rate mode (what issue 43 measured with): a few
    2 s windows at a fixed rate."""
    binary, env = perf_analyzer_and_env()
    port = target.http_port if protocol == "http" else target.grpc_port
    command = [binary, "-m", MODEL, "-u", f"127.0.0.1:{port}", "-i", protocol,
               "--request-rate-range", str(rate), "--measurement-interval", "2000",
               "--max-trials", "4", "--stability-percentage", "50"]
    subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)


def _measure(build, args, target, loadgen, label, rates, figures):
    """Every (tool, protocol, rate) this target serves, into figures."""
    has_pa = perf_analyzer_and_env()[0] is not None
    for protocol, binary, name in PROTOCOLS:
        if label != "inferd" and protocol == "http":
            continue
        for rate in rates:
            # bench.py's loadgen(): open loop at `rate` (its concurrency unused).
            runs = [("loadgen", lambda: loadgen(build, args, target, MODEL, protocol, binary,
                                                None, rate=rate))]
            if has_pa:
                runs.append(("perf_analyzer", lambda: _perf_analyzer_at_rate(target, protocol,
                                                                             rate)))
            for tool, drive in runs:
                figure = _cpu_us_per_request(target, drive)
                if figure is not None:
                    figures.setdefault((label, tool, name, rate), []).append(figure)


def _print(figures, idle):
    print(f"   idle server CPU: {statistics.median(idle):.2f} ms per second (median of 3)")
    print(f"   {'server':8} {'load tool':14} {'protocol':12} {'req/s':>6} {'us/req':>7} "
          f"{'sleeps/req':>10} {'Triton 2.51':>12} {'ratio':>6} {'target':>7}")
    for (label, tool, name, rate), values in sorted(figures.items()):
        us = statistics.median(value[0] for value in values)
        sleeps = statistics.median(value[1] for value in values)
        triton = TRITON_US.get(name) if (label, rate) == ("inferd", 3000) else None
        extra = (f"{triton:>12} {us / triton:>6.2f} {TARGET_US[name]:>7}" if triton
                 else f"{'':>12} {'':>6} {'':>7}")
        print(f"   {label:8} {tool:14} {name:12} {rate:>6} {us:>7.1f} {sleeps:>10.2f} {extra}")
    for tool in ("loadgen", "perf_analyzer"):
        for rate in RATES:
            ceiling = figures.get(("ceiling", tool, "grpc", rate))
            grpc = figures.get(("inferd", tool, "grpc", rate))
            if ceiling and grpc:
                c = statistics.median(value[0] for value in ceiling)
                g = statistics.median(value[0] for value in grpc)
                print(f"   gRPC at {rate} req/s under {tool}: inferd / ceiling {g / c:.2f}")
    print()


def section_cpu_per_request(build, args, Inferd, write_model, identity_config, loadgen,
                            free_port):
    print("== 17. server CPU per request at fixed rates: identity model, inferd-loadgen and "
          "perf_analyzer ==")
    repo = tempfile.mkdtemp(prefix="inferd-bench-cpu-")
    write_model(repo, MODEL, identity_config.format(name=MODEL, extra=""))
    ceiling_binary = os.path.join(build, "bench", "inferd-grpc-ceiling")
    figures, idle = {}, []
    for _ in range(3):
        server = Inferd(build, repo)
        try:
            server.wait_ready()
            idle.append(_idle_cpu_ms_per_s(server.process.pid))
            _measure(build, args, server, loadgen, "inferd", RATES, figures)
        finally:
            server.stop()
        for api, threads, label in CEILINGS:
            if not os.path.exists(ceiling_binary):
                break
            ceiling = Ceiling(ceiling_binary, free_port(), api, threads)
            try:
                _measure(build, args, ceiling, loadgen, label, RATES, figures)
            finally:
                ceiling.stop()
    _print(figures, idle)
