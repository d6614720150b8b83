#!/usr/bin/env python3
"""Writes the ONNX models of examples/models with onnx's helper API.

    .venv/bin/python scripts/make_example_models.py   # `make run` and `make test` call it

- onnx_add_sub: OUTPUT0 = INPUT0 + INPUT1, OUTPUT1 = INPUT0 - INPUT1 (FP32, 16 per row).
- onnx_strings: OUTPUT0 = INPUT0, a string (BYTES) identity with a variable row length.
- onnx_mlp: a compute-bound MLP for benchmarks, 512 -> 2048 -> 2048 -> 2048 -> 16 with
  ReLU, weights from a seeded RNG (about 38 MB, so it is generated rather than committed;
  a batch of 64 takes well over 10 ms on one core).

Deterministic: the same bytes every run. A file is only rewritten when its bytes differ,
so a second run changes nothing. The small models are committed too; the MLP is
git-ignored.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

REPO_ROOT = Path(__file__).resolve().parents[1]
MODELS = REPO_ROOT / "examples" / "models"
OPSET = 13
MLP_WIDTHS = (512, 2048, 2048, 2048, 16)
MLP_SEED = 20240601


def finish(graph: onnx.GraphProto) -> bytes:
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name="inferd make_example_models.py")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def add_sub() -> bytes:
    def tensor(name):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch", 16])
    graph = helper.make_graph(
        [helper.make_node("Add", ["INPUT0", "INPUT1"], ["OUTPUT0"]),
         helper.make_node("Sub", ["INPUT0", "INPUT1"], ["OUTPUT1"])],
        "add_sub", [tensor("INPUT0"), tensor("INPUT1")], [tensor("OUTPUT0"), tensor("OUTPUT1")])
    return finish(graph)


def strings() -> bytes:
    graph = helper.make_graph(
        [helper.make_node("Identity", ["INPUT0"], ["OUTPUT0"])], "strings",
        [helper.make_tensor_value_info("INPUT0", TensorProto.STRING, ["batch", "length"])],
        [helper.make_tensor_value_info("OUTPUT0", TensorProto.STRING, ["batch", "length"])])
    return finish(graph)


def mlp() -> bytes:
    rng = np.random.default_rng(MLP_SEED)
    nodes, initializers = [], []
    current = "INPUT0"
    layers = list(zip(MLP_WIDTHS[:-1], MLP_WIDTHS[1:]))
    for i, (fan_in, fan_out) in enumerate(layers):
        weight = (rng.standard_normal((fan_in, fan_out)) / np.sqrt(fan_in)).astype(np.float32)
        bias = (rng.standard_normal(fan_out) * 0.01).astype(np.float32)
        initializers += [numpy_helper.from_array(weight, f"W{i}"),
                         numpy_helper.from_array(bias, f"B{i}")]
        last = i == len(layers) - 1
        gemm_out = "OUTPUT0" if last else f"gemm{i}"
        nodes.append(helper.make_node("Gemm", [current, f"W{i}", f"B{i}"], [gemm_out]))
        if not last:
            nodes.append(helper.make_node("Relu", [gemm_out], [f"relu{i}"]))
            current = f"relu{i}"
    graph = helper.make_graph(
        nodes, "mlp",
        [helper.make_tensor_value_info("INPUT0", TensorProto.FLOAT, ["batch", MLP_WIDTHS[0]])],
        [helper.make_tensor_value_info("OUTPUT0", TensorProto.FLOAT, ["batch", MLP_WIDTHS[-1]])],
        initializers)
    return finish(graph)


def write(path: Path, data: bytes) -> None:
    if path.is_file() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    print(f"make_example_models: wrote {path.relative_to(REPO_ROOT)} ({len(data)} bytes)")


def main() -> int:
    write(MODELS / "onnx_add_sub" / "1" / "model.onnx", add_sub())
    write(MODELS / "onnx_strings" / "1" / "model.onnx", strings())
    write(MODELS / "onnx_mlp" / "1" / "model.onnx", mlp())
    return 0


if __name__ == "__main__":
    sys.exit(main())
