"""The datatypes of triton_python_backend_utils: the server's datatype codes
and their numpy dtypes, and the BYTES serialization (each element a 4-byte
little-endian length and its bytes). triton_python_backend_utils re-exports
every name here; model.py files reach them through it."""

import struct

import numpy as np

# The server's datatype codes (INFERD_DataType in inferd/server.h).
_TYPE_CODES = {
    "BOOL": 1, "UINT8": 2, "UINT16": 3, "UINT32": 4, "UINT64": 5, "INT8": 6,
    "INT16": 7, "INT32": 8, "INT64": 9, "FP16": 10, "FP32": 11, "FP64": 12,
    "BYTES": 13, "BF16": 14,
}
_BYTES = 13
_BF16 = 14
# numpy has no bfloat16: BF16 tensors are their raw 16 bits.
_NUMPY_OF_CODE = {
    1: np.dtype(np.bool_), 2: np.dtype(np.uint8), 3: np.dtype(np.uint16),
    4: np.dtype(np.uint32), 5: np.dtype(np.uint64), 6: np.dtype(np.int8),
    7: np.dtype(np.int16), 8: np.dtype(np.int32), 9: np.dtype(np.int64),
    10: np.dtype(np.float16), 11: np.dtype(np.float32), 12: np.dtype(np.float64),
    13: np.dtype(np.object_), 14: np.dtype(np.uint16),
}
_CODE_OF_NUMPY = {dtype: code for code, dtype in _NUMPY_OF_CODE.items() if code != _BF16}
_CODE_OF_NUMPY[np.dtype(np.bytes_)] = _BYTES


def triton_string_to_numpy(triton_type_string):
    """"TYPE_FP32" (a config data_type) or "FP32" -> numpy.float32; "TYPE_STRING"
    or "BYTES" -> numpy.object_."""
    name = triton_type_string[5:] if triton_type_string.startswith("TYPE_") else triton_type_string
    if name == "STRING":
        name = "BYTES"
    code = _TYPE_CODES.get(name)
    if code is None:
        return None
    return _NUMPY_OF_CODE[code].type


# Triton's table of config data_type names (TYPE_STRING is numpy's object).
TRITON_STRING_TO_NUMPY = {
    "TYPE_" + ("STRING" if name == "BYTES" else name): _NUMPY_OF_CODE[code].type
    for name, code in _TYPE_CODES.items() if code != _BF16
}


def triton_to_numpy_type(data_type):
    """A datatype code (Tensor.triton_dtype(): 11 is FP32) -> its numpy type;
    None for BF16 (numpy has none) or an unknown code, as Triton."""
    if data_type == _BF16:
        return None
    dtype = _NUMPY_OF_CODE.get(data_type)
    return dtype.type if dtype is not None else None


def numpy_to_triton_type(data_type):
    """A numpy type -> its datatype code (numpy.float32 -> 11, object and
    bytes -> 13 for BYTES); None when Triton has none, as Triton."""
    try:
        dtype = np.dtype(data_type)
    except TypeError:
        return None
    return _CODE_OF_NUMPY.get(dtype)


def using_decoupled_model_transaction_policy(model_config):
    """Whether the configuration (a dict) says the model is decoupled."""
    return bool(model_config.get("model_transaction_policy", {}).get("decoupled", False))


def serialize_byte_tensor(input_tensor):
    """A numpy array of bytes/str objects -> Triton's serialization (each
    element a 4-byte little-endian length and its bytes), as a uint8 array."""
    if input_tensor.size == 0:
        return np.empty([0], dtype=np.uint8)
    return np.frombuffer(_serialize_bytes(input_tensor), dtype=np.uint8)


def deserialize_bytes_tensor(encoded_tensor):
    """The inverse of serialize_byte_tensor: a flat numpy object array of bytes."""
    return _deserialize_bytes(memoryview(bytes(encoded_tensor)), None)


def _as_bytes(element):
    if isinstance(element, bytes):
        return element
    if isinstance(element, str):
        return element.encode("utf-8")
    if isinstance(element, (bytearray, memoryview, np.bytes_)):
        return bytes(element)
    return str(element).encode("utf-8")


def _serialize_bytes(array):
    parts = []
    pack = struct.Struct("<I").pack
    for element in array.ravel(order="C"):
        data = _as_bytes(element)
        parts.append(pack(len(data)))
        parts.append(data)
    return b"".join(parts)


def _deserialize_bytes(view, shape):
    items = []
    at = 0
    end = len(view)
    unpack = struct.Struct("<I").unpack_from
    while at < end:
        (length,) = unpack(view, at)
        at += 4
        items.append(bytes(view[at:at + length]))
        at += length
    array = np.empty(len(items), dtype=np.object_)
    array[:] = items
    if shape is not None:
        array = array.reshape(shape)
    return array
