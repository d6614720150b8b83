"""Models and probes for the memory-budget tests: ONNX models whose weights
take a known number of bytes (made at test time with the onnx package), a
Python model that holds a request until a file appears, the repository index,
the budget's metric families, and the resident memory of the server's process
tree read from /proc."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from util import Model, wait_until

WEIGHT_FLOATS = 512 * 1024  # 2 MiB of float32 weights per model
INDEX = np.array([0, 1, 2, 3], dtype=np.int64)


def onnx_model_bytes(model_id: int, floats: int = WEIGHT_FLOATS) -> bytes:
    """VALUE = W[INDEX]: the weights W (model_id * 1024 + j % 1024) stay in
    memory (a Gather on an input cannot be folded away at load), and the
    answer tells which model gave it."""
    weights = (np.arange(floats, dtype=np.int64) % 1024 + model_id * 1024).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Gather", ["W", "INDEX"], ["VALUE"], axis=0)], "weights",
        [helper.make_tensor_value_info("INDEX", TensorProto.INT64, [4])],
        [helper.make_tensor_value_info("VALUE", TensorProto.FLOAT, [4])],
        [numpy_helper.from_array(weights, "W")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="inferd memory-budget tests")
    model.ir_version = 8
    return model.SerializeToString()


def expected_value(model_id: int) -> np.ndarray:
    return (model_id * 1024 + INDEX).astype(np.float32)


def onnx_config(name: str, extra: str = "") -> str:
    return textwrap.dedent(f"""\
        name: "{name}"
        platform: "onnxruntime_onnx"
        max_batch_size: 0
        input [ {{ name: "INDEX" data_type: TYPE_INT64 dims: [ 4 ] }} ]
        output [ {{ name: "VALUE" data_type: TYPE_FP32 dims: [ 4 ] }} ]
        instance_group [ {{ kind: KIND_CPU count: 1 }} ]
        """) + extra


PIN = 'parameters { key: "inferd.pin" value: { string_value: "true" } }\n'


def write_onnx_models(root: Path, names_ids: dict[str, int], extra: str = "",
                      floats: int = WEIGHT_FLOATS) -> None:
    for name, model_id in names_ids.items():
        folder = root / name
        (folder / "1").mkdir(parents=True)
        (folder / "config.pbtxt").write_text(onnx_config(name, extra))
        (folder / "1" / "model.onnx").write_bytes(onnx_model_bytes(model_id, floats))


def infer(client, name: str, model_id: int, grpc: bool = False) -> None:
    """One request through tritonclient (HTTP client, or gRPC with grpc=True);
    raises on error or a wrong answer."""
    if grpc:
        import tritonclient.grpc as tc
    else:
        import tritonclient.http as tc
    inp = tc.InferInput("INDEX", [4], "INT64")
    inp.set_data_from_numpy(INDEX)
    result = client.infer(name, [inp])
    value = result.as_numpy("VALUE")
    if not np.array_equal(value, expected_value(model_id)):
        raise AssertionError(f"{name} answered {value}, expected {expected_value(model_id)}")


# A Python model whose execute writes <dir>/entered and then waits until
# <dir>/release exists: a request held in flight, observably.
HOLDER_SOURCE = '''
import os
import time

import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    def initialize(self, args):
        self.dir = "{folder}"

    def execute(self, requests):
        open(os.path.join(self.dir, "entered"), "w").close()
        while not os.path.exists(os.path.join(self.dir, "release")):
            time.sleep(0.005)
        out = np.arange(4, dtype=np.float32)
        return [pb_utils.InferenceResponse([pb_utils.Tensor("VALUE", out)]) for _ in requests]
'''


def holder_model(name: str, folder: Path) -> Model:
    config = textwrap.dedent(f"""\
        name: "{name}"
        backend: "python"
        max_batch_size: 0
        input [ {{ name: "INDEX" data_type: TYPE_INT64 dims: [ 4 ] }} ]
        output [ {{ name: "VALUE" data_type: TYPE_FP32 dims: [ 4 ] }} ]
        instance_group [ {{ kind: KIND_CPU count: 1 }} ]
        """)
    return Model(config=config, files={"1/model.py": HOLDER_SOURCE.format(folder=folder)})


def index(server) -> dict[str, dict]:
    """The repository index by model name."""
    response = server.post("/v2/repository/index", json={})
    response.raise_for_status()
    return {entry["name"]: entry for entry in response.json()}


_SAMPLE_RE = re.compile(r'^(\w+)(?:\{model="([^"]*)"\})? (\d+)$')


def budget_metrics(server) -> dict[tuple[str, str], int]:
    """The budget's samples: (family, model or "") -> value."""
    import requests

    text = requests.get(f"http://127.0.0.1:{server.metrics_port}/metrics", timeout=10).text
    samples = {}
    for line in text.splitlines():
        match = _SAMPLE_RE.match(line)
        if match and match.group(1).startswith("inferd_model_"):
            samples[(match.group(1), match.group(2) or "")] = int(match.group(3))
    return samples


def family_total(samples: dict, family: str) -> int:
    return sum(v for (f, _), v in samples.items() if f == family)


def tree_rss_bytes(pid: int) -> int:
    """VmRSS of `pid` and of every process descending from it."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        parent = int(stat[stat.rindex(")") + 2:].split()[1])
        children.setdefault(parent, []).append(int(entry.name))
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            status = Path(f"/proc/{current}/status").read_text()
        except OSError:
            continue
        match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.M)
        total += int(match.group(1)) * 1024 if match else 0
        pending.extend(children.get(current, []))
    return total


def run_threads(target, count: int) -> float:
    """Runs target(slot) on `count` threads at once; the seconds until all end."""
    import threading
    import time

    threads = [threading.Thread(target=target, args=(slot,)) for slot in range(count)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.monotonic() - started


def wait_for_file(path: Path, timeout: float = 30.0) -> None:
    wait_until(path.exists, timeout=timeout, what=f"{path} to appear")
