"""Request rescheduling (iterative sequences), with model.py files in the style
of Triton's Python-backend documentation ("Request Rescheduling"): a model
with `sequence_batching { iterative_sequence: true }` calls
request.set_release_flags(pb_utils.TRITONSERVER_REQUEST_RELEASE_RESCHEDULE)
in execute(), and the same request comes back in a later execute(), one step
per execution, until a normal release ends it.

- decoupled: one response per execution from the response sender, FINAL on
  the last, driven by tritonclient's gRPC stream (several sequences at once,
  one slot each, or batched together by the oldest strategy);
- not decoupled: None in the returned list while rescheduling, the one
  response at the end;
- statistics count each execution, as Triton's do;
- a model without iterative_sequence that reschedules gets a clear error (its
  client, not the server, pays: the next requests are served).
"""

import json
import queue

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

import python_models as pm

WAIT_S = 20

# Counts down from IN: sends IN-1, IN-2, ..., 0 (the last with FINAL), one per
# execution, rescheduling the request in between. State per sequence: the
# batcher gives each request its own correlation id.
COUNTDOWN = '''
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.remaining = {}

    def execute(self, requests):
        for request in requests:
            key = request.correlation_id()
            start = pb_utils.get_input_tensor_by_name(request, "IN").as_numpy()
            if key not in self.remaining:
                self.remaining[key] = int(start.flatten()[0])
            self.remaining[key] -= 1
            left = self.remaining[key]
            out = pb_utils.Tensor("OUT", np.full(start.shape, left, np.int32))
            response = pb_utils.InferenceResponse(output_tensors=[out])
            sender = request.get_response_sender()
            if left <= 0:
                del self.remaining[key]
                sender.send(response, flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
            else:
                request.set_release_flags(pb_utils.TRITONSERVER_REQUEST_RELEASE_RESCHEDULE)
                sender.send(response)
        return None
'''

ITERATIVE = "model_transaction_policy { decoupled: true }\n"
COUNTDOWN_CONFIG = pm.config(
    "countdown", [("IN", "TYPE_INT32", [1])], [("OUT", "TYPE_INT32", [1])],
    extra=ITERATIVE + "sequence_batching { iterative_sequence: true }\n"
                      "instance_group [ { count: 2 kind: KIND_CPU } ]\n")
BATCHED_CONFIG = pm.config(
    "countdown_batched", [("IN", "TYPE_INT32", [1])], [("OUT", "TYPE_INT32", [1])],
    max_batch_size=4,
    extra=ITERATIVE + "sequence_batching { iterative_sequence: true\n"
                      "  oldest { max_candidate_sequences: 4 } }\n")

# Not decoupled, as in Triton's README: None for a rescheduled request, the
# response when done; Y is how many executions it took.
STEPS = '''
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.runs = {}

    def execute(self, requests):
        responses = []
        for request in requests:
            key = request.correlation_id()
            self.runs[key] = self.runs.get(key, 0) + 1
            want = int(pb_utils.get_input_tensor_by_name(request, "X").as_numpy()[0])
            if self.runs[key] < want:
                request.set_release_flags(pb_utils.TRITONSERVER_REQUEST_RELEASE_RESCHEDULE)
                responses.append(None)
                continue
            y = np.array([self.runs.pop(key)], np.int32)
            responses.append(pb_utils.InferenceResponse([pb_utils.Tensor("Y", y)]))
        return responses
'''
STEPS_CONFIG = pm.config("steps", [("X", "TYPE_INT32", [1])], [("Y", "TYPE_INT32", [1])],
                         extra="sequence_batching { iterative_sequence: true }\n")

# Reschedules when X is 1, where it may not: the client gets the error.
MISPLACED = '''
import json

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.decoupled = pb_utils.using_decoupled_model_transaction_policy(
            json.loads(args["model_config"]))

    def execute(self, requests):
        responses = []
        for request in requests:
            x = pb_utils.get_input_tensor_by_name(request, "X").as_numpy()
            response = pb_utils.InferenceResponse([pb_utils.Tensor("Y", x)])
            if int(x.flatten()[0]) == 1:
                request.set_release_flags(pb_utils.TRITONSERVER_REQUEST_RELEASE_RESCHEDULE)
                response = None
            if self.decoupled:
                if response is not None:
                    request.get_response_sender().send(
                        response, flags=pb_utils.TRITONSERVER_RESPONSE_COMPLETE_FINAL)
            else:
                responses.append(response)
        return None if self.decoupled else responses
'''


def misplaced_config(name, extra):
    return pm.config(name, [("X", "TYPE_INT32", [1])], [("Y", "TYPE_INT32", [1])], extra=extra)


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({
        "countdown": pm.python_model(COUNTDOWN_CONFIG, COUNTDOWN),
        "countdown_batched": pm.python_model(BATCHED_CONFIG, COUNTDOWN),
        "countdown_async": pm.python_model(
            COUNTDOWN_CONFIG.replace('"countdown"', '"countdown_async"'),
            COUNTDOWN.replace("    def execute", "    async def execute")),
        "steps": pm.python_model(STEPS_CONFIG, STEPS),
        "dynamic": pm.python_model(misplaced_config("dynamic", "dynamic_batching { }\n"),
                                   MISPLACED),
        "plain_sequence": pm.python_model(
            misplaced_config("plain_sequence", "sequence_batching { }\n"), MISPLACED),
        "decoupled_plain": pm.python_model(
            misplaced_config("decoupled_plain", "model_transaction_policy { decoupled: true }\n"),
            MISPLACED),
    })


