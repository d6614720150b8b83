"""TraceSetting through stubs generated from inferd's own .proto: an empty
request reads the global settings (every value a list of strings); a request
with settings for a model sets that model's override and answers its whole
view; an empty value list clears the override; a bad value is
INVALID_ARGUMENT naming it; an unknown model is NOT_FOUND."""

import grpc
import pytest

from util import single_identity


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    trace_file = tmp_path_factory.mktemp("trace") / "trace.json"
    return inferd({"m": single_identity("m", "FP32", [4])},
                  extra_args=[f"--trace-config=triton,file={trace_file}"])


def values(response):
    return {name: list(value.value) for name, value in response.settings.items()}


def test_read_set_and_clear(server, stubs):
    stub = stubs.stub(server.grpc_address)
    pb = stubs.pb
    glob = values(stub.TraceSetting(pb.TraceSettingRequest()))
    assert glob["trace_level"] == ["OFF"] and glob["trace_rate"] == ["1000"], glob
    request = pb.TraceSettingRequest(model_name="m")
    request.settings["trace_rate"].value.append("7")
    request.settings["trace_level"].value.append("TIMESTAMPS")
    model = values(stub.TraceSetting(request))
    assert model["trace_rate"] == ["7"] and model["trace_level"] == ["TIMESTAMPS"], model
    assert values(stub.TraceSetting(pb.TraceSettingRequest()))["trace_rate"] == ["1000"]
    clear = pb.TraceSettingRequest(model_name="m")
    clear.settings["trace_rate"].CopyFrom(pb.TraceSettingRequest.SettingValue())
    clear.settings["trace_level"].CopyFrom(pb.TraceSettingRequest.SettingValue())
    assert values(stub.TraceSetting(clear)) == glob


def test_bad_value_and_unknown_model(server, stubs):
    stub = stubs.stub(server.grpc_address)
    pb = stubs.pb
    bad = pb.TraceSettingRequest()
    bad.settings["trace_rate"].value.append("often")
    with pytest.raises(grpc.RpcError) as error:
        stub.TraceSetting(bad)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "trace_rate" in error.value.details() and "often" in error.value.details()
    with pytest.raises(grpc.RpcError) as error:
        stub.TraceSetting(pb.TraceSettingRequest(model_name="nope"))
    assert error.value.code() == grpc.StatusCode.NOT_FOUND
    assert stub.ServerLive(pb.ServerLiveRequest()).live
