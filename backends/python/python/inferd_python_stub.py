"""The process that runs one model instance's model.py for inferd's Python
backend (libinferd_python.so starts it; nobody else should).

It inherits three descriptors: 3, the main control channel (SOCK_SEQPACKET,
40-byte messages, control_message.h); 4, the call channel, where the backend
answers this process's questions; 5, the shared memory region (shm_region.h),
where requests arrive and responses leave (wire_format.h). The main thread
reads commands and runs initialize/execute/finalize; any thread may send
responses (decoupled models).
"""

import importlib.util
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

import numpy as np

import triton_python_backend_utils as pb_utils

# control_message.h
MESSAGE = struct.Struct("<IIQQQQ")
INITIALIZE, EXECUTE, FINALIZE, AUTO_COMPLETE, PING = 1, 2, 3, 4, 5
INITIALIZE_DONE, EXECUTE_DONE, RESPONSE, FINALIZE_DONE, AUTO_COMPLETE_DONE, PONG, \
    IS_CANCELLED = 101, 102, 103, 104, 105, 106, 107
CANCELLED_REPLY = 201
FLAG_FINAL, FLAG_HAS_BLOCK, FLAG_ERROR, FLAG_BATCH_DONE = 1, 2, 4, 8

# wire_format.h
U32 = struct.Struct("<I")
U64 = struct.Struct("<Q")
REQUEST = struct.Struct("<QQIIIIII")
INPUT = struct.Struct("<IIIIQQ")
RESPONSE_HEAD = struct.Struct("<IIII")
OUTPUT = struct.Struct("<IIIIQ")
_DIMS = {}


def dims_struct(n):
    s = _DIMS.get(n)
    if s is None:
        s = _DIMS[n] = struct.Struct("<%dq" % n)
    return s


def pad8(n):
    return (n + 7) & ~7


