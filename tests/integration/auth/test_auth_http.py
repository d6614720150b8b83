"""API keys on the HTTP and metrics ports (--auth-file): every endpoint needs a
key with its scope (403 otherwise), a missing or unknown key is 401 with
`WWW-Authenticate: Bearer`, infer is limited to a key's model globs, health
stays open, and /metrics counts requests by key name, never by secret. Over
the wire with requests and tritonclient.http."""

import numpy as np
import pytest
import requests
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from auth_keys import KEYS, REPO, bearer, sha256
from util import REQUEST_TIMEOUT_S

INFER_BODY = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [4],
                          "data": [1, 2, 3, 4]}]}

# (method, path, body, scope): one endpoint of each group, and each scope's.
ENDPOINTS = [
    ("GET", "/v2", None, "metadata"),
    ("GET", "/v2/models/identity", None, "metadata"),
    ("GET", "/v2/models/identity/config", None, "metadata"),
    ("GET", "/v1/models", None, "metadata"),
    ("POST", "/v2/models/identity/infer", INFER_BODY, "infer"),
    ("POST", "/v2/models/identity/generate", {"INPUT0": [1, 2, 3, 4]}, "infer"),
    ("POST", "/v2/repository/index", {}, "repository"),
    ("GET", "/v2/models/identity/stats", None, "metrics"),
    ("GET", "/v2/systemsharedmemory/status", None, "shared-memory"),
    ("GET", "/v2/trace/setting", None, "trace"),
    ("GET", "/v2/logging", None, "logging"),
]


def call(server, method, path, body, headers):
    return requests.request(method, server.url + path, json=body, headers=headers,
                            timeout=REQUEST_TIMEOUT_S)


@pytest.mark.parametrize("key", [k for k in KEYS if k != "fraud"])
def test_each_scope_allows_what_it_names_and_refuses_the_rest(server, key):
    scopes = KEYS[key][1]
    for method, path, body, scope in ENDPOINTS:
        resp = call(server, method, path, body, bearer(key))
        if scope in scopes or "admin" in scopes:
            assert resp.status_code == 200, (key, path, resp.text)
        else:
            assert resp.status_code == 403, (key, path, resp.text)
            assert f"API key '{key}' does not have the '{scope}' scope" in resp.text, resp.text


def test_a_missing_or_unknown_key_is_401_with_www_authenticate(server):
    near_miss = KEYS["admin"][0][:-1] + "9"
    for headers in ({}, {"Authorization": "Basic YWRtaW46eA=="},
                    {"Authorization": "Bearer " + near_miss},
                    {"Authorization": "Bearer " + sha256(KEYS["admin"][0])}):
        for method, path, body, _ in ENDPOINTS:
            resp = call(server, method, path, body, headers)
            assert resp.status_code == 401, (headers, path, resp.text)
            assert resp.headers["WWW-Authenticate"] == "Bearer"
    resp = call(server, "POST", "/v2/repository/index", {}, {})
    assert resp.json() == {
        "error": "this server requires an API key: send 'Authorization: Bearer <key>'"}


def test_health_needs_no_key(server):
    for path in ("/v2/health/live", "/v2/health/ready", "/v2/models/identity/ready"):
        assert server.get(path).status_code == 200, path


def test_infer_is_limited_to_the_keys_model_globs(server):
    resp = call(server, "POST", "/v2/models/fraud_v1/infer", INFER_BODY, bearer("fraud"))
    assert resp.status_code == 200, resp.text
    resp = call(server, "POST", "/v2/models/identity/infer", INFER_BODY, bearer("fraud"))
    assert resp.status_code == 403
    assert resp.json() == {"error": "API key 'fraud' may not infer with model 'identity' "
                                    "(its models: fraud_*)"}
    # The globs limit infer only: the key's metadata scope reads any model.
    assert call(server, "GET", "/v2/models/identity", None, bearer("fraud")).status_code == 200


def test_tritonclient_sends_the_key_as_a_header(server):
    client = httpclient.InferenceServerClient(server.address)
    try:
        tensor = httpclient.InferInput("INPUT0", [4], "FP32")
        x = np.array([1, 2, 3, 4], dtype=np.float32)
        tensor.set_data_from_numpy(x, binary_data=True)
        result = client.infer("fraud_v1", [tensor], headers=bearer("fraud"))
        assert result.as_numpy("OUTPUT0").tolist() == x.tolist()
        with pytest.raises(InferenceServerException, match="may not infer with model 'identity'"):
            client.infer("identity", [tensor], headers=bearer("fraud"))
        with pytest.raises(InferenceServerException, match="requires an API key"):
            client.infer("fraud_v1", [tensor])
        with pytest.raises(InferenceServerException, match="does not have the 'repository'"):
            client.load_model("identity", headers=bearer("fraud"))
        assert client.get_model_repository_index(headers=bearer("repository"))
    finally:
        client.close()


def test_metrics_port_needs_the_metrics_scope_and_counts_by_key_name(server):
    url = f"http://127.0.0.1:{server.metrics_port}/metrics"
    assert requests.get(url, timeout=REQUEST_TIMEOUT_S).status_code == 401
    assert requests.get(url, headers=bearer("infer"), timeout=REQUEST_TIMEOUT_S).status_code == 403
    call(server, "POST", "/v2/models/identity/infer", INFER_BODY, bearer("infer"))
    resp = requests.get(url, headers=bearer("metrics"), timeout=REQUEST_TIMEOUT_S)
    assert resp.status_code == 200
    text = resp.text
    allowed = [line for line in text.splitlines()
               if line.startswith('inferd_auth_requests_total{key="infer",result="allowed"}')]
    assert len(allowed) == 1 and int(allowed[0].split()[-1]) >= 1, text
    assert 'inferd_auth_requests_total{key="infer",result="forbidden"}' in text
    assert 'inferd_auth_requests_total{result="unauthenticated"}' in text
    assert f"inferd_auth_keys {len(KEYS)}" in text
    for secret, _, _ in KEYS.values():
        assert secret not in text and sha256(secret) not in text
    assert "secret" not in server.log()


def test_restricted_api_still_applies_beside_the_keys(inferd, auth_file):
    server = inferd({"identity": REPO["identity"]}, extra_args=[
        f"--auth-file={auth_file}", "--http-restricted-api=model-repository:admin-key=yes"])
    resp = call(server, "POST", "/v2/repository/index", {}, bearer("admin"))
    assert resp.status_code == 403
    assert "expecting header 'admin-key'" in resp.text
    resp = call(server, "POST", "/v2/repository/index", {}, {**bearer("admin"), "admin-key": "yes"})
    assert resp.status_code == 200
