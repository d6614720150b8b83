"""The KServe v2 datatypes as the integration tests see them: each one's
config.pbtxt name, the numpy dtype that holds its values, and edge values."""

import numpy as np

# KServe datatype -> config.pbtxt data_type.
CONFIG_TYPE = {
    "BOOL": "TYPE_BOOL",
    "UINT8": "TYPE_UINT8",
    "UINT16": "TYPE_UINT16",
    "UINT32": "TYPE_UINT32",
    "UINT64": "TYPE_UINT64",
    "INT8": "TYPE_INT8",
    "INT16": "TYPE_INT16",
    "INT32": "TYPE_INT32",
    "INT64": "TYPE_INT64",
    "FP16": "TYPE_FP16",
    "BF16": "TYPE_BF16",
    "FP32": "TYPE_FP32",
    "FP64": "TYPE_FP64",
    "BYTES": "TYPE_STRING",
}
ALL_DATATYPES = list(CONFIG_TYPE)

# numpy dtype that holds values of each datatype on the test side. BF16 values are
# held as float32 (numpy has no bfloat16) and must be exactly representable.
NUMPY_DTYPE = {
    "BOOL": np.bool_,
    "UINT8": np.uint8,
    "UINT16": np.uint16,
    "UINT32": np.uint32,
    "UINT64": np.uint64,
    "INT8": np.int8,
    "INT16": np.int16,
    "INT32": np.int32,
    "INT64": np.int64,
    "FP16": np.float16,
    "BF16": np.float32,
    "FP32": np.float32,
    "FP64": np.float64,
    "BYTES": np.object_,
}


# Two batch rows per datatype, chosen at the edges of each type; floats are
# exactly representable in the type (BF16 values have 8-bit mantissas).
EDGE_VALUES = {
    "BOOL": [[True, False, True], [False, False, True]],
    "UINT8": [[0, 255, 7], [128, 1, 254]],
    "UINT16": [[0, 65535, 300], [32768, 1, 65534]],
    "UINT32": [[0, 2**32 - 1, 70000], [2**31, 1, 123456789]],
    "UINT64": [[0, 2**64 - 1, 2**53 + 1], [2**63, 1, 9007199254740993]],
    "INT8": [[-128, 127, 0], [-1, 1, 42]],
    "INT16": [[-32768, 32767, 0], [-1, 1, 1234]],
    "INT32": [[-2**31, 2**31 - 1, 0], [-1, 1, 123456789]],
    "INT64": [[-2**63, 2**63 - 1, 0], [-(2**53) - 1, 2**53 + 1, 42]],
    "FP16": [[0.5, -2.0, 65504.0], [0.0009765625, -0.0, 1.5]],
    "BF16": [[1.0, -2.5, 0.15625], [65536.0, -1024.0, 2.0**127]],
    "FP32": [[1.5, -2.25, 3.4028234663852886e38], [0.1, 1.0e-30, -7.0]],
    "FP64": [[0.1, 1.0 / 3.0, -1.0e300], [2.5, 2.0**-1000, -0.0]],
    "BYTES": [[b"hello", b"", b"inferd"], [b"caf\xc3\xa9", b"a b\tc", b"x" * 300]],
}
