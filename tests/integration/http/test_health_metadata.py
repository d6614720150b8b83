"""Health, metadata, configuration and repository-index endpoints over HTTP.

Checks server liveness/readiness, server metadata, model metadata (versions as
strings, platform, tensor datatypes and shapes with -1 for the batch dimension),
per-version readiness, the Triton-style config JSON, the repository index, and
how the server treats bad model folders: a broken config.pbtxt, an unknown
backend, and the same model name in two repositories make only that model
UNAVAILABLE (with a reason that names the problem) while the rest keep serving.
Version policies latest(n), all and specific decide which versions serve.
"""

import pytest

from util import Model, identity_config, single_identity

TWO_IO = identity_config(
    "two_io",
    [("INPUT0", "OUTPUT0", "INT32", [2, 3]), ("INPUT1", "OUTPUT1", "BYTES", [-1])],
)

CLEAN_REPO = {
    "identity_fp32": single_identity("identity_fp32", "FP32", [16], max_batch_size=8),
    "two_io": TWO_IO,
    "default_policy": Model(single_identity("default_policy", "INT64", [1]), versions=(1, 2)),
    "latest_two": Model(
        single_identity("latest_two", "INT64", [1], version_policy="{ latest { num_versions: 2 } }"),
        versions=(1, 2, 3)),
    "all_versions": Model(
        single_identity("all_versions", "INT64", [1], version_policy="{ all { } }"),
        versions=(1, 2, 3)),
    "specific_versions": Model(
        single_identity("specific_versions", "INT64", [1],
                        version_policy="{ specific { versions: [1, 3] } }"),
        versions=(1, 2, 3)),
}


@pytest.fixture(scope="module")
def server(inferd):
    return inferd(CLEAN_REPO)


@pytest.fixture(scope="module")
def mixed_server(inferd):
    """Two repositories: good models, a broken config, an unknown backend, and a
    model name that both repositories contain."""
    first = {
        "good_a": single_identity("good_a", "FP32", [2]),
        "broken_config": Model("name: \"broken_config\"\nbackend: \"identity\"\ninput [ { name: "),
        "unknown_backend": single_identity("unknown_backend", "FP32", [2]).replace(
            'backend: "identity"', 'backend: "no_such_backend"'),
        "twice": single_identity("twice", "FP32", [2]),
    }
    second = {
        "good_b": single_identity("good_b", "INT32", [3]),
        "twice": single_identity("twice", "FP32", [2]),
    }
    return inferd([first, second], extra_args=["--exit-on-error=false"], wait_for="live")


def index_by_name(entries):
    result = {}
    for entry in entries:
        result.setdefault(entry["name"], []).append(entry)
    return result


# -- health -------------------------------------------------------------------


def test_server_is_live_and_ready(server):
    assert server.get("/v2/health/live").status_code == 200
    assert server.get("/v2/health/ready").status_code == 200


def test_tritonclient_reports_live_and_ready(server):
    client = server.client()
    assert client.is_server_live() is True
    assert client.is_server_ready() is True
    assert client.is_model_ready("identity_fp32") is True
    assert client.is_model_ready("no_such_model") is False


def test_server_metadata_names_the_server_id_and_lists_extensions(server):
    resp = server.get("/v2")
    assert resp.status_code == 200
    meta = resp.json()
    assert meta["name"] == "triton"  # --id's default, as Triton's
    assert isinstance(meta["version"], str) and meta["version"]
    assert isinstance(meta["extensions"], list)
    assert all(isinstance(e, str) for e in meta["extensions"])
    assert "binary_tensor_data" in meta["extensions"]
    assert "model_configuration" in meta["extensions"]
    # Sequences (numbers and strings) and unload_dependents are served, so said.
    for extension in ("sequence", "sequence(string_id)", "model_repository(unload_dependents)"):
        assert extension in meta["extensions"]


# -- model metadata -------------------------------------------------------------


