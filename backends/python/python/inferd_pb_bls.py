"""The parts of triton_python_backend_utils that business logic scripting
(a model's own requests to other models) adds, re-exported there: the
iterator of a call's responses, the preferred memory of its outputs, its
trace, and the checks of InferenceRequest's arguments. Written for inferd
from Triton's Python-backend documentation."""

# Triton's values (pb_utils.MemoryType). GPU is accepted; inferd's BLS outputs
# are always in CPU memory.
TRITONSERVER_MEMORY_GPU = 0
TRITONSERVER_MEMORY_CPU = 1


class PreferredMemory:
    """Where a BLS call's outputs should be placed. inferd has CPU memory
    only: every output lands there, whatever is preferred."""

    __slots__ = ("preferred_memory_type", "preferred_device_id")

    def __init__(self, preferred_memory_type, preferred_device_id=0):
        if preferred_memory_type not in (TRITONSERVER_MEMORY_CPU, TRITONSERVER_MEMORY_GPU):
            raise ValueError("preferred_memory_type must be TRITONSERVER_MEMORY_CPU or "
                             f"TRITONSERVER_MEMORY_GPU, not {preferred_memory_type!r}")
        self.preferred_memory_type = preferred_memory_type
        self.preferred_device_id = int(preferred_device_id)


class InferenceTrace:
    """A request's trace (request.trace()). Passed as InferenceRequest(trace=...)
    it makes a BLS call's spans children of the request's (opentelemetry
    trace mode). get_context() is the request's OpenTelemetry context as
    Triton gives it, a JSON object with its W3C traceparent, or None when
    the request is not traced."""

    __slots__ = ("_traceparent",)

    def __init__(self, traceparent=""):
        self._traceparent = traceparent

    def get_context(self):
        if not self._traceparent:
            return None
        return '{"traceparent": "%s"}' % self._traceparent


def check_correlation_id(correlation_id):
    """Triton's rule: an unsigned 64-bit integer or a string."""
    if isinstance(correlation_id, str):
        return correlation_id
    if isinstance(correlation_id, int) and not isinstance(correlation_id, bool) \
            and 0 <= correlation_id < 1 << 64:
        return correlation_id
    raise ValueError(f"correlation_id must be an unsigned 64-bit integer or a string, "
                     f"not {correlation_id!r}")


def check_parameters(parameters):
    """Triton's rule for InferenceRequest(parameters=...): str keys, bool,
    int or str values."""
    for key, value in parameters.items():
        if not isinstance(key, str):
            raise ValueError(f"parameters keys must be str, found {type(key).__name__}")
        if not isinstance(value, (bool, int, str)):
            raise ValueError(f"parameter '{key}' must be a bool, an int or a str, found "
                             f"{type(value).__name__}")


class ResponseIterator:
    """The responses of one BLS call as they come, until its final one
    (exec(decoupled=True), await async_exec(decoupled=True)): iterate with
    `for` (each step waits, as in Triton) or, inside a coroutine, with
    `async for` (the event loop runs on while it waits). A decoupled model
    that ends its stream with a flag alone gives an empty last response, as
    Triton does. Once finished, iterating again starts from the first."""

    def __init__(self, stub, call_id, replies, empty_response):
        self._stub = stub
        self._call_id = call_id
        self._replies = replies
        self._empty = empty_response  # makes the empty last response
        self._responses = []
        self._first = None  # the first response with a body (exec's answer)
        self._index = 0
        self._finished = False

    def __iter__(self):
        if self._finished and self._index >= len(self._responses):
            self._index = 0
        return self

    def __next__(self):
        while self._index >= len(self._responses) and not self._finished:
            self._take(self._replies.get())
        return self._advance(StopIteration)

    def __aiter__(self):
        return self

    async def __anext__(self):
        while self._index >= len(self._responses) and not self._finished:
            self._take(await self._replies.get_async())
        return self._advance(StopAsyncIteration)

    def _advance(self, stop):
        if self._index >= len(self._responses):
            raise stop
        self._index += 1
        return self._responses[self._index - 1]

    def _take(self, message):
        try:
            response, final = self._stub.bls_take(message)
        except BaseException:
            self._finish()
            raise
        if response is not None and self._first is None:
            self._first = response
        if response is None and final:
            response = self._empty()
        if response is not None:
            self._responses.append(response)
        if final:
            self._finish()

    def _finish(self):
        self._finished = True
        self._stub.bls_end(self._call_id)

    async def started_async(self):
        """Itself, once its first response came (or the call ended): what
        async_exec(decoupled=True) resolves to, as in Triton."""
        while not self._responses and not self._finished:
            self._take(await self._replies.get_async())
        return self

    # The single response of exec() and async_exec() (decoupled=False): the
    # first one with a body, once the call ended; None when it had none.

    def first(self):
        while not self._finished:
            self._take(self._replies.get())
        return self._first

    async def first_async(self):
        while not self._finished:
            self._take(await self._replies.get_async())
        return self._first

    def __del__(self):
        if not self._finished:
            self._finish()  # its later replies are freed as they come
