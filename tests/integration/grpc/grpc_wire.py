"""The gRPC wire format for the tests: ModelInferRequest messages with inputs in
raw_input_contents or in typed `contents`, and the outputs of a
ModelInferResponse decoded to numpy. `stubs` is conftest.Stubs.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from util import decode_tensor, encode_tensor

# The InferTensorContents field that carries each datatype. FP16 and BF16 have
# none in the protocol; inferd takes them from fp32_contents.
CONTENTS_FIELD = {
    "BOOL": "bool_contents",
    "UINT8": "uint_contents",
    "UINT16": "uint_contents",
    "UINT32": "uint_contents",
    "UINT64": "uint64_contents",
    "INT8": "int_contents",
    "INT16": "int_contents",
    "INT32": "int_contents",
    "INT64": "int64_contents",
    "FP16": "fp32_contents",
    "BF16": "fp32_contents",
    "FP32": "fp32_contents",
    "FP64": "fp64_contents",
    "BYTES": "bytes_contents",
}


def _python_values(array: np.ndarray, datatype: str) -> list:
    flat = array.flatten(order="C")
    if datatype == "BYTES":
        return [x if isinstance(x, bytes) else str(x).encode("utf-8") for x in flat]
    if datatype == "BOOL":
        return [bool(x) for x in flat]
    if datatype in ("FP16", "BF16", "FP32", "FP64"):
        return [float(x) for x in flat]
    return [int(x) for x in flat]


def infer_request(stubs, model: str, inputs: Sequence[tuple[str, str, np.ndarray]],
                  typed: bool = False, outputs: Sequence[str] | None = None, **fields):
    """A ModelInferRequest for `inputs` (name, datatype, array): raw bytes in
    raw_input_contents, or with `typed` values in each input's contents."""
    request = stubs.pb.ModelInferRequest(model_name=model, **fields)
    for name, datatype, array in inputs:
        tensor = request.inputs.add(name=name, datatype=datatype, shape=list(array.shape))
        if typed:
            field = getattr(tensor.contents, CONTENTS_FIELD[datatype])
            field.extend(_python_values(array, datatype))
        else:
            request.raw_input_contents.append(encode_tensor(array, datatype))
    for name in outputs or ():
        request.outputs.add(name=name)
    return request


def outputs_of(response) -> dict:
    """{output name: (datatype, shape, numpy array)} of a ModelInferResponse."""
    assert len(response.raw_output_contents) == len(response.outputs)
    result = {}
    for tensor, raw in zip(response.outputs, response.raw_output_contents):
        array = decode_tensor(raw, tensor.datatype, list(tensor.shape))
        result[tensor.name] = (tensor.datatype, list(tensor.shape), array)
    return result
