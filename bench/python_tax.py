"""bench.py section 7: what a Python model costs over a C++ backend (the
"Python tax"): the same 16 x FP32 echo served by the identity backend and by a
model.py that returns its input, one instance each, under inferd-loadgen.
Also the control channel's round trip alone (two Python processes on a
SOCK_SEQPACKET pair, the stub's mechanism) and the load time a stub adds.
"""
import argparse
import json
import os
import re
import socket
import statistics
import struct
import subprocess
import tempfile
import shutil
import time
import urllib.request

ECHO_MODEL = '''import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        return [pb_utils.InferenceResponse([pb_utils.Tensor(
            "OUTPUT0", pb_utils.get_input_tensor_by_name(r, "INPUT0").as_numpy())])
            for r in requests]
'''

ROUNDS = 7
# Issue 43: the tax's target, and Triton 2.51's own (gRPC c1 p50 of a model.py
# minus the same model served natively, on this box).
TARGET_TAX_US, TRITON_TAX_US = 20, 139
# A fixed moderate rate for CPU per request (bench section 17's lower one).
FIXED_RATE = 1000

CONFIG = """name: "{name}"
backend: "{backend}"
max_batch_size: 0
input [ {{ name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] }} ]
output [ {{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] }} ]
instance_group [ {{ kind: KIND_CPU count: 1 }} ]
"""


