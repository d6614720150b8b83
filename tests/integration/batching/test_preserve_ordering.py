"""preserve_ordering (001, "Preserve Ordering"): responses leave in the order the
requests were received, even when a later request finishes executing first.

Not proven here: the identity backend sleeps the same execute_delay_ms for every
execution, so a request that starts later can never finish first, and no test
with it can provoke the out-of-order completion the setting exists for. What is
checked is that a model with preserve_ordering loads and serves correct answers
across two instances.
"""

import pytest

from batching_util import expect_ok, ids_in_order, start_env


@pytest.fixture(scope="module")
def env(inferd, tmp_path_factory):
    return start_env(inferd, tmp_path_factory, {
        "ordered": dict(max_batch_size=2, delay_ms=100, instance_count=2,
                        dynamic_batching="preserve_ordering: true"),
    })


def test_a_model_with_preserve_ordering_serves(env):
    with env.exchange("ordered") as ex:
        futures = {f"o{i}": ex.send(f"o{i}", rows=1 + i % 2) for i in range(6)}
        for request_id, future in futures.items():
            result = expect_ok(future)
            assert result.body["id"] == request_id
            rows = 1 + int(request_id[1:]) % 2
            assert result.body["outputs"][0]["data"] == list(range(rows * 4))
    env.wait_record("ordered", 1)
    assert sorted(ids_in_order(env.record("ordered"))) == sorted(futures)


@pytest.mark.skip(reason="not provable with the identity backend: its constant execute_delay_ms "
                         "cannot make a later request finish first; proving preserve_ordering "
                         "needs a test backend whose execution time varies per request")
def test_responses_leave_in_arrival_order():
    pass
