"""--grpc-thread-count: gRPC calls served by several completion queues.

- With three queues (each polled by its own thread), twelve clients on their own
  connections, unary calls and streams at once, each get the answers to their own
  requests, and the statistics count every request once.
- The server still stops cleanly with calls and a stream open on several queues.
- 0 is refused at start, naming the flag.
"""

import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import tritonclient.grpc as grpcclient

from util import backend_directory, inferd_binary, settled_stats, single_identity

CLIENTS = 12
REQUESTS = 25


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({"echo": single_identity("echo", "INT32", [4])},
                  extra_args=["--grpc-thread-count=3"])


def data(client, i):
    return np.array([client, i, -i, 1000 * client + i], dtype=np.int32)


def request(client, i):
    tensor = grpcclient.InferInput("INPUT0", [4], "INT32")
    tensor.set_data_from_numpy(data(client, i))
    return tensor


def unary_client(address, client):
    with grpcclient.InferenceServerClient(address) as triton:
        assert triton.is_model_ready("echo")
        for i in range(REQUESTS):
            result = triton.infer("echo", [request(client, i)], request_id=f"{client}-{i}")
            np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), data(client, i))
            assert result.get_response().id == f"{client}-{i}"


def stream_client(address, client):
    answers = []
    done = threading.Event()

    def on_answer(result, error):
        answers.append(error or result)
        if len(answers) == REQUESTS:
            done.set()

    with grpcclient.InferenceServerClient(address) as triton:
        triton.start_stream(callback=on_answer)
        for i in range(REQUESTS):
            triton.async_stream_infer("echo", [request(client, i)], request_id=str(i))
        assert done.wait(30), f"{len(answers)} of {REQUESTS} stream answers"
        triton.stop_stream()
    for answer in answers:
        assert not isinstance(answer, Exception), answer
        i = int(answer.get_response().id)
        np.testing.assert_array_equal(answer.as_numpy("OUTPUT0"), data(client, i))


def test_many_clients_on_three_queues_each_get_their_own_answers(server):
    streams = 2
    with ThreadPoolExecutor(CLIENTS + streams) as pool:
        futures = [pool.submit(unary_client, server.grpc_address, c) for c in range(CLIENTS)]
        futures += [pool.submit(stream_client, server.grpc_address, CLIENTS + s)
                    for s in range(streams)]
        for future in futures:
            future.result()
    stats = settled_stats(server, "echo")
    assert stats["inference_stats"]["success"]["count"] == (CLIENTS + streams) * REQUESTS


def test_zero_threads_is_refused_at_start_naming_the_flag(tmp_path):
    repo = tmp_path / "empty"
    repo.mkdir()
    result = subprocess.run([str(inferd_binary()), f"--model-repository={repo}",
                             f"--backend-directory={backend_directory()}", "--http-port=0",
                             "--grpc-port=0", "--metrics-port=0", "--grpc-thread-count=0"],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert "--grpc-thread-count" in result.stdout + result.stderr
