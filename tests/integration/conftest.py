"""Fixtures for the black-box integration tests: temporary model repositories and
real inferd processes on ephemeral ports.

    @pytest.fixture(scope="module")
    def server(inferd):
        return inferd({"m": single_identity("m", "FP32", [4])})

`inferd(models_or_paths, ...)` writes each dict as a model repository (see
util.write_repository), starts build/inferd (or $INFERD_BINARY) on it and returns
a util.InferdServer. Every server a module started is stopped with SIGTERM when
the module ends, and the test errors unless it exits 0 within the bound. When a
test fails, the tail of each running server's log is attached to the report.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from util import InferdServer, inferd_binary, write_repository  # noqa: E402

# Run inside a Kubernetes pod (a CI runner may be one), every inferd would take
# the pod's default grace period of 5 s at each SIGTERM (docs/flags.md); the
# tests of that default set the variable themselves.
os.environ.pop("KUBERNETES_SERVICE_HOST", None)

_running: list[InferdServer] = []


@pytest.fixture(scope="session")
def inferd_path() -> Path:
    binary = inferd_binary()
    if not binary.is_file():
        pytest.fail(f"inferd binary not found at {binary}; run `make build` or set INFERD_BINARY",
                    pytrace=False)
    return binary


@pytest.fixture(scope="module")
def inferd(inferd_path, tmp_path_factory):
    """Factory: inferd(repositories, extra_args=(), wait_for="ready") -> InferdServer.

    `repositories` is one repository or a list of them; each is a dict
    {model name: config text | util.Model} (written to a fresh temp folder) or an
    existing folder path. wait_for: "ready", "live" (use when some model is
    expected to fail, which makes the server not ready) or "none".
    """
    started: list[InferdServer] = []

    def start(repositories, extra_args=(), wait_for="ready") -> InferdServer:
        if isinstance(repositories, (dict, str, Path)):
            repositories = [repositories]
        paths = []
        for repo in repositories:
            if isinstance(repo, dict):
                paths.append(write_repository(tmp_path_factory.mktemp("repo"), repo))
            else:
                paths.append(Path(repo))
        log_path = tmp_path_factory.mktemp("log") / "inferd.log"
        server = InferdServer(paths, log_path, extra_args=extra_args, wait_for=wait_for)
        started.append(server)
        _running.append(server)
        return server

    yield start

    errors = []
    for server in started:
        _running.remove(server)
        try:
            server.stop()
        except AssertionError as exc:
            errors.append(str(exc))
    if errors:
        pytest.fail("\n\n".join(errors), pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and _running:
        for server in _running:
            report.sections.append((f"inferd log {server.url}", server.log_tail()))
