"""Request cancellation over HTTP: a client that disconnects while its request
waits in the dynamic batcher's queue has that request removed — it never
reaches the backend (its id never appears in the record file), the requests
around it are batched and answered as if it had never been sent, and the
pending gauge returns to where it was — at once, even while the instance is
still busy with another request.

The disconnecting client is a raw socket that writes a complete inference
request and then closes (orderly FIN, or an abortive RST via SO_LINGER 0)
while the single instance is busy with a blocking request.
"""

import socket
import struct

import pytest

from batching_util import (expect_ok, ids_in_order, pending_count, raw_infer, start_env,
                           wait_until)

DELAY_MS = 400
SLOW_MS = 4000  # an execution long enough to see a cancellation handled during it


@pytest.fixture(scope="module")
def env(inferd, tmp_path_factory):
    return start_env(inferd, tmp_path_factory, {
        "single": dict(max_batch_size=1, delay_ms=DELAY_MS),
        "batched": dict(max_batch_size=8, delay_ms=DELAY_MS),
        "slow": dict(max_batch_size=1, delay_ms=SLOW_MS),
    })


def close(sock: socket.socket, abortive: bool) -> None:
    if abortive:  # RST instead of FIN
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()


@pytest.mark.parametrize("abortive", [False, True], ids=["fin", "rst"])
def test_a_disconnected_queued_request_never_runs(env, abortive):
    model = "single"
    ex, futures, before = env.queue_behind_blocker(model, [("kept1", {})])
    with ex:
        sock = raw_infer(env.server.port, model, "gone")
        ex.expect_queued("the raw request")
        futures["kept2"] = ex.queue("kept2")
        env.assert_busy(model, before)
        close(sock, abortive)
        for future in futures.values():
            expect_ok(future)
    batches = env.wait_record(model, before + 3)[before:]
    assert ids_in_order(batches) == ["blocker", "kept1", "kept2"]
    env.wait_idle(model)  # a wrongly kept request would be queued, executing or recorded
    assert "gone" not in ids_in_order(env.record(model))
    wait_until("nothing pending", lambda: pending_count(env.server, model) == 0, timeout_s=5)


def test_a_cancelled_request_leaves_the_batch_it_would_have_joined(env):
    model = "batched"
    ex, futures, before = env.queue_behind_blocker(model, [("a", {})])
    with ex:
        socks = []
        for request_id in ("gone1", "gone2"):
            socks.append(raw_infer(env.server.port, model, request_id))
            ex.expect_queued(request_id)
        futures["b"] = ex.queue("b")
        env.assert_busy(model, before)
        for sock in socks:
            close(sock, abortive=False)
        for future in futures.values():
            expect_ok(future)
    batches = env.wait_record(model, before + 2)[before:]
    assert [(b.rows, b.ids) for b in batches] == [(1, ["blocker"]), (2, ["a", "b"])]
    stats = env.stats(model)
    assert stats["inference_count"] == sum(b.rows for b in env.record(model)), stats
    wait_until("nothing pending", lambda: pending_count(env.server, model) == 0, timeout_s=5)


def test_a_client_leaving_during_execution_does_not_disturb_the_server(env):
    """The request already runs when its client leaves: it completes in the
    backend (recorded), nobody reads the answer, and the server keeps serving."""
    model = "single"
    before = len(env.record(model))
    queued_before = env.stats(model)["inference_stats"]["queue"]["count"]
    sock = raw_infer(env.server.port, model, "running")
    with env.exchange(model) as ex:
        ex.wait_executing(queued_before + 1)
        close(sock, abortive=True)
        after = expect_ok(ex.send("after"))
    assert after.body["outputs"][0]["data"] == [0, 1, 2, 3]
    assert ids_in_order(env.wait_record(model, before + 2)[before:]) == ["running", "after"]
    wait_until("nothing pending", lambda: pending_count(env.server, model) == 0, timeout_s=5)


def test_a_cancelled_request_leaves_the_queue_while_the_instance_is_busy(env):
    model = "slow"
    ex, futures, before = env.queue_behind_blocker(model, [])
    with ex:
        sock = raw_infer(env.server.port, model, "gone")
        ex.expect_queued("the raw request")
        waiting = pending_count(env.server, model)  # "gone" among them
        close(sock, abortive=False)
        # Dropped while the blocker still executes, not when the instance frees up.
        wait_until("the cancelled request dropped",
                   lambda: pending_count(env.server, model) == waiting - 1,
                   timeout_s=SLOW_MS / 1000 / 2)
        assert not futures["blocker"].done()
        expect_ok(futures["blocker"])
    assert ids_in_order(env.wait_record(model, before + 1)[before:]) == ["blocker"]
