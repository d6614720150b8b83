"""Logging extension over HTTP: GET /v2/logging answers every setting, POST
changes only the keys it names and answers every setting now in force, bad
updates are 400 naming the key and change nothing, an update naming a log file
other than the one in force is 501 (as in Triton, the file is set only at
start, with --log-file) and changes nothing, the same file is accepted, and the
server keeps serving. Checked with raw HTTP and with the genuine
tritonclient.http.
"""

import numpy as np
import pytest
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from logging_util import DEFAULTS, LOG_FILE_REFUSED, file_logged_server
from util import assert_error, single_identity

MODEL = "identity_fp32"


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({MODEL: single_identity(MODEL, "FP32", [4])})


@pytest.fixture(autouse=True)
def restore_defaults(server):
    yield
    assert server.post("/v2/logging", json=DEFAULTS).status_code == 200


def settings(server) -> dict:
    resp = server.get("/v2/logging")
    assert resp.status_code == 200, resp.text
    assert resp.headers["Content-Type"].startswith("application/json")
    return resp.json()


def test_get_answers_every_setting_in_tritons_order(server):
    resp = server.get("/v2/logging")
    assert resp.status_code == 200
    assert list(resp.json()) == ["log_file", "log_info", "log_warning", "log_error",
                                 "log_verbose_level", "log_format"]
    assert resp.json() == DEFAULTS


def test_server_metadata_lists_the_logging_extension(server):
    assert "logging" in server.get("/v2").json()["extensions"]


def test_post_changes_only_the_named_keys_and_answers_all(server):
    resp = server.post("/v2/logging", json={"log_verbose_level": 3, "log_format": "ISO8601"})
    assert resp.status_code == 200, resp.text
    assert resp.json() == {**DEFAULTS, "log_verbose_level": 3, "log_format": "ISO8601"}
    resp = server.post("/v2/logging", json={"log_warning": False})
    assert resp.json() == {**DEFAULTS, "log_verbose_level": 3, "log_format": "ISO8601",
                           "log_warning": False}
    assert settings(server) == resp.json()


def test_empty_post_and_null_values_change_nothing(server):
    server.post("/v2/logging", json={"log_error": False})
    expected = {**DEFAULTS, "log_error": False}
    assert server.post("/v2/logging", data=b"").json() == expected
    assert server.post("/v2/logging", json={}).json() == expected
    assert server.post("/v2/logging", json={"log_error": None, "log_file": None}).json() == expected


@pytest.mark.parametrize("body,needle", [
    ({"log_info": "false"}, "'log_info' must be a boolean"),
    ({"log_warning": 0}, "'log_warning' must be a boolean"),
    ({"log_error": [True]}, "'log_error' must be a boolean"),
    ({"log_verbose_level": -1}, "'log_verbose_level'"),
    ({"log_verbose_level": 2.5}, "'log_verbose_level'"),
    ({"log_verbose_level": "2"}, "'log_verbose_level'"),
    ({"log_verbose_level": 2**32}, "'log_verbose_level'"),
    ({"log_format": "iso8601"}, "'log_format'"),
    ({"log_format": 1}, "'log_format' must be a string"),
    ({"log_file": False}, "'log_file' must be a string"),
    ({"log_warnings": True}, "unknown log setting 'log_warnings'"),
    ({"verbose": 1}, "unknown log setting 'verbose'"),
], ids=lambda v: str(v))
def test_bad_value_is_400_naming_the_key(server, body, needle):
    assert_error(server.post("/v2/logging", json=body), 400, needle)
    assert settings(server) == DEFAULTS


def test_one_bad_key_refuses_the_whole_update(server):
    assert_error(server.post("/v2/logging", json={
        "log_verbose_level": 5, "log_format": "ISO8601", "log_info": False, "log_error": "no"}),
        400, "'log_error'")
    assert settings(server) == DEFAULTS


