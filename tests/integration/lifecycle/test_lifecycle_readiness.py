"""Server readiness (/v2/health/ready) through the lifecycle: ready only while
every model that should be loaded has all its versions READY. In EXPLICIT mode
that is the --load-model models plus those loaded through the API (a model
nobody asked for, or one unloaded, does not count); a model still LOADING or
one whose load failed holds readiness back; an availability-preserving reload
keeps the server ready throughout. In NONE mode every model counts, and
--strict-readiness=false makes ready follow live. Liveness never changes.
"""

from __future__ import annotations

import threading
import time

from lifecycle_helpers import (entries, is_ready, load, model_config, model_ready, states,
                               unload)
from util import Model, touch, write_repository

BROKEN = 'name: "bad"\nbackend: "identity"\nmax_batch_size: 0\n'  # no inputs or outputs


def _live(server):
    return server.get("/v2/health/live").status_code == 200


def _observe_during(server, action, probe, interval_s=0.02):
    """Runs `action` in a thread and collects `probe()` until it finishes."""
    seen = []
    result = {}
    thread = threading.Thread(target=lambda: result.setdefault("value", action()))
    thread.start()
    while thread.is_alive():
        seen.append(probe())
        time.sleep(interval_s)
    thread.join()
    return result.get("value"), seen


def test_explicit_with_nothing_to_load_is_ready(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {"m": model_config("m")})
    server = launch(repo, "--model-control-mode=explicit")
    assert is_ready(server) and _live(server)
    assert not model_ready(server, "m")


def test_loading_holds_readiness_back_until_ready(launch, tmp_path):
    # A 1 s warmup keeps the model LOADING long enough to watch.
    repo = write_repository(tmp_path / "repo", {
        "slow": model_config("slow", delay_ms=1000, warmup_count=1)})
    server = launch(repo, "--model-control-mode=explicit")
    assert is_ready(server)

    def probe():
        # The state is read before and after readiness; only a state seen on both
        # sides says what it was while readiness was read.
        before = entries(server, "slow")[0].get("state")
        ready, live = is_ready(server), _live(server)
        after = entries(server, "slow")[0].get("state")
        return (ready, live, before if before == after else "changing")

    resp, seen = _observe_during(server, lambda: load(server, "slow"), probe)
    assert resp.status_code == 200, resp.text
    assert (False, True, "LOADING") in seen, f"never saw a not-ready LOADING server: {seen}"
    assert all(s[1] for s in seen), "liveness must not change while loading"
    # (None: the load request has not reached the server yet.)
    assert all(not ready for ready, _, state in seen if state not in (None, "READY", "changing")), seen
    assert is_ready(server) and model_ready(server, "slow")


def test_failed_load_holds_readiness_back_until_unloaded(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {"m": model_config("m"), "bad": BROKEN})
    server = launch(repo, "--model-control-mode=explicit", "--load-model=m")
    assert is_ready(server)
    assert load(server, "bad").status_code == 400
    assert not is_ready(server), "an aspired model failed to load"
    assert _live(server)
    assert model_ready(server, "m") and not model_ready(server, "bad")
    assert unload(server, "bad").status_code == 200
    assert is_ready(server), "after the unload nobody wants 'bad' any more"


def test_load_then_unload_transitions(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {"m": model_config("m")})
    server = launch(repo, "--model-control-mode=explicit")
    trail = [is_ready(server)]
    assert load(server, "m").status_code == 200
    trail.append(is_ready(server))
    assert unload(server, "m").status_code == 200
    trail.append(is_ready(server))
    assert trail == [True, True, True]
    assert not model_ready(server, "m")


def test_a_failed_version_holds_readiness_back(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {"m": Model(
        model_config("m", version_policy="{ specific { versions: [ 1, 2 ] } }"), versions=(1,))})
    server = launch(repo, "--model-control-mode=explicit", "--load-model=m", "--exit-on-error=false",
                    wait_for="live")
    assert states(server, "m") == {"1": "READY", "2": "UNAVAILABLE"}
    assert not is_ready(server)
    (repo / "m" / "2").mkdir()
    assert load(server, "m").status_code == 200
    assert is_ready(server)


def test_none_mode_broken_model_blocks_readiness(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {"m": model_config("m"), "bad": BROKEN})
    server = launch(repo, "--exit-on-error=false", wait_for="live")
    assert not is_ready(server)
    assert model_ready(server, "m")


def test_strict_readiness_false_makes_ready_follow_live(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {"m": model_config("m"), "bad": BROKEN})
    server = launch(repo, "--strict-readiness=false", "--exit-on-error=false")
    assert is_ready(server) and _live(server)
    assert not model_ready(server, "bad")


def test_availability_reload_keeps_the_server_ready(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {
        "m": model_config("m", delay_ms=1000, warmup_count=1)})
    server = launch(repo, "--model-control-mode=explicit", "--load-model=m")
    touch(repo / "m" / "config.pbtxt")  # a plain load of unchanged files does nothing
    resp, seen = _observe_during(server, lambda: load(server, "m"),
                                 lambda: (is_ready(server), model_ready(server, "m")))
    assert resp.status_code == 200, resp.text
    assert len(seen) >= 2, seen
    assert all(r == (True, True) for r in seen), f"not ready during the reload: {seen}"


def test_resource_reload_is_not_ready_while_it_swaps(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {
        "m": model_config("m", delay_ms=500, warmup_count=1)})
    server = launch(repo, "--model-control-mode=explicit", "--load-model=m",
                    "--model-transition-policy=resource")
    touch(repo / "m" / "config.pbtxt")
    resp, seen = _observe_during(server, lambda: load(server, "m"),
                                 lambda: (is_ready(server), model_ready(server, "m")))
    assert resp.status_code == 200, resp.text
    assert (False, False) in seen, f"the old version was never out of service: {seen}"
    assert is_ready(server) and model_ready(server, "m")
