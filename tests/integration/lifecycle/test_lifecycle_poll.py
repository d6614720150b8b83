"""POLL mode (--model-control-mode=poll --repository-poll-secs=1): the models
present at start stay served across polls; a new model folder is loaded, a
removed one unloaded; added and removed version folders follow the version
policy; a changed config.pbtxt reloads every version, a changed model file
only its own version, a changed label file the model; a broken config.pbtxt
leaves the old version serving with the failure in the index; and a folder
still being written is not loaded until two polls in a row see it unchanged.

Reloads are counted with the identity backend's record file: each load of a
version runs the one-run warmup sample "w" once per instance. Where a test
needs polls to have run, it waits until a canary model folder has been loaded
and, once removed, unloaded (lifecycle_helpers.wait_for_polls): three polls.
"""

from __future__ import annotations

from lifecycle_helpers import (POLL_CANARY, entries, index, infer, infer_version, is_ready,
                               model_config, ready_versions, states, wait_for_polls, wait_until,
                               warmups)
from util import Model, write_repository

POLL = ("--model-control-mode=poll", "--repository-poll-secs=1")
# A change is acted on once two polls in a row saw it: at most ~2 poll periods
# plus the load; allow generous slack on a loaded machine.
SETTLE_S = 8.0


def _start(launch, tmp_path, models):
    repo = write_repository(tmp_path / "repo", models)
    return repo, launch(repo, *POLL)


def test_models_present_at_start_stay_served_across_polls(launch, tmp_path):
    repo, server = _start(launch, tmp_path, {"a": model_config("a"), "b": model_config("b")})
    wait_for_polls(server, repo, SETTLE_S)  # three polls that found a and b unchanged
    assert states(server, "a") == {"1": "READY"}
    assert states(server, "b") == {"1": "READY"}
    assert infer_version(server, "a") == 1
    assert infer_version(server, "b") == 1
    assert {e["name"] for e in index(server)} - {POLL_CANARY} == {"a", "b"}, index(server)
    assert is_ready(server)


def test_new_model_is_loaded(launch, tmp_path):
    repo, server = _start(launch, tmp_path, {"a": model_config("a")})
    write_repository(repo, {"b": model_config("b")})
    wait_until(lambda: states(server, "b") == {"1": "READY"}, SETTLE_S, "b READY")
    assert infer_version(server, "b") == 1
    assert infer_version(server, "a") == 1
    assert is_ready(server)


def test_removed_model_is_unloaded(launch, tmp_path):
    repo, server = _start(launch, tmp_path, {"a": model_config("a"), "b": model_config("b")})
    assert infer_version(server, "b") == 1
    (repo / "b" / "config.pbtxt").unlink()
    (repo / "b" / "1").rmdir()
    (repo / "b").rmdir()
    wait_until(lambda: infer(server, "b").status_code != 200, SETTLE_S, "b no longer served")
    assert "READY" not in states(server, "b").values()
    assert infer_version(server, "a") == 1
    assert is_ready(server), "a removed model no longer counts for readiness"


def test_added_version_folder_replaces_the_latest(launch, tmp_path):
    repo, server = _start(launch, tmp_path, {"m": model_config("m")})
    (repo / "m" / "2").mkdir()
    wait_until(lambda: ready_versions(server, "m") == [2], SETTLE_S, "version 2 alone READY")
    assert infer_version(server, "m") == 2
    assert infer(server, "m", 1).status_code != 200, "version 1 must be retired"


def test_added_and_removed_version_folders_with_latest_two(launch, tmp_path):
    repo, server = _start(launch, tmp_path, {"m": Model(
        model_config("m", version_policy="{ latest { num_versions: 2 } }"), versions=(1, 2))})
    assert ready_versions(server, "m") == [1, 2]
    (repo / "m" / "3").mkdir()
    wait_until(lambda: ready_versions(server, "m") == [2, 3], SETTLE_S, "versions 2 and 3")
    assert infer_version(server, "m") == 3
    assert infer_version(server, "m", 2) == 2
    (repo / "m" / "3").rmdir()
    wait_until(lambda: ready_versions(server, "m") == [1, 2], SETTLE_S, "back to 1 and 2")
    assert infer_version(server, "m") == 2


