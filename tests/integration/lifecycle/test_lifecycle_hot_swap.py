"""Hot swap: four client threads send requests back to back (each execution
takes 10 ms, so requests are always in flight) while the model is reloaded 20
times, through the load API in EXPLICIT mode and by editing the repository in
POLL mode (--repository-poll-secs=1). Reloads alternate between a new version
folder (the default latest-1 policy swaps version k for k+1) and a reload of
the serving version itself (EXPLICIT: a plain load; POLL: a rewritten model
file in its folder). The tests demand zero failed requests, and that every
answer's model_version is one that was serving at some point between the
request's send and its answer (the old or the new one around each swap). The
identity backend's warmup records prove each reload really loaded fresh
instances. In POLL mode each change must serve within the polls that load a
canary model folder written just after it and unload it once removed (polls
are counted, not seconds). A broken config.pbtxt under the same load leaves the old version
serving with zero failed requests.
"""

from __future__ import annotations

import collections
import math
import time
from dataclasses import dataclass

from lifecycle_helpers import (ClientPool, entries, infer_version, load, model_config,
                               ready_versions, wait_for_polls, wait_until, warmups)
from util import Model, assert_error, touch, write_repository

RELOADS = 20
INSTANCES = 2
DELAY_MS = 10
CLIENTS = 4
POLL_CHANGE_TIMEOUT_S = 8.0


@dataclass
class Swap:
    started: float  # time.monotonic() just before the reload was asked for
    done: float     # time.monotonic() once the new version was known to serve
    version: int    # the version serving after it


def _repo(tmp_path, rec):
    return write_repository(tmp_path / "repo", {"m": Model(
        model_config("m", record=rec, delay_ms=DELAY_MS, warmup_count=1, instances=INSTANCES),
        files={"1/model.bin": "revision 0"})})


def _check(pool: ClientPool, initial: int, swaps: list[Swap]) -> None:
    assert pool.failures == [], f"{len(pool.failures)} failed requests: {pool.failures[:10]}"
    # Version v serves from the moment its reload was asked for until the next
    # reload is done (the old version may answer what it admitted before).
    serving = []
    version, since = initial, -math.inf
    for swap in swaps:
        serving.append((version, since, swap.done))
        version, since = swap.version, swap.started
    serving.append((version, since, math.inf))
    wrong = []
    for answer in pool.answers:
        allowed = {v for v, lo, hi in serving if lo <= answer.received and answer.sent <= hi}
        if answer.version not in allowed:
            wrong.append((answer, sorted(allowed)))
    assert wrong == [], f"{len(wrong)} answers from a version not serving then: {wrong[:5]}"
    # Requests really were in flight across the swaps.
    overlapping = [sum(1 for a in pool.answers if a.sent < s.done and a.received > s.started)
                   for s in swaps]
    assert min(overlapping) >= 1, f"a reload ran with no request in flight: {overlapping}"
    counts = collections.Counter(a.version for a in pool.answers)
    assert set(counts) == {initial} | {s.version for s in swaps}, counts


