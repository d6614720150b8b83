"""The sequence batcher routes every request of a sequence to the same instance
and batch slot, in order, and fills the control inputs.

Checked with the accumulate backend (a running sum per sequence, keyed by the
CORRID control): many interleaved sequences over HTTP, gRPC unary and one gRPC
stream each get their own running sum, under the direct strategy (one slot
per sequence: the record file shows one instance and one row per sequence,
more sequences than slots wait their turn) and the oldest strategy; the
START/END/READY/CORRID values the backend saw, numeric and string ids;
padding rows (READY false) in a batch whose lower slots are idle; and several
sequences in one execution (BATCH 4, execution_count below the request count)
under both strategies.
"""

import concurrent.futures
from collections import defaultdict

import numpy as np
import pytest
import tritonclient.http as httpclient

from sequence_models import (GrpcStream, accumulate_config, grpc_step, http_inputs, http_step,
                             records, running_sums)
from util import REQUEST_TIMEOUT_S, model_stats

RNG = np.random.default_rng(20)


@pytest.fixture(scope="module")
def record_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("records")


@pytest.fixture(scope="module")
def server(inferd, record_dir):
    full_direct = "direct { max_queue_delay_microseconds: 5000000 minimum_slot_utilization: 1.0 }"
    full_oldest = ("oldest { max_candidate_sequences: 4 preferred_batch_size: [ 4 ] "
                   "max_queue_delay_microseconds: 5000000 }")
    return inferd({
        # 2 instances x 4 slots: 8 sequences at once.
        "acc_direct": accumulate_config("acc_direct", record_dir / "acc_direct.txt",
                                        instances=2, strategy="direct { }"),
        "acc_oldest": accumulate_config(
            "acc_oldest", record_dir / "acc_oldest.txt",
            strategy="oldest { max_candidate_sequences: 8 max_queue_delay_microseconds: 1000 }"),
        "acc_string": accumulate_config("acc_string", record_dir / "acc_string.txt",
                                        corrid_type="TYPE_STRING"),
        "acc_unbatched": accumulate_config("acc_unbatched", record_dir / "acc_unbatched.txt",
                                           max_batch_size=0),
        "acc_pad": accumulate_config("acc_pad", record_dir / "acc_pad.txt"),
        "acc_full_direct": accumulate_config("acc_full_direct", record_dir / "full_direct.txt",
                                             strategy=full_direct),
        "acc_full_oldest": accumulate_config("acc_full_oldest", record_dir / "full_oldest.txt",
                                             strategy=full_oldest),
    })


def http_client(server, concurrency=1):
    return httpclient.InferenceServerClient(url=server.address, concurrency=concurrency,
                                            connection_timeout=REQUEST_TIMEOUT_S,
                                            network_timeout=3 * REQUEST_TIMEOUT_S)


def run_sequence(server, protocol, model, sequence_id, values):
    """Sends `values` as one sequence, one request after another; the OUTPUT
    and ROW of each response."""
    client = http_client(server) if protocol == "http" else server.grpc_client()
    step = http_step if protocol == "http" else grpc_step
    try:
        got = []
        for i, value in enumerate(values):
            out = step(client, model, sequence_id, value, start=i == 0,
                       end=i == len(values) - 1, outputs=("OUTPUT", "ROW"))
            got.append((out["OUTPUT"][0], out["ROW"][0]))
        return got
    finally:
        client.close()


def ready_rows_by_sequence(path):
    by_id = defaultdict(list)
    for row in records(path):
        if row["ready"]:
            by_id[row["corrid"]].append(row)
    return by_id


@pytest.mark.parametrize("protocol", ["http", "grpc"])
@pytest.mark.parametrize("model", ["acc_direct", "acc_oldest"])
def test_interleaved_sequences_each_get_their_own_sum(server, record_dir, protocol, model):
    # 12 sequences at once against 8 places: 4 wait for a slot, then run.
    base = {"http": 1000, "grpc": 2000}[protocol] + {"acc_direct": 0, "acc_oldest": 500}[model]
    sequences = {base + s: RNG.integers(-50, 100, size=6).tolist() for s in range(12)}
    with concurrent.futures.ThreadPoolExecutor(len(sequences)) as pool:
        futures = {sid: pool.submit(run_sequence, server, protocol, model, sid, values)
                   for sid, values in sequences.items()}
        results = {sid: f.result(timeout=60) for sid, f in futures.items()}
    for sid, values in sequences.items():
        assert [out for out, _ in results[sid]] == running_sums(values), f"sequence {sid}"
    seen = ready_rows_by_sequence(record_dir / f"{model}.txt")
    for sid, values in sequences.items():
        rows = seen[str(sid)]
        assert [r["input"] for r in rows] == values, f"sequence {sid}: the backend saw {rows}"
        assert [r["start"] for r in rows] == [1] + [0] * (len(values) - 1)
        assert [r["end"] for r in rows] == [0] * (len(values) - 1) + [1]
        if model == "acc_direct":
            # One slot for the whole sequence: the same instance and row each time.
            assert len({(r["instance"], r["row"]) for r in rows}) == 1, rows
            assert len({row for _, row in results[sid]}) == 1, results[sid]


