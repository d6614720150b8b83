"""Shutdown with a full queue: on SIGTERM inferd stops admitting requests but
the ones already queued in the dynamic batcher were admitted, so they still
execute (the record shows them) and are answered 200 before inferd exits 0.
"""

import signal

from batching_util import expect_ok, ids_in_order, start_env

DELAY_MS = 300


def test_queued_requests_are_served_before_exit(inferd, tmp_path_factory):
    env = start_env(inferd, tmp_path_factory, {
        "m": dict(max_batch_size=1, delay_ms=DELAY_MS)})
    ex, futures, before = env.queue_behind_blocker("m", [(f"q{i}", {}) for i in range(3)])
    with ex:
        env.server.process.send_signal(signal.SIGTERM)
        for request_id, future in futures.items():
            result = expect_ok(future)
            assert result.body["id"] == request_id
    assert env.server.process.wait(timeout=10) == 0
    assert ids_in_order(env.record("m")) == ["blocker", "q0", "q1", "q2"]
