"""Section 6 of bench.py: 64 concurrent sequences through the sequence batcher.

64 client threads (tritonclient gRPC, one channel each) each send sequences
of 20 requests, one request after another (START on the first, END on the
last), for the measured time; each request carries one INT32 value. Against:

- `seq_direct`: the accumulate backend (a running sum per sequence) under the
  sequence batcher's direct strategy, 64 slots: a slot per sequence;
- `seq_oldest`: the same under the oldest strategy, 64 candidate sequences;
- `stateless`: the identity backend under the dynamic batcher, the same load
  without sequence parameters: what the sequence bookkeeping costs.

All three: max_batch_size 64, one instance, max_queue_delay 500 us. Printed:
requests per second, latency p50 / p99, and the mean rows per execution (from
the statistics endpoint). inferd-loadgen has no sequence mode, so the client is
Python: its own cost is in every figure, the same for all three lines. Then
perf_analyzer's sequence mode against seq_direct, 16 sequences at a time over
gRPC (issue 43's measurement), against Triton 2.51's figure.
"""
import json
import os
import re
import statistics
import subprocess
import tempfile
import time
import urllib.request

from client_threads import run_client_threads
from perf_analyzer import perf_analyzer_and_env

SEQUENCES = 64
LENGTH = 20
# Issue 43: Triton 2.51's sequence batcher under perf_analyzer over gRPC at
# concurrency 16 (16 live sequences), on this box kind.
TRITON_SEQUENCES_C16_PER_S = 3080

CONTROLS = """  control_input [
    { name: "START" control [ { kind: CONTROL_SEQUENCE_START int32_false_true: [ 0, 1 ] } ] },
    { name: "END" control [ { kind: CONTROL_SEQUENCE_END int32_false_true: [ 0, 1 ] } ] },
    { name: "READY" control [ { kind: CONTROL_SEQUENCE_READY int32_false_true: [ 0, 1 ] } ] },
    { name: "CORRID" control [ { kind: CONTROL_SEQUENCE_CORRID data_type: TYPE_UINT64 } ] }
  ]"""

ACCUMULATE_CONFIG = """name: "{name}"
backend: "accumulate"
max_batch_size: 64
input [ {{ name: "INPUT" data_type: TYPE_INT32 dims: [ 1 ] }} ]
output [ {{ name: "OUTPUT" data_type: TYPE_INT32 dims: [ 1 ] }} ]
instance_group [ {{ count: 1 kind: KIND_CPU }} ]
sequence_batching {{
  {strategy}
{controls}
}}
"""

IDENTITY_CONFIG = """name: "stateless"
backend: "identity"
max_batch_size: 64
input [ { name: "INPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
output [ { name: "OUTPUT" data_type: TYPE_INT32 dims: [ 1 ] } ]
instance_group [ { count: 1 kind: KIND_CPU } ]
dynamic_batching { max_queue_delay_microseconds: 500 }
"""

STRATEGIES = {
    "seq_direct": "direct { max_queue_delay_microseconds: 500 }",
    "seq_oldest": "oldest { max_candidate_sequences: 64 max_queue_delay_microseconds: 500 }",
}


def _stats(http_port, model):
    url = f"http://127.0.0.1:{http_port}/v2/models/{model}/stats"
    with urllib.request.urlopen(url, timeout=5) as response:
        entry = json.load(response)["model_stats"][0]
    return entry["execution_count"], entry["inference_stats"]["success"]["count"]


def _client_thread(port, model, stateful, first_id, start, stop, latencies, errors):
    import numpy as np
    import tritonclient.grpc as grpcclient

    client = grpcclient.InferenceServerClient(f"127.0.0.1:{port}")
    inp = grpcclient.InferInput("INPUT", [1, 1], "INT32")
    out = [grpcclient.InferRequestedOutput("OUTPUT")]
    sequence_id = first_id
    mine = []
    try:
        start.wait()
        measuring = True
        while measuring:
            for step in range(LENGTH):
                inp.set_data_from_numpy(np.array([[step]], dtype=np.int32))
                kwargs = {}
                if stateful:
                    kwargs = dict(sequence_id=sequence_id, sequence_start=step == 0,
                                  sequence_end=step == LENGTH - 1)
                sent = time.perf_counter()
                client.infer(model, [inp], outputs=out, **kwargs)
                mine.append(time.perf_counter() - sent)
            # Whole sequences only: the last one ends before the thread stops.
            measuring = not stop.is_set()
            sequence_id += 1
    except Exception as e:  # noqa: BLE001 - reported, the others go on
        errors.append(repr(e)[:300])
    finally:
        client.close()
        latencies.extend(mine)


