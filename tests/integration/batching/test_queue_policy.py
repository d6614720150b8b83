"""Queue policies (001, "Queue Policy"; ModelQueuePolicy):

- max_queue_size: a request arriving at a full queue fails at once with
  UNAVAILABLE (HTTP 503) "... is full", and never runs; the queue takes requests
  again once it drains. Requests executing do not count against the size.
- timeout_action REJECT: a request that waited longer than its timeout fails
  with 503 "timed out in the queue" and never runs; it is answered at its
  timeout even while the instance is still executing another batch.
- timeout_action DELAY: such a request is not failed but served after every
  request that did not time out.
- default_timeout_microseconds applies to every request of the level;
  allow_timeout_override lets a request's "timeout" parameter (microseconds)
  replace it, and without it the parameter is ignored.

Each model has one instance (max_batch_size 1 unless said otherwise) kept busy
by a blocking request; the record file shows what ran and in which order.
"""

import pytest

from batching_util import expect_ok, ids_in_order, start_env
from util import executions_started

DELAY_MS = 400
SHORT_TIMEOUT_US = 100_000  # well inside the blocker's execution
BUSY_MS = 4000  # an execution far longer than the timeout


@pytest.fixture(scope="module")
def env(inferd, tmp_path_factory):
    def policy(text):
        return f"default_queue_policy {{ {text} }}"

    return start_env(inferd, tmp_path_factory, {
        "bounded": dict(max_batch_size=1, delay_ms=DELAY_MS,
                        dynamic_batching=policy("max_queue_size: 2")),
        "reject": dict(max_batch_size=1, delay_ms=DELAY_MS, dynamic_batching=policy(
            f"timeout_action: REJECT default_timeout_microseconds: {SHORT_TIMEOUT_US}")),
        "reject_busy": dict(max_batch_size=1, delay_ms=BUSY_MS, dynamic_batching=policy(
            f"timeout_action: REJECT default_timeout_microseconds: {SHORT_TIMEOUT_US}")),
        "reject_override": dict(max_batch_size=1, delay_ms=DELAY_MS, dynamic_batching=policy(
            "timeout_action: REJECT allow_timeout_override: true")),
        "no_override": dict(max_batch_size=1, delay_ms=DELAY_MS, dynamic_batching=policy(
            "timeout_action: REJECT default_timeout_microseconds: 10000000")),
        # the instance is idle but the batch waits for a preferred size
        "reject_waiting": dict(max_batch_size=8, delay_ms=50, dynamic_batching=(
            "preferred_batch_size: [ 4 ]\nmax_queue_delay_microseconds: 2000000\n"
            + policy("timeout_action: REJECT allow_timeout_override: true"))),
        "delay": dict(max_batch_size=1, delay_ms=DELAY_MS, dynamic_batching=policy(
            "timeout_action: DELAY allow_timeout_override: true")),
        "delay_batched": dict(max_batch_size=2, delay_ms=DELAY_MS, dynamic_batching=policy(
            "timeout_action: DELAY allow_timeout_override: true")),
    })


def all_ids(env, model):
    return ids_in_order(env.record(model))


# -- max_queue_size -------------------------------------------------------------


def test_a_full_queue_rejects_with_503_and_the_request_never_runs(env):
    ex, futures, before = env.queue_behind_blocker("bounded", [("q1", {}), ("q2", {})])
    with ex:
        refused = ex.infer("q3")
        # Answered while the blocker still runs: q3 did not wait for the queue.
        env.assert_busy("bounded", before)
        assert refused.status == 503, f"HTTP {refused.status}: {refused.body}"
        assert "is full" in refused.error, refused.body
        assert "'bounded'" in refused.error, f"the message should name the model: {refused.body}"
        for future in futures.values():
            expect_ok(future)
    batches = env.wait_record("bounded", before + 3)[before:]
    assert ids_in_order(batches) == ["blocker", "q1", "q2"]
    assert "q3" not in all_ids(env, "bounded")


