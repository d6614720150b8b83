"""Section 9 of bench.py: inferd's gRPC ModelInfer against the gRPC ceiling,
build/bench/inferd-grpc-ceiling (bench/grpc_ceiling.cc): a server on the same
gRPC API (one completion queue polled by one thread) and settings that answers each ModelInfer at once with the
request's tensors, with no model, queue or core behind it. Both are driven by
inferd-loadgen over gRPC with the identity model's request (16 x FP32), at
concurrency 1 (p50 latency) and 16 (throughput), alternating, best of two."""

import os
import subprocess
import tempfile

CONCURRENCIES = (1, 16)


class Ceiling:
    """The ceiling server on a free port; `grpc_port` as loadgen expects.
    `api` is "async" (completion queues polled by `threads` threads; inferd's
    with one), "callback" (gRPC's callback API) or "hybrid" (callback but
    ModelInfer on queues)."""

    def __init__(self, binary, port, api="async", threads=1):
        self.grpc_port = port
        self.http_port = None
        self.process = subprocess.Popen([binary, "--port", str(port), "--api", api,
                                         "--threads", str(threads)],
                                        stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        line = self.process.stdout.readline()
        if "listening" not in line:
            self.stop()
            raise RuntimeError(f"inferd-grpc-ceiling did not start: {line.strip()}")

    def stop(self):
        self.process.terminate()
        self.process.wait()


def section_grpc_ceiling(build, args, inferd_class, write_model, identity_config, loadgen,
                         free_port):
    print("== 9. gRPC ModelInfer vs the gRPC ceiling (inferd-loadgen, best of 2 alternating) ==")
    binary = os.path.join(build, "bench", "inferd-grpc-ceiling")
    if not os.path.exists(binary):
        print(f"   skipped: {binary} is missing (make build)\n")
        return
    repo = tempfile.mkdtemp(prefix="inferd-bench-grpc-")
    write_model(repo, "identity_fp32", identity_config.format(name="identity_fp32", extra=""))
    server = inferd_class(build, repo)
    ceiling = Ceiling(binary, free_port())
    best = {}
    try:
        server.wait_ready()
        for _ in range(2):
            for name, target in (("ceiling", ceiling), ("inferd", server)):
                for concurrency in CONCURRENCIES:
                    row = loadgen(build, args, target, "identity_fp32", "grpc", False, concurrency)
                    if row is None:
                        continue
                    rate, p50 = float(row["infer_per_sec"]), float(row["p50_us"])
                    old = best.get((name, concurrency))
                    if old is None or rate > old[0]:
                        best[(name, concurrency)] = (rate, p50)
    finally:
        ceiling.stop()
        server.stop()
    print(f"   {'server':10} {'conc':>5} {'infer/s':>10} {'p50 us':>8}")
    for name in ("ceiling", "inferd"):
        for concurrency in CONCURRENCIES:
            figure = best.get((name, concurrency))
            if figure:
                print(f"   {name:10} {concurrency:>5} {figure[0]:>10.0f} {figure[1]:>8.0f}")
    c16 = (best.get(("inferd", 16)), best.get(("ceiling", 16)))
    c1 = (best.get(("inferd", 1)), best.get(("ceiling", 1)))
    if all(c16):
        print(f"   ratio inferd / ceiling, c16 throughput {c16[0][0] / c16[1][0]:>6.2f}  (target >= 0.6)")
    if all(c1):
        print(f"   ratio inferd / ceiling, c1 p50 latency {c1[0][1] / c1[1][1]:>6.2f}  (target <= 1.5)")
    print()