def test_one_grpc_stream_carries_interleaved_sequences(server, record_dir):
    sequences = {3000 + s: RNG.integers(0, 1000, size=5).tolist() for s in range(10)}
    stream = GrpcStream(server)
    try:
        # Every request at once, step by step across the sequences: the
        # stream interleaves them; two sequences wait for a slot.
        for step in range(5):
            for sid, values in sequences.items():
                stream.send("acc_direct", f"{sid}-{step}", sid, values[step], start=step == 0,
                            end=step == 4)
        got = stream.collect(len(sequences) * 5)
    finally:
        stream.close()
    assert "errors" not in got, got["errors"]
    for sid, values in sequences.items():
        assert [got[f"{sid}-{step}"]["OUTPUT"][0] for step in range(5)] == running_sums(values)
    seen = ready_rows_by_sequence(record_dir / "acc_direct.txt")
    for sid, values in sequences.items():
        rows = seen[str(sid)]
        assert [r["input"] for r in rows] == values
        assert len({(r["instance"], r["row"]) for r in rows}) == 1, rows


@pytest.mark.parametrize("model,batched", [("acc_direct", True), ("acc_unbatched", False)])
def test_control_values_the_backend_saw(server, model, batched):
    client = server.client()
    outputs = ("OUTPUT", "CONTROLS")
    sid = 4001 if batched else 4101
    first = http_step(client, model, sid, 3, start=True, batched=batched, outputs=outputs)
    middle = http_step(client, model, sid, 4, batched=batched, outputs=outputs)
    last = http_step(client, model, sid, 5, end=True, batched=batched, outputs=outputs)
    only = http_step(client, model, sid + 1, 9, start=True, end=True, batched=batched,
                     outputs=outputs)
    # CONTROLS: START, END, READY, CORRID.
    assert first == {"OUTPUT": [3], "CONTROLS": [1, 0, 1, sid]}
    assert middle == {"OUTPUT": [7], "CONTROLS": [0, 0, 1, sid]}
    assert last == {"OUTPUT": [12], "CONTROLS": [0, 1, 1, sid]}
    assert only == {"OUTPUT": [9], "CONTROLS": [1, 1, 1, sid + 1]}


def test_uint64_ids_beyond_int64(server):
    # HTTP carries the id as a JSON number (tritonclient's gRPC sends int64_param).
    client = server.client()
    sid = 2**64 - 5
    assert http_step(client, "acc_direct", sid, 1, start=True, outputs=("OUTPUT", "CONTROLS")) == {
        "OUTPUT": [1], "CONTROLS": [1, 0, 1, np.array(sid, np.uint64).view(np.int64).item()]}
    assert http_step(client, "acc_direct", sid, 2, end=True) == {"OUTPUT": [3]}


def test_string_ids(server, record_dir):
    # Over HTTP, gRPC unary and a gRPC stream; the CORRID control is a BYTES
    # element, so CONTROLS reports 0 for the id and the record the string.
    http, grpc = server.client(), server.grpc_client()
    outputs = ("OUTPUT", "CONTROLS")
    try:
        assert http_step(http, "acc_string", "alpha", 2, start=True, outputs=outputs) == {
            "OUTPUT": [2], "CONTROLS": [1, 0, 1, 0]}
        assert grpc_step(grpc, "acc_string", "beta", 10, start=True) == {"OUTPUT": [10]}
        assert grpc_step(grpc, "acc_string", "alpha", 3) == {"OUTPUT": [5]}
        assert http_step(http, "acc_string", "beta", 1, end=True) == {"OUTPUT": [11]}
        assert http_step(http, "acc_string", "alpha", 4, end=True, outputs=outputs) == {
            "OUTPUT": [9], "CONTROLS": [0, 1, 1, 0]}
    finally:
        grpc.close()
    stream = GrpcStream(server)
    try:
        for step, value in enumerate([5, 6, 7]):
            stream.send("acc_string", f"g{step}", "gamma with space", value, start=step == 0,
                        end=step == 2)
        got = stream.collect(3)
    finally:
        stream.close()
    assert "errors" not in got, got
    assert [got[f"g{s}"]["OUTPUT"][0] for s in range(3)] == [5, 11, 18]
    seen = ready_rows_by_sequence(record_dir / "acc_string.txt")
    assert [r["output"] for r in seen["alpha"]] == [2, 5, 9]
    assert [r["output"] for r in seen["beta"]] == [10, 11]
    # The record splits on spaces: the id's first word is enough here.
    assert [r["output"] for r in seen["gamma"]] == [5, 11, 18]