def _run(server, model, stateful, seconds, id_base):
    """Runs the load for `seconds` (then lets every sequence finish)."""
    try:
        latencies, elapsed = run_client_threads(
            _client_thread,
            lambda t: (server.grpc_port, model, stateful, id_base + t * 1_000_000),
            SEQUENCES, seconds)
    except RuntimeError as e:
        raise RuntimeError(f"{model}: {e}") from None
    return len(latencies), elapsed, latencies


def _measure(server, args, model, stateful, id_base):
    _run(server, model, stateful, args.warmup, id_base)  # warm-up, not counted
    executions0, requests0 = _stats(server.http_port, model)
    count, elapsed, latencies = _run(server, model, stateful, args.duration, id_base + 500_000)
    executions1, requests1 = _stats(server.http_port, model)
    latencies.sort()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    rows = (requests1 - requests0) / max(1, executions1 - executions0)
    print(f"   {model:10s} {count / elapsed:8.0f} req/s   p50 {statistics.median(latencies) * 1e3:6.2f} ms"
          f"   p99 {p99 * 1e3:6.2f} ms   {rows:5.1f} rows per execution")
    return count / elapsed


def _perf_analyzer_sequences(server, model):
    """perf_analyzer's own sequence mode (it reads the model's sequence batcher
    and sends START/END and ids itself) at concurrency 16, sequences of LENGTH:
    the issue's measurement; its infer/s, or None with why."""
    binary, env = perf_analyzer_and_env()
    if not binary:
        return None
    command = [binary, "-m", model, "-u", f"127.0.0.1:{server.grpc_port}", "-i", "grpc",
               "--concurrency-range", "16", "--sequence-length", str(LENGTH),
               "--measurement-interval", "2000", "--max-trials", "6",
               "--stability-percentage", "30"]
    try:
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=180)
    except subprocess.TimeoutExpired:
        print("   perf_analyzer: no result in 180 s")
        return None
    found = re.search(r"Concurrency: 16, throughput: ([\d.]+) infer/sec", result.stdout)
    if not found:
        print("   perf_analyzer: no result: " + " | ".join(result.stdout.splitlines()[-2:])[:300])
        return None
    rate = float(found.group(1))
    print(f"   perf_analyzer, gRPC, 16 sequences of {LENGTH} ({model}): {rate:8.0f} infer/s;"
          f" Triton 2.51 {TRITON_SEQUENCES_C16_PER_S:,}/s: ratio"
          f" {rate / TRITON_SEQUENCES_C16_PER_S:.2f} (target >= 2)")
    return rate


def section_sequences(build, args, inferd_class, write_model):
    print(f"== 6. {SEQUENCES} concurrent sequences of {LENGTH} requests (gRPC, Python threads) ==")
    if not os.path.exists(os.path.join(build, "backends", "accumulate", "libinferd_accumulate.so")):
        raise RuntimeError("build/backends/accumulate is missing")
    repo = tempfile.mkdtemp(prefix="inferd-bench-sequences-")
    for name, strategy in STRATEGIES.items():
        write_model(repo, name, ACCUMULATE_CONFIG.format(name=name, strategy=strategy,
                                                         controls=CONTROLS))
    write_model(repo, "stateless", IDENTITY_CONFIG)
    server = inferd_class(build, repo)
    try:
        server.wait_ready()
        rates = {}
        for index, model in enumerate([*STRATEGIES, "stateless"]):
            rates[model] = _measure(server, args, model, model != "stateless",
                                    id_base=1 + index * 100_000_000)
        for model in STRATEGIES:
            print(f"   {model} / stateless: {rates[model] / rates['stateless']:.2f}")
        _perf_analyzer_sequences(server, "seq_direct")
    finally:
        server.stop()
    print()
