"""Model repositories on Google Cloud Storage (gs://bucket/path), served from
fake-gcs-server (storage_emulators.py) through a recording proxy that shows
what inferd asked for; a service account's JWT is checked by a stand-in token
endpoint (google_token_endpoint.py). Vertex AI's AIP_STORAGE_URI names such a
bucket too."""

from __future__ import annotations

import base64
import json
import sys
from pathlib import Path

import pytest

from bucket_models import (X, assert_serves_both, cache_flag, model_py, offset_served,
                           repository_files)
from failed_start import run_to_exit
from google_token_endpoint import GceMetadataServer, GoogleTokenEndpoint, new_key
from recording_proxy import RecordingProxy, behind_proxy
from storage_emulators import FakeGcs
from util import wait_until

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cloud"))
from cloud_util import VERTEX_STARTED, CloudServer, free_ports, get, post  # noqa: E402

BUCKET = "inferd-models"


@pytest.fixture(scope="module")
def gcs(tmp_path_factory):
    with behind_proxy(FakeGcs(tmp_path_factory.mktemp("gcs") / "fake-gcs-server.log")) as both:
        both[0].create_bucket(BUCKET)
        yield both


@pytest.fixture
def gcs_env(gcs, monkeypatch, tmp_path):
    """inferd's environment: the emulator (through the proxy), no credentials."""
    _, proxy = gcs
    monkeypatch.setenv("STORAGE_EMULATOR_HOST", proxy.url)
    for name in ("GOOGLE_APPLICATION_CREDENTIALS", "TRITON_CLOUD_CREDENTIAL_PATH",
                 "CLOUD_STORAGE_EMULATOR_ENDPOINT", "GCE_METADATA_HOST"):
        monkeypatch.delenv(name, raising=False)
    proxy.clear()
    return tmp_path


def media_gets(proxy: RecordingProxy) -> list[str]:
    """The objects downloaded (paths of alt=media GETs), in order."""
    return [s.path.split("?")[0].split("/o/", 1)[1] for s in proxy.seen()
            if s.method == "GET" and "alt=media" in s.path]


def test_serves_a_python_model_and_an_identity_model_from_a_bucket(gcs, gcs_env, inferd):
    emulator, proxy = gcs
    emulator.put_tree(BUCKET, "serve", repository_files(offset=1.0))
    server = inferd([], extra_args=[f"--model-repository=gs://{BUCKET}/serve",
                                    cache_flag(gcs_env)])
    assert_serves_both(server, offset=1.0)
    # Each object fetched once, anonymously (no credentials: an emulator or a public bucket).
    assert sorted(media_gets(proxy)) == sorted(
        f"serve%2F{name.replace('/', '%2F')}" for name in repository_files())
    assert all("Authorization" not in s.headers for s in proxy.seen())


def test_poll_downloads_again_only_the_object_that_changed(gcs, gcs_env, inferd):
    emulator, proxy = gcs
    emulator.put_tree(BUCKET, "poll", repository_files(offset=1.0))
    server = inferd([], extra_args=[f"--model-repository=gs://{BUCKET}/poll", cache_flag(gcs_env),
                                    "--model-control-mode=poll", "--repository-poll-secs=1"])
    assert offset_served(server) == 1.0
    proxy.clear()
    emulator.put(BUCKET, "poll/add_offset/1/model.py", model_py(2.0))
    wait_until(lambda: offset_served(server) == 2.0, timeout=30,
               what="add_offset reloaded with the new model.py")
    assert media_gets(proxy) == ["poll%2Fadd_offset%2F1%2Fmodel.py"]
    assert_serves_both(server, offset=2.0)


def test_a_corrupted_download_fails_its_model_naming_the_crc32c(gcs, gcs_env, inferd):
    """The listing's crc32c (preferred to md5Hash, cheaper) checks each object."""
    from awscrt.checksums import crc32c
    emulator, proxy = gcs
    files = repository_files(offset=1.0)
    emulator.put_tree(BUCKET, "corrupt", files)
    proxy.fail_next(f"/storage/v1/b/{BUCKET}/o/corrupt%2Fadd_offset%2F1%2Fmodel.py", "corrupt", 1)
    server = inferd([], extra_args=[f"--model-repository=gs://{BUCKET}/corrupt",
                                    cache_flag(gcs_env), "--exit-on-error=false"], wait_for="live")
    wait_until(lambda: server.client().is_model_ready("ident"), what="ident ready")
    stated = base64.b64encode(crc32c(files["add_offset/1/model.py"]).to_bytes(4, "big")).decode()

    def add_offset():
        return {m["name"]: m for m in server.client().get_model_repository_index()}["add_offset"]

    wait_until(lambda: add_offset()["state"] == "UNAVAILABLE", what="add_offset failed")
    reason = add_offset()
    assert (f"gs://{BUCKET}/corrupt: object 'add_offset/1/model.py': content does not match its "
            f"CRC32C ({stated}, received ") in reason["reason"], reason


def serve_as_service_account(gcs, gcs_env, inferd, monkeypatch, prefix: str,
                             offset: float) -> GoogleTokenEndpoint:
    """Serves gs://BUCKET/<prefix> signed in as a service account the returned
    (stopped) token endpoint knows; asserts both models answer."""
    emulator, _ = gcs
    emulator.put_tree(BUCKET, prefix, repository_files(offset=offset))
    key = new_key()
    endpoint = GoogleTokenEndpoint(registered=key)
    try:
        monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(
            endpoint.service_account_file(gcs_env / "sa.json", key)))
        server = inferd([], extra_args=[f"--model-repository=gs://{BUCKET}/{prefix}",
                                        cache_flag(gcs_env)])
        assert_serves_both(server, offset=offset)
    finally:
        endpoint.stop()
    return endpoint


