"""Closed-loop client threads for bench sections that drive inferd from Python."""
import threading
import time


def run_client_threads(target, args_of, count, seconds):
    """Starts `count` threads running target(*args_of(i), start, stop, latencies, errors),
    lets them run `seconds`, then stops and joins them (each finishes what it is doing).
    Returns (latencies, elapsed seconds); raises RuntimeError naming the first error."""
    start, stop = threading.Event(), threading.Event()
    latencies, errors = [], []
    threads = [threading.Thread(target=target, args=(*args_of(i), start, stop, latencies, errors))
               for i in range(count)]
    for thread in threads:
        thread.start()
    began = time.perf_counter()
    start.set()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    if errors:
        raise RuntimeError(f"{len(errors)} client errors, first: {errors[0]}")
    return latencies, elapsed
