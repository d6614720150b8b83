"""The llamacpp backend behind the OpenAI API (docs/openai-api.md) with the
official `openai` client: a model whose configuration names only the backend
(completed from the GGUF, chat template included) answers completions and
chat completions, streamed and not, with usage counted in real tokens, the
same greedy text as /generate, and `length` at max_tokens."""

from __future__ import annotations

import json

import openai
import pytest

from llamacpp_util import generate_body, write_model

MINIMAL = ('backend: "llamacpp"\n'
           'parameters { key: "parallel" value: { string_value: "4" } }\n'
           'parameters { key: "context_size" value: { string_value: "2048" } }\n'
           'parameters { key: "threads" value: { string_value: "1" } }\n')


@pytest.fixture(scope="module")
def server(inferd, tiny_gguf, tmp_path_factory):
    return inferd(write_model(tmp_path_factory.mktemp("repo"), "tiny", tiny_gguf, MINIMAL))


@pytest.fixture(scope="module")
def client(server) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key="unused", max_retries=0,
                         timeout=60)


def test_completion_is_the_greedy_text_with_token_usage(server, client):
    answer = client.completions.create(model="tiny", prompt="hello world", max_tokens=12,
                                       temperature=0)
    direct = server.post("/v2/models/tiny/generate",
                         data=json.dumps(generate_body("hello world", 12))).json()
    assert answer.choices[0].text == direct["text_output"]
    assert answer.choices[0].finish_reason == "length"
    assert answer.usage.completion_tokens == 12
    assert answer.usage.prompt_tokens == direct["num_input_tokens"]


def test_streamed_chat_completion(client):
    chunks = list(client.chat.completions.create(
        model="tiny", messages=[{"role": "user", "content": "once upon a time"}],
        max_tokens=10, temperature=0, stream=True))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    finish = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finish == ["length"]
    whole = client.chat.completions.create(
        model="tiny", messages=[{"role": "user", "content": "once upon a time"}],
        max_tokens=10, temperature=0)
    assert whole.choices[0].message.content == text
    assert whole.usage.completion_tokens == 10