def test_a_service_account_signs_in_with_a_jwt_and_reuses_its_token(gcs, gcs_env, inferd,
                                                                     monkeypatch):
    _, proxy = gcs
    endpoint = serve_as_service_account(gcs, gcs_env, inferd, monkeypatch, "private", 3.0)
    assert len(endpoint.claims) == 1, "one token for every request"
    claims = endpoint.claims[0]
    assert claims["iss"] == "loader@inferd-test.iam.gserviceaccount.com"
    assert claims["scope"] == "https://www.googleapis.com/auth/devstorage.read_only"
    assert claims["exp"] - claims["iat"] == 3600
    # This repository's requests (the poll test's server still lists its own meanwhile).
    bucket_requests = [s for s in proxy.seen() if "private%2F" in s.path]
    assert bucket_requests and all(s.headers.get("Authorization") == "Bearer tok-1"
                                   for s in bucket_requests)


def test_a_token_refused_with_401_is_renewed_and_the_download_sent_again(
        gcs, gcs_env, inferd, monkeypatch):
    _, proxy = gcs
    model = f"/storage/v1/b/{BUCKET}/o/renew%2Fadd_offset%2F1%2Fmodel.py"
    proxy.fail_next(model, "unauthorized")  # as GCS answers a token revoked early
    endpoint = serve_as_service_account(gcs, gcs_env, inferd, monkeypatch, "renew", 6.0)
    assert len(endpoint.claims) == 2, "a new token after the 401, and only one"
    gets = [s for s in proxy.seen() if s.method == "GET" and s.path.split("?")[0] == model]
    assert [s.headers.get("Authorization") for s in gets] == ["Bearer tok-1", "Bearer tok-2"]


def test_without_a_credentials_file_the_gce_metadata_server_gives_the_token(
        gcs, gcs_env, inferd, monkeypatch):
    emulator, proxy = gcs
    emulator.put_tree(BUCKET, "gce", repository_files(offset=7.0))
    metadata = GceMetadataServer()
    try:
        monkeypatch.setenv("GCE_METADATA_HOST", metadata.host)
        server = inferd([], extra_args=[f"--model-repository=gs://{BUCKET}/gce",
                                        cache_flag(gcs_env)])
        assert_serves_both(server, offset=7.0)
    finally:
        metadata.stop()
    assert metadata.granted == 1
    bucket_requests = [s for s in proxy.seen() if "gce%2F" in s.path]
    assert bucket_requests and all(s.headers.get("Authorization") == "Bearer gce-1"
                                   for s in bucket_requests)


def test_a_wrong_key_is_refused_with_googles_error(gcs, gcs_env, monkeypatch):
    emulator, _ = gcs
    emulator.put_tree(BUCKET, "denied", repository_files())
    endpoint = GoogleTokenEndpoint(registered=new_key())
    try:
        # TRITON_CLOUD_CREDENTIAL_PATH's entry for the bucket: a key Google does not know.
        wrong = endpoint.service_account_file(gcs_env / "wrong.json", new_key())
        (gcs_env / "creds.json").write_text(json.dumps({"gs": {f"gs://{BUCKET}": str(wrong)}}))
        monkeypatch.setenv("TRITON_CLOUD_CREDENTIAL_PATH", str(gcs_env / "creds.json"))
        run = run_to_exit([f"--model-repository=gs://{BUCKET}/denied", cache_flag(gcs_env)])
    finally:
        endpoint.stop()
    out = run.stdout + run.stderr
    assert run.returncode != 0 and endpoint.refused >= 1
    expected = (f"gs://{BUCKET}/denied: OAuth2 token endpoint {endpoint.uri}: "
                "invalid_grant (HTTP 400): Invalid JWT Signature.")
    assert expected in out, out


def test_a_missing_bucket_is_named_with_googles_reason(gcs, gcs_env):
    run = run_to_exit(["--model-repository=gs://no-such-bucket/models", cache_flag(gcs_env)])
    out = run.stdout + run.stderr
    assert run.returncode != 0
    assert "gs://no-such-bucket/models: notFound (HTTP 404)" in out, out


def test_vertex_ai_serves_the_bucket_its_aip_storage_uri_names(gcs, gcs_env):
    emulator, proxy = gcs
    emulator.put_tree(BUCKET, "vertex", repository_files(offset=4.0))
    (port,) = free_ports(1)
    server = CloudServer(
        ["--metrics-port=0", "--vertex-ai-default-model=add_offset", cache_flag(gcs_env)],
        {"AIP_MODE": "PREDICTION", "AIP_HTTP_PORT": str(port),
         "AIP_STORAGE_URI": f"gs://{BUCKET}/vertex", "AIP_PREDICT_ROUTE": "/predict",
         "AIP_HEALTH_ROUTE": "/health"}, gcs_env / "vertex.log")
    try:
        assert server.port(VERTEX_STARTED) == port
        assert get(port, "/health").status_code == 200
        answer = post(port, "/predict", json={"inputs": [
            {"name": "INPUT0", "datatype": "FP32", "shape": [4], "data": X.tolist()}]})
        assert answer.status_code == 200, answer.text
        assert answer.json()["outputs"][0]["data"] == (X + 4.0).tolist()
    finally:
        server.stop()
    assert "vertex%2Fadd_offset%2F1%2Fmodel.py" in media_gets(proxy)
