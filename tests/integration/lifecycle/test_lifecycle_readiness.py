"""Server readiness (/v2/health/ready) through the lifecycle: a model that is
LOADING holds readiness back, an availability-preserving reload keeps the
server ready throughout, a resource-preserving one does not while it swaps,
--strict-readiness=false makes ready follow live. Liveness never changes.
Which failed loads count is test_lifecycle_strict_readiness.py.
"""

from __future__ import annotations

import threading
import time

from lifecycle_helpers import entries, is_ready, load, model_config, model_ready, unload
from util import touch, write_repository

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


def test_strict_readiness_false_makes_ready_follow_live(launch, tmp_path):
    # A backend that fails to initialize: strict readiness would count it.
    trigger = tmp_path / "fail-once"
    trigger.write_text("")
    bad = model_config("bad", extra='parameters { key: "fail_initialize_file" '
                                    f'value: {{ string_value: "{trigger}" }} }}')
    repo = write_repository(tmp_path / "repo", {"m": model_config("m"), "bad": bad})
    server = launch(repo, "--strict-readiness=false", "--exit-on-error=false")
    assert is_ready(server) and _live(server)
    assert not model_ready(server, "bad") and not trigger.exists()


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
