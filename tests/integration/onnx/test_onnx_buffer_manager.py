"""--buffer-manager-thread-count: the server starts that many copy threads, and
the ONNX Runtime backend gathers large batches through them (each request's
256 KiB input copied into the batch in pieces across the threads) with every
request still answered with its own rows."""

from __future__ import annotations

import concurrent.futures
from pathlib import Path

import numpy as np
import pytest
import tritonclient.http as httpclient

from onnx_graphs import OnnxModel, onnx_config, onnx_repository, relu_graph
from util import model_stats

WIDTH = 65536  # FP32: 256 KiB a row
REQUESTS = 8
MODEL = "wide_relu"


def repository(root: Path) -> Path:
    return onnx_repository(root, {MODEL: OnnxModel(relu_graph(["batch", WIDTH]), onnx_config(
        MODEL, [("INPUT0", "FP32", [WIDTH])], [("OUTPUT0", "FP32", [WIDTH])], max_batch_size=8,
        extra="dynamic_batching { max_queue_delay_microseconds: 1000000 }\n"
              "instance_group [ { count: 1, kind: KIND_CPU } ]\n"))})


def copy_threads(pid: int) -> int:
    return sum(1 for comm in Path(f"/proc/{pid}/task").glob("*/comm")
               if comm.read_text().strip() == "inferd-copy")


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    return inferd(repository(tmp_path_factory.mktemp("repo")),
                  extra_args=["--buffer-manager-thread-count=2"])


def infer(server, values: np.ndarray) -> np.ndarray:
    client = httpclient.InferenceServerClient(server.address)
    try:
        tensor = httpclient.InferInput("INPUT0", list(values.shape), "FP32")
        tensor.set_data_from_numpy(values, binary_data=True)
        result = client.infer(MODEL, [tensor])
        return result.as_numpy("OUTPUT0")
    finally:
        client.close()


def test_the_server_runs_the_copy_threads_asked_for(server):
    assert copy_threads(server.process.pid) == 2


def test_batches_gathered_by_the_copy_threads_answer_each_request(server):
    rng = np.random.default_rng(3)
    inputs = [rng.standard_normal((1, WIDTH)).astype(np.float32) for _ in range(REQUESTS)]
    with concurrent.futures.ThreadPoolExecutor(REQUESTS) as pool:
        outputs = list(pool.map(lambda x: infer(server, x), inputs))
    for values, out in zip(inputs, outputs):
        np.testing.assert_array_equal(out, np.maximum(values, 0))
    stats = model_stats(server, MODEL)
    # Batches of several requests were formed: those are the gathered copies.
    assert stats["execution_count"] < stats["inference_count"] == REQUESTS, stats


def test_without_the_flag_there_are_no_copy_threads(inferd, tmp_path):
    plain = inferd(repository(tmp_path / "repo"))
    assert copy_threads(plain.process.pid) == 0
    values = np.linspace(-1, 1, WIDTH, dtype=np.float32).reshape(1, WIDTH)
    np.testing.assert_array_equal(infer(plain, values), np.maximum(values, 0))
