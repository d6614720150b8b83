"""Custom request parameters reach the backend with their types, over HTTP
(JSON) and gRPC, with the genuine tritonclient (`infer(..., parameters=...)`):
strings, integers, booleans and floating-point numbers (over HTTP in the order
sent; a gRPC parameters map has no order).
The identity backend's PARAMETERS output lists them as "name=value" (doubles
with full precision). The protocol's own parameters (priority, timeout,
sequence_*, binary_data_output) are consumed by the server, not passed on."""

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from util import identity_config

CONFIG = identity_config("echo", [("INPUT0", "OUTPUT0", "FP32", [2])]).replace(
    "output [\n", 'output [\n  {\n    name: "PARAMETERS"\n    data_type: TYPE_STRING\n'
    "    dims: [ -1 ]\n  },\n", 1)


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({"echo": CONFIG})


def echo(m, client, parameters):
    inp = m.InferInput("INPUT0", [2], "FP32")
    inp.set_data_from_numpy(np.array([1, 2], dtype=np.float32))
    result = client.infer("echo", [inp], outputs=[m.InferRequestedOutput("PARAMETERS")],
                          parameters=parameters)
    return [v.decode() for v in result.as_numpy("PARAMETERS")]


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_every_parameter_type_reaches_the_backend(server, protocol):
    m, client = (httpclient, server.client()) if protocol == "http" else \
        (grpcclient, server.grpc_client())
    got = echo(m, client, {"mode": "fast", "beam": 4, "greedy": False, "temperature": 0.7,
                           "negative": -12})
    expected = ["mode=fast", "beam=4", "greedy=false", "temperature=0.69999999999999996",
                "negative=-12"]
    assert (got if protocol == "http" else sorted(got)) == \
        (expected if protocol == "http" else sorted(expected))


def test_protocol_parameters_are_not_passed_on(server):
    body = {"parameters": {"priority": 0, "timeout": 0, "binary_data_output": False,
                           "custom": 1.5},
            "inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [2], "data": [1, 2]}],
            "outputs": [{"name": "PARAMETERS"}]}
    out = server.post("/v2/models/echo/infer", json=body).json()["outputs"][0]
    assert out["data"] == ["custom=1.5"]


def test_a_parameter_of_an_unusable_type_is_400(server):
    body = {"parameters": {"nested": {"a": 1}},
            "inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [2], "data": [1, 2]}]}
    resp = server.post("/v2/models/echo/infer", json=body)
    assert resp.status_code == 400 and "'nested'" in resp.json()["error"]
