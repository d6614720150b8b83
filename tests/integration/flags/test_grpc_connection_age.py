"""--grpc-max-connection-age and --grpc-max-connection-age-grace, as Triton's:
milliseconds, 0 (the default) leaving gRPC's "no limit". Past the age the
server sends GOAWAY: the client's channel leaves READY (it goes IDLE) and
reconnects for the next call, which succeeds. A call still open when the
grace period after the GOAWAY runs out is cut (UNAVAILABLE).

The client is a plain grpc channel with tritonclient's generated stub, so the
test can watch the channel's connectivity, the state the server's GOAWAY
changes."""

from __future__ import annotations

import queue
import threading

import grpc
import numpy as np
import pytest
from tritonclient.grpc import service_pb2, service_pb2_grpc

from util import single_identity, wait_until

AGE_MS = 300
GRACE_MS = 300


@pytest.fixture(scope="module")
def aging(inferd):
    """Connections age; calls in flight at the GOAWAY may finish (no grace limit)."""
    return inferd({"m": single_identity("m", "FP32", [1])},
                  extra_args=[f"--grpc-max-connection-age={AGE_MS}"])


@pytest.fixture(scope="module")
def aging_with_grace(inferd):
    return inferd({"m": single_identity("m", "FP32", [1])}, extra_args=[
        f"--grpc-max-connection-age={AGE_MS}", f"--grpc-max-connection-age-grace={GRACE_MS}"])


class WatchedChannel:
    """A channel and every connectivity state it went through, in order."""

    def __init__(self, address: str):
        self.channel = grpc.insecure_channel(address)
        self.states: list[grpc.ChannelConnectivity] = []
        self._lock = threading.Lock()
        self.channel.subscribe(self._record, try_to_connect=True)
        self.stub = service_pb2_grpc.GRPCInferenceServiceStub(self.channel)

    def _record(self, state):
        with self._lock:
            self.states.append(state)

    def seen(self) -> list:
        with self._lock:
            return list(self.states)

    def close(self):
        self.channel.unsubscribe(self._record)
        self.channel.close()


def infer(stub):
    request = service_pb2.ModelInferRequest(model_name="m")
    request.inputs.add(name="INPUT0", datatype="FP32", shape=[1])
    request.raw_input_contents.append(np.array([7], dtype=np.float32).tobytes())
    response = stub.ModelInfer(request, timeout=10)
    return np.frombuffer(response.raw_output_contents[0], dtype=np.float32).tolist()


def test_the_server_ends_an_old_connection_and_the_client_reconnects(aging):
    watched = WatchedChannel(aging.grpc_address)
    try:
        assert infer(watched.stub) == [7.0]
        ready = grpc.ChannelConnectivity.READY
        wait_until(lambda: ready in watched.seen(), what="a READY channel")
        first_ready = watched.seen().index(ready)
        # The GOAWAY sent at the connection's age takes the channel out of READY.
        wait_until(lambda: any(s != ready for s in watched.seen()[first_ready + 1:]),
                   what=lambda: f"the channel leaving READY (states {watched.seen()})")
        left = len(watched.seen())
        # The next call opens a new connection and succeeds.
        assert infer(watched.stub) == [7.0]
        wait_until(lambda: ready in watched.seen()[left:],
                   what=lambda: f"the channel READY again (states {watched.seen()})")
    finally:
        watched.close()


def test_a_call_still_open_after_the_grace_period_is_cut(aging_with_grace):
    watched = WatchedChannel(aging_with_grace.grpc_address)
    requests: queue.Queue = queue.Queue()

    def messages():
        while True:
            message = requests.get()
            if message is None:
                return
            yield message

    try:
        stream = watched.stub.ModelStreamInfer(messages(), timeout=30)
        request = service_pb2.ModelInferRequest(model_name="m", id="1")
        request.inputs.add(name="INPUT0", datatype="FP32", shape=[1])
        request.raw_input_contents.append(np.array([3], dtype=np.float32).tobytes())
        requests.put(request)
        first = next(stream)
        assert first.error_message == "" and first.infer_response.id == "1"
        # The stream stays open, idle, past age + grace: the server closes it.
        # (Without the grace flag it would stay open until its deadline.)
        with pytest.raises(grpc.RpcError) as cut:
            next(stream)
        assert cut.value.code() == grpc.StatusCode.UNAVAILABLE, cut.value
    finally:
        requests.put(None)
        watched.close()
