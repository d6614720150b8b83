"""The OpenAI-compatible API streaming: SSE chunks in OpenAI's format through
the official `openai` client, ending with data: [DONE]; usage in the last
chunk; a client that hangs up mid-stream cancels the generation (the model
counts it); the API's metrics on /metrics."""

from __future__ import annotations

import json

import requests
from prometheus_client.parser import text_string_to_metric_families

from conftest import client_for
from toy_llm import chatml, expected_text
from util import metrics_text, wait_until


def sample(server, name: str, **labels) -> float:
    """The value of sample `name` with `labels` on /metrics; 0 when absent."""
    for family in text_string_to_metric_families(metrics_text(server)):
        for s in family.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return s.value
    return 0.0


def test_streamed_completion_chunks_join_to_the_answer(client):
    stream = client.completions.create(model="toy_llm", prompt="Once upon", stream=True,
                                       stream_options={"include_usage": True})
    chunks = list(stream)
    text_chunks = [c for c in chunks if c.choices and c.choices[0].text]
    assert len(text_chunks) == 12  # one per token: the model streams
    assert "".join(c.choices[0].text for c in text_chunks) == expected_text("Once upon")
    finals = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert [c.choices[0].finish_reason for c in finals] == ["stop"]
    assert all(c.object == "text_completion" for c in chunks)
    usage = chunks[-1]
    assert usage.choices == []
    assert (usage.usage.prompt_tokens, usage.usage.completion_tokens) == (2, 12)
    assert all(c.usage is None for c in chunks[:-1])


def test_streamed_chat_has_role_then_deltas_then_finish(client):
    messages = [{"role": "user", "content": "Hi"}]
    stream = client.chat.completions.create(model="toy_llm", messages=messages, stream=True,
                                            max_tokens=5)
    chunks = list(stream)
    assert all(c.object == "chat.completion.chunk" for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    assert text == expected_text(chatml([("user", "Hi")]), 5)
    assert chunks[-1].choices[0].finish_reason == "length"
    assert all(c.choices[0].finish_reason is None for c in chunks[:-1])
    assert len({c.id for c in chunks}) == 1


def test_streamed_n_choices_come_in_order(client):
    stream = client.completions.create(model="toy_llm", prompt="p", n=2, seed=1, max_tokens=3,
                                       stream=True)
    texts = {0: "", 1: ""}
    finished = []
    for chunk in stream:
        choice = chunk.choices[0]
        texts[choice.index] += choice.text
        if choice.finish_reason:
            finished.append((choice.index, choice.finish_reason))
    assert texts == {0: expected_text("p", 3, 1), 1: expected_text("p", 3, 2)}
    assert finished == [(0, "length"), (1, "length")]


def test_stream_is_sse_ending_with_done(server):
    body = {"model": "toy_llm", "prompt": "x", "max_tokens": 2, "stream": True}
    with requests.post(f"{server.url}/v1/completions", json=body, stream=True,
                       timeout=30) as answer:
        assert answer.status_code == 200
        assert answer.headers["Content-Type"].startswith("text/event-stream")
        lines = [line for line in answer.iter_lines(decode_unicode=True) if line]
    assert all(line.startswith("data: ") for line in lines)
    assert lines[-1] == "data: [DONE]"
    events = [json.loads(line[len("data: "):]) for line in lines[:-1]]
    assert events[-1]["choices"][0]["finish_reason"] == "length"


def test_client_hanging_up_cancels_the_generation(server):
    client = client_for(server)
    before = sample(server, "toy_llm_cancelled_total")
    stream = client.chat.completions.create(
        model="slow_llm", messages=[{"role": "user", "content": "Go on forever"}], stream=True)
    chunks = iter(stream)
    next(chunks)
    next(chunks)
    stream.close()  # the connection closes mid-stream
    # The model saw is_cancelled() and stopped (it counts that), and the API
    # counted the request as cancelled.
    wait_until(lambda: sample(server, "toy_llm_cancelled_total") > before,
               what="the model to see the cancellation")
    wait_until(lambda: sample(server, "inferd_openai_requests_total", model="slow_llm",
                              finish_reason="cancelled") >= 1)
    # The server stays healthy and serves the next request.
    assert requests.get(f"{server.url}/v2/health/ready").status_code == 200
    completion = client.completions.create(model="toy_llm", prompt="x", max_tokens=1)
    assert completion.choices[0].text == expected_text("x", 1)


def test_metrics_count_finish_reasons_tokens_and_first_token_time(server, client):
    labels = {"model": "toy_llm"}
    length_before = sample(server, "inferd_openai_requests_total", finish_reason="length",
                           **labels)
    ttft_before = sample(server, "inferd_openai_time_to_first_token_seconds_count", **labels)
    tokens_before = sample(server, "inferd_openai_completion_tokens_total", **labels)
    client.completions.create(model="toy_llm", prompt="x", max_tokens=3, n=2)
    assert sample(server, "inferd_openai_requests_total", finish_reason="length",
                  **labels) == length_before + 2
    assert sample(server, "inferd_openai_completion_tokens_total", **labels) == tokens_before + 6
    assert sample(server, "inferd_openai_time_to_first_token_seconds_count",
                  **labels) == ttft_before + 1
    assert sample(server, "inferd_openai_output_tokens_per_second_count", **labels) >= 1