def test_the_queue_takes_requests_again_once_it_drains(env):
    """Two rounds of blocker + 2 queued: executing requests do not count, and
    refused ones leave no trace in the queue."""
    for round_ in range(2):
        ex, futures, before = env.queue_behind_blocker(
            "bounded", [(f"a{round_}", {}), (f"b{round_}", {})])
        with ex:
            for future in futures.values():
                expect_ok(future)
        assert ids_in_order(env.wait_record("bounded", before + 3)[before:]) == [
            "blocker", f"a{round_}", f"b{round_}"]


# -- REJECT -----------------------------------------------------------------------


def test_reject_fails_a_request_that_waited_past_the_default_timeout(env):
    # The blocker executes for BUSY_MS, far past late's 100 ms timeout.
    ex, futures, before = env.queue_behind_blocker("reject", [("late", {})],
                                                   blocker_delay_ms=BUSY_MS)
    with ex:
        late = futures["late"].result(timeout=30)
        # Answered while the blocker still executes (its execution is not
        # recorded yet): the rejection did not wait for the instance to be free.
        assert env.busy("reject", before), (
            f"late was answered only after the blocker's execution ended: "
            f"{env.record('reject')[before:]}")
        blocker = expect_ok(futures["blocker"])  # it did not wait: no timeout
    assert late.status == 503, f"HTTP {late.status}: {late.body}"
    assert "timed out in the queue" in late.error, late.body
    assert "'reject'" in late.error, late.body
    env.wait_idle("reject")  # anything wrongly kept would be queued, executing or recorded
    assert ids_in_order(env.record("reject")[before:]) == ["blocker"]
    assert blocker.status == 200


def test_reject_answers_at_the_timeout_while_the_instance_is_busy(env):
    ex, futures, before = env.queue_behind_blocker("reject_busy", [("late", {})])
    with ex:
        late = futures["late"].result(timeout=30)
        # Rejected while the only instance still executes the blocker, not
        # when it frees up.
        assert not futures["blocker"].done(), "the rejection waited for the blocker"
        assert late.status == 503, f"HTTP {late.status}: {late.body}"
        assert "timed out in the queue" in late.error, late.body
        assert expect_ok(futures["blocker"]).status == 200
    assert ids_in_order(env.record("reject_busy")[before:]) == ["blocker"]


def test_reject_with_a_request_timeout_override(env):
    """No default timeout; only the request that sets "timeout" is rejected."""
    ex, futures, before = env.queue_behind_blocker(
        "reject_override", [("short", dict(timeout_us=SHORT_TIMEOUT_US)), ("patient", {}),
                            ("long", dict(timeout_us=30_000_000))])
    with ex:
        short = futures.pop("short").result(timeout=30)
        for future in futures.values():
            expect_ok(future)
    assert short.status == 503 and "timed out in the queue" in short.error, short
    batches = env.wait_record("reject_override", before + 3)[before:]
    assert ids_in_order(batches) == ["blocker", "patient", "long"]


def test_the_timeout_parameter_is_ignored_without_allow_timeout_override(env):
    """allow_timeout_override is false: the request's 100 ms timeout does not
    replace the 10 s default, so the request is served."""
    ex, futures, before = env.queue_behind_blocker(
        "no_override", [("ignored", dict(timeout_us=SHORT_TIMEOUT_US))])
    with ex:
        for future in futures.values():
            expect_ok(future)
    assert ids_in_order(env.wait_record("no_override", before + 2)[before:]) == [
        "blocker", "ignored"]


