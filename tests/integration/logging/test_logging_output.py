"""What the settings do to the lines: a log_file set at run time receives the
lines that follow (a model load in EXPLICIT mode, verbose lines once the level
is raised) and the console no longer does; log_info false stops info lines
but not errors; ISO8601 changes the shape of later lines; a file that cannot be
opened leaves the lines where they were.
"""

import re

import pytest

from logging_util import (DEFAULT_LINE, DEFAULTS, ISO8601_LINE, lines_with, read_text,
                          wait_for_line)
from util import Model, single_identity

LOADED = "successfully loaded model '{}'"
LOADING = "loading model '{}'"  # a verbose (level 1) line


@pytest.fixture(scope="module")
def server(inferd):
    models = {name: single_identity(name, "FP32", [4]) for name in ("a", "b", "c", "d", "e")}
    models["broken"] = Model("this is not a model config {")
    return inferd(models, extra_args=["--model-control-mode=explicit"])


@pytest.fixture(autouse=True)
def restore_defaults(server):
    yield
    assert server.post("/v2/logging", json=DEFAULTS).status_code == 200


def update(server, **settings) -> dict:
    resp = server.post("/v2/logging", json=settings)
    assert resp.status_code == 200, resp.text
    return resp.json()


def reload(server, model: str) -> None:
    """Unloads (if loaded) and loads `model` through the repository API."""
    server.post(f"/v2/repository/models/{model}/unload")
    resp = server.post(f"/v2/repository/models/{model}/load")
    assert resp.status_code == 200, resp.text


def test_startup_lines_have_tritons_default_shape(server):
    line = wait_for_line(server.log, "Started HTTPService at")
    match = DEFAULT_LINE.match(line)
    assert match, line
    assert match["level"] == "I"
    assert int(match["pid"]) == server.process.pid
    assert match["file"] == "main.cc"


def test_log_file_receives_later_lines_and_the_console_stops(server, tmp_path):
    path = tmp_path / "runtime.log"
    assert update(server, log_file=str(path))["log_file"] == str(path)
    reload(server, "a")
    file_line = wait_for_line(lambda: read_text(path), LOADED.format("a"))
    assert DEFAULT_LINE.match(file_line), file_line
    assert lines_with(read_text(path), LOADING.format("a")), "verbose line missing from the file"
    assert not lines_with(server.log(), LOADED.format("a"))

    # Back to the console: the file gets nothing more.
    assert update(server, log_file="")["log_file"] == ""
    reload(server, "b")
    wait_for_line(server.log, LOADED.format("b"))
    assert not lines_with(read_text(path), "'b'")


def test_log_file_is_appended_to(server, tmp_path):
    path = tmp_path / "kept.log"
    path.write_text("a line from before\n")
    update(server, log_file=str(path))
    reload(server, "c")
    wait_for_line(lambda: read_text(path), LOADED.format("c"))
    assert read_text(path).startswith("a line from before\n")


def test_verbose_lines_follow_the_verbose_level(server, tmp_path):
    path = tmp_path / "verbose.log"
    update(server, log_file=str(path), log_verbose_level=0)
    reload(server, "d")
    wait_for_line(lambda: read_text(path), LOADED.format("d"))
    assert not lines_with(read_text(path), LOADING.format("d"))

    update(server, log_verbose_level=1)
    reload(server, "d")
    line = wait_for_line(lambda: read_text(path), LOADING.format("d"))
    assert DEFAULT_LINE.match(line)["level"] == "I"  # verbose lines print as info lines


def test_info_off_stops_info_lines_but_not_errors(server, tmp_path):
    path = tmp_path / "quiet.log"
    update(server, log_file=str(path), log_info=False, log_verbose_level=0)
    reload(server, "e")
    assert server.post("/v2/repository/models/broken/load").status_code == 400
    error_line = wait_for_line(lambda: read_text(path), "broken")
    assert DEFAULT_LINE.match(error_line)["level"] == "E"
    assert not lines_with(read_text(path), LOADED.format("e"))

    update(server, log_info=True)
    reload(server, "e")
    wait_for_line(lambda: read_text(path), LOADED.format("e"))


def test_errors_off_stops_error_lines(server, tmp_path):
    path = tmp_path / "no_errors.log"
    update(server, log_file=str(path), log_error=False)
    assert server.post("/v2/repository/models/broken/load").status_code == 400
    reload(server, "a")
    wait_for_line(lambda: read_text(path), LOADED.format("a"))
    assert not [line for line in read_text(path).splitlines() if line.startswith("E")]


def test_iso8601_changes_the_shape_of_later_lines(server, tmp_path):
    path = tmp_path / "iso.log"
    update(server, log_file=str(path), log_format="ISO8601")
    reload(server, "b")
    line = wait_for_line(lambda: read_text(path), LOADED.format("b"))
    match = ISO8601_LINE.match(line)
    assert match, line
    assert match["level"] == "I"
    assert int(match["pid"]) == server.process.pid
    assert not DEFAULT_LINE.match(line)

    update(server, log_format="default")
    reload(server, "c")
    line = wait_for_line(lambda: read_text(path), LOADED.format("c"))
    assert DEFAULT_LINE.match(line), line


def test_unopenable_log_file_leaves_lines_on_the_console(server, tmp_path):
    path = tmp_path / "missing" / "x.log"
    resp = server.post("/v2/logging", json={"log_file": str(path)})
    assert resp.status_code == 400
    reload(server, "d")
    wait_for_line(server.log, LOADED.format("d"))
    assert not path.exists()


def test_every_console_line_has_one_of_the_two_shapes(server):
    for line in server.log().splitlines():
        assert DEFAULT_LINE.match(line) or ISO8601_LINE.match(line), line
