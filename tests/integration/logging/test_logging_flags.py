"""The logging flags: --log-file sends every line (the port announcements
included) to that file and nothing to the console, appends to what the file
held (an update naming the same file does not reopen it), and is the only way to set the file (a
runtime update naming another one is refused); --log-format=ISO8601 shapes
lines from the start; a --log-file that cannot be opened or an unknown
--log-format stops the server at start with a message naming it.
"""

import subprocess

import pytest

from logging_util import (DEFAULTS, ISO8601_LINE, DEFAULT_LINE, LOG_FILE_REFUSED,
                          FileLoggedServer, lines_with, wait_for_line)
from util import (REPO_ROOT, assert_error, backend_directory, inferd_binary, single_identity,
                  write_repository)


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
        # The file cannot be left at run time, for the console or another file.
        for target in ("", str(tmp_path / "other.log")):
            assert_error(server.post("/v2/logging", json={"log_file": target}), 501,
                         LOG_FILE_REFUSED)
        assert server.get("/v2/logging").json() == {**DEFAULTS, "log_file": str(path)}
        assert not (tmp_path / "other.log").exists()
    finally:
        server.stop()
    wait_for_line(server.log, "inferd exited")
    assert server.console() == ""


def test_log_file_flag_appends_to_the_file(repo, tmp_path):
    path = tmp_path / "kept.log"
    path.write_text("a line from before\n")
    server = FileLoggedServer([repo], path, tmp_path / "console.log")
    try:
        wait_for_line(server.log, "successfully loaded model 'm'")
        # An update naming the same file neither reopens nor truncates it.
        resp = server.post("/v2/logging", json={"log_file": str(path), "log_verbose_level": 0})
        assert resp.status_code == 200, resp.text
        server.post("/v2/repository/models/m/load")
    finally:
        server.stop()
    text = server.log()
    assert text.startswith("a line from before\n")
    assert len(lines_with(text, "Started HTTPService at")) == 1
    assert lines_with(text, "inferd exited")  # the lines after the update too


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
