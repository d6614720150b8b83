"""Strict readiness after failed loads, as Triton 2.51 decides it, read over
HTTP (/v2/health/ready) and gRPC (ServerReady) alike.

Triton counts only the models its model lifecycle holds, which a load reaches
once the model's configuration was accepted. So a load refused before that (a
model not in the repository, a broken config.pbtxt, an invalid JSON config
override) leaves readiness as it was, in every control mode; a version whose
backend fails to initialize holds readiness back until that model loads or is
unloaded; a failed reload of a version that serves does not (the old one keeps
serving); a model without any version folder does; and an unload always counts
the model out (Triton 2.51 keeps counting a failed version after its unload:
docs/model-repository.md says why inferd does not).
"""

from __future__ import annotations

from pathlib import Path

from lifecycle_helpers import (index, load, model_config, model_ready, states, unload,
                               wait_for_polls, wait_until)
from util import Model, write_repository

BROKEN = 'name: "bad"\nmax_batch_size: [oops\n'  # config.pbtxt:2: a syntax error
POLL = ("--model-control-mode=poll", "--repository-poll-secs=1")
SETTLE_S = 8.0


def fails_once(name: str, trigger: Path, **kwargs) -> str:
    """An identity model whose initialization fails once while `trigger` exists
    (the identity backend deletes it as it fails)."""
    return model_config(name, extra=('parameters { key: "fail_initialize_file" '
                                     f'value: {{ string_value: "{trigger}" }} }}'), **kwargs)


def readiness(server) -> tuple[bool, bool]:
    """(HTTP, gRPC) server readiness; liveness must hold throughout."""
    http = server.get("/v2/health/ready").status_code
    assert http in (200, 400), f"/v2/health/ready answered {http}"
    assert server.get("/v2/health/live").status_code == 200
    client = server.grpc_client()
    try:
        assert client.is_server_live()
        return http == 200, client.is_server_ready()
    finally:
        client.close()


READY = (True, True)
NOT_READY = (False, False)


def test_explicit_loads_refused_before_the_lifecycle_leave_the_server_ready(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {"m": model_config("m"), "bad": BROKEN})
    server = launch(repo, "--model-control-mode=explicit", "--load-model=m")
    assert readiness(server) == READY

    missing = load(server, "ghost")
    assert missing.status_code == 404 and "ghost" in missing.text, missing.text
    assert readiness(server) == READY
    broken = load(server, "bad")
    assert broken.status_code == 400 and "config.pbtxt:2" in broken.text, broken.text
    assert states(server, "bad") == {None: "UNAVAILABLE"}
    assert readiness(server) == READY
    bad_json = load(server, "m", config='{"max_batch_size": ')
    assert bad_json.status_code == 400, bad_json.text
    assert readiness(server) == READY and model_ready(server, "m")


def test_a_backend_that_fails_to_initialize_holds_readiness_back_until_it_loads(
        launch, tmp_path):
    trigger = tmp_path / "fail-once"
    repo = write_repository(tmp_path / "repo", {"flaky": fails_once("flaky", trigger)})
    server = launch(repo, "--model-control-mode=explicit")
    trigger.write_text("")
    resp = load(server, "flaky")
    assert resp.status_code == 400 and "failed on purpose" in resp.text, resp.text
    assert states(server, "flaky") == {"1": "UNAVAILABLE"}
    assert readiness(server) == NOT_READY  # Triton too: it reached the model lifecycle

    assert load(server, "flaky").status_code == 200  # the trigger is gone
    assert readiness(server) == READY


def test_unloading_a_model_that_failed_to_load_makes_the_server_ready(launch, tmp_path):
    trigger = tmp_path / "fail-once"
    repo = write_repository(tmp_path / "repo", {"flaky": fails_once("flaky", trigger)})
    server = launch(repo, "--model-control-mode=explicit")
    trigger.write_text("")
    assert load(server, "flaky").status_code == 400
    assert readiness(server) == NOT_READY
    assert unload(server, "flaky").status_code == 200
    assert readiness(server) == READY


