"""Model warmup (model_warmup in config.pbtxt), counted with the identity
backend's record file (warmup requests carry the id "warmup:<sample name>"):
each sample runs `count` times on every instance, all before the model is
READY; zero_data, random_data and input_data_file (read from
<model>/warmup/<file>) all work; every (re)load warms up again; warmup requests
do not count in the statistics; and a failing sample (a missing data file,
wrong dims, a data file of the wrong size) fails the load with the reason,
leaving the model UNAVAILABLE, or, on a reload, the old version serving.
"""

from __future__ import annotations

import collections
import struct

import pytest

from lifecycle_helpers import (entries, infer, infer_version, load, model_config, read_record,
                               warmups)
from util import Model, assert_error, touch, write_repository


def _counts_by_instance(rec, sample="w"):
    return collections.Counter(e.instance for e in warmups(rec, sample))


@pytest.mark.parametrize("count, instances", [(1, 1), (3, 2), (2, 4)])
def test_each_sample_runs_count_times_on_every_instance(launch, tmp_path, count, instances):
    rec = tmp_path / "m.rec"
    repo = write_repository(tmp_path / "repo", {
        "m": model_config("m", record=rec, warmup_count=count, instances=instances)})
    server = launch(repo)
    by_instance = _counts_by_instance(rec)
    assert len(by_instance) == instances, by_instance
    assert set(by_instance.values()) == {count}, by_instance
    assert sum(by_instance.values()) == count * instances
    # READY only after warmup: every warmup run ended before the first request ran.
    assert infer(server, "m", request_id="after").status_code == 200
    runs = read_record(rec)
    first_request = min(e.start_ns for e in runs if "after" in e.ids)
    assert max(e.end_ns for e in warmups(rec)) <= first_request


def test_several_samples_and_data_kinds(launch, tmp_path):
    rec = tmp_path / "m.rec"
    samples = (
        '{ name: "zeros" batch_size: 1 count: 2 inputs { key: "INPUT0" value {'
        ' data_type: TYPE_FP32 dims: [ 4 ] zero_data: true } } },'
        '{ name: "random" batch_size: 1 inputs { key: "INPUT0" value {'
        ' data_type: TYPE_FP32 dims: [ 4 ] random_data: true } } },'
        '{ name: "file" batch_size: 1 count: 3 inputs { key: "INPUT0" value {'
        ' data_type: TYPE_FP32 dims: [ 4 ] input_data_file: "input0.bin" } } }')
    config = model_config("m", record=rec, instances=2) + f"model_warmup [ {samples} ]\n"
    repo = write_repository(tmp_path / "repo", {"m": Model(config)})
    data = repo / "m" / "warmup"
    data.mkdir()
    (data / "input0.bin").write_bytes(struct.pack("<4f", 1.0, 2.0, 3.0, 4.0))
    server = launch(repo)
    for sample, count in (("zeros", 2), ("random", 1), ("file", 3)):
        by_instance = _counts_by_instance(rec, sample)
        assert len(by_instance) == 2 and set(by_instance.values()) == {count}, (sample, by_instance)
    # Samples without a count run once; nothing else ran.
    assert len(read_record(rec)) == 2 * (2 + 1 + 3)
    assert infer_version(server, "m") == 1


def test_every_reload_warms_up_again(launch, tmp_path):
    rec = tmp_path / "m.rec"
    repo = write_repository(tmp_path / "repo", {
        "m": model_config("m", record=rec, warmup_count=2, instances=2)})
    server = launch(repo, "--model-control-mode=explicit", "--load-model=m")
    assert len(warmups(rec)) == 4
    for n in (2, 3):
        touch(repo / "m" / "config.pbtxt")  # a reload needs a changed file
        assert load(server, "m").status_code == 200
        assert len(warmups(rec)) == 4 * n


