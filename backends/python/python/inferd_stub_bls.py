"""Business logic scripting, the Python stub's side (a mixin of its Stub):
a request the model sends to a model the server serves goes into the ring
as a BLS request block (wire_format.h); its responses come back on the call
channel, each to the CallReplies of its call, and are read out of the
backend's blocks (freed at once, BLS_FREE)."""

import triton_python_backend_utils as pb_utils
from inferd_stub_async import CallReplies
from inferd_stub_wire import (
    BLS_FREE, BLS_HEAD, BLS_REQUEST, BLS_SINGLE_RESPONSE, FLAG_FINAL, FLAG_HAS_BLOCK, OUTPUT, RESPONSE_HEAD, U32,
    decode_array, dims_struct, encode_tensors, pad8, tensors_size, write_tensors,
)


class BlsClient:
    """Needs the Stub's region, view, send_lock, _ring_alloc, send, calls and
    call_ids."""

    def bls_call(self, request, single_response):
        """Sends `request` to the server; the call's id and the CallReplies
        its responses' messages arrive on (None: the server is gone).
        single_response: exec() without decoupled=True, which a decoupled
        model refuses."""
        name = request._model_name.encode()
        request_id = str(request._id).encode()
        parameters = request.parameters().encode()
        correlation_id = request._correlation_id  # a number, or a string
        sequence = correlation_id.encode() if isinstance(correlation_id, str) else b""
        traceparent = request._trace._traceparent.encode()
        outputs = [o.encode() for o in request._outputs]
        inputs = encode_tensors(request._inputs)
        names_size = sum(4 + len(o) for o in outputs)
        size = (BLS_HEAD.size + pad8(len(name)) + pad8(len(request_id)) + pad8(len(parameters))
                + pad8(len(sequence)) + pad8(len(traceparent)) + pad8(names_size)
                + tensors_size(inputs))
        call_id = next(self.call_ids)
        waiting = self.calls[call_id] = CallReplies()
        timeout_us = int(request._timeout or 0)
        with self.send_lock:
            offset, end = self._ring_alloc(size)
            region, view = self.region, self.view
            BLS_HEAD.pack_into(region, offset, len(name), len(inputs), len(outputs),
                               len(request_id), len(parameters), int(request._flags),
                               len(sequence), BLS_SINGLE_RESPONSE if single_response else 0,
                               int(request._model_version),
                               0 if sequence else int(correlation_id), timeout_us,
                               len(traceparent), 0)
            at = offset + BLS_HEAD.size
            for text in (name, request_id, parameters, sequence, traceparent):
                view[at:at + len(text)] = text
                at += pad8(len(text))
            start = at
            for o in outputs:
                U32.pack_into(region, at, len(o))
                view[at + 4:at + 4 + len(o)] = o
                at += 4 + len(o)
            at = start + pad8(names_size)
            write_tensors(self.region, self.view, at, inputs)
            self.send(BLS_REQUEST, 0, call_id, offset, size, end)
        return call_id, waiting

    def bls_take(self, message):
        """One message of a BLS call: (its response or None, whether it was
        the call's last)."""
        if message is None:
            raise pb_utils.TritonModelException("the server went away during a BLS call")
        flags, offset, _ = message
        response = None
        if flags & FLAG_HAS_BLOCK:
            response = self.read_response(offset)
            self.send(BLS_FREE, 0, 0, offset)
        return response, bool(flags & FLAG_FINAL)

    def bls_end(self, call_id):
        """Forgets a call; the blocks of its replies nobody read are freed."""
        waiting = self.calls.pop(call_id, None)
        for message in waiting.close() if waiting is not None else ():
            if message is not None and message[0] & FLAG_HAS_BLOCK:
                self.send(BLS_FREE, 0, 0, message[1])

    def read_response(self, at):
        """A response block the backend wrote, its tensors copied out."""
        region, view = self.region, self.view
        has_error, code, error_len, count = RESPONSE_HEAD.unpack_from(region, at)
        at += RESPONSE_HEAD.size
        if has_error:
            message = str(view[at:at + error_len], "utf-8", "replace")
            return pb_utils.InferenceResponse(error=pb_utils.TritonError(message, code))
        at += pad8(error_len)
        tensors = []
        for _ in range(count):
            name_len, dtype_code, n_dims, _, n = OUTPUT.unpack_from(region, at)
            at += OUTPUT.size
            shape = dims_struct(n_dims).unpack_from(region, at) if n_dims else ()
            at += 8 * n_dims
            name = str(view[at:at + name_len], "utf-8")
            at += pad8(name_len)
            # Copied: the block is freed (BLS_FREE) as soon as it is read.
            array = decode_array(region, view, dtype_code, shape, at, n, copy=True)
            at += pad8(n)
            tensors.append(pb_utils.Tensor(name, array, dtype_code))
        return pb_utils.InferenceResponse(tensors)
