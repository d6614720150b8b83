"""Section 13 of bench.py: what OpenTelemetry tracing costs.

The identity model (16 x FP32, max_batch_size 64, one CPU instance) under
inferd-loadgen (HTTP binary tensors, concurrency 16) on three servers: tracing
off, --trace-config mode=opentelemetry at rate=1 (every request traced) and at
rate=100 (1%), exporting to an OTLP sink in this process that answers 200 to
every POST and counts the bytes. The three run one server at a time,
alternating, three rounds, and the median throughput of each is compared
with tracing off; the goal is <= 3% at 100% and <= 0.5% at 1%. The sink runs
in this process, on the same cores, so the 100% row pays for receiving too;
the server CPU column is the server's alone. On a shared machine wall-clock
figures move by more than the goal: bench/tracing_callgrind.py counts the
server's instructions per request instead, which repeat.
"""
import http.server
import json
import os
import shutil
import statistics
import tempfile
import threading
import urllib.request

from bench_kit import IDENTITY_CONFIG


class _Sink(http.server.BaseHTTPRequestHandler):
    # Keeps the connection as a collector does (HTTP/1.0 would close it each time).
    protocol_version = "HTTP/1.1"
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


def _cpu_seconds(pid):
    """User + system CPU seconds the process has used (/proc/<pid>/stat)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _successes(http_port):
    url = f"http://127.0.0.1:{http_port}/v2/models/identity_fp32/stats"
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.load(response)["model_stats"][0]["inference_stats"]["success"]["count"]


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
    rates = {name: [] for name in setups}
    cpu_us = {name: [] for name in setups}  # server CPU per request, less moved by other load
    dropped = {}
    try:
        # One server at a time: a traced server's exporter still sending
        # would slow the next run down.
        for _ in range(3):
            for name, extra in setups.items():
                server = Inferd(build, repo, extra_args=extra)
                try:
                    server.wait_ready()
                    cpu, done = _cpu_seconds(server.process.pid), _successes(server.http_port)
                    row = loadgen(build, args, server, "identity_fp32", "http", True, 16)
                    requests = _successes(server.http_port) - done
                    if requests > 0:
                        cpu_us[name].append(
                            (_cpu_seconds(server.process.pid) - cpu) / requests * 1e6)
                    if row is not None:
                        rates[name].append(float(row["infer_per_sec"]))
                    if name != "off":
                        dropped[name] = dropped.get(name, 0) + _dropped(server.metrics_port)
                finally:
                    server.stop()
        base = statistics.median(rates["off"]) if rates["off"] else 0
        cpu_base = statistics.median(cpu_us["off"]) if cpu_us["off"] else 0
        print(f"   {'tracing':8} {'infer/s':>10} {'vs off':>8} {'server CPU us/req':>18} {'vs off':>8}"
              "   (medians of 3)")
        for name, values in rates.items():
            if not values or not cpu_us[name]:
                print(f"   {name:8} (no result)")
                continue
            median, cpu = statistics.median(values), statistics.median(cpu_us[name])
            change = f"{(median / base - 1) * 100:+.1f}%" if base else ""
            cpu_change = f"{(cpu / cpu_base - 1) * 100:+.1f}%" if cpu_base else ""
            print(f"   {name:8} {median:>10.0f} {change:>8} {cpu:>18.1f} {cpu_change:>8}")
        print(f"\n   spans dropped: {dropped}; the sink received {_Sink.received / 1e6:.1f} MB of "
              "OTLP (protobuf unless protocol=http/json)\n")
    finally:
        sink.shutdown()
        shutil.rmtree(repo, ignore_errors=True)
