"""Model repositories on S3 (issue 42), against moto's S3 server with IAM
checks on (so inferd's SigV4 signatures are verified) behind a fault proxy
that counts requests: load and infer over HTTP and gRPC (an identity model
with a version policy, a Python model, an ensemble, a local repository mixed
in), a second start from the cache, POLL re-downloading only the changed
object, throttling and truncated downloads retried, a truncation that never
stops (the model fails, never half-loaded), a wrong key, a missing bucket, a
revoked key (the models keep serving), the credential file, a model loading
while another still downloads."""

from __future__ import annotations

import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from failed_start import run_to_exit  # noqa: E402
from python_models import ADD_SUB, ADD_SUB_CONFIG, python_model  # noqa: E402
from util import (START_TIMEOUT_S, InferdServer, Model, single_identity, wait_until,  # noqa: E402
                  write_repository)

BUCKET = "models"

ENSEMBLE = """name: "pipe"
platform: "ensemble"
max_batch_size: 0
input [ { name: "IN" data_type: TYPE_FP32 dims: [ 4 ] } ]
output [ { name: "OUT" data_type: TYPE_FP32 dims: [ 4 ] } ]
ensemble_scheduling { step [ {
  model_name: "ident" model_version: -1
  input_map { key: "INPUT0" value: "IN" }
  output_map { key: "OUTPUT0" value: "OUT" }
} ] }
"""


def models() -> dict:
    return {
        # Versions 1 and 2, only the latest served: the policy holds from a bucket too.
        "ident": Model(single_identity("ident", "FP32", [4],
                                       version_policy="{ latest { num_versions: 1 } }"),
                       versions=(), files={"1/weights.bin": "a" * 3000,
                                           "2/weights.bin": "b" * 70000}),
        "add_sub": python_model(ADD_SUB_CONFIG, ADD_SUB),
        "pipe": Model(ENSEMBLE, versions=(), files={"1/.keep": ""}),
    }


@pytest.fixture(scope="module")
def bucket(moto, tmp_path_factory):
    moto.s3().create_bucket(Bucket=BUCKET)
    return BUCKET


def publish(moto, tmp_path_factory, prefix: str, content: dict) -> None:
    folder = write_repository(tmp_path_factory.mktemp("src"), content)
    moto.upload(BUCKET, prefix, folder)


def url(proxy, prefix: str) -> str:
    return f"s3://127.0.0.1:{proxy.port}/{BUCKET}/{prefix}"


def key_path(prefix: str, relative: str) -> str:
    return f"/{BUCKET}/{prefix}/{relative}"


def infer_both(server, model: str, inputs: dict[str, np.ndarray], outputs: list[str]) -> None:
    """Infers over HTTP and gRPC; returns nothing, asserts the outputs came."""
    http_inputs = []
    grpc_inputs = []
    for name, value in inputs.items():
        h = httpclient.InferInput(name, list(value.shape), "FP32")
        h.set_data_from_numpy(value)
        http_inputs.append(h)
        g = grpcclient.InferInput(name, list(value.shape), "FP32")
        g.set_data_from_numpy(value)
        grpc_inputs.append(g)
    results = [server.client().infer(model, http_inputs),
               server.grpc_client().infer(model, grpc_inputs)]
    return [{name: r.as_numpy(name) for name in outputs} for r in results]


def test_loads_and_serves_models_from_a_bucket_over_http_and_grpc(
        moto, proxy, bucket, s3_inferd, tmp_path_factory):
    publish(moto, tmp_path_factory, "serve", models())
    local = write_repository(tmp_path_factory.mktemp("local"),
                             {"local_ident": single_identity("local_ident", "FP32", [4])})
    server = s3_inferd([url(proxy, "serve")], local=[local])
    client = server.client()
    for model in ("ident", "add_sub", "pipe", "local_ident"):
        assert client.is_model_ready(model), model
    assert client.is_model_ready("ident", "2") and not client.is_model_ready("ident", "1")
    x = np.arange(4, dtype=np.float32)
    y = np.ones(4, dtype=np.float32)
    for outputs in infer_both(server, "add_sub", {"INPUT0": x, "INPUT1": y},
                              ["OUTPUT0", "OUTPUT1"]):
        np.testing.assert_array_equal(outputs["OUTPUT0"], x + y)
        np.testing.assert_array_equal(outputs["OUTPUT1"], x - y)
    for outputs in infer_both(server, "pipe", {"IN": x}, ["OUT"]):
        np.testing.assert_array_equal(outputs["OUT"], x)
    # Each object was fetched once, though three models were loaded in parallel.
    assert proxy.gets(key_path("serve", "ident/2/weights.bin")) == 1
    assert proxy.gets(key_path("serve", "add_sub/1/model.py")) == 1