def test_hot_swap_explicit_20_reloads(launch, tmp_path):
    rec = tmp_path / "m.rec"
    repo = _repo(tmp_path, rec)
    server = launch(repo, "--model-control-mode=explicit", "--load-model=m")
    swaps: list[Swap] = []
    version = 1
    with ClientPool(server, "m", threads=CLIENTS, max_seconds=60) as pool:
        wait_until(lambda: pool.count() >= 20, 10, "clients running")
        for i in range(RELOADS):
            if i % 2 == 0:
                version += 1
                (repo / "m" / str(version)).mkdir()
            else:
                touch(repo / "m" / "config.pbtxt")  # a plain load needs a changed file
            seen = pool.count()
            started = time.monotonic()
            resp = load(server, "m")
            done = time.monotonic()
            assert resp.status_code == 200, f"reload {i}: {resp.text}"
            swaps.append(Swap(started, done, version))
            assert infer_version(server, "m") == version, f"reload {i}"
            # Let the clients get some answers from the new version in.
            wait_until(lambda: pool.count() >= seen + 8, 10, f"answers after reload {i}")
    _check(pool, 1, swaps)
    assert ready_versions(server, "m") == [version] == [1 + RELOADS // 2]
    assert len(warmups(rec)) == INSTANCES * (1 + RELOADS), "every reload loads fresh instances"


def test_hot_swap_poll_20_reloads(launch, tmp_path):
    rec = tmp_path / "m.rec"
    repo = _repo(tmp_path, rec)
    server = launch(repo, "--model-control-mode=poll", "--repository-poll-secs=1")
    swaps: list[Swap] = []
    version = 1
    # No time limit of its own (it would fail a slow run as "a reload ran with
    # no request in flight"): every wait below is bounded, and leaving the
    # `with` block stops the clients.
    with ClientPool(server, "m", threads=CLIENTS, max_seconds=math.inf) as pool:
        wait_until(lambda: pool.count() >= 20, 10, "clients running")
        for i in range(RELOADS):
            loads = len(warmups(rec))
            started = time.monotonic()
            if i % 2 == 0:
                version += 1
                (repo / "m" / str(version)).mkdir()
                (repo / "m" / str(version) / "model.bin").write_text(f"revision {i}")
            else:
                (repo / "m" / str(version) / "model.bin").write_text(f"revision {i}, rewritten")
            loaded_at: list[float] = []

            def note_loaded():
                if (not loaded_at and len(warmups(rec)) >= loads + INSTANCES
                        and ready_versions(server, "m") == [version]):
                    loaded_at.append(time.monotonic())

            # The change is picked up as promptly as a new model: it serves by
            # the end of the polls that load a canary model folder written just
            # after it (two polls) and unload it once removed (a third).
            wait_for_polls(server, repo, POLL_CHANGE_TIMEOUT_S, meanwhile=note_loaded)
            note_loaded()
            assert loaded_at, (
                f"change {i} (version {version}) was not loaded within the three polls that "
                f"loaded and unloaded a model written after it: ready versions "
                f"{ready_versions(server, 'm')}, {len(warmups(rec)) - loads} instances loaded")
            swaps.append(Swap(started, loaded_at[0], version))
            assert len(warmups(rec)) == loads + INSTANCES, f"change {i} loaded more than once"
        # More polls with no change (three, seen through a canary model): nothing
        # else reloads.
        wait_for_polls(server, repo, POLL_CHANGE_TIMEOUT_S)
    _check(pool, 1, swaps)
    assert infer_version(server, "m") == version == 1 + RELOADS // 2
    assert len(warmups(rec)) == INSTANCES * (1 + RELOADS)


def _broken_config_under_load(server, repo, rec, reload):
    good = (repo / "m" / "config.pbtxt").read_text()
    with ClientPool(server, "m", threads=CLIENTS, max_seconds=30) as pool:
        wait_until(lambda: pool.count() >= 20, 10, "clients running")
        (repo / "m" / "config.pbtxt").write_text(good.replace("max_batch_size", "max_batch_sighs"))
        reload()
        rows = entries(server, "m")
        assert len(rows) == 1 and rows[0]["state"] == "READY", rows
        assert "max_batch_sighs" in rows[0]["reason"], rows
        seen = pool.count()
        wait_until(lambda: pool.count() >= seen + 20, 10, "clients still answered")
    assert pool.failures == [], pool.failures[:10]
    assert {a.version for a in pool.answers} == {1}
    assert len(warmups(rec)) == INSTANCES, "the broken config loaded nothing"


def test_broken_config_keeps_serving_explicit(launch, tmp_path):
    rec = tmp_path / "m.rec"
    repo = _repo(tmp_path, rec)
    server = launch(repo, "--model-control-mode=explicit", "--load-model=m")
    _broken_config_under_load(
        server, repo, rec, lambda: assert_error(load(server, "m"), 400, "max_batch_sighs"))


def test_broken_config_keeps_serving_poll(launch, tmp_path):
    rec = tmp_path / "m.rec"
    repo = _repo(tmp_path, rec)
    server = launch(repo, "--model-control-mode=poll", "--repository-poll-secs=1")

    def wait_for_failure():
        wait_until(lambda: "max_batch_sighs" in (entries(server, "m") or [{}])[0].get("reason", ""),
                   POLL_CHANGE_TIMEOUT_S, "the failed reload in the index")

    _broken_config_under_load(server, repo, rec, wait_for_failure)
