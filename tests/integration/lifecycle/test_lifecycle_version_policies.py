"""Version policies (latest, all, specific) applied at load and again at every
reload in EXPLICIT mode: which versions are READY in the index, which ones
answer inference (explicitly and as the default, the highest READY one), what
happens to versions that fall out of the policy, a policy changed by a reload
(through config.pbtxt or the load API's config), and a `specific` policy that
names a version folder that does not exist.
"""

from __future__ import annotations

import json

from lifecycle_helpers import (entries, infer, infer_version, load, model_config,
                               model_config_json, ready_versions)
from util import Model, assert_error, touch, write_repository

EXPLICIT = ("--model-control-mode=explicit", "--load-model=m")


def _start(launch, tmp_path, policy, versions):
    repo = write_repository(tmp_path / "repo", {
        "m": Model(model_config("m", version_policy=policy), versions=versions)})
    return repo, launch(repo, *EXPLICIT)


def _served(server, versions, not_served=()):
    for v in versions:
        assert infer_version(server, "m", v) == v
    for v in not_served:
        resp = infer(server, "m", v)
        assert resp.status_code != 200, f"version {v} answered: {resp.text}"


def _reload(server):
    resp = load(server, "m")
    assert resp.status_code == 200, resp.text


def test_default_policy_serves_only_the_latest_version(launch, tmp_path):
    repo, server = _start(launch, tmp_path, None, (1, 2, 3))
    assert ready_versions(server, "m") == [3]
    _served(server, [3], not_served=[1, 2])
    (repo / "m" / "10").mkdir()  # numeric order, not text order
    _reload(server)
    assert ready_versions(server, "m") == [10]
    assert infer_version(server, "m") == 10
    _served(server, [10], not_served=[3])


def test_latest_n_keeps_the_n_highest_through_reloads(launch, tmp_path):
    repo, server = _start(launch, tmp_path, "{ latest { num_versions: 2 } }", (1, 2, 3))
    assert ready_versions(server, "m") == [2, 3]
    assert infer_version(server, "m") == 3, "no version asked: the highest READY answers"
    _served(server, [2, 3], not_served=[1])

    (repo / "m" / "4").mkdir()
    _reload(server)
    assert ready_versions(server, "m") == [3, 4]
    _served(server, [3, 4], not_served=[2])

    (repo / "m" / "4").rmdir()
    (repo / "m" / "3").rmdir()
    _reload(server)
    assert ready_versions(server, "m") == [1, 2]
    assert infer_version(server, "m") == 2


def test_all_serves_every_version_folder_through_reloads(launch, tmp_path):
    repo, server = _start(launch, tmp_path, "{ all { } }", (1, 2))
    assert ready_versions(server, "m") == [1, 2]
    (repo / "m" / "3").mkdir()
    _reload(server)
    assert ready_versions(server, "m") == [1, 2, 3]
    _served(server, [1, 2, 3])
    (repo / "m" / "1").rmdir()
    _reload(server)
    assert ready_versions(server, "m") == [2, 3]
    _served(server, [2, 3], not_served=[1])


def test_specific_serves_the_named_versions_and_follows_a_changed_policy(launch, tmp_path):
    repo, server = _start(launch, tmp_path, "{ specific { versions: [ 1, 3 ] } }", (1, 2, 3))
    assert ready_versions(server, "m") == [1, 3]
    _served(server, [1, 3], not_served=[2])
    assert infer_version(server, "m") == 3

    (repo / "m" / "config.pbtxt").write_text(
        model_config("m", version_policy="{ specific { versions: [ 2 ] } }"))
    _reload(server)
    assert ready_versions(server, "m") == [2]
    _served(server, [2], not_served=[1, 3])


def test_specific_naming_a_missing_folder_fails_that_version_only(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {"m": Model(
        model_config("m", version_policy="{ specific { versions: [ 1, 5 ] } }"), versions=(1, 2))})
    server = launch(repo, "--model-control-mode=explicit")
    message = assert_error(load(server, "m"), 400, "5")
    assert ready_versions(server, "m") == [1]
    five = [e for e in entries(server, "m") if e.get("version") == "5"]
    assert len(five) == 1 and five[0]["state"] == "UNAVAILABLE", entries(server, "m")
    assert five[0]["reason"] and five[0]["reason"] in message
    _served(server, [1], not_served=[2, 5])


def test_policy_given_by_the_load_config_override(launch, tmp_path):
    repo, server = _start(launch, tmp_path, None, (1, 2, 3))
    assert ready_versions(server, "m") == [3]
    resp = load(server, "m", config=model_config_json("m", version_policy={"all": {}}))
    assert resp.status_code == 200, resp.text
    assert ready_versions(server, "m") == [1, 2, 3]
    config = server.get("/v2/models/m/config").json()
    assert "all" in config["version_policy"], json.dumps(config["version_policy"])
    # A later load without an override keeps it while the files are unchanged...
    _reload(server)
    assert ready_versions(server, "m") == [1, 2, 3]
    # ...and goes back to config.pbtxt (latest 1) once one changed.
    touch(repo / "m" / "config.pbtxt")
    _reload(server)
    assert ready_versions(server, "m") == [3]
    _served(server, [3], not_served=[1, 2])
