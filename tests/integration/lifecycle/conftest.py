"""Fixtures for the model-lifecycle tests.

Lifecycle tests change a server's models, so each test gets its own servers:

    def test_x(launch, tmp_path):
        repo = tmp_path / "repo"
        write_repository(repo, {"m": model_config("m")})
        server = launch(repo, "--model-control-mode=explicit", "--load-model=m")

`launch(repository, *args, wait_for="ready")` starts build/inferd on the folder
(so the test can keep editing it) with TMPDIR set to `launch.tmpdir`, a folder
of this test (where file overrides of the load API land), and stops every
server it started when the test ends, failing unless each exits with code 0.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from util import InferdServer


@pytest.fixture
def launch(inferd_path, tmp_path):
    started: list[InferdServer] = []
    server_tmp = tmp_path / "server-tmp"
    server_tmp.mkdir()

    def start(repository: Path, *args: str, wait_for: str = "ready") -> InferdServer:
        log_path = tmp_path / f"inferd-{len(started)}.log"
        saved = os.environ.get("TMPDIR")
        os.environ["TMPDIR"] = str(server_tmp)
        try:
            server = InferdServer([repository], log_path, extra_args=args, wait_for=wait_for)
        finally:
            if saved is None:
                del os.environ["TMPDIR"]
            else:
                os.environ["TMPDIR"] = saved
        started.append(server)
        return server

    start.tmpdir = server_tmp
    yield start

    errors = []
    for server in started:
        try:
            server.stop()
        except AssertionError as exc:
            errors.append(str(exc))
    if errors:
        pytest.fail("\n\n".join(errors), pytrace=False)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Attaches the tail of this test's server logs to a failure."""
    outcome = yield
    report = outcome.get_result()
    if report.failed and report.when == "call":
        tmp = item.funcargs.get("tmp_path")
        if tmp is not None:
            for log in sorted(Path(tmp).glob("inferd-*.log")):
                text = log.read_text(errors="replace")
                report.sections.append((f"inferd log {log.name}", text[-4000:]))
