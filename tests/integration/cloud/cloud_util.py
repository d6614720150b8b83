"""Helpers for the SageMaker and Vertex AI endpoint tests: inferd started with
flags and an environment of its own, the ports it logs, free ports to hand it.

Nothing here imports server code: the tests see what a container platform
sees, the binary, its environment, its log and its ports.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Mapping, Sequence

import requests

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from util import (REPO_ROOT, REQUEST_TIMEOUT_S, START_TIMEOUT_S, STOP_TIMEOUT_S,  # noqa: E402
                  backend_directory, inferd_binary)

SAGEMAKER_STARTED = re.compile(r"Started Sagemaker HTTPService at (\S+):(\d+)")
VERTEX_STARTED = re.compile(r"Started Vertex AI HTTPService at (\S+):(\d+)")
HTTP_STARTED = re.compile(r"Started HTTPService at (\S+):(\d+)")

SAGEMAKER_BINARY = "application/vnd.sagemaker-triton.binary+json;json-header-size="
VERTEX_BINARY = "application/vnd.vertex-ai-triton.binary+json;json-header-size="

# Variables the cloud platforms set; cleared so the caller's shell cannot leak in.
CLOUD_VARIABLES = [
    "SAGEMAKER_BIND_TO_PORT", "SAGEMAKER_SAFE_PORT_RANGE", "SAGEMAKER_TRITON_THREAD_COUNT",
    "SAGEMAKER_TRITON_DEFAULT_MODEL_NAME", "SAGEMAKER_TRITON_PING_MODE",
    "SAGEMAKER_TRITON_OVERRIDE_PING_MODE", "SAGEMAKER_MULTI_MODEL", "AIP_MODE", "AIP_HTTP_PORT",
    "AIP_PREDICT_ROUTE", "AIP_HEALTH_ROUTE", "AIP_STORAGE_URI",
]


def free_ports(count: int) -> list[int]:
    """`count` distinct ports free right now (bound together, then released)."""
    sockets = []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for sock in sockets:
            sock.close()


class CloudServer:
    """inferd run with `args` (the backend directory added) and `env` on top of a
    clean environment (or `program` run with `args`). Use `port(regex)` for a port it logged, `stop()` to end it
    (SIGTERM, expects exit 0)."""

    def __init__(self, args: Sequence[str], env: Mapping[str, str], log_path: Path,
                 program: Sequence[str] | None = None):
        # `program`: a launch script to run instead of the binary (args follow it).
        if program is None:
            program = [str(inferd_binary()), f"--backend-directory={backend_directory()}",
                       "--log-verbose=1"]
        self.args = [*program, *args]
        environment = {k: v for k, v in os.environ.items() if k not in CLOUD_VARIABLES}
        environment.update(env)
        self.env = dict(env)
        self.nonzero_exit_expected = False  # set by wait_exit, or by a test
        self.log_path = log_path
        self._log_file = open(log_path, "wb")
        self.process = subprocess.Popen(self.args, stdout=self._log_file,
                                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        cwd=REPO_ROOT, env=environment)

    def log(self) -> str:
        if not self._log_file.closed:
            self._log_file.flush()
        return self.log_path.read_text(errors="replace")

    def describe(self, what: str) -> str:
        return (f"{what}\ncommand: {' '.join(self.args)}\nenv: {self.env}\n"
                f"--- inferd log ---\n{self.log()[-4000:]}")

    def port(self, started: re.Pattern) -> int:
        """The port of the first log line matching `started`."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            match = started.search(self.log())
            if match:
                return int(match.group(2))
            if self.process.poll() is not None:
                raise RuntimeError(self.describe(
                    f"inferd exited with code {self.process.returncode} before "
                    f"'{started.pattern}'"))
            time.sleep(0.05)
        raise TimeoutError(self.describe(f"no '{started.pattern}' within {START_TIMEOUT_S}s"))

    def wait_exit(self) -> int:
        """For a server expected to refuse to start: its exit code."""
        self.nonzero_exit_expected = True
        try:
            return self.process.wait(timeout=START_TIMEOUT_S)
        finally:
            self._log_file.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise AssertionError(self.describe("inferd did not exit after SIGTERM"))
        self._log_file.close()
        assert self.nonzero_exit_expected or self.process.returncode == 0, self.describe(
            f"inferd exited with code {self.process.returncode}, expected 0")


def get(port: int, path: str, **kwargs) -> requests.Response:
    kwargs.setdefault("timeout", REQUEST_TIMEOUT_S)
    return requests.get(f"http://127.0.0.1:{port}{path}", **kwargs)


def post(port: int, path: str, **kwargs) -> requests.Response:
    kwargs.setdefault("timeout", REQUEST_TIMEOUT_S)
    return requests.post(f"http://127.0.0.1:{port}{path}", **kwargs)
