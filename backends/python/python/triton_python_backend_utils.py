"""The Python API a Triton model.py imports (`import triton_python_backend_utils
as pb_utils`), written for inferd from Triton's public documentation.

Objects here hold numpy arrays; how they reach the server (shared memory, the
control channel) is the stub's business (inferd_python_stub.py), reached
through `_stub`, which the stub sets before it loads model.py.
"""

from __future__ import annotations

import asyncio
import json

import numpy as np

# The datatype tables and the BYTES serialization live beside this file
# (inferd_pb_datatypes.py); these names are part of this module as before.
from inferd_pb_datatypes import (  # noqa: F401 (re-exported for model.py files)
    _BF16, _BYTES, _CODE_OF_NUMPY, _NUMPY_OF_CODE, _TYPE_CODES, TRITON_STRING_TO_NUMPY,
    _as_bytes, _deserialize_bytes, _serialize_bytes, deserialize_bytes_tensor,
    numpy_to_triton_type, serialize_byte_tensor, triton_string_to_numpy, triton_to_numpy_type,
    using_decoupled_model_transaction_policy,
)
from inferd_pb_logger import Logger  # noqa: F401 (re-exported for model.py files)
# Business logic scripting's helpers, beside this file (inferd_pb_bls.py).
from inferd_pb_bls import (  # noqa: F401 (re-exported for model.py files)
    TRITONSERVER_MEMORY_CPU, TRITONSERVER_MEMORY_GPU, InferenceTrace, PreferredMemory,
    ResponseIterator, check_correlation_id, check_parameters,
)

# Set by inferd_python_stub.py: sends responses, asks whether a request was
# cancelled; and the folder of model.py (get_model_dir).
_stub = None
_model_dir = ""

TRITONSERVER_RESPONSE_COMPLETE_FINAL = 1
TRITONSERVER_REQUEST_FLAG_SEQUENCE_START = 1
TRITONSERVER_REQUEST_FLAG_SEQUENCE_END = 2
TRITONSERVER_REQUEST_RELEASE_ALL = 1
TRITONSERVER_REQUEST_RELEASE_RESCHEDULE = 2


def get_model_dir():
    """The folder model.py was loaded from (the version folder), as Triton's."""
    return _model_dir


def _code_of_numpy(dtype):
    code = _CODE_OF_NUMPY.get(dtype)
    if code is None:
        if dtype.kind in "SU":
            return _BYTES
        raise TritonModelException(f"numpy dtype {dtype} has no Triton datatype")
    return code


# ---------------------------------------------------------------------------
# Errors


class TritonModelException(Exception):
    """Raised by this API on misuse; a model may raise it too."""


class TritonError:
    """An error for one response: InferenceResponse(error=TritonError(...))."""

    UNKNOWN = 0
    INTERNAL = 1
    NOT_FOUND = 2
    INVALID_ARG = 3
    UNAVAILABLE = 4
    UNSUPPORTED = 5
    ALREADY_EXISTS = 6
    CANCELLED = 7

    def __init__(self, message, code=INTERNAL):
        self._message = str(message)
        self._code = int(code)

    def message(self):
        return self._message

    def code(self):
        return self._code

    def __repr__(self):
        return f"TritonError({self._message!r}, code={self._code})"


# ---------------------------------------------------------------------------
# Tensors


class _DLPackCapsule:
    """Lets numpy.from_dlpack take a bare DLPack capsule (numpy wants an object
    with __dlpack__); CPU memory only."""

    def __init__(self, capsule):
        self._capsule = capsule

    def __dlpack__(self, stream=None):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


class Tensor:
    """A named tensor holding a numpy array (inputs: a view of shared memory)."""

    __slots__ = ("_name", "_array", "_code")

    def __init__(self, name, array, _code=None):
        if not isinstance(array, np.ndarray):
            array = np.asarray(array)
        self._name = name
        self._array = array
        self._code = _code if _code is not None else _code_of_numpy(array.dtype)

    def name(self):
        return self._name

    def as_numpy(self):
        return self._array

    def shape(self):
        return list(self._array.shape)

    def triton_dtype(self):
        return self._code

    def is_cpu(self):
        return True

    def to_dlpack(self):
        return self.__dlpack__()

    # The DLPack protocol, so that torch.from_dlpack(tensor) and the like take
    # a Tensor itself, as Triton's; always CPU memory.
    def __dlpack__(self, stream=None):
        if self._code == _BYTES:
            raise TritonModelException("BYTES tensors cannot be shared through DLPack")
        return self._array.__dlpack__()

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU, device 0

    @staticmethod
    def from_dlpack(name, dlpack_tensor):
        source = dlpack_tensor if hasattr(dlpack_tensor, "__dlpack__") \
            else _DLPackCapsule(dlpack_tensor)
        return Tensor(name, np.from_dlpack(source))

    def __repr__(self):
        return f"Tensor({self._name!r}, shape={list(self._array.shape)}, dtype={self._array.dtype})"


# ---------------------------------------------------------------------------
# Requests and responses


