"""The process that runs one model instance's model.py for inferd's Python
backend (libinferd_python.so starts it; nobody else should).

It inherits three descriptors: 3, the main control channel (SOCK_SEQPACKET,
40-byte messages, control_message.h); 4, the call channel, where the backend
answers this process's questions; 5, the shared memory region (shm_region.h),
where requests arrive and responses leave (wire_format.h). The main thread
reads commands and runs initialize/execute/finalize; any thread may send
responses (decoupled models).
"""

import asyncio
import importlib.util
import itertools
import queue
import json
import mmap
import os
import signal
import socket
import struct
import sys
import threading
import time
import traceback
from time import perf_counter

import triton_python_backend_utils as pb_utils

# Beside this file (sys.path[0]), like triton_python_backend_utils.
from inferd_stub_wire import (
    AUTO_COMPLETE, AUTO_COMPLETE_DONE, BLS_FREE, BLS_RESPONSE, CANCELLED_REPLY, CONTROL_REPLY,
    EXECUTE, EXECUTE_DONE, FINALIZE, FINALIZE_DONE, FLAG_BATCH_DONE, FLAG_ERROR, FLAG_FINAL,
    FLAG_HAS_BLOCK, INITIALIZE, INITIALIZE_DONE, INPUT, IS_CANCELLED, MESSAGE, PING, PONG,
    REQUEST, RESCHEDULE, RESPONSE, RESPONSE_HEAD, U32, U64, decode_array, dims_struct, encode_tensors, pad8,
    tensors_size, write_tensors,
)
from inferd_stub_async import EventLoop
from inferd_stub_bls import BlsClient


