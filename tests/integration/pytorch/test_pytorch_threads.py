"""INTRA_OP_THREAD_COUNT sizes each instance's OpenMP team, and its default
shares the cores among a model's instances.

LibTorch runs a large elementwise operator on an OpenMP team of the instance
thread's intra-op size, and libgomp keeps the team's threads: the server
process gains (size - 1) threads at the first large request of an instance.
Checked by counting /proc/<pid>/task after a small request (no team) and after
large ones: 4 threads gives 3 more, 1 gives none, and the default for a single
instance gives one per core but the instance's own (LibTorch's own default
would differ on machines where it counts physical cores only).
"""

import os

import numpy as np
import pytest
import requests

from torch_models import Relu, TorchModel, save, script, torch_config, torch_repository
from util import binary_request

LARGE = 1 << 20  # elements: far above LibTorch's grain size, so the whole team works
CORES = os.cpu_count() or 1


def threads_parameter(count: int) -> str:
    return f'parameters {{ key: "INTRA_OP_THREAD_COUNT" value: {{ string_value: "{count}" }} }}\n'


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    relu = save(script(Relu()))
    tensors = dict(inputs=[("INPUT__0", "FP32", [-1])], outputs=[("OUTPUT__0", "FP32", [-1])])
    return inferd(torch_repository(tmp_path_factory.mktemp("repo"), {
        "four_threads": TorchModel(relu, torch_config("four_threads", **tensors,
                                                      extra=threads_parameter(4))),
        "one_thread": TorchModel(relu, torch_config("one_thread", **tensors,
                                                    extra=threads_parameter(1))),
        "default_threads": TorchModel(relu, torch_config("default_threads", **tensors)),
    }))


def new_threads_of_large_requests(server, model: str) -> int:
    session = requests.Session()

    def infer(elements):
        x = np.linspace(-1, 1, elements, dtype=np.float32)
        body, headers = binary_request([("INPUT__0", "FP32", x)])
        resp = session.post(f"{server.url}/v2/models/{model}/infer", data=body, headers=headers,
                            timeout=60)
        assert resp.status_code == 200, resp.text

    def threads():
        return len(os.listdir(f"/proc/{server.process.pid}/task"))

    infer(1)  # the instance's first execution, below any grain size: no team yet
    before = threads()
    infer(LARGE)
    infer(LARGE)
    return threads() - before


@pytest.mark.parametrize("model, expected", [("four_threads", 3), ("one_thread", 0),
                                             ("default_threads", CORES - 1)])
def test_each_instance_gets_its_intra_op_team(server, model, expected):
    assert new_threads_of_large_requests(server, model) == expected
