"""Instance groups as Triton places them: `count` instances per group, named
<group>_<n>; KIND_CPU and KIND_MODEL execute on the CPU; KIND_GPU on a machine
without a GPU is a clear load error naming the group; `passive` instances are
loaded but never given work."""

from __future__ import annotations

from pathlib import Path

import sys

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_rate_limiter import executions, flood, limited_model


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
