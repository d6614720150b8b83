"""Every flag of Triton 2.51 given with a real value, as a launch script gives it: one
server per group of flags (lifecycle, repositories, HTTP, gRPC, logging/metrics/trace,
SageMaker, Vertex AI), each checked for the effects its flags should have. Together
with the inert and off-value flags of test_triton_flags.py, the groups cover
compat/triton-2.51-flags.txt; the first test fails when a flag is in no group.

The tests of each feature go deeper (tests/integration/lifecycle, flags, grpc, trace,
cloud); these show the flags work side by side in one command line."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cloud"))

from cloud_util import (SAGEMAKER_STARTED, VERTEX_STARTED, CloudServer,  # noqa: E402
                        free_ports, get)
from certs import make_test_certs  # noqa: E402
from test_triton_flags import INERT_VALUES, triton_flags  # noqa: E402
from util import (InferdServer, Model, backend_directory, identity_config,  # noqa: E402
                  inferd_binary, single_identity, wait_until, write_repository)

HTTP_STARTED = re.compile(r"Started HTTPService at (\S+):(\d+)")
GRPC_STARTED = re.compile(r"Started GRPCInferenceService at (\S+):(\d+)")
METRICS_STARTED = re.compile(r"Started Metrics Service at (\S+):(\d+)")

# Flags test_triton_flags.py starts the server with (the inert ones and --help).
ELSEWHERE = {"help", *INERT_VALUES}

# An identity model with a PARAMETERS output listing the request's parameters.
ECHO = identity_config("echo", [("INPUT0", "OUTPUT0", "FP32", [2])]).replace(
    "output [\n", 'output [\n  {\n    name: "PARAMETERS"\n    data_type: TYPE_STRING\n'
    "    dims: [ -1 ]\n  },\n", 1)

GROUPS: dict[str, set[str]] = {
    "lifecycle": {"id", "exit-timeout-secs", "model-store", "model-repository", "exit-on-error",
                  "disable-auto-complete-config", "strict-readiness", "model-control-mode",
                  "load-model", "model-config-name", "model-load-thread-count",
                  "model-load-retry-count", "backend-directory", "backend-config",
                  "buffer-manager-thread-count", "trace-file", "trace-level", "trace-rate",
                  "trace-count", "trace-log-frequency"},
    "repositories": {"model-namespacing", "strict-model-config", "repository-poll-secs"},
    "http": {"allow-http", "http-address", "http-port", "reuse-http-port",
             "http-header-forward-pattern", "http-thread-count", "http-restricted-api"},
    "grpc": {"allow-grpc", "grpc-address", "grpc-port", "reuse-grpc-port",
             "grpc-load-on-first-connection",
             "grpc-header-forward-pattern", "grpc-use-ssl", "grpc-use-ssl-mutual",
             "grpc-server-cert", "grpc-server-key", "grpc-root-cert",
             "grpc-infer-response-compression-level", "grpc-keepalive-time",
             "grpc-keepalive-timeout", "grpc-keepalive-permit-without-calls",
             "grpc-http2-max-pings-without-data",
             "grpc-http2-min-recv-ping-interval-without-data", "grpc-http2-max-ping-strikes",
             "grpc-max-connection-age", "grpc-max-connection-age-grace",
             "grpc-restricted-protocol"},
    "observe": {"log-verbose", "log-info", "log-warning", "log-error", "log-format", "log-file",
                "allow-metrics", "allow-cpu-metrics", "metrics-address", "metrics-port",
                "metrics-interval-ms", "metrics-config", "trace-config"},
    "sagemaker": {"allow-sagemaker", "sagemaker-port", "sagemaker-safe-port-range",
                  "sagemaker-thread-count"},
    "instances": {"rate-limit", "rate-limit-resource", "host-policy"},
    "vertex": {"allow-vertex-ai", "vertex-ai-port", "vertex-ai-thread-count",
               "vertex-ai-default-model"},
    "cache": {"cache-config", "cache-directory", "response-cache-byte-size"},
    # Beyond Triton: HTTPS on the HTTP port.
    "https": {"http-use-ssl", "http-use-ssl-mutual", "http-server-cert", "http-server-key",
              "http-root-cert"},
    # inferd's own limits (docs/limits.md) and Triton's --http-max-input-size.
    "limits": {"http-max-input-size", "http-max-header-size", "http-max-connections",
               "http-idle-timeout-secs", "http-body-timeout-secs", "http-write-timeout-secs",
               "model-max-inflight-requests", "grpc-max-input-size",
               "grpc-max-concurrent-streams", "grpc-memory-quota"},
}


def flag_names(args: list[str]) -> set[str]:
    return {a[2:].split("=", 1)[0] for a in args if a.startswith("--")}


def test_the_groups_and_test_triton_flags_cover_every_flag():
    grouped = set().union(*GROUPS.values())
    missing = sorted(set(triton_flags()) - grouped - ELSEWHERE)
    assert not missing, f"flags in no group: {missing}"


def infer_echo(url: str, headers: dict | None = None) -> list[str]:
    body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [2], "data": [1, 2]}]}
    resp = requests.post(f"{url}/v2/models/echo/infer", json=body, headers=headers, timeout=10)
    assert resp.status_code == 200, resp.text
    outputs = {o["name"]: o["data"] for o in resp.json()["outputs"]}
    assert outputs["OUTPUT0"] == [1.0, 2.0]
    return outputs["PARAMETERS"]


def first_trace(trace_file: Path) -> dict:
    """The first trace, from <trace_file>.0 (log frequency 1: one file per trace)."""
    first = Path(f"{trace_file}.0")
    traces = wait_until(lambda: first.exists() and json.loads(first.read_text() or "[]"),
                        what=f"a trace in {first}", ignore=(json.JSONDecodeError,))
    return traces[0]


def index(server) -> dict[str, dict]:
    rows = server.post("/v2/repository/index", json={}).json()
    return {r["name"]: r for r in rows}


def test_lifecycle_flags(tmp_path):
    store = write_repository(tmp_path / "store", {"from_store": single_identity(
        "from_store", "FP32", [2])})
    fail_file = tmp_path / "fail-once"
    fail_file.write_text("")
    repo = write_repository(tmp_path / "repo", {
        "echo": ECHO,
        "broken": "name: \"broken\"\nbackend: \"identity\"\nmax_batch_size: -3\n",
        "retried": single_identity("retried", "FP32", [2], extra=(
            'parameters { key: "fail_initialize_file" value { string_value: '
            f'"{fail_file}" }} }}\n')),
        "custom": Model(config=single_identity("custom", "FP32", [2]), files={
            "configs/edge.pbtxt": single_identity("custom", "FP32", [2], max_batch_size=8)}),
        "not_listed": single_identity("not_listed", "FP32", [2]),
    })
    trace_file = tmp_path / "trace.json"
    args = [f"--model-store={store}", "--id=edge-7", "--exit-timeout-secs=7",
            "--exit-on-error=false", "--disable-auto-complete-config", "--strict-readiness=false",
            "--model-control-mode=explicit", *[f"--load-model={m}" for m in (
                "echo", "broken", "retried", "custom", "from_store")],
            "--model-config-name=edge", "--model-load-thread-count=2",
            "--model-load-retry-count=1",
            "--backend-config=onnxruntime,default-max-batch-size=4",
            "--buffer-manager-thread-count=2", f"--trace-file={trace_file}",
            "--trace-level=TIMESTAMPS", "--trace-rate=1", "--trace-count=1",
            "--trace-log-frequency=1"]
    server = InferdServer([repo], tmp_path / "inferd.log", extra_args=args)
    try:
        given = flag_names(server.args)  # with the repository and backend directory
        assert GROUPS["lifecycle"] <= given, GROUPS["lifecycle"] - given
        assert server.get("/v2").json()["name"] == "edge-7"  # --id
        rows = index(server)
        # --exit-on-error=false and --strict-readiness=false: serving and ready with a
        # model that failed; --model-control-mode=explicit: only the listed ones load.
        assert rows["broken"]["state"] == "UNAVAILABLE", rows
        assert server.get("/v2/health/ready").status_code == 200
        assert "state" not in rows["not_listed"], rows
        assert rows["from_store"]["state"] == "READY", rows  # --model-store
        assert rows["retried"]["state"] == "READY", rows  # --model-load-retry-count
        assert not fail_file.exists()
        config = server.get("/v2/models/custom/config").json()
        assert config["max_batch_size"] == 8  # --model-config-name
        infer_echo(server.url)
        # --trace-*: the first request is traced and written out.
        assert first_trace(trace_file)["model_name"] == "echo"
    finally:
        assert server.stop() == 0


def test_repository_flags(tmp_path):
    a = write_repository(tmp_path / "a", {"m": single_identity("m", "FP32", [2])})
    b = write_repository(tmp_path / "b", {"m": identity_config(
        "m", [("INPUT1", "OUTPUT1", "FP32", [2])])})
    args = ["--model-namespacing=true", "--strict-model-config=false",
            "--model-control-mode=poll", "--repository-poll-secs=1"]
    server = InferdServer([a, b], tmp_path / "inferd.log", extra_args=args)
    try:
        rows = server.post("/v2/repository/index", json={}).json()
        assert [r["state"] for r in rows if r["name"] == "m"] == ["READY", "READY"], rows
        ambiguous = server.get("/v2/models/m")
        assert ambiguous.status_code == 400 and "ambiguous" in ambiguous.text, ambiguous.text
        assert "deprecated" in server.log()  # --strict-model-config
        # --repository-poll-secs: a model added later is found by a poll.
        write_repository(tmp_path / "a", {"late": single_identity("late", "FP32", [2])})
        wait_until(lambda: server.get("/v2/models/late/ready").status_code == 200,
                   timeout=20, what="the model added after start ready")
    finally:
        assert server.stop() == 0


def test_instance_flags(tmp_path):
    """R has 1 copy on device 0 (--rate-limit-resource=R:1:0 beats R:3 for
    every device): 'one' (asks R:1) loads and its executions wait for R, 'two'
    (asks R:2) could never execute and fails to load. The host policy 'cpu'
    (KIND_CPU instances' default) binds 'one''s two instance threads to CPU 0."""
    limited = ('instance_group [ { count: 2 kind: KIND_CPU rate_limiter { resources [ '
               '{ name: "R" count: %d } ] } } ]\n')
    repo = write_repository(tmp_path / "repo", {
        "one": single_identity("one", "FP32", [2], extra=limited % 1),
        "two": single_identity("two", "FP32", [2], extra=limited % 2),
    })
    args = ["--rate-limit=execution_count", "--rate-limit-resource=R:3",
            "--rate-limit-resource=R:1:0", "--host-policy=cpu,cpu-cores=0",
            "--exit-on-error=false"]
    assert flag_names(args) == GROUPS["instances"] | {"exit-on-error"}
    server = InferdServer([repo], tmp_path / "inferd.log", extra_args=args, wait_for="live")
    try:
        body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [2], "data": [1, 2]}]}
        resp = requests.post(f"{server.url}/v2/models/one/infer", json=body, timeout=10)
        assert resp.status_code == 200, resp.text
        stats = server.get("/v2/models/one/stats").json()["model_stats"][0]
        assert stats["inference_stats"]["rate_limiter_wait"]["count"] == 1, stats
        rows = index(server)
        assert rows["one"]["state"] == "READY", rows
        assert rows["two"]["state"] == "UNAVAILABLE", rows
        assert "--rate-limit-resource gives device 0 only 1" in rows["two"]["reason"], rows
        pinned = [s for s in Path(f"/proc/{server.process.pid}/task").glob("*/status")
                  if "Cpus_allowed_list:\t0\n" in s.read_text()]
        assert len(pinned) == 2, "the two instance threads of 'one' on CPU 0"
    finally:
        assert server.stop() == 0


def test_http_flags(tmp_path):
    repo = write_repository(tmp_path / "repo", {"echo": ECHO})
    (port,) = free_ports(1)
    args = ["--allow-http=true", "--http-address=127.0.0.1", f"--http-port={port}",
            "--reuse-http-port=true", "--http-header-forward-pattern=^x-fwd-",
            "--http-thread-count=3",
            "--http-restricted-api=model-repository,shared-memory:admin-key=admin-value"]
    assert flag_names(args) == GROUPS["http"]
    server = InferdServer([repo], tmp_path / "inferd.log", extra_args=args)
    try:
        assert f"Started HTTPService at 127.0.0.1:{port}" in server.log()
        params = infer_echo(server.url, headers={"X-Fwd-Tenant": "blue", "X-Other": "no"})
        assert params == ["X-Fwd-Tenant=blue"], params
        # --http-restricted-api: the repository needs the header, inference does not.
        assert server.post("/v2/repository/index", json={}).status_code == 403
        assert server.post("/v2/repository/index", json={},
                           headers={"admin-key": "admin-value"}).status_code == 200
        # --reuse-http-port: a second server shares the port.
        second = InferdServer([repo], tmp_path / "second.log", extra_args=args)
        second.stop()
    finally:
        assert server.stop() == 0


def test_grpc_flags(tmp_path):
    make_test_certs(tmp_path, strangers=False)
    repo = write_repository(tmp_path / "repo", {"echo": ECHO})
    args = ["--allow-grpc=true", "--grpc-address=127.0.0.1", "--grpc-port=0",
            "--reuse-grpc-port=false", "--grpc-header-forward-pattern=^x-fwd-",
            "--grpc-load-on-first-connection=true",  # TLS loads at start all the same
            "--grpc-use-ssl=true", "--grpc-use-ssl-mutual=true",
            f"--grpc-server-cert={tmp_path / 'server.crt'}",
            f"--grpc-server-key={tmp_path / 'server.key'}",
            f"--grpc-root-cert={tmp_path / 'ca.crt'}",
            "--grpc-infer-response-compression-level=high", "--grpc-keepalive-time=10000",
            "--grpc-keepalive-timeout=5000", "--grpc-keepalive-permit-without-calls=true",
            "--grpc-http2-max-pings-without-data=0",
            "--grpc-http2-min-recv-ping-interval-without-data=5000",
            "--grpc-http2-max-ping-strikes=3", "--grpc-max-connection-age=600000",
            "--grpc-max-connection-age-grace=5000",
            "--grpc-restricted-protocol=model-repository,logging:admin-key=admin-value"]
    assert flag_names(args) == GROUPS["grpc"]
    server = InferdServer([repo], tmp_path / "inferd.log", extra_args=args)
    try:
        assert re.search(r"Started GRPCInferenceService at 127\.0\.0\.1:\d+", server.log())
        client = grpcclient.InferenceServerClient(
            url=f"localhost:{server.grpc_port}", ssl=True,
            root_certificates=str(tmp_path / "ca.crt"),
            private_key=str(tmp_path / "client.key"),
            certificate_chain=str(tmp_path / "client.crt"))
        tensor = grpcclient.InferInput("INPUT0", [2], "FP32")
        tensor.set_data_from_numpy(np.array([3, 4], dtype=np.float32))
        result = client.infer("echo", [tensor], headers={"x-fwd-tenant": "green", "x-no": "1"})
        assert result.as_numpy("OUTPUT0").tolist() == [3.0, 4.0]
        assert [p.decode() for p in result.as_numpy("PARAMETERS")] == ["x-fwd-tenant=green"]
        # --grpc-restricted-protocol: the repository needs the key, inference did not.
        with pytest.raises(InferenceServerException, match="This protocol is restricted"):
            client.get_model_repository_index()
        admin = {"triton-grpc-protocol-admin-key": "admin-value"}
        assert client.get_model_repository_index(headers=admin, as_json=True)["models"]
        client.close()
    finally:
        assert server.stop() == 0


def test_https_flags(tmp_path):
    certs = make_test_certs(tmp_path, strangers=False)
    repo = write_repository(tmp_path / "repo", {"echo": ECHO})
    args = ["--http-use-ssl=true", "--http-use-ssl-mutual=true",
            f"--http-server-cert={certs / 'server.crt'}",
            f"--http-server-key={certs / 'server.key'}", f"--http-root-cert={certs / 'ca.crt'}"]
    assert flag_names(args) == GROUPS["https"]
    server = InferdServer([repo], tmp_path / "inferd.log", extra_args=args, wait_for="none")
    try:
        assert "HTTPService speaks HTTPS only, clients need a certificate" in server.log()
        url = f"https://localhost:{server.port}"
        tls = {"verify": str(certs / "ca.crt"),
               "cert": (str(certs / "client.crt"), str(certs / "client.key"))}
        wait_until(lambda: requests.get(f"{url}/v2/health/ready", timeout=10, **tls).ok,
                   what="HTTPS ready", ignore=(requests.RequestException,))
        body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [2], "data": [1, 2]}]}
        resp = requests.post(f"{url}/v2/models/echo/infer", json=body, timeout=10, **tls)
        assert resp.status_code == 200, resp.text
    finally:
        assert server.stop() == 0


class LaunchedServer(CloudServer):
    """inferd with exactly `args` (no flags added), its log read from `log_file`."""

    def __init__(self, args, tmp_path: Path, log_file: Path | None = None, env=None):
        super().__init__(args, env or {}, tmp_path / "stdout.log", program=[str(inferd_binary())])
        self.log_file = log_file

    def stdout(self) -> str:
        return super().log()

    def log(self) -> str:
        if self.log_file is None:
            return self.stdout()
        return self.log_file.read_text(errors="replace") if self.log_file.exists() else ""


def test_logging_metrics_and_trace_flags(tmp_path):
    repo = write_repository(tmp_path / "repo", {"echo": ECHO})
    log_file = tmp_path / "inferd.log"
    trace_file = tmp_path / "trace.json"
    args = [f"--model-repository={repo}", f"--backend-directory={backend_directory()}",
            "--http-port=0", "--grpc-port=0", "--log-verbose=1", "--log-info=true",
            "--log-warning=true", "--log-error=true", "--log-format=ISO8601",
            f"--log-file={log_file}", "--allow-metrics=true", "--allow-cpu-metrics=true",
            "--metrics-address=127.0.0.1", "--metrics-port=0", "--metrics-interval-ms=100",
            "--metrics-config=summary_latencies=true",
            "--metrics-config=summary_quantiles=0.5:0.05,0.9:0.01",
            f"--trace-config=triton,file={trace_file}", "--trace-config=level=TIMESTAMPS",
            "--trace-config=rate=1", "--trace-config=triton,log-frequency=1"]
    assert flag_names(args) - {"model-repository", "backend-directory", "http-port",
                               "grpc-port"} == GROUPS["observe"]
    server = LaunchedServer(args, tmp_path, log_file)
    try:
        http = server.port(HTTP_STARTED)
        metrics = server.port(METRICS_STARTED)
        text = server.log()
        # --log-file holds the log, in ISO 8601 form; stdout holds none of it.
        assert re.search(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ I ", text, re.M), text[:500]
        assert "Started HTTPService" not in server.stdout()
        assert f"Started Metrics Service at 127.0.0.1:{metrics}" in text
        infer_echo(f"http://127.0.0.1:{http}")

        def scraped():
            body = get(metrics, "/metrics").text
            return body if "nv_cpu_utilization" in body and re.search(
                r'nv_inference_request_summary_us_count\{model="echo",version="1"\} 1', body) \
                else None
        body = wait_until(scraped, what="CPU metrics and a summary of the request")
        assert 'quantile="0.9"' in body and 'quantile="0.5"' in body
        assert first_trace(trace_file)["model_name"] == "echo"
    finally:
        server.stop()


def test_sagemaker_flags(tmp_path):
    repo = write_repository(tmp_path / "repo", {"echo": ECHO})
    sagemaker, http, grpc, metrics = free_ports(4)
    low, high = min(http, grpc, metrics), max(http, grpc, metrics)
    args = [f"--model-repository={repo}", f"--backend-directory={backend_directory()}",
            f"--http-port={http}", f"--grpc-port={grpc}", f"--metrics-port={metrics}",
            "--allow-sagemaker=true", f"--sagemaker-port={sagemaker}",
            f"--sagemaker-safe-port-range={low}-{high}", "--sagemaker-thread-count=2"]
    assert GROUPS["sagemaker"] <= flag_names(args)
    server = LaunchedServer(args, tmp_path)
    try:
        assert server.port(SAGEMAKER_STARTED) == sagemaker
        assert get(sagemaker, "/ping").status_code == 200
    finally:
        server.stop()


def test_vertex_ai_flags(tmp_path):
    repo = write_repository(tmp_path / "repo", {"echo": ECHO, "other": single_identity(
        "other", "FP32", [2])})
    args = [f"--model-repository={repo}", f"--backend-directory={backend_directory()}",
            "--http-port=0", "--grpc-port=0", "--metrics-port=0", "--allow-vertex-ai=true",
            "--vertex-ai-port=0", "--vertex-ai-thread-count=2",
            "--vertex-ai-default-model=echo"]
    assert GROUPS["vertex"] <= flag_names(args)
    server = LaunchedServer(args, tmp_path, env={"AIP_PREDICT_ROUTE": "/predict",
                                                  "AIP_HEALTH_ROUTE": "/health"})
    try:
        port = server.port(VERTEX_STARTED)
        assert get(port, "/health").status_code == 200
        body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [2],
                            "data": [5, 6]}]}
        resp = requests.post(f"http://127.0.0.1:{port}/predict", json=body, timeout=10)
        assert resp.status_code == 200 and resp.json()["model_name"] == "echo", resp.text
    finally:
        server.stop()


def test_cache_flags(tmp_path):
    """--cache-config (with --cache-directory) and the deprecated
    --response-cache-byte-size each enable the response cache: a repeated request
    to a model with response_cache { enable: true } is a hit in its statistics."""
    cached = single_identity("cached", "FP32", [2], extra="response_cache { enable: true }\n")
    repo = write_repository(tmp_path / "repo", {"cached": cached})
    launches = [["--cache-config=local,size=1048576", f"--cache-directory={tmp_path}"],
                ["--response-cache-byte-size=1048576"]]
    assert set().union(*(flag_names(a) for a in launches)) == GROUPS["cache"]
    for i, args in enumerate(launches):
        server = InferdServer([repo], tmp_path / f"inferd{i}.log", extra_args=args)
        try:
            body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [2],
                                "data": [1, 2]}]}
            for _ in range(2):
                resp = server.post("/v2/models/cached/infer", json=body)
                assert resp.status_code == 200, resp.text
                assert resp.json()["outputs"][0]["data"] == [1.0, 2.0]
            stats = server.get("/v2/models/cached/stats").json()["model_stats"][0]
            assert stats["inference_stats"]["cache_hit"]["count"] == 1, stats
            assert stats["inference_stats"]["cache_miss"]["count"] == 1, stats
            assert stats["execution_count"] == 1, stats
        finally:
            assert server.stop() == 0


def test_limit_flags(tmp_path):
    """The limits side by side (tests/integration/limits goes deeper): each size limit
    answers with its status and flag, the rest are taken and the server serves."""
    repo = write_repository(tmp_path / "repo", {"echo": ECHO})
    args = ["--http-max-input-size=2048", "--http-max-header-size=1024",
            "--http-max-connections=64", "--http-idle-timeout-secs=60",
            "--http-body-timeout-secs=60", "--http-write-timeout-secs=60",
            "--model-max-inflight-requests=16", "--grpc-max-input-size=4096",
            "--grpc-max-concurrent-streams=8", "--grpc-memory-quota=67108864"]
    assert flag_names(args) == GROUPS["limits"]
    server = InferdServer([repo], tmp_path / "inferd.log", extra_args=args)
    try:
        infer_echo(server.url)
        resp = server.post("/v2/models/echo/infer", data=b"x" * 4096)
        assert resp.status_code == 413 and "--http-max-input-size" in resp.text, resp.text
        resp = server.get("/v2/health/live", headers={"X-Big": "b" * 2048})
        assert resp.status_code == 431 and "--http-max-header-size" in resp.text, resp.text
        client = grpcclient.InferenceServerClient(url=f"127.0.0.1:{server.grpc_port}")
        tensor = grpcclient.InferInput("INPUT0", [2], "FP32")
        tensor.set_data_from_numpy(np.array([3, 4], dtype=np.float32))
        assert client.infer("echo", [tensor]).as_numpy("OUTPUT0").tolist() == [3.0, 4.0]
        client.close()
    finally:
        assert server.stop() == 0