def test_reject_does_not_wait_for_the_batch_to_leave(env):
    """A request whose 100 ms timeout expires while its batch waits for the 2 s
    queue delay is rejected at its timeout, not when the batch would leave: the
    request without timeout queued before it is still queued then, and nothing
    has executed. That request is unaffected: its batch keeps waiting for the
    delay (a request sent after the rejection still joins it), then runs."""
    with env.exchange("reject_waiting") as ex:
        ex.sync_pending()
        patient = ex.queue("patient")
        hasty = ex.infer("hasty", timeout_us=SHORT_TIMEOUT_US)
        assert hasty.status == 503 and "timed out in the queue" in hasty.error, hasty
        # The batch has not left: the rejection came before it, at the timeout.
        assert not patient.done()
        assert ex.pending_now() == 1, "patient should be the only request queued"
        assert executions_started(env.server, "reject_waiting") == 0, (
            "the batch left before hasty was rejected")
        # Nor did the rejection send the batch off: it is still waiting for the
        # delay, and a request sent now joins it.
        joiner = ex.queue("joiner")
        assert executions_started(env.server, "reject_waiting") == 0, (
            "patient's batch left when hasty was rejected, before its queue delay")
        expect_ok(patient)
        expect_ok(joiner)
    assert [b.ids for b in env.wait_record("reject_waiting", 1)] == [["patient", "joiner"]]


# -- DELAY ------------------------------------------------------------------------


def test_delay_serves_a_timed_out_request_after_all_others(env):
    ex, futures, before = env.queue_behind_blocker(
        "delay", [("deferred", dict(timeout_us=SHORT_TIMEOUT_US)), ("n1", {}), ("n2", {})])
    with ex:
        for request_id, future in futures.items():
            result = expect_ok(future)
            assert result.body["id"] == request_id
    batches = env.wait_record("delay", before + 4)[before:]
    assert ids_in_order(batches) == ["blocker", "n1", "n2", "deferred"]


def test_delay_does_not_defer_a_request_that_did_not_time_out(env):
    ex, futures, before = env.queue_behind_blocker(
        "delay", [("first", dict(timeout_us=30_000_000)), ("second", {})])
    with ex:
        for future in futures.values():
            expect_ok(future)
    assert ids_in_order(env.wait_record("delay", before + 3)[before:]) == [
        "blocker", "first", "second"]


def test_delay_with_batching_puts_the_deferred_request_last(env):
    ex, futures, before = env.queue_behind_blocker(
        "delay_batched", [("deferred", dict(timeout_us=SHORT_TIMEOUT_US)), ("n1", {}),
                          ("n2", {})])
    with ex:
        for future in futures.values():
            expect_ok(future)
    batches = env.wait_record("delay_batched", before + 3)[before:]
    assert [b.ids for b in batches] == [["blocker"], ["n1", "n2"], ["deferred"]]


def test_tritonclient_timeout_argument(env):
    """tritonclient.http's `timeout=` (microseconds) travels as the request's
    "timeout" parameter: with REJECT it fails the request in the queue, and the
    client raises with the server's message and status."""
    import numpy as np
    import tritonclient.http as httpclient
    from tritonclient.utils import InferenceServerException

    ex, futures, before = env.queue_behind_blocker("reject_override", [])

    def infer_with_timeout():
        client = env.server.client()
        inp = httpclient.InferInput("INPUT0", [1, 4], "INT32")
        inp.set_data_from_numpy(np.zeros((1, 4), dtype=np.int32))
        try:
            client.infer("reject_override", [inp], request_id="tc", timeout=SHORT_TIMEOUT_US)
        except InferenceServerException as exc:
            return exc
        finally:
            client.close()
        return None

    with ex:
        attempt = ex.pool.submit(infer_with_timeout)
        ex.expect_queued("the tritonclient request", attempt.done)
        env.assert_busy("reject_override", before)
        error = attempt.result(timeout=30)
        for future in futures.values():
            expect_ok(future)
    assert error is not None, "the request was served despite its 100 ms timeout"
    assert "timed out in the queue" in error.message(), error
    assert str(error.status()) == "503", error
    env.wait_idle("reject_override")
    assert "tc" not in all_ids(env, "reject_override")
