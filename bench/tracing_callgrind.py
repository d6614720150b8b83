"""What OpenTelemetry tracing costs, in instructions: repeatable where
wall-clock throughput on a shared box is not.

Runs build/inferd under callgrind on the identity model (16 x FP32) with
tracing off, at rate=1 (every request traced) and at rate=100 (1%), sends
--requests HTTP JSON inferences one at a time (after a warm-up, with the
counters zeroed), waits until the exporter has sent every span to an OTLP
sink in this process, and prints the server's instructions per request (all
threads: the request path and the exporter's) and what tracing adds.

    .venv/bin/python bench/tracing_callgrind.py [--build build] [--requests 2000]
        [--annotate]   # also the top functions of each traced run
"""
import argparse
import glob
import http.client
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_kit import IDENTITY_CONFIG, Inferd  # noqa: E402


class _Sink(http.server.BaseHTTPRequestHandler):
    # Keeps the connection as a collector does (HTTP/1.0 would close it each time).
    protocol_version = "HTTP/1.1"
    posts = 0

    def do_POST(self):  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        _Sink.posts += 1
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


_BODY = json.dumps({"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [1, 16],
                                "data": [float(i) for i in range(16)]}]})


def _infer(connection, count):
    for _ in range(count):
        connection.request("POST", "/v2/models/identity_fp32/infer", _BODY,
                           {"Content-Type": "application/json"})
        response = connection.getresponse()
        response.read()
        if response.status != 200:
            raise RuntimeError(f"inference answered {response.status}")


def _wait_quiet(seconds=2.0):
    """Until the sink saw no POST for `seconds` (the exporter is done)."""
    last, since = _Sink.posts, time.monotonic()
    while time.monotonic() - since < seconds:
        time.sleep(0.1)
        if _Sink.posts != last:
            last, since = _Sink.posts, time.monotonic()


def _dump_ir(path):
    with open(path) as f:
        for line in f:
            match = re.match(r"(?:summary|totals): (\d+)", line)
            if match:
                return int(match.group(1))
    raise RuntimeError(f"no totals in {path}")


def measure(build, repo, extra, requests, annotate, threads):
    work = tempfile.mkdtemp(prefix="inferd-cg-")
    out = os.path.join(work, "cg.out")
    # Inferd picks the ports and builds the command line; its own process is
    # replaced by the same command under callgrind. Names uncompressed: with
    # compression the dump after a zeroing names only some functions.
    server = Inferd(build, repo, extra_args=extra)
    server.process.kill()
    server.process.wait()
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-instr=no",
               "--compress-strings=no", "--separate-threads=yes", *server.process.args]
    server.process = subprocess.Popen(command, stdout=server.log, stderr=subprocess.STDOUT)
    server.started = time.monotonic()
    try:
        server.wait_ready(timeout=600)
        connection = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=120)
        _infer(connection, 200)
        _wait_quiet()
        subprocess.run(["callgrind_control", "-z", str(server.process.pid)], check=True,
                       stdout=subprocess.DEVNULL)
        _infer(connection, requests)
        _wait_quiet()
        subprocess.run(["callgrind_control", "-d", str(server.process.pid)], check=True,
                       stdout=subprocess.DEVNULL)
        connection.close()
    finally:
        server.stop()
    # What callgrind_control -d wrote, a file per thread: the measured requests only.
    dumps = sorted(glob.glob(out + ".1-*"))
    per_thread = [_dump_ir(dump) / requests for dump in dumps]
    if threads:  # the busy threads, to tell the request path's change from idle wake-ups'
        print("   threads:", " ".join(f"{count:.0f}" for count in per_thread if count >= 50))
    if annotate:  # the tracing functions, inclusive, per request, all threads together
        inclusive = {}
        for dump in dumps:
            report = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100",
                                     dump], capture_output=True, text=True).stdout
            for line in report.splitlines():
                match = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+\S*?:(\S.*)", line)
                if match and re.search(r"inferd::\S*(Trace|Otlp|Span|Export)", line):
                    name = match.group(2).split(" [")[0]
                    inclusive[name] = inclusive.get(name, 0) + int(match.group(1).replace(",", ""))
        for name, count in sorted(inclusive.items(), key=lambda item: -item[1])[:25]:
            print(f"   {count / requests:9.0f}  {name[:110]}")
    total = sum(per_thread)
    if os.environ.get("KEEP_CALLGRIND"):
        print("   kept", work)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--annotate", action="store_true")
    parser.add_argument("--threads", action="store_true",
                        help="also each busy thread's instructions per request")
    parser.add_argument("--only", default="off,100%,1%")
    args = parser.parse_args()
    sink = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{sink.server_address[1]}/v1/traces"
    repo = tempfile.mkdtemp(prefix="inferd-cg-repo-")
    os.makedirs(os.path.join(repo, "identity_fp32", "1"))
    with open(os.path.join(repo, "identity_fp32", "config.pbtxt"), "w") as f:
        f.write(IDENTITY_CONFIG.format(name="identity_fp32", extra=""))
    otel = ["--trace-config=mode=opentelemetry", f"--trace-config=opentelemetry,url={url}",
            "--trace-config=level=TIMESTAMPS", "--trace-config=opentelemetry,bsp_schedule_delay=200",
            "--trace-config=opentelemetry,bsp_max_queue_size=65536"]
    # One HTTP thread, so every execution runs on the model instance's thread.
    # With more, an execution may run on the HTTP thread instead when the
    # model's recent executions were short (under 100 us of wall time): under
    # callgrind's slowdown on a loaded machine, the instructions tracing adds
    # inside an execution flipped that choice, and with it ~7k instructions
    # of thread hand-off per request, between runs and setups.
    pinned = ["--http-thread-count=1"]
    setups = {"off": pinned, "100%": pinned + otel + ["--trace-config=rate=1"],
              "1%": pinned + otel + ["--trace-config=rate=100"]}
    results = {}
    for name in args.only.split(","):
        results[name] = measure(args.build, repo, setups[name], args.requests,
                                args.annotate and name != "off", args.threads)
        base = results.get("off")
        change = f"  {(results[name] / base - 1) * 100:+.2f}% vs off" if base else ""
        print(f"{name:6} {results[name]:10.0f} instructions/request{change}", flush=True)
    sink.shutdown()


if __name__ == "__main__":
    main()
