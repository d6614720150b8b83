"""The inferd process under test: where its binary and backends are, starting
it on ephemeral ports with its log in a file, its clients, and stopping it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Iterable, Sequence

import requests

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES_MODELS = REPO_ROOT / "examples" / "models"

# Bounds, kept short so a hung server fails fast rather than stalling the suite.
START_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 10.0
REQUEST_TIMEOUT_S = 10.0

_STARTED_RE = re.compile(r"Started HTTPService at (\S+):(\d+)")
_STARTED_GRPC_RE = re.compile(r"Started GRPCInferenceService at (\S+):(\d+)")
_STARTED_METRICS_RE = re.compile(r"Started Metrics Service at (\S+):(\d+)")


def inferd_binary() -> Path:
    """The server under test: $INFERD_BINARY or <repo>/build/inferd."""
    return Path(os.environ.get("INFERD_BINARY", REPO_ROOT / "build" / "inferd")).resolve()


def backend_directory() -> Path:
    """$INFERD_BACKEND_DIRECTORY, else the `backends` folder beside the binary."""
    env = os.environ.get("INFERD_BACKEND_DIRECTORY")
    if env:
        return Path(env).resolve()
    return inferd_binary().parent / "backends"


class InferdServer:
    """A running inferd process on ephemeral ports, its log in a file.

    `url` is "http://127.0.0.1:<port>"; `address` is "127.0.0.1:<port>" (what
    tritonclient wants); `grpc_address` is the same for the gRPC port (None when
    the args turn gRPC off). Use `stop()` (SIGTERM, expects exit 0) when done.
    """

    def __init__(self, repositories: Iterable[Path], log_path: Path,
                 extra_args: Sequence[str] = (), wait_for: str = "ready",
                 start_timeout_s: float = START_TIMEOUT_S):
        binary = inferd_binary()
        if not binary.is_file():
            raise FileNotFoundError(
                f"inferd binary not found at {binary}; run `make build` or set INFERD_BINARY")
        self.repositories = [Path(r) for r in repositories]
        self.log_path = log_path
        self.args = [
            str(binary),
            *[f"--model-repository={r}" for r in self.repositories],
            # Unless the test picks its own: a fixed port would clash between servers.
            *([] if any(a.startswith("--http-port") for a in extra_args) else ["--http-port=0"]),
            *([] if any(a.startswith("--grpc-port") for a in extra_args) else ["--grpc-port=0"]),
            *([] if any(a.startswith("--metrics-port") for a in extra_args)
              else ["--metrics-port=0"]),
            f"--backend-directory={backend_directory()}",
            "--log-verbose=1",
            *extra_args,
        ]
        self._log_file = open(log_path, "wb")
        self.process = subprocess.Popen(
            self.args, stdout=self._log_file, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, cwd=REPO_ROOT)
        self.port = None
        self.grpc_port = None
        self.metrics_port = None
        metrics_on = not any(a.replace(" ", "=") in ("--allow-metrics=false", "--allow-metrics=0")
                             for a in extra_args)
        grpc_on = not any(a.replace(" ", "=") in ("--allow-grpc=false", "--allow-grpc=0")
                          for a in extra_args)
        try:
            self.port = self._wait_for_port(start_timeout_s)
            if grpc_on:
                self.grpc_port = self._wait_for_port(start_timeout_s, _STARTED_GRPC_RE)
            if metrics_on:
                self.metrics_port = self._wait_for_port(start_timeout_s, _STARTED_METRICS_RE)
            self._wait_for_health(wait_for, start_timeout_s)
        except BaseException:
            self.kill()
            raise

    # -- endpoints --------------------------------------------------------

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.address}"

    @property
    def grpc_address(self) -> str | None:
        return None if self.grpc_port is None else f"127.0.0.1:{self.grpc_port}"

    def get(self, path: str, **kwargs) -> requests.Response:
        kwargs.setdefault("timeout", REQUEST_TIMEOUT_S)
        return requests.get(self.url + path, **kwargs)

    def post(self, path: str, **kwargs) -> requests.Response:
        kwargs.setdefault("timeout", REQUEST_TIMEOUT_S)
        return requests.post(self.url + path, **kwargs)

    def client(self):
        """A genuine tritonclient.http client for this server."""
        import tritonclient.http as httpclient

        return httpclient.InferenceServerClient(
            url=self.address, connection_timeout=REQUEST_TIMEOUT_S,
            network_timeout=REQUEST_TIMEOUT_S)

    def grpc_client(self, **kwargs):
        """A genuine tritonclient.grpc client for this server's gRPC port."""
        import tritonclient.grpc as grpcclient

        return grpcclient.InferenceServerClient(url=self.grpc_address, **kwargs)

    # -- log ------------------------------------------------------------------

    def log(self) -> str:
        if not self._log_file.closed:
            self._log_file.flush()
        return self.log_path.read_text(errors="replace")

    def log_tail(self, chars: int = 4000) -> str:
        text = self.log()
        return text if len(text) <= chars else "...\n" + text[-chars:]

    def _describe(self, what: str) -> str:
        return (f"{what}\ncommand: {' '.join(self.args)}\n"
                f"--- inferd log ({self.log_path}) ---\n{self.log_tail()}")

    # -- start ----------------------------------------------------------------

    def _wait_for_port(self, timeout_s: float, started_re: re.Pattern = _STARTED_RE) -> int:
        """The port of the first log line matching `started_re` (HTTP by default)."""
        service = started_re.pattern.split(" at ")[0]
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            match = started_re.search(self.log())
            if match:
                return int(match.group(2))
            if self.process.poll() is not None:
                raise RuntimeError(self._describe(
                    f"inferd exited with code {self.process.returncode} before '{service}'"))
            time.sleep(0.05)
        raise TimeoutError(self._describe(
            f"inferd did not log '{service} at' within {timeout_s}s"))

    def _wait_for_health(self, wait_for: str, timeout_s: float) -> None:
        """wait_for: "ready" (server ready), "live", or "none"."""
        if wait_for == "none":
            return
        path = {"ready": "/v2/health/ready", "live": "/v2/health/live"}[wait_for]
        deadline = time.monotonic() + timeout_s
        last = None
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(self._describe(
                    f"inferd exited with code {self.process.returncode} while starting"))
            try:
                last = self.get(path, timeout=1.0).status_code
                if last == 200:
                    return
            except requests.RequestException as exc:
                last = repr(exc)
            time.sleep(0.05)
        raise TimeoutError(self._describe(
            f"{path} was not 200 within {timeout_s}s (last: {last})"))

    # -- stop -----------------------------------------------------------------

    def stop(self, sig: int = signal.SIGTERM, timeout_s: float = STOP_TIMEOUT_S) -> int:
        """Sends `sig`, waits for exit; raises unless the exit code is 0."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                self.kill()
                raise AssertionError(self._describe(
                    f"inferd did not exit within {timeout_s}s of signal {sig}"))
        self._log_file.close()
        code = self.process.returncode
        if code != 0:
            raise AssertionError(self._describe(f"inferd exited with code {code}, expected 0"))
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=STOP_TIMEOUT_S)
        self._log_file.close()


def lone_binary(folder: Path) -> Path:
    """A copy of the inferd binary in `folder`/bin, beside none of the modules
    (gRPC, HTTPS) it loads from its own folder."""
    lone = folder / "bin" / "inferd"
    lone.parent.mkdir()
    lone.write_bytes(inferd_binary().read_bytes())
    lone.chmod(0o755)
    return lone


def assert_serves_plain_http(binary: Path, repo: Path, log_path: Path, monkeypatch) -> None:
    """`binary` serves `repo` over plain HTTP with gRPC off: ready, then exits 0."""
    monkeypatch.setenv("INFERD_BACKEND_DIRECTORY", str(backend_directory()))
    monkeypatch.setenv("INFERD_BINARY", str(binary))
    server = InferdServer([repo], log_path, extra_args=["--allow-grpc=false"])
    try:
        assert server.get("/v2/health/ready").status_code == 200
    finally:
        assert server.stop() == 0
