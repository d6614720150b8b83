"""Response cache: `response_cache { enable: true }` in a model's config and
`--cache-config local,size=N` (or `--response-cache-byte-size=N`) on the server.

A hit answers with the bytes the miss answered without running the backend (the
identity backend's record_file gets one line per execution); hits and misses
show in statistics (cache_hit, cache_miss) and in the nv_cache_* metrics; the
byte budget evicts the least recently used entry; requests that differ in one
input byte never share an entry; a reload or unload drops the model's entries;
decoupled and sequence-batched models with a cache are refused at load.
"""

from __future__ import annotations

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from util import (assert_error, identity_config, metrics_text, model_stats, record_lines,
                  single_identity, touch)

CACHE = "response_cache { enable: true }\n"


def recorded(path, name):
    return f'parameters {{ key: "record_file" value: {{ string_value: "{path / name}" }} }}\n'


def http_infer(client, model, data, outputs=("OUTPUT0",), class_count=0, datatype="FP32"):
    inp = httpclient.InferInput("INPUT0", list(data.shape), datatype)
    inp.set_data_from_numpy(data, binary_data=True)
    outs = [httpclient.InferRequestedOutput(o, binary_data=True, class_count=class_count)
            for o in outputs]
    return client.infer(model, [inp], outputs=outs)


def grpc_infer(client, model, data):
    inp = grpcclient.InferInput("INPUT0", list(data.shape), "FP32")
    inp.set_data_from_numpy(data)
    return client.infer(model, [inp], outputs=[grpcclient.InferRequestedOutput("OUTPUT0")])


def metric(server, name, model):
    prefix = f'{name}{{model="{model}",version="1"}} '
    for line in metrics_text(server).splitlines():
        if line.startswith(prefix):
            return int(float(line[len(prefix):]))
    raise AssertionError(f"no {name} for {model!r} in /metrics")


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return tmp_path_factory.mktemp("records")


@pytest.fixture(scope="module")
def server(inferd, records):
    return inferd({
        "cached": single_identity("cached", "FP32", [4], extra=CACHE + recorded(records, "c")),
        "batched": single_identity("batched", "FP32", [4], max_batch_size=8,
                                   extra=CACHE + "dynamic_batching { }\n"
                                   + recorded(records, "b")),
        "grpc_cached": single_identity("grpc_cached", "FP32", [4],
                                       extra=CACHE + recorded(records, "g")),
        "plain": single_identity("plain", "FP32", [4], extra=recorded(records, "p")),
        "classes": single_identity("classes", "FP32", [4],
                                   extra=CACHE + recorded(records, "k")),
        "diff": single_identity("diff", "UINT8", [8], extra=CACHE + recorded(records, "d")),
    }, extra_args=["--cache-config=local,size=1048576"])


def test_hit_returns_miss_bytes_without_executing(server, records):
    client = server.client()
    data = np.array([1.5, -2.25, 3.0, 4.125], dtype=np.float32)
    first = http_infer(client, "cached", data).as_numpy("OUTPUT0")
    assert len(record_lines(records / "c")) == 1
    for _ in range(3):
        again = http_infer(client, "cached", data).as_numpy("OUTPUT0")
        assert again.tobytes() == first.tobytes() == data.tobytes()
    assert len(record_lines(records / "c")) == 1, "a hit ran the backend"

    stats = model_stats(server, "cached")
    inference = stats["inference_stats"]
    assert inference["cache_miss"]["count"] == 1
    assert inference["cache_hit"]["count"] == 3
    assert inference["cache_hit"]["ns"] > 0
    assert inference["cache_miss"]["ns"] > 0
    assert inference["success"]["count"] == 4
    assert stats["execution_count"] == 1
    assert stats["inference_count"] == 1  # hits are not inferences (as Triton)
    assert inference["queue"]["count"] == 1

    assert metric(server, "nv_cache_num_hits_per_model", "cached") == 3
    assert metric(server, "nv_cache_num_misses_per_model", "cached") == 1
    assert metric(server, "nv_cache_hit_duration_per_model", "cached") >= 0
    assert metric(server, "nv_cache_miss_duration_per_model", "cached") >= 0


