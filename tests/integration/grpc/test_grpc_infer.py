"""ModelInfer over gRPC with identity models, through tritonclient.grpc and
through stubs generated from inferd's own .proto (so the wire format itself is
checked).

For every datatype (BOOL ... BYTES, FP16 and BF16 included) the exact values
round-trip with inputs in raw_input_contents and with inputs in typed
`contents` (FP16 and BF16 from fp32_contents); outputs always come back in
raw_output_contents. Also: output selection on a two-output model, request ids
and model version echoed, variable dimensions, a tensor larger than gRPC's
default 4 MiB message limit, and compressed requests and responses.
"""

import grpc
import numpy as np
import pytest
import tritonclient.grpc as grpcclient

from grpc_wire import infer_request, outputs_of
from util import (ALL_DATATYPES, EDGE_VALUES, NUMPY_DTYPE, Model, assert_equal_tensors,
                  identity_config, single_identity)

ROW = 3


def model_name(datatype):
    return f"identity_{datatype.lower()}"


def values(datatype):
    return np.array(EDGE_VALUES[datatype], dtype=NUMPY_DTYPE[datatype])


@pytest.fixture(scope="module")
def server(inferd):
    models = {model_name(dt): single_identity(model_name(dt), dt, [ROW], max_batch_size=8)
              for dt in ALL_DATATYPES}
    models["two_outputs"] = identity_config(
        "two_outputs",
        [("INPUT0", "OUTPUT0", "FP32", [4]), ("INPUT1", "OUTPUT1", "INT32", [4])],
        max_batch_size=4)
    models["variable_dims"] = single_identity("variable_dims", "INT32", [-1, -1])
    models["large"] = single_identity("large", "UINT8", [-1])
    models["versioned"] = Model(single_identity("versioned", "INT64", [1],
                                                version_policy="{ all { } }"), versions=(1, 2))
    return inferd(models)


@pytest.fixture(scope="module")
def client(server):
    return server.grpc_client()


@pytest.fixture(scope="module")
def stub(server, stubs):
    return stubs.stub(server.grpc_address)


# -- every datatype: raw stubs -----------------------------------------------------------


@pytest.mark.parametrize("typed", [False, True], ids=["raw_input_contents", "typed_contents"])
@pytest.mark.parametrize("datatype", ALL_DATATYPES)
def test_every_datatype_round_trips(stub, stubs, datatype, typed):
    data = values(datatype)
    response = stub.ModelInfer(infer_request(
        stubs, model_name(datatype), [("INPUT0", datatype, data)], typed=typed))
    assert response.model_name == model_name(datatype)
    assert response.model_version == "1"
    out_datatype, shape, array = outputs_of(response)["OUTPUT0"]
    assert (out_datatype, shape) == (datatype, [2, ROW])
    assert_equal_tensors(array, data, datatype)


def test_bytes_that_are_not_utf8_round_trip_in_both_forms(stub, stubs):
    data = np.array([[b"\xff\x00\xfe", b"\x00", b""], [b"\x80" * 5, b"ok", b"\xc3"]],
                    dtype=np.object_)
    for typed in (False, True):
        response = stub.ModelInfer(infer_request(
            stubs, "identity_bytes", [("INPUT0", "BYTES", data)], typed=typed))
        assert_equal_tensors(outputs_of(response)["OUTPUT0"][2], data, "BYTES")


def test_fp16_typed_contents_round_to_nearest_even(stub, stubs):
    # 1 + 2**-11 lies halfway between two FP16 values: it rounds to the even one, 1.0.
    request = infer_request(stubs, "identity_fp16", [("INPUT0", "FP16", np.zeros((1, ROW)))],
                            typed=True)
    del request.inputs[0].contents.fp32_contents[:]
    request.inputs[0].contents.fp32_contents.extend([1.0 + 2.0**-11, 3.0, -0.5])
    array = outputs_of(stub.ModelInfer(request))["OUTPUT0"][2]
    assert array.tolist() == [[1.0, 3.0, -0.5]]


# -- every datatype: tritonclient ------------------------------------------------------


@pytest.mark.parametrize("datatype", ALL_DATATYPES)
def test_tritonclient_round_trips_every_datatype(client, datatype):
    data = values(datatype)
    inp = grpcclient.InferInput("INPUT0", list(data.shape), datatype)
    inp.set_data_from_numpy(data)
    result = client.infer(model_name(datatype), [inp],
                          outputs=[grpcclient.InferRequestedOutput("OUTPUT0")])
    output = result.get_output("OUTPUT0")
    assert (output.datatype, list(output.shape)) == (datatype, [2, ROW])
    assert_equal_tensors(result.as_numpy("OUTPUT0"), data, datatype)


def test_full_batch_of_eight_rows(client):
    data = np.arange(8 * ROW, dtype=np.float32).reshape(8, ROW) * 0.25 - 3.0
    inp = grpcclient.InferInput("INPUT0", [8, ROW], "FP32")
    inp.set_data_from_numpy(data)
    assert_equal_tensors(client.infer("identity_fp32", [inp]).as_numpy("OUTPUT0"), data, "FP32")


# -- outputs, ids, versions, shapes ------------------------------------------------------

TWO_INPUTS = [
    ("INPUT0", "FP32", np.array([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]], dtype=np.float32)),
    ("INPUT1", "INT32", np.array([[10, 20, 30, 40], [-1, -2, -3, -4]], dtype=np.int32)),
]


