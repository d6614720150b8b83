"""Section 13 of bench.py: what OpenTelemetry tracing costs.

The identity model (16 x FP32, max_batch_size 64, one CPU instance) under
inferd-loadgen (HTTP binary tensors, concurrency 16) on three servers: tracing
off, --trace-config mode=opentelemetry at rate=1 (every request traced) and at
rate=100 (1%), exporting to an OTLP sink in this process that answers 200 to
every POST and counts the bytes (a collector's cost is not the server's).
The three runs alternate, three rounds, and the median throughput of each is
compared with tracing off; the goal is <= 3% at 100% and <= 0.5% at 1%.
"""
import http.server
import shutil
import statistics
import tempfile
import threading
import urllib.request

from bench_kit import IDENTITY_CONFIG


class _Sink(http.server.BaseHTTPRequestHandler):
    received = 0

    def do_POST(self):  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        _Sink.received += len(body)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def _dropped(metrics_port):
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=5) as r:
        for line in r.read().decode().splitlines():
            if line.startswith("inferd_trace_spans_dropped_total "):
                return int(float(line.split()[1]))
    return 0


def section_tracing(build, args, Inferd, write_model, loadgen):
    print("== 13. OpenTelemetry tracing overhead: identity model, http binary, concurrency 16 ==")
    sink = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{sink.server_address[1]}/v1/traces"
    repo = tempfile.mkdtemp(prefix="inferd-bench-trace-")
    write_model(repo, "identity_fp32", IDENTITY_CONFIG.format(name="identity_fp32", extra=""))
    otel = ["--trace-config=mode=opentelemetry", f"--trace-config=opentelemetry,url={url}",
            "--trace-config=level=TIMESTAMPS", "--trace-config=opentelemetry,bsp_schedule_delay=200",
            "--trace-config=opentelemetry,bsp_max_queue_size=65536"]
    setups = {"off": [], "100%": otel + ["--trace-config=rate=1"],
              "1%": otel + ["--trace-config=rate=100"]}
    servers = {}
    try:
        for name, extra in setups.items():
            servers[name] = Inferd(build, repo, extra_args=extra)
            servers[name].wait_ready()
        rates = {name: [] for name in setups}
        for _ in range(3):
            for name, server in servers.items():
                row = loadgen(build, args, server, "identity_fp32", "http", True, 16)
                if row is not None:
                    rates[name].append(float(row["infer_per_sec"]))
        base = statistics.median(rates["off"]) if rates["off"] else 0
        print(f"   {'tracing':8} {'infer/s (median of 3)':>22} {'vs off':>8}")
        for name, values in rates.items():
            if not values:
                print(f"   {name:8} (no result)")
                continue
            median = statistics.median(values)
            change = f"{(median / base - 1) * 100:+.1f}%" if base else ""
            print(f"   {name:8} {median:>22.0f} {change:>8}")
        dropped = {name: _dropped(servers[name].metrics_port) for name in ("100%", "1%")}
        print(f"\n   spans dropped: {dropped}; the sink received {_Sink.received / 1e6:.1f} MB of "
              "OTLP/JSON\n")
    finally:
        for server in servers.values():
            server.stop()
        sink.shutdown()
        shutil.rmtree(repo, ignore_errors=True)
