"""Statistics of an ensemble and its composing models under concurrent load:
the ensemble counts each client request once; each composing model counts the
step requests it ran, and the dynamic batcher of a composing model forms
batches of more than one request out of concurrent ensemble requests.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from ensemble_util import DIMS, ensemble_config, identity, infer, repository, rows
from util import assert_equal_tensors, model_stats, settled_stats

F = "FP32"
REQUESTS = 16

# Each execution of "slow" takes 50 ms on its one instance, so requests that
# arrive meanwhile wait and leave together in the next batch.
SLOW = identity("slow", extra=(
    'parameters { key: "execute_delay_ms" value: { string_value: "50" } }\n'
    "instance_group [ { kind: KIND_CPU count: 1 } ]\n"
    "dynamic_batching { max_queue_delay_microseconds: 20000 }\n"))

MODELS = {
    "fast": identity("fast", extra="dynamic_batching { }\n"),
    "slow": SLOW,
    "chain": ensemble_config(
        "chain", [("IN", F, DIMS)], [("OUT", F, DIMS)],
        [("fast", {"INPUT0": "IN"}, {"OUTPUT0": "t"}),
         ("slow", {"INPUT0": "t"}, {"OUTPUT0": "OUT"})]),
}


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    return inferd(repository(tmp_path_factory.mktemp("ensembles"), MODELS, onnx_add_sub=False))


def test_concurrent_ensemble_requests_are_batched_by_composing_models(server):
    def one(i):
        data = rows(1, start=float(i))
        out = infer(server, "grpc" if i % 2 else "http", "chain", {"IN": data})
        assert_equal_tensors(out["OUT"], data, F)

    with ThreadPoolExecutor(REQUESTS) as pool:
        list(pool.map(one, range(REQUESTS)))

    chain = model_stats(server, "chain")
    assert chain["inference_stats"]["success"]["count"] == REQUESTS
    assert chain["inference_stats"]["fail"]["count"] == 0
    for model in ("fast", "slow"):
        stats = model_stats(server, model)
        assert stats["inference_stats"]["success"]["count"] == REQUESTS, (model, stats)
        assert stats["inference_count"] == REQUESTS, (model, stats)
    slow = settled_stats(server, "slow")
    sizes = {int(b["batch_size"]): int(b["compute_infer"]["count"]) for b in slow["batch_stats"]}
    assert sum(size * count for size, count in sizes.items()) == REQUESTS, sizes
    assert max(sizes) > 1, f"no batch of more than one ensemble request formed: {sizes}"
    assert slow["execution_count"] < REQUESTS
