"""Helpers for the ensemble tests: ensemble config text, a repository holding
identity and ONNX composing models, and one inference over HTTP or gRPC with
the genuine tritonclient.

    ensemble_config("e", [("IN", "FP32", [16])], [("OUT", "FP32", [16])],
                    [("a", {"INPUT0": "IN"}, {"OUTPUT0": "OUT"})])
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from util import EXAMPLES_MODELS, single_identity, tensor_block, write_repository

DIMS = [16]


def ensemble_config(name: str, inputs: Sequence[tuple[str, str, Sequence[int]]],
                    outputs: Sequence[tuple[str, str, Sequence[int]]],
                    steps: Sequence[tuple[str, Mapping[str, str], Mapping[str, str]]],
                    max_batch_size: int = 8, extra: str = "") -> str:
    """config.pbtxt of an ensemble; each step is (model, {model input: tensor},
    {model output: tensor})."""
    step_texts = []
    for model, input_map, output_map in steps:
        maps = "".join(f'      input_map {{ key: "{k}" value: "{v}" }}\n'
                       for k, v in input_map.items())
        maps += "".join(f'      output_map {{ key: "{k}" value: "{v}" }}\n'
                        for k, v in output_map.items())
        step_texts.append(f'    {{\n      model_name: "{model}"\n      model_version: -1\n'
                          f"{maps}    }}")
    return (
        f'name: "{name}"\nplatform: "ensemble"\nmax_batch_size: {max_batch_size}\n'
        f"input [\n{','.join(tensor_block(*t) for t in inputs)}\n]\n"
        f"output [\n{','.join(tensor_block(*t) for t in outputs)}\n]\n"
        f"ensemble_scheduling {{\n  step [\n{','.join(step_texts)}\n  ]\n}}\n" + extra)


def identity(name: str, max_batch_size: int = 8, dims: Sequence[int] = DIMS,
             extra: str = "") -> str:
    return single_identity(name, "FP32", dims, max_batch_size, extra=extra)


def repository(root: Path, models: Mapping[str, str], onnx_add_sub: bool = True) -> Path:
    """`models` written under `root`, plus the example ONNX model onnx_add_sub
    (OUTPUT0 = INPUT0 + INPUT1, OUTPUT1 = INPUT0 - INPUT1, FP32 [16], batch 8)."""
    write_repository(root, models)
    if onnx_add_sub:
        shutil.copytree(EXAMPLES_MODELS / "onnx_add_sub", root / "onnx_add_sub")
    return root


def infer(server, protocol: str, model: str, inputs: Mapping[str, np.ndarray],
          outputs: Sequence[str] | None = None, parameters: Mapping | None = None):
    """One inference with FP32 inputs; returns {output name: array}."""
    module = httpclient if protocol == "http" else grpcclient
    client = server.client() if protocol == "http" else server.grpc_client()
    try:
        infer_inputs = []
        for name, array in inputs.items():
            tensor = module.InferInput(name, list(array.shape), "FP32")
            tensor.set_data_from_numpy(array)
            infer_inputs.append(tensor)
        requested = None if outputs is None else [module.InferRequestedOutput(o) for o in outputs]
        result = client.infer(model, infer_inputs, outputs=requested, parameters=parameters)
        response = result.get_response()
        names = ([o["name"] for o in response["outputs"]] if protocol == "http"
                 else [o.name for o in response.outputs])
        return {name: result.as_numpy(name) for name in names}
    finally:
        client.close()


def rows(count: int, start: float = 0.0) -> np.ndarray:
    return (np.arange(count * DIMS[0], dtype=np.float32) + start).reshape(count, DIMS[0])