def test_model_metadata_shows_batch_dimension_as_minus_one(server):
    resp = server.get("/v2/models/identity_fp32")
    assert resp.status_code == 200
    meta = resp.json()
    assert meta["name"] == "identity_fp32"
    assert meta["versions"] == ["1"]
    assert meta["platform"] == "identity"
    assert meta["inputs"] == [{"name": "INPUT0", "datatype": "FP32", "shape": [-1, 16]}]
    assert meta["outputs"] == [{"name": "OUTPUT0", "datatype": "FP32", "shape": [-1, 16]}]


def test_model_metadata_of_non_batching_model_keeps_dims(server):
    meta = server.get("/v2/models/two_io").json()
    assert meta["inputs"] == [
        {"name": "INPUT0", "datatype": "INT32", "shape": [2, 3]},
        {"name": "INPUT1", "datatype": "BYTES", "shape": [-1]},
    ]
    assert meta["outputs"] == [
        {"name": "OUTPUT0", "datatype": "INT32", "shape": [2, 3]},
        {"name": "OUTPUT1", "datatype": "BYTES", "shape": [-1]},
    ]


def test_model_metadata_by_version(server):
    resp = server.get("/v2/models/identity_fp32/versions/1")
    assert resp.status_code == 200
    meta = resp.json()
    assert meta["name"] == "identity_fp32"
    assert meta["inputs"][0]["shape"] == [-1, 16]


def test_tritonclient_reads_model_metadata(server):
    meta = server.client().get_model_metadata("two_io")
    assert meta["name"] == "two_io"
    assert [i["name"] for i in meta["inputs"]] == ["INPUT0", "INPUT1"]
    assert [o["datatype"] for o in meta["outputs"]] == ["INT32", "BYTES"]


def test_model_ready_by_version(server):
    assert server.get("/v2/models/identity_fp32/ready").status_code == 200
    assert server.get("/v2/models/identity_fp32/versions/1/ready").status_code == 200


# -- config ---------------------------------------------------------------------


def test_config_json_has_fields_with_defaults_filled(server):
    resp = server.get("/v2/models/identity_fp32/config")
    assert resp.status_code == 200
    config = resp.json()
    assert config["name"] == "identity_fp32"
    assert config["backend"] == "identity"
    assert config["max_batch_size"] == 8
    assert len(config["input"]) == 1
    assert config["input"][0]["name"] == "INPUT0"
    assert config["input"][0]["data_type"] == "TYPE_FP32"
    assert config["input"][0]["dims"] == [16]
    assert type(config["input"][0]["dims"][0]) is int
    assert config["output"][0]["name"] == "OUTPUT0"
    assert config["output"][0]["data_type"] == "TYPE_FP32"
    assert config["output"][0]["dims"] == [16]
    assert config["version_policy"] == {"latest": {"num_versions": 1}}
    groups = config["instance_group"]
    assert len(groups) == 1
    assert groups[0]["kind"] == "KIND_CPU"
    assert groups[0]["count"] == 1
    assert isinstance(groups[0]["name"], str) and groups[0]["name"]


def test_config_json_renders_bytes_as_type_string_and_variable_dims(server):
    config = server.get("/v2/models/two_io/config").json()
    assert config["max_batch_size"] == 0
    assert [(i["name"], i["data_type"], i["dims"]) for i in config["input"]] == [
        ("INPUT0", "TYPE_INT32", [2, 3]), ("INPUT1", "TYPE_STRING", [-1])]


@pytest.mark.parametrize("model, policy", [
    ("latest_two", {"latest": {"num_versions": 2}}),
    ("all_versions", {"all": {}}),
    ("specific_versions", {"specific": {"versions": [1, 3]}}),
])
def test_config_json_reflects_version_policy(server, model, policy):
    assert server.get(f"/v2/models/{model}/config").json()["version_policy"] == policy


def test_tritonclient_reads_model_config(server):
    config = server.client().get_model_config("identity_fp32")
    assert config["max_batch_size"] == 8
    assert config["input"][0]["dims"] == [16]


# -- version policies -------------------------------------------------------------


