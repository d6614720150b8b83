"""Admission control and the sequence batcher (docs/admission-control.md):
a model with one batch slot and inferd.max_queue_size 1. Sequence A holds the
slot, sequence B waits for it (queued): a third sequence is refused at its
start, with 503 / UNAVAILABLE while admission control is off and 429 /
RESOURCE_EXHAUSTED with retry advice while it is on, but A's next requests
are admitted past the full queue, and B is served once A ends."""

import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sequence"))

from admission_util import in_flight, rejected  # noqa: E402
from sequence_models import accumulate_config, grpc_step, http_step  # noqa: E402
from util import REQUEST_TIMEOUT_S, wait_until  # noqa: E402


def one_slot(name: str, shed: bool) -> str:
    text = accumulate_config(name, max_batch_size=1, instances=1,
                             outputs=("OUTPUT",), strategy="direct { }")
    text += 'parameters { key: "inferd.max_queue_size" value { string_value: "1" } }\n'
    if shed:
        text += 'parameters { key: "inferd.admission_control" value { string_value: "true" } }\n'
    return text


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({"seq": one_slot("seq", False), "seq_shed": one_slot("seq_shed", True)})


@pytest.mark.parametrize("model,code,status", [("seq", 503, "UNAVAILABLE"),
                                                ("seq_shed", 429, "RESOURCE_EXHAUSTED")])
def test_new_sequences_are_refused_and_live_ones_continue(server, model, code, status):
    http = httpclient.InferenceServerClient(server.address, network_timeout=REQUEST_TIMEOUT_S)
    other = httpclient.InferenceServerClient(server.address, network_timeout=REQUEST_TIMEOUT_S)
    grpc = grpcclient.InferenceServerClient(server.grpc_address)
    try:
        assert http_step(http, model, 1, 5, start=True)["OUTPUT"] == [5]  # A holds the slot
        with ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(http_step, other, model, 2, 7, start=True)  # B waits for it
            wait_until(lambda: in_flight(server, model) == 1, what="sequence B queued")
            with pytest.raises(InferenceServerException) as refused:
                http_step(http, model, 3, 1, start=True)
            assert refused.value.status() == str(code), refused.value
            assert f"model '{model}'" in refused.value.message()
            assert "inferd.max_queue_size=1" in refused.value.message()
            with pytest.raises(InferenceServerException) as refused:
                grpc_step(grpc, model, 4, 1, start=True)
            assert status in str(refused.value.status()), refused.value
            # A continues past the full queue, and ends; then B has the slot.
            assert grpc_step(grpc, model, 1, 1)["OUTPUT"] == [6]
            assert http_step(http, model, 1, 1, end=True)["OUTPUT"] == [7]
            assert waiting.result()["OUTPUT"] == [7]
        assert http_step(http, model, 2, 3, end=True)["OUTPUT"] == [10]
    finally:
        http.close()
        other.close()
        grpc.close()
    assert rejected(server, model, "queue_full") == 2
