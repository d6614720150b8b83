"""ModelStreamInfer on decoupled models (the repeat backend): N responses per
request in order, N = 0, 1 and 1000, for numbers and strings; how FINAL
reaches the client: with enable_empty_final_response one empty response marked
triton_final_response comes last; without it the N responses are all there
is; with final_with_last the last response carries the mark itself. A request
parameter of the wrong type is an error for that request only.
"""

import pytest

from decoupled_util import Stream, assert_responses, repeat_config, wait_record


@pytest.fixture(scope="module")
def server(inferd, records):
    return inferd({
        "repeat_int32": repeat_config("repeat_int32", record_file=records / "int32.txt"),
        "repeat_bytes": repeat_config("repeat_bytes", "BYTES"),
        "repeat_fp32": repeat_config("repeat_fp32", "FP32", index_output=False),
    })


@pytest.fixture
def stream(server):
    opened = Stream(server)
    yield opened
    opened.close(cancel=True)


@pytest.mark.parametrize("count", [0, 1, 1000])
def test_n_responses_in_order_then_one_empty_final(stream, count):
    values = [7 * k - 3 for k in range(count)]
    stream.send("repeat_int32", values, f"n{count}", enable_empty_final_response=True)
    messages = stream.wait_final(f"n{count}")
    assert len(messages) == count + 1
    assert_responses(messages[:-1], values)
    assert [m.final for m in messages] == [False] * count + [True]
    last = messages[-1].result.get_response()
    assert len(last.outputs) == 0 and last.id == f"n{count}" and last.model_name == "repeat_int32"


def test_strings_stream_back_one_by_one(stream):
    words = [b"hello", b"", b"caf\xc3\xa9", b"x" * 300]
    stream.send("repeat_bytes", words, "words", datatype="BYTES",
                enable_empty_final_response=True)
    assert_responses(stream.wait_final("words")[:-1], words, "BYTES")


def test_a_model_with_one_output_sends_only_the_values(stream):
    values = [0.5, -2.25, 1e30]
    stream.send("repeat_fp32", values, "floats", datatype="FP32",
                enable_empty_final_response=True)
    messages = stream.wait_final("floats")
    assert [o.name for o in messages[0].result.get_response().outputs] == ["OUT"]
    assert_responses(messages[:-1], values, "FP32", index_output=False)


def test_without_empty_final_response_only_the_responses_come(server, records):
    stream = Stream(server)
    stream.send("repeat_int32", [1, 2, 3], "plain")
    stream.send("repeat_int32", [], "nothing")
    wait_record(records / "int32.txt", "done nothing 0")
    stream.close()  # returns once the server finished the stream: every message is in
    messages = stream.messages()
    assert [m.request_id for m in messages] == ["plain"] * 3
    assert_responses(messages, [1, 2, 3])
    assert not any(m.final for m in messages)  # FINAL came alone, and was not sent


@pytest.mark.parametrize("enable_empty_final", [False, True])
def test_final_with_last_marks_the_last_response(server, enable_empty_final):
    stream = Stream(server)
    stream.send("repeat_int32", [4, 5, 6], "last", final_with_last=True,
                enable_empty_final_response=enable_empty_final)
    stream.close()
    messages = stream.messages()
    assert_responses(messages, [4, 5, 6])
    assert [m.final for m in messages] == [False, False, True]  # and no empty one


def test_final_with_last_and_nothing_to_send_is_one_empty_final(stream):
    stream.send("repeat_int32", [], "none", final_with_last=True,
                enable_empty_final_response=True)
    messages = stream.wait_final("none")
    assert len(messages) == 1 and messages[0].empty


def test_a_parameter_of_the_wrong_type_fails_that_request_only(server):
    stream = Stream(server)
    stream.send("repeat_int32", [1, 2], "bad", delay_ms="soon")
    stream.send("repeat_int32", [1, 2], "good")
    stream.close()
    errors = [m for m in stream.messages() if m.error is not None]
    assert len(errors) == 1
    assert "delay_ms" in str(errors[0].error) and "repeat_int32" in str(errors[0].error)
    assert_responses(stream.messages("good"), [1, 2])
