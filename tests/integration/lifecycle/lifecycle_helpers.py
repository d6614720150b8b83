"""Helpers for the model-lifecycle integration tests: identity-model configs with
the test knobs (execute_delay_ms, record_file, warmup, instances, version
policy), the repository API (index / load / unload), inference that reports
which version answered, the identity backend's record file, bounded waiting,
and a pool of client threads that keeps requests in flight during reloads.

Everything here talks to the real binary over HTTP or reads files it wrote.
"""

from __future__ import annotations

import base64
import json
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import requests

from util import REQUEST_TIMEOUT_S, InferdServer, identity_config, write_repository
from util import wait_until as util_wait_until

DIMS = (4,)
PAYLOAD = [1.0, 2.0, 3.0, 4.0]


# ---------------------------------------------------------------------------
# Model configurations


def model_config(name: str, *, dims: Sequence[int] = DIMS, delay_ms: int = 0,
                 record: Path | None = None, warmup_count: int = 0, warmup_extra: str = "",
                 instances: int = 1, version_policy: str | None = None,
                 label_file: str | None = None, extra: str = "") -> str:
    """config.pbtxt of an FP32 INPUT0 -> OUTPUT0 identity model.

    warmup_count > 0 adds one zero_data warmup sample named "w" run that many
    times (the identity backend records it with id "warmup:w"); `warmup_extra`
    replaces the sample's inputs block when given (to make it fail)."""
    def string_parameter(key, value):
        return f'parameters {{ key: "{key}" value: {{ string_value: "{value}" }} }}'

    parts = [extra]
    if delay_ms:
        parts.append(string_parameter("execute_delay_ms", delay_ms))
    if record is not None:
        parts.append(string_parameter("record_file", record))
    parts.append(f"instance_group [ {{ kind: KIND_CPU count: {instances} }} ]")
    if warmup_count:
        inputs = warmup_extra or (
            'inputs { key: "INPUT0" value { data_type: TYPE_FP32 dims: [ '
            + ", ".join(str(d) for d in dims) + " ] zero_data: true } }")
        parts.append(f'model_warmup [ {{ name: "w" batch_size: 1 {inputs}'
                     f" count: {warmup_count} }} ]")
    text = identity_config(name, [("INPUT0", "OUTPUT0", "FP32", dims)], 0,
                           version_policy=version_policy,
                           extra="\n".join(p for p in parts if p) + "\n")
    if label_file:
        text = text.replace('name: "OUTPUT0"',
                            f'name: "OUTPUT0"\n    label_filename: "{label_file}"', 1)
    return text


def model_config_json(name: str, *, dims: Sequence[int] = DIMS, record: Path | None = None,
                      delay_ms: int = 0, warmup_count: int = 0, label_file: str | None = None,
                      version_policy: dict | None = None) -> str:
    """The same model as model_config() in the JSON form the load API's
    "config" parameter takes."""
    output = {"name": "OUTPUT0", "data_type": "TYPE_FP32", "dims": list(dims)}
    if label_file:
        output["label_filename"] = label_file
    config: dict = {
        "name": name,
        "backend": "identity",
        "max_batch_size": 0,
        "input": [{"name": "INPUT0", "data_type": "TYPE_FP32", "dims": list(dims)}],
        "output": [output],
        "instance_group": [{"kind": "KIND_CPU", "count": 1}],
    }
    params = {}
    if record is not None:
        params["record_file"] = {"string_value": str(record)}
    if delay_ms:
        params["execute_delay_ms"] = {"string_value": str(delay_ms)}
    if params:
        config["parameters"] = params
    if version_policy is not None:
        config["version_policy"] = version_policy
    if warmup_count:
        config["model_warmup"] = [{
            "name": "w", "batch_size": 1, "count": warmup_count,
            "inputs": {"INPUT0": {"data_type": "TYPE_FP32", "dims": list(dims),
                                  "zero_data": True}}}]
    return json.dumps(config)


