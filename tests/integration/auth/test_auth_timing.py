"""A wrong API key is refused in the same time as a near miss of a real key and
as a real key without the scope: the server hashes the presented key and
compares it with every stored hash in constant time, so the answer's timing
says nothing about how close a guess was or whether a key exists.

Statistics made for a noisy, shared machine: the three kinds of try are
interleaved in random order within each round (drift and load bursts hit
all three alike), each round yields one paired difference per pair of kinds,
and the test compares the medians of those differences (robust to the
outliers a busy box makes) against a generous bound. It catches what a
network client could measure, e.g. a slow path for known keys or a check
that stops at the first differing byte of a long key, not nanoseconds."""

import random
import statistics
import time

import requests

from auth_keys import REPO, key_entry, write_keys

ROUNDS = 300
# No pair of kinds may differ, in the median of their paired differences, by
# more than this share of the median request time (or 200 us, if larger).
RELATIVE_BOUND = 0.25
ABSOLUTE_BOUND_S = 200e-6


def test_refusal_time_does_not_depend_on_the_key(inferd, tmp_path):
    # Long keys, so that a byte-by-byte comparison would show.
    real = "k" * 4096
    path = tmp_path / "keys.json"
    write_keys(path, [key_entry("reader", real, ["metadata"])])
    server = inferd({"identity": REPO["identity"]}, extra_args=[f"--auth-file={path}"])
    kinds = {
        "wrong": lambda: "w" + "".join(random.choices("abcdefghij", k=4095)),
        "near_miss": lambda: real[:-1] + "j",
        "right_key_wrong_scope": lambda: real,
    }
    expected = {"wrong": 401, "near_miss": 401, "right_key_wrong_scope": 403}
    url = f"{server.url}/v2/models/identity/infer"
    body = b'{"inputs":[{"name":"INPUT0","datatype":"FP32","shape":[4],"data":[1,2,3,4]}]}'
    times = {kind: [] for kind in kinds}
    with requests.Session() as session:
        for _ in range(20):  # warm the connection and the server's caches
            session.post(url, data=body, headers={"Authorization": "Bearer x"}, timeout=10)
        for _ in range(ROUNDS):
            order = list(kinds)
            random.shuffle(order)
            for kind in order:
                headers = {"Authorization": "Bearer " + kinds[kind]()}
                start = time.perf_counter()
                resp = session.post(url, data=body, headers=headers, timeout=10)
                times[kind].append(time.perf_counter() - start)
                assert resp.status_code == expected[kind], (kind, resp.text)
    median = statistics.median(t for samples in times.values() for t in samples)
    bound = max(ABSOLUTE_BOUND_S, RELATIVE_BOUND * median)
    names = list(kinds)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            paired = [a - b for a, b in zip(times[first], times[second])]
            shift = statistics.median(paired)
            assert abs(shift) <= bound, (
                f"{first} vs {second}: median paired difference {shift * 1e6:.1f} us, "
                f"bound {bound * 1e6:.1f} us (median request {median * 1e6:.1f} us)")
