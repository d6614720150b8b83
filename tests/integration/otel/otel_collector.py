"""A real OpenTelemetry Collector for the tracing tests: scripts/otelcol (the
OTLP receiver and the file exporter, built once per machine by
scripts/install-otel-deps.sh), started on a free port, writing what it
receives as OTLP/JSON lines the tests read back.

    with Collector(tmp_path) as collector:
        ... --trace-config opentelemetry,url={collector.url} ...
        spans = collector.wait_for_spans(lambda spans: ...)
"""

from __future__ import annotations

import json
import secrets
import socket
import subprocess
from pathlib import Path
from typing import Callable

from util import REPO_ROOT, wait_until

CONFIG = """receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:{port}
exporters:
  file:
    path: {spans}
    flush_interval: 50ms
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
"""


def collector_binary() -> str:
    """Builds the collector unless cached (minutes on a fresh machine)."""
    out = subprocess.run(["bash", str(REPO_ROOT / "scripts/install-otel-deps.sh")],
                         check=True, capture_output=True, text=True, timeout=1800).stdout
    return out.strip().split("=", 1)[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def accepts(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


class Collector:
    def __init__(self, binary: str, folder: Path):
        self.port = free_port()
        self.spans_path = folder / "spans.jsonl"
        config = folder / "otelcol.yaml"
        config.write_text(CONFIG.format(port=self.port, spans=self.spans_path))
        self.log = open(folder / "otelcol.log", "wb")
        self.process = subprocess.Popen([binary, f"--config=file:{config}"], stdout=self.log,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_until(lambda: self.process.poll() is not None or accepts(self.port), 60,
                   "the collector listening")
        assert self.process.poll() is None, (folder / "otelcol.log").read_text()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1/traces"

    def spans(self) -> list[dict]:
        """Every span received so far, each with its resource's attributes
        under "resource" (only whole lines are read)."""
        if not self.spans_path.exists():
            return []
        found = []
        for line in self.spans_path.read_text().splitlines():
            try:
                batch = json.loads(line)
            except ValueError:
                continue  # being written
            for resource_spans in batch.get("resourceSpans", []):
                resource = attributes(resource_spans.get("resource", {}))
                for scope in resource_spans.get("scopeSpans", []):
                    for span in scope.get("spans", []):
                        found.append({**span, "resource": resource})
        return found

    def wait_for_spans(self, predicate: Callable[[list[dict]], object],
                       what: str = "the spans") -> list[dict]:
        return wait_until(lambda: (lambda s: s if predicate(s) else None)(self.spans()), 30, what)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


def attributes(item: dict) -> dict:
    """A span's or resource's attributes as {key: value}."""
    values = {}
    for attribute in item.get("attributes", []):
        value = attribute["value"]
        values[attribute["key"]] = next(iter(value.values())) if value else None
    return values


def otel_args(url: str, *more: str) -> list[str]:
    return ["--trace-config=mode=opentelemetry", f"--trace-config=opentelemetry,url={url}",
            "--trace-config=level=TIMESTAMPS", "--trace-config=rate=1",
            "--trace-config=opentelemetry,bsp_schedule_delay=50",
            "--trace-config=opentelemetry,resource=deployment.environment=test", *more]


def new_caller() -> tuple[str, str, str]:
    """(traceparent, trace id, span id) of a caller's sampled span."""
    trace_id, span_id = secrets.token_hex(16), secrets.token_hex(8)
    return f"00-{trace_id}-{span_id}-01", trace_id, span_id


def trace_of(collector: "Collector", trace_id: str, count: int) -> dict[str, list[dict]]:
    """The spans of trace `trace_id` by name, once `count` have arrived."""
    spans = collector.wait_for_spans(
        lambda spans: len([s for s in spans if s["traceId"] == trace_id]) >= count,
        f"{count} spans of trace {trace_id}")
    named: dict[str, list[dict]] = {}
    for span in spans:
        if span["traceId"] == trace_id:
            named.setdefault(span["name"], []).append(span)
    return named


def assert_request_spans(named: dict, model: str, parent_span: str) -> dict:
    """The model's request span is a child of `parent_span`, with queue and
    compute under it and the compute parts under compute; returns it."""
    [request] = [s for s in named[model] if s.get("parentSpanId") == parent_span]
    queue = [s for s in named["queue"] if s["parentSpanId"] == request["spanId"]]
    compute = [s for s in named["compute"] if s["parentSpanId"] == request["spanId"]]
    assert len(queue) == 1 and len(compute) == 1, named
    for part in ("compute_input", "compute_infer", "compute_output"):
        assert [s for s in named[part] if s["parentSpanId"] == compute[0]["spanId"]], part
    assert int(request["startTimeUnixNano"]) <= int(queue[0]["startTimeUnixNano"])
    assert int(compute[0]["endTimeUnixNano"]) <= int(request["endTimeUnixNano"])
    assert attributes(request)["model_name"] == model
    return request
