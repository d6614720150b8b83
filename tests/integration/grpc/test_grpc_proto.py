"""proto/grpc_service.proto is wire-compatible with Triton's GRPCInferenceService.

tritonclient ships Triton's own compiled grpc_service.proto and model_config.proto;
every service, RPC, message, field, oneof, enum and enum value there must exist
in inferd's schema with the same name, number, type, label and streaming flags
(inferd may have newer additions). The stubs generated from inferd's .proto must
also carry every RPC of the KServe v2 protocol and Triton's extensions.
"""

import pytest
from google.protobuf import descriptor_pb2
from tritonclient.grpc import model_config_pb2 as triton_model_config
from tritonclient.grpc import service_pb2 as triton_service

RPCS = [
    "ServerLive", "ServerReady", "ModelReady", "ServerMetadata", "ModelMetadata", "ModelInfer",
    "ModelStreamInfer", "ModelConfig", "ModelStatistics", "RepositoryIndex",
    "RepositoryModelLoad", "RepositoryModelUnload", "SystemSharedMemoryStatus",
    "SystemSharedMemoryRegister", "SystemSharedMemoryUnregister", "CudaSharedMemoryStatus",
    "CudaSharedMemoryRegister", "CudaSharedMemoryUnregister", "TraceSetting", "LogSettings",
]


def flatten(file_descriptor) -> dict:
    """{kind and full name: properties} for everything a file declares."""
    proto = descriptor_pb2.FileDescriptorProto()
    file_descriptor.CopyToProto(proto)
    out = {"package": proto.package}

    def message(m, prefix):
        name = f"{prefix}{m.name}"
        out[f"message {name}"] = m.options.map_entry
        for f in m.field:
            oneof = m.oneof_decl[f.oneof_index].name if f.HasField("oneof_index") else None
            out[f"field {name}.{f.name}"] = (f.number, f.type, f.label, f.type_name, oneof)
        for nested in m.nested_type:
            message(nested, f"{name}.")
        for e in m.enum_type:
            enum(e, f"{name}.")

    def enum(e, prefix):
        for v in e.value:
            out[f"enum value {prefix}{e.name}.{v.name}"] = v.number

    for m in proto.message_type:
        message(m, "")
    for e in proto.enum_type:
        enum(e, "")
    for service in proto.service:
        for rpc in service.method:
            out[f"rpc {service.name}.{rpc.name}"] = (
                rpc.input_type, rpc.output_type, rpc.client_streaming, rpc.server_streaming)
    return out


@pytest.mark.parametrize("name", ["grpc_service", "model_config"])
def test_every_triton_declaration_matches_inferds(stubs, name):
    triton = {"grpc_service": triton_service, "model_config": triton_model_config}[name]
    ours = {"grpc_service": stubs.pb, "model_config": stubs.mc}[name]
    expected, actual = flatten(triton.DESCRIPTOR), flatten(ours.DESCRIPTOR)
    assert len(expected) > 100
    mismatches = {key: (value, actual.get(key, "MISSING")) for key, value in expected.items()
                  if actual.get(key, "MISSING") != value}
    assert not mismatches, f"declarations differing from Triton's: {mismatches}"


def test_service_has_every_kserve_and_triton_rpc(stubs):
    service = stubs.pb.DESCRIPTOR.services_by_name["GRPCInferenceService"]
    assert stubs.pb.DESCRIPTOR.package == "inference"
    assert [m.name for m in service.methods] == RPCS
    stream = service.methods_by_name["ModelStreamInfer"]
    assert stream.client_streaming and stream.server_streaming


def test_grpc_service_imports_model_config(stubs):
    assert [d.name for d in stubs.pb.DESCRIPTOR.dependencies] == ["model_config.proto"]
    response = stubs.pb.DESCRIPTOR.message_types_by_name["ModelConfigResponse"]
    config = response.fields_by_name["config"]
    assert config.message_type.full_name == "inference.ModelConfig"
