"""Fixtures for the gRPC integration tests.

`stubs` (session): Python modules generated at test time with grpc_tools.protoc
from the project's own proto/grpc_service.proto and proto/model_config.proto,
so the tests check the server against the schema inferd publishes, beside the
genuine tritonclient.grpc client. tritonclient registers its own copy of the
same `inference.*` messages in protobuf's default descriptor pool; the
generated modules are pointed at a private pool so both can live in one
process.

    def test_live(server, stubs):
        stub = stubs.stub(server.grpc_address)
        assert stub.ServerLive(stubs.pb.ServerLiveRequest()).live
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import grpc
import pytest

from util import REPO_ROOT

PROTO_DIR = REPO_ROOT / "proto"
_PRIVATE_POOL_MODULE = "inferd_test_descriptor_pool"


@dataclass
class Stubs:
    pb: ModuleType  # grpc_service_pb2
    mc: ModuleType  # model_config_pb2
    services: ModuleType  # grpc_service_pb2_grpc

    def stub(self, address: str, credentials: grpc.ChannelCredentials | None = None, **options):
        """A GRPCInferenceServiceStub on a new channel to `address`."""
        opts = [("grpc.max_receive_message_length", -1), ("grpc.max_send_message_length", -1)]
        opts += list(options.items())
        if credentials is None:
            channel = grpc.insecure_channel(address, options=opts)
        else:
            channel = grpc.secure_channel(address, credentials, options=opts)
        return self.services.GRPCInferenceServiceStub(channel)


def generate_stubs(out_dir: Path) -> Stubs:
    out_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{PROTO_DIR}", f"--python_out={out_dir}",
         f"--grpc_python_out={out_dir}", str(PROTO_DIR / "grpc_service.proto"),
         str(PROTO_DIR / "model_config.proto")],
        check=True, capture_output=True)
    (out_dir / f"{_PRIVATE_POOL_MODULE}.py").write_text(
        "from google.protobuf import descriptor_pool\nPOOL = descriptor_pool.DescriptorPool()\n")
    for name in ("grpc_service_pb2.py", "model_config_pb2.py"):
        path = out_dir / name
        text = path.read_text()
        assert "_descriptor_pool.Default()" in text, f"unexpected protoc output in {name}"
        path.write_text(text.replace("_descriptor_pool.Default()",
                                     f"__import__('{_PRIVATE_POOL_MODULE}').POOL"))
    sys.path.insert(0, str(out_dir))
    try:
        return Stubs(pb=importlib.import_module("grpc_service_pb2"),
                     mc=importlib.import_module("model_config_pb2"),
                     services=importlib.import_module("grpc_service_pb2_grpc"))
    finally:
        sys.path.remove(str(out_dir))


@pytest.fixture(scope="session")
def stubs(tmp_path_factory) -> Stubs:
    return generate_stubs(tmp_path_factory.mktemp("grpc_stubs"))
