"""The queue-delay rule (001, "Delayed Batching"): when no preferred size can be
formed, the batch waits until its oldest request has been queued
max_queue_delay_microseconds, then goes as it is; without a delay it goes at
once; a batch that reaches max_batch_size goes at once whatever the delay.

No test here measures time: how long the delay lasts is unit-tested in
simulated time. Where the rule is about waiting, the test sees the partial
batch still queued (pending gauge, no execution started) while a model without
delay batches, runs and answers a request, and then sees it leave by itself,
as it is; a model without delay is seen answering while a partial batch of the
delayed model is still held. Where it is about when the delay counts from,
requests keep arriving well inside the delay and the test asserts that a batch
left meanwhile, and which requests it held; where it is about not waiting for
the delay, the delay is an hour, so a batch that waited would never run.
"""

import time

import pytest

from batching_util import expect_ok, ids_in_order, start_env
from util import executions_started, pending_count

QUEUE_DELAY_S = 2.0  # long beside the few requests a test sends while a batch waits
# The trickle tests: a request arrives every GAP_S, far inside TRICKLE_DELAY_S.
TRICKLE_DELAY_S = 2.0
GAP_S = 0.2
MAX_ARRIVALS = 30  # 6 s of arrivals, three times the delay
LEVELS = MAX_ARRIVALS + 1  # a priority level for "old" and for each arrival
HOUR_US = 3_600_000_000  # a max_queue_delay no test outlasts


@pytest.fixture(scope="module")
def env(inferd, tmp_path_factory):
    delay_us = int(QUEUE_DELAY_S * 1e6)
    return start_env(inferd, tmp_path_factory, {
        # preferred 4 is never reached in these tests
        "delayed": dict(max_batch_size=8, delay_ms=50, dynamic_batching=(
            f"preferred_batch_size: [ 4 ]\nmax_queue_delay_microseconds: {delay_us}")),
        "undelayed": dict(max_batch_size=8, delay_ms=50,
                          dynamic_batching="preferred_batch_size: [ 4 ]"),
        # no preferred size, room for every arrival of a trickle
        "trickle": dict(max_batch_size=64, delay_ms=50, dynamic_batching=(
            f"max_queue_delay_microseconds: {int(TRICKLE_DELAY_S * 1e6)}")),
        # the same with a priority level for each arrival
        "trickle_levels": dict(max_batch_size=64, delay_ms=50, dynamic_batching=(
            f"max_queue_delay_microseconds: {int(TRICKLE_DELAY_S * 1e6)}\n"
            f"priority_levels: {LEVELS}\ndefault_priority_level: {LEVELS}")),
        # no preferred size; a delay of an hour that a full batch must not wait for
        "full": dict(max_batch_size=4, delay_ms=50,
                     dynamic_batching=f"max_queue_delay_microseconds: {HOUR_US}"),
    })


def queued_and_started(env, model, executions_before):
    """(pending gauge, executions started since `executions_before`) of `model`:
    (n, 0) while n requests wait in its queue and nothing has run."""
    return (pending_count(env.server, model),
            executions_started(env.server, model) - executions_before)


def test_partial_batch_waits_for_the_delay_then_goes_as_it_is(env):
    """Three requests (no preferred size can be formed) stay queued together,
    with no execution started, while a request to a model without delay is
    batched, executed and answered; then, with nothing else sent, they leave
    by themselves as one batch of 3."""
    before = len(env.record("delayed"))
    executions_before = executions_started(env.server, "delayed")
    with env.exchange("delayed") as ex, env.exchange("undelayed") as other:
        ex.sync_pending()
        futures = [ex.queue(f"d{i}") for i in range(3)]
        expect_ok(other.send("meanwhile"))
        seen = queued_and_started(env, "delayed", executions_before)
        assert seen == (3, 0), (
            f"(queued, executions started) of the partial batch: {seen}, expected (3, 0): "
            f"it did not stay queued for its delay ({QUEUE_DELAY_S}s) while a request to a "
            f"model without delay was answered: {env.record('delayed')[before:]}")
        for future in futures:
            expect_ok(future)
    # Answered: every execution is recorded (a line is written before responses).
    batches = env.record("delayed")[before:]
    assert [(b.rows, sorted(b.ids)) for b in batches] == [(3, ["d0", "d1", "d2"])], batches
    assert batches[0].ids == ["d0", "d1", "d2"], batches