def test_a_failed_reload_of_what_serves_keeps_the_server_ready(launch, tmp_path):
    trigger = tmp_path / "fail-once"
    repo = write_repository(tmp_path / "repo", {"m": model_config("m")})
    server = launch(repo, "--model-control-mode=explicit", "--load-model=m")
    (repo / "m" / "config.pbtxt").write_text(fails_once("m", trigger))
    trigger.write_text("")
    resp = load(server, "m")
    assert resp.status_code == 400 and "failed on purpose" in resp.text, resp.text
    assert states(server, "m") == {"1": "READY"}  # the previous load serves on
    assert readiness(server) == READY


def test_a_new_version_that_fails_holds_readiness_back_a_missing_one_does_not(
        launch, tmp_path):
    trigger = tmp_path / "fail-once"
    repo = write_repository(tmp_path / "repo", {"m": Model(
        fails_once("m", trigger, version_policy="{ specific { versions: [ 1, 2, 3 ] } }"),
        versions=(1,))})
    server = launch(repo, "--model-control-mode=explicit", "--load-model=m",
                    "--exit-on-error=false", wait_for="live")
    # Versions 2 and 3 have no folder: never loaded (Triton skips them).
    assert states(server, "m") == {"1": "READY", "2": "UNAVAILABLE", "3": "UNAVAILABLE"}
    assert readiness(server) == READY
    (repo / "m" / "2").mkdir()
    trigger.write_text("")
    assert load(server, "m").status_code == 400
    assert states(server, "m")["2"] == "UNAVAILABLE"
    assert readiness(server) == NOT_READY
    load(server, "m")  # 400 still: version 3 has no folder
    assert states(server, "m") == {"1": "READY", "2": "READY", "3": "UNAVAILABLE"}
    assert readiness(server) == READY


def test_at_start_a_broken_config_does_not_count_a_failed_backend_does(launch, tmp_path):
    trigger = tmp_path / "fail-once"
    trigger.write_text("")
    repo = write_repository(tmp_path / "repo", {"m": model_config("m"), "bad": BROKEN})
    server = launch(repo, "--exit-on-error=false", wait_for="live")
    assert readiness(server) == READY and model_ready(server, "m")

    repo = write_repository(tmp_path / "repo2", {"m": model_config("m"),
                                                 "flaky": fails_once("flaky", trigger)})
    server = launch(repo, "--exit-on-error=false", wait_for="live")
    assert states(server, "flaky") == {"1": "UNAVAILABLE"}
    assert readiness(server) == NOT_READY


def test_at_start_a_model_without_a_version_folder_holds_readiness_back(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {
        "m": model_config("m"), "empty": Model(model_config("empty"), versions=())})
    server = launch(repo, "--exit-on-error=false", wait_for="live")
    [empty] = [e for e in index(server) if e["name"] == "empty"]
    assert "no version folder" in empty["reason"], empty
    assert readiness(server) == NOT_READY


def test_poll_counts_a_failed_backend_but_not_a_broken_config(launch, tmp_path):
    trigger = tmp_path / "fail-once"
    repo = write_repository(tmp_path / "repo", {"m": model_config("m")})
    server = launch(repo, *POLL)
    write_repository(repo, {"bad": BROKEN})
    wait_for_polls(server, repo, SETTLE_S)  # "bad" was polled and refused
    assert states(server, "bad") == {None: "UNAVAILABLE"}
    assert readiness(server) == READY

    trigger.write_text("")
    write_repository(repo, {"flaky": fails_once("flaky", trigger)})
    wait_until(lambda: states(server, "flaky") == {"1": "UNAVAILABLE"}, SETTLE_S, "flaky failed")
    assert readiness(server) == NOT_READY
    (repo / "flaky" / "config.pbtxt").unlink()
    (repo / "flaky" / "1").rmdir()
    (repo / "flaky").rmdir()
    wait_until(lambda: readiness(server) == READY, SETTLE_S, "ready once flaky was removed")