def b64(data: bytes | str) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


# ---------------------------------------------------------------------------
# The repository API


def index(server: InferdServer, ready: bool | None = None) -> list[dict]:
    resp = server.post("/v2/repository/index",
                       json=({} if ready is None else {"ready": ready}))
    assert resp.status_code == 200, f"index: HTTP {resp.status_code}: {resp.text}"
    body = resp.json()
    assert isinstance(body, list), body
    return body


def entries(server: InferdServer, name: str) -> list[dict]:
    """The index rows of model `name`."""
    return [e for e in index(server) if e["name"] == name]


def states(server: InferdServer, name: str) -> dict:
    """{version (str, or None for a whole-model row): state} of model `name`."""
    return {e.get("version"): e.get("state") for e in entries(server, name)}


def ready_versions(server: InferdServer, name: str) -> list[int]:
    return sorted(int(e["version"]) for e in entries(server, name)
                  if e.get("state") == "READY" and "version" in e)


def load(server: InferdServer, name: str, *, config: str | None = None,
         files: dict[str, bytes | str] | None = None, parameters: dict | None = None,
         timeout: float = 30.0) -> requests.Response:
    params = dict(parameters or {})
    if config is not None:
        params["config"] = config
    for rel, content in (files or {}).items():
        params["file:" + rel] = b64(content)
    kwargs = {"json": {"parameters": params}} if params else {}
    return server.post(f"/v2/repository/models/{name}/load", timeout=timeout, **kwargs)


def unload(server: InferdServer, name: str, *, dependents: bool | None = None,
           timeout: float = 30.0) -> requests.Response:
    kwargs = ({} if dependents is None
              else {"json": {"parameters": {"unload_dependents": dependents}}})
    return server.post(f"/v2/repository/models/{name}/unload", timeout=timeout, **kwargs)


def is_ready(server: InferdServer) -> bool:
    code = server.get("/v2/health/ready").status_code
    assert code in (200, 400), f"/v2/health/ready answered {code}"
    return code == 200


def model_ready(server: InferdServer, name: str, version: int | None = None) -> bool:
    path = f"/v2/models/{name}" + (f"/versions/{version}" if version else "") + "/ready"
    return server.get(path).status_code == 200


# ---------------------------------------------------------------------------
# Inference


def infer(server: InferdServer, name: str, version: int | None = None,
          session: requests.Session | None = None, request_id: str | None = None,
          timeout: float = REQUEST_TIMEOUT_S) -> requests.Response:
    body: dict = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": list(DIMS),
                              "data": PAYLOAD}]}
    if request_id is not None:
        body["id"] = request_id
    path = f"/v2/models/{name}" + (f"/versions/{version}" if version else "") + "/infer"
    return (session or requests).post(server.url + path, json=body, timeout=timeout)


def infer_version(server: InferdServer, name: str, version: int | None = None) -> int:
    """Infers once (must succeed, echoing the input) and returns model_version."""
    resp = infer(server, name, version)
    assert resp.status_code == 200, f"infer {name}: HTTP {resp.status_code}: {resp.text}"
    body = resp.json()
    assert body["model_name"] == name
    assert body["outputs"][0]["data"] == PAYLOAD
    return int(body["model_version"])


# ---------------------------------------------------------------------------
# The identity backend's record file


@dataclass
class Execution:
    instance: str
    rows: int
    start_ns: int
    end_ns: int
    ids: list[str]


def read_record(path: Path) -> list[Execution]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        parts = line.split(" ")
        if len(parts) < 4:
            continue  # a line being written
        ids = parts[4].split(",") if len(parts) > 4 and parts[4] else []
        out.append(Execution(parts[0], int(parts[1]), int(parts[2]), int(parts[3]), ids))
    return out


def warmups(path: Path, sample: str = "w") -> list[Execution]:
    return [e for e in read_record(path) if f"warmup:{sample}" in e.ids]