@pytest.mark.parametrize("model, served, not_served", [
    ("default_policy", ["2"], ["1"]),
    ("latest_two", ["2", "3"], ["1"]),
    ("all_versions", ["1", "2", "3"], []),
    ("specific_versions", ["1", "3"], ["2"]),
])
def test_version_policy_decides_served_versions(server, model, served, not_served):
    meta = server.get(f"/v2/models/{model}").json()
    assert all(isinstance(v, str) for v in meta["versions"])
    assert sorted(meta["versions"], key=int) == served
    for version in served:
        assert server.get(f"/v2/models/{model}/versions/{version}/ready").status_code == 200
    for version in not_served:
        # A version on disk that the policy does not serve is not ready: 400 as
        # in Triton, or 404 if the server treats it as an unknown version.
        assert server.get(f"/v2/models/{model}/versions/{version}/ready").status_code in (400, 404)
    # Without a version, readiness means the served (latest) version.
    assert server.get(f"/v2/models/{model}/ready").status_code == 200


def test_repository_index_lists_every_served_version_as_ready(server):
    resp = server.post("/v2/repository/index", json={})
    assert resp.status_code == 200
    entries = index_by_name(resp.json())
    assert set(entries) == set(CLEAN_REPO)
    for name in ("identity_fp32", "two_io"):
        assert [(e["version"], e["state"]) for e in entries[name]] == [("1", "READY")]
    ready_versions = sorted(e["version"] for e in entries["all_versions"] if e["state"] == "READY")
    assert ready_versions == ["1", "2", "3"]
    ready_versions = sorted(e["version"] for e in entries["latest_two"] if e["state"] == "READY")
    assert ready_versions == ["2", "3"]


def test_tritonclient_reads_repository_index(server):
    index = server.client().get_model_repository_index()
    assert {e["name"] for e in index} == set(CLEAN_REPO)


# -- bad model folders and several repositories --------------------------------------


def test_server_stays_live_with_broken_models(mixed_server):
    assert mixed_server.get("/v2/health/live").status_code == 200


def test_models_from_both_repositories_serve(mixed_server):
    for name in ("good_a", "good_b"):
        assert mixed_server.get(f"/v2/models/{name}/ready").status_code == 200
    assert mixed_server.get("/v2/models/good_b").json()["inputs"] == [
        {"name": "INPUT0", "datatype": "INT32", "shape": [3]}]


def test_broken_config_is_unavailable_with_reason_naming_the_file(mixed_server):
    entries = index_by_name(mixed_server.post("/v2/repository/index", json={}).json())
    assert entries["broken_config"], "broken model missing from the index"
    for entry in entries["broken_config"]:
        assert entry["state"] == "UNAVAILABLE"
        assert "config.pbtxt" in entry["reason"]
    assert mixed_server.get("/v2/models/broken_config/ready").status_code == 400


def test_unknown_backend_is_unavailable_with_reason_naming_the_backend(mixed_server):
    entries = index_by_name(mixed_server.post("/v2/repository/index", json={}).json())
    assert entries["unknown_backend"]
    for entry in entries["unknown_backend"]:
        assert entry["state"] == "UNAVAILABLE"
        assert "no_such_backend" in entry["reason"]


def test_same_model_in_two_repositories_is_unavailable_only_itself(mixed_server):
    entries = index_by_name(mixed_server.post("/v2/repository/index", json={}).json())
    assert entries["twice"]
    for entry in entries["twice"]:
        assert entry["state"] == "UNAVAILABLE"
        assert "twice" in entry["reason"] or "repositor" in entry["reason"]
    for name in ("good_a", "good_b"):
        assert [e["state"] for e in entries[name]] == ["READY"]


def test_repository_index_ready_filter_returns_only_ready_models(mixed_server):
    resp = mixed_server.post("/v2/repository/index", json={"ready": True})
    assert resp.status_code == 200
    entries = resp.json()
    assert sorted(e["name"] for e in entries) == ["good_a", "good_b"]
    assert all(e["state"] == "READY" for e in entries)
