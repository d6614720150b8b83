"""The load API's overrides in EXPLICIT mode: a "config" parameter (model
configuration JSON) replaces config.pbtxt for that load, and stays in force
through later plain loads while the model's files are unchanged (a plain load
of an unchanged model reloads nothing, as Triton); once a file changed, a plain
load goes back to config.pbtxt. "file:<path>" parameters (base64) are written into a
private temporary model folder (under $TMPDIR) that the model is then loaded
from instead of the repository, and that folder is removed when the model is
unloaded or reloaded from the repository. Bad overrides answer 400 and leave the
serving version alone; paths that are absolute or climb out with '..' are
rejected before anything is written anywhere.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lifecycle_helpers import (entries, infer_version, load, model_config, model_config_json,
                               ready_versions, unload, wait_until)
from util import Model, assert_error, model_stats, touch, write_repository

EXPLICIT = ("--model-control-mode=explicit", "--load-model=m")


def _start(launch, tmp_path, versions=(1,)):
    repo = write_repository(tmp_path / "repo", {"m": Model(model_config("m"), versions=versions)})
    return repo, launch(repo, *EXPLICIT)


def _override_folders(tmpdir: Path) -> list[Path]:
    return sorted(p for p in tmpdir.iterdir() if p.name.startswith("inferd-model-"))


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_config_override_replaces_config_pbtxt_for_that_load(launch, tmp_path):
    repo, server = _start(launch, tmp_path)
    assert server.get("/v2/models/m").json()["inputs"][0]["shape"] == [4]
    resp = load(server, "m", config=model_config_json("m", dims=[2]))
    assert resp.status_code == 200, resp.text
    meta = server.get("/v2/models/m").json()
    assert meta["inputs"][0]["shape"] == [2] and meta["outputs"][0]["shape"] == [2], meta
    assert server.get("/v2/models/m/config").json()["input"][0]["dims"] == [2]
    body = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [2], "data": [5.0, 6.0]}]}
    out = server.post("/v2/models/m/infer", json=body).json()
    assert out["outputs"][0]["data"] == [5.0, 6.0], out
    # The repository's config.pbtxt is not modified, and a plain load keeps the
    # override while the files are unchanged (Triton): nothing reloads.
    assert 'dims: [ 4 ]' in (repo / "m" / "config.pbtxt").read_text()
    resp = load(server, "m")
    assert resp.status_code == 200, resp.text
    assert server.get("/v2/models/m/config").json()["input"][0]["dims"] == [2]
    assert model_stats(server, "m")["inference_stats"]["success"]["count"] == 1, \
        "the plain load reloaded the model (its statistics restarted)"
    # A file changed: a plain load reads config.pbtxt again.
    touch(repo / "m" / "config.pbtxt")
    resp = load(server, "m")
    assert resp.status_code == 200, resp.text
    assert server.get("/v2/models/m/config").json()["input"][0]["dims"] == [4]
    assert server.get("/v2/models/m").json()["inputs"][0]["shape"] == [4]
    assert infer_version(server, "m") == 1


def test_a_plain_load_reloads_only_when_a_file_changed(launch, tmp_path):
    repo, server = _start(launch, tmp_path)
    assert infer_version(server, "m") == 1
    assert infer_version(server, "m") == 1
    for _ in range(2):
        assert load(server, "m").status_code == 200
        # Same version object: its statistics go on.
        assert model_stats(server, "m")["inference_stats"]["success"]["count"] == 2
    (repo / "m" / "labels.txt").write_text("a new file in the model folder\n")
    assert load(server, "m").status_code == 200
    # Reloaded: a fresh version object, statistics from zero.
    assert model_stats(server, "m")["inference_stats"]["success"]["count"] == 0
    assert infer_version(server, "m") == 1


def test_a_plain_load_after_file_overrides_goes_back_to_the_repository(launch, tmp_path):
    repo, server = _start(launch, tmp_path)
    resp = load(server, "m", config=model_config_json("m", dims=[2]), files={"3/a.bin": "x"})
    assert resp.status_code == 200, resp.text
    assert ready_versions(server, "m") == [3]
    # The repository's files did not change, but the model came from elsewhere.
    assert load(server, "m").status_code == 200
    assert ready_versions(server, "m") == [1]
    assert server.get("/v2/models/m/config").json()["input"][0]["dims"] == [4]


@pytest.mark.parametrize("config, needle", [
    ("{not json", "JSON"),
    (model_config_json("other"), "other"),
    ('{"name": "m", "backend": "identity", "max_batch_size": 0}', "m"),
], ids=["invalid-json", "wrong-name", "no-io"])
def test_bad_config_override_is_400_and_the_old_version_keeps_serving(launch, tmp_path,
                                                                      config, needle):
    repo, server = _start(launch, tmp_path)
    message = assert_error(load(server, "m", config=config), 400, needle)
    rows = entries(server, "m")
    assert len(rows) == 1 and rows[0]["state"] == "READY", rows
    assert rows[0]["reason"] and needle in rows[0]["reason"], (rows, message)
    assert infer_version(server, "m") == 1


def test_config_parameter_must_be_a_string(launch, tmp_path):
    repo, server = _start(launch, tmp_path)
    resp = server.post("/v2/repository/models/m/load",
                       json={"parameters": {"config": {"name": "m"}}})
    assert_error(resp, 400, "config")
    assert infer_version(server, "m") == 1


def test_file_overrides_build_a_private_model_folder(launch, tmp_path):
    repo, server = _start(launch, tmp_path, versions=(1, 2))
    before = _tree(repo)
    files = {
        "labels.txt": b"zero\none\ntwo\nthree\n",
        "7/model.bin": bytes(range(256)),        # binary content survives base64 exactly
        "7/sub/dir/extra.txt": b"nested folders are created",
    }
    config = model_config_json("m", label_file="labels.txt")
    resp = load(server, "m", config=config, files=files)
    assert resp.status_code == 200, resp.text

    # Versions now come from the private folder (only 7/), not the repository (1/, 2/).
    assert ready_versions(server, "m") == [7]
    assert infer_version(server, "m") == 7
    assert server.get("/v2/models/m/config").json()["output"][0]["label_filename"] == "labels.txt"

    folders = _override_folders(launch.tmpdir)
    assert len(folders) == 1, folders
    written = _tree(folders[0])
    assert written == {f"m/{rel}": content for rel, content in files.items()}, sorted(written)
    assert _tree(repo) == before, "file overrides must not touch the repository"

    # Back to the repository: the private folder goes away.
    resp = load(server, "m")
    assert resp.status_code == 200, resp.text
    assert ready_versions(server, "m") == [2]
    assert _override_folders(launch.tmpdir) == []


def test_file_named_by_the_config_must_be_among_the_overrides(launch, tmp_path):
    repo, server = _start(launch, tmp_path)
    (repo / "m" / "labels.txt").write_text("in the repository, not in the override\n")
    message = assert_error(
        load(server, "m", config=model_config_json("m", label_file="labels.txt"),
             files={"1/model.bin": b"x"}), 400, "labels.txt")
    assert "m" in message
    assert infer_version(server, "m") == 1, "the old version keeps serving"
    assert _override_folders(launch.tmpdir) == [], "a failed load leaves no private folder"


def test_override_folder_is_removed_on_unload_and_replaced_on_reload(launch, tmp_path):
    repo, server = _start(launch, tmp_path)
    config = model_config_json("m")
    assert load(server, "m", config=config, files={"3/a.bin": "first"}).status_code == 200
    first = _override_folders(launch.tmpdir)
    assert len(first) == 1
    assert load(server, "m", config=config, files={"4/a.bin": "second"}).status_code == 200
    second = _override_folders(launch.tmpdir)
    assert len(second) == 1 and second != first, (first, second)
    assert ready_versions(server, "m") == [4]
    assert unload(server, "m").status_code == 200
    assert _override_folders(launch.tmpdir) == []


def test_file_overrides_need_a_config(launch, tmp_path):
    repo, server = _start(launch, tmp_path)
    assert_error(load(server, "m", files={"1/model.bin": "x"}), 400, "config")
    assert _override_folders(launch.tmpdir) == []
    assert infer_version(server, "m") == 1


def test_file_override_content_must_be_base64(launch, tmp_path):
    repo, server = _start(launch, tmp_path)
    resp = server.post("/v2/repository/models/m/load", json={"parameters": {
        "config": model_config_json("m"), "file:1/model.bin": "not base64 !!"}})
    assert_error(resp, 400, "file:1/model.bin")
    resp = server.post("/v2/repository/models/m/load", json={"parameters": {
        "config": model_config_json("m"), "file:1/model.bin": 42}})
    assert_error(resp, 400, "file:1/model.bin")
    assert _override_folders(launch.tmpdir) == []
    assert infer_version(server, "m") == 1


def test_file_overrides_can_load_a_model_the_repository_lacks(launch, tmp_path):
    repo, server = _start(launch, tmp_path)
    resp = load(server, "fresh", config=model_config_json("fresh"), files={"1/model.bin": "x"})
    assert resp.status_code == 200, resp.text
    assert infer_version(server, "fresh") == 1
    assert not (repo / "fresh").exists()


# --- path traversal ---------------------------------------------------------

def _escape_paths(tmp_path: Path) -> list[tuple[str, Path]]:
    """(file:<path> as sent, where it would land if honoured). The private folder
    is $TMPDIR/inferd-model-XXXXXX/m/, with $TMPDIR = tmp_path/server-tmp."""
    outside = tmp_path / "outside"
    return [
        (str(outside / "absolute.txt"), outside / "absolute.txt"),
        ("../../../escape-up.txt", tmp_path / "escape-up.txt"),
        ("../../escape-tmpdir.txt", tmp_path / "server-tmp" / "escape-tmpdir.txt"),
        ("1/../../../../escape-nested.txt", tmp_path / "escape-nested.txt"),
        ("../m2/config.pbtxt", None),  # a sibling model folder in the private root
        ("..", None),
        ("1/..", None),
    ]


@pytest.mark.parametrize("which", range(7), ids=[
    "absolute", "dotdot", "dotdot-tmpdir", "nested-dotdot", "sibling-model", "bare-dotdot",
    "trailing-dotdot"])
def test_path_traversal_is_rejected_and_nothing_is_written(launch, tmp_path, which):
    repo, server = _start(launch, tmp_path)
    (tmp_path / "outside").mkdir()
    sent, target = _escape_paths(tmp_path)[which]
    repo_before = _tree(repo)
    resp = load(server, "m", config=model_config_json("m"),
                files={"1/ok.bin": b"fine", sent: b"EVIL"})
    message = assert_error(resp, 400, sent)
    assert "relative" in message or ".." in message, message
    if target is not None:
        assert not target.exists(), f"{target} was written"
    assert list(launch.tmpdir.iterdir()) == [], "a rejected load wrote into $TMPDIR"
    assert list((tmp_path / "outside").iterdir()) == []
    assert _tree(repo) == repo_before
    evil = [p for p in tmp_path.rglob("*") if p.is_file() and p.read_bytes() == b"EVIL"]
    assert evil == [], evil
    rows = entries(server, "m")
    assert rows == [{"name": "m", "version": "1", "state": "READY", "reason": ""}], rows
    assert infer_version(server, "m") == 1


def test_absolute_path_is_rejected_even_inside_tmpdir(launch, tmp_path):
    repo, server = _start(launch, tmp_path)
    target = launch.tmpdir / "inside.txt"
    resp = load(server, "m", config=model_config_json("m"), files={str(target): b"EVIL"})
    assert_error(resp, 400, str(target))
    assert not target.exists()
    assert os.listdir(launch.tmpdir) == []
    wait_until(lambda: infer_version(server, "m") == 1, 2.0, "m still serving")


@pytest.mark.parametrize("path", ["1/", ".", "1/."], ids=["trailing-slash", "dot", "dir-dot"])
def test_file_override_naming_a_folder_is_a_client_error(launch, tmp_path, path):
    # The path names the model folder or a folder in it, not a file: a bad
    # request (400), like every other malformed override, not a server error.
    repo, server = _start(launch, tmp_path)
    resp = load(server, "m", config=model_config_json("m"), files={"1/ok.bin": "x", path: "x"})
    assert_error(resp, 400, path)
    assert _override_folders(launch.tmpdir) == []
    assert infer_version(server, "m") == 1
