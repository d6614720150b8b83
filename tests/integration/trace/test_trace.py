"""The trace extension: GET/POST /v2[/models/{m}]/trace/setting, the gRPC
TraceSetting RPC (tritonclient's get_trace_settings / update_trace_settings on
both protocols), the --trace-config and older --trace-* flags, and the trace
files: one JSON object per traced request with id, model_name, model_version
and the timestamps REQUEST_START .. REQUEST_END in order.

With log_frequency 0 traces are written to the trace file when the server
stops (or when the setting that took them is replaced); with log_frequency N,
or when trace_count runs out, to <file>.0, <file>.1, ...
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from util import assert_error, inferd_binary, single_identity, wait_until

MODEL = "simple"
OTHER = "other"
TIMESTAMP_NAMES = ["REQUEST_START", "QUEUE_START", "COMPUTE_START", "COMPUTE_INPUT_END",
                   "COMPUTE_OUTPUT_START", "COMPUTE_END", "REQUEST_END"]
MODELS = {MODEL: single_identity(MODEL, "FP32", [4]), OTHER: single_identity(OTHER, "FP32", [4])}
DATA = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)


@pytest.fixture
def start(inferd, tmp_path):
    """start(*trace_args) -> (server, trace file path); the file is in a fresh folder."""

    def run(*args: str):
        trace_file = tmp_path / "trace.json"
        server = inferd(MODELS, extra_args=[f"--trace-config=triton,file={trace_file}", *args])
        return server, trace_file

    return run


def http_infer(server, model: str = MODEL, request_id: str = "") -> None:
    client = server.client()
    inp = httpclient.InferInput("INPUT0", [4], "FP32")
    inp.set_data_from_numpy(DATA)
    result = client.infer(model, [inp], request_id=request_id)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), DATA)


def grpc_infer(server, model: str = MODEL, request_id: str = "") -> None:
    client = server.grpc_client()
    inp = grpcclient.InferInput("INPUT0", [4], "FP32")
    inp.set_data_from_numpy(DATA)
    result = client.infer(model, [inp], request_id=request_id)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), DATA)


def read_traces(path: Path) -> list[dict]:
    traces = json.loads(path.read_text())
    assert isinstance(traces, list)
    return traces


def complete_traces(path: Path) -> list[dict] | None:
    """The traces of a trace file once it is completely written (a whole JSON
    array), else None (not there yet, or still being written)."""
    try:
        traces = json.loads(path.read_text())
    except (FileNotFoundError, ValueError):
        return None
    return traces if isinstance(traces, list) else None


def wait_for_files(path: Path, count: int, timeout_s: float = 5.0) -> list[list[dict]]:
    """The contents of <path>.0 .. <path>.<count-1>, waiting until each is there
    and completely written (a trace is written when its request is released,
    just after the response)."""
    files = [Path(f"{path}.{i}") for i in range(count)]
    contents = [complete_traces(f) for f in files]

    def all_complete():
        contents[:] = [complete_traces(f) for f in files]
        return all(c is not None for c in contents)

    wait_until(all_complete, timeout=timeout_s,
               what=lambda: f"complete trace files {[f.name for f in files]} (read: {contents})")
    return contents


def assert_complete_trace(trace: dict, model: str) -> None:
    assert trace["model_name"] == model
    assert trace["model_version"] == 1
    assert isinstance(trace["id"], int)
    names = [t["name"] for t in trace["timestamps"]]
    assert names == TIMESTAMP_NAMES
    ns = [t["ns"] for t in trace["timestamps"]]
    assert all(isinstance(n, int) and n > 0 for n in ns)
    assert ns == sorted(ns), trace


# -- settings documents --------------------------------------------------------------------------


def test_server_metadata_lists_trace(start):
    server, _ = start()
    assert "trace" in server.get("/v2").json()["extensions"]
    assert "trace" in server.grpc_client().get_server_metadata().extensions


def test_default_settings_as_triton_reports_them(start):
    server, trace_file = start()
    expected = {"trace_level": ["OFF"], "trace_rate": "1000", "trace_count": "-1",
                "log_frequency": "0", "trace_file": str(trace_file), "trace_mode": "triton"}
    assert server.client().get_trace_settings() == expected
    assert server.get("/v2/trace/setting").json() == expected
    assert server.get(f"/v2/models/{MODEL}/trace/setting").json() == expected
    grpc_settings = server.grpc_client().get_trace_settings(as_json=True)["settings"]
    assert {k: v["value"] for k, v in grpc_settings.items()} == {
        k: v if isinstance(v, list) else [v] for k, v in expected.items()}


def test_startup_flags_set_the_global_settings(inferd, tmp_path):
    trace_file = tmp_path / "old.json"
    server = inferd(MODELS, extra_args=[
        f"--trace-file={trace_file}", "--trace-level=TIMESTAMPS", "--trace-rate=2",
        "--trace-count=5", "--trace-log-frequency=3"])
    settings = server.client().get_trace_settings()
    assert settings["trace_level"] == ["TIMESTAMPS"]
    assert settings["trace_rate"] == "2"
    assert settings["trace_count"] == "5"
    assert settings["log_frequency"] == "3"
    assert settings["trace_file"] == str(trace_file)


@pytest.mark.parametrize("args,needle", [
    (["--trace-config=level=TIMESTAMPS"], "trace file"),
    (["--trace-config=rate=often"], "often"),
    (["--trace-config=level=TENSORS"], "TENSORS"),
    (["--trace-config=opentelemetry,url=https://collector:4318"], "https"),
    (["--trace-config=zipkin,url=localhost"], "zipkin"),
    (["--trace-config=colour=blue"], "colour"),
])
def test_bad_trace_flags_stop_the_server_with_a_message(tmp_path, args, needle):
    repo = tmp_path / "repo"
    repo.mkdir()
    result = subprocess.run([str(inferd_binary()), f"--model-repository={repo}",
                             "--http-port=0", "--grpc-port=0", "--metrics-port=0", *args],
                            capture_output=True, text=True, timeout=20)
    assert result.returncode != 0
    assert needle in result.stderr + result.stdout


# -- traces --------------------------------------------------------------------------------------


def test_rate_one_traces_every_request_with_ordered_timestamps(start):
    server, trace_file = start("--trace-config=level=TIMESTAMPS", "--trace-config=rate=1")
    for i in range(3):
        http_infer(server, request_id=f"http-{i}")
    for i in range(2):
        grpc_infer(server, request_id=f"grpc-{i}")
    server.stop()
    traces = read_traces(trace_file)
    assert len(traces) == 5
    for trace in traces:
        assert_complete_trace(trace, MODEL)
    assert sorted(t["request_id"] for t in traces) == [
        "grpc-0", "grpc-1", "http-0", "http-1", "http-2"]
    assert len({t["id"] for t in traces}) == 5


def test_rate_n_samples_one_request_in_n(start):
    server, trace_file = start("--trace-config=level=TIMESTAMPS", "--trace-config=rate=3",
                               "--trace-config=triton,log-frequency=1")
    for i in range(1, 10):
        http_infer(server, request_id=str(i))
    files = wait_for_files(trace_file, 3)
    assert [[t["request_id"] for t in traces] for traces in files] == [["3"], ["6"], ["9"]]
    for traces in files:
        assert_complete_trace(traces[0], MODEL)
    assert not Path(f"{trace_file}.3").exists()


def test_count_limits_traces_and_counts_down(start):
    server, trace_file = start()
    client = server.client()
    settings = client.update_trace_settings(
        settings={"trace_level": ["TIMESTAMPS"], "trace_rate": "1", "trace_count": "2"})
    assert settings["trace_count"] == "2"
    for i in range(5):
        http_infer(server, request_id=str(i))
    # The count ran out: its traces go to an indexed file at once.
    [traces] = wait_for_files(trace_file, 1)
    assert [t["request_id"] for t in traces] == ["0", "1"]
    assert client.get_trace_settings()["trace_count"] == "0"
    server.stop()
    assert not trace_file.exists()
    assert not Path(f"{trace_file}.1").exists()


def test_log_frequency_writes_indexed_files(start):
    server, trace_file = start("--trace-config=level=TIMESTAMPS", "--trace-config=rate=1",
                               "--trace-config=triton,log-frequency=2")
    for i in range(5):
        grpc_infer(server, request_id=str(i))
    files = wait_for_files(trace_file, 2)
    assert [len(traces) for traces in files] == [2, 2]
    server.stop()
    assert len(read_traces(Path(f"{trace_file}.2"))) == 1
    ids = [t["request_id"] for f in files + [read_traces(Path(f"{trace_file}.2"))] for t in f]
    assert sorted(ids) == ["0", "1", "2", "3", "4"]


# -- model settings ------------------------------------------------------------------------------


def test_model_override_falls_back_and_clears(start):
    server, trace_file = start()
    client = server.client()
    updated = client.update_trace_settings(
        model_name=MODEL, settings={"trace_level": ["TIMESTAMPS"], "trace_rate": "1"})
    assert updated["trace_level"] == ["TIMESTAMPS"]
    assert updated["trace_rate"] == "1"
    assert updated["trace_count"] == "-1"  # from the global setting
    assert client.get_trace_settings()["trace_level"] == ["OFF"]
    assert client.get_trace_settings(model_name=OTHER)["trace_level"] == ["OFF"]

    for i in range(2):
        http_infer(server, MODEL, request_id=f"{MODEL}-{i}")
        http_infer(server, OTHER, request_id=f"{OTHER}-{i}")

    # A global change reaches what the model does not set itself.
    client.update_trace_settings(settings={"trace_rate": "50"})
    assert client.get_trace_settings(model_name=MODEL)["trace_rate"] == "1"
    client.update_trace_settings(settings={"trace_count": "7"})
    assert client.get_trace_settings(model_name=MODEL)["trace_count"] == "7"

    # null clears one setting; clearing the last one removes the override.
    cleared = client.update_trace_settings(model_name=MODEL, settings={"trace_rate": None})
    assert cleared["trace_rate"] == "50"
    assert cleared["trace_level"] == ["TIMESTAMPS"]
    cleared = client.update_trace_settings(model_name=MODEL, settings={"trace_level": None})
    assert cleared == client.get_trace_settings()
    http_infer(server, MODEL, request_id="after-clear")

    server.stop()
    traces = read_traces(trace_file)
    assert sorted(t["request_id"] for t in traces) == [f"{MODEL}-0", f"{MODEL}-1"]
    for trace in traces:
        assert_complete_trace(trace, MODEL)


def test_grpc_model_override_and_clear(start):
    server, trace_file = start()
    client = server.grpc_client()
    response = client.update_trace_settings(
        model_name=OTHER, settings={"trace_level": "TIMESTAMPS", "trace_rate": "2"}, as_json=True)
    settings = {k: v.get("value", []) for k, v in response["settings"].items()}
    assert settings["trace_level"] == ["TIMESTAMPS"]
    assert settings["trace_rate"] == ["2"]
    assert settings["trace_mode"] == ["triton"]
    for i in range(4):
        grpc_infer(server, OTHER, request_id=str(i))
    # An empty value clears, as a JSON null does over HTTP.
    client.update_trace_settings(model_name=OTHER, settings={"trace_level": None,
                                                              "trace_rate": None})
    cleared = client.get_trace_settings(model_name=OTHER)
    assert list(cleared.settings["trace_level"].value) == ["OFF"]
    assert list(cleared.settings["trace_rate"].value) == ["1000"]
    server.stop()
    traces = read_traces(trace_file)
    assert [t["request_id"] for t in traces] == ["1", "3"]
    for trace in traces:
        assert_complete_trace(trace, OTHER)


# -- errors --------------------------------------------------------------------------------------


@pytest.mark.parametrize("body,status,needles", [
    ({"trace_rate": "abc"}, 400, ["trace_rate", "abc"]),
    ({"trace_count": "-5"}, 400, ["trace_count", "-5"]),
    ({"log_frequency": "often"}, 400, ["log_frequency", "often"]),
    ({"trace_level": ["LOUD"]}, 400, ["trace_level", "LOUD"]),
    ({"trace_level": ["TIMESTAMPS", "TENSORS"]}, 400, ["TENSORS"]),
    ({"trace_level": ["OFF", "TIMESTAMPS"]}, 400, ["OFF"]),
    ({"trace_rate": "0", "trace_level": ["TIMESTAMPS"]}, 400, ["trace_rate"]),
    ({"colour": "blue"}, 400, ["colour"]),
    ({"trace_file": "/tmp/elsewhere.json"}, 501, ["trace_file"]),
])
def test_bad_updates_are_refused_and_change_nothing(start, body, status, needles):
    server, _ = start()
    before = server.get("/v2/trace/setting").json()
    for path in ("/v2/trace/setting", f"/v2/models/{MODEL}/trace/setting"):
        assert_error(server.post(path, json=body), status, *needles)
    assert server.get("/v2/trace/setting").json() == before
    assert server.get(f"/v2/models/{MODEL}/trace/setting").json() == before
    http_infer(server)


def test_refused_update_keeps_earlier_settings(start):
    server, _ = start()
    client = server.client()
    client.update_trace_settings(settings={"trace_rate": "5"})
    assert_error(server.post("/v2/trace/setting",
                             json={"trace_rate": "7", "trace_count": "bad"}), 400, "trace_count")
    assert client.get_trace_settings()["trace_rate"] == "5"


def test_malformed_body_is_400(start):
    server, _ = start()
    assert_error(server.post("/v2/trace/setting", data=b"{not json"), 400, "JSON object")
    assert_error(server.post("/v2/trace/setting", data=b"[1]"), 400, "JSON object")
    # An empty body is an empty update, answered with the settings.
    assert server.post("/v2/trace/setting", data=b"").json()["trace_level"] == ["OFF"]


def test_unknown_model_is_not_found(start):
    server, _ = start()
    assert_error(server.get("/v2/models/missing/trace/setting"), 404, "missing")
    assert_error(server.post("/v2/models/missing/trace/setting", json={"trace_rate": "1"}),
                 404, "missing")
    with pytest.raises(InferenceServerException) as error:
        server.client().get_trace_settings(model_name="missing")
    assert "missing" in str(error.value)
    with pytest.raises(InferenceServerException) as error:
        server.grpc_client().update_trace_settings(model_name="missing",
                                                   settings={"trace_rate": "1"})
    assert error.value.status() == "StatusCode.NOT_FOUND"


def test_grpc_bad_values_are_invalid_argument(start):
    server, _ = start()
    client = server.grpc_client()
    for settings, needle in [({"trace_rate": "abc"}, "abc"), ({"bogus": "1"}, "bogus"),
                             ({"trace_level": ["TENSORS"]}, "TENSORS")]:
        with pytest.raises(InferenceServerException) as error:
            client.update_trace_settings(settings=settings)
        assert error.value.status() == "StatusCode.INVALID_ARGUMENT"
        assert needle in error.value.message()
    with pytest.raises(InferenceServerException) as error:
        client.update_trace_settings(settings={"trace_file": "/tmp/x"})
    assert error.value.status() == "StatusCode.UNIMPLEMENTED"
    assert list(client.get_trace_settings().settings["trace_rate"].value) == ["1000"]
    grpc_infer(server)


def test_wrong_method_is_405(start):
    server, _ = start()
    import requests

    assert requests.put(server.url + "/v2/trace/setting", timeout=10).status_code == 405
