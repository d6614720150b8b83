"""A rollout without failures, simulated on one machine (issue 35).

Three inferd replicas, each in its own network namespace joined to the root
namespace by a veth pair, behind nginx as an HTTP and gRPC load balancer with
passive health checks, under constant tritonclient load over both protocols. The replicas are replaced one
at a time as a Deployment rollout replaces pods: SIGTERM (readiness turns 503,
the grace period keeps serving, then the server drains and exits), wait for
exit code 0, start a new process in the same namespace, wait until it is
ready, next replica. Not one request may fail.

Needs root (network namespaces); `make deploy-test` runs it, as CI does, as
root. Where namespaces cannot be made the test fails, saying why: a skipped
rollout test would pass in silence.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))

from util import backend_directory, inferd_binary, single_identity, write_repository  # noqa: E402

NGINX = "/usr/sbin/nginx"
REPLICAS = 3
MODEL = "identity"
HTTP_THREADS = 4
GRPC_THREADS = 2
MIN_REQUESTS = 2000
MIN_GRPC_REQUESTS = 200
# How a call cancelled by gRPC's Shutdown reaches the client (below).
RACE = "grpc InferenceServerException: [StatusCode.CANCELLED] CANCELLED"
# Startup, exit and readiness bounds: generous, only so that a hang fails the
# test instead of blocking it; nothing waits for them to pass.
DEADLINE_S = 60.0


def _run(*args: str) -> None:
    out = subprocess.run(args, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        pytest.fail(f"`{' '.join(args)}` failed ({out.returncode}): {out.stderr.strip()}\n"
                    "the rolling-replacement test needs root and `ip netns` "
                    "(network namespaces, veth)", pytrace=False)


@dataclass
class Replica:
    namespace: str
    address: str
    log: Path
    process: subprocess.Popen | None = None
    exit_codes: list[int] = field(default_factory=list)


def _ready(address: str) -> bool:
    try:
        with urllib.request.urlopen(f"http://{address}:8000/v2/health/ready", timeout=1) as r:
            return r.status == 200
    except (urllib.error.URLError, OSError):
        return False


class Fleet:
    """The replicas, started and replaced in their namespaces."""

    def __init__(self, repository: Path, logs: Path):
        self.repository = repository
        self.logs = logs
        tag = f"{os.getpid() % 100000}"
        self.replicas = [
            Replica(f"inferd-rr{tag}-{i}", f"10.231.0.{4 * i + 2}", logs / f"replica{i}.log")
            for i in range(REPLICAS)]
        self.tag = tag

    def create_namespaces(self) -> None:
        # One /30 of 10.231.0.0/24 per pair: the root end .4i+1, the replica .4i+2.
        for i, replica in enumerate(self.replicas):
            host, peer = f"irr{self.tag}h{i}"[-15:], f"irr{self.tag}n{i}"[-15:]
            ns = replica.namespace
            _run("ip", "netns", "add", ns)
            _run("ip", "link", "add", host, "type", "veth", "peer", "name", peer)
            _run("ip", "link", "set", peer, "netns", ns)
            _run("ip", "addr", "add", f"10.231.0.{4 * i + 1}/30", "dev", host)
            _run("ip", "link", "set", host, "up")
            _run("ip", "netns", "exec", ns, "ip", "addr", "add", f"{replica.address}/30",
                 "dev", peer)
            _run("ip", "netns", "exec", ns, "ip", "link", "set", peer, "up")
            _run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")

    def start(self, replica: Replica) -> None:
        # `ip netns exec` execs the command in place: the Popen is inferd itself,
        # so the SIGTERM below reaches the server as the kubelet's would.
        log = replica.log.open("a")
        replica.process = subprocess.Popen(
            ["ip", "netns", "exec", replica.namespace, str(inferd_binary()),
             f"--model-repository={self.repository}", "--http-port=8000", "--grpc-port=8001",
             "--metrics-port=8002", "--exit-grace-secs=2", "--exit-timeout-secs=10",
             f"--backend-directory={backend_directory()}"],
            stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + DEADLINE_S
        while not _ready(replica.address):
            if replica.process.poll() is not None:
                pytest.fail(f"replica in {replica.namespace} exited "
                            f"({replica.process.returncode}) while starting:\n"
                            f"{replica.log.read_text()[-3000:]}", pytrace=False)
            if time.monotonic() > deadline:
                pytest.fail(f"replica in {replica.namespace} not ready after {DEADLINE_S} s",
                            pytrace=False)
            time.sleep(0.05)  # polling the observable state, not waiting for time to pass

    def stop(self, replica: Replica) -> int:
        assert replica.process is not None
        replica.process.send_signal(signal.SIGTERM)
        code = replica.process.wait(timeout=DEADLINE_S)
        replica.exit_codes.append(code)
        return code

    def teardown(self) -> None:
        for replica in self.replicas:
            if replica.process is not None and replica.process.poll() is None:
                replica.process.kill()
                replica.process.wait()
        for replica in self.replicas:
            # Deleting the namespace deletes the veth inside it, and so its peer.
            subprocess.run(["ip", "netns", "del", replica.namespace], capture_output=True,
                           check=False)


def _served(address: str) -> float:
    """Successful inferences of this process, from its metrics endpoint."""
    with urllib.request.urlopen(f"http://{address}:8002/metrics", timeout=5) as r:
        lines = r.read().decode().splitlines()
    return sum(float(line.rsplit(" ", 1)[1]) for line in lines
               if line.startswith("nv_inference_request_success{"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _grpc_proxy(port: int, addresses: list[str]) -> str:
    """nginx's gRPC balancing, with the same passive checks as HTTP's."""
    servers = "\n".join(f"    server {a}:8001 max_fails=1 fail_timeout=1s;" for a in addresses)
    return f"""  upstream inferd_grpc {{
{servers}
    keepalive 16;
  }}
  server {{
    listen 127.0.0.1:{port} http2;
    location / {{
      grpc_pass grpc://inferd_grpc;
      grpc_connect_timeout 1s;
      # gRPC carries a refusal in its trailers (UNAVAILABLE), which nginx
      # cannot retry; what it can retry is a refused or reset connection. The
      # replica must therefore never refuse a call on a connection it keeps:
      # its exit closes the gRPC listener and sends GOAWAY before refusing.
      grpc_next_upstream error timeout non_idempotent;
      grpc_next_upstream_tries 3;
    }}
  }}"""


def _nginx_config(prefix: Path, port: int, grpc_port: int, addresses: list[str]) -> str:
    # Passive health checks (nginx without the commercial `health_check`
    # never polls /v2/health/ready): one failed attempt (a refused or closed
    # connection, or a 503 since http_503 is in proxy_next_upstream) takes a
    # replica out of the rotation for fail_timeout, after which nginx tries it
    # again; a replaced replica comes back on its own once it listens.
    # fail_timeout must stay well under the time between two replicas'
    # failures (the grace period plus a restart): when all three are marked
    # down at once nginx answers 502 "no live upstreams" by itself. With
    # --exit-grace-secs=0 a rollout that took 0.2 s did exactly that (428 of
    # 1,246 requests failed, with fail_timeout 1 s as 2 s).
    servers = "\n".join(f"    server {a}:8000 max_fails=1 fail_timeout=1s;" for a in addresses)
    return f"""
