"""Bad requests over gRPC get the right status code and a message naming what
was wrong, and never hurt the server: after each one ServerLive is still true,
and good requests still succeed once all the bad ones have been sent.

The same bad inputs as http/test_errors.py: unknown model or version
(NOT_FOUND), a model that failed to load (UNAVAILABLE), and INVALID_ARGUMENT for
a wrong datatype, shape or rank, a batch above max_batch_size, a missing or
unknown input, an unknown requested output, an unknown datatype name, raw data
whose size does not fit the shape, typed contents whose count does not match,
raw_input_contents not one per input, both raw and typed data, a malformed
version string, a shared memory region that is not registered, a
classification count of 0, a parameter without a value. CUDA shared memory
answers UNIMPLEMENTED.
"""

import grpc
import numpy as np
import pytest
import tritonclient.grpc as grpcclient
from tritonclient.utils import InferenceServerException

from grpc_wire import infer_request, outputs_of
from util import Model, assert_equal_tensors, identity_config, single_identity

MODEL = "identity_fp32"  # INPUT0 FP32 [16], max_batch_size 8
GOOD = np.arange(16, dtype=np.float32).reshape(1, 16) / 4


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({
        MODEL: single_identity(MODEL, "FP32", [16], max_batch_size=8),
        "identity_bytes": single_identity("identity_bytes", "BYTES", [1]),
        "two_inputs": identity_config(
            "two_inputs",
            [("INPUT0", "OUTPUT0", "INT32", [2]), ("INPUT1", "OUTPUT1", "INT32", [2])]),
        "broken_config": Model("this is not a model config {"),
        "unknown_backend": single_identity("unknown_backend", "FP32", [16]).replace(
            'backend: "identity"', 'backend: "no_such_backend"'),
    }, extra_args=["--exit-on-error=false"], wait_for="live")


@pytest.fixture(scope="module")
def stub(server, stubs):
    return stubs.stub(server.grpc_address)


@pytest.fixture(autouse=True)
def server_still_live_after_each_test(stub, stubs):
    yield
    assert stub.ServerLive(stubs.pb.ServerLiveRequest()).live is True


def assert_rpc_error(call, code, *needles):
    with pytest.raises(grpc.RpcError) as error:
        call()
    assert error.value.code() == code, f"{error.value.code()}: {error.value.details()}"
    message = error.value.details()
    assert message and message.strip()
    for needle in needles:
        assert needle in message, f"error message {message!r} does not mention {needle!r}"
    return message


def infer(stub, stubs, inputs, model=MODEL, **kwargs):
    return lambda: stub.ModelInfer(infer_request(stubs, model, inputs, **kwargs))


def fp32(shape, name="INPUT0", datatype="FP32"):
    return (name, datatype, np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape))


# -- NOT_FOUND and UNAVAILABLE ------------------------------------------------------------


def test_unknown_model_is_not_found(stub, stubs):
    assert_rpc_error(infer(stub, stubs, [fp32([1, 16])], model="no_such_model"),
                     grpc.StatusCode.NOT_FOUND, "no_such_model")


def test_unknown_version_is_not_found(stub, stubs):
    assert_rpc_error(infer(stub, stubs, [fp32([1, 16])], model_version="7"),
                     grpc.StatusCode.NOT_FOUND, MODEL, "7")
    assert_rpc_error(lambda: stub.ModelMetadata(stubs.pb.ModelMetadataRequest(
        name=MODEL, version="7")), grpc.StatusCode.NOT_FOUND, MODEL)


@pytest.mark.parametrize("model", ["broken_config", "unknown_backend"])
def test_model_that_failed_to_load_is_unavailable(stub, stubs, model):
    assert_rpc_error(infer(stub, stubs, [fp32([16])], model=model),
                     grpc.StatusCode.UNAVAILABLE, model)


def test_tritonclient_sees_the_status_code(server):
    client = server.grpc_client()
    inp = grpcclient.InferInput("INPUT0", [1, 16], "FP32")
    inp.set_data_from_numpy(GOOD)
    with pytest.raises(InferenceServerException) as error:
        client.infer("no_such_model", [inp])
    assert error.value.status() == "StatusCode.NOT_FOUND"
    assert "no_such_model" in error.value.message()


# -- INVALID_ARGUMENT: tensors that do not match the config --------------------------------


def test_wrong_datatype_names_the_input(stub, stubs):
    data = ("INPUT0", "INT32", np.arange(16, dtype=np.int32).reshape(1, 16))
    message = assert_rpc_error(infer(stub, stubs, [data]), grpc.StatusCode.INVALID_ARGUMENT,
                               "INPUT0")
    assert "INT32" in message or "FP32" in message


def test_wrong_shape_names_the_input(stub, stubs):
    assert_rpc_error(infer(stub, stubs, [fp32([1, 15])]), grpc.StatusCode.INVALID_ARGUMENT,
                     "INPUT0")


def test_wrong_rank_names_the_input(stub, stubs):
    assert_rpc_error(infer(stub, stubs, [fp32([1, 4, 4])]), grpc.StatusCode.INVALID_ARGUMENT,
                     "INPUT0")


