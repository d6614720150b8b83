"""ONNX models built at test time with onnx's helper API (Debian's python3-onnx),
and model repositories holding them.

    repo = onnx_repository(tmp_path, {"m": OnnxModel(add_graph(), ADD_CONFIG)})

Dimensions given as strings are symbolic (dynamic); integers are fixed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from util import Model, tensor_block, write_repository

OPSET = 13

# KServe datatype -> ONNX element type (Triton's table, plus BF16).
ONNX_TYPE = {
    "BOOL": TensorProto.BOOL,
    "UINT8": TensorProto.UINT8,
    "UINT16": TensorProto.UINT16,
    "UINT32": TensorProto.UINT32,
    "UINT64": TensorProto.UINT64,
    "INT8": TensorProto.INT8,
    "INT16": TensorProto.INT16,
    "INT32": TensorProto.INT32,
    "INT64": TensorProto.INT64,
    "FP16": TensorProto.FLOAT16,
    "BF16": TensorProto.BFLOAT16,
    "FP32": TensorProto.FLOAT,
    "FP64": TensorProto.DOUBLE,
    "BYTES": TensorProto.STRING,
}


@dataclass
class OnnxModel:
    """A model folder: the serialized model (written to <version>/<filename>),
    its config.pbtxt text (None: no config file), and version folders."""

    model: bytes
    config: str | None
    filename: str = "model.onnx"
    versions: Sequence[int] = (1,)
    files: Mapping[str, str] = field(default_factory=dict)


def serialize(nodes, inputs, outputs, initializers=()) -> bytes:
    graph = helper.make_graph(list(nodes), "test_graph", list(inputs), list(outputs),
                              list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def value(name: str, datatype: str, shape: Sequence) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, ONNX_TYPE[datatype], list(shape))


def identity_graph(datatype: str, shape: Sequence = ("batch", 3)) -> bytes:
    """OUTPUT0 = INPUT0."""
    return serialize([helper.make_node("Identity", ["INPUT0"], ["OUTPUT0"])],
                     [value("INPUT0", datatype, shape)], [value("OUTPUT0", datatype, shape)])


def cast_graph(from_type: str, to_type: str, shape: Sequence = ("batch", 3)) -> bytes:
    """OUTPUT0 = Cast(INPUT0)."""
    return serialize([helper.make_node("Cast", ["INPUT0"], ["OUTPUT0"], to=ONNX_TYPE[to_type])],
                     [value("INPUT0", from_type, shape)], [value("OUTPUT0", to_type, shape)])


def add_sub_graph(shape: Sequence = ("batch", 4), shape1: Sequence | None = None) -> bytes:
    """OUTPUT0 = INPUT0 + INPUT1, OUTPUT1 = INPUT0 - INPUT1 (FP32)."""
    shape1 = shape if shape1 is None else shape1
    out_shape = [f"o{i}" if isinstance(d, str) else d for i, d in enumerate(shape)]
    return serialize(
        [helper.make_node("Add", ["INPUT0", "INPUT1"], ["OUTPUT0"]),
         helper.make_node("Sub", ["INPUT0", "INPUT1"], ["OUTPUT1"])],
        [value("INPUT0", "FP32", shape), value("INPUT1", "FP32", shape1)],
        [value("OUTPUT0", "FP32", out_shape), value("OUTPUT1", "FP32", out_shape)])


def matmul_relu_graph(weight: np.ndarray) -> bytes:
    """OUTPUT0 = relu(INPUT0 @ weight), INPUT0 [batch, weight rows] FP32."""
    rows, cols = weight.shape
    return serialize(
        [helper.make_node("MatMul", ["INPUT0", "W"], ["mm"]),
         helper.make_node("Relu", ["mm"], ["OUTPUT0"])],
        [value("INPUT0", "FP32", ["batch", rows])], [value("OUTPUT0", "FP32", ["batch", cols])],
        [numpy_helper.from_array(weight.astype(np.float32), "W")])


def relu_graph(shape: Sequence) -> bytes:
    """OUTPUT0 = relu(INPUT0) for FP32 of any shape given."""
    return serialize([helper.make_node("Relu", ["INPUT0"], ["OUTPUT0"])],
                     [value("INPUT0", "FP32", shape)], [value("OUTPUT0", "FP32", shape)])


def onnx_config(name: str, inputs: Sequence[tuple[str, str, Sequence[int]]],
                outputs: Sequence[tuple[str, str, Sequence[int]]], max_batch_size: int = 0,
                extra: str = "", platform: bool = True) -> str:
    """config.pbtxt for an ONNX model; tensors are (name, datatype, dims)."""
    ins = ",\n".join(tensor_block(n, dt, dims) for n, dt, dims in inputs)
    outs = ",\n".join(tensor_block(n, dt, dims) for n, dt, dims in outputs)
    kind = 'platform: "onnxruntime_onnx"' if platform else 'backend: "onnxruntime"'
    return (f'name: "{name}"\n{kind}\nmax_batch_size: {max_batch_size}\n'
            f"input [\n{ins}\n]\noutput [\n{outs}\n]\n{extra}")


def onnx_repository(root: Path, models: Mapping[str, OnnxModel | str | Model]) -> Path:
    """Writes a repository: OnnxModel entries get their model file in each version
    folder; other entries are as util.write_repository takes them."""
    plain = {}
    for name, spec in models.items():
        if isinstance(spec, OnnxModel):
            plain[name] = Model(config=spec.config, versions=spec.versions, files=spec.files)
        else:
            plain[name] = spec
    write_repository(root, plain)
    for name, spec in models.items():
        if isinstance(spec, OnnxModel):
            for version in spec.versions:
                path = root / name / str(version) / spec.filename
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(spec.model)
    return root
