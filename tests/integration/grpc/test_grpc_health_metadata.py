"""Health, metadata, configuration, statistics and repository index over gRPC.

Through both tritonclient.grpc and stubs generated from inferd's own .proto:
liveness and readiness of the server and of models (an unknown model is not
ready, as in Triton), server metadata, model metadata with -1 for the batch
dimension, the ModelConfig message itself (a config with dynamic_batching,
instance_group and version_policy comes back field for field, and equals the
HTTP config endpoint's JSON), the repository index with its `ready` filter and
the reason of a model that failed to load, and model statistics.
"""

import grpc
import numpy as np
import pytest
from google.protobuf import json_format, text_format

from util import Model, identity_config, single_identity

ROUND_TRIP_CONFIG = identity_config(
    "round_trip",
    [("INPUT0", "OUTPUT0", "FP32", [4]), ("INPUT1", "OUTPUT1", "BYTES", [-1])],
    max_batch_size=16,
    version_policy="{ specific { versions: [1, 3] } }",
    extra="""dynamic_batching {
  preferred_batch_size: [4, 8]
  max_queue_delay_microseconds: 250
  priority_levels: 3
  default_priority_level: 2
  default_queue_policy { timeout_action: DELAY default_timeout_microseconds: 9000000000 \
allow_timeout_override: true max_queue_size: 40 }
  priority_queue_policy { key: 1 value { max_queue_size: 7 } }
}
instance_group [
  { name: "pair" kind: KIND_CPU count: 2 },
  { name: "single" kind: KIND_CPU count: 1 }
]
parameters { key: "note" value: { string_value: "kept" } }
""")

REPO = {
    "identity_fp32": single_identity("identity_fp32", "FP32", [16], max_batch_size=8),
    "two_versions": Model(single_identity("two_versions", "INT32", [2],
                                          version_policy="{ all { } }"), versions=(1, 2)),
    "round_trip": Model(ROUND_TRIP_CONFIG, versions=(1, 2, 3)),
    # Its config is fine but its backend does not exist: the load fails past the
    # configuration, so strict readiness counts it (Triton 2.51: a config.pbtxt
    # that cannot be read would not count).
    "broken": single_identity("broken", "FP32", [4]).replace('backend: "identity"',
                                                            'backend: "no_such_backend"'),
}


@pytest.fixture(scope="module")
def server(inferd):
    return inferd(REPO, extra_args=["--exit-on-error=false"], wait_for="live")


@pytest.fixture(scope="module")
def client(server):
    return server.grpc_client()


@pytest.fixture(scope="module")
def stub(server, stubs):
    return stubs.stub(server.grpc_address)


# -- health ----------------------------------------------------------------------------


def test_server_live_and_not_ready_with_a_broken_model(client, stub, stubs):
    assert client.is_server_live() is True
    assert stub.ServerLive(stubs.pb.ServerLiveRequest()).live is True
    # "broken" failed to load, so the server is not ready, exactly as over HTTP.
    assert client.is_server_ready() is False
    assert stub.ServerReady(stubs.pb.ServerReadyRequest()).ready is False


def test_model_ready_per_model_and_version(client, stub, stubs):
    assert client.is_model_ready("identity_fp32") is True
    assert client.is_model_ready("two_versions", "1") is True
    assert client.is_model_ready("two_versions", "2") is True
    assert client.is_model_ready("round_trip", "2") is False  # not in its version policy
    assert client.is_model_ready("broken") is False
    assert client.is_model_ready("no_such_model") is False
    assert stub.ModelReady(stubs.pb.ModelReadyRequest(name="round_trip", version="3")).ready


def test_model_ready_with_a_malformed_version_is_invalid_argument(stub, stubs):
    with pytest.raises(grpc.RpcError) as error:
        stub.ModelReady(stubs.pb.ModelReadyRequest(name="identity_fp32", version="one"))
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "'one'" in error.value.details()


# -- metadata -----------------------------------------------------------------------------


def test_server_metadata(client, stub, stubs, server):
    meta = stub.ServerMetadata(stubs.pb.ServerMetadataRequest())
    assert meta.name == "triton"  # --id's default, as Triton's
    assert meta.version
    assert "model_configuration" in meta.extensions
    assert list(meta.extensions) == server.get("/v2").json()["extensions"]
    assert client.get_server_metadata(as_json=True)["name"] == "triton"


def test_model_metadata_shows_batch_dimension_as_minus_one(stub, stubs):
    meta = stub.ModelMetadata(stubs.pb.ModelMetadataRequest(name="identity_fp32"))
    assert meta.name == "identity_fp32"
    assert list(meta.versions) == ["1"]
    assert meta.platform == "identity"
    assert [(t.name, t.datatype, list(t.shape)) for t in meta.inputs] == [
        ("INPUT0", "FP32", [-1, 16])]
    assert [(t.name, t.datatype, list(t.shape)) for t in meta.outputs] == [
        ("OUTPUT0", "FP32", [-1, 16])]


def test_model_metadata_by_version_through_tritonclient(client):
    meta = client.get_model_metadata("two_versions", "2", as_json=True)
    assert meta["name"] == "two_versions"
    assert "2" in meta["versions"]
    assert meta["inputs"] == [{"name": "INPUT0", "datatype": "INT32", "shape": ["2"]}]
    assert sorted(client.get_model_metadata("two_versions", as_json=True)["versions"]) == [
        "1", "2"]


def test_metadata_of_unknown_model_is_not_found(stub, stubs, client):
    with pytest.raises(grpc.RpcError) as error:
        stub.ModelMetadata(stubs.pb.ModelMetadataRequest(name="no_such_model"))
    assert error.value.code() == grpc.StatusCode.NOT_FOUND
    assert "no_such_model" in error.value.details()
    with pytest.raises(Exception, match="no_such_model"):
        client.get_model_metadata("no_such_model")


