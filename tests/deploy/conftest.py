"""Fixtures of tests/deploy: helm (pinned, built once by
scripts/install-deploy-deps.sh, which `make deploy-test` runs and exports
INFERD_HELM and INFERD_GO), rendering the chart, and the validators."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parents[2]
CHART = REPO_ROOT / "deploy" / "helm" / "inferd"
KSERVE = REPO_ROOT / "deploy" / "kserve"
sys.path.insert(0, str(Path(__file__).parent))

from crd_schema import CrdValidator  # noqa: E402


def _tools() -> dict[str, str]:
    if os.environ.get("INFERD_HELM") and os.environ.get("INFERD_GO"):
        return {"helm": os.environ["INFERD_HELM"], "go": os.environ["INFERD_GO"]}
    out = subprocess.run(["bash", str(REPO_ROOT / "scripts" / "install-deploy-deps.sh")],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        pytest.fail(f"scripts/install-deploy-deps.sh failed:\n{out.stderr}", pytrace=False)
    tools = {}
    for line in out.stdout.splitlines():  # export INFERD_HELM=...
        name, _, value = line.removeprefix("export ").partition("=")
        tools[name.removeprefix("INFERD_").lower()] = shlex.split(value)[0]
    return tools


@pytest.fixture(scope="session")
def tools() -> dict[str, str]:
    return _tools()


class Helm:
    def __init__(self, binary: str):
        self.binary = binary

    def run(self, *args: str) -> subprocess.CompletedProcess:
        # HOME and the helm folders in a temporary place: nothing of the
        # user's helm configuration (repositories, plugins) takes part.
        env = {**os.environ, "HELM_CACHE_HOME": "/tmp/inferd-helm/cache",
               "HELM_CONFIG_HOME": "/tmp/inferd-helm/config",
               "HELM_DATA_HOME": "/tmp/inferd-helm/data"}
        return subprocess.run([self.binary, *args], capture_output=True, text=True, env=env,
                              check=False)

    def template(self, *values: str, kube_version: str = "1.37.0",
                 sets: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
        args = ["template", "inferd", str(CHART), "--namespace", "serving",
                "--kube-version", kube_version]
        for v in values:
            args += ["-f", str(CHART / "ci" / v)]
        for s in sets:
            args += ["--set", s]
        return self.run(*args)

    def render(self, *values: str, kube_version: str = "1.37.0",
               sets: tuple[str, ...] = ()) -> list[dict]:
        out = self.template(*values, kube_version=kube_version, sets=sets)
        assert out.returncode == 0, out.stderr
        return [d for d in yaml.safe_load_all(out.stdout) if d]


@pytest.fixture(scope="session")
def helm(tools) -> Helm:
    return Helm(tools["helm"])


@pytest.fixture(scope="session")
def crds(tools) -> CrdValidator:
    return CrdValidator(tools["go"])


def by_kind(docs: list[dict]) -> dict[str, dict]:
    kinds = {}
    for d in docs:
        assert d["kind"] not in kinds, f"two {d['kind']}s"
        kinds[d["kind"]] = d
    return kinds
