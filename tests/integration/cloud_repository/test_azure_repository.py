"""Model repositories on Azure Blob Storage (as://account/container/path),
served from Azurite (storage_emulators.py), which checks every Shared Key
signature, through a recording proxy that shows what inferd asked for. The
endpoint comes from AZURE_STORAGE_CONNECTION_STRING's BlobEndpoint."""

from __future__ import annotations

import urllib.parse

import pytest

from bucket_models import assert_serves_both, cache_flag, model_py, offset_served, repository_files
from failed_start import run_to_exit
from recording_proxy import RecordingProxy, behind_proxy
from storage_emulators import Azurite
from util import wait_until

CONTAINER = "models"
ACCOUNT = Azurite.ACCOUNT


@pytest.fixture(scope="module")
def azurite(tmp_path_factory):
    with behind_proxy(Azurite(tmp_path_factory.mktemp("azurite") / "azurite.log")) as both:
        both[0].create_container(CONTAINER)
        yield both


def connection_string(proxy: RecordingProxy, key: str = Azurite.KEY) -> str:
    return (f"DefaultEndpointsProtocol=http;AccountName={ACCOUNT};AccountKey={key};"
            f"BlobEndpoint={proxy.url}/{ACCOUNT};")


@pytest.fixture
def azure_env(azurite, monkeypatch, tmp_path):
    """inferd's environment: Azurite's account (through the proxy) by connection string."""
    _, proxy = azurite
    monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING", connection_string(proxy))
    for name in ("AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_KEY", "TRITON_CLOUD_CREDENTIAL_PATH"):
        monkeypatch.delenv(name, raising=False)
    proxy.clear()
    return tmp_path


def blob_gets(proxy: RecordingProxy) -> list[str]:
    """The blobs downloaded (GETs of a blob, not of the container's listing), in order."""
    prefix = f"/{ACCOUNT}/{CONTAINER}/"
    return [s.path.split("?")[0][len(prefix):] for s in proxy.seen()
            if s.method == "GET" and s.path.startswith(prefix)]


def test_serves_a_python_model_and_an_identity_model_from_a_container(azurite, azure_env,
                                                                       inferd):
    emulator, proxy = azurite
    emulator.put_tree(CONTAINER, "serve", repository_files(offset=1.0))
    server = inferd([], extra_args=[f"--model-repository=as://{ACCOUNT}/{CONTAINER}/serve",
                                    cache_flag(azure_env)])
    assert_serves_both(server, offset=1.0)
    assert sorted(blob_gets(proxy)) == sorted(f"serve/{name}" for name in repository_files())
    # Azurite answered them all: every request was signed with the account's Shared Key.
    assert all(s.headers.get("Authorization", "").startswith(f"SharedKey {ACCOUNT}:")
               for s in proxy.seen())


def test_poll_downloads_again_only_the_blob_that_changed(azurite, azure_env, inferd):
    emulator, proxy = azurite
    emulator.put_tree(CONTAINER, "poll", repository_files(offset=1.0))
    server = inferd([], extra_args=[f"--model-repository=as://{ACCOUNT}/{CONTAINER}/poll",
                                    cache_flag(azure_env), "--model-control-mode=poll",
                                    "--repository-poll-secs=1"])
    assert offset_served(server) == 1.0
    proxy.clear()
    emulator.put(CONTAINER, "poll/add_offset/1/model.py", model_py(2.0))
    wait_until(lambda: offset_served(server) == 2.0, timeout=30,
               what="add_offset reloaded with the new model.py")
    assert blob_gets(proxy) == ["poll/add_offset/1/model.py"]
    assert_serves_both(server, offset=2.0)


def test_a_sas_token_ending_the_url_authorizes_and_stays_out_of_the_log(azurite, azure_env,
                                                                         inferd, monkeypatch):
    emulator, proxy = azurite
    emulator.put_tree(CONTAINER, "shared", repository_files(offset=5.0))
    # The endpoint alone: no account key anywhere, the token is all inferd has.
    monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING", f"BlobEndpoint={proxy.url}/{ACCOUNT};")
    sas = emulator.account_sas()
    server = inferd([], extra_args=[
        f"--model-repository=as://{ACCOUNT}/{CONTAINER}/shared?{sas}", cache_flag(azure_env)])
    assert_serves_both(server, offset=5.0)
    # This repository's requests (the poll test's server still lists its own meanwhile).
    seen = [s for s in proxy.seen() if "shared" in s.path]
    assert seen and all("sig=" in s.path and "Authorization" not in s.headers for s in seen)
    signature = urllib.parse.parse_qs(sas)["sig"][0]
    assert signature not in server.log() and urllib.parse.quote(signature) not in server.log()


def test_a_wrong_key_is_refused_with_azures_error(azurite, azure_env, monkeypatch):
    emulator, proxy = azurite
    emulator.put_tree(CONTAINER, "denied", repository_files())
    monkeypatch.setenv("AZURE_STORAGE_CONNECTION_STRING",
                       connection_string(proxy, key="AAAA" + Azurite.KEY[4:]))
    run = run_to_exit([f"--model-repository=as://{ACCOUNT}/{CONTAINER}/denied",
                       cache_flag(azure_env)])
    out = run.stdout + run.stderr
    assert run.returncode != 0
    assert f"as://{ACCOUNT}/{CONTAINER}/denied: AuthorizationFailure (HTTP 403)" in out, out


def test_a_container_gone_fails_the_polls_and_the_models_keep_serving(azurite, azure_env,
                                                                       inferd):
    emulator, _ = azurite
    emulator.create_container("doomed")
    emulator.put_tree("doomed", "repo", repository_files(offset=1.0))
    server = inferd([], extra_args=[f"--model-repository=as://{ACCOUNT}/doomed/repo",
                                    cache_flag(azure_env), "--model-control-mode=poll",
                                    "--repository-poll-secs=1"])
    emulator.delete_container("doomed")
    wait_until(lambda: f"as://{ACCOUNT}/doomed/repo: ContainerNotFound (HTTP 404)"
               in server.log(), timeout=30, what="a poll refused for the missing container")
    assert_serves_both(server, offset=1.0)
