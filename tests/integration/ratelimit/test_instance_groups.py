"""Instance groups as Triton places them: `count` instances per group, named
<group>_<n>; KIND_CPU and KIND_MODEL execute on the CPU; KIND_GPU on a machine
without a GPU is a clear load error naming the group; `passive` instances are
loaded but never given work; host policies (--host-policy) bind instance
threads to CPUs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_rate_limiter import executions, flood, limited_model  # noqa: E402
from util import backend_directory, inferd_binary, wait_until  # noqa: E402


def test_count_kinds_and_passive_instances(inferd, tmp_path):
    record = tmp_path / "m.txt"
    server = inferd({"m": limited_model("m", record, [
        'name: "cpu" count: 3 kind: KIND_CPU',
        'name: "model" count: 1 kind: KIND_MODEL',
        'name: "standby" count: 2 kind: KIND_CPU passive: true',
    ])})
    flood(server, {"m": 48})
    ran = {instance for instance, _start, _end in executions(record)}
    # 16 requests at a time over four free instances: each ran; the passive
    # ones never did.
    assert ran == {"cpu_0", "cpu_1", "cpu_2", "model_0"}, ran


def test_kind_gpu_without_a_gpu_is_a_load_error_naming_the_group(inferd, tmp_path):
    server = inferd({
        "gpu": limited_model("gpu", tmp_path / "g.txt", ['name: "fast" count: 1 kind: KIND_GPU']),
        "cpu": limited_model("cpu", tmp_path / "c.txt", ["count: 1 kind: KIND_CPU"]),
    }, extra_args=["--exit-on-error=false"], wait_for="live")
    rows = {r["name"]: r for r in server.post("/v2/repository/index").json()}
    assert rows["cpu"]["state"] == "READY", rows
    assert rows["gpu"]["state"] == "UNAVAILABLE", rows
    assert "instance_group 'fast'" in rows["gpu"]["reason"], rows
    assert "KIND_GPU" in rows["gpu"]["reason"] and "no GPU" in rows["gpu"]["reason"], rows


def thread_cpus(pid: int) -> list[str]:
    """Cpus_allowed_list of each thread of process `pid`."""
    out = []
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        for line in status.read_text().splitlines():
            if line.startswith("Cpus_allowed_list:"):
                out.append(line.split(":", 1)[1].strip())
    return out


def test_host_policies_bind_instance_threads_to_their_cpus(inferd, tmp_path):
    """The two KIND_CPU instances of group 'plain' follow the default policy
    'cpu' (CPU 1); the one of group 'pinned' follows 'mine' (CPU 0). Instance
    threads start at the model's first request, and the bound instances
    serve."""
    if len(os.sched_getaffinity(0)) < 2 or not {0, 1} <= os.sched_getaffinity(0):
        pytest.skip("needs CPUs 0 and 1")
    server = inferd({"m": limited_model("m", tmp_path / "m.txt", [
        'name: "plain" count: 2 kind: KIND_CPU',
        'name: "pinned" count: 1 kind: KIND_CPU host_policy: "mine"',
    ])}, extra_args=["--host-policy=cpu,cpu-cores=1", "--host-policy=mine,cpu-cores=0"])
    assert thread_cpus(server.process.pid).count("1") == 0, "no request yet, no instance thread"
    flood(server, {"m": 8})
    cpus = wait_until(lambda: (lambda c: c if c.count("1") >= 2 and c.count("0") >= 1 else None)(
        thread_cpus(server.process.pid)), 10, "instance threads bound")
    assert cpus.count("1") == 2 and cpus.count("0") == 1, cpus


def test_without_host_policies_threads_keep_every_cpu(inferd, tmp_path):
    server = inferd({"m": limited_model("m", tmp_path / "m.txt", ["count: 2 kind: KIND_CPU"])})
    flood(server, {"m": 4})
    allowed = thread_cpus(server.process.pid)
    assert len(set(allowed)) == 1, allowed  # all alike: nothing was bound


@pytest.mark.parametrize("value, why", [
    ("cpu,bogus=1", "unknown host policy setting 'bogus'"),
    ("cpu,cpu-cores=x", "is not <cpu> or <first>-<last>"),
    ("cpu,cpu-cores=4096", "this machine has CPUs 0 to"),
    ("cpu,numa-node=4096", "no NUMA node 4096"),
    ("cpu", "expected <name>,<setting>=<value>"),
])
def test_malformed_host_policies_stop_the_start(tmp_path, value, why):
    repo = tmp_path / "empty"
    repo.mkdir()
    result = subprocess.run([str(inferd_binary()), f"--model-repository={repo}",
                             f"--backend-directory={backend_directory()}", "--http-port=0",
                             "--grpc-port=0", "--metrics-port=0", f"--host-policy={value}"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert "--host-policy" in result.stderr and why in result.stderr, result.stderr
