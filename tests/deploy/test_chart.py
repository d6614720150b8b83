"""The Helm chart deploy/helm/inferd: `helm lint` and `helm template` for each
documented value set (its ci/ folder), every rendered manifest valid against
the Kubernetes schemas (kubernetes-validate, strict: an unknown field fails)
or, for custom resources, their CRDs; and what the manifests say: probes,
shutdown budget, security, ports, repository sources, autoscaling."""

from __future__ import annotations

import re

import kubernetes_validate
import pytest
import yaml

from conftest import CHART, KSERVE, REPO_ROOT, by_kind

VALUE_SETS = ["default"] + sorted(p.name for p in (CHART / "ci").glob("*-values.yaml"))
# The chart's floor (Chart.yaml kubeVersion) and the newest schemas bundled.
KUBE_VERSIONS = ["1.25.0", kubernetes_validate.utils.major_minor(
    kubernetes_validate.utils.latest_version()) + ".0"]
NEEDS_1_30 = {"pvc-values.yaml"}  # shutdown.preStopSleepSeconds: lifecycle.preStop.sleep


def values(name: str) -> tuple[str, ...]:
    return () if name == "default" else (name,)


def validate(doc: dict, kube_version: str, crds) -> None:
    if crds.knows(doc):
        crds.validate(doc)
    else:
        kubernetes_validate.validate(doc, kube_version, strict=True)


def test_every_value_set_is_tested():
    assert {"hpa-values.yaml", "keda-values.yaml", "servicemonitor-values.yaml",
            "pvc-values.yaml", "init-values.yaml"} <= set(VALUE_SETS)


@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_lint(helm, value_set):
    out = helm.run("lint", "--strict", str(CHART), "--namespace", "serving",
                   *[a for v in values(value_set) for a in ("-f", str(CHART / "ci" / v))])
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 chart(s) linted, 0 chart(s) failed" in out.stdout


@pytest.mark.parametrize("kube_version", KUBE_VERSIONS)
@pytest.mark.parametrize("value_set", VALUE_SETS)
def test_manifests_validate(helm, crds, value_set, kube_version):
    if value_set in NEEDS_1_30 and kube_version < "1.30":
        kube_version = "1.30.0"
    docs = helm.render(*values(value_set), kube_version=kube_version)
    assert {"Deployment", "Service"} <= {d["kind"] for d in docs}
    for doc in docs:
        validate(doc, kube_version, crds)


def test_validators_refuse_unknown_fields(helm, crds):
    """What makes the validation tests able to fail: a misspelt field."""
    kinds = by_kind(helm.render("keda-values.yaml"))
    kinds["Deployment"]["spec"]["template"]["spec"]["containers"][0]["readinesProbe"] = {}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(kinds["Deployment"], "1.37", strict=True)
    kinds["ScaledObject"]["spec"]["triggers"][0]["metadataa"] = {}
    with pytest.raises(Exception, match="metadataa"):
        crds.validate(kinds["ScaledObject"])
    monitor = by_kind(helm.render("servicemonitor-values.yaml"))["ServiceMonitor"]
    monitor["spec"]["endpoints"][0]["interval"] = "every 10 seconds"
    with pytest.raises(Exception, match="every 10 seconds"):
        crds.validate(monitor)


def container(kinds: dict) -> dict:
    return kinds["Deployment"]["spec"]["template"]["spec"]["containers"][0]


