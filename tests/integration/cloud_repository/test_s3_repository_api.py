"""Model repositories on S3 (issue 42), what works the same from a bucket as from
disk, against moto (signatures checked) behind the counting proxy: model
namespacing with two bucket prefixes and a local folder holding the same model
name; the load API's overrides (a "config" parameter over HTTP, "file:"
parameters over gRPC) for a model of the bucket, and a plain load going back to
the bucket's copy without downloading it again; and the cache's size limit on a
live server: an unloaded model's copy is removed once the cache is over its
limit, a loaded model's latest copy never is, and a model loaded again is
downloaded again. And `inferd check` on a bucket's URL (each model copied into
the cache first, which a server then starts from without downloading)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bucket_models import PYTHON_CONFIG, model_py  # noqa: E402
from util import (Model, assert_error, backend_directory, identity_config,  # noqa: E402
                  inferd_binary, tensor_block, write_repository)

BUCKET = "api"
DIMS = [4]
X = np.array([1.5, -2.0, 3.25, 7.0], dtype=np.float32)


@pytest.fixture(scope="module")
def bucket(moto):
    moto.s3().create_bucket(Bucket=BUCKET)
    return BUCKET


def publish(moto, tmp_path_factory, prefix: str, content: dict) -> str:
    """Uploads `content` (write_repository's models) under `prefix`; returns the key prefix."""
    moto.upload(BUCKET, prefix, write_repository(tmp_path_factory.mktemp("src"), content))
    return prefix


def url(proxy, prefix: str) -> str:
    return f"s3://127.0.0.1:{proxy.port}/{BUCKET}/{prefix}"


def identity(name: str, tensor_in: str, tensor_out: str) -> Model:
    # Object stores have no empty folders: version 1 holds a file.
    return Model(identity_config(name, [(tensor_in, tensor_out, "FP32", DIMS)]), versions=(),
                 files={"1/README": "identity\n"})


def ensemble(name: str, model_input: str, model_output: str, output: str) -> Model:
    """X -> m(model_input); m(model_output) -> output: runs whichever "m" it resolves to."""
    config = (f'name: "{name}"\nplatform: "ensemble"\nmax_batch_size: 0\n'
              f"input [\n{tensor_block('X', 'FP32', DIMS)}\n]\n"
              f"output [\n{tensor_block(output, 'FP32', DIMS)}\n]\n"
              'ensemble_scheduling { step [ { model_name: "m" model_version: -1 '
              f'input_map {{ key: "{model_input}" value: "X" }} '
              f'output_map {{ key: "{model_output}" value: "{output}" }} }} ] }}\n')
    return Model(config, versions=(), files={"1/.keep": ""})


def infer(server, protocol: str, model: str, inputs: dict[str, np.ndarray], output: str):
    module = httpclient if protocol == "http" else grpcclient
    client = server.client() if protocol == "http" else server.grpc_client()
    tensors = []
    for name, value in inputs.items():
        tensor = module.InferInput(name, list(value.shape), "FP32")
        tensor.set_data_from_numpy(value)
        tensors.append(tensor)
    return client.infer(model, tensors).as_numpy(output)


def index(server) -> list[tuple[str, str]]:
    return sorted((m["name"], m.get("state", "")) for m in
                  server.client().get_model_repository_index())


def test_namespacing_serves_the_same_name_from_two_prefixes_and_a_folder(
        moto, proxy, bucket, s3_inferd, tmp_path_factory):
    a = url(proxy, publish(moto, tmp_path_factory, "ns_a", {
        "m": identity("m", "INPUT0", "OUTPUT0"), "ens_a": ensemble("ens_a", "INPUT0", "OUTPUT0", "Y_A")}))
    b = url(proxy, publish(moto, tmp_path_factory, "ns_b", {
        "m": identity("m", "INPUT1", "OUTPUT1"), "ens_b": ensemble("ens_b", "INPUT1", "OUTPUT1", "Y_B")}))
    local = write_repository(tmp_path_factory.mktemp("local"), {
        "m": identity_config("m", [("INPUT2", "OUTPUT2", "FP32", DIMS)])})
    server = s3_inferd([a, b], ["--model-namespacing=true"], local=[local])
    assert index(server) == [("ens_a", "READY"), ("ens_b", "READY"),
                             ("m", "READY"), ("m", "READY"), ("m", "READY")]
    # Each ensemble runs the "m" of its own bucket prefix: the others have no such tensors.
    for protocol in ("http", "grpc"):
        np.testing.assert_array_equal(infer(server, protocol, "ens_a", {"X": X}, "Y_A"), X)
        np.testing.assert_array_equal(infer(server, protocol, "ens_b", {"X": X}, "Y_B"), X)
    steps = server.get("/v2/models/ens_b/config").json()["ensemble_scheduling"]["step"]
    assert steps[0]["model_namespace"] == b, steps
    body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": DIMS, "data": X.tolist()}]}
    message = assert_error(server.post("/v2/models/m/infer", json=body), 400, "ambiguous")
    assert a in message and b in message and str(local) in message, message


def test_without_namespacing_the_same_name_in_two_prefixes_is_unavailable(
        moto, proxy, bucket, s3_inferd, tmp_path_factory):
    a = url(proxy, publish(moto, tmp_path_factory, "dup_a", {"m": identity("m", "INPUT0", "OUTPUT0"),
                                                             "only_a": identity("only_a", "INPUT0", "OUTPUT0")}))
    b = url(proxy, publish(moto, tmp_path_factory, "dup_b", {"m": identity("m", "INPUT1", "OUTPUT1")}))
    server = s3_inferd([a, b], ["--exit-on-error=false"], wait_for="live")
    rows = {m["name"]: m for m in server.client().get_model_repository_index()}
    assert rows["m"]["state"] == "UNAVAILABLE", rows
    assert f"{a}/m" in rows["m"]["reason"] and f"{b}/m" in rows["m"]["reason"], rows
    np.testing.assert_array_equal(infer(server, "http", "only_a", {"INPUT0": X}, "OUTPUT0"), X)


def config_json(name: str, dims: list[int], backend: str = "identity") -> str:
    tensor = {"data_type": "TYPE_FP32", "dims": dims}
    return json.dumps({"name": name, "backend": backend, "max_batch_size": 0,
                       "input": [{"name": "INPUT0", **tensor}],
                       "output": [{"name": "OUTPUT0", **tensor}]})


def test_load_api_overrides_apply_to_a_model_of_the_bucket(
        moto, proxy, bucket, s3_inferd, tmp_path_factory):
    prefix = publish(moto, tmp_path_factory, "overrides", {
        "ident": identity("ident", "INPUT0", "OUTPUT0"),
        "add_offset": Model(PYTHON_CONFIG, versions=(), files={"1/model.py": model_py(1.0).decode()})})
    server = s3_inferd([url(proxy, prefix)], ["--model-control-mode=explicit",
                                              "--load-model=ident", "--load-model=add_offset"])
    client = server.client()
    # A "config" parameter replaces the bucket's config.pbtxt for that load.
    client.load_model("ident", config=config_json("ident", [2]))
    assert client.get_model_metadata("ident")["inputs"][0]["shape"] == [2]
    np.testing.assert_array_equal(infer(server, "http", "ident", {"INPUT0": X[:2]}, "OUTPUT0"), X[:2])
    # "file:" parameters (over gRPC) load the model from them instead of the bucket.
    grpc = server.grpc_client()
    grpc.load_model("add_offset", config=config_json("add_offset", DIMS, "python"),
                    files={"file:1/model.py": model_py(5.0)})
    np.testing.assert_array_equal(infer(server, "grpc", "add_offset", {"INPUT0": X}, "OUTPUT0"), X + 5)
    # A plain load goes back to the bucket's copy, from the cache: nothing downloaded again.
    before = proxy.object_gets()
    client.load_model("add_offset")
    np.testing.assert_array_equal(infer(server, "http", "add_offset", {"INPUT0": X}, "OUTPUT0"), X + 1)
    assert proxy.object_gets() == before
    assert proxy.gets(f"/{BUCKET}/{prefix}/add_offset/1/model.py") == 1


def test_the_cache_limit_removes_unloaded_models_never_a_loaded_ones_latest_copy(
        moto, proxy, bucket, s3_inferd, tmp_path_factory):
    weights = {name: Model(identity_config(name, [("INPUT0", "OUTPUT0", "FP32", DIMS)]),
                           versions=(), files={"1/weights.bin": name * 100_000})
               for name in ("a", "b", "c")}
    prefix = publish(moto, tmp_path_factory, "limit", weights)
    cache = tmp_path_factory.mktemp("limited-cache")
    server = s3_inferd([url(proxy, prefix)], [
        "--model-control-mode=explicit", "--load-model=a", "--load-model=b", "--load-model=c",
        f"--model-repository-cache-directory={cache}",
        "--model-repository-cache-byte-size=250000"])

    def copies(model: str) -> list[Path]:
        return list((cache / "models").glob(f"*/{model}/*"))

    def weight_gets(model: str) -> int:
        return proxy.gets(f"/{BUCKET}/{prefix}/{model}/1/weights.bin")

    # 300 kB of objects, over the limit, but every copy is a loaded model's latest.
    assert all(len(copies(m)) == 1 for m in "abc")
    assert "over its limit of 250000" in server.log()
    server.client().unload_model("b")
    assert copies("b") == [] and len(copies("a")) == 1 and len(copies("c")) == 1
    assert not [p for p in (cache / "objects").iterdir() if p.read_bytes()[:1] == b"b"]
    # A new edition of a's weights: loading it makes a new copy, and a's old one goes.
    moto.s3().put_object(Bucket=BUCKET, Key=f"{prefix}/a/1/weights.bin", Body=b"A" * 100_000)
    server.client().load_model("a")
    assert len(copies("a")) == 1 and weight_gets("a") == 2
    assert not [p for p in (cache / "objects").iterdir() if p.read_bytes()[:1] == b"a"]
    # b loads again: downloaded again, and serves.
    server.client().load_model("b")
    assert weight_gets("b") == 2 and weight_gets("c") == 1
    np.testing.assert_array_equal(infer(server, "grpc", "b", {"INPUT0": X}, "OUTPUT0"), X)


def test_inferd_check_reads_a_bucket_into_the_servers_cache(
        moto, proxy, bucket, s3_inferd, aws_env, tmp_path_factory):
    broken = identity_config("broken", [("INPUT0", "OUTPUT0", "FP32", DIMS)]).replace(
        "TYPE_FP32", "TYPE_FP99", 1)
    prefix = publish(moto, tmp_path_factory, "check", {
        "ident": identity("ident", "INPUT0", "OUTPUT0"),
        "broken": Model(broken, versions=(), files={"1/README": "x"})})
    cache = tmp_path_factory.mktemp("check-cache")
    check = subprocess.run(
        [str(inferd_binary().parent / "tools" / "inferd-check-config"),
         f"--backend-directory={backend_directory()}", f"--model-repository={url(proxy, prefix)}",
         f"--model-repository-cache-directory={cache}"],
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    out = check.stdout + check.stderr
    assert check.returncode == 1, out
    assert "ok     ident: versions 1, backend 'identity'" in out, out
    assert "error  " in out and "TYPE_FP99" in out, out
    assert "2 model(s) checked, 1 with errors" in out, out
    # The checked copies are the server's: a start on that cache downloads nothing.
    before = proxy.object_gets()
    server = s3_inferd([url(proxy, prefix)], [f"--model-repository-cache-directory={cache}",
                                              "--model-control-mode=explicit", "--load-model=ident"])
    np.testing.assert_array_equal(infer(server, "http", "ident", {"INPUT0": X}, "OUTPUT0"), X)
    assert proxy.object_gets() == before
