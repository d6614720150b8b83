"""The classification extension over HTTP and gRPC with the genuine
tritonclient (InferRequestedOutput(name, class_count=k)): the output comes back
as BYTES "<value>:<index>[:<label>]", largest first, with labels from the
output's label_filename; per batch row for a batching model; alongside an
unclassified output; k larger than the row returns the whole row; a BYTES
output or a count of 0 is refused and the server keeps serving."""

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from util import Model, identity_config

LABELS = "cat\ndog\nbird\nfish\n"

SCORES = identity_config("scores", [("INPUT0", "OUTPUT0", "FP32", [4]),
                                    ("INPUT1", "OUTPUT1", "INT32", [3])])
SCORES = SCORES.replace('name: "OUTPUT0"', 'name: "OUTPUT0"\n    label_filename: "labels.txt"', 1)
MODELS = {
    "scores": Model(SCORES, files={"labels.txt": LABELS}),
    "batched": identity_config("batched", [("INPUT0", "OUTPUT0", "INT32", [3])], max_batch_size=4),
    "strings": identity_config("strings", [("INPUT0", "OUTPUT0", "BYTES", [1])]),
}


@pytest.fixture(scope="module")
def server(inferd):
    return inferd(MODELS)


@pytest.fixture(params=("http", "grpc"))
def api(request, server):
    if request.param == "http":
        return httpclient, server.client()
    return grpcclient, server.grpc_client()


def texts(array):
    return [v.decode() for v in np.asarray(array).reshape(-1)]


def scores_inputs(m, first, second):
    a = m.InferInput("INPUT0", [4], "FP32")
    a.set_data_from_numpy(np.array(first, dtype=np.float32))
    b = m.InferInput("INPUT1", [3], "INT32")
    b.set_data_from_numpy(np.array(second, dtype=np.int32))
    return [a, b]


def test_top_classes_with_labels(api):
    m, client = api
    inputs = scores_inputs(m, [0.1, 0.9, 0.3, 0.5], [1, 2, 3])
    result = client.infer("scores", inputs, outputs=[m.InferRequestedOutput("OUTPUT0", class_count=2)])
    got = result.as_numpy("OUTPUT0")
    assert got.shape == (2,)
    assert texts(got) == ["0.900000:1:dog", "0.500000:3:fish"]


def test_a_classified_output_beside_a_plain_one(api):
    m, client = api
    inputs = scores_inputs(m, [4, 3, 2, 1], [-5, 7, 7])
    outputs = [m.InferRequestedOutput("OUTPUT0"), m.InferRequestedOutput("OUTPUT1", class_count=5)]
    result = client.infer("scores", inputs, outputs=outputs)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), np.array([4, 3, 2, 1], np.float32))
    # No labels for OUTPUT1; k > 3 gives the whole row; ties keep index order.
    assert texts(result.as_numpy("OUTPUT1")) == ["7:1", "7:2", "-5:0"]


def test_each_batch_row_is_classified(api):
    m, client = api
    inp = m.InferInput("INPUT0", [2, 3], "INT32")
    inp.set_data_from_numpy(np.array([[1, 9, 5], [8, 0, 2]], dtype=np.int32))
    result = client.infer("batched", [inp], outputs=[m.InferRequestedOutput("OUTPUT0", class_count=1)])
    got = result.as_numpy("OUTPUT0")
    assert got.shape == (2, 1)
    assert texts(got) == ["9:1", "8:0"]


def test_bytes_outputs_cannot_be_classified(api, server):
    m, client = api
    inp = m.InferInput("INPUT0", [1], "BYTES")
    inp.set_data_from_numpy(np.array([b"x"], dtype=np.object_))
    with pytest.raises(InferenceServerException) as error:
        client.infer("strings", [inp], outputs=[m.InferRequestedOutput("OUTPUT0", class_count=1)])
    assert "cannot be classified" in str(error.value.message())
    assert str(error.value.status()) in ("400", "StatusCode.INVALID_ARGUMENT")
    assert server.get("/v2/health/ready").status_code == 200


def test_server_metadata_lists_the_extension(server):
    assert "classification" in server.client().get_server_metadata()["extensions"]


def test_raw_http_json_response(server):
    body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [4], "data": [1, 2, 3, 4]},
                       {"name": "INPUT1", "datatype": "INT32", "shape": [3], "data": [0, 0, 0]}],
            "outputs": [{"name": "OUTPUT0", "parameters": {"classification": 1}}]}
    out = server.post("/v2/models/scores/infer", json=body).json()["outputs"][0]
    assert out == {"name": "OUTPUT0", "datatype": "BYTES", "shape": [1],
                   "data": ["4.000000:3:fish"]}
    body["outputs"][0]["parameters"]["classification"] = 0
    resp = server.post("/v2/models/scores/infer", json=body)
    assert resp.status_code == 400 and "classification" in resp.json()["error"]