def test_batched_model_hits_skip_the_queue(server, records):
    client = server.client()
    data = np.arange(12, dtype=np.float32).reshape(3, 4)
    first = http_infer(client, "batched", data).as_numpy("OUTPUT0")
    second = http_infer(client, "batched", data).as_numpy("OUTPUT0")
    assert second.tobytes() == first.tobytes() == data.tobytes()
    assert len(record_lines(records / "b")) == 1
    stats = model_stats(server, "batched")
    assert stats["inference_stats"]["cache_hit"]["count"] == 1
    assert stats["inference_count"] == 3  # the 3 rows executed once


def test_grpc_hit_returns_miss_bytes(server, records):
    client = server.grpc_client()
    data = np.array([9, 8, 7, 6], dtype=np.float32)
    first = grpc_infer(client, "grpc_cached", data).as_numpy("OUTPUT0")
    second = grpc_infer(client, "grpc_cached", data).as_numpy("OUTPUT0")
    assert second.tobytes() == first.tobytes() == data.tobytes()
    assert len(record_lines(records / "g")) == 1
    # A hit over HTTP of what gRPC stored: the key is the request, not the protocol.
    third = http_infer(server.client(), "grpc_cached", data).as_numpy("OUTPUT0")
    assert third.tobytes() == data.tobytes()
    assert len(record_lines(records / "g")) == 1
    grpc_stats = client.get_inference_statistics("grpc_cached", as_json=True)
    inference = grpc_stats["model_stats"][0]["inference_stats"]
    assert int(inference["cache_hit"]["count"]) == 2
    assert int(inference["cache_miss"]["count"]) == 1


def test_grpc_stream_hits_answer_on_the_stream(server, records):
    import queue

    client = server.grpc_client()
    answers = queue.Queue()
    client.start_stream(callback=lambda result, error: answers.put((result, error)))
    try:
        data = np.array([5, 5, 5, 5], dtype=np.float32)
        before = len(record_lines(records / "g"))
        for i in range(3):
            inp = grpcclient.InferInput("INPUT0", [4], "FP32")
            inp.set_data_from_numpy(data)
            client.async_stream_infer("grpc_cached", [inp], request_id=str(i))
            result, error = answers.get(timeout=10)
            assert error is None, error
            assert result.as_numpy("OUTPUT0").tobytes() == data.tobytes()
            assert result.get_response().id == str(i)
        assert len(record_lines(records / "g")) == before + 1
    finally:
        client.stop_stream()


def test_model_without_response_cache_always_executes(server, records):
    client = server.client()
    data = np.ones(4, dtype=np.float32)
    for _ in range(3):
        http_infer(client, "plain", data)
    assert len(record_lines(records / "p")) == 3
    stats = model_stats(server, "plain")["inference_stats"]
    assert stats["cache_hit"]["count"] == 0 and stats["cache_miss"]["count"] == 0
    assert 'nv_cache_num_hits_per_model{model="plain"' not in metrics_text(server)


def test_one_input_byte_apart_never_share_an_entry(server, records):
    client = server.client()
    a = np.arange(8, dtype=np.uint8)
    b = a.copy()
    b[5] ^= 1
    out_a = http_infer(client, "diff", a, datatype="UINT8").as_numpy("OUTPUT0")
    out_b = http_infer(client, "diff", b, datatype="UINT8").as_numpy("OUTPUT0")
    assert len(record_lines(records / "d")) == 2
    assert out_a.tobytes() == a.tobytes() and out_b.tobytes() == b.tobytes()
    # Each now hits its own entry.
    assert http_infer(client, "diff", b, datatype="UINT8").as_numpy("OUTPUT0").tobytes() \
        == b.tobytes()
    assert http_infer(client, "diff", a, datatype="UINT8").as_numpy("OUTPUT0").tobytes() \
        == a.tobytes()
    assert len(record_lines(records / "d")) == 2
    # Another shape of the same bytes is another key.
    http_infer(client, "diff", a.reshape(8), datatype="UINT8")
    assert len(record_lines(records / "d")) == 2