# -- configuration ----------------------------------------------------------------------


def assert_fields_present(source, returned, path="config"):
    """Every field set in `source` has the same value in `returned` (which may
    hold more: the defaults the server fills in)."""
    for field, value in source.ListFields():
        got = getattr(returned, field.name)
        where = f"{path}.{field.name}"
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            assert dict(got.items()).keys() >= dict(value.items()).keys(), where
            for key, item in value.items():
                if hasattr(item, "ListFields"):
                    assert_fields_present(item, got[key], f"{where}[{key}]")
                else:
                    assert got[key] == item, f"{where}[{key}]"
        elif field.message_type is not None and field.label == field.LABEL_REPEATED:
            assert len(got) == len(value), where
            for i, (item, got_item) in enumerate(zip(value, got)):
                assert_fields_present(item, got_item, f"{where}[{i}]")
        elif field.message_type is not None:
            assert_fields_present(value, got, where)
        else:
            assert (list(got) if field.label == field.LABEL_REPEATED else got) == (
                list(value) if field.label == field.LABEL_REPEATED else value), where


def test_config_comes_back_field_for_field(stub, stubs):
    source = text_format.Parse(ROUND_TRIP_CONFIG, stubs.mc.ModelConfig())
    config = stub.ModelConfig(stubs.pb.ModelConfigRequest(name="round_trip")).config
    assert_fields_present(source, config)
    # Spot checks of the parts the issue names, and of defaults filled in.
    assert list(config.version_policy.specific.versions) == [1, 3]
    assert list(config.dynamic_batching.preferred_batch_size) == [4, 8]
    assert config.dynamic_batching.default_queue_policy.default_timeout_microseconds == 9000000000
    assert config.dynamic_batching.priority_queue_policy[1].max_queue_size == 7
    assert [(g.name, g.count, g.kind) for g in config.instance_group] == [
        ("pair", 2, stubs.mc.ModelInstanceGroup.KIND_CPU),
        ("single", 1, stubs.mc.ModelInstanceGroup.KIND_CPU)]
    assert config.parameters["note"].string_value == "kept"
    assert config.input[1].data_type == stubs.mc.TYPE_STRING


def test_config_equals_the_http_config_json(stub, stubs, server):
    config = stub.ModelConfig(stubs.pb.ModelConfigRequest(name="round_trip", version="3")).config
    http = server.get("/v2/models/round_trip/config").json()
    assert json_format.ParseDict(http, stubs.mc.ModelConfig()) == config


def test_tritonclient_reads_the_config(client):
    config = client.get_model_config("round_trip", as_json=True)["config"]
    assert config["name"] == "round_trip"
    assert config["max_batch_size"] == 16
    assert config["dynamic_batching"]["max_queue_delay_microseconds"] == "250"
    assert [g["count"] for g in config["instance_group"]] == [2, 1]


def test_config_of_unknown_model_or_version_is_not_found(stub, stubs):
    for request in (stubs.pb.ModelConfigRequest(name="no_such_model"),
                    stubs.pb.ModelConfigRequest(name="identity_fp32", version="9")):
        with pytest.raises(grpc.RpcError) as error:
            stub.ModelConfig(request)
        assert error.value.code() == grpc.StatusCode.NOT_FOUND


# -- repository index and statistics ---------------------------------------------------


def test_repository_index_lists_every_version_with_state_and_reason(stub, stubs, server):
    index = stub.RepositoryIndex(stubs.pb.RepositoryIndexRequest())
    entries = {(m.name, m.version): (m.state, m.reason) for m in index.models}
    assert entries[("identity_fp32", "1")] == ("READY", "")
    assert entries[("two_versions", "2")][0] == "READY"
    broken = [(state, reason) for (name, _), (state, reason) in entries.items() if name == "broken"]
    assert broken and broken[0][0] == "UNAVAILABLE" and "broken" in broken[0][1]
    http = server.post("/v2/repository/index").json()
    assert sorted((m["name"], m.get("version", ""), m["state"]) for m in http) == sorted(
        (m.name, m.version, m.state) for m in index.models)


def test_repository_index_ready_only(stub, stubs, client):
    index = stub.RepositoryIndex(stubs.pb.RepositoryIndexRequest(ready=True))
    assert {m.state for m in index.models} == {"READY"}
    assert "broken" not in {m.name for m in index.models}
    names = {m["name"] for m in client.get_model_repository_index(as_json=True)["models"]}
    assert {"identity_fp32", "two_versions", "round_trip", "broken"} <= names


def test_model_statistics_count_inferences(client, stub, stubs):
    import tritonclient.grpc as grpcclient

    x = grpcclient.InferInput("INPUT0", [1, 16], "FP32")
    x.set_data_from_numpy(np.ones((1, 16), dtype=np.float32))
    before = stub.ModelStatistics(stubs.pb.ModelStatisticsRequest(name="identity_fp32"))
    for _ in range(3):
        client.infer("identity_fp32", [x])
    after = stub.ModelStatistics(stubs.pb.ModelStatisticsRequest(name="identity_fp32"))
    (stats_before,), (stats,) = before.model_stats, after.model_stats
    assert (stats.name, stats.version) == ("identity_fp32", "1")
    assert stats.inference_count - stats_before.inference_count == 3
    assert stats.inference_stats.success.count - stats_before.inference_stats.success.count == 3
    every = client.get_inference_statistics(as_json=True)["model_stats"]
    assert {"identity_fp32", "two_versions"} <= {s["name"] for s in every}
