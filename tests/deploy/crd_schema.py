"""Validation of custom resources (ServiceMonitor, ScaledObject, ServingRuntime,
InferenceService) against the OpenAPI schemas their projects publish in their
CRDs, read from the projects' Go modules (the Go module proxy is the registry:
`go mod download` fetches a release's files, checked against go.sum's
checksum database).

The API server prunes fields a CRD's schema does not name; `kubectl apply
--validate=strict` rejects them. The schemas are made strict alike here, so
a misspelt field fails instead of vanishing.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import yaml

YamlLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class CrdSource:
    module: str
    version: str
    path: str  # the CRD's YAML inside the module


# Pinned releases; each CRD file as its project generates it.
CRDS = {
    ("monitoring.coreos.com", "ServiceMonitor"): CrdSource(
        "github.com/prometheus-operator/prometheus-operator", "v0.85.0",
        "example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml"),
    ("keda.sh", "ScaledObject"): CrdSource(
        "github.com/kedacore/keda/v2", "v2.21.0", "config/crd/bases/keda.sh_scaledobjects.yaml"),
    ("serving.kserve.io", "ServingRuntime"): CrdSource(
        "github.com/kserve/kserve", "v0.16.0", "config/crd/full/serving.kserve.io_servingruntimes.yaml"),
    ("serving.kserve.io", "InferenceService"): CrdSource(
        "github.com/kserve/kserve", "v0.16.0",
        "config/crd/full/serving.kserve.io_inferenceservices.yaml"),
}


def module_dir(go: str, module: str, version: str) -> Path:
    """The module's files in Go's module cache, downloaded once."""
    # From /: outside any Go module, so no go.mod takes part. GOTOOLCHAIN=auto:
    # a Go older than a module's go line (Debian 12's 1.23) fetches a newer
    # toolchain instead of refusing the download.
    out = subprocess.run([go, "mod", "download", "-json", f"{module}@{version}"],
                         capture_output=True, text=True, cwd="/", check=False,
                         env={**os.environ, "GOTOOLCHAIN": "auto"})
    info = json.loads(out.stdout) if out.stdout.strip() else {}
    if out.returncode != 0 or "Dir" not in info:
        raise RuntimeError(f"go mod download {module}@{version} failed: "
                           f"{info.get('Error') or out.stderr.strip()}")
    return Path(info["Dir"])


def strict(schema: dict) -> dict:
    """The schema with unknown fields refused where the CRD names its fields,
    and OpenAPI's `nullable` spelled as JSON Schema's null type."""
    out = dict(schema)
    if "properties" in schema:
        out["properties"] = {name: strict(s) for name, s in schema["properties"].items()}
        if ("additionalProperties" not in schema
                and not schema.get("x-kubernetes-preserve-unknown-fields")):
            out["additionalProperties"] = False
    for key in ("items", "not", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            out[key] = strict(schema[key])
    for key in ("anyOf", "allOf", "oneOf"):
        if key in schema:
            out[key] = [strict(s) for s in schema[key]]
    if schema.get("nullable") and "type" in schema:
        out["type"] = [schema["type"], "null"]
    return out


class CrdValidator:
    """Validates custom resources of the kinds in CRDS, by apiVersion."""

    def __init__(self, go: str):
        self._go = go
        self._validators: dict[tuple[str, str, str], jsonschema.Validator] = {}

    def knows(self, doc: dict) -> bool:
        return (doc["apiVersion"].split("/")[0], doc["kind"]) in CRDS

    def validate(self, doc: dict) -> None:
        group, version = doc["apiVersion"].split("/")
        key = (group, version, doc["kind"])
        if key not in self._validators:
            self._validators[key] = self._load(group, version, doc["kind"])
        self._validators[key].validate(doc)

    def _load(self, group: str, version: str, kind: str) -> jsonschema.Validator:
        source = CRDS[(group, kind)]
        path = module_dir(self._go, source.module, source.version) / source.path
        crd = yaml.load(path.read_text(), Loader=YamlLoader)
        assert crd["spec"]["group"] == group and crd["spec"]["names"]["kind"] == kind, path
        served = {v["name"]: v for v in crd["spec"]["versions"] if v.get("served")}
        if version not in served:
            raise AssertionError(f"{kind} {group}/{version} is not served by {source.module}"
                                 f"@{source.version} (serves {sorted(served)})")
        schema = strict(served[version]["schema"]["openAPIV3Schema"])
        return jsonschema.Draft202012Validator(schema)