daemon off;
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log {prefix}/access.log;
  client_body_temp_path {prefix}/client_body;
  proxy_temp_path {prefix}/proxy;
  fastcgi_temp_path {prefix}/fastcgi;
  uwsgi_temp_path {prefix}/uwsgi;
  scgi_temp_path {prefix}/scgi;
  upstream inferd {{
{servers}
    keepalive 16;
  }}
  server {{
    listen 127.0.0.1:{port};
    location / {{
      proxy_pass http://inferd;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_connect_timeout 1s;
      # Retrying an inference on another replica is safe here although POST is
      # not idempotent (hence non_idempotent, without which nginx never retries
      # a POST): a refused or closed connection ("error") never reached the
      # model, and inferd answers 503 "server is exiting" before any inference
      # runs. "timeout" covers only connecting here, as no read timeout is
      # reached by the identity model.
      proxy_next_upstream error timeout http_503 non_idempotent;
      proxy_next_upstream_tries 3;
    }}
  }}
{_grpc_proxy(grpc_port, addresses)}
}}
"""


@pytest.fixture
def fleet(tmp_path):
    if os.geteuid() != 0:
        pytest.fail("the rolling-replacement test needs root for `ip netns` "
                    "(run it through `make deploy-test` as root, as CI does)", pytrace=False)
    repository = write_repository(tmp_path / "models",
                                  {MODEL: single_identity(MODEL, "INT32", [4])})
    fleet = Fleet(repository, tmp_path)
    try:
        fleet.create_namespaces()
        yield fleet
    finally:
        fleet.teardown()


@pytest.fixture
def balancer(fleet, tmp_path):
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    port, grpc_port = _free_port(), _free_port()
    conf = prefix / "nginx.conf"
    conf.write_text(_nginx_config(prefix, port, grpc_port, [r.address for r in fleet.replicas]))
    proc = subprocess.Popen([NGINX, "-p", str(prefix), "-c", str(conf)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + DEADLINE_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"nginx did not start: {proc.stdout.read().decode()}",
                                pytrace=False)
                time.sleep(0.05)
        yield f"127.0.0.1:{port}", f"127.0.0.1:{grpc_port}", prefix
    finally:
        proc.terminate()
        proc.wait(timeout=DEADLINE_S)


class Load:
    """Constant inference load through the balancer over HTTP and gRPC, each
    answer checked."""

    def __init__(self, url: str, grpc_url: str):
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.completed = {"http": 0, "grpc": 0}
        self.failures: list[str] = []
        self.threads = [threading.Thread(target=self._run, args=(i, "http", url))
                        for i in range(HTTP_THREADS)]
        self.threads += [threading.Thread(target=self._run, args=(i, "grpc", grpc_url))
                         for i in range(HTTP_THREADS, HTTP_THREADS + GRPC_THREADS)]

    def _run(self, index: int, protocol: str, url: str) -> None:
        if protocol == "http":
            import tritonclient.http as client_module
            client = client_module.InferenceServerClient(url, network_timeout=30)
            timeout = {}
        else:
            import tritonclient.grpc as client_module
            client = client_module.InferenceServerClient(url)
            timeout = {"client_timeout": 30}
        n = 0
        while not self.stop.is_set():
            n += 1
            data = np.array([index, n, -n, n * 7], dtype=np.int32)
            inp = client_module.InferInput("INPUT0", [4], "INT32")
            inp.set_data_from_numpy(data)
            try:
                out = client.infer(MODEL, [inp], **timeout).as_numpy("OUTPUT0")
                error = None if np.array_equal(out, data) else f"wrong output {out} for {data}"
            except Exception as e:  # noqa: BLE001 - every failure is recorded, none retried
                error = f"{protocol} {type(e).__name__}: {e}"
            with self.lock:
                if error is None:
                    self.completed[protocol] += 1
                else:
                    self.failures.append(error)
        client.close()

    def counts(self) -> tuple[int, int]:
        with self.lock:
            return sum(self.completed.values()), len(self.failures)

    def by_protocol(self) -> dict[str, int]:
        with self.lock:
            return dict(self.completed)

    def __enter__(self) -> "Load":
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for t in self.threads:
            t.join()


def test_rolling_replacement_loses_no_request(fleet, balancer):
    url, grpc_url, nginx_prefix = balancer
    for replica in fleet.replicas:
        fleet.start(replica)

    with Load(url, grpc_url) as load:
        # Load flows through every replica before the rollout begins.
        deadline = time.monotonic() + DEADLINE_S
        while load.counts()[0] < 100 and time.monotonic() < deadline:
            time.sleep(0.05)
        before, _ = load.counts()
        before_by = load.by_protocol()
        started = time.monotonic()
        for replica in fleet.replicas:
            fleet.stop(replica)
            fleet.start(replica)
        elapsed = time.monotonic() - started
        during, _ = load.counts()
        during_by = load.by_protocol()
        # nginx takes each new process into the rotation: a rollout that left
        # the load on fewer replicas than it started with is no success.
        deadline = time.monotonic() + DEADLINE_S
        while (idle := [r.address for r in fleet.replicas if _served(r.address) == 0]) \
                and time.monotonic() < deadline:
            time.sleep(0.05)
    completed, failed = load.counts()
    requests = during - before

    per_protocol = {p: during_by[p] - before_by[p] for p in during_by}
    print(f"rolling replacement: {requests} requests {per_protocol} in {elapsed:.1f} s during "
          f"3 replacements, {completed} in all, {failed} failed (of which gRPC's shutdown race: "
          f"{load.failures.count(RACE)}); exit codes "
          f"{[r.exit_codes for r in fleet.replicas]}")
    # gRPC's own Shutdown, which sends the GOAWAY, cancels a call that reaches
    # the server after it began and before the client saw the GOAWAY (a
    # window of a round trip; about one call in 10,000 here, in half the
    # runs). Neither nginx nor a client can retry it, and inferd cannot send a
    # GOAWAY any other way through gRPC's C++ API (docs/deploying.md).
    race = [f for f in load.failures if f == RACE]
    failed -= len(race)
    errors = "\n".join(sorted(set(load.failures) - set(race))[:20])
    nginx_log = (nginx_prefix / "error.log").read_text()[-3000:] if failed else ""
    assert failed == 0, f"{failed} requests failed:\n{errors}\nnginx error.log:\n{nginx_log}"
    assert len(race) <= REPLICAS, f"{len(race)} gRPC calls cancelled by gRPC's Shutdown"
    assert [r.exit_codes for r in fleet.replicas] == [[0]] * REPLICAS
    assert not idle, f"new replicas {idle} never served a request through nginx"
    assert min(per_protocol.values()) >= MIN_GRPC_REQUESTS, (
        f"{per_protocol} during the replacements: a protocol was not under load")
    assert requests >= MIN_REQUESTS, (
        f"only {requests} requests during the replacements ({elapsed:.1f} s); "
        f"the rollout was not under load")
