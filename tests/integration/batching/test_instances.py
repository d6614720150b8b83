"""Dynamic batches go to all instances of a model (001, "Dynamic Batcher": "The
dynamically created batches are distributed to all instances"): with two
instances, a free instance takes the next batch at once, so two batches
execute at the same time on different instances, while requests beyond what
the instances can hold wait in the queue and are batched there.
"""

import pytest

from batching_util import expect_ok, ids_in_order, start_env

DELAY_MS = 500


@pytest.fixture(scope="module")
def env(inferd, tmp_path_factory):
    return start_env(inferd, tmp_path_factory, {
        "two": dict(max_batch_size=2, delay_ms=DELAY_MS, instance_count=2),
    })


def occupy_both_and_queue(env, model, queued, attempts=3):
    """Sends 'a' and 'b' (each goes straight to a free instance), then queues
    `queued` while both execute. An attempt where an instance freed too early
    (a loaded machine) is let finish and redone. Returns (futures, executions
    recorded before)."""
    for attempt in range(1, attempts + 1):
        before = len(env.record(model))
        handed = env.stats(model)["inference_stats"]["queue"]["count"]
        with env.exchange(model) as ex:
            futures = {"a": ex.send("a")}
            ex.wait_executing(handed + 1)     # one instance busy
            futures["b"] = ex.send("b")
            ex.wait_executing(handed + 2)     # both busy
            ex.sync_pending()
            for request_id in queued:
                futures[request_id] = ex.queue(request_id)
            if env.busy(model, before):
                for future in futures.values():
                    expect_ok(future)
                return futures, before
            if attempt == attempts:
                env.assert_busy(model, before)  # fails, saying why
            for future in futures.values():
                future.result(timeout=60)


def test_two_instances_execute_batches_at_the_same_time(env):
    futures, before = occupy_both_and_queue(env, "two", ["c", "d", "e", "f"])
    batches = sorted(env.record("two")[before:], key=lambda b: b.start_ns)
    assert [(b.rows, b.ids) for b in batches] == [
        (1, ["a"]), (1, ["b"]), (2, ["c", "d"]), (2, ["e", "f"])]
    a, b, cd, ef = batches
    for one, other in ((a, b), (cd, ef)):
        assert one.instance != other.instance, batches
        assert other.start_ns < one.end_ns, f"the instances did not run in parallel: {batches}"
