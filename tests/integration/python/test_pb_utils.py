"""triton_python_backend_utils on its own (no server): the helpers a model
calls between tensors, numpy and the configuration."""

import json
import sys

import numpy as np
import pytest

from util import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "backends" / "python" / "python"))
import triton_python_backend_utils as pb_utils  # noqa: E402


def test_triton_string_to_numpy():
    assert pb_utils.triton_string_to_numpy("TYPE_FP32") is np.float32
    assert pb_utils.triton_string_to_numpy("TYPE_STRING") is np.object_
    assert pb_utils.triton_string_to_numpy("INT64") is np.int64
    assert pb_utils.triton_string_to_numpy("TYPE_NOPE") is None


def test_tensor_dlpack_round_trip_shares_memory():
    array = np.arange(6, dtype=np.float32).reshape(2, 3)
    tensor = pb_utils.Tensor("X", array)
    back = pb_utils.Tensor.from_dlpack("Y", tensor.to_dlpack())
    assert back.name() == "Y"
    np.testing.assert_array_equal(back.as_numpy(), array)
    array[0, 0] = 42  # one buffer, no copy
    assert back.as_numpy()[0, 0] == 42
    with pytest.raises(pb_utils.TritonModelException):
        pb_utils.Tensor("S", np.array([b"x"], dtype=np.object_)).to_dlpack()


def test_bytes_serialization_round_trips():
    array = np.array([b"a", "héllo", b""], dtype=np.object_)
    encoded = pb_utils.serialize_byte_tensor(array)
    assert encoded.dtype == np.uint8
    assert list(pb_utils.deserialize_bytes_tensor(encoded)) == [b"a", "héllo".encode(), b""]


def test_model_config_setters_add_and_refuse_contradictions():
    config = pb_utils.ModelConfig(json.dumps({
        "name": "m", "max_batch_size": 0,
        "input": [{"name": "A", "data_type": "TYPE_FP32", "dims": ["4"]}]}))
    config.set_max_batch_size(8)
    config.add_input({"name": "A", "data_type": "TYPE_FP32", "dims": [4]})  # agrees
    config.add_output({"name": "B", "data_type": "TYPE_INT32", "dims": [1]})
    config.set_dynamic_batching()
    config.set_model_transaction_policy({"decoupled": True})
    result = config.as_dict()
    assert result["max_batch_size"] == 8
    assert [t["name"] for t in result["output"]] == ["B"]
    assert result["dynamic_batching"] == {}
    assert result["model_transaction_policy"] == {"decoupled": True}
    with pytest.raises(pb_utils.TritonModelException):
        config.add_input({"name": "A", "data_type": "TYPE_INT8", "dims": [4]})
    with pytest.raises(pb_utils.TritonModelException):
        config.set_max_batch_size(2)


def test_response_and_error_accessors():
    error = pb_utils.TritonError("bad", pb_utils.TritonError.INVALID_ARG)
    response = pb_utils.InferenceResponse(error=error)
    assert response.has_error() and response.error().message() == "bad"
    assert response.error().code() == pb_utils.TritonError.INVALID_ARG
    out = pb_utils.Tensor("O", np.zeros(2, np.int8))
    response = pb_utils.InferenceResponse(output_tensors=[out])
    assert pb_utils.get_output_tensor_by_name(response, "O") is out
    assert pb_utils.get_output_tensor_by_name(response, "P") is None