class InferenceResponse:
    """One response: output tensors, or an error."""

    __slots__ = ("_outputs", "_error")

    def __init__(self, output_tensors=None, error=None):
        self._outputs = list(output_tensors) if output_tensors is not None else []
        if error is not None and not isinstance(error, TritonError):
            error = TritonError(str(error))
        self._error = error

    def output_tensors(self):
        return self._outputs

    def has_error(self):
        return self._error is not None

    def error(self):
        return self._error


class InferenceResponseSender:
    """Sends a request's responses, any number, from any thread, until FINAL."""

    __slots__ = ("_request",)

    def __init__(self, request):
        self._request = request

    def send(self, response=None, flags=0):
        request = self._request
        if request._final_sent:
            raise TritonModelException(
                "Unable to send response: the response sender is closed (FINAL was sent)")
        final = bool(flags & TRITONSERVER_RESPONSE_COMPLETE_FINAL)
        if response is None and not final:
            raise TritonModelException("send() needs a response or the FINAL flag")
        if final:
            request._final_sent = True
        _stub.send_response(request._handle, response, final)

    def is_cancelled(self):
        return self._request.is_cancelled()


class InferenceRequest:
    """A request this model received (execute's argument), or one it builds
    to send to another model (business logic scripting: exec, async_exec)."""

    def __init__(self, model_name=None, inputs=None, requested_output_names=None,
                 request_id="", correlation_id=0, flags=0, timeout=0, model_version=-1,
                 parameters=None, preferred_memory=None, trace=None):
        self._model_name = model_name
        self._inputs = list(inputs or [])
        self._outputs = list(requested_output_names or [])
        self._id = request_id
        self._correlation_id = check_correlation_id(correlation_id)
        self._flags = int(flags)
        self._timeout = int(timeout)  # microseconds in the queue, 0: the model's default
        if self._timeout < 0:
            raise ValueError(f"timeout must be microseconds >= 0, not {timeout!r}")
        self._model_version = model_version
        if parameters is None:
            parameters = "{}"
        elif not isinstance(parameters, str):
            check_parameters(parameters)
            parameters = json.dumps(parameters)
        self._parameters = parameters
        if preferred_memory is not None and not isinstance(preferred_memory, PreferredMemory):
            raise ValueError("preferred_memory must be a pb_utils.PreferredMemory")
        self._trace = trace if trace is not None else InferenceTrace()
        self._handle = None
        self._final_sent = False
        self._sender = None
        self._by_name = None

    @classmethod
    def _received(cls, handle, request_id, correlation_id, flags, parameters, outputs, inputs,
                  timeout_us=0, traceparent=""):
        request = cls.__new__(cls)
        request._model_name = None
        request._inputs = inputs
        request._outputs = outputs
        request._id = request_id
        request._correlation_id = correlation_id
        request._flags = flags
        request._timeout = timeout_us  # the client's, microseconds; 0: none
        request._model_version = -1
        request._parameters = parameters  # bytes until asked for
        request._trace = InferenceTrace(traceparent) if traceparent else _UNTRACED
        request._handle = handle
        request._final_sent = False
        request._sender = None
        request._by_name = None
        return request

    def inputs(self):
        return self._inputs

    def request_id(self):
        return self._id

    def correlation_id(self):
        return self._correlation_id

    def flags(self):
        return self._flags

    def set_flags(self, flags):
        self._flags = int(flags)

    def trace(self):
        return self._trace

    def timeout(self):
        return self._timeout

    def model_name(self):
        return self._model_name

    def requested_output_names(self):
        return self._outputs

    def parameters(self):
        """The request's custom parameters as a JSON object in a string."""
        if isinstance(self._parameters, (bytes, bytearray)):
            self._parameters = self._parameters.decode("utf-8")
        return self._parameters

    def get_response_sender(self):
        if self._handle is None:
            raise TritonModelException("only a request the model received has a response sender")
        if self._sender is None:
            self._sender = InferenceResponseSender(self)
        return self._sender

    # Until set_release_flags: released for good when execute() returns.
    _release_flags = TRITONSERVER_REQUEST_RELEASE_ALL

    def set_release_flags(self, flags):
        """TRITONSERVER_REQUEST_RELEASE_RESCHEDULE: once execute() returns, the
        request is queued again and a later execute() gets it again (iterative
        sequences: sequence_batching { iterative_sequence: true }); its entry
        in a returned list must then be None. TRITONSERVER_REQUEST_RELEASE_ALL
        (the default) undoes it."""
        if flags not in (TRITONSERVER_REQUEST_RELEASE_ALL, TRITONSERVER_REQUEST_RELEASE_RESCHEDULE):
            raise TritonModelException(
                f"set_release_flags() takes TRITONSERVER_REQUEST_RELEASE_ALL (1) or "
                f"TRITONSERVER_REQUEST_RELEASE_RESCHEDULE (2), got {flags!r}")
        if self._handle is None:
            raise TritonModelException("only a request the model received can be rescheduled")
        self._release_flags = flags

    def is_cancelled(self):
        if self._handle is None or self._final_sent:
            return self._final_sent
        return _stub.is_cancelled(self._handle)

    def exec(self, decoupled=False):
        """Business logic scripting: runs this request on `model_name` (any
        model the server serves) and returns its InferenceResponse (an error
        is in the response, as Triton does); with decoupled=True, a
        ResponseIterator of the model's responses as they come."""
        responses = self._send("exec", decoupled)
        return responses if decoupled else self._single(responses.first())

    def async_exec(self, decoupled=False):
        """exec() for asyncio, as Triton's: sends the request at once and
        returns an awaitable of its response (decoupled=True: of its
        ResponseIterator once the first response came; `async for` reads
        the rest without blocking the loop). Each call waits on the event
        loop, not on a thread: any number may be in flight together."""
        loop = asyncio.get_running_loop()
        responses = self._send("async_exec", decoupled)
        if decoupled:
            return loop.create_task(responses.started_async())

        async def single():
            return self._single(await responses.first_async())

        return loop.create_task(single())

    def _send(self, caller, decoupled):
        if self._model_name is None:
            raise TritonModelException(f"{caller}() needs an InferenceRequest made with "
                                       "model_name")
        call_id, replies = _stub.bls_call(self, not decoupled)
        return ResponseIterator(_stub, call_id, replies, InferenceResponse)

    def _single(self, response):
        if response is not None:
            return response
        return InferenceResponse(error=TritonError(
            f"model '{self._model_name}' sent no response", TritonError.INTERNAL))


