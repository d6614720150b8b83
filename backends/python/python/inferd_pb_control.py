"""Custom metrics (pb_utils.MetricFamily, Metric) and the model loading API
(pb_utils.load_model, unload_model, is_model_ready) for inferd's Python
backend, written from Triton's public documentation; triton_python_backend_utils
re-exports them.

Each call crosses to the backend on the stub's main channel (in order with
the responses, so a response a client has was counted before it; see
control_message.h for the messages) and, when it needs an answer, waits for
one on the call channel. Increments, sets and observations are checked here
and not answered: they cost one message and no wait.
"""

import enum
import struct

import triton_python_backend_utils as pb_utils
from inferd_stub_async import CallReplies
from inferd_stub_wire import (
    BLS_FREE, FLAG_ERROR, FLAG_HAS_BLOCK, METRIC_DELETE, METRIC_FAMILY_NEW, METRIC_NEW,
    METRIC_UPDATE, METRIC_VALUE, MODEL_LOAD, MODEL_READY, MODEL_UNLOAD, U32, U64, pad8,
)

_DOUBLE = struct.Struct("<d")
_INCREMENT, _SET, _OBSERVE = 1, 2, 3


def _stub(what):
    stub = pb_utils._stub
    if stub is None:
        raise pb_utils.TritonModelException(f"{what}: only a model the server runs can do this")
    if getattr(stub, "no_calls", None):
        raise pb_utils.TritonModelException(f"{what}: not available in {stub.no_calls}")
    return stub


def _call(what, kind, flags=0, parts=None, arg=0):
    """Sends a call (with `parts`, a list of bytes, as its block) and waits for
    its answer: the result (an int), or TritonModelException("<what>: <error>")."""
    stub = _stub(what)
    call_id = next(stub.call_ids)
    waiting = stub.calls[call_id] = CallReplies()
    try:
        if parts is None:
            stub.send(kind, flags, call_id, arg)
        else:
            size = 8 + sum(8 + pad8(len(p)) for p in parts)
            with stub.send_lock:
                offset, end = stub._ring_alloc(size)
                U32.pack_into(stub.region, offset, len(parts))
                U32.pack_into(stub.region, offset + 4, 0)
                at = offset + 8
                for part in parts:
                    U64.pack_into(stub.region, at, len(part))
                    stub.view[at + 8:at + 8 + len(part)] = part
                    at += 8 + pad8(len(part))
                stub.send(kind, flags, call_id, offset, size, end)
        answer = waiting.get()
    finally:
        stub.calls.pop(call_id, None)
    if answer is None:
        raise pb_utils.TritonModelException(f"{what}: the server went away")
    reply_flags, result, size = answer
    if reply_flags & FLAG_ERROR:
        text = "(no room for the error's text)"
        if reply_flags & FLAG_HAS_BLOCK:
            text = str(stub.view[result:result + size], "utf-8", "replace")
            stub.send(BLS_FREE, 0, 0, result)
        raise pb_utils.TritonModelException(f"{what}: {text}")
    return result


def _forget(handle):
    """Drops a handle (an object's __del__): one message, no answer."""
    stub = pb_utils._stub
    if stub is not None and handle:
        try:
            stub.send(METRIC_DELETE, 0, handle)
        except OSError:
            pass  # the server is gone, and the handle with it


def _text(value, what, name):
    if not isinstance(value, str):
        raise pb_utils.TritonModelException(
            f"{what}: '{name}' must be a str, not {type(value).__name__}")
    return value.encode("utf-8")


# ---------------------------------------------------------------------------
# Custom metrics


class MetricKind(enum.IntEnum):
    COUNTER = 0
    GAUGE = 1
    HISTOGRAM = 2


class MetricFamily:
    """A family of metrics of one kind and name, shown on the server's
    /metrics beside its own; the same name and kind, asked for again (by
    another instance, say), is the same family. Removed with the model."""

    COUNTER = MetricKind.COUNTER
    GAUGE = MetricKind.GAUGE
    HISTOGRAM = MetricKind.HISTOGRAM

    def __init__(self, name, description, kind):
        self._handle = 0
        what = f"failed to create metric family {name!r}"
        try:
            kind = MetricKind(kind)
        except ValueError:
            raise pb_utils.TritonModelException(
                f"{what}: kind must be MetricFamily.COUNTER, GAUGE or HISTOGRAM, not {kind!r}"
            ) from None
        parts = [_text(name, what, "name"), _text(description, what, "description")]
        self._name = name
        self._kind = kind
        self._handle = _call(what, METRIC_FAMILY_NEW, int(kind), parts)

    def Metric(self, labels=None, buckets=None):  # noqa: N802 (Triton's name)
        """A metric of this family with `labels` (a dict of str to str);
        histograms need `buckets`, a list of increasing upper bounds."""
        return Metric(self, labels, buckets)

    def __del__(self):
        _forget(self._handle)