def test_default_deployment(helm):
    kinds = by_kind(helm.render())
    assert set(kinds) == {"Deployment", "Service", "PodDisruptionBudget"}
    pod = kinds["Deployment"]["spec"]["template"]["spec"]
    c = container(kinds)
    assert c["startupProbe"]["httpGet"] == {"path": "/v2/health/live", "port": "http"}
    assert c["livenessProbe"]["httpGet"] == {"path": "/v2/health/live", "port": "http"}
    assert c["readinessProbe"]["httpGet"] == {"path": "/v2/health/ready", "port": "http"}
    assert c["args"][:6] == ["--model-repository=/models", "--http-port=8000", "--grpc-port=8001",
                             "--metrics-port=8002", "--exit-grace-secs=10",
                             "--exit-timeout-secs=30"]
    # The server's grace and drain, and a margin, before Kubernetes' SIGKILL;
    # no preStop exec (the image has no shell).
    assert pod["terminationGracePeriodSeconds"] == 10 + 30 + 5
    assert "lifecycle" not in c
    assert c["securityContext"] == {"readOnlyRootFilesystem": True,
                                    "allowPrivilegeEscalation": False, "runAsNonRoot": True,
                                    "capabilities": {"drop": ["ALL"]}}
    assert pod["securityContext"]["runAsUser"] == 1000
    assert pod["volumes"][0] == {"name": "models", "persistentVolumeClaim": {
        "claimName": "models", "readOnly": True}}
    assert {"name": "models", "mountPath": "/models", "readOnly": True} in c["volumeMounts"]
    assert kinds["Deployment"]["spec"]["replicas"] == 2
    assert kinds["Deployment"]["spec"]["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    ports = {p["name"]: p["port"] for p in kinds["Service"]["spec"]["ports"]}
    assert ports == {"http": 8000, "grpc": 8001, "metrics": 8002}
    assert kinds["PodDisruptionBudget"]["spec"]["maxUnavailable"] == 1


def test_pvc_value_set(helm):
    kinds = by_kind(helm.render("pvc-values.yaml", kube_version="1.30.0"))
    pod = kinds["Deployment"]["spec"]["template"]["spec"]
    c = container(kinds)
    assert {"name": "models", "mountPath": "/models", "readOnly": True,
            "subPath": "production/models"} in c["volumeMounts"]
    # Triton flags pass through, after the chart's own.
    assert c["args"][4:] == ["--exit-grace-secs=5", "--exit-timeout-secs=60",
                             "--strict-readiness=true", "--log-verbose=1",
                             "--model-control-mode=explicit", "--load-model=*"]
    assert c["lifecycle"] == {"preStop": {"sleep": {"seconds": 5}}}
    assert pod["terminationGracePeriodSeconds"] == 5 + 5 + 60 + 5
    assert {"name": "shm", "emptyDir": {"medium": "Memory", "sizeLimit": "1Gi"}} in pod["volumes"]
    assert kinds["PodDisruptionBudget"]["spec"] == {
        "minAvailable": 1, "selector": kinds["Deployment"]["spec"]["selector"]}


def test_init_value_set(helm):
    pod = by_kind(helm.render("init-values.yaml"))["Deployment"]["spec"]["template"]["spec"]
    init = pod["initContainers"][0]
    assert init["command"] == ["cp", "-R", "/models/.", "/repository/"]
    assert init["securityContext"]["readOnlyRootFilesystem"] is True
    assert {"name": "models", "mountPath": "/repository"} in init["volumeMounts"]
    assert {"name": "models", "emptyDir": {"sizeLimit": "2Gi"}} in pod["volumes"]
    assert {"name": "models", "mountPath": "/models", "readOnly": True} in \
        pod["containers"][0]["volumeMounts"]


def test_service_monitor_selects_the_service(helm):
    kinds = by_kind(helm.render("servicemonitor-values.yaml"))
    monitor = kinds["ServiceMonitor"]
    assert monitor["metadata"]["labels"]["release"] == "prometheus"
    assert monitor["spec"]["endpoints"][0]["port"] == "metrics"
    service_labels = kinds["Service"]["metadata"]["labels"]
    assert monitor["spec"]["selector"]["matchLabels"].items() <= service_labels.items()


def pending_metric_is_inferds(name: str) -> bool:
    """The metric is one inferd exports (not a name the chart made up)."""
    sources = (REPO_ROOT / "src").rglob("*.cc")
    return any(f'"{name}"' in p.read_text(errors="replace") for p in sources)


def test_hpa_scales_on_queued_requests(helm):
    kinds = by_kind(helm.render("hpa-values.yaml"))
    hpa = kinds["HorizontalPodAutoscaler"]
    assert "replicas" not in kinds["Deployment"]["spec"]  # the HPA owns the count
    assert hpa["spec"]["scaleTargetRef"]["name"] == kinds["Deployment"]["metadata"]["name"]
    pods = hpa["spec"]["metrics"][0]["pods"]
    assert pods["metric"]["name"] == "nv_inference_pending_request_count"
    assert pending_metric_is_inferds(pods["metric"]["name"])
    assert pods["target"] == {"type": "AverageValue", "averageValue": "4"}
    assert hpa["spec"]["metrics"][1]["resource"]["target"]["averageUtilization"] == 80


def test_keda_scales_on_a_prometheus_query(helm):
    kinds = by_kind(helm.render("keda-values.yaml"))
    scaled = kinds["ScaledObject"]
    assert "HorizontalPodAutoscaler" not in kinds and "replicas" not in kinds["Deployment"]["spec"]
    trigger = scaled["spec"]["triggers"][0]
    assert trigger["type"] == "prometheus"
    assert trigger["metadata"]["query"] == (
        'sum(nv_inference_pending_request_count{namespace="serving", service="inferd"})')
    assert trigger["metadata"]["query"].split("(")[1].split("{")[0] == \
        "nv_inference_pending_request_count"
    assert (scaled["spec"]["minReplicaCount"], scaled["spec"]["maxReplicaCount"]) == (1, 6)


@pytest.mark.parametrize("sets, kube_version, message", [
    (("autoscaling.hpa.enabled=true", "autoscaling.keda.enabled=true"), "1.37.0",
     "enable hpa or keda, not both"),
    (("shutdown.terminationGracePeriodSeconds=30",), "1.37.0",
     "terminationGracePeriodSeconds=30 is shorter than .* = 45"),
    (("modelRepository.pvc.claimName=",), "1.37.0", r"set exactly one of .* \(0 are set\)"),
    (("modelRepository.url=s3://bucket/models",), "1.37.0", r"\(2 are set\)"),
    (("modelRepository.pvc.claimName=", "modelRepository.init.enabled=true"), "1.37.0",
     "init.image is required"),
    (("shutdown.preStopSleepSeconds=5",), "1.29.0", "needs Kubernetes 1.30 or later"),
    (("podDisruptionBudget.minAvailable=1",), "1.37.0", "not both"),
    # values.schema.json: a misspelt or mistyped value is refused, not ignored.
    (("autoscaling.hpa.enabeld=true",), "1.37.0", "additional properties 'enabeld' not allowed"),
    (("ports.http=http",), "1.37.0", "/ports/http"),
])
def test_bad_values_fail_with_a_message(helm, sets, kube_version, message):
    out = helm.template(sets=sets, kube_version=kube_version)
    assert out.returncode != 0
    assert re.search(message, out.stderr), out.stderr


def test_termination_budget_may_be_raised(helm):
    kinds = by_kind(helm.render(sets=("shutdown.terminationGracePeriodSeconds=120",)))
    assert kinds["Deployment"]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 120


def test_url_repository_mounts_nothing(helm):
    kinds = by_kind(helm.render(sets=("modelRepository.pvc.claimName=",
                                      "modelRepository.url=s3://bucket/models")))
    c = container(kinds)
    assert c["args"][0] == "--model-repository=s3://bucket/models"
    assert all(m["name"] != "models" for m in c["volumeMounts"])


def test_values_are_documented():
    """Each top-level value is named in docs/deploying.md's Helm section."""
    top = yaml.safe_load((CHART / "values.yaml").read_text())
    doc = (REPO_ROOT / "docs" / "deploying.md").read_text()
    helm_section = doc[doc.index("\n## Helm"):]
    missing = [k for k in top if f"`{k}" not in helm_section]
    assert not missing, f"values not in docs/deploying.md's Helm section: {missing}"


def server_flags(args: list[str]) -> set[str]:
    return {a.split("=", 1)[0] for a in args if a.startswith("--")}


def test_flags_are_inferds(helm):
    """Every flag the chart and the KServe runtime pass is one inferd documents."""
    documented = set(re.findall(r"`(--[a-z0-9-]+)", (REPO_ROOT / "docs" / "flags.md").read_text()))
    passed = set()
    for value_set in VALUE_SETS:
        passed |= server_flags(container(by_kind(helm.render(
            *values(value_set), kube_version="1.37.0")))["args"])
    runtime = yaml.safe_load((KSERVE / "servingruntime.yaml").read_text())
    passed |= server_flags(runtime["spec"]["containers"][0]["args"])
    assert "--model-repository" in passed and "--model-store" in passed
    assert passed <= documented, passed - documented
