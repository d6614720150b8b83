"""Idle sequences are released, and sequences beyond the free slots wait.

An idle sequence (no request within max_sequence_idle_microseconds) loses its
slot: the backend gets one last request for it marked END (READY true, INPUT
zero-filled), seen in the accumulate backend's record file; a later request
for it without START is an error naming the model and the sequence, and a
START begins it afresh. A release frees the slot for a waiting sequence.
With one slot (max_batch_size 1, one instance), three sequences started at
once run one after another in the order their STARTs arrived, none lost.
"""

import concurrent.futures

import pytest
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from sequence_models import accumulate_config, http_inputs, http_step, records, wait_for_record
from util import REQUEST_TIMEOUT_S, pending_count, wait_until

IDLE_US = 200_000


@pytest.fixture(scope="module")
def record_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("records")


@pytest.fixture(scope="module")
def server(inferd, record_dir):
    return inferd({
        "acc_idle": accumulate_config("acc_idle", record_dir / "acc_idle.txt", idle_us=IDLE_US),
        "acc_idle_one": accumulate_config("acc_idle_one", record_dir / "acc_idle_one.txt",
                                          max_batch_size=1, idle_us=IDLE_US),
        # Never idle within a test (the helper's default): only the backlog's order shows.
        "acc_one": accumulate_config("acc_one", record_dir / "acc_one.txt", max_batch_size=1),
    })


def request_threads():
    """For requests in flight at once, each on a thread with a client of its
    own (tritonclient's async_infer runs on gevent, which may not send at all
    while the test polls with blocking calls on a loaded machine)."""
    return concurrent.futures.ThreadPoolExecutor(max_workers=4)


def start_async(pool, server, model, sid, value):
    """Starts sequence `sid` of `model` with `value` on a thread of `pool`."""
    def send():
        client = httpclient.InferenceServerClient(
            url=server.address, connection_timeout=REQUEST_TIMEOUT_S,
            network_timeout=3 * REQUEST_TIMEOUT_S)
        try:
            return client.infer(model, http_inputs(value), sequence_id=sid, sequence_start=True,
                                outputs=[httpclient.InferRequestedOutput("OUTPUT")])
        finally:
            client.close()
    return pool.submit(send)


def output_of(request):
    return request.result(timeout=3 * REQUEST_TIMEOUT_S).as_numpy("OUTPUT").flatten().tolist()


def test_idle_sequence_is_released_with_an_end_request(server, record_dir):
    client = server.client()
    path = record_dir / "acc_idle.txt"
    # One request, so that no request of the test races the idle timer.
    assert http_step(client, "acc_idle", 8001, 7, start=True) == {"OUTPUT": [7]}
    # The server's own END request for the idle sequence reaches the backend.
    release = wait_for_record(path, lambda r: r["corrid"] == "8001" and r["end"] == 1,
                              "the END request of idle sequence 8001")
    assert (release["start"], release["ready"], release["input"], release["output"]) == (
        0, 1, 0, 7)
    with pytest.raises(InferenceServerException) as error:
        http_step(client, "acc_idle", 8001, 1)
    assert "acc_idle" in str(error.value) and "8001" in str(error.value), error.value
    # Released once: no other END for it, and the failed request never ran.
    assert [r for r in records(path) if r["corrid"] == "8001"][-1] == release
    # The id can start again.
    assert http_step(client, "acc_idle", 8001, 40, start=True, end=True) == {"OUTPUT": [40]}


def test_idle_release_frees_the_slot_for_a_waiting_sequence(server, record_dir):
    # One slot: 8102 waits behind 8101 until 8101 goes idle and is released.
    pool = request_threads()
    path = record_dir / "acc_idle_one.txt"
    try:
        assert output_of(start_async(pool, server, "acc_idle_one", 8101, 1)) == [1]
        waiting = start_async(pool, server, "acc_idle_one", 8102, 50)
        assert output_of(waiting) == [50]
    finally:
        pool.shutdown()
    rows = records(path)
    ends = [i for i, r in enumerate(rows) if r["corrid"] == "8101" and r["end"]]
    starts = [i for i, r in enumerate(rows) if r["corrid"] == "8102" and r["start"]]
    assert len(ends) == 1 and len(starts) == 1 and ends[0] < starts[0], rows


def test_sequences_beyond_the_free_slots_wait_and_run_in_order(server, record_dir):
    pool = request_threads()
    try:
        assert output_of(start_async(pool, server, "acc_one", 8201, 1)) == [1]
        # 8202 and 8203 start while 8201 holds the only slot: they wait, in
        # that order (each seen queued before the next is sent).
        second = start_async(pool, server, "acc_one", 8202, 10)
        wait_until(lambda: pending_count(server, "acc_one") == 1, what="8202 queued")
        third = start_async(pool, server, "acc_one", 8203, 100)
        wait_until(lambda: pending_count(server, "acc_one") == 2, what="8203 queued")
        assert http_step(server.client(), "acc_one", 8201, 2) == {"OUTPUT": [3]}
        assert http_step(server.client(), "acc_one", 8201, 3, end=True) == {"OUTPUT": [6]}
        assert output_of(second) == [10]
        assert http_step(server.client(), "acc_one", 8202, 20, end=True) == {"OUTPUT": [30]}
        assert output_of(third) == [100]
        assert http_step(server.client(), "acc_one", 8203, 200, end=True) == {"OUTPUT": [300]}
    finally:
        pool.shutdown()
    order = [(r["corrid"], r["input"]) for r in records(record_dir / "acc_one.txt")]
    assert order == [("8201", 1), ("8201", 2), ("8201", 3), ("8202", 10), ("8202", 20),
                     ("8203", 100), ("8203", 200)]
    assert pending_count(server, "acc_one") == 0