def trickle(env, model, first_priority=None, priority_of=lambda k: None):
    """Queues "old", then sends n1, n2, ... one every GAP_S (well inside the
    queue delay) until an execution starts, at most MAX_ARRIVALS of them; waits
    for every answer. Returns (arrivals sent after "old", executions since).

    A delay counted from the newest request (or from the head of the queue,
    when each newcomer outranks the rest) would hold the batch as long as
    requests keep arriving: no execution would start before MAX_ARRIVALS."""
    before = len(env.record(model))
    started = executions_started(env.server, model)
    with env.exchange(model) as ex:
        ex.sync_pending()
        futures = {"old": ex.queue("old", priority=first_priority)}
        arrivals = 0
        while executions_started(env.server, model) == started:
            assert arrivals < MAX_ARRIVALS, (
                f"no batch left while a request arrived every {GAP_S}s for "
                f"{arrivals * GAP_S:.1f}s ({arrivals} of them), with a queue delay of "
                f"{TRICKLE_DELAY_S}s: the delay must count from the oldest request")
            # Kept: the scenario itself, requests arriving one after another.
            time.sleep(GAP_S)
            arrivals += 1
            futures[f"n{arrivals}"] = ex.send(f"n{arrivals}", priority=priority_of(arrivals))
        for future in futures.values():
            expect_ok(future)
    batches = env.wait_record(model, before + 1)[before:]
    assert sorted(ids_in_order(batches)) == sorted(futures), batches
    return arrivals, batches


def test_delay_counts_from_the_oldest_request(env):
    """Requests keep arriving, each well inside the delay after the previous
    one; the batch still leaves once the oldest has waited the delay, holding
    the oldest and those that came meanwhile, in arrival order."""
    arrivals, batches = trickle(env, "trickle")
    first = batches[0]
    assert first.ids[0] == "old", batches
    # The partial batch waited for the delay: n1 came GAP_S after "old" and joined.
    assert first.ids[:2] == ["old", "n1"], batches
    assert arrivals < MAX_ARRIVALS


def test_delay_counts_from_the_oldest_request_whatever_its_priority(env):
    """A lowest-priority request waits; then requests arrive one after another,
    each of a higher priority than all before it, so each becomes the head of
    the queue. The batch still leaves once the low-priority request has waited
    the delay, highest priority first, the low-priority request last."""
    arrivals, batches = trickle(env, "trickle_levels", first_priority=LEVELS,
                                priority_of=lambda k: LEVELS - k)
    first = batches[0]
    assert first.ids[-1] == "old", f"the oldest request must be in the batch it timed: {batches}"
    joined = len(first.ids) - 1
    assert joined >= 1, f"the partial batch did not wait for the delay: {batches}"
    assert first.ids == [f"n{k}" for k in range(joined, 0, -1)] + ["old"], batches


def test_without_a_delay_a_partial_batch_goes_at_once(env):
    """A lone request to a model with a preferred size but no queue delay is
    executed and answered while a partial batch of the model with a delay is
    still held in its queue: it waited neither for a batch to fill nor as long
    as that delay."""
    before = len(env.record("undelayed"))
    executions_before = executions_started(env.server, "delayed")
    with env.exchange("delayed") as delayed, env.exchange("undelayed") as ex:
        delayed.sync_pending()
        waiting = delayed.queue("held")
        expect_ok(ex.send("alone"))
        seen = queued_and_started(env, "delayed", executions_before)
        assert seen == (1, 0), (
            f"(queued, executions started) of the delayed model: {seen}, expected (1, 0): "
            "the lone request to the model without delay waited longer than the other "
            f"model's queue delay ({QUEUE_DELAY_S}s)")
        expect_ok(waiting)
    batches = env.record("undelayed")[before:]
    assert [(b.rows, b.ids) for b in batches] == [(1, ["alone"])], batches


def test_a_full_batch_does_not_wait_for_the_delay(env):
    with env.exchange("full") as ex:
        futures = [ex.send(f"f{i}") for i in range(4)]
        for future in futures:
            expect_ok(future)
    # The first requests wait for the others (a delay of an hour); the fourth
    # fills max_batch_size and the batch goes at once: had it waited for the
    # delay, it would not have run at all.
    batches = env.wait_record("full", 1)
    assert [(b.rows, sorted(b.ids)) for b in batches] == [(4, ["f0", "f1", "f2", "f3"])]
