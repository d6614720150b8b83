"""Logging extension over gRPC: the LogSettings RPC with the genuine
tritonclient.grpc (get_log_settings, update_log_settings) and with
tritonclient's own stub for values of the wrong kind; errors are
INVALID_ARGUMENT naming the setting and change nothing; a log file other than
the one in force is UNIMPLEMENTED (as in Triton, the file is set only at start,
with --log-file) and changes nothing, the same one is accepted; HTTP and gRPC
see the same settings.
"""

import grpc
import pytest
from tritonclient.grpc import service_pb2, service_pb2_grpc
from tritonclient.utils import InferenceServerException

from logging_util import DEFAULTS, LOG_FILE_REFUSED, file_logged_server, lines_with
from util import single_identity


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({"m": single_identity("m", "FP32", [4])})


@pytest.fixture(autouse=True)
def restore_defaults(server):
    yield
    assert server.post("/v2/logging", json=DEFAULTS).status_code == 200


@pytest.fixture(scope="module")
def stub(server):
    channel = grpc.insecure_channel(server.grpc_address)
    yield service_pb2_grpc.GRPCInferenceServiceStub(channel)
    channel.close()


def as_dict(response) -> dict:
    out = {}
    for key, value in response.settings.items():
        out[key] = getattr(value, value.WhichOneof("parameter_choice"))
    return out


def test_get_log_settings_answers_every_setting(server):
    client = server.grpc_client()
    assert client.get_log_settings(as_json=True) == {"settings": {
        "log_file": {"string_param": ""}, "log_info": {"bool_param": True},
        "log_warning": {"bool_param": True}, "log_error": {"bool_param": True},
        "log_verbose_level": {"uint32_param": 1}, "log_format": {"string_param": "default"}}}
    assert as_dict(client.get_log_settings()) == DEFAULTS


def test_update_changes_the_named_settings_and_answers_all(server):
    client = server.grpc_client()
    response = client.update_log_settings({"log_verbose_level": 4, "log_format": "ISO8601",
                                           "log_error": False})
    expected = {**DEFAULTS, "log_verbose_level": 4, "log_format": "ISO8601", "log_error": False}
    assert as_dict(response) == expected
    assert as_dict(client.get_log_settings()) == expected
    assert server.get("/v2/logging").json() == expected  # one set of settings, two protocols


def test_http_changes_show_over_grpc(server):
    server.post("/v2/logging", json={"log_info": False})
    assert as_dict(server.grpc_client().get_log_settings()) == {**DEFAULTS, "log_info": False}


def test_none_leaves_a_setting_unchanged(server):
    client = server.grpc_client()
    response = client.update_log_settings({"log_info": None, "log_verbose_level": 2})
    assert as_dict(response) == {**DEFAULTS, "log_verbose_level": 2}


def assert_invalid(call, *needles):
    with pytest.raises(InferenceServerException) as error:
        call()
    assert error.value.status() == "StatusCode.INVALID_ARGUMENT", str(error.value)
    for needle in needles:
        assert needle in error.value.message(), error.value.message()


def test_bad_updates_through_tritonclient_are_invalid_argument(server):
    client = server.grpc_client()
    assert_invalid(lambda: client.update_log_settings({"log_format": "xml"}), "'log_format'")
    assert_invalid(lambda: client.update_log_settings({"log_verbosity": 1}),
                   "unknown log setting 'log_verbosity'")
    assert_invalid(lambda: client.update_log_settings({"log_verbose_level": 9,
                                                       "log_format": "xml"}), "'log_format'")
    assert as_dict(client.get_log_settings()) == DEFAULTS


def assert_unimplemented(call):
    with pytest.raises(InferenceServerException) as error:
        call()
    assert error.value.status() == "StatusCode.UNIMPLEMENTED", str(error.value)
    assert LOG_FILE_REFUSED in error.value.message(), error.value.message()
    assert "--log-file" in error.value.message(), error.value.message()


def test_log_file_change_through_tritonclient_is_unimplemented(server, tmp_path):
    client = server.grpc_client()
    path = tmp_path / "x.log"
    assert_unimplemented(lambda: client.update_log_settings({"log_file": str(path)}))
    assert_unimplemented(lambda: client.update_log_settings({"log_verbose_level": 3,
                                                             "log_file": str(path)}))
    assert as_dict(client.get_log_settings()) == DEFAULTS
    assert not path.exists()
    response = client.update_log_settings({"log_file": "", "log_error": False})
    assert as_dict(response) == {**DEFAULTS, "log_error": False}


@pytest.fixture(scope="module")
def file_logged(tmp_path_factory):
    with file_logged_server(tmp_path_factory, {"m": single_identity("m", "FP32", [4])}) as s:
        yield s


def test_log_file_set_at_start_cannot_change_over_grpc(file_logged, tmp_path):
    client = file_logged.grpc_client()
    for target in ("", str(tmp_path / "other.log")):
        assert_unimplemented(lambda: client.update_log_settings({"log_file": target,
                                                                 "log_info": False}))
        assert as_dict(client.get_log_settings()) == file_logged.defaults()
    # The whole settings dict sent back, the same file in it, is accepted.
    current = as_dict(client.get_log_settings())
    response = client.update_log_settings({**current, "log_verbose_level": 0})
    assert as_dict(response) == {**file_logged.defaults(), "log_verbose_level": 0}
    client.update_log_settings(file_logged.defaults())
    assert client.is_server_live()
    assert client.is_model_ready("m")
    assert lines_with(file_logged.log(), "Started GRPCInferenceService at")


@pytest.mark.parametrize("key,field,value", [
    ("log_info", "string_param", "false"),
    ("log_warning", "uint32_param", 0),
    ("log_verbose_level", "bool_param", True),
    ("log_verbose_level", "string_param", "2"),
    ("log_format", "bool_param", True),
    ("log_file", "uint32_param", 3),
])
def test_value_of_the_wrong_kind_is_invalid_argument(server, stub, key, field, value):
    request = service_pb2.LogSettingsRequest()
    setattr(request.settings[key], field, value)
    with pytest.raises(grpc.RpcError) as error:
        stub.LogSettings(request)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert f"'{key}'" in error.value.details()
    assert as_dict(stub.LogSettings(service_pb2.LogSettingsRequest())) == DEFAULTS


def test_server_keeps_serving(server, stub, tmp_path):
    request = service_pb2.LogSettingsRequest()
    request.settings["nope"].bool_param = True
    with pytest.raises(grpc.RpcError):
        stub.LogSettings(request)
    request = service_pb2.LogSettingsRequest()
    request.settings["log_file"].string_param = str(tmp_path / "x.log")
    with pytest.raises(grpc.RpcError) as error:
        stub.LogSettings(request)
    assert error.value.code() == grpc.StatusCode.UNIMPLEMENTED
    assert LOG_FILE_REFUSED in error.value.details()
    client = server.grpc_client()
    assert client.is_server_live()
    assert client.is_model_ready("m")
