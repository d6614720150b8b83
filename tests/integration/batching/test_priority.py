"""Priority levels (001, "Priority Levels"): with priority_levels set, requests of a
higher priority (1 is the highest) bypass queued requests of lower priority;
requests of one level keep their arrival order; a request without a priority
gets default_priority_level. Each level may have its own queue policy
(priority_queue_policy). The request's priority travels as the HTTP JSON
parameter "priority" (and tritonclient's `priority=` argument).

The instance is kept busy while the queue fills, in a known order; the record
file then shows which ids ran first.
"""

import numpy as np
import pytest
import tritonclient.http as httpclient

from batching_util import expect_ok, ids_in_order, start_env

DELAY_MS = 350


@pytest.fixture(scope="module")
def env(inferd, tmp_path_factory):
    two_levels = "priority_levels: 2\ndefault_priority_level: 2"
    return start_env(inferd, tmp_path_factory, {
        # one request per execution, so the record is the serving order
        "single": dict(max_batch_size=1, delay_ms=DELAY_MS, dynamic_batching=two_levels),
        "pairs": dict(max_batch_size=2, delay_ms=DELAY_MS, dynamic_batching=two_levels),
        "three": dict(max_batch_size=1, delay_ms=DELAY_MS, dynamic_batching=(
            "priority_levels: 3\ndefault_priority_level: 2")),
        # level 1 holds at most one queued request; level 2 is unlimited
        "policies": dict(max_batch_size=1, delay_ms=DELAY_MS, dynamic_batching=(
            two_levels + "\npriority_queue_policy { key: 1 value { max_queue_size: 1 } }")),
    })


def serve(env, model, specs):
    """Queues specs [(id, priority or None)] behind a blocker; all must succeed.
    Returns the executions since (the backend records before it responds)."""
    ex, futures, before = env.queue_behind_blocker(
        model, [(i, {} if p is None else dict(priority=p)) for i, p in specs])
    with ex:
        for future in futures.values():
            expect_ok(future)
    return env.record(model)[before:]


def test_high_priority_requests_bypass_queued_low_priority_ones(env):
    batches = serve(env, "single", [("lo1", None), ("lo2", None), ("lo3", 2),
                                    ("hi1", 1), ("hi2", 1)])
    assert ids_in_order(batches) == ["blocker", "hi1", "hi2", "lo1", "lo2", "lo3"]


def test_a_batch_takes_high_priority_first_then_fills_with_lower(env):
    batches = serve(env, "pairs", [("lo1", 2), ("lo2", 2), ("lo3", 2), ("hi1", 1)])
    assert [b.ids for b in batches] == [["blocker"], ["hi1", "lo1"], ["lo2", "lo3"]]


def test_requests_without_priority_get_the_default_level(env):
    """Three levels, default 2: level 1 before the default, the default before 3."""
    batches = serve(env, "three", [("p3a", 3), ("dflt", None), ("p3b", 3), ("p1", 1),
                                   ("zero", 0)])
    # priority 0 means "not set": the default level, after `dflt` by arrival.
    assert ids_in_order(batches) == ["blocker", "p1", "dflt", "zero", "p3a", "p3b"]


def test_priority_above_the_levels_is_served_at_the_default_level(env):
    """Triton maps a priority outside 1..priority_levels to
    default_priority_level (InferenceRequest::SetPriority: `if p == 0 || p >
    MaxPriorityLevel() priority_ = DefaultPriorityLevel()`) rather than failing
    the request; a drop-in must accept it and queue it at the default level."""
    ex, futures, before = env.queue_behind_blocker(
        "three", [("p3", dict(priority=3)), ("p9", dict(priority=9)), ("p1", dict(priority=1))])
    with ex:
        for request_id, future in futures.items():
            result = future.result(timeout=30)
            assert result.status == 200, (
                f"{request_id} on a model with priority_levels 3: HTTP {result.status} "
                f"{result.body}")
    assert ids_in_order(env.record("three")[before:]) == ["blocker", "p1", "p9", "p3"]


def test_each_level_has_its_own_queue_policy(env):
    ex, futures, before = env.queue_behind_blocker(
        "policies", [("hi1", dict(priority=1)), ("lo1", dict(priority=2)),
                     ("lo2", dict(priority=2))])
    with ex:
        refused = ex.infer("hi2", priority=1)
        assert refused.status == 503, f"HTTP {refused.status}: {refused.body}"
        assert "is full" in refused.error and "priority level 1" in refused.error, refused.body
        lo3 = ex.send("lo3", priority=2)
        for future in list(futures.values()) + [lo3]:
            expect_ok(future)
    batches = env.wait_record("policies", before + 5)[before:]
    assert ids_in_order(batches) == ["blocker", "hi1", "lo1", "lo2", "lo3"]


def test_tritonclient_priority_argument(env):
    """tritonclient.http sends `priority` as the request parameter inferd reads."""
    ex, futures, before = env.queue_behind_blocker("single", [("lo", {})])
    data = np.arange(4, dtype=np.int32).reshape(1, 4)

    def infer_with_tritonclient():
        client = env.server.client()
        inp = httpclient.InferInput("INPUT0", [1, 4], "INT32")
        inp.set_data_from_numpy(data, binary_data=False)
        try:
            return client.infer("single", [inp], request_id="hi", priority=1)
        finally:
            client.close()

    with ex:
        hi = ex.pool.submit(infer_with_tritonclient)
        ex.expect_queued("the tritonclient request", hi.done)
        env.assert_busy("single", before)
        assert hi.result(timeout=30).as_numpy("OUTPUT0").tolist() == data.tolist()
        for future in futures.values():
            expect_ok(future)
    batches = env.wait_record("single", before + 3)[before:]
    assert ids_in_order(batches) == ["blocker", "hi", "lo"]


@pytest.mark.parametrize("priority", ["high", -1, 1.5, True])
def test_a_malformed_priority_is_a_bad_request(env, priority):
    with env.exchange("single") as ex:
        body = ex.body("bad")
        body["parameters"] = {"priority": priority}
        resp = env.server.post("/v2/models/single/infer", json=body)
    assert resp.status_code == 400, f"priority {priority!r}: HTTP {resp.status_code} {resp.text}"
    assert "priority" in resp.json()["error"], resp.text
