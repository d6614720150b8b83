"""Concurrent unary calls, HTTP and gRPC at once, to models without a batcher.

A short model's request may execute on the thread that received it when an
instance is idle, or wait for an instance's own thread (docs/scheduling.md, Instances);
which one happens depends on timing. Either way:

- every client gets the answer to its own request, and every request executes
  exactly once (the identity backend's record names each execution's request);
- an instance executes one request at a time: the recorded executions of one
  instance never overlap;
- statistics count each request once, as one execution;
- a request of such a model that turns out slow, executing on an HTTP thread,
  does not stop the server from answering other HTTP requests meanwhile.
"""

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import requests
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from util import executions_started, record_lines, settled_stats, single_identity, wait_until

CLIENTS_PER_PROTOCOL = 6
REQUESTS_PER_CLIENT = 40


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return tmp_path_factory.mktemp("records")


def recorded(name, records, instances=1):
    return single_identity(name, "INT32", [4], extra=f"""
instance_group [ {{ count: {instances}, kind: KIND_CPU }} ]
parameters {{ key: "record_file" value: {{ string_value: "{records / (name + '.txt')}" }} }}
""")


@pytest.fixture(scope="module")
def server(inferd, records):
    return inferd({"one": recorded("one", records), "two": recorded("two", records, 2),
                   "slow_later": recorded("slow_later", records),
                   "other": single_identity("other", "INT32", [4])})


def values(client, i):
    return np.array([client, i, -i, 7 * client + i], dtype=np.int32)


def client_loop(triton_module, address, model, client):
    """One client's requests, one after the other, each checked against its own data."""
    with triton_module.InferenceServerClient(address) as triton:
        for i in range(REQUESTS_PER_CLIENT):
            data = values(client, i)
            tensor = triton_module.InferInput("INPUT0", [4], "INT32")
            tensor.set_data_from_numpy(data)
            result = triton.infer(model, [tensor], request_id=f"c{client}-{i}")
            np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), data)


def executions(path):
    """(instance, start_ns, end_ns, request ids) of each recorded execution."""
    out = []
    for line in record_lines(path):
        instance, rows, start, end, ids = line.split(" ")
        out.append((instance, int(start), int(end), ids.split(",")))
    return out


@pytest.mark.parametrize("model", ["one", "two"])
def test_concurrent_clients_each_get_their_answer_and_each_request_runs_once(server, records,
                                                                              model):
    loops = [((httpclient, server.address), c) for c in range(CLIENTS_PER_PROTOCOL)]
    loops += [((grpcclient, server.grpc_address), CLIENTS_PER_PROTOCOL + c)
              for c in range(CLIENTS_PER_PROTOCOL)]
    with ThreadPoolExecutor(len(loops)) as pool:
        for future in [pool.submit(client_loop, *protocol, model, client)
                       for protocol, client in loops]:
            future.result()

    total = len(loops) * REQUESTS_PER_CLIENT
    stats = settled_stats(server, model)
    assert int(stats["inference_count"]) == total
    assert int(stats["execution_count"]) == total
    assert int(stats["inference_stats"]["success"]["count"]) == total
    assert int(stats["inference_stats"]["fail"]["count"]) == 0

    recorded_executions = wait_until(
        lambda: (found := executions(records / f"{model}.txt")) and len(found) == total and found,
        what=f"{total} executions of {model!r} recorded")
    ids = [request_id for _, _, _, batch in recorded_executions for request_id in batch]
    assert sorted(ids) == sorted(f"c{c}-{i}" for _, c in loops for i in range(REQUESTS_PER_CLIENT))
    by_instance = {}
    for instance, start, end, _ in recorded_executions:
        by_instance.setdefault(instance, []).append((start, end))
    assert len(by_instance) <= (2 if model == "two" else 1)
    for instance, spans in by_instance.items():
        spans.sort()
        for (_, end), (next_start, _) in zip(spans, spans[1:]):
            assert end <= next_start, f"instance {instance} ran two executions at once"


def test_a_short_model_turning_slow_on_an_http_thread_leaves_http_serving(server, records):
    # Enough quick executions for the model to count as short.
    with requests.Session() as session:
        for i in range(12):
            body = {"inputs": [{"name": "INPUT0", "datatype": "INT32", "shape": [4],
                                "data": [i, i, i, i]}]}
            resp = session.post(f"{server.url}/v2/models/slow_later/infer", json=body, timeout=10)
            assert resp.status_code == 200, resp.text

    slow_body = {"inputs": [{"name": "INPUT0", "datatype": "INT32", "shape": [4],
                             "data": [1, 2, 3, 4]}],
                 "parameters": {"execute_delay_ms": 3000}}
    started_before = executions_started(server, "slow_later")
    slow_done = threading.Event()

    def send_slow():
        resp = requests.post(f"{server.url}/v2/models/slow_later/infer", json=slow_body,
                             timeout=30)
        assert resp.status_code == 200, resp.text
        slow_done.set()

    sender = threading.Thread(target=send_slow)
    sender.start()
    try:
        wait_until(lambda: executions_started(server, "slow_later") == started_before + 1,
                   what="the slow request executing")
        # While it executes, fresh connections are answered over HTTP.
        for i in range(20):
            body = {"inputs": [{"name": "INPUT0", "datatype": "INT32", "shape": [4],
                                "data": [i, 0, 0, i]}]}
            resp = requests.post(f"{server.url}/v2/models/other/infer", json=body, timeout=10)
            assert resp.status_code == 200, resp.text
            assert resp.json()["outputs"][0]["data"] == [i, 0, 0, i]
        assert requests.get(f"{server.url}/v2/health/ready", timeout=10).status_code == 200
        assert not slow_done.is_set(), "the slow request ended before the others were served"
    finally:
        sender.join()
    assert slow_done.is_set()
