"""The rest of Triton's documented Python API, on its own (no server): the
datatype helpers, InferenceRequest's arguments and their checks, and the
asyncio pieces under async_exec (a BLS call's replies reach a thread or a
coroutine; its ResponseIterator reads them with `for` or `async for`)."""

import asyncio
import sys
import threading

import numpy as np
import pytest

from util import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "backends" / "python" / "python"))
import triton_python_backend_utils as pb_utils  # noqa: E402
from inferd_stub_async import CallReplies, EventLoop  # noqa: E402


def test_datatype_helpers_answer_as_tritons():
    assert pb_utils.numpy_to_triton_type(np.float32) == 11
    assert pb_utils.numpy_to_triton_type(np.object_) == 13
    assert pb_utils.numpy_to_triton_type(np.bytes_) == 13
    assert pb_utils.numpy_to_triton_type(np.complex64) is None
    assert pb_utils.triton_to_numpy_type(8) is np.int32
    assert pb_utils.triton_to_numpy_type(13) is np.object_
    assert pb_utils.triton_to_numpy_type(99) is None
    assert pb_utils.TRITON_STRING_TO_NUMPY["TYPE_STRING"] is np.object_
    assert pb_utils.TRITON_STRING_TO_NUMPY["TYPE_FP16"] is np.float16
    assert pb_utils.using_decoupled_model_transaction_policy(
        {"model_transaction_policy": {"decoupled": True}})
    assert not pb_utils.using_decoupled_model_transaction_policy({})


def test_inference_request_takes_tritons_arguments():
    x = pb_utils.Tensor("X", np.zeros(1, np.int32))
    request = pb_utils.InferenceRequest(
        model_name="m", inputs=[x], requested_output_names=["Y"], request_id="1",
        correlation_id="ex-4", model_version=1, flags=pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_START,
        timeout=5, parameters={"k": "v", "n": 3, "b": True},
        preferred_memory=pb_utils.PreferredMemory(pb_utils.TRITONSERVER_MEMORY_GPU, 0))
    assert request.correlation_id() == "ex-4"
    assert request.timeout() == 5
    assert request.flags() == 1
    request.set_flags(pb_utils.TRITONSERVER_REQUEST_FLAG_SEQUENCE_END)
    assert request.flags() == 2
    assert request.trace().get_context() is None
    assert pb_utils.InferenceRequest(model_name="m", correlation_id=2**64 - 1).correlation_id() \
        == 2**64 - 1
    assert pb_utils.TRITONSERVER_MEMORY_CPU != pb_utils.TRITONSERVER_MEMORY_GPU


@pytest.mark.parametrize("kwargs, needle", [
    ({"correlation_id": -1}, "correlation_id"),
    ({"correlation_id": 1.5}, "correlation_id"),
    ({"timeout": -1}, "timeout"),
    ({"parameters": {"k": 1.5}}, "parameter 'k'"),
    ({"parameters": {1: "v"}}, "keys must be str"),
    ({"preferred_memory": "GPU"}, "PreferredMemory"),
])
def test_inference_request_refuses_what_triton_refuses(kwargs, needle):
    with pytest.raises(ValueError, match=needle):
        pb_utils.InferenceRequest(model_name="m", **kwargs)


def test_an_unknown_argument_is_a_type_error():
    with pytest.raises(TypeError):
        pb_utils.InferenceRequest(model_name="m", corelation_id=3)


def test_async_exec_outside_an_event_loop_is_refused():
    with pytest.raises(RuntimeError):
        pb_utils.InferenceRequest(model_name="m").async_exec()


class FakeStub:
    """The stub's side of a BLS call: messages are (response or None, final)."""

    def __init__(self):
        self.ended = []

    def bls_take(self, message):
        if message is None:
            raise pb_utils.TritonModelException("the server went away during a BLS call")
        return message

    def bls_end(self, call_id):
        self.ended.append(call_id)


def response(value):
    return pb_utils.InferenceResponse([pb_utils.Tensor("OUT", np.array([value], np.int32))])


def values(responses):
    return [int(r.output_tensors()[0].as_numpy()[0]) if r.output_tensors() else None
            for r in responses]


