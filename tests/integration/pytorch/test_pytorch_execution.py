"""How the pytorch backend runs modules: batches, instances and parameters.

Checked: eight concurrent one-row requests under a dynamic batcher that waits
for eight run in one forward() call (the model adds the row count it was called
with); two instances of one model run at the same time and read their inputs
from the client's system shared memory without a copy (each forward() marks
its flag in the shared region and waits until the client, having seen both
marks, releases them); INFERENCE_MODE (default on) decides whether forward()
sees inference tensors, autograd off either way; DISABLE_OPTIMIZED_EXECUTION
and the thread counts are accepted and results stay right.
"""

import concurrent.futures

import numpy as np
import pytest
import tritonclient.http as httpclient
import tritonclient.utils.shared_memory as shm

from torch_models import (BatchSize, GradState, Rendezvous, TorchModel, save, script,
                          torch_config, torch_repository)
from util import assert_equal_tensors, binary_request, parse_infer_response, wait_until

PARAMETERS = """
parameters { key: "INFERENCE_MODE" value: { string_value: "false" } }
parameters { key: "DISABLE_OPTIMIZED_EXECUTION" value: { string_value: "true" } }
parameters { key: "INTRA_OP_THREAD_COUNT" value: { string_value: "1" } }
parameters { key: "INTER_OP_THREAD_COUNT" value: { string_value: "1" } }
parameters { key: "ENABLE_NVFUSER" value: { string_value: "false" } }
"""
GRAD_TENSORS = dict(inputs=[("INPUT__0", "FP32", [1])], outputs=[("STATE__0", "INT64", [2])],
                    max_batch_size=4)


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    grad_state = save(script(GradState()))
    repo = torch_repository(tmp_path_factory.mktemp("repo"), {
        "batch_size": TorchModel(save(script(BatchSize())), torch_config(
            "batch_size", [("INPUT__0", "FP32", [2])], [("OUTPUT__0", "FP32", [2])],
            max_batch_size=8,
            extra="dynamic_batching { preferred_batch_size: [ 8 ] "
                  "max_queue_delay_microseconds: 30000000 }\n")),
        "rendezvous": TorchModel(save(script(Rendezvous())), torch_config(
            "rendezvous", [("FLAGS__0", "INT64", [3]), ("ME__1", "INT64", [1])],
            [("STATE__0", "INT64", [2])],
            extra="instance_group [ { count: 2, kind: KIND_CPU } ]\n")),
        "inference_mode": TorchModel(grad_state, torch_config("inference_mode", **GRAD_TENSORS)),
        "no_grad_only": TorchModel(grad_state, torch_config("no_grad_only", **GRAD_TENSORS,
                                                            extra=PARAMETERS)),
    })
    return inferd(repo)


def test_concurrent_rows_run_in_one_forward_call_under_the_dynamic_batcher(server):
    xs = [np.full((1, 2), float(i), dtype=np.float32) for i in range(8)]

    def infer(x):
        body, headers = binary_request([("INPUT__0", "FP32", x)])
        return parse_infer_response(server.post("/v2/models/batch_size/infer", data=body,
                                                headers=headers, timeout=60))

    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(infer, xs))
    for x, resp in zip(xs, results):
        assert_equal_tensors(resp.tensors["OUTPUT__0"], x + 8, "FP32")  # called with 8 rows
    stats = server.client().get_inference_statistics("batch_size")["model_stats"][0]
    assert stats["execution_count"] == 1 and stats["inference_count"] == 8, stats


@pytest.fixture
def flags_region(server):
    client = server.client()
    handle = shm.create_shared_memory_region("pytorch_flags", "/inferd_pytorch_flags", 24)
    shm.set_shared_memory_region(handle, [np.zeros(3, dtype=np.int64)])
    client.register_system_shared_memory("pytorch_flags", "/inferd_pytorch_flags", 24)
    yield handle
    client.unregister_system_shared_memory("pytorch_flags")
    shm.destroy_shared_memory_region(handle)


def test_two_instances_run_at_once_on_the_clients_shared_memory(server, flags_region):
    def infer(me):
        client = httpclient.InferenceServerClient(server.address, network_timeout=300)
        flags = httpclient.InferInput("FLAGS__0", [3], "INT64")
        flags.set_shared_memory("pytorch_flags", 24)
        index = httpclient.InferInput("ME__1", [1], "INT64")
        index.set_data_from_numpy(np.array([me], dtype=np.int64))
        return client.infer("rendezvous", [flags, index]).as_numpy("STATE__0")

    def flags():
        return shm.get_contents_as_numpy(flags_region, np.int64, [3]).tolist()

    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(infer, me) for me in (0, 1)]
        try:
            # Both marks at once: both forward() calls are running, each on its
            # own instance, and both write into the region itself.
            wait_until(lambda: flags()[:2] == [1, 1], timeout=60,
                       what=lambda: f"both instances marking the shared flags (flags {flags()})")
        finally:
            shm.set_shared_memory_region(flags_region, [np.array([1], dtype=np.int64)], offset=16)
        states = [f.result(timeout=300) for f in futures]
    for state in states:
        assert state[0] == 1, f"a forward() call was not released but gave up: {states}"


@pytest.mark.parametrize("model, expected", [("inference_mode", [1, 0]),
                                             ("no_grad_only", [0, 0])])
def test_inference_mode_decides_what_forward_sees(server, model, expected):
    x = np.zeros((3, 1), dtype=np.float32)
    body, headers = binary_request([("INPUT__0", "FP32", x)])
    resp = parse_infer_response(server.post(f"/v2/models/{model}/infer", data=body,
                                            headers=headers))
    assert_equal_tensors(resp.tensors["STATE__0"], np.array([expected] * 3), "INT64")