def test_classification_is_part_of_the_key(server, records):
    client = server.client()
    data = np.array([0.1, 0.7, 0.2, 0.4], dtype=np.float32)
    top2 = http_infer(client, "classes", data, class_count=2).as_numpy("OUTPUT0")
    assert [v.decode() if isinstance(v, bytes) else v for v in top2.tolist()][0].startswith("0.7")
    again = http_infer(client, "classes", data, class_count=2).as_numpy("OUTPUT0")
    assert again.tolist() == top2.tolist()
    assert len(record_lines(records / "k")) == 1
    raw = http_infer(client, "classes", data).as_numpy("OUTPUT0")
    assert raw.tobytes() == data.tobytes()
    assert len(record_lines(records / "k")) == 2


# ---------------------------------------------------------------------------
# Budget: least recently used out; an entry larger than the budget not stored


def test_small_budget_evicts_least_recently_used(inferd, tmp_path):
    # Each entry here is about 2.4 KB (key and output 1 KB each): two fit in 6000.
    server = inferd({"m": single_identity("m", "FP32", [256],
                                          extra=CACHE + recorded(tmp_path, "m"))},
                    extra_args=["--response-cache-byte-size=6000"])
    client = server.client()
    a, b, c = (np.full(256, v, dtype=np.float32) for v in (1, 2, 3))

    def executions():
        return len(record_lines(tmp_path / "m"))

    http_infer(client, "m", a)
    http_infer(client, "m", b)
    assert executions() == 2
    http_infer(client, "m", a)  # hit: a is now the most recently used
    assert executions() == 2
    http_infer(client, "m", c)  # miss: evicts b, not a
    assert executions() == 3
    http_infer(client, "m", a)
    assert executions() == 3
    out = http_infer(client, "m", b).as_numpy("OUTPUT0")  # evicted: runs again
    assert executions() == 4
    assert out.tobytes() == b.tobytes()


def test_entry_larger_than_budget_is_not_stored(inferd, tmp_path):
    server = inferd({"m": single_identity("m", "FP32", [2048],
                                          extra=CACHE + recorded(tmp_path, "m"))},
                    extra_args=["--cache-config", "local,size=6000"])
    client = server.client()
    data = np.arange(2048, dtype=np.float32)
    for _ in range(2):
        assert http_infer(client, "m", data).as_numpy("OUTPUT0").tobytes() == data.tobytes()
    assert len(record_lines(tmp_path / "m")) == 2
    inference = model_stats(server, "m")["inference_stats"]
    assert inference["cache_hit"]["count"] == 0
    assert inference["cache_miss"]["count"] == 2


def test_without_a_server_cache_the_model_is_not_cached(inferd, tmp_path):
    server = inferd({"m": single_identity("m", "FP32", [4],
                                          extra=CACHE + recorded(tmp_path, "m"))})
    client = server.client()
    data = np.ones(4, dtype=np.float32)
    http_infer(client, "m", data)
    http_infer(client, "m", data)
    assert len(record_lines(tmp_path / "m")) == 2
    assert "has no response cache" in server.log()


# ---------------------------------------------------------------------------
# Lifecycle: entries go with the loaded version; refused configurations