def test_padding_rows_are_not_ready_and_change_nothing(server, record_dir):
    client = server.client()
    outputs = ("OUTPUT", "ROW")
    a = http_step(client, "acc_pad", 5001, 1, start=True, outputs=outputs)
    b = http_step(client, "acc_pad", 5002, 100, start=True, outputs=outputs)
    assert a["ROW"] != b["ROW"]
    # The sequence in the higher slot runs alone: the rows below it are padding.
    high = 5001 if a["ROW"][0] > b["ROW"][0] else 5002
    high_row = max(a["ROW"][0], b["ROW"][0])
    before = len(records(record_dir / "acc_pad.txt"))
    out = http_step(client, "acc_pad", high, 7, outputs=outputs)
    assert out["ROW"] == [high_row]
    execution = records(record_dir / "acc_pad.txt")[before:]
    assert len(execution) == high_row + 1, execution
    for row in execution:
        assert row["batch"] == high_row + 1
        assert row["ready"] == (1 if row["row"] == high_row else 0), execution
    # Neither sum moved on the padding rows.
    assert http_step(client, "acc_pad", 5001, 1, end=True)["OUTPUT"] == [
        1 + (7 if high == 5001 else 0) + 1]
    assert http_step(client, "acc_pad", 5002, 0, end=True)["OUTPUT"] == [
        100 + (7 if high == 5002 else 0)]


@pytest.mark.parametrize("model", ["acc_full_direct", "acc_full_oldest"])
def test_sequences_batched_into_one_execution(server, model):
    # 4 sequences, each step sent by all four at once: the batcher waits (up
    # to 5 s) for all four rows, so each step is one execution of 4 rows.
    client = http_client(server, concurrency=4)
    sids = [6001, 6002, 6003, 6004] if model == "acc_full_direct" else [6101, 6102, 6103, 6104]
    steps = 5
    values = {sid: RNG.integers(0, 50, size=steps).tolist() for sid in sids}
    before = model_stats(server, model)
    sums, batches, rows = defaultdict(list), [], defaultdict(set)
    try:
        for step in range(steps):
            pending = {sid: client.async_infer(
                model, http_inputs(values[sid][step]), sequence_id=sid, sequence_start=step == 0,
                sequence_end=step == steps - 1,
                outputs=[httpclient.InferRequestedOutput(o) for o in ("OUTPUT", "BATCH", "ROW")])
                for sid in sids}
            for sid, request in pending.items():
                result = request.get_result(timeout=3 * REQUEST_TIMEOUT_S)
                sums[sid].append(int(result.as_numpy("OUTPUT").flatten()[0]))
                batches.append(int(result.as_numpy("BATCH").flatten()[0]))
                rows[step].add(int(result.as_numpy("ROW").flatten()[0]))
    finally:
        client.close()
    for sid in sids:
        assert sums[sid] == running_sums(values[sid])
    assert batches == [4] * (steps * len(sids))
    assert all(r == {0, 1, 2, 3} for r in rows.values()), rows
    after = model_stats(server, model)
    executions = after["execution_count"] - before["execution_count"]
    requests = (after["inference_stats"]["success"]["count"]
                - before["inference_stats"]["success"]["count"])
    assert requests == steps * len(sids)
    assert executions == steps < requests


def test_sequence_ids_are_independent_across_models(server):
    # The same id in two models is two sequences.
    client = server.client()
    assert http_step(client, "acc_direct", 7001, 5, start=True) == {"OUTPUT": [5]}
    assert http_step(client, "acc_pad", 7001, 50, start=True) == {"OUTPUT": [50]}
    for model, value, want in [("acc_direct", 1, 6), ("acc_pad", 1, 51)]:
        assert http_step(client, model, 7001, value, end=True) == {"OUTPUT": [want]}

