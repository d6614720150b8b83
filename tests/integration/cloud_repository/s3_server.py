"""An S3-compatible store for the cloud repository tests: moto's server mode
(PyPI `moto[server]`, pinned in requirements-test.txt) started on a free port,
with IAM checks switched on after the setup, so every request inferd sends
must carry a valid AWS Signature V4 of a known key. The tests put a
RecordingProxy (recording_proxy.py) in front of it, which counts requests and
injects the faults moto cannot (throttling, truncated bodies), over real HTTP.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from util import wait_until  # noqa: E402

REGION = "us-east-1"
ADMIN_POLICY = json.dumps({"Version": "2012-10-17",
                           "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class MotoS3:
    """moto_server on 127.0.0.1:<port>; `start_auth()` creates an IAM user with
    an access key allowed everything and from then on checks every request's
    signature (moto's INITIAL_NO_AUTH_ACTION_COUNT set through its API)."""

    def __init__(self, log_path: Path):
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self._log = open(log_path, "wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_until(self._up, timeout=60)
        self.key_id, self.secret = "", ""

    def _up(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"moto_server exited with {self.process.returncode}")
        try:
            return requests.get(self.endpoint + "/moto-api/", timeout=1).status_code == 200
        except requests.ConnectionError:
            return False

    def client(self, service: str = "s3", key_id: str = "testing", secret: str = "testing",
               config=None):
        import boto3
        return boto3.client(service, endpoint_url=self.endpoint, region_name=REGION,
                            aws_access_key_id=key_id, aws_secret_access_key=secret, config=config)

    def new_key(self, user: str) -> tuple[str, str]:
        """An access key of a new IAM user allowed everything."""
        iam = self.client("iam", self.key_id or "testing", self.secret or "testing")
        iam.create_user(UserName=user)
        iam.put_user_policy(UserName=user, PolicyName="all", PolicyDocument=ADMIN_POLICY)
        key = iam.create_access_key(UserName=user)["AccessKey"]
        return key["AccessKeyId"], key["SecretAccessKey"]

    def start_auth(self) -> None:
        self.key_id, self.secret = self.new_key("inferd")
        requests.post(self.endpoint + "/moto-api/reset-auth", data=b"0", timeout=5).raise_for_status()

    def s3(self, checksums: bool = True):
        """boto3's S3 client with moto's key; `checksums` False: one that sends
        no flexible checksum (botocore computes CRC32 by default), so moto
        states none and only the ETag's MD5 tells the content."""
        from botocore.config import Config
        config = None if checksums else Config(request_checksum_calculation="when_required")
        return self.client("s3", self.key_id, self.secret, config)

    def upload(self, bucket: str, prefix: str, folder: Path, checksum: str | None = None,
               checksums: bool = True) -> None:
        """Every file under `folder` as <prefix>/<relative path>, with the flexible
        checksum `checksum` ("CRC32", "CRC32C", "CRC64NVME"; None: boto3's default,
        CRC32) or, `checksums` False, none."""
        s3 = self.s3(checksums)
        extra = {"ChecksumAlgorithm": checksum} if checksum else {}
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                key = f"{prefix}/{path.relative_to(folder).as_posix()}".lstrip("/")
                s3.put_object(Bucket=bucket, Key=key, Body=path.read_bytes(), **extra)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self._log.close()