def test_changed_config_reloads_every_version(launch, tmp_path):
    rec = tmp_path / "m.rec"
    policy = "{ all { } }"
    repo, server = _start(launch, tmp_path, {"m": Model(
        model_config("m", record=rec, warmup_count=1, version_policy=policy), versions=(1, 2))})
    assert len(warmups(rec)) == 2
    (repo / "m" / "config.pbtxt").write_text(
        model_config("m", record=rec, warmup_count=1, version_policy=policy, delay_ms=1))
    wait_until(lambda: len(warmups(rec)) == 4, SETTLE_S, "both versions reloaded (4 warmups)")
    wait_for_polls(server, repo, SETTLE_S)
    assert len(warmups(rec)) == 4, "a settled change must be loaded exactly once"
    assert ready_versions(server, "m") == [1, 2]


def test_changed_model_file_reloads_only_its_version(launch, tmp_path):
    rec = tmp_path / "m.rec"
    repo, server = _start(launch, tmp_path, {"m": Model(
        model_config("m", record=rec, warmup_count=1, version_policy="{ all { } }"),
        versions=(1, 2), files={"1/model.bin": "one", "2/model.bin": "two"})})
    assert len(warmups(rec)) == 2
    (repo / "m" / "2" / "model.bin").write_text("two, changed")
    wait_until(lambda: len(warmups(rec)) == 3, SETTLE_S, "version 2 reloaded")
    wait_for_polls(server, repo, SETTLE_S)
    assert len(warmups(rec)) == 3, "version 1 did not change and must not be reloaded"
    assert ready_versions(server, "m") == [1, 2]
    assert infer_version(server, "m", 1) == 1 and infer_version(server, "m", 2) == 2


def test_changed_label_file_reloads_the_model(launch, tmp_path):
    rec = tmp_path / "m.rec"
    repo, server = _start(launch, tmp_path, {"m": Model(
        model_config("m", record=rec, warmup_count=1, label_file="labels.txt"),
        files={"labels.txt": "a\nb\nc\nd\n"})})
    assert len(warmups(rec)) == 1
    (repo / "m" / "labels.txt").write_text("w\nx\ny\nz\n")
    wait_until(lambda: len(warmups(rec)) == 2, SETTLE_S, "model reloaded for its labels")
    assert ready_versions(server, "m") == [1]


def test_broken_config_keeps_the_old_version_serving(launch, tmp_path):
    rec = tmp_path / "m.rec"
    good = model_config("m", record=rec, warmup_count=1)
    repo, server = _start(launch, tmp_path, {"m": good})
    (repo / "m" / "config.pbtxt").write_text('name: "m"\nbackend: "identity"\ninput [ {')

    def failure_reported():
        rows = entries(server, "m")
        return len(rows) == 1 and rows[0]["state"] == "READY" and rows[0]["reason"] and rows

    rows = wait_until(failure_reported, SETTLE_S, "the failed reload in the index")
    assert "config.pbtxt" in rows[0]["reason"], rows
    assert infer_version(server, "m") == 1
    assert is_ready(server), "the old version still serves every aspired version"
    assert "failed to load model 'm'" in server.log()

    # Fixing the file reloads the model and clears the reason.
    (repo / "m" / "config.pbtxt").write_text(good)
    wait_until(lambda: entries(server, "m") == [
        {"name": "m", "version": "1", "state": "READY", "reason": ""}], SETTLE_S, "reason cleared")
    assert infer_version(server, "m") == 1


def test_a_folder_still_being_written_is_not_loaded_half_done(launch, tmp_path):
    repo, server = _start(launch, tmp_path, {"a": model_config("a")})
    folder = repo / "late"
    (folder / "1").mkdir(parents=True)
    full = model_config("late")
    config = folder / "config.pbtxt"
    # Keep the folder changing (a truncated, invalid config each time) while
    # three polls run: no two polls in a row see the same files, so nothing may load.
    writes = []

    def rewrite():
        writes.append(None)
        config.write_text(full[: 20 + len(writes) % 30])

    wait_for_polls(server, repo, SETTLE_S, meanwhile=rewrite)
    assert "'late'" not in server.log(), "the poller touched a model that was still changing"
    config.write_text(full)
    wait_until(lambda: states(server, "late") == {"1": "READY"}, SETTLE_S, "late READY")
    assert "failed to load model 'late'" not in server.log()
    assert infer_version(server, "late") == 1
