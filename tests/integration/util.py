"""Helpers for the black-box integration tests: model repositories, the inferd
process, and the KServe v2 wire format (JSON and binary tensor extension).

Nothing here imports server code: the tests only see what a user sees, the
binary, its flags, its log and its HTTP and gRPC ports.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence, TypeVar

import numpy as np
import requests

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLES_MODELS = REPO_ROOT / "examples" / "models"

# Bounds, kept short so a hung server fails fast rather than stalling the suite.
START_TIMEOUT_S = 20.0
STOP_TIMEOUT_S = 10.0
REQUEST_TIMEOUT_S = 10.0
WAIT_TIMEOUT_S = 10.0  # default bound of wait_until
POLL_INTERVAL_S = 0.01  # pause between two checks of a polled state

_STARTED_RE = re.compile(r"Started HTTPService at (\S+):(\d+)")
_STARTED_GRPC_RE = re.compile(r"Started GRPCInferenceService at (\S+):(\d+)")
_STARTED_METRICS_RE = re.compile(r"Started Metrics Service at (\S+):(\d+)")


# ---------------------------------------------------------------------------
# Paths


def inferd_binary() -> Path:
    """The server under test: $INFERD_BINARY or <repo>/build/inferd."""
    return Path(os.environ.get("INFERD_BINARY", REPO_ROOT / "build" / "inferd")).resolve()


def backend_directory() -> Path:
    """$INFERD_BACKEND_DIRECTORY, else the `backends` folder beside the binary."""
    env = os.environ.get("INFERD_BACKEND_DIRECTORY")
    if env:
        return Path(env).resolve()
    return inferd_binary().parent / "backends"


# ---------------------------------------------------------------------------
# Datatypes

# KServe datatype -> config.pbtxt data_type.
CONFIG_TYPE = {
    "BOOL": "TYPE_BOOL",
    "UINT8": "TYPE_UINT8",
    "UINT16": "TYPE_UINT16",
    "UINT32": "TYPE_UINT32",
    "UINT64": "TYPE_UINT64",
    "INT8": "TYPE_INT8",
    "INT16": "TYPE_INT16",
    "INT32": "TYPE_INT32",
    "INT64": "TYPE_INT64",
    "FP16": "TYPE_FP16",
    "BF16": "TYPE_BF16",
    "FP32": "TYPE_FP32",
    "FP64": "TYPE_FP64",
    "BYTES": "TYPE_STRING",
}
ALL_DATATYPES = list(CONFIG_TYPE)

# numpy dtype that holds values of each datatype on the test side. BF16 values are
# held as float32 (numpy has no bfloat16) and must be exactly representable.
NUMPY_DTYPE = {
    "BOOL": np.bool_,
    "UINT8": np.uint8,
    "UINT16": np.uint16,
    "UINT32": np.uint32,
    "UINT64": np.uint64,
    "INT8": np.int8,
    "INT16": np.int16,
    "INT32": np.int32,
    "INT64": np.int64,
    "FP16": np.float16,
    "BF16": np.float32,
    "FP32": np.float32,
    "FP64": np.float64,
    "BYTES": np.object_,
}


# Two batch rows per datatype, chosen at the edges of each type; floats are
# exactly representable in the type (BF16 values have 8-bit mantissas).
EDGE_VALUES = {
    "BOOL": [[True, False, True], [False, False, True]],
    "UINT8": [[0, 255, 7], [128, 1, 254]],
    "UINT16": [[0, 65535, 300], [32768, 1, 65534]],
    "UINT32": [[0, 2**32 - 1, 70000], [2**31, 1, 123456789]],
    "UINT64": [[0, 2**64 - 1, 2**53 + 1], [2**63, 1, 9007199254740993]],
    "INT8": [[-128, 127, 0], [-1, 1, 42]],
    "INT16": [[-32768, 32767, 0], [-1, 1, 1234]],
    "INT32": [[-2**31, 2**31 - 1, 0], [-1, 1, 123456789]],
    "INT64": [[-2**63, 2**63 - 1, 0], [-(2**53) - 1, 2**53 + 1, 42]],
    "FP16": [[0.5, -2.0, 65504.0], [0.0009765625, -0.0, 1.5]],
    "BF16": [[1.0, -2.5, 0.15625], [65536.0, -1024.0, 2.0**127]],
    "FP32": [[1.5, -2.25, 3.4028234663852886e38], [0.1, 1.0e-30, -7.0]],
    "FP64": [[0.1, 1.0 / 3.0, -1.0e300], [2.5, 2.0**-1000, -0.0]],
    "BYTES": [[b"hello", b"", b"inferd"], [b"caf\xc3\xa9", b"a b\tc", b"x" * 300]],
}


# ---------------------------------------------------------------------------
# Waiting on observable state

T = TypeVar("T")


def wait_until(predicate: Callable[[], T], timeout: float = WAIT_TIMEOUT_S,
               what: str | Callable[[], str] = "", interval: float = POLL_INTERVAL_S,
               ignore: tuple = ()) -> T:
    """Polls `predicate()` until it returns a truthy value, which is returned.

    Tests wait on state the server shows (a statistics counter, a log line, a
    file, an index entry), never on a sleep: the pause between two checks only
    spares the CPU. Fails with `what` and the last value seen when the state
    has not come within `timeout` seconds (`what` may be a function, called
    then, to describe what was seen last). Exceptions of the types in `ignore`
    count as "not yet" (the last one is reported)."""
    deadline = time.monotonic() + timeout
    last: object = None
    while True:
        try:
            value = predicate()
        except ignore as exc:  # a state that cannot be read yet
            last, value = exc, None
        else:
            last = value
        if value:
            return value
        if time.monotonic() >= deadline:
            described = what() if callable(what) else what
            raise AssertionError(f"{described or 'the awaited state'} not reached within "
                                 f"{timeout}s (last: {last!r})")
        time.sleep(interval)


# ---------------------------------------------------------------------------
# Model repositories


@dataclass
class Model:
    """One model folder: config.pbtxt text (None: no config file), version folders,
    and extra files as {relative path: text}."""

    config: str | None
    versions: Sequence[int] = (1,)
    files: Mapping[str, str] = field(default_factory=dict)


def tensor_block(name: str, datatype: str, dims: Sequence[int]) -> str:
    return (
        "  {\n"
        f'    name: "{name}"\n'
        f"    data_type: {CONFIG_TYPE[datatype]}\n"
        f"    dims: [ {', '.join(str(d) for d in dims)} ]\n"
        "  }"
    )


def identity_config(
    name: str,
    tensors: Sequence[tuple[str, str, str, Sequence[int]]],
    max_batch_size: int = 0,
    version_policy: str | None = None,
    extra: str = "",
) -> str:
    """config.pbtxt for an identity-backend model; `tensors` lists
    (input name, output name, datatype, dims): output i copies input i."""
    inputs = ",\n".join(tensor_block(i, dt, dims) for i, _, dt, dims in tensors)
    outputs = ",\n".join(tensor_block(o, dt, dims) for _, o, dt, dims in tensors)
    text = (
        f'name: "{name}"\n'
        'backend: "identity"\n'
        f"max_batch_size: {max_batch_size}\n"
        f"input [\n{inputs}\n]\n"
        f"output [\n{outputs}\n]\n"
    )
    if version_policy:
        text += f"version_policy: {version_policy}\n"
    return text + extra


def single_identity(name: str, datatype: str, dims: Sequence[int], max_batch_size: int = 0,
                    **kwargs) -> str:
    """INPUT0 -> OUTPUT0 identity model."""
    return identity_config(name, [("INPUT0", "OUTPUT0", datatype, dims)], max_batch_size, **kwargs)


def write_repository(root: Path, models: Mapping[str, str | Model]) -> Path:
    """Writes a model repository under `root` (created if needed). A value that is
    a plain string is the config.pbtxt of a model with version folder 1/."""
    root.mkdir(parents=True, exist_ok=True)
    for name, spec in models.items():
        model = spec if isinstance(spec, Model) else Model(config=spec)
        folder = root / name
        folder.mkdir()
        if model.config is not None:
            (folder / "config.pbtxt").write_text(model.config)
        for version in model.versions:
            (folder / str(version)).mkdir()
        for rel, text in model.files.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    return root


def touch(path: Path) -> None:
    """Gives `path` a modification time later than both its own and now, so that a
    plain repository load sees its model's files changed and reloads it (an
    unchanged model is left alone, as Triton does)."""
    stamp = max(time.time_ns(), path.stat().st_mtime_ns + 1_000_000_000)
    os.utime(path, ns=(stamp, stamp))


# ---------------------------------------------------------------------------
# The server process


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


# ---------------------------------------------------------------------------
# Server observations: statistics and metrics


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


def model_stats(server: InferdServer, model: str) -> dict:
    """The one entry of /v2/models/<model>/stats."""
    resp = server.get(f"/v2/models/{model}/stats")
    assert resp.status_code == 200, f"stats: HTTP {resp.status_code}: {resp.text}"
    stats = resp.json()["model_stats"]
    assert len(stats) == 1, stats
    return stats[0]


def settled_stats(server: InferdServer, model: str,
                  timeout: float = WAIT_TIMEOUT_S) -> dict:
    """model_stats once every execution that started has been recorded whole.

    An execution's compute times and counts are recorded when the backend's
    execute returns, after its responses went out (as Triton's backends report
    them), while its queue time is counted as it starts: a client that has its
    answers may read statistics a moment before the last execution's compute
    part. Equal queue and compute_infer counts mean nothing is missing."""
    def settled():
        stats = model_stats(server, model)
        inference = stats["inference_stats"]
        return stats if inference["compute_infer"]["count"] == inference["queue"]["count"] \
            else None
    return wait_until(settled, timeout, f"statistics of {model!r} settled "
                      "(compute_infer count equal to queue count)")


def executions_started(server: InferdServer, model: str) -> int:
    """execution_count of `model`: counted as each backend execution starts."""
    return model_stats(server, model)["execution_count"]


def metrics_text(server: InferdServer, session: requests.Session | None = None) -> str:
    resp = (session or requests).get(f"http://127.0.0.1:{server.metrics_port}/metrics", timeout=5)
    assert resp.status_code == 200, f"metrics: HTTP {resp.status_code}: {resp.text}"
    return resp.text


def pending_count(server: InferdServer, model: str,
                  session: requests.Session | None = None) -> int:
    """nv_inference_pending_request_count{model=...}: the requests queued, not
    yet handed to an instance."""
    prefix = f'nv_inference_pending_request_count{{model="{model}",'
    for line in metrics_text(server, session).splitlines():
        if line.startswith(prefix):
            return int(float(line.rsplit(" ", 1)[1]))
    raise AssertionError(f"no pending count for model {model!r} in /metrics")


def record_lines(path: Path) -> list[str]:
    """The lines of an identity backend's record_file (one per finished execution)."""
    if not path.exists():
        return []
    return [line for line in path.read_text().splitlines() if line.strip()]


