"""deploy/kserve: the inferd ServingRuntime and the InferenceService example,
valid against KServe's published CRDs (strict) and consistent with each other
and with how KServe launches Triton."""

from __future__ import annotations

import re

import kubernetes_validate
import pytest
import yaml

from conftest import KSERVE


def load(name: str) -> dict:
    docs = [d for d in yaml.safe_load_all((KSERVE / name).read_text()) if d]
    assert len(docs) == 1, name
    return docs[0]


@pytest.mark.parametrize("name", ["servingruntime.yaml", "inferenceservice.yaml"])
def test_validates_against_kserves_crd(crds, name):
    doc = load(name)
    assert crds.knows(doc)
    crds.validate(doc)


def test_crd_validation_refuses_unknown_fields(crds):
    runtime = load("servingruntime.yaml")
    runtime["spec"]["protocolVersion"] = ["v2"]  # protocolVersions
    with pytest.raises(Exception, match="protocolVersion"):
        crds.validate(runtime)


def test_runtime_launches_as_kserves_triton_runtime():
    spec = load("servingruntime.yaml")["spec"]
    assert {"v2", "grpc-v2"} <= set(spec["protocolVersions"])
    assert {f["name"] for f in spec["supportedModelFormats"]} >= {
        "onnx", "pytorch", "triton", "xgboost", "lightgbm"}
    c = spec["containers"][0]
    assert c["name"] == "kserve-container"
    # KServe's kserve-tritonserver arguments: its storage initializer fills
    # /mnt/models, its ingress reaches HTTP on 8080 and gRPC on 9000.
    assert c["args"][:6] == ["tritonserver", "--model-store=/mnt/models", "--grpc-port=9000",
                             "--http-port=8080", "--allow-grpc=true", "--allow-http=true"]
    assert c["readinessProbe"]["httpGet"] == {"path": "/v2/health/ready", "port": 8080}
    assert c["securityContext"]["readOnlyRootFilesystem"] is True
    assert c["securityContext"]["capabilities"]["drop"] == ["ALL"]
    assert spec["annotations"]["prometheus.kserve.io/port"] == "8002"


def test_runtime_and_container_are_valid_kubernetes():
    """The runtime's container is a core/v1 Container: the pod it makes
    validates against Kubernetes' own (strict) schema too."""
    c = load("servingruntime.yaml")["spec"]["containers"][0]
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"},
           "spec": {"containers": [c]}}
    kubernetes_validate.validate(pod, kubernetes_validate.utils.latest_version(), strict=True)


def test_inference_service_uses_the_runtime():
    runtime = load("servingruntime.yaml")
    predictor = load("inferenceservice.yaml")["spec"]["predictor"]
    assert predictor["model"]["runtime"] == runtime["metadata"]["name"]
    formats = {f["name"] for f in runtime["spec"]["supportedModelFormats"]}
    assert predictor["model"]["modelFormat"]["name"] in formats
    assert re.match(r"(pvc|s3|gs|https)://", predictor["model"]["storageUri"])
    # Kubernetes may not kill the server before its grace period and drain end.
    args = dict(a.split("=", 1) for a in runtime["spec"]["containers"][0]["args"][1:])
    budget = int(args["--exit-grace-secs"]) + int(args["--exit-timeout-secs"])
    assert predictor["terminationGracePeriodSeconds"] > budget