def test_every_output_is_returned_when_none_is_requested(stub, stubs):
    outputs = outputs_of(stub.ModelInfer(infer_request(stubs, "two_outputs", TWO_INPUTS)))
    assert sorted(outputs) == ["OUTPUT0", "OUTPUT1"]
    assert_equal_tensors(outputs["OUTPUT0"][2], TWO_INPUTS[0][2], "FP32")
    assert_equal_tensors(outputs["OUTPUT1"][2], TWO_INPUTS[1][2], "INT32")


@pytest.mark.parametrize("wanted", [["OUTPUT1"], ["OUTPUT0"], ["OUTPUT1", "OUTPUT0"]])
def test_only_requested_outputs_are_returned_in_request_order(stub, stubs, wanted):
    response = stub.ModelInfer(infer_request(stubs, "two_outputs", TWO_INPUTS, outputs=wanted))
    assert [o.name for o in response.outputs] == wanted
    outputs = outputs_of(response)
    for name in wanted:
        source = TWO_INPUTS[int(name[-1])]
        assert_equal_tensors(outputs[name][2], source[2], source[1])


def test_tritonclient_requested_output(client):
    inputs = []
    for name, datatype, array in TWO_INPUTS:
        inp = grpcclient.InferInput(name, list(array.shape), datatype)
        inp.set_data_from_numpy(array)
        inputs.append(inp)
    result = client.infer("two_outputs", inputs,
                          outputs=[grpcclient.InferRequestedOutput("OUTPUT1")])
    assert result.as_numpy("OUTPUT0") is None
    assert_equal_tensors(result.as_numpy("OUTPUT1"), TWO_INPUTS[1][2], "INT32")


def test_request_id_is_echoed(stub, stubs, client):
    data = values("INT32")
    response = stub.ModelInfer(infer_request(
        stubs, "identity_int32", [("INPUT0", "INT32", data)], id="request-42"))
    assert response.id == "request-42"
    inp = grpcclient.InferInput("INPUT0", [2, ROW], "INT32")
    inp.set_data_from_numpy(data)
    assert client.infer("identity_int32", [inp], request_id="abc").get_response().id == "abc"


def test_model_version_is_honoured_and_echoed(stub, stubs):
    data = np.array([7], dtype=np.int64)
    for version in ("1", "2"):
        response = stub.ModelInfer(infer_request(
            stubs, "versioned", [("INPUT0", "INT64", data)], model_version=version))
        assert response.model_version == version
    latest = stub.ModelInfer(infer_request(stubs, "versioned", [("INPUT0", "INT64", data)]))
    assert latest.model_version == "2"


def test_variable_dimensions(stub, stubs):
    data = np.arange(10, dtype=np.int32).reshape(2, 5)
    outputs = outputs_of(stub.ModelInfer(
        infer_request(stubs, "variable_dims", [("INPUT0", "INT32", data)], typed=True)))
    assert outputs["OUTPUT0"][1] == [2, 5]
    assert_equal_tensors(outputs["OUTPUT0"][2], data, "INT32")


def test_tensor_larger_than_grpc_default_message_limit(client):
    data = (np.arange(6 << 20) % 251).astype(np.uint8)
    inp = grpcclient.InferInput("INPUT0", [data.size], "UINT8")
    inp.set_data_from_numpy(data)
    result = client.infer("large", [inp])
    assert np.array_equal(result.as_numpy("OUTPUT0"), data)


@pytest.mark.parametrize("algorithm", ["gzip", "deflate"])
def test_compressed_request_is_accepted(client, algorithm):
    data = values("FP64")
    inp = grpcclient.InferInput("INPUT0", [2, ROW], "FP64")
    inp.set_data_from_numpy(data)
    result = client.infer("identity_fp64", [inp], compression_algorithm=algorithm)
    assert_equal_tensors(result.as_numpy("OUTPUT0"), data, "FP64")


def test_request_parameters_are_accepted(stub, stubs):
    request = infer_request(stubs, "identity_int8", [("INPUT0", "INT8", values("INT8"))],
                            typed=True)
    request.parameters["priority"].int64_param = 0
    request.parameters["timeout"].uint64_param = 10_000_000
    request.parameters["custom"].string_param = "passed through"
    request.parameters["flag"].bool_param = True
    assert_equal_tensors(outputs_of(stub.ModelInfer(request))["OUTPUT0"][2], values("INT8"),
                         "INT8")


def test_a_shape_whose_element_count_overflows_is_refused(stub, stubs):
    # Found by grpc_infer_fuzz: 2^62 x 4 elements overflowed the count (undefined
    # behaviour); a count that wrapped could match the empty data sent.
    request = stubs.pb.ModelInferRequest(model_name="variable_dims")
    request.inputs.add(name="INPUT0", datatype="INT32", shape=[1 << 62, 4])
    request.raw_input_contents.append(b"")
    with pytest.raises(grpc.RpcError) as error:
        stub.ModelInfer(request)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "more elements than any request can hold" in error.value.details()
    # The server serves on.
    data = np.array([[1, 2]], dtype=np.int32)
    response = stub.ModelInfer(infer_request(stubs, "variable_dims", [("INPUT0", "INT32", data)]))
    assert_equal_tensors(outputs_of(response)["OUTPUT0"][2], data, "INT32")


def test_classification_of_an_empty_output_is_served(client):
    # Found by grpc_infer_fuzz: class_count on an output of 0 elements freed the
    # client's output buffer as if it were the server's scratch memory (abort).
    tensor = grpcclient.InferInput("INPUT0", [1, 0], "INT32")
    tensor.set_data_from_numpy(np.zeros((1, 0), dtype=np.int32))
    output = grpcclient.InferRequestedOutput("OUTPUT0", class_count=1)
    result = client.infer("variable_dims", [tensor], outputs=[output])
    assert result.as_numpy("OUTPUT0").size == 0
    assert client.is_server_live()
