"""request.timeout() in a model.py is the client's request timeout in
microseconds, as Triton's python backend gives it
(TRITONBACKEND_RequestTimeoutMicroseconds; here INFERD_RequestTimeoutMicroseconds):

- tritonclient's infer(timeout=N) sends it as the request parameter "timeout"
  over HTTP and gRPC alike; the model reads N back, each of concurrent
  (possibly batched) requests its own;
- a request without one reads 0; gRPC's client_timeout (the call's deadline)
  is no request timeout and reads 0 too.

That the server honours the timeout in the queue is test_queue_policy.py's.
"""

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

import python_models as pm
from util import wait_until

TIMEOUT_ECHO = '''
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def execute(self, requests):
        responses = []
        for request in requests:
            timeout = np.array([[request.timeout()]], dtype=np.int64)
            responses.append(pb_utils.InferenceResponse(
                output_tensors=[pb_utils.Tensor("TIMEOUT_US", timeout)]))
        return responses
'''

TIMEOUT_ECHO_CONFIG = pm.config(
    "timeout_echo", [("X", "TYPE_INT32", [1])], [("TIMEOUT_US", "TYPE_INT64", [1])],
    max_batch_size=4, extra="""dynamic_batching {
  default_queue_policy { allow_timeout_override: true }
}
""")


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({"timeout_echo": pm.python_model(TIMEOUT_ECHO_CONFIG, TIMEOUT_ECHO)})


def client_and_module(server, protocol):
    if protocol == "http":
        return server.client(), httpclient
    return server.grpc_client(), grpcclient


def timeout_seen(client, module, **kwargs):
    x = module.InferInput("X", [1, 1], "INT32")
    x.set_data_from_numpy(np.array([[1]], dtype=np.int32))
    result = client.infer("timeout_echo", [x], **kwargs)
    return int(result.as_numpy("TIMEOUT_US")[0][0])


@pytest.mark.parametrize("protocol", ["http", "grpc"])
@pytest.mark.parametrize("timeout_us", [2_500_000, 3_600_000_000])
def test_the_model_reads_the_clients_timeout_in_microseconds(server, protocol, timeout_us):
    client, module = client_and_module(server, protocol)
    assert timeout_seen(client, module, timeout=timeout_us) == timeout_us


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_a_request_without_a_timeout_reads_zero(server, protocol):
    client, module = client_and_module(server, protocol)
    assert timeout_seen(client, module) == 0


def test_grpc_client_timeout_is_a_deadline_not_a_request_timeout(server):
    assert timeout_seen(server.grpc_client(), grpcclient, client_timeout=30.0) == 0


def test_concurrent_requests_each_read_their_own_timeout(server):
    client = server.grpc_client()
    results = {}
    timeouts = [0, 5_000_000, 7_000_000, 9_000_000]

    def done(timeout_us):
        return lambda result, error: results.__setitem__(timeout_us, (result, error))

    for timeout_us in timeouts:
        x = grpcclient.InferInput("X", [1, 1], "INT32")
        x.set_data_from_numpy(np.array([[1]], dtype=np.int32))
        kwargs = {"timeout": timeout_us} if timeout_us else {}
        client.async_infer("timeout_echo", [x], done(timeout_us), **kwargs)
    wait_until(lambda: len(results) == len(timeouts), what="all four responses")
    for timeout_us, (result, error) in results.items():
        assert error is None, error
        assert int(result.as_numpy("TIMEOUT_US")[0][0]) == timeout_us