# ---------------------------------------------------------------------------
# Waiting


def wait_until(predicate: Callable[[], object], timeout_s: float, what: str,
               interval_s: float = 0.05):
    """Polls `predicate` until it returns a truthy value (returned) or fails
    after `timeout_s` naming `what`; a failed assertion, request or lookup in
    the predicate counts as "not yet"."""
    return util_wait_until(predicate, timeout=timeout_s, what=what, interval=interval_s,
                           ignore=(AssertionError, requests.RequestException, KeyError,
                                   ValueError))


POLL_CANARY = "poll_canary"


def wait_for_polls(server: InferdServer, repo: Path, timeout_s: float,
                   meanwhile: Callable[[], object] = lambda: None) -> None:
    """Returns once the repository poller (POLL mode) has run at least three
    whole polls from now, each scanning every model of `repo`: a new model
    folder, POLL_CANARY, is loaded only once two polls in a row saw it
    unchanged, and after it is removed a third poll unloads it (a poll loads
    what it decided to before it unloads). `meanwhile()` is called before each
    check, to keep doing something while the polls run."""
    write_repository(repo, {POLL_CANARY: model_config(POLL_CANARY)})

    def canary_ready():
        meanwhile()
        return states(server, POLL_CANARY) == {"1": "READY"}

    wait_until(canary_ready, timeout_s, f"{POLL_CANARY} loaded by two polls")
    shutil.rmtree(repo / POLL_CANARY)

    def canary_gone():
        meanwhile()
        return "READY" not in states(server, POLL_CANARY).values()

    wait_until(canary_gone, timeout_s, f"{POLL_CANARY} unloaded by a third poll")


# ---------------------------------------------------------------------------
# Clients that keep requests in flight


@dataclass
class Answer:
    sent: float  # time.monotonic() at send
    received: float
    version: int


@dataclass
class ClientPool:
    """`threads` clients, each sending requests to `model` back to back (one
    keep-alive connection each) until stop() or until `max_seconds` pass or
    `max_requests` were sent in all. Every non-200, malformed answer or
    exception is kept in `failures`."""

    server: InferdServer
    model: str
    threads: int = 4
    max_seconds: float = 90.0
    max_requests: int = 200_000
    answers: list[Answer] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def __post_init__(self):
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._sent = 0
        self._workers = [threading.Thread(target=self._run, args=(i,), daemon=True)
                         for i in range(self.threads)]

    def __enter__(self) -> "ClientPool":
        for worker in self._workers:
            worker.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        self._stop.set()
        for worker in self._workers:
            worker.join(timeout=REQUEST_TIMEOUT_S + 5)
        assert not any(w.is_alive() for w in self._workers), "a client thread did not stop"

    def count(self) -> int:
        with self._lock:
            return len(self.answers)

    def _run(self, index: int) -> None:
        deadline = time.monotonic() + self.max_seconds
        n = 0
        with requests.Session() as session:
            while not self._stop.is_set() and time.monotonic() < deadline:
                with self._lock:
                    if self._sent >= self.max_requests:
                        return
                    self._sent += 1
                n += 1
                sent = time.monotonic()
                try:
                    resp = infer(self.server, self.model, session=session,
                                 request_id=f"c{index}-{n}")
                    received = time.monotonic()
                    if resp.status_code != 200:
                        raise AssertionError(f"HTTP {resp.status_code}: {resp.text[:300]}")
                    body = resp.json()
                    if body["outputs"][0]["data"] != PAYLOAD:
                        raise AssertionError(f"wrong output: {body}")
                    answer = Answer(sent, received, int(body["model_version"]))
                except Exception as exc:  # noqa: BLE001 - every failure counts
                    with self._lock:
                        self.failures.append(f"client {index} request {n}: {exc!r}")
                    continue
                with self._lock:
                    self.answers.append(answer)
