"""The queue-delay rule (001, "Delayed Batching"): when no preferred size can be
formed, the batch waits until its oldest request has been queued
max_queue_delay_microseconds, then goes as it is; without a delay it goes at
once; a batch that reaches max_batch_size goes at once whatever the delay.

Timing is judged from the record file (the identity backend stamps each
execution with CLOCK_MONOTONIC, the clock of Python's time.monotonic_ns), with
lower bounds that the server guarantees and only generous upper bounds.
"""

import time

import pytest

from batching_util import expect_ok, start_env

QUEUE_DELAY_S = 0.5


@pytest.fixture(scope="module")
def env(inferd, tmp_path_factory):
    delay_us = int(QUEUE_DELAY_S * 1e6)
    return start_env(inferd, tmp_path_factory, {
        # preferred 4 is never reached in these tests
        "delayed": dict(max_batch_size=8, delay_ms=50, dynamic_batching=(
            f"preferred_batch_size: [ 4 ]\nmax_queue_delay_microseconds: {delay_us}")),
        "undelayed": dict(max_batch_size=8, delay_ms=50,
                          dynamic_batching="preferred_batch_size: [ 4 ]"),
        # no preferred size; a long delay that a full batch must not wait for
        # the same with two priority levels
        "delayed_levels": dict(max_batch_size=8, delay_ms=50, dynamic_batching=(
            f"preferred_batch_size: [ 4 ]\nmax_queue_delay_microseconds: {delay_us}\n"
            "priority_levels: 2\ndefault_priority_level: 2")),
        "full": dict(max_batch_size=4, delay_ms=50,
                     dynamic_batching="max_queue_delay_microseconds: 5000000"),
    })


def test_partial_batch_waits_for_the_delay_then_goes_as_it_is(env):
    with env.exchange("delayed") as ex:
        sent_ns = time.monotonic_ns()
        futures = [ex.send(f"d{i}") for i in range(3)]
        for future in futures:
            expect_ok(future)
    (batch,) = env.wait_record("delayed", 1)
    assert batch.rows == 3 and sorted(batch.ids) == ["d0", "d1", "d2"], batch
    waited_s = (batch.start_ns - sent_ns) / 1e9
    assert waited_s >= QUEUE_DELAY_S - 0.005, (
        f"the batch of 3 (no preferred size) started {waited_s:.3f}s after the requests "
        f"were sent, before max_queue_delay ({QUEUE_DELAY_S}s)")
    assert waited_s < QUEUE_DELAY_S + 2.0, f"the batch waited {waited_s:.3f}s"


def test_delay_counts_from_the_oldest_request(env):
    """r1 waits; r2 joins 0.4 s later; the batch goes when r1 (not r2) has waited
    the delay (0.5 s), so both run together and r2 waits only about 0.1 s."""
    before = len(env.record("delayed"))
    with env.exchange("delayed") as ex:
        ex.sync_pending()
        first_ns = time.monotonic_ns()
        first = ex.queue("old")
        time.sleep(0.4)
        second = ex.send("new")
        expect_ok(first)
        expect_ok(second)
    (batch,) = env.wait_record("delayed", before + 1)[before:]
    assert batch.ids == ["old", "new"], batch
    waited_s = (batch.start_ns - first_ns) / 1e9
    assert waited_s >= QUEUE_DELAY_S - 0.005, batch
    # Counting from the newer request would give about 0.9 s.
    assert waited_s < QUEUE_DELAY_S + 0.3, (
        f"the batch started {waited_s:.3f}s after the oldest request: the delay must "
        "count from the oldest request, not the newest")


def test_delay_counts_from_the_oldest_request_whatever_its_priority(env):
    """A low-priority request waits; 0.4 s later a high-priority one arrives and
    goes first in the batch, but the batch still leaves when the low-priority
    request has waited the delay (0.5 s), not 0.5 s after the newcomer."""
    with env.exchange("delayed_levels") as ex:
        ex.sync_pending()
        low_ns = time.monotonic_ns()
        low = ex.queue("low", priority=2)
        time.sleep(0.4)
        high = ex.send("high", priority=1)
        expect_ok(low)
        expect_ok(high)
    (batch,) = env.wait_record("delayed_levels", 1)
    assert batch.ids == ["high", "low"], batch
    waited_s = (batch.start_ns - low_ns) / 1e9
    # Counting from the high-priority newcomer gives about 0.9 s.
    assert waited_s < QUEUE_DELAY_S + 0.3, (
        f"the low-priority request waited {waited_s:.3f}s for a batch; max_queue_delay is "
        f"{QUEUE_DELAY_S}s counted from the oldest request in the batch")


def test_without_a_delay_a_partial_batch_goes_at_once(env):
    with env.exchange("undelayed") as ex:
        sent_ns = time.monotonic_ns()
        expect_ok(ex.send("alone"))
    (batch,) = env.wait_record("undelayed", 1)
    assert (batch.rows, batch.ids) == (1, ["alone"])
    assert (batch.start_ns - sent_ns) / 1e9 < QUEUE_DELAY_S, (
        "without max_queue_delay a lone request must not wait for more")


def test_a_full_batch_does_not_wait_for_the_delay(env):
    with env.exchange("full") as ex:
        sent_ns = time.monotonic_ns()
        futures = [ex.send(f"f{i}") for i in range(4)]
        for future in futures:
            expect_ok(future)
        elapsed_s = (time.monotonic_ns() - sent_ns) / 1e9
    # The first requests wait for the others (5 s delay); the fourth fills
    # max_batch_size and the batch goes at once.
    batches = env.wait_record("full", 1)
    assert [(b.rows, sorted(b.ids)) for b in batches] == [(4, ["f0", "f1", "f2", "f3"])]
    assert elapsed_s < 3.0, f"a full batch (max_batch_size 4) waited {elapsed_s:.2f}s"