def test_batch_above_max_batch_size_is_rejected(stub, stubs):
    assert_rpc_error(infer(stub, stubs, [fp32([9, 16])]), grpc.StatusCode.INVALID_ARGUMENT, MODEL)


def test_missing_input_names_it(stub, stubs):
    data = ("INPUT0", "INT32", np.array([1, 2], dtype=np.int32))
    assert_rpc_error(infer(stub, stubs, [data], model="two_inputs"),
                     grpc.StatusCode.INVALID_ARGUMENT, "INPUT1")


def test_unknown_input_names_it(stub, stubs):
    assert_rpc_error(infer(stub, stubs, [fp32([1, 16]), fp32([1, 16], name="BOGUS_INPUT")]),
                     grpc.StatusCode.INVALID_ARGUMENT, "BOGUS_INPUT")


def test_unknown_requested_output_names_it(stub, stubs):
    assert_rpc_error(infer(stub, stubs, [fp32([1, 16])], outputs=["NO_SUCH_OUTPUT"]),
                     grpc.StatusCode.INVALID_ARGUMENT, "NO_SUCH_OUTPUT")


def test_unknown_datatype_name_is_rejected(stub, stubs):
    request = infer_request(stubs, MODEL, [fp32([1, 16])])
    request.inputs[0].datatype = "FLOAT128"
    assert_rpc_error(lambda: stub.ModelInfer(request), grpc.StatusCode.INVALID_ARGUMENT,
                     "FLOAT128", "INPUT0")


def test_duplicate_input_is_rejected(stub, stubs):
    assert_rpc_error(infer(stub, stubs, [fp32([1, 16]), fp32([1, 16])]),
                     grpc.StatusCode.ALREADY_EXISTS, "INPUT0")


# -- INVALID_ARGUMENT: data that does not add up --------------------------------------------


def test_raw_size_not_matching_shape_names_the_input(stub, stubs):
    request = infer_request(stubs, MODEL, [fp32([1, 16])])
    request.raw_input_contents[0] = request.raw_input_contents[0][:60]
    assert_rpc_error(lambda: stub.ModelInfer(request), grpc.StatusCode.INVALID_ARGUMENT, "INPUT0")


def test_raw_bytes_not_length_prefixed_names_the_input(stub, stubs):
    request = stubs.pb.ModelInferRequest(model_name="identity_bytes")
    request.inputs.add(name="INPUT0", datatype="BYTES", shape=[1])
    request.raw_input_contents.append(b"\x09\x00\x00\x00abc")
    assert_rpc_error(lambda: stub.ModelInfer(request), grpc.StatusCode.INVALID_ARGUMENT, "INPUT0")


def test_typed_contents_count_not_matching_shape_names_the_input(stub, stubs):
    request = infer_request(stubs, MODEL, [fp32([1, 16])], typed=True)
    request.inputs[0].contents.fp32_contents.pop()
    assert_rpc_error(lambda: stub.ModelInfer(request), grpc.StatusCode.INVALID_ARGUMENT,
                     "INPUT0", "15", "16")


def test_typed_contents_in_the_wrong_field_names_the_input(stub, stubs):
    request = infer_request(stubs, MODEL, [fp32([1, 16])], typed=True)
    request.inputs[0].contents.int_contents.append(1)
    assert_rpc_error(lambda: stub.ModelInfer(request), grpc.StatusCode.INVALID_ARGUMENT,
                     "INPUT0", "int_contents")


def test_typed_value_out_of_range_names_the_input(stub, stubs):
    request = stubs.pb.ModelInferRequest(model_name="two_inputs")
    tensor = request.inputs.add(name="INPUT0", datatype="INT8", shape=[2])
    tensor.contents.int_contents.extend([1, 300])
    assert_rpc_error(lambda: stub.ModelInfer(request), grpc.StatusCode.INVALID_ARGUMENT,
                     "INPUT0", "300")


def test_raw_contents_not_one_per_input_is_rejected(stub, stubs):
    request = infer_request(stubs, "two_inputs", [
        ("INPUT0", "INT32", np.array([1, 2], dtype=np.int32)),
        ("INPUT1", "INT32", np.array([3, 4], dtype=np.int32))])
    del request.raw_input_contents[1]
    assert_rpc_error(lambda: stub.ModelInfer(request), grpc.StatusCode.INVALID_ARGUMENT,
                     "raw_input_contents")


def test_more_raw_contents_than_inputs_is_rejected(stub, stubs):
    request = infer_request(stubs, MODEL, [fp32([1, 16])])
    request.raw_input_contents.append(b"\x00" * 64)
    assert_rpc_error(lambda: stub.ModelInfer(request), grpc.StatusCode.INVALID_ARGUMENT,
                     "raw_input_contents")


def test_raw_and_typed_data_together_are_rejected(stub, stubs):
    request = infer_request(stubs, MODEL, [fp32([1, 16])])
    request.inputs[0].contents.fp32_contents.extend([0.0] * 16)
    assert_rpc_error(lambda: stub.ModelInfer(request), grpc.StatusCode.INVALID_ARGUMENT, "INPUT0")