# The trace of every request that is not traced (InferenceTrace holds nothing else).
_UNTRACED = InferenceTrace()


def get_input_tensor_by_name(inference_request, name):
    """The request's input `name`, or None."""
    by_name = inference_request._by_name
    if by_name is None:
        by_name = inference_request._by_name = {t._name: t for t in inference_request._inputs}
    return by_name.get(name)


def get_output_tensor_by_name(inference_response, name):
    """The response's output `name`, or None."""
    for tensor in inference_response.output_tensors():
        if tensor.name() == name:
            return tensor
    return None


def _tensor_config(model_config, kind, name):
    if isinstance(model_config, str):
        model_config = json.loads(model_config)
    for entry in model_config.get(kind, []):
        if entry.get("name") == name:
            return entry
    return {}


def get_input_config_by_name(model_config, name):
    """The input's entry of the model configuration (a dict), or {}."""
    return _tensor_config(model_config, "input", name)


def get_output_config_by_name(model_config, name):
    """The output's entry of the model configuration (a dict), or {}."""
    return _tensor_config(model_config, "output", name)


# ---------------------------------------------------------------------------
# auto_complete_config


class ModelConfig:
    """The configuration auto_complete_config(auto_complete_model_config)
    receives and returns: what config.pbtxt said, with setters that only add
    what it left out."""

    def __init__(self, model_config):
        if isinstance(model_config, str):
            model_config = json.loads(model_config)
        self._config = model_config

    def as_dict(self):
        return self._config

    def set_max_batch_size(self, max_batch_size):
        current = int(self._config.get("max_batch_size", 0) or 0)
        if current != 0 and current != max_batch_size:
            raise TritonModelException(
                f"set_max_batch_size({max_batch_size}): the configuration already says "
                f"max_batch_size {current}")
        self._config["max_batch_size"] = int(max_batch_size)

    def set_dynamic_batching(self):
        self._config.setdefault("dynamic_batching", {})

    def set_model_transaction_policy(self, transaction_policy_dict):
        policy = self._config.setdefault("model_transaction_policy", {})
        policy.update(transaction_policy_dict)

    def _add_tensor(self, kind, tensor):
        for key in ("name", "data_type", "dims"):
            if key not in tensor:
                raise TritonModelException(f"add_{kind}: the {kind} needs '{key}': {tensor}")
        entries = self._config.setdefault(kind, [])
        for entry in entries:
            if entry.get("name") != tensor["name"]:
                continue
            for key in ("data_type", "dims"):
                have = entry.get(key)
                if have in (None, [], "TYPE_INVALID"):
                    entry[key] = tensor[key]
                    continue
                if key == "dims":
                    same = [int(d) for d in have] == [int(d) for d in tensor[key]]
                else:
                    same = have == tensor[key]
                if not same:
                    raise TritonModelException(
                        f"add_{kind}: {kind} '{tensor['name']}' has {key} {have} in the "
                        f"configuration, not {tensor[key]}")
            return
        entries.append(dict(tensor))

    def add_input(self, input):  # noqa: A002 (Triton's parameter name)
        self._add_tensor("input", input)

    def add_output(self, output):
        self._add_tensor("output", output)


# Custom metrics and the model loading API (beside this file; they use _stub).
from inferd_pb_control import (  # noqa: E402,F401 (re-exported for model.py files)
    Metric, MetricFamily, MetricKind, is_model_ready, load_model, unload_model,
)
