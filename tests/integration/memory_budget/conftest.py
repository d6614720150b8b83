"""Fixtures for the memory-budget tests: `sizes` measures, once per module, the
bytes the server attributes to one weights model and to the Python holder
model, so that each test can give a budget that holds a known number of them
whatever this machine's allocator and runtime add."""

from __future__ import annotations

import pytest

from budget_models import budget_metrics, holder_model, infer, write_onnx_models
from util import write_repository


@pytest.fixture(scope="module")
def sizes(inferd, tmp_path_factory):
    repo = tmp_path_factory.mktemp("probe")
    write_onnx_models(repo, {"first": 1, "second": 2})
    holder_dir = tmp_path_factory.mktemp("holder")
    (holder_dir / "release").touch()  # answers at once here
    write_repository(repo, {"holder": holder_model("holder", holder_dir)})
    server = inferd(repo, ["--model-memory-budget=4G"])
    client = server.client()
    infer(client, "first", 1)  # the first of the backend: its own costs are not the model's
    infer(client, "second", 2)
    client.infer("holder", [_index_input()])
    samples = budget_metrics(server)
    server.stop()
    return {"onnx": samples[("inferd_model_memory_bytes", "second")],
            "onnx_first": samples[("inferd_model_memory_bytes", "first")],
            "holder": samples[("inferd_model_memory_bytes", "holder")]}


def _index_input():
    import numpy as np
    import tritonclient.http as httpclient

    inp = httpclient.InferInput("INDEX", [4], "INT64")
    inp.set_data_from_numpy(np.arange(4, dtype=np.int64))
    return inp