def test_log_file_change_is_501_and_changes_nothing(server, tmp_path):
    path = tmp_path / "inferd.log"
    message = assert_error(
        server.post("/v2/logging", json={"log_verbose_level": 2, "log_file": str(path)}),
        501, LOG_FILE_REFUSED, "--log-file")
    assert str(path) in message
    assert settings(server) == DEFAULTS
    assert not path.exists()


def test_same_log_file_is_accepted(server):
    resp = server.post("/v2/logging", json={"log_file": "", "log_info": False})
    assert resp.status_code == 200, resp.text
    assert resp.json() == {**DEFAULTS, "log_info": False}


@pytest.fixture(scope="module")
def file_logged(tmp_path_factory):
    with file_logged_server(tmp_path_factory, {MODEL: single_identity(MODEL, "FP32", [4])}) as s:
        yield s


def test_log_file_set_at_start_cannot_change(file_logged, tmp_path):
    for target in ("", str(tmp_path / "other.log"), str(file_logged.log_file) + ".1"):
        assert_error(file_logged.post("/v2/logging", json={"log_file": target,
                                                           "log_format": "ISO8601"}),
                     501, LOG_FILE_REFUSED)
        assert file_logged.get("/v2/logging").json() == file_logged.defaults()
    resp = file_logged.post("/v2/logging", json={"log_file": str(file_logged.log_file)})
    assert resp.status_code == 200, resp.text
    assert resp.json() == file_logged.defaults()


def test_tritonclient_http_log_file_change_is_refused(file_logged, tmp_path):
    client = file_logged.client()
    with pytest.raises(InferenceServerException) as error:
        client.update_log_settings({"log_file": str(tmp_path / "other.log")})
    assert error.value.status() == "501"
    assert LOG_FILE_REFUSED in error.value.message()
    assert client.get_log_settings() == file_logged.defaults()
    # tritonclient users often send back the whole settings dict, changed.
    current = client.get_log_settings()
    updated = client.update_log_settings({**current, "log_verbose_level": 0})
    assert updated == {**file_logged.defaults(), "log_verbose_level": 0}
    client.update_log_settings(file_logged.defaults())
    assert client.is_server_ready()
    assert client.is_model_ready(MODEL)


@pytest.mark.parametrize("body", [b"{", b"[1, 2]", b"\"log_info\"", b"true", b"{\"log_info\": tru}"])
def test_malformed_body_is_400(server, body):
    assert_error(server.post("/v2/logging", data=body), 400, "log settings request")
    assert settings(server) == DEFAULTS


def test_other_methods_are_405(server):
    import requests

    resp = requests.put(server.url + "/v2/logging", json={}, timeout=5)
    assert resp.status_code == 405
    resp = requests.delete(server.url + "/v2/logging", timeout=5)
    assert resp.status_code == 405
    assert server.get("/v2/logging/extra").status_code == 404


def test_tritonclient_http_reads_and_updates(server):
    client = server.client()
    assert client.get_log_settings() == DEFAULTS
    updated = client.update_log_settings({"log_info": False, "log_verbose_level": 0})
    assert updated == {**DEFAULTS, "log_info": False, "log_verbose_level": 0}
    assert client.get_log_settings() == updated
    with pytest.raises(InferenceServerException) as error:
        client.update_log_settings({"log_format": "json"})
    assert "log_format" in str(error.value)
    assert client.get_log_settings() == updated


def test_server_keeps_serving_after_bad_and_good_updates(server, tmp_path):
    statuses = []
    for body in ({"log_info": 3}, {"nope": 1}, {"log_file": str(tmp_path / "x.log")},
                 {"log_format": "ISO8601"}, {"log_verbose_level": 0}):
        statuses.append(server.post("/v2/logging", json=body).status_code)
    assert statuses == [400, 400, 501, 200, 200]
    assert server.get("/v2/health/ready").status_code == 200
    client = server.client()
    data = np.arange(4, dtype=np.float32)
    inp = httpclient.InferInput("INPUT0", [4], "FP32")
    inp.set_data_from_numpy(data)
    result = client.infer(MODEL, [inp])
    assert result.as_numpy("OUTPUT0").tolist() == data.tolist()
