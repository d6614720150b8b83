"""Many streams at once: 50 requests in flight on one stream are each answered
in order, interleaved with a long request that is still streaming when all 50
have ended; several streams at once each get exactly their own requests'
responses. The repeat backend serves them all from one worker thread.
"""

import threading

import pytest

from decoupled_util import Stream, assert_responses, repeat_config, wait_record

CONCURRENT = 50


@pytest.fixture(scope="module")
def server(inferd, records):
    return inferd({"repeat": repeat_config("repeat", record_file=records / "repeat.txt")})


def values_of(i):
    return [1000 * i + k for k in range(5 + i % 7)]


def test_50_requests_interleave_on_one_stream(server, records):
    stream = Stream(server)
    try:
        # A long stream (1000 responses, 20 ms apart), already under way...
        stream.send("repeat", list(range(1000)), "anchor", delay_ms=20)
        stream.wait_messages("anchor", 1)
        # ...while 50 more run to their ends beside it.
        for i in range(CONCURRENT):
            stream.send("repeat", values_of(i), f"r{i}", delay_ms=1,
                        enable_empty_final_response=True)
        for i in range(CONCURRENT):
            messages = stream.wait_final(f"r{i}")
            assert len(messages) == len(values_of(i)) + 1
            assert_responses(messages[:-1], values_of(i))
            assert messages[-1].final and messages[-1].empty
        anchor = stream.messages("anchor")
        assert not any(m.final for m in anchor) and len(anchor) < 1000
        assert_responses(anchor, list(range(len(anchor))))
    finally:
        stream.close(cancel=True)
    wait_record(records / "repeat.txt", "cancelled anchor after")


def test_several_streams_at_once_get_their_own_responses(server):
    streams = [Stream(server) for _ in range(4)]

    def run(s, stream):
        for i in range(10):
            stream.send("repeat", values_of(i), f"s{s}-{i}", delay_ms=2,
                        enable_empty_final_response=True)

    senders = [threading.Thread(target=run, args=(s, stream)) for s, stream in enumerate(streams)]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join()
    try:
        for s, stream in enumerate(streams):
            for i in range(10):
                messages = stream.wait_final(f"s{s}-{i}")
                assert_responses(messages[:-1], values_of(i))
            assert {m.request_id for m in stream.messages()} == {f"s{s}-{i}" for i in range(10)}
    finally:
        for stream in streams:
            stream.close()