def test_warmup_is_not_counted_in_statistics(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {"m": model_config("m", warmup_count=5)})
    server = launch(repo)
    stats = server.get("/v2/models/m/stats").json()["model_stats"][0]
    assert stats["inference_count"] == 0 and stats["execution_count"] == 0, stats
    assert infer(server, "m").status_code == 200
    stats = server.get("/v2/models/m/stats").json()["model_stats"][0]
    assert stats["inference_count"] == 1, stats


FAILING = {
    "missing-file": ('inputs { key: "INPUT0" value { data_type: TYPE_FP32 dims: [ 4 ]'
                     ' input_data_file: "nope.bin" } }', "nope.bin"),
    "wrong-dims": ('inputs { key: "INPUT0" value { data_type: TYPE_FP32 dims: [ 3 ]'
                   ' zero_data: true } }', "INPUT0"),
    "short-file": ('inputs { key: "INPUT0" value { data_type: TYPE_FP32 dims: [ 4 ]'
                   ' input_data_file: "short.bin" } }', "INPUT0"),
    "unknown-input": ('inputs { key: "INPUT9" value { data_type: TYPE_FP32 dims: [ 4 ]'
                      ' zero_data: true } }', "INPUT9"),
}


def _failing_repo(tmp_path, which, rec=None):
    inputs, needle = FAILING[which]
    repo = write_repository(tmp_path / "repo", {
        "m": model_config("m", record=rec, warmup_count=1, warmup_extra=inputs),
        "ok": model_config("ok")})
    (repo / "m" / "warmup").mkdir()
    (repo / "m" / "warmup" / "short.bin").write_bytes(b"\0" * 6)
    return repo, needle


@pytest.mark.parametrize("which", list(FAILING))
def test_failing_warmup_fails_the_load_with_the_reason(launch, tmp_path, which):
    repo, needle = _failing_repo(tmp_path, which)
    server = launch(repo, "--model-control-mode=explicit", "--load-model=ok")
    message = assert_error(load(server, "m"), 400, needle)
    assert "warmup" in message, message
    rows = entries(server, "m")
    assert len(rows) == 1 and rows[0]["state"] == "UNAVAILABLE", rows
    assert needle in rows[0]["reason"] and "warmup" in rows[0]["reason"], rows
    assert infer(server, "m").status_code != 200
    assert infer_version(server, "ok") == 1


@pytest.mark.parametrize("which", list(FAILING))
def test_failing_warmup_at_start_in_none_mode(launch, tmp_path, which):
    repo, needle = _failing_repo(tmp_path, which)
    server = launch(repo, "--exit-on-error=false", wait_for="live")
    rows = entries(server, "m")
    assert rows and all(r["state"] == "UNAVAILABLE" and needle in r["reason"] for r in rows), rows
    # A failed warmup holds strict readiness back, as in Triton; but a sample's
    # missing input_data_file, an input the model lacks and dims that do not fit
    # the input's are found with the config, before the model lifecycle, so they
    # do not (Triton finds them at load: docs/model-repository.md).
    expected = 400 if which == "short-file" else 200
    assert server.get("/v2/health/ready").status_code == expected
    assert infer_version(server, "ok") == 1


def test_failing_warmup_on_reload_keeps_the_old_version(launch, tmp_path):
    rec = tmp_path / "m.rec"
    repo = write_repository(tmp_path / "repo", {"m": model_config("m", record=rec, warmup_count=1)})
    server = launch(repo, "--model-control-mode=explicit", "--load-model=m")
    (repo / "m" / "config.pbtxt").write_text(model_config(
        "m", record=rec, warmup_count=1, warmup_extra=FAILING["missing-file"][0]))
    assert_error(load(server, "m"), 400, "nope.bin")
    rows = entries(server, "m")
    assert len(rows) == 1 and rows[0]["state"] == "READY" and "nope.bin" in rows[0]["reason"], rows
    assert infer_version(server, "m") == 1
    assert len(warmups(rec)) == 1, "the failed reload ran no successful warmup"