def control_round_trip(gap_s, count=3000):
    """p50 microseconds of a 40-byte message there and back between two Python
    processes, `gap_s` idle between round trips (0: back to back)."""
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        a.close()
        buf = bytearray(40)
        while b.recv_into(buf) == 40:
            b.send(buf)
        os._exit(0)
    b.close()
    message, buf, times = struct.pack("<IIQQQQ", 5, 0, 0, 0, 0, 0), bytearray(40), []
    for _ in range(count):
        if gap_s:
            time.sleep(gap_s)
        start = time.perf_counter()
        a.send(message)
        a.recv_into(buf)
        times.append(time.perf_counter() - start)
    a.close()
    os.waitpid(pid, 0)
    return statistics.median(times[count // 10:]) * 1e6


def _process_counts(pid):
    """CPU seconds and context switches (voluntary, involuntary) of process
    `pid` and its children (the stubs), summed over every thread."""
    cpu, voluntary, involuntary = 0.0, 0, 0
    pids = [pid]
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            pids += [int(child) for child in f.read().split()]
    for p in pids:
        try:
            fields = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
            cpu += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            for task in os.listdir(f"/proc/{p}/task"):
                status = open(f"/proc/{p}/task/{task}/status").read()
                voluntary += int(re.search(r"^voluntary_ctxt_switches:\s+(\d+)", status, re.M)[1])
                involuntary += int(re.search(r"^nonvoluntary_ctxt_switches:\s+(\d+)", status,
                                             re.M)[1])
        except (FileNotFoundError, ProcessLookupError):
            pass  # a thread or a stub that ended meanwhile
    return cpu, voluntary, involuntary


def _successes(port, model):
    url = f"http://127.0.0.1:{port}/v2/models/{model}/stats"
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)["model_stats"][0]["inference_stats"]["success"]["count"]


def counts_per_request(build, args, server, loadgen, protocol, binary, rate=None):
    """Per request at concurrency 1 (or open loop at `rate` requests per
    second), for each model: the context switches of the server and its stubs
    together (each is a thread going to sleep or being preempted; a wake-up
    saved is one fewer) and their CPU microseconds. Counts, unlike times,
    barely move with this box's other load."""
    rows = {}
    for model in ("identity", "python"):
        before, done = _process_counts(server.process.pid), _successes(server.http_port, model)
        loadgen(build, args, server, model, protocol, binary, 1, rate)
        after, requests = _process_counts(server.process.pid), \
            _successes(server.http_port, model) - done
        if requests:
            rows[model] = ((after[1] - before[1]) / requests, (after[2] - before[2]) / requests,
                           (after[0] - before[0]) / requests * 1e6)
    return rows


def print_counts(counts, step="1"):
    if len(counts) == 2:
        (iv, ii, ic), (pv, pi, pc) = counts["identity"], counts["python"]
        print(f"   {'':12} {step:>5} per request, server and stub together: context switches "
              f"{iv + ii:.2f} identity, {pv + pi:.2f} python ({pi:.2f} preempted); CPU "
              f"{ic:.0f} us identity, {pc:.0f} us python (tax {pc - ic:.0f} us)", flush=True)


def print_tax_ratios(tax, protocol):
    """The tax against issue 43's target and (gRPC, where Triton was measured)
    against Triton 2.51's own tax."""
    triton = f", {tax / TRITON_TAX_US:.2f} of Triton 2.51's {TRITON_TAX_US} us" \
        if protocol == "grpc" else ""
    print(f"   {'':12} {'':>5} tax {tax:.1f} us: {tax / TARGET_TAX_US:.2f}x the "
          f"{TARGET_TAX_US} us target{triton}", flush=True)


def print_stub_cost(build):
    """The stub's own Python for one request, no sockets (bench/python_stub_cost.py)."""
    cost = subprocess.run(["/usr/bin/python3", os.path.join(os.path.dirname(__file__),
                                                            "python_stub_cost.py"),
                           os.path.join(build, "backends", "python")],
                          capture_output=True, text=True)
    print("   " + (cost.stdout.strip() or "stub cost: " + cost.stderr.strip()[-200:]))


def tax_rounds(build, short, server, loadgen, protocol, binary, label):
    """ROUNDS short concurrency-1 runs alternating the two models; prints the
    medians and the tax (the median of the rounds' p50 differences)."""
    p50 = {"identity": [], "python": []}
    rate = {"identity": [], "python": []}
    for _ in range(ROUNDS):
        for model in ("identity", "python"):
            row = loadgen(build, short, server, model, protocol, binary, 1)
            if row is not None:
                p50[model].append(float(row["p50_us"]))
                rate[model].append(float(row["infer_per_sec"]))
    if len(p50["identity"]) != ROUNDS or len(p50["python"]) != ROUNDS:
        print(f"   {label:12} {1:>5} (no result)")
        return
    tax = statistics.median(b - a for a, b in zip(p50["identity"], p50["python"]))
    print(f"   {label:12} {1:>5} {statistics.median(p50['identity']):>16.1f} "
          f"{statistics.median(p50['python']):>14.1f} {tax:>7.1f} "
          f"{statistics.median(rate['identity']):>15.0f} "
          f"{statistics.median(rate['python']):>13.0f}", flush=True)
    print_tax_ratios(tax, protocol)


def section_python(build, args, inferd_class, write_model, loadgen):
    print("== 7. the Python tax: identity backend vs a model.py returning its input ==")
    if not os.path.exists(os.path.join(build, "backends", "python", "libinferd_python.so")):
        raise RuntimeError("build/backends/python is missing")
    print("   control channel round trip (40 bytes each way, Python <-> Python): "
          f"back to back {control_round_trip(0):.1f} us, after 100 us idle "
          f"{control_round_trip(100e-6):.1f} us, after 1 ms idle "
          f"{control_round_trip(1e-3, 1000):.1f} us")
    print_stub_cost(build)
    repo = tempfile.mkdtemp(prefix="inferd-bench-python-")
    write_model(repo, "identity", CONFIG.format(name="identity", backend="identity"))
    write_model(repo, "python", CONFIG.format(name="python", backend="python"))
    with open(os.path.join(repo, "python", "1", "model.py"), "w") as f:
        f.write(ECHO_MODEL)
    server = inferd_class(build, repo)
    try:
        ready_s = server.wait_ready()
        print(f"   start to ready with both models (the stub starts python3 and numpy): "
              f"{ready_s * 1000:.0f} ms")
        print(f"   concurrency 1: {ROUNDS} rounds alternating the two models, 1 s each; the tax "
              "is the median of the rounds' p50 differences (this box's other load drifts); "
              f"then CPU per request at concurrency 1 and open loop at {FIXED_RATE} req/s "
              "(inferd-loadgen --request-rate: everyday load, where polling must not cost)")
        print(f"\n   {'protocol':12} {'conc':>5} {'identity p50 us':>16} {'python p50 us':>14} "
              f"{'tax us':>7} {'identity inf/s':>15} {'python inf/s':>13}")
        short = argparse.Namespace(**vars(args))
        short.duration, short.warmup = 1, 0.2
        for protocol, binary, label in (("grpc", False, "grpc"), ("http", True, "http binary")):
            tax_rounds(build, short, server, loadgen, protocol, binary, label)
            print_counts(counts_per_request(build, args, server, loadgen, protocol, binary))
            print_counts(counts_per_request(build, args, server, loadgen, protocol, binary,
                                            FIXED_RATE), f"{FIXED_RATE}/s")
            rows = {model: loadgen(build, args, server, model, protocol, binary, 16)
                    for model in ("identity", "python")}
            if None in rows.values():
                print(f"   {label:12} {16:>5} (no result)")
                continue
            print(f"   {label:12} {16:>5} {float(rows['identity']['p50_us']):>16.1f} "
                  f"{float(rows['python']['p50_us']):>14.1f} {'':>7} "
                  f"{float(rows['identity']['infer_per_sec']):>15.0f} "
                  f"{float(rows['python']['infer_per_sec']):>13.0f}", flush=True)
        print(f"\n   inferd RSS after the load: {server.rss_mib():.1f} MiB (the stub's own "
              "process not included)\n")
    finally:
        server.stop()
        shutil.rmtree(repo, ignore_errors=True)