def stream_countdowns(server, model, starts, shape=(1,)):
    """Sends one request per start value on one stream; each request's OUT
    values, in arrival order, until every request got its FINAL."""
    client = server.grpc_client()
    results = queue.Queue()
    client.start_stream(callback=lambda result, error: results.put((result, error)))
    got = {str(i): [] for i in range(len(starts))}
    try:
        for i, start in enumerate(starts):
            tensor = grpcclient.InferInput("IN", list(shape), "INT32")
            tensor.set_data_from_numpy(np.full(shape, start, np.int32))
            client.async_stream_infer(model, [tensor], request_id=str(i),
                                      enable_empty_final_response=True)
        finals = 0
        while finals < len(starts):
            result, error = results.get(timeout=WAIT_S)
            assert error is None, error
            response = result.get_response()
            if response.outputs:
                got[response.id].append(int(result.as_numpy("OUT").flatten()[0]))
            if response.parameters["triton_final_response"].bool_param:
                finals += 1
    finally:
        client.stop_stream()
    return [got[str(i)] for i in range(len(starts))]


def execution_stats(server, model):
    stats = server.grpc_client().get_inference_statistics(model).model_stats[0]
    return (stats.inference_stats.success.count, stats.inference_count, stats.execution_count)


def test_an_iterative_sequence_streams_one_response_per_execution(server):
    before = execution_stats(server, "countdown")
    assert stream_countdowns(server, "countdown", [4]) == [[3, 2, 1, 0]]
    success, inferences, executions = execution_stats(server, "countdown")
    # As Triton counts a rescheduled request: each execution is an inference.
    assert (success - before[0], inferences - before[1], executions - before[2]) == (4, 4, 4)


def test_generate_stream_sends_each_step_as_an_event(server):
    # Triton's own iterative-sequence test drives it this way too.
    reply = server.post("/v2/models/countdown/generate_stream", json={"IN": 3}, stream=True)
    assert reply.status_code == 200, reply.text
    events = [json.loads(line[len(b"data: "):]) for line in reply.iter_lines()
              if line.startswith(b"data: ")]
    assert [event["OUT"] for event in events] == [2, 1, 0]


def test_an_async_execute_reschedules_too(server):
    # Its coroutine is run to its end first: only then are its flags known.
    assert stream_countdowns(server, "countdown_async", [3, 2]) == [[2, 1, 0], [1, 0]]


def test_sequences_at_once_each_get_their_own_countdown(server):
    starts = [5, 3, 1, 4, 2]  # more sequences than the 2 instances' slots: some wait
    assert stream_countdowns(server, "countdown", starts) == [
        list(range(s - 1, -1, -1)) for s in starts]


def test_the_oldest_strategy_batches_the_iterations_of_several_sequences(server):
    before = execution_stats(server, "countdown_batched")
    starts = [6, 2, 4]
    assert stream_countdowns(server, "countdown_batched", starts, shape=(1, 1)) == [
        list(range(s - 1, -1, -1)) for s in starts]
    success, inferences, executions = execution_stats(server, "countdown_batched")
    assert success - before[0] == inferences - before[1] == sum(starts)
    assert executions - before[2] <= sum(starts)


def test_a_model_that_is_not_decoupled_returns_none_while_it_reschedules(server):
    client = server.grpc_client()
    x = grpcclient.InferInput("X", [1], "INT32")
    x.set_data_from_numpy(np.array([3], np.int32))
    result = client.infer("steps", [x])
    assert result.as_numpy("Y").tolist() == [3]  # answered by its third execution


@pytest.mark.parametrize("model", ["dynamic", "plain_sequence", "decoupled_plain"])
def test_rescheduling_where_it_is_not_allowed_fails_that_request_only(server, model):
    sequence = {"sequence_id": 11, "sequence_start": True, "sequence_end": True} \
        if model == "plain_sequence" else {}
    client = server.grpc_client()
    results = queue.Queue()
    client.start_stream(callback=lambda result, error: results.put((result, error)))
    try:
        for value in (1, 2):
            x = grpcclient.InferInput("X", [1], "INT32")
            x.set_data_from_numpy(np.array([value], np.int32))
            client.async_stream_infer(model, [x], request_id=str(value), **sequence)
        first = results.get(timeout=WAIT_S)
        second = results.get(timeout=WAIT_S)
    finally:
        client.stop_stream()
    errors = [e for _, e in (first, second) if e is not None]
    answers = [r for r, _ in (first, second) if r is not None]
    assert len(errors) == 1 and isinstance(errors[0], InferenceServerException)
    assert "Request is released with TRITONSERVER_REQUEST_RELEASE_RESCHEDULE" in str(errors[0])
    assert "iterative_sequence: true" in str(errors[0])
    assert [a.as_numpy("Y").tolist() for a in answers] == [[2]], "the other request is served"
    # And the iterative model next door still works.
    assert stream_countdowns(server, "countdown", [2]) == [[1, 0]]
