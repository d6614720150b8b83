"""A model reload (EXPLICIT mode, the same model loaded again) while sequences
are active loses no request: every request gets its response or an error.

The reloaded model has a new sequence batcher, so a sequence that was live
before the reload either continues (with its sum intact) or gets a clear
error naming the model and the sequence; either way it can START again on
the new version. (Once the README says which of the two the core does, the
`continuing` check narrows to it.)
"""

import threading

import numpy as np
import pytest
from tritonclient.utils import InferenceServerException

from sequence_models import accumulate_config, http_step, records, running_sums
from util import wait_until


@pytest.fixture(scope="module")
def record_file(tmp_path_factory):
    return tmp_path_factory.mktemp("records") / "acc.txt"


@pytest.fixture(scope="module")
def server(inferd, record_file):
    return inferd({"acc": accumulate_config("acc", record_file, instances=2)},
                  extra_args=["--model-control-mode=explicit", "--load-model=acc"])


def continuing(outcome, expected_sum, sid):
    """A request of a sequence live across a reload: its right sum, or an
    error naming the model and the sequence. True when it continued."""
    if isinstance(outcome, InferenceServerException):
        message = str(outcome)
        assert "'acc'" in message and str(sid) in message, message
        return False
    assert outcome == {"OUTPUT": [expected_sum]}
    return True


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
    client.load_model("acc")
    assert client.is_model_ready("acc")
    for sid in sids:
        if continuing(attempt(client, "acc", sid, 1), sid + 2, sid):
            assert http_step(client, "acc", sid, 1, end=True) == {"OUTPUT": [sid + 3]}
        # Either way the id starts afresh on the reloaded model.
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
                continuing(outcome, expected, sid)
            else:
                assert outcome == {"OUTPUT": [expected]}, (sid, step, seen)
    # Every error is one of a sequence live across a reload: at most 8 per reload.
    assert errors <= 16, errors