class Stub(BlsClient):
    """The stub's side of the channels and the shared memory region."""

    def __init__(self):
        self.main = socket.socket(fileno=3)
        self.call = socket.socket(fileno=4)
        self.region = mmap.mmap(5, 0)
        self.view = memoryview(self.region)
        self.ring_begin, self.ring_bytes = struct.unpack_from("<QQ", self.region, 8)
        self.head = 0  # bytes ever written to the ring
        self.send_lock = threading.Lock()
        self.call_lock = threading.Lock()
        self.message = bytearray(MESSAGE.size)
        self.model = None
        self.decoupled = False
        self.iterative = False
        self.label = "python model"
        # The call channel's messages, by kind: answers to is_cancelled (asked
        # one at a time) and the responses of each BLS call.
        self.cancel_replies = queue.SimpleQueue()
        self.calls = {}  # call id -> CallReplies
        self.call_ids = itertools.count(1)
        self.loop = EventLoop()  # runs coroutine execute()s
        threading.Thread(target=self._read_calls, name="inferd-calls", daemon=True).start()

    def _read_calls(self):
        buf = bytearray(MESSAGE.size)
        while self.call.recv_into(buf) == MESSAGE.size:
            kind, flags, ident, offset, size, _ = MESSAGE.unpack(buf)
            if kind == CANCELLED_REPLY:
                self.cancel_replies.put(bool(flags & 1))
            elif kind in (BLS_RESPONSE, CONTROL_REPLY):  # CONTROL_REPLY: inferd_pb_control
                waiting = self.calls.get(ident)
                taken = waiting is not None and waiting.put((flags, offset, size))
                if not taken and flags & FLAG_HAS_BLOCK:
                    self.send(BLS_FREE, 0, 0, offset)  # its caller stopped listening
        self.cancel_replies.put(True)
        for waiting in list(self.calls.values()):
            waiting.put(None)  # the server is gone

    # -- ring -----------------------------------------------------------------

    def _consumed(self):
        return U64.unpack_from(self.region, 0)[0]

    def _ring_alloc(self, size):
        """Where `size` bytes go in the ring; (offset, ring_end). Caller holds
        send_lock, and sends the block's message before releasing it, so the
        backend consumes blocks in the order they were placed."""
        size = pad8(max(size, 8))
        capacity = self.ring_bytes
        if size > capacity:
            raise pb_utils.TritonModelException(
                f"a response of {size} bytes does not fit the shared memory ring of "
                f"{capacity} bytes; raise --backend-config=python,shm-region-size=BYTES")
        head = self.head
        if U64.unpack_from(self.region, 0)[0] == head:  # self._consumed(), inlined
            # Empty: start over at the front, so that light traffic keeps
            # touching the same few pages.
            if head % capacity:
                head += capacity - head % capacity
            self.head = head + size
            return self.ring_begin, self.head
        pos = head % capacity
        skip = capacity - pos if pos + size > capacity else 0
        need = skip + size
        while head + need - self._consumed() > capacity:
            time.sleep(0.0001)  # the backend copies blocks out as they come
        self.head = head + need
        return self.ring_begin + (0 if skip else pos), self.head

    def send(self, kind, flags=0, ident=0, offset=0, size=0, ring_end=0):
        self.main.send(MESSAGE.pack(kind, flags, ident, offset, size, ring_end))

    def send_text(self, kind, flags, text):
        data = text.encode("utf-8", "replace")
        with self.send_lock:
            offset, end = self._ring_alloc(len(data))
            self.view[offset:offset + len(data)] = data
            self.send(kind, flags, 0, offset, len(data), end)

    # -- responses --------------------------------------------------------------

    def _encode_response(self, response):
        """The response's parts: (error, [(name, code, shape, data)])."""
        error = response.error() if response is not None else None
        if error is not None:
            return error, []
        return None, encode_tensors(response.output_tensors())

    def send_response(self, handle, response, final, batch_done=False):
        flags = (FLAG_FINAL if final else 0) | (FLAG_BATCH_DONE if batch_done else 0)
        if response is None:
            with self.send_lock:
                self.send(RESPONSE, flags, handle)
            return
        error, outputs = self._encode_response(response)
        if error is not None:
            text = error.message().encode("utf-8", "replace")
            size = RESPONSE_HEAD.size + pad8(len(text))
        else:
            size = RESPONSE_HEAD.size + tensors_size(outputs)
        with self.send_lock:
            offset, end = self._ring_alloc(size)
            if error is not None:
                RESPONSE_HEAD.pack_into(self.region, offset, 1, error.code(), len(text), 0)
                at = offset + RESPONSE_HEAD.size
                self.view[at:at + len(text)] = text
            else:
                RESPONSE_HEAD.pack_into(self.region, offset, 0, 0, 0, len(outputs))
                write_tensors(self.region, self.view, offset + RESPONSE_HEAD.size, outputs)
            self.main.send(MESSAGE.pack(RESPONSE, flags | FLAG_HAS_BLOCK, handle, offset, size,
                                        end))

    def is_cancelled(self, handle):
        with self.call_lock:
            self.send(IS_CANCELLED, 0, handle)
            return self.cancel_replies.get()

    # -- requests ---------------------------------------------------------------

    def parse_batch(self, at):
        # (Padding is computed inline here: a call per field was a tenth of
        # the stub's Python for a one-request batch.)
        region = self.region
        view = self.view
        count = U32.unpack_from(region, at)[0]
        at += 8
        requests = []
        for _ in range(count):
            handle, correlation_id, flags, n_in, n_out, id_len, params_len, sequence_len, \
                timeout_us, trace_len, _ = REQUEST.unpack_from(region, at)
            at += REQUEST.size
            # Slices of the mmap are bytes at once (a memoryview's need one more object).
            request_id = region[at:at + id_len].decode() if id_len else ""
            at += (id_len + 7) & ~7
            parameters = region[at:at + params_len]
            at += (params_len + 7) & ~7
            if sequence_len:  # a string correlation id, as Triton's correlation_id() gives
                correlation_id = region[at:at + sequence_len].decode()
                at += (sequence_len + 7) & ~7
            traceparent = region[at:at + trace_len].decode("ascii") if trace_len else ""
            at += (trace_len + 7) & ~7
            outputs = []
            for _ in range(n_out):
                n = U32.unpack_from(region, at)[0]
                outputs.append(region[at + 4:at + 4 + n].decode())
                at += 4 + n
            at = (at + 7) & ~7
            inputs = []
            for _ in range(n_in):
                name_len, code, n_dims, _, byte_size, data = INPUT.unpack_from(region, at)
                at += INPUT.size
                shape = dims_struct(n_dims).unpack_from(region, at) if n_dims else ()
                at += 8 * n_dims
                name = region[at:at + name_len].decode()
                at += (name_len + 7) & ~7
                array = decode_array(region, view, code, shape, data, byte_size, copy=False)
                inputs.append(pb_utils.Tensor(name, array, code))
            requests.append(pb_utils.InferenceRequest._received(
                handle, request_id, correlation_id, flags, parameters, outputs, inputs,
                timeout_us, traceparent))
        return requests

    # -- commands ---------------------------------------------------------------

    def read_json(self, offset, size):
        return json.loads(bytes(self.view[offset:offset + size]))

    def load_module(self, model_file):
        folder = os.path.dirname(model_file)
        pb_utils._model_dir = folder  # pb_utils.get_model_dir(), as Triton's
        if folder not in sys.path:
            sys.path.insert(0, folder)  # model.py may import its neighbours
        spec = importlib.util.spec_from_file_location("model", model_file)
        module = importlib.util.module_from_spec(spec)
        sys.modules["model"] = module
        spec.loader.exec_module(module)
        if not hasattr(module, "TritonPythonModel"):
            raise pb_utils.TritonModelException(f"{model_file} defines no class TritonPythonModel")
        return module

    def initialize(self, offset, size):
        try:
            settings = self.read_json(offset, size)
            self.label = settings["label"]
            self.spin_s = settings.get("spin_us", 0) / 1e6
            self.decoupled = settings["decoupled"]
            # It may reschedule requests: execute() must have returned to say which.
            self.iterative = settings.get("iterative", False)
            module = self.load_module(settings["model_file"])
            self.model = module.TritonPythonModel()
            if hasattr(self.model, "initialize"):
                returned = self.model.initialize(settings["args"])
                if asyncio.iscoroutine(returned):
                    returned.close()
                    raise pb_utils.TritonModelException(
                        "initialize() is a coroutine (async def); like Triton, inferd calls "
                        "initialize and finalize as plain functions (only execute may be async)")
        except BaseException as exc:  # noqa: B902 (SystemExit in user code, too)
            traceback.print_exc()
            self.send_text(INITIALIZE_DONE, FLAG_ERROR, describe(exc))
            return
        self.send(INITIALIZE_DONE)

    def auto_complete(self, offset, size):
        self.no_calls = "auto_complete_config"  # nobody answers this process's calls
        try:
            settings = self.read_json(offset, size)
            module = self.load_module(settings["model_file"])
            cls = module.TritonPythonModel
            text = settings["config"]
            if hasattr(cls, "auto_complete_config"):
                config = cls.auto_complete_config(pb_utils.ModelConfig(text))
                text = json.dumps(config.as_dict())
        except BaseException as exc:  # noqa: B902
            traceback.print_exc()
            self.send_text(AUTO_COMPLETE_DONE, FLAG_ERROR, describe(exc))
            return
        self.send_text(AUTO_COMPLETE_DONE, 0, text)

    def execute(self, batch, offset):
        requests = self.parse_batch(offset)
        try:
            responses = self.model.execute(requests)
            # (The common list first: iscoroutine alone takes longer.)
            if type(responses) is not list and asyncio.iscoroutine(responses):  # async def
                if self.decoupled and not self.iterative:
                    # As in Triton, it runs on while the next batch starts.
                    self.loop.start(responses, lambda exc: self.execute_raised(requests, exc))
                    self.send(EXECUTE_DONE, 0, batch)
                    return
                responses = self.loop.run(responses)
        except BaseException as exc:  # noqa: B902
            self.execute_raised(requests, exc)
            self.send(EXECUTE_DONE, 0, batch)
            return
        if self.decoupled or responses is None:
            # Responses went through response senders; what is left unanswered
            # is the model's mistake, not the client's wait for ever.
            if not self.decoupled:
                self.fail(requests, self.label + ": execute() returned None without sending "
                          "a response to this request")
                return
            self.send_reschedules(requests)
            self.send(EXECUTE_DONE, 0, batch)
            return
        try:
            responses = list(responses)
        except TypeError:
            responses = None
        if responses is None or len(responses) != len(requests):
            self.fail(requests, f"{self.label}: execute() must return one InferenceResponse per "
                      f"request ({len(requests)}), returned {type(responses).__name__}"
                      + ("" if responses is None else f" of {len(responses)}"))
            return
        self.send_reschedules(requests, responses)
        last = len(requests) - 1
        done_sent = False
        for i, (request, response) in enumerate(zip(requests, responses)):
            if request._final_sent:
                continue
            done_sent = i == last
            request._final_sent = True
            if not isinstance(response, pb_utils.InferenceResponse):
                response = pb_utils.InferenceResponse(error=pb_utils.TritonError(
                    f"{self.label}: execute() returned {type(response).__name__}, "
                    "not an InferenceResponse"))
            try:
                self.send_response(request._handle, response, True, i == last)
            except pb_utils.TritonModelException as exc:
                self.send_response(request._handle, pb_utils.InferenceResponse(
                    error=pb_utils.TritonError(f"{self.label}: {exc}")), True, i == last)
        if not done_sent:
            self.send(EXECUTE_DONE, 0, batch)

    def execute_raised(self, requests, exc):
        """The exception of an execute() (or of its coroutine): logged with
        its traceback, and the error of each request it left unanswered."""
        traceback.print_exception(type(exc), exc, exc.__traceback__)
        self.fail_requests(requests, self.label + ": execute() raised " + describe(exc))

    def send_reschedules(self, requests, responses=None):
        """Tells the backend which requests execute() rescheduled
        (set_release_flags), before the batch's end. A model that is not
        decoupled returns None for each (`responses`, the returned list): a
        response there answers the request instead, as an error."""
        for i, request in enumerate(requests):
            if request._release_flags != pb_utils.TRITONSERVER_REQUEST_RELEASE_RESCHEDULE:
                continue
            if request._final_sent:
                pb_utils.Logger.log_warn(f"{self.label}: a request was rescheduled after its "
                                         "final response; it ends instead")
                continue
            if responses is not None and responses[i] is not None:
                responses[i] = pb_utils.InferenceResponse(error=pb_utils.TritonError(
                    f"{self.label}: execute() rescheduled a request and returned "
                    f"{type(responses[i]).__name__} for it; a rescheduled request's entry in "
                    "the returned list must be None"))
                continue
            request._final_sent = True  # its answer comes from a later execute()
            self.send(RESCHEDULE, 0, request._handle)

    def fail(self, requests, message):
        self.fail_requests(requests, message)
        self.send(EXECUTE_DONE, 0, self.batch)

    def fail_requests(self, requests, message):
        error = pb_utils.InferenceResponse(error=pb_utils.TritonError(message))
        for request in requests:
            if not request._final_sent:
                request._final_sent = True
                self.send_response(request._handle, error, True)

    def finalize(self):
        self.loop.stop()  # as Triton: coroutines still running end with the process
        try:
            if self.model is not None and hasattr(self.model, "finalize"):
                if asyncio.iscoroutine(returned := self.model.finalize()):
                    returned.close()
                    print(f"python backend: {self.label}: finalize() is a coroutine (async "
                          "def) and was not run: Triton and inferd call it as a plain function",
                          file=sys.stderr)
        except BaseException:  # noqa: B902
            traceback.print_exc()
        self.send(FINALIZE_DONE)

    def _receive(self, message):
        """The next command. Polls for `spin_s` (the backend's spin-us) before
        sleeping in the kernel while the previous wait was that short: under
        load the next batch comes within microseconds, and then costs no
        wake-up; sparse requests (long waits) cost no polling (as the
        backend's AdaptiveSpin, control_channel.h)."""
        recv_into = self.main.recv_into
        spin_s = self.spin_s
        if not spin_s:
            return recv_into(message)
        start = perf_counter()
        if self.last_wait_short:
            deadline = start + spin_s
            while True:
                try:
                    received = recv_into(message, MESSAGE.size, socket.MSG_DONTWAIT)
                    self.last_wait_short = True
                    return received
                except BlockingIOError:
                    if perf_counter() > deadline:
                        break
        received = recv_into(message)
        self.last_wait_short = perf_counter() - start <= spin_s
        return received

    def run(self):
        message = self.message
        self.spin_s = 0.0
        self.last_wait_short = True
        while True:
            if self._receive(message) != MESSAGE.size:
                return  # the server closed the channel or died
            kind, flags, ident, offset, size, _ = MESSAGE.unpack(message)
            if kind == EXECUTE:
                self.batch = ident
                self.execute(ident, offset)
            elif kind == PING:
                self.send(PONG, 0, ident)
            elif kind == INITIALIZE:
                self.initialize(offset, size)
            elif kind == AUTO_COMPLETE:
                self.auto_complete(offset, size)
            elif kind == FINALIZE:
                self.finalize()
                return


