"""The generate extension: POST /v2/models/{m}[/versions/{v}]/generate and
/generate_stream, Triton's simple JSON endpoints over HTTP.

A request is one JSON object: keys naming model inputs are inputs as plain
JSON values (datatype and shape from the model), "parameters" and every other
key are request parameters, "id" is the request id. /generate answers one JSON
object with each output under its name (a one-element tensor as a bare value);
/generate_stream answers Server-Sent Events, one per response, over chunked
transfer encoding, and a model's error is an {"error": ...} event (the first
event too: only a request refused at admission is an HTTP error).

Covered on identity models (one response per request): numeric and BYTES
values, parameters and the id reaching the model, the versioned path, errors
before any inference as ordinary HTTP errors, keep-alive after a stream,
concurrent streams, a /generate client that leaves while its request is
queued (the request never runs). On decoupled models of the `repeat` test backend (response
k carries output 0 = [element k of input 0] and output 1 = [k]; request
parameters delay_ms, error_at, final_with_last, record_file): 0, 1 and 1000
events in order, an error event mid-stream, FINAL with or without the last
response, a client that disconnects cancelling the work in the backend (which
records it), /generate refusing a model that answers more than once, /infer
refusing a decoupled model, and the README's stream_words example.

Streams are read incrementally from a raw socket (chunk by chunk, event by
event), so a test sees events as a client does, before the stream ends.
"""

from __future__ import annotations

import json
import re
import socket
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sse_client import Connection
from util import (CONFIG_TYPE, EXAMPLES_MODELS, executions_started,
                  identity_config, pending_count, record_lines, single_identity, wait_idle,
                  wait_until)

EVENT_STREAM = "text/event-stream; charset=utf-8"
NOT_ONE_RESPONSE = ("generate expects model to produce exactly 1 response, use generate stream "
                    "for model that generates various number of responses")

ECHO = identity_config("echo", [("INPUT0", "OUTPUT0", "FP32", [2])]).replace(
    "output [\n", 'output [\n  {\n    name: "PARAMETERS"\n    data_type: TYPE_STRING\n'
    "    dims: [ -1 ]\n  },\n", 1)


def repeat_config(name: str, datatype: str, prefix: str = "") -> str:
    """A decoupled `repeat` model: input 0 of any length; response k carries
    output 0 = [element k] and output 1 = [k]."""
    names = ("text_input", "text_output", "index") if prefix == "text" else ("IN", "OUT", "INDEX")
    return f"""name: "{name}"
backend: "repeat"
max_batch_size: 0
model_transaction_policy {{ decoupled: true }}
input [ {{ name: "{names[0]}" data_type: {CONFIG_TYPE[datatype]} dims: [ -1 ] }} ]
output [
  {{ name: "{names[1]}" data_type: {CONFIG_TYPE[datatype]} dims: [ 1 ] }},
  {{ name: "{names[2]}" data_type: TYPE_INT32 dims: [ 1 ] }}
]
"""


