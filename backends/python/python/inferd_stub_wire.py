"""The layouts the Python stub shares with the backend: the control messages
(control_message.h) and the blocks in shared memory (wire_format.h), and the
encoding of tensors into them. inferd_python_stub.py imports it from beside
itself; change both sides together."""

import struct

import numpy as np

import triton_python_backend_utils as pb_utils

# control_message.h
MESSAGE = struct.Struct("<IIQQQQ")
INITIALIZE, EXECUTE, FINALIZE, AUTO_COMPLETE, PING = 1, 2, 3, 4, 5
INITIALIZE_DONE, EXECUTE_DONE, RESPONSE, FINALIZE_DONE, AUTO_COMPLETE_DONE, PONG, \
    IS_CANCELLED = 101, 102, 103, 104, 105, 106, 107
BLS_REQUEST, BLS_FREE = 108, 109
RESCHEDULE = 130
CANCELLED_REPLY, BLS_RESPONSE = 201, 202
# Custom metrics and the model loading API (inferd_pb_control.py).
METRIC_FAMILY_NEW, METRIC_NEW, METRIC_DELETE, METRIC_UPDATE, METRIC_VALUE = 120, 121, 122, 123, 124
MODEL_LOAD, MODEL_UNLOAD, MODEL_READY = 125, 126, 127
CONTROL_REPLY = 210
FLAG_FINAL, FLAG_HAS_BLOCK, FLAG_ERROR, FLAG_BATCH_DONE = 1, 2, 4, 8

# wire_format.h
U32 = struct.Struct("<I")
U64 = struct.Struct("<Q")
REQUEST = struct.Struct("<QQIIIIIIQII")
INPUT = struct.Struct("<IIIIQQ")
RESPONSE_HEAD = struct.Struct("<IIII")
BLS_HEAD = struct.Struct("<IIIIIIIIqQQII")
BLS_SINGLE_RESPONSE = 1  # its options: kBlsSingleResponse
OUTPUT = struct.Struct("<IIIIQ")
_DIMS = {}


def dims_struct(n):
    s = _DIMS.get(n)
    if s is None:
        s = _DIMS[n] = struct.Struct("<%dq" % n)
    return s


def pad8(n):
    return (n + 7) & ~7


def decode_array(region, view, code, shape, offset, byte_size, copy):
    """The tensor of type `code` and `shape` whose bytes lie at `offset` in the
    shared region: a numpy view (or a copy), BYTES as an object array."""
    if code == 13:
        return pb_utils._deserialize_bytes(view[offset:offset + byte_size], shape)
    # One array object over the region (frombuffer then reshape makes two);
    # the server checked that `shape` and the datatype make `byte_size`.
    array = np.ndarray(shape, pb_utils._NUMPY_OF_CODE[code], region, offset)
    return array.copy() if copy else array


def encode_tensors(tensors):
    """[(name bytes, code, shape, data, byte count)] for writing; data is a
    C-contiguous numpy array (written as it is, no copy) or bytes."""
    encoded = []
    for tensor in tensors:
        array = tensor._array
        code = tensor._code
        if code == 13:
            data = pb_utils._serialize_bytes(array)
            encoded.append((tensor._name.encode(), code, array.shape, data, len(data)))
            continue
        if not array.flags.c_contiguous:
            array = np.ascontiguousarray(array)
        encoded.append((tensor._name.encode(), code, array.shape, array, array.nbytes))
    return encoded


def tensors_size(outputs):
    """The bytes `outputs` (as encode_tensors makes them) take in a block."""
    size = 0
    for name, code, shape, data, n in outputs:
        size += OUTPUT.size + 8 * len(shape) + ((len(name) + 7) & ~7) + ((n + 7) & ~7)
    return size


def write_tensors(region, view, at, outputs):
    """Writes `outputs` (as encode_tensors makes them) at `at`; returns the end."""
    for name, code, shape, data, n in outputs:
        OUTPUT.pack_into(region, at, len(name), code, len(shape), 0, n)
        at += OUTPUT.size
        if shape:
            dims_struct(len(shape)).pack_into(region, at, *shape)
            at += 8 * len(shape)
        region[at:at + len(name)] = name
        at += (len(name) + 7) & ~7  # pad8, inline: this runs per output
        if n:
            region[at:at + n] = data  # any C-contiguous buffer, as bytes
        at += (n + 7) & ~7
    return at