def test_reload_and_unload_drop_the_models_entries(inferd, tmp_path):
    records = tmp_path / "records"
    records.mkdir()
    repo = tmp_path / "repo"
    (repo / "m" / "1").mkdir(parents=True)
    (repo / "m" / "config.pbtxt").write_text(
        single_identity("m", "FP32", [4], extra=CACHE + recorded(records, "m")))
    server = inferd(repo, extra_args=["--model-control-mode=explicit", "--load-model=m",
                                      "--cache-config=local,size=65536"])
    client = server.client()
    data = np.array([1, 2, 3, 4], dtype=np.float32)

    def executions():
        return len(record_lines(records / "m"))

    http_infer(client, "m", data)
    http_infer(client, "m", data)
    assert executions() == 1

    touch(repo / "m" / "config.pbtxt")
    client.load_model("m")  # a reload: a new loaded version, an empty cache for it
    assert http_infer(client, "m", data).as_numpy("OUTPUT0").tobytes() == data.tobytes()
    assert executions() == 2
    http_infer(client, "m", data)
    assert executions() == 2

    client.unload_model("m")
    client.load_model("m")
    http_infer(client, "m", data)
    assert executions() == 3


@pytest.mark.parametrize("extra, needle", [
    ("model_transaction_policy { decoupled: true }\n", "decoupled"),
    ("sequence_batching { }\n", "sequence_batching"),
])
def test_decoupled_and_sequence_models_are_refused(inferd, tmp_path, extra, needle):
    repo = tmp_path / "repo"
    (repo / "bad" / "1").mkdir(parents=True)
    (repo / "bad" / "config.pbtxt").write_text(
        single_identity("bad", "FP32", [4], max_batch_size=4 if "sequence" in extra else 0,
                        extra=CACHE + extra))
    server = inferd(repo, extra_args=["--model-control-mode=explicit",
                                      "--cache-config=local,size=65536"])
    resp = server.post("/v2/repository/models/bad/load")
    message = assert_error(resp, 400, "response_cache", needle)
    assert "bad" in message
    assert server.get("/v2/models/bad/ready").status_code != 200


def test_cache_summaries_with_summary_latencies(inferd, tmp_path):
    server = inferd({"m": single_identity("m", "FP32", [4], extra=CACHE),
                     "plain": single_identity("plain", "FP32", [4])},
                    extra_args=["--cache-config=local,size=65536",
                                "--metrics-config=summary_latencies=true"])
    client = server.client()
    data = np.ones(4, dtype=np.float32)
    for _ in range(3):
        http_infer(client, "m", data)
    text = metrics_text(server)
    assert 'nv_cache_hit_summary_us_count{model="m",version="1"} 2' in text, text
    assert 'nv_cache_miss_summary_us_count{model="m",version="1"} 1' in text, text
    assert 'nv_cache_hit_summary_us_count{model="plain"' not in text


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_hit_writes_into_the_clients_shared_memory(server, records, protocol):
    """A hit's output goes where the client asked, here a system shared memory
    region, as a backend's output would."""
    import os

    import tritonclient.utils.shared_memory as shm

    api = httpclient if protocol == "http" else grpcclient
    client = server.client() if protocol == "http" else server.grpc_client()
    key = f"/inferd_cache_{os.getpid()}_{protocol}"
    region = shm.create_shared_memory_region(f"out_{protocol}", key, 32)
    try:
        client.register_system_shared_memory(f"out_{protocol}", key, 32)
        data = np.array([11, 12, 13, 14], dtype=np.float32) + (100 if protocol == "grpc" else 0)
        before = len(record_lines(records / "c"))
        for offset in (0, 16):  # a miss into the first half, then a hit into the second
            inp = api.InferInput("INPUT0", [4], "FP32")
            inp.set_data_from_numpy(data)
            out = api.InferRequestedOutput("OUTPUT0")
            out.set_shared_memory(f"out_{protocol}", 16, offset=offset)
            client.infer("cached", [inp], outputs=[out])
            got = shm.get_contents_as_numpy(region, np.float32, [4], offset=offset)
            np.testing.assert_array_equal(got, data)
        assert len(record_lines(records / "c")) == before + 1
    finally:
        client.unregister_system_shared_memory()
        shm.destroy_shared_memory_region(region)
