"""--http-restricted-api as Triton's: the listed endpoint categories answer only
requests carrying the group's header with its value (403 with Triton's message
otherwise, nothing done), the rest stay open; several groups each have their
own key. Checked over the wire with requests and tritonclient.http."""

import numpy as np
import pytest
import requests
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from util import REQUEST_TIMEOUT_S, single_identity, wait_until

REPO = {
    "loaded": single_identity("loaded", "FP32", [4]),
    "later": single_identity("later", "FP32", [4]),
}
ADMIN = {"admin-key": "admin-value"}
OPS = {"ops-key": "ops-value"}
INFER_BODY = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [4],
                          "data": [1, 2, 3, 4]}]}


@pytest.fixture(scope="module")
def server(inferd):
    return inferd(REPO, extra_args=[
        "--model-control-mode=explicit", "--load-model=loaded",
        "--http-restricted-api=model-repository,shared-memory:admin-key=admin-value",
        "--http-restricted-api=statistics,logging,trace:ops-key=ops-value"])


@pytest.fixture
def client(server):
    client = server.client()
    yield client
    client.close()


def infer(client, model="loaded"):
    tensor = httpclient.InferInput("INPUT0", [4], "FP32")
    tensor.set_data_from_numpy(np.array([1, 2, 3, 4], dtype=np.float32))
    return client.infer(model, [tensor]).as_numpy("OUTPUT0").tolist()


def test_restricted_endpoint_is_refused_without_the_header(server):
    resp = server.post("/v2/repository/index", json={})
    assert resp.status_code == 403
    assert resp.json() == {"error": "This API is restricted, expecting header 'admin-key'"}


def test_restricted_endpoint_is_refused_with_a_wrong_value(server):
    for value in ("admin-valuE", "admin-value2", "", "other"):
        resp = server.post("/v2/repository/index", json={}, headers={"admin-key": value})
        assert resp.status_code == 403, value


def test_restricted_endpoint_is_served_with_the_header(server):
    resp = server.post("/v2/repository/index", json={}, headers=ADMIN)
    assert resp.status_code == 200, resp.text
    assert {row["name"] for row in resp.json()} == {"loaded", "later"}
    # Header names are case-insensitive, as HTTP's are.
    assert server.post("/v2/repository/index", json={},
                       headers={"Admin-Key": "admin-value"}).status_code == 200


def test_unrestricted_endpoints_need_no_header(server, client):
    assert infer(client) == [1.0, 2.0, 3.0, 4.0]
    assert server.post("/v2/models/loaded/infer", json=INFER_BODY).status_code == 200
    assert client.is_server_live() and client.is_server_ready()
    assert client.is_model_ready("loaded")
    assert client.get_server_metadata()["name"] == "triton"
    assert client.get_model_metadata("loaded")["name"] == "loaded"
    assert client.get_model_config("loaded")["name"] == "loaded"


def test_load_and_unload_are_closed_while_inference_stays_open(server, client):
    with pytest.raises(InferenceServerException, match="This API is restricted"):
        client.load_model("later")
    assert not client.is_model_ready("later")  # the refused load did nothing
    client.load_model("later", headers=ADMIN)
    assert client.is_model_ready("later")
    assert infer(client, "later") == [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(InferenceServerException, match="expecting header 'admin-key'"):
        client.unload_model("later")
    assert client.is_model_ready("later")  # the refused unload did nothing
    assert infer(client, "later") == [1.0, 2.0, 3.0, 4.0]
    client.unload_model("later", headers=ADMIN)
    wait_until(lambda: not client.is_model_ready("later"), what="'later' unloaded")


def test_shared_memory_is_restricted(server, client):
    with pytest.raises(InferenceServerException, match="This API is restricted"):
        client.get_system_shared_memory_status()
    assert client.get_system_shared_memory_status(headers=ADMIN) == []


def test_each_group_has_its_own_key(server, client):
    for path in ("/v2/models/stats", "/v2/logging", "/v2/trace/setting"):
        assert server.get(path).status_code == 403, path
        assert server.get(path, headers=ADMIN).status_code == 403, path  # another group's key
        resp = server.get(path, headers=OPS)
        assert resp.status_code == 200, (path, resp.text)
    assert server.get("/v2/logging").json()["error"] == (
        "This API is restricted, expecting header 'ops-key'")
    assert server.post("/v2/repository/index", json={}, headers=OPS).status_code == 403
    both = {**ADMIN, **OPS}
    assert server.post("/v2/repository/index", json={}, headers=both).status_code == 200
    assert client.get_inference_statistics("loaded", headers=OPS)["model_stats"]


def test_a_refused_request_keeps_the_connection_serving(server):
    with requests.Session() as session:
        url = server.url
        assert session.post(f"{url}/v2/repository/index", json={},
                            timeout=REQUEST_TIMEOUT_S).status_code == 403
        assert session.post(f"{url}/v2/models/loaded/infer", json=INFER_BODY,
                            timeout=REQUEST_TIMEOUT_S).status_code == 200


def test_the_metrics_port_is_not_restricted(server):
    resp = requests.get(f"http://127.0.0.1:{server.metrics_port}/metrics",
                        timeout=REQUEST_TIMEOUT_S)
    assert resp.status_code == 200 and "nv_inference_count" in resp.text


# Every category in a group of its own: each endpoint needs its own category's key.
CATEGORY_ENDPOINTS = [
    ("health", "GET", "/v2/health/live"),
    ("health", "GET", "/v2/health/ready"),
    ("health", "GET", "/v2/models/loaded/ready"),
    ("metadata", "GET", "/v2"),
    ("metadata", "GET", "/v2/models/loaded"),
    ("inference", "POST", "/v2/models/loaded/infer"),
    ("shared-memory", "GET", "/v2/systemsharedmemory/status"),
    ("model-config", "GET", "/v2/models/loaded/config"),
    ("model-repository", "POST", "/v2/repository/index"),
    ("statistics", "GET", "/v2/models/loaded/stats"),
    ("trace", "GET", "/v2/models/loaded/trace/setting"),
    ("logging", "GET", "/v2/logging"),
]
CATEGORIES = sorted({c for c, _, _ in CATEGORY_ENDPOINTS})


def key_of(category):
    return {f"key-{category}": f"value-{category}"}


@pytest.fixture(scope="module")
def everything_restricted(inferd):
    server = inferd({"loaded": REPO["loaded"]}, wait_for="none", extra_args=[
        f"--http-restricted-api={c}:key-{c}=value-{c}" for c in CATEGORIES])
    wait_until(lambda: server.get("/v2/health/ready", headers=key_of("health")).status_code
               == 200, what="ready (with the health key)", ignore=(requests.RequestException,))
    return server


@pytest.mark.parametrize("category,method,path", CATEGORY_ENDPOINTS)
def test_every_endpoint_needs_its_own_categorys_key(everything_restricted, category, method,
                                                    path):
    server = everything_restricted
    send = server.get if method == "GET" else server.post
    body = INFER_BODY if category == "inference" else {}
    resp = send(path, json=body) if method == "POST" else send(path)
    assert resp.status_code == 403, resp.text
    assert resp.json()["error"] == f"This API is restricted, expecting header 'key-{category}'"
    other = next(c for c in CATEGORIES if c != category)
    wrong = send(path, headers=key_of(other), **({"json": body} if method == "POST" else {}))
    assert wrong.status_code == 403
    right = send(path, headers=key_of(category), **({"json": body} if method == "POST" else {}))
    assert right.status_code == 200, right.text
