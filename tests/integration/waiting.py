"""Waiting on observable state: the tests' one way to wait (never a sleep)."""

from __future__ import annotations

import time
from typing import Callable, TypeVar

WAIT_TIMEOUT_S = 10.0  # default bound of wait_until
POLL_INTERVAL_S = 0.01  # pause between two checks of a polled state

T = TypeVar("T")


def wait_until(predicate: Callable[[], T], timeout: float = WAIT_TIMEOUT_S,
               what: str | Callable[[], str] = "", interval: float = POLL_INTERVAL_S,
               ignore: tuple = ()) -> T:
    """Polls `predicate()` until it returns a truthy value, which is returned.

    Tests wait on state the server shows (a statistics counter, a log line, a
    file, an index entry), never on a sleep: the pause between two checks only
    spares the CPU. Fails with `what` and the last value seen when the state
    has not come within `timeout` seconds (`what` may be a function, called
    then, to describe what was seen last). Exceptions of the types in `ignore`
    count as "not yet" (the last one is reported)."""
    deadline = time.monotonic() + timeout
    last: object = None
    while True:
        try:
            value = predicate()
        except ignore as exc:  # a state that cannot be read yet
            last, value = exc, None
        else:
            last = value
        if value:
            return value
        if time.monotonic() >= deadline:
            described = what() if callable(what) else what
            raise AssertionError(f"{described or 'the awaited state'} not reached within "
                                 f"{timeout}s (last: {last!r})")
        time.sleep(interval)
