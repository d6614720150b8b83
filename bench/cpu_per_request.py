"""Section 17 of bench.py: the server CPU one request costs at everyday load.

Production servers run at moderate utilisation, so what a user pays for is
the CPU each request takes at a fixed rate, not throughput at saturation. The
identity model (16 x FP32, one CPU instance) is driven by inferd-loadgen at
fixed request rates (1,000 and 3,000 per second, constant arrivals) over HTTP
(binary tensors) and gRPC; the server's CPU (user + system, every thread,
from /proc) is divided by the requests its statistics counted over the same
window. Beside it: the server's idle CPU, and at 3,000 req/s over gRPC the
gRPC ceiling (bench/grpc_ceiling.cc: the same gRPC callback API answering at
once, no model behind it; its requests are the rate times the run's seconds).
Three alternating rounds, medians; against issue 43's figures for Triton 2.51
on this box kind and its targets.
"""
import os
import statistics
import tempfile
import time

from grpc_ceiling import Ceiling
from tracing import _cpu_seconds, _successes

RATES = (1000, 3000)
PROTOCOLS = (("http", True, "http binary"), ("grpc", False, "grpc"))
# Issue 43: server CPU per request at 3,000 req/s on this box kind (us).
TRITON_US = {"http binary": 123, "grpc": 202}
TARGET_US = {"http binary": 60, "grpc": 100}
IDLE_SECONDS = 3


def _idle_cpu_ms_per_s(pid):
    """CPU milliseconds per second the process spends with nothing to do."""
    before, start = _cpu_seconds(pid), time.monotonic()
    time.sleep(IDLE_SECONDS)
    return (_cpu_seconds(pid) - before) / (time.monotonic() - start) * 1e3


def _inferd_us(build, args, server, loadgen_at_rate, protocol, binary, rate):
    cpu, done = _cpu_seconds(server.process.pid), _successes(server.http_port)
    loadgen_at_rate(build, args, server, "identity_fp32", protocol, binary, rate)
    requests = _successes(server.http_port) - done
    return (_cpu_seconds(server.process.pid) - cpu) / requests * 1e6 if requests else None


def _ceiling_us(build, args, ceiling, loadgen_at_rate, rate):
    cpu = _cpu_seconds(ceiling.process.pid)
    row = loadgen_at_rate(build, args, ceiling, "identity_fp32", "grpc", False, rate)
    if row is None:
        return None
    # The ceiling keeps no statistics: the loadgen's rate over its warm-up and
    # measured window stands for the count.
    requests = rate * (args.warmup + args.duration)
    return (_cpu_seconds(ceiling.process.pid) - cpu) / requests * 1e6


def _print(figures, idle):
    print(f"   idle server CPU: {statistics.median(idle):.2f} ms per second (median of 3)")
    print(f"   {'protocol':12} {'req/s':>6} {'inferd us/req':>14} {'Triton 2.51':>12} "
          f"{'ratio':>6} {'target':>7}")
    for (label, rate), values in figures.items():
        if label == "ceiling" or not values:
            continue
        us = statistics.median(values)
        triton = TRITON_US.get(label) if rate == 3000 else None
        extra = (f"{triton:>12} {us / triton:>6.2f} {TARGET_US[label]:>7}" if triton
                 else f"{'':>12} {'':>6} {'':>7}")
        print(f"   {label:12} {rate:>6} {us:>14.1f} {extra}")
    ceiling = figures.get(("ceiling", 3000))
    grpc = figures.get(("grpc", 3000))
    if ceiling and grpc:
        c, g = statistics.median(ceiling), statistics.median(grpc)
        print(f"   gRPC ceiling at 3000 req/s: {c:.1f} us/req; inferd / ceiling {g / c:.2f}")
    print()


def section_cpu_per_request(build, args, Inferd, write_model, identity_config, loadgen_at_rate,
                            free_port):
    print("== 17. server CPU per request at fixed rates: identity model, inferd-loadgen ==")
    repo = tempfile.mkdtemp(prefix="inferd-bench-cpu-")
    write_model(repo, "identity_fp32", identity_config.format(name="identity_fp32", extra=""))
    ceiling_binary = os.path.join(build, "bench", "inferd-grpc-ceiling")
    figures, idle = {}, []
    for _ in range(3):
        server = Inferd(build, repo)
        try:
            server.wait_ready()
            idle.append(_idle_cpu_ms_per_s(server.process.pid))
            for protocol, binary, label in PROTOCOLS:
                for rate in RATES:
                    us = _inferd_us(build, args, server, loadgen_at_rate, protocol, binary, rate)
                    if us is not None:
                        figures.setdefault((label, rate), []).append(us)
        finally:
            server.stop()
        if os.path.exists(ceiling_binary):
            ceiling = Ceiling(ceiling_binary, free_port())
            try:
                us = _ceiling_us(build, args, ceiling, loadgen_at_rate, 3000)
                if us is not None:
                    figures.setdefault(("ceiling", 3000), []).append(us)
            finally:
                ceiling.stop()
    _print(figures, idle)
