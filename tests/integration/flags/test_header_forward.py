"""--http-header-forward-pattern and --grpc-header-forward-pattern, as Triton's:
the headers (gRPC metadata) of an infer request whose name matches the pattern
reach the backend as string parameters named as the header. The pattern is RE2,
matched anywhere in the name and case-insensitively unless it starts "(?-i)".
A matching header with a reserved parameter name (priority, timeout, triton_*,
...) is refused with 400 / INVALID_ARGUMENT naming it, and the server goes on
serving. An invalid pattern stops the start naming the flag.

The identity backend's PARAMETERS output lists the parameters it received as
"name=value"; each test compares that list with exactly what should arrive."""

from __future__ import annotations

import queue
import subprocess

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from util import START_TIMEOUT_S, backend_directory, identity_config, inferd_binary

CONFIG = identity_config("echo", [("INPUT0", "OUTPUT0", "FP32", [2])]).replace(
    "output [\n", 'output [\n  {\n    name: "PARAMETERS"\n    data_type: TYPE_STRING\n'
    "    dims: [ -1 ]\n  },\n", 1)

HEADERS = {
    "my_header_1": "my_value_1",
    "my_header_2": 'a "quoted" string with a backslash\\ inside',
    "x_my_header": "partial",
    "header_1": "value_1",
}


@pytest.fixture(scope="module")
def server(inferd):
    # HTTP anchored and upper case (the client sends lower case: the match
    # ignores case); gRPC unanchored (a partial match also takes x_my_header).
    return inferd({"echo": CONFIG}, extra_args=[
        "--http-header-forward-pattern=^MY_HEADER|^timeout$",
        "--grpc-header-forward-pattern=my_header|^triton_"])


@pytest.fixture(scope="module")
def case_sensitive(inferd):
    return inferd({"echo": CONFIG}, extra_args=[
        "--http-header-forward-pattern=(?-i)^MY_HEADER",
        "--grpc-header-forward-pattern=(?-i)^MY_HEADER"])


def inputs(m):
    inp = m.InferInput("INPUT0", [2], "FP32")
    inp.set_data_from_numpy(np.array([1, 2], dtype=np.float32))
    return [inp]


def echo(m, client, headers, parameters=None):
    # A copy: the HTTP client adds its own headers to the dict it is given.
    result = client.infer("echo", inputs(m), outputs=[m.InferRequestedOutput("PARAMETERS")],
                          headers=dict(headers), parameters=parameters)
    return sorted(v.decode() for v in result.as_numpy("PARAMETERS"))


def test_http_forwards_exactly_the_matching_headers(server):
    got = echo(httpclient, server.client(), HEADERS)
    assert got == sorted([f"my_header_1={HEADERS['my_header_1']}",
                          f"my_header_2={HEADERS['my_header_2']}"])


def test_http_forwarded_headers_join_the_body_parameters(server):
    got = echo(httpclient, server.client(), {"my_header_1": "h"}, parameters={"custom": "p"})
    assert got == ["custom=p", "my_header_1=h"]


def test_http_generate_forwards_them_too(server):
    resp = server.post("/v2/models/echo/generate", json={"INPUT0": [1, 2]},
                       headers={"my_header_1": "g", "header_1": "no", "my_header_2": "h"})
    assert resp.status_code == 200, resp.text
    assert resp.json()["PARAMETERS"] == ["my_header_1=g", "my_header_2=h"]


def test_grpc_forwards_exactly_the_matching_metadata(server):
    got = echo(grpcclient, server.grpc_client(), HEADERS)
    assert got == sorted([f"my_header_1={HEADERS['my_header_1']}",
                          f"my_header_2={HEADERS['my_header_2']}", "x_my_header=partial"])


def test_grpc_stream_forwards_the_stream_metadata_to_each_request(server):
    client = server.grpc_client()
    results: queue.Queue = queue.Queue()
    client.start_stream(callback=lambda result, error: results.put(error or result),
                        headers={"my_header_1": "s", "header_1": "no"})
    try:
        for request_id in ("1", "2"):
            client.async_stream_infer("echo", inputs(grpcclient), request_id=request_id,
                                      outputs=[grpcclient.InferRequestedOutput("PARAMETERS")])
        for _ in range(2):
            result = results.get(timeout=10)
            assert not isinstance(result, InferenceServerException), result
            assert [v.decode() for v in result.as_numpy("PARAMETERS")] == ["my_header_1=s"]
    finally:
        client.stop_stream()


def test_without_the_flags_no_header_is_forwarded(inferd):
    plain = inferd({"echo": CONFIG})
    assert echo(httpclient, plain.client(), HEADERS) == []
    assert echo(grpcclient, plain.grpc_client(), HEADERS) == []


def test_a_case_sensitive_pattern_keeps_the_case_the_client_sent(case_sensitive):
    body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [2], "data": [1, 2]}],
            "outputs": [{"name": "PARAMETERS"}]}
    resp = case_sensitive.post("/v2/models/echo/infer", json=body,
                               headers={"MY_HEADER_A": "upper", "my_header_b": "lower"})
    assert resp.status_code == 200, resp.text
    assert resp.json()["outputs"][0]["data"] == ["MY_HEADER_A=upper"]
    # gRPC metadata keys are lower case: none matches an upper-case pattern.
    assert echo(grpcclient, case_sensitive.grpc_client(), {"my_header_a": "x"}) == []


def test_a_matching_reserved_name_is_refused_and_the_server_goes_on(server):
    body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [2], "data": [1, 2]}]}
    resp = server.post("/v2/models/echo/infer", json=body, headers={"timeout": "5"})
    assert resp.status_code == 400, resp.text
    error = resp.json()["error"]
    assert "'timeout'" in error and "--http-header-forward-pattern" in error, error

    with pytest.raises(InferenceServerException) as raised:
        echo(grpcclient, server.grpc_client(), {"triton_x": "1"})
    assert raised.value.status() == "StatusCode.INVALID_ARGUMENT"
    assert "'triton_x'" in str(raised.value) and "--grpc-header-forward-pattern" in str(
        raised.value)

    assert echo(httpclient, server.client(), {"my_header_1": "still"}) == ["my_header_1=still"]
    assert echo(grpcclient, server.grpc_client(), {"my_header_1": "still"}) == \
        ["my_header_1=still"]


@pytest.mark.parametrize("flag", ["--http-header-forward-pattern",
                                  "--grpc-header-forward-pattern"])
def test_an_invalid_pattern_stops_the_start_naming_the_flag(flag, tmp_path):
    (tmp_path / "echo" / "1").mkdir(parents=True)
    (tmp_path / "echo" / "config.pbtxt").write_text(CONFIG)
    done = subprocess.run(
        [str(inferd_binary()), f"--model-repository={tmp_path}", "--http-port=0",
         "--grpc-port=0", "--metrics-port=0", f"--backend-directory={backend_directory()}",
         f"{flag}=my_(header"],
        capture_output=True, text=True, timeout=START_TIMEOUT_S)
    assert done.returncode != 0
    assert flag in done.stderr and "'my_(header'" in done.stderr and "missing )" in done.stderr, \
        done.stderr
    assert "Started" not in done.stdout + done.stderr
