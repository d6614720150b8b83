"""What the Python stub needs for asyncio: the event loop that runs a model's
coroutine `execute` (async def execute), and the queue through which a BLS
call's replies reach whoever waits for them, a thread or a coroutine.

As Triton's stub does, one event loop per stub process runs in a thread of its
own, started the first time a coroutine needs it. A model that is not
decoupled waits for its coroutine (execute's answer is its return value); a
decoupled model's coroutine runs on in the background while the next batch
starts, so that many of them wait on the loop together.
"""

import asyncio
import queue
import threading
import traceback


class CallReplies:
    """The control messages of one BLS call, put by the thread that reads the
    call channel and taken by the model: by a thread (get, blocking) or by a
    coroutine (get_async, which leaves the event loop free meanwhile). After
    close(), put refuses (the reader then frees what the message holds)."""

    __slots__ = ("_items", "_lock", "_waker", "_closed")

    def __init__(self):
        self._items = queue.SimpleQueue()
        # Orders a put against a coroutine about to wait, so that no wake-up
        # is lost. Reentrant: a ResponseIterator collected (its __del__ closes
        # these) on a thread that is inside put must not deadlock it.
        self._lock = threading.RLock()
        self._waker = None  # (loop, future) of the coroutine waiting
        self._closed = False

    def put(self, item):
        with self._lock:
            if self._closed:
                return False
            self._items.put(item)
            waker, self._waker = self._waker, None
        if waker is not None:
            loop, future = waker
            loop.call_soon_threadsafe(_wake, future)
        return True

    def get(self):
        return self._items.get()

    async def get_async(self):
        loop = asyncio.get_running_loop()
        while True:
            with self._lock:
                try:
                    return self._items.get_nowait()
                except queue.Empty:
                    future = loop.create_future()
                    self._waker = (loop, future)
            await future

    def close(self):
        """Refuses further messages; returns those not taken."""
        left = []
        with self._lock:
            self._closed = True
            while not self._items.empty():
                left.append(self._items.get_nowait())
        return left


def _wake(future):
    if not future.done():
        future.set_result(None)


class EventLoop:
    """The stub's event loop, in a daemon thread started on first use."""

    def __init__(self):
        self._loop = None
        self._lock = threading.Lock()

    def _get(self):
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=self._run, args=(loop,), name="inferd-asyncio",
                                 daemon=True).start()
                self._loop = loop
            return self._loop

    @staticmethod
    def _run(loop):
        asyncio.set_event_loop(loop)
        while True:
            try:
                loop.run_forever()
                return  # stop()
            except BaseException:  # noqa: B902 (a coroutine's SystemExit ends run_forever)
                traceback.print_exc()  # its request failed with it; the loop runs on

    def run(self, coroutine):
        """Runs `coroutine` on the loop and returns its result (or raises its
        exception) in the calling thread."""
        return asyncio.run_coroutine_threadsafe(coroutine, self._get()).result()

    def start(self, coroutine, on_error):
        """Runs `coroutine` on the loop without waiting for it; an exception it
        raises goes to on_error(exception), on the loop's thread."""
        future = asyncio.run_coroutine_threadsafe(coroutine, self._get())

        def done(future):
            if future.cancelled():
                return
            error = future.exception()
            if error is not None:
                on_error(error)

        future.add_done_callback(done)

    def stop(self):
        with self._lock:
            loop, self._loop = self._loop, None
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)