@pytest.fixture(scope="module")
def records(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("records")


@pytest.fixture(scope="module")
def server(inferd, records):
    return inferd({
        "identity_fp32": single_identity("identity_fp32", "FP32", [16], max_batch_size=8),
        "identity_bytes": single_identity("identity_bytes", "BYTES", [-1], max_batch_size=8),
        "identity_int": single_identity("identity_int", "INT32", [-1]),
        "echo": ECHO,
        "repeat_int": repeat_config("repeat_int", "INT32"),
        "stream_words": repeat_config("stream_words", "BYTES", prefix="text"),
        "slow": single_identity("slow", "INT32", [1], extra=f"""
parameters {{ key: "record_file" value: {{ string_value: "{records / 'slow.txt'}" }} }}
"""),
    })


@pytest.fixture(autouse=True)
def server_still_live_after_each_test(server):
    yield
    assert server.get("/v2/health/live").status_code == 200


def stream(server, model: str, body, path_suffix: str = "generate_stream") -> tuple[int, dict, list]:
    """(status, headers, events) of a whole /generate_stream answer."""
    with Connection(server.port) as conn:
        conn.request(f"/v2/models/{model}/{path_suffix}", body)
        status, headers = conn.response_head()
        assert status == 200, (status, conn.body(headers))
        return status, headers, list(conn.events())


def generate(server, model: str, body):
    return server.post(f"/v2/models/{model}/generate",
                       data=body if isinstance(body, (bytes, str)) else json.dumps(body))


def assert_stream_head(headers: dict) -> None:
    assert headers["content-type"] == EVENT_STREAM
    assert headers["transfer-encoding"] == "chunked"
    assert "content-length" not in headers


def assert_json_error(status: int, headers: dict, body: bytes, want_status: int,
                      *needles: str) -> str:
    """An ordinary HTTP error: exact status, application/json {"error": ...}."""
    assert status == want_status, (status, body)
    assert headers["content-type"] == "application/json", headers
    message = json.loads(body)["error"]
    for needle in needles:
        assert needle in message, f"{message!r} does not mention {needle!r}"
    return message


def word_events(words, model="stream_words", version="1"):
    return [{"model_name": model, "model_version": version, "text_output": w, "index": k}
            for k, w in enumerate(words)]


def int_events(values):
    return [{"model_name": "repeat_int", "model_version": "1", "OUT": v, "INDEX": k}
            for k, v in enumerate(values)]


# -- one response per request: identity models ----------------------------------------


def test_generate_numeric_input_and_output(server):
    values = [i / 4 for i in range(16)]
    resp = generate(server, "identity_fp32", {"INPUT0": values})
    assert resp.status_code == 200, resp.text
    assert resp.headers["Content-Type"] == "application/json"
    # A batching model gets a batch of one; outputs come back flat, by name.
    assert resp.json() == {"model_name": "identity_fp32", "model_version": "1",
                           "OUTPUT0": values}


def test_generate_bytes_as_strings_and_one_element_as_a_bare_value(server):
    resp = generate(server, "identity_bytes", {"INPUT0": ["Hello", "", "caf\u00e9"]})
    assert resp.status_code == 200, resp.text
    assert resp.json()["OUTPUT0"] == ["Hello", "", "caf\u00e9"]
    resp = generate(server, "identity_bytes", {"INPUT0": "one"})
    assert resp.json()["OUTPUT0"] == "one"
    resp = generate(server, "identity_int", {"INPUT0": 42})
    assert resp.json() == {"model_name": "identity_int", "model_version": "1", "OUTPUT0": 42}
    resp = generate(server, "identity_int", {"INPUT0": [42]})
    assert resp.json()["OUTPUT0"] == 42  # one element either way
    resp = generate(server, "identity_int", {"INPUT0": [[1, 2], [3, 4]]})
    assert resp.json()["OUTPUT0"] == [1, 2, 3, 4]  # nested arrays are flattened


def test_generate_stream_of_a_non_decoupled_model_is_one_event(server):
    values = [float(i) for i in range(16)]
    with Connection(server.port) as conn:
        conn.request("/v2/models/identity_fp32/generate_stream", {"INPUT0": values})
        status, headers = conn.response_head()
        assert status == 200
        assert_stream_head(headers)
        events = list(conn.events())
    assert events == [{"model_name": "identity_fp32", "model_version": "1", "OUTPUT0": values}]


def test_parameters_and_id_reach_the_model(server):
    body = {"INPUT0": [1, 2], "mode": "fast", "beam": 4, "id": "req-7",
            "parameters": {"greedy": False, "temperature": 0.5}}
    resp = generate(server, "echo", body)
    assert resp.status_code == 200, resp.text
    assert resp.json() == {"model_name": "echo", "model_version": "1", "id": "req-7",
                           "OUTPUT0": [1.0, 2.0],
                           "PARAMETERS": ["mode=fast", "beam=4", "greedy=false",
                                          "temperature=0.5"]}
    _, _, events = stream(server, "echo", body)
    assert events == [resp.json()]


def test_the_versioned_path(server):
    resp = server.post("/v2/models/identity_int/versions/1/generate", json={"INPUT0": [5, 6]})
    assert resp.status_code == 200, resp.text
    assert resp.json()["OUTPUT0"] == [5, 6]
    resp = server.post("/v2/models/identity_int/versions/9/generate", json={"INPUT0": [5]})
    assert resp.status_code == 404, resp.text


@pytest.mark.parametrize("endpoint", ["generate", "generate_stream"])
@pytest.mark.parametrize("model, body, status, needles", [
    ("no_such_model", b'{"INPUT0": [1]}', 404, ["no_such_model"]),
    ("identity_fp32", b'{"INPUT0": [1, 2', 400, ["failed to parse the generate request JSON"]),
    ("identity_fp32", b'["INPUT0"]', 400, ["must be a JSON object"]),
    ("identity_fp32", b'{}', 400, ["missing input", "INPUT0"]),
    ("identity_fp32", b'{"mode": "fast"}', 400, ["missing input", "INPUT0"]),
    ("identity_int", b'{"INPUT0": ["x", 2]}', 400, ["INPUT0", "element 0", "INT32"]),
    ("identity_int", b'{"INPUT0": [2.5]}', 400, ["INPUT0", "INT32"]),
    ("identity_fp32", b'{"INPUT0": [1, 2, 3]}', 400, ["INPUT0", "3 element(s)", "[-1,16]"]),
    ("identity_int", b'{"INPUT0": [1], "options": {"a": 1}}', 400, ["'options'", "parameter"]),
    ("identity_int", b'{"INPUT0": [1], "parameters": [1]}', 400, ["'parameters'", "object"]),
    ("identity_int", b'{"INPUT0": [1], "id": 7}', 400, ["'id'", "string"]),
], ids=["unknown-model", "bad-json", "not-an-object", "no-input", "only-parameters",
        "string-for-int", "fraction-for-int", "count-does-not-fit-shape", "object-parameter",
        "parameters-not-an-object", "numeric-id"])
def test_errors_before_inference_are_ordinary_http_errors(server, endpoint, model, body, status,
                                                          needles):
    # Also for generate_stream: nothing streamed yet, so no event-stream.
    with Connection(server.port) as conn:
        got_status, headers, got_body = conn.exchange(f"/v2/models/{model}/{endpoint}", body)
        assert_json_error(got_status, headers, got_body, status, *needles)
        # The connection serves the next request.
        got_status, _, got_body = conn.exchange("/v2/models/identity_int/generate",
                                                {"INPUT0": [3]})
        assert got_status == 200 and json.loads(got_body)["OUTPUT0"] == 3


def test_generate_endpoints_answer_post_only(server):
    assert server.get("/v2/models/identity_int/generate").status_code == 405
    assert server.get("/v2/models/identity_int/generate_stream").status_code == 405


def test_keep_alive_after_a_stream(server):
    with Connection(server.port) as conn:
        for round_ in range(3):
            conn.request("/v2/models/stream_words/generate_stream",
                         {"text_input": ["a", "b", str(round_)]})
            status, headers = conn.response_head()
            assert status == 200 and "connection" not in headers
            assert list(conn.events()) == word_events(["a", "b", str(round_)])
            conn.request("/v2/models/identity_fp32/generate_stream", {"INPUT0": [1.0] * 16})
            status, headers = conn.response_head()
            assert status == 200
            assert [e["OUTPUT0"] for e in conn.events()] == [[1.0] * 16]
            status, _, body = conn.exchange("/v2/models/identity_int/generate", {"INPUT0": 9})
            assert status == 200 and json.loads(body)["OUTPUT0"] == 9
            status, _, _ = conn.exchange("/v2/health/live", b"", method="GET")
            assert status == 200


def test_an_http10_stream_ends_with_the_connection(server):
    with Connection(server.port) as conn:
        conn.request("/v2/models/stream_words/generate_stream", {"text_input": ["x", "y"]},
                     version="1.0")
        status, headers = conn.response_head()
        assert status == 200 and headers["connection"] == "close"
        assert "transfer-encoding" not in headers and "content-length" not in headers
        while conn._fill():
            pass
        events = [json.loads(e[len(b"data: "):]) for e in conn.buffer.split(b"\n\n") if e]
    assert events == word_events(["x", "y"])


def test_concurrent_streams_each_get_their_own_events_in_order(server):
    def one(i):
        words = [f"c{i}w{k}" for k in range(40)]
        _, _, events = stream(server, "stream_words", {"text_input": words, "delay_ms": 1})
        assert events == word_events(words)
        values = [float(i)] * 16
        _, _, events = stream(server, "identity_fp32", {"INPUT0": values})
        assert events == [{"model_name": "identity_fp32", "model_version": "1",
                           "OUTPUT0": values}]
        return i

    with ThreadPoolExecutor(max_workers=12) as pool:
        assert sorted(pool.map(one, range(24))) == list(range(24))


# -- decoupled models: any number of responses per request ------------------------------


@pytest.mark.parametrize("count", [0, 1, 1000])
@pytest.mark.parametrize("final_with_last", [False, True])
def test_n_events_in_order(server, count, final_with_last):
    values = [(k * 7919) % 100003 - 50000 for k in range(count)]
    with Connection(server.port) as conn:
        conn.request("/v2/models/repeat_int/generate_stream",
                     {"IN": values, "final_with_last": final_with_last})
        status, headers = conn.response_head()
        assert status == 200
        assert_stream_head(headers)
        assert list(conn.events()) == int_events(values)
        # The stream ended cleanly: the connection carries the next request.
        status, _, body = conn.exchange("/v2/models/identity_int/generate", {"INPUT0": 1})
        assert status == 200, body


def test_an_error_mid_stream_is_an_event_and_the_stream_goes_on(server):
    words = ["zero", "one", "two", "three", "four"]
    _, headers, events = stream(server, "stream_words", {"text_input": words, "error_at": 2})
    assert_stream_head(headers)
    assert len(events) == 5
    assert events[:2] == word_events(words)[:2] and events[3:] == word_events(words)[3:]
    assert set(events[2]) == {"error"}, events[2]
    assert isinstance(events[2]["error"], str) and events[2]["error"].strip()


@pytest.mark.parametrize("words", [["only"], ["zero", "one", "two"]], ids=["only", "first"])
def test_a_model_error_before_any_event_is_an_event_too(server, words):
    # The request was admitted, so its answer is a 200 event stream, as
    # Triton's: an SSE client reads the model's error as an event.
    _, headers, events = stream(server, "stream_words", {"text_input": words, "error_at": 0})
    assert_stream_head(headers)
    assert len(events) == len(words)
    assert set(events[0]) == {"error"}, events[0]
    assert "error_at" in events[0]["error"], events[0]
    assert events[1:] == word_events(words)[1:]


@pytest.mark.parametrize("abortive", [False, True], ids=["fin", "rst"])
def test_a_client_leaving_a_stream_cancels_its_request(server, records, abortive):
    request_id = f"leaver-{'rst' if abortive else 'fin'}"
    record = records / f"{request_id}.txt"
    words = [f"w{k}" for k in range(1000)]
    conn = Connection(server.port)
    conn.request("/v2/models/stream_words/generate_stream",
                 {"text_input": words, "delay_ms": 20, "id": request_id,
                  "record_file": str(record)})
    status, _ = conn.response_head()
    assert status == 200
    events = conn.events()
    assert next(events)["index"] == 0 and next(events)["index"] == 1  # it is streaming
    if abortive:
        conn.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\0\0\0\0\0\0\0")
    conn.close()
    lines = wait_until(lambda: record_lines(record), what="the backend recording the request's end")
    match = re.fullmatch(rf"cancelled {request_id} after (\d+) responses?", lines[0])
    assert match, lines
    assert 2 <= int(match.group(1)) < 1000, lines


def test_a_client_leaving_generate_cancels_its_queued_request(server, records):
    # The single instance of `slow` is busy with a blocker; a /generate request
    # queues behind it and its client leaves: it leaves the queue and never runs.
    record = records / "slow.txt"
    before = executions_started(server, "slow")
    with ThreadPoolExecutor(max_workers=1) as pool:
        blocker = pool.submit(generate, server, "slow",
                              {"INPUT0": [1], "id": "blocker", "execute_delay_ms": 4000})
        wait_until(lambda: executions_started(server, "slow") > before,
                   what="the blocker executing")
        queued = pending_count(server, "slow")
        conn = Connection(server.port)
        conn.request("/v2/models/slow/generate", {"INPUT0": [2], "id": "gone"})
        wait_until(lambda: pending_count(server, "slow") == queued + 1, what="the request queued")
        conn.close()
        wait_until(lambda: pending_count(server, "slow") == queued,
                   what="the request leaving the queue")
        assert blocker.result().status_code == 200
    after = generate(server, "slow", {"INPUT0": [3], "id": "after"})
    assert after.status_code == 200, after.text
    wait_idle(server, "slow", record)
    ran = [line.split()[-1] for line in record_lines(record)]
    assert ran[-2:] == ["blocker", "after"] and "gone" not in ran, ran


def test_generate_refuses_a_model_that_answers_more_than_once(server):
    resp = generate(server, "stream_words", {"text_input": ["a", "b", "c"]})
    assert resp.status_code == 501, resp.text
    assert resp.json() == {"error": NOT_ONE_RESPONSE}
    resp = generate(server, "stream_words", {"text_input": []})  # no response at all
    assert resp.status_code == 501 and resp.json() == {"error": NOT_ONE_RESPONSE}
    # Exactly one response is a good answer, FINAL with it or after it.
    for final_with_last in (False, True):
        resp = generate(server, "stream_words",
                        {"text_input": ["only"], "final_with_last": final_with_last})
        assert resp.status_code == 200, resp.text
        assert resp.json() == word_events(["only"])[0]


def test_generate_stops_a_model_that_answers_more_than_once(server, records):
    # The second response settles the answer: the request is cancelled then,
    # not streamed to its end.
    record = records / "too-many.txt"
    resp = generate(server, "stream_words",
                    {"text_input": [f"w{k}" for k in range(1000)], "delay_ms": 5,
                     "id": "too-many", "record_file": str(record)})
    assert resp.status_code == 501 and resp.json() == {"error": NOT_ONE_RESPONSE}
    lines = wait_until(lambda: record_lines(record), what="the backend recording the request's end")
    match = re.fullmatch(r"cancelled too-many after (\d+) responses?", lines[0])
    assert match and int(match.group(1)) < 1000, lines


def test_infer_refuses_a_decoupled_model(server):
    body = {"inputs": [{"name": "text_input", "datatype": "BYTES", "shape": [1], "data": ["x"]}]}
    resp = server.post("/v2/models/stream_words/infer", json=body)
    assert resp.status_code == 501, resp.text
    message = resp.json()["error"]
    assert "decoupled" in message and "generate_stream" in message, message


# -- the README's example ------------------------------------------------------------


def test_readme_stream_words_example(inferd):
    examples = inferd(EXAMPLES_MODELS, extra_args=[
        "--model-control-mode=explicit", "--load-model=stream_words",
        "--load-model=identity_fp32"])
    with Connection(examples.port) as conn:
        conn.request("/v2/models/stream_words/generate_stream",
                     {"text_input": ["Hello", "from", "a", "stream"]})
        status, headers = conn.response_head()
        assert status == 200
        assert_stream_head(headers)
        assert list(conn.events()) == word_events(["Hello", "from", "a", "stream"])
        values = [i / 2 for i in range(16)]
        status, _, body = conn.exchange("/v2/models/identity_fp32/generate", {"INPUT0": values})
        assert status == 200
        assert json.loads(body) == {"model_name": "identity_fp32", "model_version": "1",
                                    "OUTPUT0": values}