# The stub's and pb_utils' files: a traceback's frames in them are not the model's.
OWN_FILES = ("inferd_python_stub.py", "inferd_stub_wire.py", "triton_python_backend_utils.py",
             "inferd_pb_datatypes.py", "inferd_pb_bls.py", "inferd_pb_logger.py",
             "inferd_stub_async.py", "inferd_stub_bls.py")


def describe(exc):
    """The traceback's last line ("ValueError: bad input"), and where in the
    model's own code it was raised."""
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    frames = traceback.extract_tb(exc.__traceback__)
    own = [f for f in frames if not f.filename.endswith(OWN_FILES)]
    if own:
        text += f" ({os.path.basename(own[-1].filename)}, line {own[-1].lineno})"
    return text


def die_with_parent():
    """SIGKILL when the thread that started us ends: a server killed with -9
    leaves no stub behind."""
    try:
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:  # noqa: BLE001 (best effort: the channel's end also stops us)
        pass
    if os.getppid() == 1:
        os._exit(0)


def main():
    die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server handles Ctrl-C and tells us
    stub = Stub()
    pb_utils._stub = stub
    stub.batch = 0
    try:
        stub.run()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        # Threads a model left running must not keep the process alive.
        os._exit(0)


if __name__ == "__main__":
    main()
