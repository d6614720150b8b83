"""The rate limiter (--rate-limit=execution_count, instance_group rate_limiter,
--rate-limit-resource): several identity models whose instances contend for
resources, each recording the start and end of its executions (record_file).

From the records: the units of a resource held by executions running at the
same moment never pass the pool size; the pool sizes are the largest ask by
default and --rate-limit-resource's where given (every device, one device,
the global pool); priority 1 instances get about twice the turns of priority
2 ones; --rate-limit=off lets the same models overlap freely. Conflicting
uses of a name and asks above an override are load errors, and pools follow
unloads. Statistics and metrics show the time executions waited.
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import requests

from util import json_request, metrics_text, model_stats, record_lines, wait_until

DELAY_MS = 40


def limited_model(name: str, record: Path, groups: list[str], delay_ms: int = DELAY_MS,
                  extra: str = "", max_batch_size: int = 0) -> str:
    """An identity model INPUT0 -> OUTPUT0 (INT32 [4]) whose instance_group
    entries are `groups` (the text inside each { })."""
    group_text = ",\n".join("{ " + g + " }" for g in groups)
    return (
        f'name: "{name}"\n'
        'backend: "identity"\n'
        f"max_batch_size: {max_batch_size}\n"
        'input [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ 4 ] } ]\n'
        'output [ { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 4 ] } ]\n'
        f"instance_group [\n{group_text}\n]\n"
        'parameters { key: "execute_delay_ms" value { string_value: "'
        f'{delay_ms}" }} }}\n'
        f'parameters {{ key: "record_file" value {{ string_value: "{record}" }} }}\n'
        + extra
    )


def group(count: int, resources: str, priority: int = 0) -> str:
    """An instance group of `count` CPU instances listing `resources` (text of
    resource entries)."""
    limiter = f"rate_limiter {{ resources [ {resources} ]" + (
        f" priority: {priority}" if priority else "") + " }"
    return f"count: {count} kind: KIND_CPU {limiter}"


def res(name: str, count: int, global_: bool = False) -> str:
    return f'{{ name: "{name}" count: {count}' + (" global: true" if global_ else "") + " }"


def executions(record: Path) -> list[tuple[str, int, int]]:
    """(instance, start_ns, end_ns) of each recorded execution."""
    out = []
    for line in record_lines(record):
        instance, _rows, start, end, _ids = line.split(" ")
        out.append((instance, int(start), int(end)))
    return out


def most_at_once(weighted: list[tuple[int, int, int]]) -> int:
    """The largest sum of weights of intervals (start, end, weight) that
    overlap at one moment."""
    events = []
    for start, end, weight in weighted:
        events.append((start, 1, weight))
        events.append((end, 0, -weight))  # an end before a start at the same ns
    held = most = 0
    for _t, _kind, delta in sorted(events):
        held += delta
        most = max(most, held)
    return most


def flood(server, loads: dict[str, int], workers: int = 16, batched: tuple = ()) -> None:
    """Sends loads[model] requests to each model at once; all must succeed.
    Models in `batched` take shape [1, 4], the others [4]."""
    url = server.url

    def one(model: str) -> int:
        shape = (1, 4) if model in batched else (4,)
        body = json_request([("INPUT0", "INT32", np.arange(4, dtype=np.int32).reshape(shape))])
        return requests.post(f"{url}/v2/models/{model}/infer", json=body, timeout=120).status_code

    # One pool per model, so that every model has `workers` requests in flight
    # from the start.
    pools = {model: ThreadPoolExecutor(max_workers=workers) for model in loads}
    try:
        futures = [pools[model].submit(one, model) for model, n in loads.items()
                   for _ in range(n)]
        codes = [f.result() for f in futures]
    finally:
        for pool in pools.values():
            pool.shutdown()
    assert codes == [200] * len(codes)


def units(records: dict[str, tuple[Path, int]]) -> list[tuple[int, int, int]]:
    """(start, end, units) of every execution of the models in `records`
    ({model: (record file, units each execution holds)})."""
    return [(start, end, weight) for path, weight in records.values()
            for _instance, start, end in executions(path)]


# ---------------------------------------------------------------------------
# Default pool sizes: the largest ask


@pytest.fixture(scope="module")
def contended(inferd, tmp_path_factory):
    """small: 2 instances asking R:1; big: 2 instances asking R:2. Pool R on
    device 0 is 2 by default: two smalls, or one big, at a time."""
    records = tmp_path_factory.mktemp("records")
    models = {
        "small": limited_model("small", records / "small.txt", [group(2, res("R", 1))]),
        "big": limited_model("big", records / "big.txt", [group(2, res("R", 2))]),
    }
    return records, models


def test_executions_never_hold_more_than_the_default_pool(inferd, contended):
    records, models = contended
    server = inferd(models, extra_args=["--rate-limit=execution_count"])
    flood(server, {"small": 24, "big": 24})
    weighted = units({"small": (records / "small.txt", 1), "big": (records / "big.txt", 2)})
    assert len(weighted) == 48
    assert most_at_once(weighted) == 2  # never more; and reached (two smalls, or one big)
    # Two bigs never ran together: that alone would need 4.
    bigs = units({"big": (records / "big.txt", 1)})
    assert most_at_once(bigs) == 1


def test_rate_limit_off_leaves_the_same_models_unlimited(inferd, contended, tmp_path):
    records, models = contended
    for name in ("small", "big"):
        (records / f"{name}.txt").unlink(missing_ok=True)
    server = inferd(models, extra_args=["--rate-limit=off"])
    flood(server, {"small": 24, "big": 24})
    bigs = units({"big": (records / "big.txt", 1)})
    assert len(bigs) == 24
    assert most_at_once(bigs) == 2  # both big instances ran at once
    stats = model_stats(server, "big")["inference_stats"]["rate_limiter_wait"]
    assert stats == {"count": 0, "ns": 0}


def test_the_limit_spans_dynamic_batching_and_ensemble_steps(inferd, tmp_path):
    """'batched' (dynamic batching) and 'step' (the one step of ensemble 'ens')
    each have two instances asking R:1, so one execution at a time in all."""
    batched, step = tmp_path / "batched.txt", tmp_path / "step.txt"
    ens = (
        'name: "ens"\nplatform: "ensemble"\nmax_batch_size: 0\n'
        'input [ { name: "INPUT0" data_type: TYPE_INT32 dims: [ 4 ] } ]\n'
        'output [ { name: "OUTPUT0" data_type: TYPE_INT32 dims: [ 4 ] } ]\n'
        'ensemble_scheduling { step [ { model_name: "step" model_version: -1 '
        'input_map { key: "INPUT0" value: "INPUT0" } '
        'output_map { key: "OUTPUT0" value: "OUTPUT0" } } ] }\n')
    server = inferd({
        "batched": limited_model("batched", batched, [group(2, res("R", 1))], max_batch_size=4,
                                 extra="dynamic_batching { }\n"),
        "step": limited_model("step", step, [group(2, res("R", 1))]),
        "ens": ens,
    }, extra_args=["--rate-limit=execution_count"])
    flood(server, {"batched": 24, "ens": 24}, batched=("batched",))
    assert len(executions(step)) == 24
    assert most_at_once(units({"batched": (batched, 1), "step": (step, 1)})) == 1
    assert model_stats(server, "step")["inference_stats"]["rate_limiter_wait"]["count"] == 24


def test_passive_instances_never_execute_nor_size_pools(inferd, tmp_path):
    """'p' has an active instance asking R:1 and a passive one asking R:5;
    'q' two instances asking R:1. The passive ask would make R 5; it is 1."""
    p, q = tmp_path / "p.txt", tmp_path / "q.txt"
    server = inferd({
        "p": limited_model("p", p, [group(1, res("R", 1)),
                                    'name: "idle" passive: true ' + group(1, res("R", 5))]),
        "q": limited_model("q", q, [group(2, res("R", 1))]),
    }, extra_args=["--rate-limit=execution_count"])
    flood(server, {"p": 12, "q": 24})
    assert {instance for instance, _s, _e in executions(p)} == {"p_0_0"}
    assert most_at_once(units({"p": (p, 1), "q": (q, 1)})) == 1


# ---------------------------------------------------------------------------
# --rate-limit-resource: every device, one device, the global pool


@pytest.mark.parametrize("flags, limit", [
    ([], 1),                                                    # default: largest ask
    (["--rate-limit-resource=R:2"], 2),                         # every device
    (["--rate-limit-resource=R:2", "--rate-limit-resource=R:3:0"], 3),  # device 0's own wins
    (["--rate-limit-resource=R:2:1"], 1),                       # another device's: no effect
])
def test_rate_limit_resource_sizes_per_device_pools(inferd, tmp_path, flags, limit):
    record = tmp_path / "m.txt"
    server = inferd({"m": limited_model("m", record, [group(4, res("R", 1))])},
                    extra_args=["--rate-limit=execution_count", *flags])
    flood(server, {"m": 32})
    assert most_at_once(units({"m": (record, 1)})) == limit


def test_rate_limit_resource_sizes_the_global_pool(inferd, tmp_path):
    """Global G is shared by two models; G:3 given without a device."""
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    server = inferd({
        "a": limited_model("a", a, [group(3, res("G", 1, True))]),
        "b": limited_model("b", b, [group(3, res("G", 1, True))]),
    }, extra_args=["--rate-limit=execution_count", "--rate-limit-resource=G:3"])
    flood(server, {"a": 24, "b": 24})
    assert most_at_once(units({"a": (a, 1), "b": (b, 1)})) == 3


# ---------------------------------------------------------------------------
# Load errors and pools following unloads


def test_a_name_used_global_and_per_device_fails_the_model_that_brings_the_conflict(
        inferd, tmp_path):
    server = inferd({
        "first": limited_model("first", tmp_path / "f.txt", [group(1, res("X", 1))]),
        "second": limited_model("second", tmp_path / "s.txt", [group(1, res("X", 1, True))]),
    }, extra_args=["--rate-limit=execution_count", "--model-control-mode=explicit",
                   "--load-model=first"])
    resp = server.post("/v2/repository/models/second/load")
    assert resp.status_code == 400, resp.text
    assert "rate_limiter resource 'X' is global here but per-device in model 'first'" \
        in resp.json()["error"], resp.text
    # Once 'first' is unloaded the name is free, and 'second' loads.
    assert server.post("/v2/repository/models/first/unload").status_code == 200
    wait_until(lambda: server.get("/v2/models/first/ready").status_code != 200, 10,
               "'first' unloaded")
    resp = server.post("/v2/repository/models/second/load")
    assert resp.status_code == 200, resp.text


def test_an_ask_above_the_given_count_is_a_load_error(inferd, tmp_path):
    server = inferd({"m": limited_model("m", tmp_path / "m.txt", [group(1, res("R", 3))])},
                    extra_args=["--rate-limit=execution_count", "--rate-limit-resource=R:2",
                                "--exit-on-error=false"], wait_for="live")
    index = server.post("/v2/repository/index").json()
    (entry,) = [e for e in index if e["name"] == "m"]
    assert entry["state"] == "UNAVAILABLE"
    assert "asks for 3 of rate_limiter resource 'R'" in entry["reason"], entry


# ---------------------------------------------------------------------------
# Priorities, and the wait in statistics and metrics


def test_priority_one_gets_about_twice_the_turns_of_priority_two(inferd, tmp_path):
    """Both models always have requests waiting; one R at a time. Over the
    first 60 executions (both still backlogged) 'first' (priority 1) should
    get about 40 and 'second' (priority 2) about 20."""
    hi, lo = tmp_path / "hi.txt", tmp_path / "lo.txt"
    server = inferd({
        "hi": limited_model("hi", hi, [group(2, res("R", 1), priority=1)], delay_ms=10),
        "lo": limited_model("lo", lo, [group(2, res("R", 1), priority=2)], delay_ms=10),
    }, extra_args=["--rate-limit=execution_count"])
    flood(server, {"hi": 120, "lo": 120})
    runs = sorted([(start, "hi") for _i, start, _e in executions(hi)] +
                  [(start, "lo") for _i, start, _e in executions(lo)])
    assert len(runs) == 240
    first = [model for _start, model in runs[5:65]]  # past the start-up
    assert 32 <= first.count("hi") <= 48, first
    # The wait shows in statistics (per execution) and in the metrics.
    for model in ("hi", "lo"):
        wait = model_stats(server, model)["inference_stats"]["rate_limiter_wait"]
        assert wait["count"] == 120 and wait["ns"] > 0, wait
    text = metrics_text(server)
    line = [x for x in text.splitlines()
            if x.startswith('inferd_rate_limiter_wait_duration_us{model="lo",')]
    assert line and float(line[0].rsplit(" ", 1)[1]) > 0, line


# ---------------------------------------------------------------------------
# Sequence batching


def test_a_sequence_step_waits_while_another_model_holds_the_resource(inferd, tmp_path):
    """'holder' (identity) and 'seq' (accumulate, sequence batching) each ask
    for the one global G. While a long 'holder' execution runs, a sequence
    step waits: its row is written only after the holder's execution ended
    (the identity backend writes its line at the end, before giving G back)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sequence"))
    from sequence_models import accumulate_config, http_step, records

    holder_record, seq_record = tmp_path / "holder.txt", tmp_path / "seq.txt"
    seq = accumulate_config("seq", seq_record).replace(
        "instance_group [ { count: 1 kind: KIND_CPU } ]",
        "instance_group [ { " + group(1, res("G", 1, True)) + " } ]")
    assert "rate_limiter" in seq
    server = inferd({
        "holder": limited_model("holder", holder_record, [group(1, res("G", 1, True))],
                                delay_ms=1000),
        "seq": seq,
    }, extra_args=["--rate-limit=execution_count"])
    with ThreadPoolExecutor(max_workers=2) as pool:
        held = pool.submit(flood, server, {"holder": 1}, 1)
        wait_until(lambda: model_stats(server, "holder")["execution_count"] == 1, 10,
                   "the holder executing")
        client = server.client()
        step = pool.submit(http_step, client, "seq", 7, 5, True, True)
        wait_until(lambda: records(seq_record), 20, "the sequence step executed")
        assert len(record_lines(holder_record)) == 1, "the step ran while G was held"
        assert step.result(timeout=30)["OUTPUT"] == [5]
        held.result(timeout=30)
    wait = model_stats(server, "seq")["inference_stats"]["rate_limiter_wait"]
    assert wait["count"] == 1 and wait["ns"] > 0, wait
