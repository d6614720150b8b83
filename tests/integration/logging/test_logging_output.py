"""What the settings do to the lines, read from the server's --log-file (the
log file is set only at start): lines (a model load in EXPLICIT mode, verbose
lines) go to the file and not to the console; updates at run time change the
lines that follow: the verbose level, log_info false stops info lines but not
errors, log_error false stops errors, ISO8601 changes their shape; an update
naming another log file is refused and the lines stay in the file.
"""

import pytest

from logging_util import (DEFAULT_LINE, ISO8601_LINE, LOG_FILE_REFUSED, file_logged_server,
                          lines_with, wait_for_line)
from util import Model, assert_error, single_identity

LOADED = "successfully loaded model '{}'"
LOADING = "loading model '{}'"  # a verbose (level 1) line


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    models = {name: single_identity(name, "FP32", [4]) for name in ("a", "b", "c", "d", "e")}
    models["broken"] = Model("this is not a model config {")
    with file_logged_server(tmp_path_factory, models,
                            extra_args=["--model-control-mode=explicit"]) as server:
        yield server


@pytest.fixture(autouse=True)
def restore_defaults(server):
    yield
    assert server.post("/v2/logging", json=server.defaults()).status_code == 200


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


def test_lines_go_to_the_log_file_and_not_the_console(server):
    read = server.since_now()
    reload(server, "a")
    file_line = wait_for_line(read, LOADED.format("a"))
    assert DEFAULT_LINE.match(file_line), file_line
    assert lines_with(read(), LOADING.format("a")), "verbose line missing from the file"
    assert not lines_with(server.console(), "'a'")


def test_verbose_lines_follow_the_verbose_level(server):
    read = server.since_now()
    update(server, log_verbose_level=0)
    reload(server, "d")
    wait_for_line(read, LOADED.format("d"))
    assert not lines_with(read(), LOADING.format("d"))

    read = server.since_now()
    update(server, log_verbose_level=1)
    reload(server, "d")
    line = wait_for_line(read, LOADING.format("d"))
    assert DEFAULT_LINE.match(line)["level"] == "I"  # verbose lines print as info lines


def test_info_off_stops_info_lines_but_not_errors(server):
    read = server.since_now()
    update(server, log_info=False, log_verbose_level=0)
    reload(server, "e")
    assert server.post("/v2/repository/models/broken/load").status_code == 400
    error_line = wait_for_line(read, "broken")
    assert DEFAULT_LINE.match(error_line)["level"] == "E"
    assert not lines_with(read(), LOADED.format("e"))

    update(server, log_info=True)
    reload(server, "e")
    wait_for_line(read, LOADED.format("e"))


def test_errors_off_stops_error_lines(server):
    read = server.since_now()
    update(server, log_error=False)
    assert server.post("/v2/repository/models/broken/load").status_code == 400
    reload(server, "a")
    wait_for_line(read, LOADED.format("a"))
    assert not [line for line in read().splitlines() if line.startswith("E")]


def test_iso8601_changes_the_shape_of_later_lines(server):
    read = server.since_now()
    update(server, log_format="ISO8601")
    reload(server, "b")
    line = wait_for_line(read, LOADED.format("b"))
    match = ISO8601_LINE.match(line)
    assert match, line
    assert match["level"] == "I"
    assert int(match["pid"]) == server.process.pid
    assert not DEFAULT_LINE.match(line)

    read = server.since_now()
    update(server, log_format="default")
    reload(server, "c")
    line = wait_for_line(read, LOADED.format("c"))
    assert DEFAULT_LINE.match(line), line


def test_update_naming_the_same_file_changes_the_other_settings(server):
    read = server.since_now()
    settings = update(server, log_file=str(server.log_file), log_verbose_level=0)
    assert settings == {**server.defaults(), "log_verbose_level": 0}
    reload(server, "c")
    wait_for_line(read, LOADED.format("c"))
    assert not lines_with(read(), LOADING.format("c"))


def test_log_file_change_is_refused_and_lines_stay_in_the_file(server, tmp_path):
    other = tmp_path / "elsewhere.log"
    for target in (str(other), ""):  # another file, or back to the console
        assert_error(server.post("/v2/logging", json={"log_file": target, "log_info": False}),
                     501, LOG_FILE_REFUSED, "--log-file")
        assert server.get("/v2/logging").json() == server.defaults()
    read = server.since_now()
    reload(server, "d")
    wait_for_line(read, LOADED.format("d"))  # log_info was not turned off either
    assert not other.exists()
    assert not lines_with(server.console(), "'d'")


def test_every_line_has_one_of_the_two_shapes(server):
    for line in server.log().splitlines():
        assert DEFAULT_LINE.match(line) or ISO8601_LINE.match(line), line
    assert server.console() == ""
