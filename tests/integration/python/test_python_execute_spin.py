"""The wait for a stub's answer polls first when answers come soon
(--backend-config=python,execute-spin-us=N, TurnaroundSpin): answers are the
same whether the wait polled, backed off or slept.

- a fast model (polling succeeds), a slow one (its execute() outlasts the
  bound: polls fail and back off) and a dynamically batched one (several
  answers per execute()), alternated, over HTTP and gRPC, with polling on (the
  default) and off (0): every output exact, every request counted once;
- a bad value fails the model's load with an error naming the setting.
"""

import concurrent.futures

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

import python_models as pm
from util import settled_stats, wait_until

# Sleeps longer than the largest bound (10 ms would be slow for the test; the
# default bound is 30 us), then answers as add_sub.
SLOW_ADD_SUB = pm.ADD_SUB.replace(
    "    def execute(self, requests):\n",
    "    def execute(self, requests):\n        import time\n        time.sleep(0.002)\n")
INPUTS = [("INPUT0", "TYPE_FP32", [4]), ("INPUT1", "TYPE_FP32", [4])]
OUTPUTS = [("OUTPUT0", "TYPE_FP32", [4]), ("OUTPUT1", "TYPE_FP32", [4])]


def repository():
    return {
        "fast": pm.python_model(pm.config("fast", INPUTS, OUTPUTS), pm.ADD_SUB),
        "slow": pm.python_model(pm.config("slow", INPUTS, OUTPUTS), SLOW_ADD_SUB),
        "batched": pm.python_model(
            pm.config("batched", INPUTS, OUTPUTS, max_batch_size=8,
                      extra="dynamic_batching { max_queue_delay_microseconds: 2000 }\n"),
            pm.ADD_SUB),
    }


@pytest.fixture(scope="module", params=["default", "0"])
def server(request, inferd):
    extra = [] if request.param == "default" else \
        [f"--backend-config=python,execute-spin-us={request.param}"]
    return inferd(repository(), extra_args=extra)


def infer(client, module, model, a, b):
    inputs = []
    for name, array in (("INPUT0", a), ("INPUT1", b)):
        tensor = module.InferInput(name, list(array.shape), "FP32")
        tensor.set_data_from_numpy(array)
        inputs.append(tensor)
    result = client.infer(model, inputs)
    return result.as_numpy("OUTPUT0"), result.as_numpy("OUTPUT1")


@pytest.mark.parametrize("module", [httpclient, grpcclient], ids=["http", "grpc"])
def test_alternating_fast_and_slow_answers_are_exact(server, module):
    client = server.client() if module is httpclient else server.grpc_client()
    rng = np.random.default_rng(7)
    before = {m: settled_stats(server, m)["inference_stats"]["success"]["count"]
              for m in ("fast", "slow")}
    # Runs of fast requests between slow ones: the polling learns, backs off
    # and comes back.
    models = (["fast"] * 20 + ["slow"] * 3) * 6
    for model in models:
        a, b = rng.random(4, np.float32), rng.random(4, np.float32)
        total, difference = infer(client, module, model, a, b)
        np.testing.assert_array_equal(total, a + b)
        np.testing.assert_array_equal(difference, a - b)
    for model in ("fast", "slow"):
        count = settled_stats(server, model)["inference_stats"]["success"]["count"]
        assert count - before[model] == models.count(model)


def test_batched_answers_reach_their_own_requests(server):
    rng = np.random.default_rng(11)
    pairs = [(rng.random((1, 4), np.float32), rng.random((1, 4), np.float32))
             for _ in range(64)]

    def one(pair):
        return infer(server.client(), httpclient, "batched", *pair)

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(one, pairs))
    for (a, b), (total, difference) in zip(pairs, results):
        np.testing.assert_array_equal(total, a + b)
        np.testing.assert_array_equal(difference, a - b)
    stats = settled_stats(server, "batched")
    assert stats["inference_stats"]["success"]["count"] == 64
    assert stats["execution_count"] < 64  # some execute()s answered several requests


@pytest.mark.parametrize("value", ["abc", "10001"])
def test_a_bad_value_fails_the_load_naming_the_setting(inferd, value):
    server = inferd({"fast": pm.python_model(pm.config("fast", INPUTS, OUTPUTS), pm.ADD_SUB)},
                    extra_args=[f"--backend-config=python,execute-spin-us={value}",
                                "--exit-on-error=false"], wait_for="live")

    def entry():
        index = server.post("/v2/repository/index", json={}).json()
        found = [e for e in index if e["name"] == "fast"]
        return found[0] if found and found[0].get("state") == "UNAVAILABLE" else None

    fast = wait_until(entry, what="model 'fast' UNAVAILABLE in the index")
    assert f"backend config python,execute-spin-us='{value}'" in fast["reason"]
    assert "give microseconds, 0 to 10000" in fast["reason"]
