"""What goes wrong, and how it reaches the client:
- a repeat model that is not decoupled fails to load, the reason naming the policy;
- an error response mid-stream (error_at) reaches the client as an error for
  that request, whose later responses still come, while another request on
  the same stream is untouched;
- the unary endpoints (gRPC ModelInfer, HTTP /infer) refuse a decoupled model
  with UNIMPLEMENTED / 501 naming the policy;
- a backend that drops its sender without FINAL (abandon) gets its request
  ended with an error naming the model, and the server serves on;
- a send after FINAL (send_after_final) is refused, and the client sees
  nothing of it.
"""

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

from decoupled_util import Stream, assert_responses, repeat_config, repeat_input, wait_record
from util import assert_error, json_request, record_lines, wait_until


@pytest.fixture(scope="module")
def server(inferd, records):
    return inferd({
        "repeat": repeat_config("repeat", record_file=records / "repeat.txt"),
        "not_decoupled": repeat_config("not_decoupled", decoupled=False),
    }, extra_args=["--exit-on-error=false"], wait_for="live")


def test_a_repeat_model_that_is_not_decoupled_fails_to_load(server):
    index = {e["name"]: e for e in server.post("/v2/repository/index").json()}
    assert index["repeat"]["state"] == "READY"
    entry = index["not_decoupled"]
    assert entry["state"] == "UNAVAILABLE"
    assert "not_decoupled" in entry["reason"] and "decoupled: true" in entry["reason"]


def test_an_error_mid_stream_is_that_requests_and_the_stream_goes_on(server):
    stream = Stream(server)
    try:
        stream.send("repeat", [10, 11, 12, 13, 14], "bad", error_at=2,
                    enable_empty_final_response=True)
        stream.send("repeat", [20, 21, 22], "good", enable_empty_final_response=True)
        bad = stream.wait_final("bad")
        assert [m.error is not None for m in bad] == [False, False, True, False, False, False]
        message = str(bad[2].error)
        assert "repeat" in message and "response 2" in message
        assert_responses([bad[0], bad[1]], [10, 11])
        assert [int(m.value("IDX")) for m in bad[3:5]] == [3, 4]
        assert bad[-1].empty
        good = stream.wait_final("good")
        assert_responses(good[:-1], [20, 21, 22])
    finally:
        stream.close(cancel=True)


def test_grpc_model_infer_refuses_a_decoupled_model(server):
    client = server.grpc_client()
    try:
        with pytest.raises(InferenceServerException) as refused:
            client.infer("repeat", [repeat_input([1, 2])])
        assert refused.value.status() == "StatusCode.UNIMPLEMENTED"
        assert "decoupled" in refused.value.message()
    finally:
        client.close()


def test_http_infer_refuses_a_decoupled_model(server):
    body = json_request([("IN", "INT32", np.array([1, 2], dtype=np.int32))])
    assert_error(server.post("/v2/models/repeat/infer", json=body), 501, "decoupled")


def test_a_sender_dropped_without_final_ends_the_request_with_an_error(server, records):
    stream = Stream(server)
    try:
        stream.send("repeat", [1, 2], "dropped", abandon=True)
        wait_record(records / "repeat.txt", "abandoned dropped 2")
        errors = wait_until(lambda: [m for m in stream.messages() if m.error is not None],
                            what="the error ending the abandoned request")
        assert len(errors) == 1 and "repeat" in str(errors[0].error)
        assert_responses([m for m in stream.messages() if m.error is None], [1, 2])
        # The server serves on, on the same stream.
        stream.send("repeat", [3], "after", enable_empty_final_response=True)
        assert_responses(stream.wait_final("after")[:-1], [3])
    finally:
        stream.close(cancel=True)


def test_a_send_after_final_is_refused_and_never_delivered(server, records):
    stream = Stream(server)
    stream.send("repeat", [5], "late", send_after_final=True, enable_empty_final_response=True)
    line = wait_record(records / "repeat.txt", "send after final")
    assert line.startswith("send after final refused: "), line
    wait_record(records / "repeat.txt", "done late 1")
    stream.close()  # every message is in
    messages = stream.messages()
    assert len(messages) == 2 and messages[-1].final and messages[-1].empty
    assert_responses(messages[:1], [5])
    assert not any("send after final accepted" in l for l in record_lines(records / "repeat.txt"))
