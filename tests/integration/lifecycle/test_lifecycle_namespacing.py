"""--model-namespacing: two repositories each hold a model named "m" (identity
models that differ: repository a's copies INPUT0 to OUTPUT0, repository b's
INPUT1 to OUTPUT1) and an ensemble whose one step names "m". With the flag both
"m" load, a request naming "m" is refused as ambiguous (400 / INVALID_ARGUMENT,
as Triton), and each ensemble runs the "m" of its own repository, over HTTP and
gRPC. Without the flag "m" is UNAVAILABLE, saying it is in two repositories.
In explicit mode, loading "m" loads both, and a name only one of them is loaded
under is not ambiguous.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from lifecycle_helpers import index, load, unload
from util import InferdServer, assert_error, identity_config, tensor_block, write_repository

DIMS = [4]


def _ensemble(name: str, model_input: str, model_output: str, output: str) -> str:
    """An ensemble of one step: X -> m(model_input) ; m(model_output) -> output."""
    return (
        f'name: "{name}"\nplatform: "ensemble"\nmax_batch_size: 0\n'
        f"input [\n{tensor_block('X', 'FP32', DIMS)}\n]\n"
        f"output [\n{tensor_block(output, 'FP32', DIMS)}\n]\n"
        "ensemble_scheduling {\n  step [\n    {\n"
        '      model_name: "m"\n      model_version: -1\n'
        f'      input_map {{ key: "{model_input}" value: "X" }}\n'
        f'      output_map {{ key: "{model_output}" value: "{output}" }}\n'
        "    }\n  ]\n}\n")


@pytest.fixture
def repos(tmp_path):
    a = write_repository(tmp_path / "repo_a", {
        "m": identity_config("m", [("INPUT0", "OUTPUT0", "FP32", DIMS)]),
        "ens_a": _ensemble("ens_a", "INPUT0", "OUTPUT0", "Y_A"),
        "only_a": identity_config("only_a", [("INPUT0", "OUTPUT0", "FP32", DIMS)]),
    })
    b = write_repository(tmp_path / "repo_b", {
        "m": identity_config("m", [("INPUT1", "OUTPUT1", "FP32", DIMS)]),
        "ens_b": _ensemble("ens_b", "INPUT1", "OUTPUT1", "Y_B"),
    })
    return a, b


@pytest.fixture
def start(tmp_path):
    started: list[InferdServer] = []

    def run(repositories, *args: str, wait_for: str = "ready") -> InferdServer:
        server = InferdServer(repositories, tmp_path / f"inferd-{len(started)}.log",
                              extra_args=args, wait_for=wait_for)
        started.append(server)
        return server

    yield run
    for server in started:
        server.stop()


def _infer(server: InferdServer, protocol: str, model: str, output: str) -> np.ndarray:
    module = httpclient if protocol == "http" else grpcclient
    client = server.client() if protocol == "http" else server.grpc_client()
    try:
        data = np.array([1.5, -2.0, 3.25, 7.0], dtype=np.float32)
        tensor = module.InferInput("X", DIMS, "FP32")
        tensor.set_data_from_numpy(data)
        result = client.infer(model, [tensor])
        got = result.as_numpy(output)
        assert got is not None, f"{model} answered without {output}: {result.get_response()}"
        np.testing.assert_array_equal(got, data)
        return got
    finally:
        client.close()


def _rows(server: InferdServer) -> list[tuple[str, str, str]]:
    return sorted((e["name"], e.get("version", ""), e.get("state", "")) for e in index(server))


def test_same_name_in_two_repositories_serves_both_and_each_ensemble_its_own(start, repos):
    a, b = repos
    server = start([a, b], "--model-namespacing=true")
    assert _rows(server) == [("ens_a", "1", "READY"), ("ens_b", "1", "READY"),
                             ("m", "1", "READY"), ("m", "1", "READY"),
                             ("only_a", "1", "READY")]

    # Each ensemble's step gets its own repository's "m": Y_A comes from
    # a's OUTPUT0, Y_B from b's OUTPUT1 (the other "m" has no such tensors).
    for protocol in ("http", "grpc"):
        _infer(server, protocol, "ens_a", "Y_A")
        _infer(server, protocol, "ens_b", "Y_B")
    config_a = server.get("/v2/models/ens_a/config").json()
    config_b = server.get("/v2/models/ens_b/config").json()
    assert config_a["ensemble_scheduling"]["step"][0]["model_namespace"] == str(a)
    assert config_b["ensemble_scheduling"]["step"][0]["model_namespace"] == str(b)

    # A request naming "m" cannot choose: 400 naming both repositories.
    body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": DIMS,
                        "data": [1, 2, 3, 4]}]}
    message = assert_error(server.post("/v2/models/m/infer", json=body), 400, "ambiguous")
    assert str(a) in message and str(b) in message, message
    assert_error(server.get("/v2/models/m"), 400, "ambiguous")
    assert_error(server.get("/v2/models/m/config"), 400, "ambiguous")
    assert_error(server.get("/v2/models/m/ready"), 400, "ambiguous")
    assert_error(server.get("/v2/models/m/stats"), 400, "ambiguous")
    # All statistics list both models of that name.
    stats = server.get("/v2/models/stats").json()["model_stats"]
    assert sorted(s["name"] for s in stats) == ["ens_a", "ens_b", "m", "m", "only_a"], stats
    grpc = server.grpc_client()
    try:
        with pytest.raises(InferenceServerException) as caught:
            grpc.get_model_metadata("m")
        assert caught.value.status() == "StatusCode.INVALID_ARGUMENT", caught.value
        assert "ambiguous" in caught.value.message()
    finally:
        grpc.close()

    # A name one repository alone holds is addressed as usual.
    out = server.post("/v2/models/only_a/infer", json=body)
    assert out.status_code == 200, out.text
    assert out.json()["outputs"][0]["data"] == [1, 2, 3, 4]


def test_without_namespacing_the_same_name_is_unavailable(start, repos):
    a, b = repos
    server = start([a, b], "--exit-on-error=false", wait_for="live")
    rows = [e for e in index(server) if e["name"] == "m"]
    assert len(rows) == 1 and rows[0]["state"] == "UNAVAILABLE", rows
    assert "more than one repository" in rows[0]["reason"], rows
    assert str(a) in rows[0]["reason"] and str(b) in rows[0]["reason"], rows
    # Refused before the model lifecycle (as Triton's poll refuses it), so strict
    # readiness does not count it, nor the ensembles refused for want of it.
    assert server.get("/v2/health/ready").status_code == 200
    # The ensembles cannot serve either; the unique model does.
    assert server.get("/v2/models/ens_a/ready").status_code != 200
    _infer_only_a = server.post("/v2/models/only_a/infer", json={"inputs": [
        {"name": "INPUT0", "datatype": "FP32", "shape": DIMS, "data": [1, 2, 3, 4]}]})
    assert _infer_only_a.status_code == 200, _infer_only_a.text


def test_explicit_mode_loads_every_model_of_a_name(start, repos):
    a, b = repos
    server = start([a, b], "--model-namespacing=true", "--model-control-mode=explicit",
                   "--load-model=ens_a")
    # Loading ens_a loaded a's "m" only: the name is not ambiguous yet.
    assert ("m", "1", "READY") in _rows(server)
    assert [r for r in _rows(server) if r[0] == "m" and r[2] == "READY"] == [("m", "1", "READY")]
    meta = server.get("/v2/models/m").json()
    assert [t["name"] for t in meta["inputs"]] == ["INPUT0"], meta
    _infer(server, "http", "ens_a", "Y_A")

    # Loading "m" loads it from both repositories.
    resp = load(server, "m")
    assert resp.status_code == 200, resp.text
    assert [r for r in _rows(server) if r[0] == "m"] == [("m", "1", "READY")] * 2
    assert_error(server.get("/v2/models/m"), 400, "ambiguous")
    resp = load(server, "ens_b")
    assert resp.status_code == 200, resp.text
    _infer(server, "grpc", "ens_b", "Y_B")
    _infer(server, "grpc", "ens_a", "Y_A")

    # unload_dependents of ens_b takes b's "m" only; ens_a keeps running a's.
    resp = unload(server, "ens_b", dependents=True)
    assert resp.status_code == 200, resp.text
    assert [r for r in _rows(server) if r[0] == "m" and r[2] == "READY"] == [("m", "1", "READY")]
    _infer(server, "http", "ens_a", "Y_A")
    meta = server.get("/v2/models/m").json()
    assert [t["name"] for t in meta["inputs"]] == ["INPUT0"], meta