def idle(server: InferdServer, model: str, record_file: Path) -> bool:
    """True when `model` (an identity model recording into `record_file`) has
    nothing queued and nothing executing: no request pending, and every
    execution that started has ended and been recorded (the backend appends
    its line when an execution ends). A request the server wrongly kept would
    still be queued, or executing, or be recorded by then. For a model without
    warmup (warmup runs are recorded but not counted as executions).

    Read in this order so that a request between its queue and its execution
    (pending already 0, execution not yet counted) cannot look idle unless that
    gap outlasts three HTTP round trips."""
    if pending_count(server, model) != 0:
        return False
    started = executions_started(server, model)
    finished = len(record_lines(record_file))
    return finished == started and executions_started(server, model) == started


def wait_idle(server: InferdServer, model: str, record_file: Path,
              timeout: float = WAIT_TIMEOUT_S) -> None:
    wait_until(lambda: idle(server, model, record_file), timeout,
               f"model {model!r} idle (nothing queued, every started execution recorded)")


# ---------------------------------------------------------------------------
# Wire format: binary tensor data and responses


def bf16_bits(values: np.ndarray) -> np.ndarray:
    """BF16 encoding of float32 values: the upper 16 bits (values must be exact)."""
    bits32 = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    assert np.all(bits32 & 0xFFFF == 0), "value not exactly representable in BF16"
    return (bits32 >> 16).astype(np.uint16)


