"""Shape compatibility within a dynamic batch.

Requests whose non-batch dimensions differ (a variable dimension, -1, given
different sizes) cannot share a batch: the batcher stops at the first request
that does not match the oldest one and sends what it has, and the mismatching
request starts the next batch. An input with allow_ragged_batch lifts that
rule. Either way every response carries exactly its own request's data and
shape.
"""

import pytest

from batching_util import expect_ok, start_env

DELAY_MS = 400


@pytest.fixture(scope="module")
def env(inferd, tmp_path_factory):
    return start_env(inferd, tmp_path_factory, {
        "variable": dict(max_batch_size=8, delay_ms=DELAY_MS, dims=[-1]),
        "ragged": dict(max_batch_size=8, delay_ms=DELAY_MS, dims=[-1], ragged=True),
    })


# (id, rows, width): the width is the variable dimension.
MIXED = [("w4a", 1, 4), ("w4b", 2, 4), ("w2a", 1, 2), ("w2b", 1, 2), ("w4c", 1, 4)]


def run_mixed(env, model):
    ex, futures, before = env.queue_behind_blocker(
        model, [(i, dict(rows=rows, width=width)) for i, rows, width in MIXED])
    shapes = {i: (rows, width) for i, rows, width in MIXED}
    shapes["blocker"] = (1, 4)
    with ex:
        for request_id, future in futures.items():
            result = expect_ok(future)
            rows, width = shapes[request_id]
            (output,) = result.body["outputs"]
            assert result.body["id"] == request_id
            assert output["shape"] == [rows, width], f"{request_id}: {output}"
            assert output["data"] == list(range(rows * width)), f"{request_id}: {output}"
    return before


def test_different_shapes_are_not_batched_together(env):
    before = run_mixed(env, "variable")
    batches = env.wait_record("variable", before + 4)[before:]
    assert [(b.rows, b.ids) for b in batches] == [
        (1, ["blocker"]),
        (3, ["w4a", "w4b"]),   # stops at the first width-2 request
        (2, ["w2a", "w2b"]),
        (1, ["w4c"]),
    ]


def test_ragged_inputs_are_batched_whatever_their_shapes(env):
    before = run_mixed(env, "ragged")
    batches = env.wait_record("ragged", before + 2)[before:]
    assert [(b.rows, b.ids) for b in batches] == [
        (1, ["blocker"]),
        (6, ["w4a", "w4b", "w2a", "w2b", "w4c"]),
    ]


def test_same_shapes_with_different_batch_sizes_share_a_batch(env):
    ex, futures, before = env.queue_behind_blocker(
        "variable", [("r1", dict(rows=1, width=3)), ("r3", dict(rows=3, width=3)),
                     ("r2", dict(rows=2, width=3))])
    with ex:
        for future in futures.values():
            expect_ok(future)
    batches = env.wait_record("variable", before + 2)[before:]
    assert [(b.rows, b.ids) for b in batches] == [(1, ["blocker"]), (6, ["r1", "r3", "r2"])]
