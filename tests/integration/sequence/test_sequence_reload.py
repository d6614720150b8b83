"""A model reload (EXPLICIT mode, the same model loaded again) while sequences
are active loses no request: every request gets its response or an error.

As docs/scheduling.md says: requests already queued finish on the version that took
them, and live sequences do not move to the new version: their next request
is refused with an error naming the model and the sequence, and the client
starts them again. So after a reload has returned, a continuing request is
refused; while requests run during a reload, each sequence sees its right
sums up to the switch and then at most that one error.
"""

import threading

import numpy as np
import pytest
from tritonclient.utils import InferenceServerException

from sequence_models import accumulate_config, http_step, records, running_sums
from util import touch, wait_until


@pytest.fixture(scope="module")
def record_file(tmp_path_factory):
    return tmp_path_factory.mktemp("records") / "acc.txt"


@pytest.fixture(scope="module")
def server(inferd, record_file):
    return inferd({"acc": accumulate_config("acc", record_file, instances=2)},
                  extra_args=["--model-control-mode=explicit", "--load-model=acc"])


def refused(outcome, sid):
    """The error a sequence live across a reload gets: it names the model
    and the sequence, and says it must start again."""
    assert isinstance(outcome, InferenceServerException), outcome
    message = str(outcome)
    assert "'acc'" in message and str(sid) in message and "sequence_start" in message, message


def attempt(client, *args, **kwargs):
    try:
        return http_step(client, *args, **kwargs)
    except InferenceServerException as error:
        return error


def test_sequences_live_across_a_reload(server):
    client = server.client()
    sids = [101, 102, 103, 104]
    for sid in sids:
        assert http_step(client, "acc", sid, sid, start=True) == {"OUTPUT": [sid]}
        assert http_step(client, "acc", sid, 1) == {"OUTPUT": [sid + 1]}
    touch(server.repositories[0] / "acc" / "config.pbtxt")  # else the load changes nothing
    client.load_model("acc")
    assert client.is_model_ready("acc")
    for sid in sids:
        refused(attempt(client, "acc", sid, 1), sid)
        refused(attempt(client, "acc", sid, 1, end=True), sid)
        # The id starts afresh on the reloaded model.
        assert http_step(client, "acc", sid, 5, start=True) == {"OUTPUT": [5]}
        assert http_step(client, "acc", sid, 5, end=True) == {"OUTPUT": [10]}


def test_no_request_lost_while_reloading_under_load(server, record_file):
    stop = threading.Event()
    outcomes = {}  # sid -> [(expected sum, outcome)]
    problems = []

    def worker(first_sid):
        client = server.client()
        rng = np.random.default_rng(first_sid)  # a Generator per thread
        sid = first_sid
        try:
            while not stop.is_set() or sid == first_sid:
                values = rng.integers(1, 20, size=10).tolist()
                sums = running_sums(values)
                seen = outcomes.setdefault(sid, [])
                for step, value in enumerate(values):
                    outcome = attempt(client, "acc", sid, value, start=step == 0,
                                      end=step == len(values) - 1)
                    seen.append((sums[step], outcome))
                    if isinstance(outcome, InferenceServerException):
                        break  # the sequence is over for the server; start the next
                sid += 1
        except Exception as exc:  # noqa: BLE001 - anything else is a lost request
            problems.append(repr(exc))
        finally:
            client.close()

    threads = [threading.Thread(target=worker, args=(1000 * (t + 1),)) for t in range(8)]
    for thread in threads:
        thread.start()
    try:
        # Reload twice while the sequences run.
        for _ in range(2):
            before = len(records(record_file))
            wait_until(lambda: len(records(record_file)) >= before + 40,
                       what="sequences running before the reload")
            touch(server.repositories[0] / "acc" / "config.pbtxt")
            server.client().load_model("acc")
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a request was never answered"
    assert not problems, problems
    errors = 0
    for sid, seen in outcomes.items():
        for step, (expected, outcome) in enumerate(seen):
            if isinstance(outcome, InferenceServerException):
                errors += 1
                # A START is never refused; a refused step names the sequence.
                assert step > 0, (sid, outcome)
                assert step == len(seen) - 1
                refused(outcome, sid)
            else:
                assert outcome == {"OUTPUT": [expected]}, (sid, step, seen)
    # Every error is that of a sequence live across a reload: at most 8 per reload.
    assert errors <= 16, errors