class Metric:
    """One metric of a family, known by its labels: increment (counters and
    gauges), set (gauges), observe (histograms), value (counters, gauges)."""

    def __init__(self, family, labels=None, buckets=None):
        self._handle = 0
        what = f"failed to create a metric of family {family._name!r}"
        if labels is None:
            labels = {}
        if not isinstance(labels, dict):
            raise pb_utils.TritonModelException(f"{what}: labels must be a dict of str to str")
        parts = [U64.pack(family._handle)]
        flags = 0
        if buckets is not None:
            if family._kind != MetricKind.HISTOGRAM:
                raise pb_utils.TritonModelException(
                    f"{what}: a {family._kind.name.lower()} takes no buckets")
            if not isinstance(buckets, (list, tuple)):
                raise pb_utils.TritonModelException(f"{what}: buckets must be a list of numbers")
            try:
                bounds = [float(b) for b in buckets]
            except (TypeError, ValueError):
                raise pb_utils.TritonModelException(
                    f"{what}: buckets must be a list of numbers") from None
            parts.append(struct.pack(f"<{len(bounds)}d", *bounds))
            flags = 1
        elif family._kind == MetricKind.HISTOGRAM:
            raise pb_utils.TritonModelException(f"{what}: a histogram needs buckets")
        else:
            parts.append(b"")
        for key, value in labels.items():
            parts.append(_text(key, what, "a label name"))
            parts.append(_text(value, what, f"label {key!r}"))
        self._family = family  # the family lives as long as its metrics
        self._kind = family._kind
        self._handle = _call(what, METRIC_NEW, flags, parts)

    def _update(self, op, value, verb, kinds):
        what = f"failed to {verb} metric of family {self._family._name!r}"
        if self._kind not in kinds:
            allowed = " or ".join(k.name.lower() for k in kinds)
            raise pb_utils.TritonModelException(
                f"{what}: a {self._kind.name.lower()} cannot {verb}, only a {allowed}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            try:
                value = float(value)
            except (TypeError, ValueError):
                raise pb_utils.TritonModelException(
                    f"{what}: the value must be a number, not {type(value).__name__}") from None
        value = float(value)
        if op == _INCREMENT and self._kind == MetricKind.COUNTER and not value >= 0:
            raise pb_utils.TritonModelException(
                f"{what}: a counter only goes up (increment by a value >= 0), not {value}")
        _stub(what).send(METRIC_UPDATE, op, self._handle, U64.unpack(_DOUBLE.pack(value))[0])

    def increment(self, value):
        self._update(_INCREMENT, value, "increment", (MetricKind.COUNTER, MetricKind.GAUGE))

    def set(self, value):  # noqa: A003 (Triton's name)
        self._update(_SET, value, "set", (MetricKind.GAUGE,))

    def observe(self, value):
        self._update(_OBSERVE, value, "observe", (MetricKind.HISTOGRAM,))

    def value(self):
        what = f"failed to get the value of a metric of family {self._family._name!r}"
        if self._kind == MetricKind.HISTOGRAM:
            raise pb_utils.TritonModelException(
                f"{what}: a histogram has no single value (its buckets, sum and count are on "
                "/metrics)")
        bits = _call(what, METRIC_VALUE, 0, None, self._handle)
        return _DOUBLE.unpack(U64.pack(bits))[0]

    def __del__(self):
        _forget(self._handle)


# ---------------------------------------------------------------------------
# Model loading (EXPLICIT model control mode)


def load_model(model_name, config="", files=None):
    """Loads (or reloads) `model_name`, optionally with `config` (the
    configuration as JSON) and `files` ({"file:<path>": bytes}, a model folder
    of its own; needs `config`). Blocks until the load ends; a failure raises
    TritonModelException."""
    what = f"failed to load model {model_name!r}"
    parts = [_text(model_name, what, "model_name"), _text(config, what, "config")]
    if files is not None:
        if not isinstance(files, dict):
            raise pb_utils.TritonModelException(
                f"{what}: files must be a dict of 'file:<path>' to bytes")
        for path, content in files.items():
            if not isinstance(path, str) or not path.startswith("file:"):
                raise pb_utils.TritonModelException(
                    f"{what}: unrecognized load parameter {path!r}: file keys are "
                    "'file:<path in the model folder>'")
            if not isinstance(content, (bytes, bytearray, memoryview)):
                raise pb_utils.TritonModelException(
                    f"{what}: the content of {path!r} must be bytes, not {type(content).__name__}")
            parts += [path[len("file:"):].encode("utf-8"), bytes(content)]
    _call(what, MODEL_LOAD, 1 if config else 0, parts)


def unload_model(model_name, unload_dependents=False):
    """Unloads `model_name` (with unload_dependents, the models an ensemble
    ran that nothing else uses). Unloading the calling model itself starts the
    unload and returns at once (it waits for this very request to end)."""
    what = f"failed to unload model {model_name!r}"
    _call(what, MODEL_UNLOAD, 1 if unload_dependents else 0, [_text(model_name, what, "model_name")])


def is_model_ready(model_name, model_version=""):
    """Whether `model_name` (at version `model_version`, a str; "" for the
    latest) is ready; an unknown model is not."""
    what = f"failed to check whether model {model_name!r} is ready"
    version = -1
    if model_version not in ("", None):
        try:
            version = int(model_version)
        except (TypeError, ValueError):
            version = -2
        if version < 0:
            raise pb_utils.TritonModelException(
                f"{what}: model_version must be an integer >= 0 as a str, not {model_version!r}")
    name = _text(model_name, what, "model_name")
    return bool(_call(what, MODEL_READY, 0, [name, struct.pack("<q", version)]))
