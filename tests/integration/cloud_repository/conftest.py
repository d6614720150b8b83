"""Fixtures of the s3:// repository tests: one moto S3 server per module (IAM
checks on: inferd's SigV4 signatures are verified), a RecordingProxy in front
of it, and a factory that starts inferd on s3:// URLs through the proxy with the
AWS variables of moto's key."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from recording_proxy import RecordingProxy  # noqa: E402
from s3_server import MotoS3  # noqa: E402
from util import START_TIMEOUT_S, InferdServer  # noqa: E402

AWS_VARIABLES = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
                 "AWS_DEFAULT_REGION", "AWS_REGION", "AWS_ENDPOINT_URL", "AWS_PROFILE",
                 "TRITON_CLOUD_CREDENTIAL_PATH", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"]


@pytest.fixture(scope="module")
def moto(tmp_path_factory):
    server = MotoS3(tmp_path_factory.mktemp("moto") / "moto.log")
    server.start_auth()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def proxy(moto):
    recording_proxy = RecordingProxy(moto.port)
    yield recording_proxy
    recording_proxy.stop()


@pytest.fixture(scope="module")
def aws_env(moto):
    """The process environment inferd inherits: moto's key, nothing from the shell."""
    saved = {name: os.environ.get(name) for name in AWS_VARIABLES}
    for name in AWS_VARIABLES:
        os.environ.pop(name, None)
    os.environ.update({"AWS_ACCESS_KEY_ID": moto.key_id, "AWS_SECRET_ACCESS_KEY": moto.secret,
                       "AWS_DEFAULT_REGION": "us-east-1"})
    yield os.environ
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(scope="module")
def s3_inferd(aws_env, tmp_path_factory):
    """Factory: s3_inferd(urls, extra_args=(), local=(), wait_for="ready") -> InferdServer
    on the given repository URLs (and local folders), stopped at the module's end."""
    started: list[InferdServer] = []

    def start(urls, extra_args=(), local=(), wait_for="ready") -> InferdServer:
        args = [*(f"--model-repository={url}" for url in urls), *extra_args]
        if not any(a.startswith("--model-repository-cache-directory") for a in args):
            cache = tmp_path_factory.mktemp("cache")
            args.append(f"--model-repository-cache-directory={cache}")
        server = InferdServer(list(local), tmp_path_factory.mktemp("log") / "inferd.log",
                              extra_args=args, wait_for=wait_for,
                              start_timeout_s=2 * START_TIMEOUT_S)
        started.append(server)
        return server

    yield start
    for server in started:
        if server.process.poll() is None:
            server.stop()