def test_a_second_start_from_the_cache_downloads_nothing(
        moto, proxy, bucket, s3_inferd, tmp_path_factory):
    publish(moto, tmp_path_factory, "warm", models())
    cache = tmp_path_factory.mktemp("warm-cache")
    args = [f"--model-repository-cache-directory={cache}"]
    first = s3_inferd([url(proxy, "warm")], args)
    first.stop()
    before = proxy.object_gets()
    second = s3_inferd([url(proxy, "warm")], args)
    assert second.client().is_model_ready("add_sub")
    assert proxy.object_gets() == before, "objects downloaded again on a warm start"
    assert "0 of 3 objects downloaded" in second.log()  # ident: config + 2 weights


def test_poll_downloads_only_the_object_that_changed(
        moto, proxy, bucket, s3_inferd, tmp_path_factory):
    publish(moto, tmp_path_factory, "poll", models())
    server = s3_inferd([url(proxy, "poll")],
                       ["--model-control-mode=poll", "--repository-poll-secs=1"])
    keys = ["ident/config.pbtxt", "ident/1/weights.bin", "ident/2/weights.bin",
            "add_sub/config.pbtxt", "add_sub/1/model.py", "pipe/config.pbtxt"]
    before = {k: proxy.gets(key_path("poll", k)) for k in keys}
    changed = single_identity("ident", "FP32", [4], version_policy="{ latest { num_versions: 1 } }",
                              extra='parameters { key: "edition" value: { string_value: "2" } }\n')
    moto.s3().put_object(Bucket=BUCKET, Key="poll/ident/config.pbtxt", Body=changed.encode())
    wait_until(lambda: "edition" in server.client().get_model_config("ident").get("parameters", {}),
               timeout=30, what="the changed config served")
    after = {k: proxy.gets(key_path("poll", k)) for k in keys}
    assert after["ident/config.pbtxt"] == before["ident/config.pbtxt"] + 1
    assert {k: after[k] - before[k] for k in keys if k != "ident/config.pbtxt"} == \
        {k: 0 for k in keys if k != "ident/config.pbtxt"}


def test_throttling_and_a_truncated_download_are_retried(
        moto, proxy, bucket, s3_inferd, tmp_path_factory):
    publish(moto, tmp_path_factory, "faults", models())
    model_py = key_path("faults", "add_sub/1/model.py")
    weights = key_path("faults", "ident/2/weights.bin")
    proxy.fail_next(model_py, "throttle", 2)
    proxy.fail_next(weights, "truncate", 1)
    server = s3_inferd([url(proxy, "faults")])
    assert server.client().is_model_ready("add_sub") and server.client().is_model_ready("ident")
    assert proxy.gets(model_py) == 3 and proxy.gets(weights) == 2
    log = server.log()
    assert "HTTP 503 (attempt 1 of 6)" in log and "HTTP 503 (attempt 2 of 6)" in log
    x = np.arange(4, dtype=np.float32)
    for outputs in infer_both(server, "add_sub", {"INPUT0": x, "INPUT1": x}, ["OUTPUT0"]):
        np.testing.assert_array_equal(outputs["OUTPUT0"], 2 * x)


def test_a_download_that_keeps_breaking_fails_its_model_and_leaves_no_half_copy(
        moto, proxy, bucket, s3_inferd, tmp_path_factory):
    publish(moto, tmp_path_factory, "broken", models())
    model_py = key_path("broken", "add_sub/1/model.py")
    proxy.fail_next(model_py, "truncate", 1000)  # every try
    cache = tmp_path_factory.mktemp("broken-cache")
    server = s3_inferd([url(proxy, "broken")],
                       ["--exit-on-error=false", f"--model-repository-cache-directory={cache}"],
                       wait_for="live")
    index = {m["name"]: m for m in server.client().get_model_repository_index()}
    wait_until(lambda: server.client().is_model_ready("ident"), what="ident ready")
    reason = {m["name"]: m for m in server.client().get_model_repository_index()}["add_sub"]
    assert reason["state"] == "UNAVAILABLE", index
    assert f"s3://127.0.0.1:{proxy.port}/{BUCKET}/broken" in reason["reason"]
    assert "add_sub/1/model.py" in reason["reason"] and "truncated" in reason["reason"]
    assert proxy.gets(model_py) >= 6  # every attempt of the retry policy was made
    # Nothing of add_sub became visible: no model folder, no partial object.
    assert not list((cache / "models").glob("*/add_sub/*"))
    assert not [p for p in (cache / "objects").iterdir() if p.name.startswith(".")]