def test_a_response_iterator_reads_with_for_and_ends_with_an_empty_final():
    stub, replies = FakeStub(), CallReplies()
    iterator = pb_utils.ResponseIterator(stub, 7, replies, pb_utils.InferenceResponse)
    for message in [(response(1), False), (response(2), False), (None, True)]:
        replies.put(message)
    assert values(iterator) == [1, 2, None]  # Triton's empty last response
    assert stub.ended == [7]
    assert values(iterator) == [1, 2, None]  # iterated again from the first


def test_closed_replies_hand_back_what_was_not_read_and_refuse_more():
    replies = CallReplies()
    assert replies.put("a")
    assert replies.close() == ["a"]  # the stub frees their blocks
    assert not replies.put("b")  # the reader frees this one itself


def test_replies_reach_a_coroutine_from_another_thread():
    stub, replies = FakeStub(), CallReplies()
    iterator = pb_utils.ResponseIterator(stub, 1, replies, pb_utils.InferenceResponse)

    async def read():
        threading.Thread(target=lambda: [replies.put((response(i), i == 2))
                                         for i in range(3)]).start()
        return [r async for r in iterator]

    assert values(asyncio.run(read())) == [0, 1, 2]


def test_first_is_the_first_response_with_a_body():
    stub, replies = FakeStub(), CallReplies()
    iterator = pb_utils.ResponseIterator(stub, 1, replies, pb_utils.InferenceResponse)
    replies.put((response(5), False))
    replies.put((None, True))
    assert values([iterator.first()]) == [5]
    empty = pb_utils.ResponseIterator(stub, 2, CallReplies(), pb_utils.InferenceResponse)
    empty._replies.put((None, True))
    assert empty.first() is None


def test_a_server_that_went_away_ends_the_iteration_with_an_exception():
    stub, replies = FakeStub(), CallReplies()
    iterator = pb_utils.ResponseIterator(stub, 3, replies, pb_utils.InferenceResponse)
    replies.put(None)
    with pytest.raises(pb_utils.TritonModelException, match="went away"):
        next(iterator)
    assert stub.ended == [3]


def test_the_event_loop_runs_coroutines_and_reports_background_errors():
    loop = EventLoop()

    async def double(x):
        await asyncio.sleep(0)
        return 2 * x

    assert loop.run(double(21)) == 42
    errors = []
    done = threading.Event()

    async def fails():
        raise ValueError("late")

    loop.start(fails(), lambda exc: (errors.append(exc), done.set()))
    assert done.wait(10)
    assert isinstance(errors[0], ValueError)
    loop.stop()


def test_a_tensor_speaks_the_dlpack_protocol_itself():
    array = np.arange(4, dtype=np.int16)
    tensor = pb_utils.Tensor("X", array)
    assert tensor.__dlpack_device__() == (1, 0)
    assert tensor.is_cpu()
    shared = np.from_dlpack(tensor)  # no to_dlpack() needed, as Triton's
    array[0] = 9
    assert shared[0] == 9
    back = pb_utils.Tensor.from_dlpack("Y", tensor)
    assert back.triton_dtype() == 7  # INT16


def test_logger_lines_name_the_callers_file_and_line(capsys):
    pb_utils.Logger.log_warn("disk nearly full")
    line = sys._getframe().f_lineno - 1
    pb_utils.Logger.log("plain", pb_utils.Logger.LogLevel.ERROR)
    first, second = capsys.readouterr().err.splitlines()
    assert first.startswith("W") and first.endswith(
        f"test_pb_utils_api.py:{line}] disk nearly full"), first
    assert second.startswith("E") and second.endswith("] plain"), second


def test_a_coroutine_that_exits_does_not_stop_the_loop():
    loop = EventLoop()
    failed = threading.Event()

    async def exits():
        raise SystemExit(3)

    loop.start(exits(), lambda exc: failed.set())
    assert failed.wait(10)

    async def answer():
        return 42

    # Later coroutines still run (bounded: a dead loop would never answer).
    assert asyncio.run_coroutine_threadsafe(answer(), loop._get()).result(timeout=10) == 42
    loop.stop()