class Stub:
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
        self.label = "python model"

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
        if self._consumed() == head:
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
        """The response's parts: (error, [(name, code, shape, data)]), data a
        byte buffer."""
        error = response.error() if response is not None else None
        if error is not None:
            return error, []
        outputs = []
        for tensor in response.output_tensors():
            array = tensor._array
            code = tensor._code
            if code == 13:
                data = pb_utils._serialize_bytes(array)
            else:
                if not array.flags.c_contiguous:
                    array = np.ascontiguousarray(array)
                data = memoryview(array).cast("B") if array.size else b""
            outputs.append((tensor._name.encode(), code, array.shape, data))
        return None, outputs

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
            size = RESPONSE_HEAD.size
            for name, code, shape, data in outputs:
                size += OUTPUT.size + 8 * len(shape) + pad8(len(name)) + pad8(len(data))
        with self.send_lock:
            offset, end = self._ring_alloc(size)
            region = self.region
            view = self.view
            if error is not None:
                RESPONSE_HEAD.pack_into(region, offset, 1, error.code(), len(text), 0)
                at = offset + RESPONSE_HEAD.size
                view[at:at + len(text)] = text
            else:
                RESPONSE_HEAD.pack_into(region, offset, 0, 0, 0, len(outputs))
                at = offset + RESPONSE_HEAD.size
                for name, code, shape, data in outputs:
                    n = len(data)
                    OUTPUT.pack_into(region, at, len(name), code, len(shape), 0, n)
                    at += OUTPUT.size
                    if shape:
                        dims_struct(len(shape)).pack_into(region, at, *shape)
                        at += 8 * len(shape)
                    view[at:at + len(name)] = name
                    at += pad8(len(name))
                    if n:
                        view[at:at + n] = data
                    at += pad8(n)
            self.send(RESPONSE, flags | FLAG_HAS_BLOCK, handle, offset, size, end)

    def is_cancelled(self, handle):
        with self.call_lock:
            self.send(IS_CANCELLED, 0, handle)
            reply = self.call.recv(MESSAGE.size)
        if len(reply) != MESSAGE.size:
            os._exit(0)  # the server is gone
        return bool(MESSAGE.unpack(reply)[1] & 1)

    # -- requests ---------------------------------------------------------------

    def parse_batch(self, at):
        region = self.region
        view = self.view
        count = U32.unpack_from(region, at)[0]
        at += 8
        requests = []
        for _ in range(count):
            handle, correlation_id, flags, n_in, n_out, id_len, params_len, _ = \
                REQUEST.unpack_from(region, at)
            at += REQUEST.size
            request_id = str(view[at:at + id_len], "utf-8") if id_len else ""
            at += pad8(id_len)
            parameters = bytes(view[at:at + params_len])
            at += pad8(params_len)
            outputs = []
            for _ in range(n_out):
                n = U32.unpack_from(region, at)[0]
                outputs.append(str(view[at + 4:at + 4 + n], "utf-8"))
                at += 4 + n
            at = pad8(at)
            inputs = []
            for _ in range(n_in):
                name_len, code, n_dims, _, byte_size, data = INPUT.unpack_from(region, at)
                at += INPUT.size
                shape = dims_struct(n_dims).unpack_from(region, at) if n_dims else ()
                at += 8 * n_dims
                name = str(view[at:at + name_len], "utf-8")
                at += pad8(name_len)
                if code == 13:
                    array = pb_utils._deserialize_bytes(view[data:data + byte_size], shape)
                else:
                    dtype = pb_utils._NUMPY_OF_CODE[code]
                    array = np.frombuffer(region, dtype, byte_size // dtype.itemsize,
                                          data).reshape(shape)
                inputs.append(pb_utils.Tensor(name, array, code))
            requests.append(pb_utils.InferenceRequest._received(
                handle, request_id, correlation_id, flags, parameters, outputs, inputs))
        return requests

    # -- commands ---------------------------------------------------------------

    def read_json(self, offset, size):
        return json.loads(bytes(self.view[offset:offset + size]))

    def load_module(self, model_file):
        folder = os.path.dirname(model_file)
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
            self.decoupled = settings["decoupled"]
            module = self.load_module(settings["model_file"])
            self.model = module.TritonPythonModel()
            if hasattr(self.model, "initialize"):
                self.model.initialize(settings["args"])
        except BaseException as exc:  # noqa: B902 (SystemExit in user code, too)
            traceback.print_exc()
            self.send_text(INITIALIZE_DONE, FLAG_ERROR, describe(exc))
            return
        self.send(INITIALIZE_DONE)

    def auto_complete(self, offset, size):
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
        except BaseException as exc:  # noqa: B902
            traceback.print_exc()
            self.fail(requests, self.label + ": execute() raised " + describe(exc))
            return
        if self.decoupled or responses is None:
            # Responses went through response senders; what is left unanswered
            # is the model's mistake, not the client's wait for ever.
            if not self.decoupled:
                self.fail(requests, self.label + ": execute() returned None without sending "
                          "a response to this request")
                return
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

    def fail(self, requests, message):
        error = pb_utils.InferenceResponse(error=pb_utils.TritonError(message))
        for request in requests:
            if not request._final_sent:
                request._final_sent = True
                self.send_response(request._handle, error, True)
        self.send(EXECUTE_DONE, 0, self.batch)

    def finalize(self):
        try:
            if self.model is not None and hasattr(self.model, "finalize"):
                self.model.finalize()
        except BaseException:  # noqa: B902
            traceback.print_exc()
        self.send(FINALIZE_DONE)

    def run(self):
        message = self.message
        recv_into = self.main.recv_into
        while True:
            if recv_into(message) != MESSAGE.size:
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


def describe(exc):
    """The traceback's last line ("ValueError: bad input"), and where in the
    model's own code it was raised."""
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    frames = traceback.extract_tb(exc.__traceback__)
    own = [f for f in frames if not f.filename.endswith(("inferd_python_stub.py",
                                                         "triton_python_backend_utils.py"))]
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