def encode_tensor(array: np.ndarray, datatype: str) -> bytes:
    """Raw bytes of `array` as the binary tensor extension carries them."""
    if datatype == "BYTES":
        out = bytearray()
        for item in array.flatten(order="C"):
            raw = item if isinstance(item, bytes) else str(item).encode("utf-8")
            out += len(raw).to_bytes(4, "little") + raw
        return bytes(out)
    if datatype == "BF16":
        return bf16_bits(array).astype("<u2").tobytes()
    if datatype == "BOOL":
        return np.ascontiguousarray(array, dtype=np.bool_).tobytes()
    return np.ascontiguousarray(array, dtype=np.dtype(NUMPY_DTYPE[datatype]).newbyteorder("<")).tobytes()


def decode_tensor(raw: bytes, datatype: str, shape: Sequence[int]) -> np.ndarray:
    if datatype == "BYTES":
        items, offset = [], 0
        while offset < len(raw):
            length = int.from_bytes(raw[offset:offset + 4], "little")
            offset += 4
            items.append(raw[offset:offset + length])
            offset += length
        return np.array(items, dtype=np.object_).reshape(shape)
    if datatype == "BF16":
        bits = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
        return bits.view(np.float32).reshape(shape)
    return np.frombuffer(raw, dtype=np.dtype(NUMPY_DTYPE[datatype]).newbyteorder("<")).reshape(shape)


