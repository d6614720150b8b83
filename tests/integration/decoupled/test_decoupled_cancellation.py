"""A client that goes away cancels its streaming requests, and the backend
observes it: the repeat backend checks before every response whether its
request was cancelled and records "cancelled <id> after <k> responses" when it
stops. Both ways of going away count: cancelling the stream (tritonclient's
stop_stream(cancel_requests=True)) and closing the channel under a stream.
The server serves on.
"""

import re
import threading

import grpc
import pytest
from tritonclient.grpc import service_pb2, service_pb2_grpc

from decoupled_util import Stream, assert_responses, repeat_config, repeat_input, wait_record

SLOW_N = 1000  # 50 ms apart: the stream would last 50 s


@pytest.fixture(scope="module")
def server(inferd, records):
    return inferd({"slow": repeat_config("slow", delay_ms=50, record_file=records / "slow.txt")})


def cancelled_after(line: str) -> int:
    found = re.fullmatch(r"cancelled \S+ after (\d+) responses", line)
    assert found, line
    return int(found.group(1))


def test_cancelling_the_stream_stops_the_backend(server, records):
    stream = Stream(server)
    stream.send("slow", list(range(SLOW_N)), "walked_away")
    stream.wait_messages("walked_away", 2)
    stream.close(cancel=True)
    line = wait_record(records / "slow.txt", "cancelled walked_away ")
    assert 2 <= cancelled_after(line) < SLOW_N


def test_closing_the_channel_stops_the_backend(server, records):
    request = service_pb2.ModelInferRequest(model_name="slow", id="hung_up")
    tensor = repeat_input(list(range(SLOW_N)))
    request.inputs.extend([tensor._get_tensor()])
    request.raw_input_contents.extend([tensor._get_content()])
    keep_open = threading.Event()

    def requests():  # sends one request, then keeps the client's side open
        yield request
        keep_open.wait()

    channel = grpc.insecure_channel(server.grpc_address)
    responses = service_pb2_grpc.GRPCInferenceServiceStub(channel).ModelStreamInfer(requests())
    try:
        first = next(responses)
        assert first.error_message == "" and first.infer_response.id == "hung_up"
        channel.close()
        line = wait_record(records / "slow.txt", "cancelled hung_up ")
        assert 1 <= cancelled_after(line) < SLOW_N
    finally:
        keep_open.set()


def test_the_server_serves_on_after_cancellations(server):
    stream = Stream(server)
    try:
        stream.send("slow", [1, 2], "afterwards", delay_ms=0, enable_empty_final_response=True)
        assert_responses(stream.wait_final("afterwards")[:-1], [1, 2])
    finally:
        stream.close()