def test_a_wrong_key_is_refused_with_the_url_and_the_clouds_code(moto, proxy, bucket, aws_env):
    env_backup = aws_env["AWS_SECRET_ACCESS_KEY"]
    aws_env["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
    try:
        run = run_to_exit([f"--model-repository={url(proxy, 'serve')}"])
    finally:
        aws_env["AWS_SECRET_ACCESS_KEY"] = env_backup
    assert run.returncode != 0
    assert f"s3://127.0.0.1:{proxy.port}/{BUCKET}/serve: SignatureDoesNotMatch (HTTP 403)" in \
        run.stdout + run.stderr, run.stdout + run.stderr


def test_a_missing_bucket_is_named(moto, proxy, aws_env):
    run = run_to_exit([f"--model-repository=s3://127.0.0.1:{proxy.port}/no-such-bucket/repo"])
    assert run.returncode != 0
    assert (f"s3://127.0.0.1:{proxy.port}/no-such-bucket/repo: NoSuchBucket (HTTP 404)"
            in run.stdout + run.stderr), run.stdout + run.stderr


def test_a_revoked_key_stops_polls_but_the_models_keep_serving(
        moto, proxy, bucket, s3_inferd, tmp_path_factory):
    """The key comes from TRITON_CLOUD_CREDENTIAL_PATH's entry for this prefix."""
    publish(moto, tmp_path_factory, "revoke", models())
    key_id, secret = moto.new_key("revocable")
    credentials = tmp_path_factory.mktemp("creds") / "cloud_credential.json"
    credentials.write_text(json.dumps({"s3": {
        "": {"key_id": "unused", "secret_key": "unused", "region": "us-east-1"},
        url(proxy, "revoke"): {"key_id": key_id, "secret_key": secret, "region": "us-east-1"}}}))
    import os
    os.environ["TRITON_CLOUD_CREDENTIAL_PATH"] = str(credentials)
    try:
        server = s3_inferd([url(proxy, "revoke")],
                           ["--model-control-mode=poll", "--repository-poll-secs=1"])
    finally:
        del os.environ["TRITON_CLOUD_CREDENTIAL_PATH"]
    moto.client("iam", moto.key_id, moto.secret).delete_access_key(UserName="revocable",
                                                                   AccessKeyId=key_id)
    wait_until(lambda: "repository poll failed" in server.log() and
               "InvalidAccessKeyId (HTTP 403)" in server.log(), timeout=30,
               what="a poll refused for the revoked key")
    x = np.arange(4, dtype=np.float32)
    for outputs in infer_both(server, "ident", {"INPUT0": x}, ["OUTPUT0"]):
        np.testing.assert_array_equal(outputs["OUTPUT0"], x)


def test_a_model_loads_while_another_still_downloads(
        moto, proxy, bucket, aws_env, tmp_path_factory):
    """Each model loads as soon as its own files are in: with one model's
    weights held back at the proxy, the other one loads (its line in the log;
    the server answers nothing before its start ends) while the server is not
    up yet; released, the held one loads and the server is ready with both."""
    publish(moto, tmp_path_factory, "overlap", {
        name: Model(single_identity(name, "FP32", [4]), versions=(),
                    files={"1/weights.bin": name * 1000}) for name in ("early", "late")})
    held = key_path("overlap", "late/1/weights.bin")
    proxy.hold(held)
    log = tmp_path_factory.mktemp("log") / "inferd.log"
    args = [f"--model-repository={url(proxy, 'overlap')}",
            f"--model-repository-cache-directory={tmp_path_factory.mktemp('cache')}"]
    text = lambda: log.read_text(errors="replace") if log.exists() else ""  # noqa: E731
    with ThreadPoolExecutor(1) as pool:
        try:
            starting = pool.submit(InferdServer, [], log, extra_args=args,
                                   start_timeout_s=2 * START_TIMEOUT_S)
            wait_until(lambda: proxy.holding(held), what="late's weights requested")
            wait_until(lambda: "successfully loaded model 'early'" in text(), timeout=60,
                       what="early loaded while late's weights are held")
            assert "successfully loaded model 'late'" not in text()
            assert not starting.done(), "the server started before every model loaded"
        finally:
            proxy.release(held)
        server = starting.result()
    try:
        index = {m["name"]: m["state"] for m in server.client().get_model_repository_index()}
        assert index == {"early": "READY", "late": "READY"}
    finally:
        server.stop()