def json_data(array: np.ndarray, datatype: str) -> list:
    """Row-major flattened JSON values for the "data" field."""
    flat = array.flatten(order="C")
    if datatype == "BYTES":
        return [x.decode("utf-8") if isinstance(x, bytes) else str(x) for x in flat]
    if datatype == "BOOL":
        return [bool(x) for x in flat]
    if datatype in ("FP16", "BF16", "FP32", "FP64"):
        return [float(x) for x in flat]
    return [int(x) for x in flat]


def from_json_data(data: list, datatype: str, shape: Sequence[int]) -> np.ndarray:
    if datatype == "BYTES":
        return np.array([s.encode("utf-8") for s in _flatten(data)], dtype=np.object_).reshape(shape)
    return np.array(list(_flatten(data)), dtype=NUMPY_DTYPE[datatype]).reshape(shape)


def _flatten(data):
    for x in data:
        if isinstance(x, list):
            yield from _flatten(x)
        else:
            yield x


def binary_request(inputs: Sequence[tuple[str, str, np.ndarray]],
                   outputs: Sequence[str] | None = None,
                   binary_outputs: bool = True, **top_level) -> tuple[bytes, dict]:
    """(body, headers) for a binary-extension request. `inputs` are (name, datatype,
    array); every input travels as binary data after the JSON header."""
    header = {"inputs": [], **top_level}
    blobs = []
    for name, datatype, array in inputs:
        raw = encode_tensor(array, datatype)
        blobs.append(raw)
        header["inputs"].append({
            "name": name, "datatype": datatype, "shape": list(array.shape),
            "parameters": {"binary_data_size": len(raw)},
        })
    if outputs is not None:
        header["outputs"] = [{"name": o, "parameters": {"binary_data": binary_outputs}}
                             for o in outputs]
    head = json.dumps(header).encode("utf-8")
    headers = {"Inference-Header-Content-Length": str(len(head)),
               "Content-Type": "application/octet-stream"}
    return head + b"".join(blobs), headers


