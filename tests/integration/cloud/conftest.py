"""Fixtures for the cloud endpoint tests: `cloud_server(args, env, program)` starts inferd
(see cloud_util.CloudServer); every server a test started is stopped after it,
and the test errors unless it exited 0."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cloud_util import CloudServer  # noqa: E402


@pytest.fixture
def cloud_server(tmp_path_factory):
    started: list[CloudServer] = []

    def start(args, env=None, program=None) -> CloudServer:
        log_path = tmp_path_factory.mktemp("log") / "inferd.log"
        server = CloudServer(args, env or {}, log_path, program)
        started.append(server)
        return server

    yield start
    errors = []
    for server in started:
        try:
            server.stop()
        except AssertionError as exc:
            errors.append(str(exc))
    if errors:
        pytest.fail("\n\n".join(errors), pytrace=False)
