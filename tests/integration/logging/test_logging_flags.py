"""The logging flags: --log-file sends every line (the port announcements
included) to that file and nothing to the console; --log-format=ISO8601 shapes
lines from the start; a --log-file that cannot be opened or an unknown
--log-format stops the server at start with a message naming it.
"""

import subprocess

import pytest

from logging_util import DEFAULTS, ISO8601_LINE, DEFAULT_LINE, FileLoggedServer, wait_for_line
from util import REPO_ROOT, backend_directory, inferd_binary, single_identity, write_repository


@pytest.fixture
def repo(tmp_path):
    return write_repository(tmp_path / "repo", {"m": single_identity("m", "FP32", [4])})


def test_log_file_flag_sends_every_line_to_the_file(repo, tmp_path):
    path = tmp_path / "inferd.log"
    server = FileLoggedServer([repo], path, tmp_path / "console.log")
    try:
        line = wait_for_line(server.log, "Started HTTPService at")
        assert DEFAULT_LINE.match(line), line
        wait_for_line(server.log, "successfully loaded model 'm'")
        assert server.get("/v2/logging").json() == {**DEFAULTS, "log_file": str(path)}
        # Switching to the console at run time, and back.
        assert server.post("/v2/logging", json={"log_file": ""}).status_code == 200
        server.post("/v2/repository/index")
        assert server.post("/v2/logging", json={"log_file": str(path)}).status_code == 200
    finally:
        server.stop()
    wait_for_line(server.log, "inferd exited")
    assert server.console() == ""


def test_log_format_flag_shapes_lines_from_the_start(repo, tmp_path):
    path = tmp_path / "iso.log"
    server = FileLoggedServer([repo], path, tmp_path / "console.log",
                              extra_args=["--log-format=ISO8601"])
    try:
        line = wait_for_line(server.log, "Started HTTPService at")
        match = ISO8601_LINE.match(line)
        assert match, line
        assert int(match["pid"]) == server.process.pid
        assert server.client().get_log_settings()["log_format"] == "ISO8601"
    finally:
        server.stop()
    for line in server.log().splitlines():
        assert ISO8601_LINE.match(line), line


def start_and_fail(repo, *args) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(inferd_binary()), f"--model-repository={repo}", "--http-port=0", "--grpc-port=0",
         "--metrics-port=0", f"--backend-directory={backend_directory()}", *args],
        capture_output=True, text=True, timeout=20, cwd=REPO_ROOT)


def test_unopenable_log_file_flag_stops_the_server(repo, tmp_path):
    path = tmp_path / "missing" / "inferd.log"
    result = start_and_fail(repo, f"--log-file={path}")
    assert result.returncode == 1
    assert str(path) in result.stderr
    assert "Started" not in result.stderr


def test_unknown_log_format_flag_is_refused(repo):
    result = start_and_fail(repo, "--log-format=json")
    assert result.returncode != 0
    assert "--log-format" in result.stderr + result.stdout
