"""The KServe v2 HTTP wire format: tensors as JSON data and as the binary
tensor extension, requests, parsed responses, and assertions on answers."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import requests

from kserve_datatypes import NUMPY_DTYPE


def bf16_bits(values: np.ndarray) -> np.ndarray:
    """BF16 encoding of float32 values: the upper 16 bits (values must be exact)."""
    bits32 = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
    assert np.all(bits32 & 0xFFFF == 0), "value not exactly representable in BF16"
    return (bits32 >> 16).astype(np.uint16)


def encode_tensor(array: np.ndarray, datatype: str) -> bytes:
    """Raw bytes of `array` as the binary tensor extension carries them."""
    if datatype == "BYTES":
        out = bytearray()
        for item in array.flatten(order="C"):
            raw = item if isinstance(item, bytes) else str(item).encode("utf-8")
            out += len(raw).to_bytes(4, "little") + raw
        return bytes(out)
    if datatype == "BF16":
        return bf16_bits(array).astype("<u2").tobytes()
    if datatype == "BOOL":
        return np.ascontiguousarray(array, dtype=np.bool_).tobytes()
    return np.ascontiguousarray(array, dtype=np.dtype(NUMPY_DTYPE[datatype]).newbyteorder("<")).tobytes()


def decode_tensor(raw: bytes, datatype: str, shape: Sequence[int]) -> np.ndarray:
    if datatype == "BYTES":
        items, offset = [], 0
        while offset < len(raw):
            length = int.from_bytes(raw[offset:offset + 4], "little")
            offset += 4
            items.append(raw[offset:offset + length])
            offset += length
        return np.array(items, dtype=np.object_).reshape(shape)
    if datatype == "BF16":
        bits = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
        return bits.view(np.float32).reshape(shape)
    return np.frombuffer(raw, dtype=np.dtype(NUMPY_DTYPE[datatype]).newbyteorder("<")).reshape(shape)


def json_data(array: np.ndarray, datatype: str) -> list:
    """Row-major flattened JSON values for the "data" field."""
    flat = array.flatten(order="C")
    if datatype == "BYTES":
        return [x.decode("utf-8") if isinstance(x, bytes) else str(x) for x in flat]
    if datatype == "BOOL":
        return [bool(x) for x in flat]
    if datatype in ("FP16", "BF16", "FP32", "FP64"):
        return [float(x) for x in flat]
    return [int(x) for x in flat]


def from_json_data(data: list, datatype: str, shape: Sequence[int]) -> np.ndarray:
    if datatype == "BYTES":
        return np.array([s.encode("utf-8") for s in _flatten(data)], dtype=np.object_).reshape(shape)
    return np.array(list(_flatten(data)), dtype=NUMPY_DTYPE[datatype]).reshape(shape)


def _flatten(data):
    for x in data:
        if isinstance(x, list):
            yield from _flatten(x)
        else:
            yield x


def binary_request(inputs: Sequence[tuple[str, str, np.ndarray]],
                   outputs: Sequence[str] | None = None,
                   binary_outputs: bool = True, **top_level) -> tuple[bytes, dict]:
    """(body, headers) for a binary-extension request. `inputs` are (name, datatype,
    array); every input travels as binary data after the JSON header."""
    header = {"inputs": [], **top_level}
    blobs = []
    for name, datatype, array in inputs:
        raw = encode_tensor(array, datatype)
        blobs.append(raw)
        header["inputs"].append({
            "name": name, "datatype": datatype, "shape": list(array.shape),
            "parameters": {"binary_data_size": len(raw)},
        })
    if outputs is not None:
        header["outputs"] = [{"name": o, "parameters": {"binary_data": binary_outputs}}
                             for o in outputs]
    head = json.dumps(header).encode("utf-8")
    headers = {"Inference-Header-Content-Length": str(len(head)),
               "Content-Type": "application/octet-stream"}
    return head + b"".join(blobs), headers


def json_request(inputs: Sequence[tuple[str, str, np.ndarray]],
                 outputs: Sequence[str] | None = None, **top_level) -> dict:
    """A pure-JSON request body (as a dict) for `inputs` (name, datatype, array)."""
    body = {"inputs": [
        {"name": n, "datatype": dt, "shape": list(a.shape), "data": json_data(a, dt)}
        for n, dt, a in inputs], **top_level}
    if outputs is not None:
        body["outputs"] = [{"name": o} for o in outputs]
    return body


@dataclass
class InferResponse:
    header: dict
    tensors: dict  # output name -> numpy array (BYTES as bytes objects)
    binary: dict  # output name -> True if it came as binary data


def parse_infer_response(resp: requests.Response) -> InferResponse:
    """Splits a 200 response into its JSON header and decoded output tensors."""
    assert resp.status_code == 200, f"HTTP {resp.status_code}: {resp.text[:2000]}"
    body = resp.content
    header_len = resp.headers.get("Inference-Header-Content-Length")
    if header_len is None:
        header, rest = json.loads(body), b""
    else:
        n = int(header_len)
        header, rest = json.loads(body[:n]), body[n:]
    tensors, binary, offset = {}, {}, 0
    for out in header.get("outputs", []):
        size = (out.get("parameters") or {}).get("binary_data_size")
        if size is not None:
            raw = rest[offset:offset + size]
            assert len(raw) == size, f"output {out['name']}: body shorter than binary_data_size"
            offset += size
            tensors[out["name"]] = decode_tensor(raw, out["datatype"], out["shape"])
            binary[out["name"]] = True
        else:
            tensors[out["name"]] = from_json_data(out["data"], out["datatype"], out["shape"])
            binary[out["name"]] = False
    assert offset == len(rest), f"{len(rest) - offset} unclaimed bytes after the outputs"
    return InferResponse(header, tensors, binary)


def assert_error(resp: requests.Response, status: int, *needles: str) -> str:
    """Asserts an error response: exact status, body {"error": "<message>"} whose
    message contains every needle (case-sensitive). Returns the message."""
    assert resp.status_code == status, (
        f"expected HTTP {status}, got {resp.status_code}: {resp.text[:2000]}")
    try:
        body = resp.json()
    except ValueError:
        raise AssertionError(f"error body is not JSON: {resp.text[:2000]!r}")
    assert isinstance(body, dict) and set(body) == {"error"}, f"error body: {body}"
    message = body["error"]
    assert isinstance(message, str) and message.strip(), f"empty error message: {body}"
    for needle in needles:
        assert needle in message, f"error message {message!r} does not mention {needle!r}"
    return message


def assert_equal_tensors(actual: np.ndarray, expected: np.ndarray, datatype: str) -> None:
    """Exact equality of values and shape (bit-exact for floats, NaN excluded)."""
    assert list(actual.shape) == list(expected.shape), f"shape {actual.shape} != {expected.shape}"
    if datatype == "BYTES":
        to_bytes = lambda x: x if isinstance(x, bytes) else str(x).encode("utf-8")  # noqa: E731
        assert [to_bytes(x) for x in actual.flatten()] == [to_bytes(x) for x in expected.flatten()]
        return
    want = np.asarray(expected, dtype=NUMPY_DTYPE[datatype])
    got = np.asarray(actual, dtype=NUMPY_DTYPE[datatype])
    assert got.tolist() == want.tolist(), f"{datatype}: {got.tolist()} != {want.tolist()}"