def test_negative_dimension_with_typed_contents_names_the_input(stub, stubs):
    request = infer_request(stubs, MODEL, [fp32([1, 16])], typed=True)
    request.inputs[0].shape[0] = -1
    assert_rpc_error(lambda: stub.ModelInfer(request), grpc.StatusCode.INVALID_ARGUMENT, "INPUT0")


def test_malformed_version_string_is_rejected(stub, stubs):
    assert_rpc_error(infer(stub, stubs, [fp32([1, 16])], model_version="latest"),
                     grpc.StatusCode.INVALID_ARGUMENT, "latest")


@pytest.mark.parametrize("name,kind", [("sequence_start", "int64_param"),
                                       ("priority", "string_param"),
                                       ("timeout", "bool_param"),
                                       ("triton_enable_empty_final_response", "string_param")])
def test_protocol_parameter_of_the_wrong_type_is_rejected(stub, stubs, name, kind):
    request = infer_request(stubs, MODEL, [fp32([1, 16])])
    setattr(request.parameters[name], kind, {"int64_param": 1, "string_param": "x",
                                             "bool_param": True}[kind])
    assert_rpc_error(lambda: stub.ModelInfer(request), grpc.StatusCode.INVALID_ARGUMENT, name)


def test_unregistered_shared_memory_region_is_invalid(stub, stubs):
    request = infer_request(stubs, MODEL, [fp32([1, 16])])
    del request.raw_input_contents[:]
    request.inputs[0].parameters["shared_memory_region"].string_param = "region"
    request.inputs[0].parameters["shared_memory_byte_size"].int64_param = 64
    assert_rpc_error(lambda: stub.ModelInfer(request), grpc.StatusCode.INVALID_ARGUMENT,
                     "INPUT0", "'region'", "not registered")


def test_shared_memory_region_without_byte_size_is_invalid(stub, stubs):
    request = infer_request(stubs, MODEL, [fp32([1, 16])])
    request.inputs[0].parameters["shared_memory_region"].string_param = "region"
    assert_rpc_error(lambda: stub.ModelInfer(request), grpc.StatusCode.INVALID_ARGUMENT,
                     "INPUT0", "shared_memory_byte_size")


# -- UNIMPLEMENTED ----------------------------------------------------------------------------


def test_classification_count_of_zero_is_invalid(stub, stubs):
    request = infer_request(stubs, MODEL, [fp32([1, 16])], outputs=["OUTPUT0"])
    request.outputs[0].parameters["classification"].int64_param = 0
    assert_rpc_error(lambda: stub.ModelInfer(request), grpc.StatusCode.INVALID_ARGUMENT,
                     "OUTPUT0", "classification")


def test_parameter_without_a_value_is_invalid(stub, stubs):
    request = infer_request(stubs, MODEL, [fp32([1, 16])])
    request.parameters["empty"].CopyFrom(stubs.pb.InferParameter())
    assert_rpc_error(lambda: stub.ModelInfer(request), grpc.StatusCode.INVALID_ARGUMENT, "empty")


UNIMPLEMENTED_RPCS = [
    ("CudaSharedMemoryStatus", "CudaSharedMemoryStatusRequest", {}, "no GPU support"),
    ("CudaSharedMemoryRegister", "CudaSharedMemoryRegisterRequest", {"name": "r"},
     "no GPU support"),
    ("CudaSharedMemoryUnregister", "CudaSharedMemoryUnregisterRequest", {"name": "r"},
     "no GPU support"),
]


@pytest.mark.parametrize("rpc,request_type,fields,needle", UNIMPLEMENTED_RPCS,
                         ids=[r[0] for r in UNIMPLEMENTED_RPCS])
def test_rpcs_not_served_yet_are_unimplemented(stub, stubs, rpc, request_type, fields, needle):
    request = getattr(stubs.pb, request_type)(**fields)
    assert_rpc_error(lambda: getattr(stub, rpc)(request), grpc.StatusCode.UNIMPLEMENTED, needle)


def test_tritonclient_sees_unimplemented(server):
    client = server.grpc_client()
    with pytest.raises(InferenceServerException) as error:
        client.get_cuda_shared_memory_status()
    assert error.value.status() == "StatusCode.UNIMPLEMENTED"


# -- after all of the above ---------------------------------------------------------------------


def test_good_requests_succeed_after_bad_ones(stub, stubs, server):
    # Defined last: pytest runs tests in file order, so every bad request above
    # has been sent to this same server.
    for typed in (False, True):
        response = stub.ModelInfer(infer_request(stubs, MODEL, [("INPUT0", "FP32", GOOD)],
                                                 typed=typed))
        assert_equal_tensors(outputs_of(response)["OUTPUT0"][2], GOOD, "FP32")
    assert stub.ModelReady(stubs.pb.ModelReadyRequest(name=MODEL)).ready
    assert server.grpc_client().is_server_live()
