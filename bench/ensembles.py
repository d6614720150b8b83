"""Section 7 of bench.py: an ensemble of two identity steps against the client
calling the two models one after the other.

16 client threads (tritonclient gRPC, one channel each) send requests of 16
FP32 values for the measured time, one after another, against:

- `pair`: an ensemble whose step 0 runs `first` and step 1 runs `second` on
  step 0's output, inside the server (one round trip);
- `first` then `second`: the client sends the first model's output back as
  the second model's input (two round trips, the intermediate tensor crosses
  the wire twice).

Both identity models: max_batch_size 8, dynamic batching, one instance.
Printed: pipelines per second, latency p50 / p99 and the ratio. The client is
Python (its cost is in both figures, twice in the second).
"""
import statistics
import tempfile
import time

from client_threads import run_client_threads

CLIENTS = 16

IDENTITY = """name: "{name}"
backend: "identity"
max_batch_size: 8
input [ {{ name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] }} ]
output [ {{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] }} ]
instance_group [ {{ count: 1 kind: KIND_CPU }} ]
dynamic_batching {{ }}
"""

PAIR = """name: "pair"
platform: "ensemble"
max_batch_size: 8
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 16 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 16 ] } ]
ensemble_scheduling { step [
  { model_name: "first" model_version: -1
    input_map { key: "INPUT0" value: "IN" } output_map { key: "OUTPUT0" value: "mid" } },
  { model_name: "second" model_version: -1
    input_map { key: "INPUT0" value: "mid" } output_map { key: "OUTPUT0" value: "OUT" } }
] }
"""


def _client_thread(port, ensemble, start, stop, latencies, errors):
    import numpy as np
    import tritonclient.grpc as grpcclient

    client = grpcclient.InferenceServerClient(f"127.0.0.1:{port}")
    data = np.arange(16, dtype=np.float32).reshape(1, 16)
    mine = []
    try:
        start.wait()
        while not stop.is_set():
            sent = time.perf_counter()
            if ensemble:
                inp = grpcclient.InferInput("IN", [1, 16], "FP32")
                inp.set_data_from_numpy(data)
                client.infer("pair", [inp]).as_numpy("OUT")
            else:
                inp = grpcclient.InferInput("INPUT0", [1, 16], "FP32")
                inp.set_data_from_numpy(data)
                mid = client.infer("first", [inp]).as_numpy("OUTPUT0")
                inp = grpcclient.InferInput("INPUT0", [1, 16], "FP32")
                inp.set_data_from_numpy(mid)
                client.infer("second", [inp]).as_numpy("OUTPUT0")
            mine.append(time.perf_counter() - sent)
    except Exception as e:  # noqa: BLE001 - reported, the others go on
        errors.append(repr(e)[:300])
    finally:
        client.close()
        latencies.extend(mine)


def _run(server, ensemble, seconds):
    latencies, elapsed = run_client_threads(
        _client_thread, lambda _: (server.grpc_port, ensemble), CLIENTS, seconds)
    return len(latencies) / elapsed, sorted(latencies)


def _measure(server, args, label, ensemble):
    _run(server, ensemble, args.warmup)  # warm-up, not counted
    rate, latencies = _run(server, ensemble, args.duration)
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    print(f"   {label:22s} {rate:8.0f} pipelines/s   p50 {statistics.median(latencies) * 1e3:6.2f} ms"
          f"   p99 {p99 * 1e3:6.2f} ms")
    return rate


def section_ensembles(build, args, inferd_class, write_model):
    print(f"== 8. an ensemble of two identity steps vs. the client calling both models "
          f"({CLIENTS} gRPC clients, Python threads) ==")
    repo = tempfile.mkdtemp(prefix="inferd-bench-ensembles-")
    for name in ("first", "second"):
        write_model(repo, name, IDENTITY.format(name=name))
    write_model(repo, "pair", PAIR)
    server = inferd_class(build, repo)
    try:
        server.wait_ready()
        ensemble = _measure(server, args, "ensemble 'pair'", True)
        client = _measure(server, args, "client: first, second", False)
        print(f"   ensemble / client calls: {ensemble / client:.2f}")
    finally:
        server.stop()
    print()