def json_request(inputs: Sequence[tuple[str, str, np.ndarray]],
                 outputs: Sequence[str] | None = None, **top_level) -> dict:
    """A pure-JSON request body (as a dict) for `inputs` (name, datatype, array)."""
    body = {"inputs": [
        {"name": n, "datatype": dt, "shape": list(a.shape), "data": json_data(a, dt)}
        for n, dt, a in inputs], **top_level}
    if outputs is not None:
        body["outputs"] = [{"name": o} for o in outputs]
    return body


@dataclass
class InferResponse:
    header: dict
    tensors: dict  # output name -> numpy array (BYTES as bytes objects)
    binary: dict  # output name -> True if it came as binary data


def parse_infer_response(resp: requests.Response) -> InferResponse:
    """Splits a 200 response into its JSON header and decoded output tensors."""
    assert resp.status_code == 200, f"HTTP {resp.status_code}: {resp.text[:2000]}"
    body = resp.content
    header_len = resp.headers.get("Inference-Header-Content-Length")
    if header_len is None:
        header, rest = json.loads(body), b""
    else:
        n = int(header_len)
        header, rest = json.loads(body[:n]), body[n:]
    tensors, binary, offset = {}, {}, 0
    for out in header.get("outputs", []):
        size = (out.get("parameters") or {}).get("binary_data_size")
        if size is not None:
            raw = rest[offset:offset + size]
            assert len(raw) == size, f"output {out['name']}: body shorter than binary_data_size"
            offset += size
            tensors[out["name"]] = decode_tensor(raw, out["datatype"], out["shape"])
            binary[out["name"]] = True
        else:
            tensors[out["name"]] = from_json_data(out["data"], out["datatype"], out["shape"])
            binary[out["name"]] = False
    assert offset == len(rest), f"{len(rest) - offset} unclaimed bytes after the outputs"
    return InferResponse(header, tensors, binary)


def assert_error(resp: requests.Response, status: int, *needles: str) -> str:
    """Asserts an error response: exact status, body {"error": "<message>"} whose
    message contains every needle (case-sensitive). Returns the message."""
    assert resp.status_code == status, (
        f"expected HTTP {status}, got {resp.status_code}: {resp.text[:2000]}")
    try:
        body = resp.json()
    except ValueError:
        raise AssertionError(f"error body is not JSON: {resp.text[:2000]!r}")
    assert isinstance(body, dict) and set(body) == {"error"}, f"error body: {body}"
    message = body["error"]
    assert isinstance(message, str) and message.strip(), f"empty error message: {body}"
    for needle in needles:
        assert needle in message, f"error message {message!r} does not mention {needle!r}"
    return message


def assert_equal_tensors(actual: np.ndarray, expected: np.ndarray, datatype: str) -> None:
    """Exact equality of values and shape (bit-exact for floats, NaN excluded)."""
    assert list(actual.shape) == list(expected.shape), f"shape {actual.shape} != {expected.shape}"
    if datatype == "BYTES":
        to_bytes = lambda x: x if isinstance(x, bytes) else str(x).encode("utf-8")  # noqa: E731
        assert [to_bytes(x) for x in actual.flatten()] == [to_bytes(x) for x in expected.flatten()]
        return
    want = np.asarray(expected, dtype=NUMPY_DTYPE[datatype])
    got = np.asarray(actual, dtype=NUMPY_DTYPE[datatype])
    assert got.tolist() == want.tolist(), f"{datatype}: {got.tolist()} != {want.tolist()}"
