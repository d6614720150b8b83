"""The llamacpp backend generates what llama.cpp's own programs generate (its
examples/simple greedy generator; its tools/tokenize counts the prompt): the
same libraries, the same tiny GGUF, greedy sampling, several prompts. Requests
follow the OpenAI tensor convention over /generate (one response) and
/generate_stream (a response per chunk); finish reasons and token counts
come back as the convention's outputs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "http"))
from llamacpp_util import (generate_body, prompt_tokens, simple_run, tiny_config,  # noqa: E402
                           write_model)
from sse_client import Connection  # noqa: E402

PROMPTS = ["Once upon a time", "hello world", "the cat and the dog", "a", "llama model story"]
MAX_TOKENS = 24


@pytest.fixture(scope="module")
def server(inferd, tiny_gguf, tmp_path_factory):
    root = write_model(tmp_path_factory.mktemp("repo"), "tiny", tiny_gguf, tiny_config("tiny"))
    # Prompts in chunks of 8 tokens, one chunk per decode step.
    write_model(root, "chunked", tiny_gguf, tiny_config(
        "chunked", extra='parameters { key: "batch_size" value: { string_value: "8" } }\n'))
    return inferd(root)


@pytest.fixture(scope="module")
def simple_runs(tiny_gguf):
    """{prompt: (the text examples/simple generates, how many tokens)}."""
    return {p: simple_run(tiny_gguf, p, MAX_TOKENS) for p in PROMPTS}


@pytest.fixture(scope="module")
def simple(simple_runs):
    """{prompt: the text examples/simple generates}."""
    return {p: text for p, (text, _) in simple_runs.items()}


def generate(server, body, model: str = "tiny") -> dict:
    resp = server.post(f"/v2/models/{model}/generate", data=json.dumps(body))
    assert resp.status_code == 200, resp.text
    return resp.json()


@pytest.mark.parametrize("prompt", PROMPTS)
def test_greedy_text_equals_llama_cpps_simple_example(server, simple, prompt):
    answer = generate(server, generate_body(prompt, MAX_TOKENS))
    assert answer["num_output_tokens"] == MAX_TOKENS or answer["finish_reason"] == "stop"
    assert answer["text_output"].replace("\0", "") == simple[prompt]


@pytest.mark.parametrize("prompt", PROMPTS)
def test_token_counts_and_finish_reason_agree_with_llama_cpp(server, tiny_gguf, simple_runs,
                                                             prompt):
    answer = generate(server, generate_body(prompt, MAX_TOKENS))
    _, generated = simple_runs[prompt]
    assert answer["num_output_tokens"] == generated
    assert answer["num_input_tokens"] == prompt_tokens(tiny_gguf, prompt)
    assert answer["finish_reason"] == ("length" if generated == MAX_TOKENS else "stop")


def test_streamed_chunks_join_to_the_same_text(server):
    prompt = PROMPTS[0]
    with Connection(server.port) as conn:
        conn.request("/v2/models/tiny/generate_stream", generate_body(prompt, MAX_TOKENS, True))
        status, _ = conn.response_head()
        assert status == 200
        events = list(conn.events())
    assert len(events) > 1  # one event per token (or UTF-8 character)
    whole = generate(server, generate_body(prompt, MAX_TOKENS))
    assert "".join(e["text_output"] for e in events) == whole["text_output"]
    assert sum(e["num_output_tokens"] for e in events) == whole["num_output_tokens"]
    assert events[-1]["finish_reason"] in ("length", "stop")


def test_the_prompt_comes_first_unless_excluded(server, simple):
    body = generate_body(PROMPTS[1], MAX_TOKENS)
    body["exclude_input_in_output"] = False
    assert generate(server, body)["text_output"].replace("\0", "") == PROMPTS[1] + simple[PROMPTS[1]]


def test_a_stop_string_ends_the_text_before_it(server):
    text = generate(server, generate_body(PROMPTS[0], MAX_TOKENS))["text_output"]
    stop = text[len(text) // 2:len(text) // 2 + 2]
    cut = text[:text.index(stop)]
    answer = generate(server, generate_body(PROMPTS[0], MAX_TOKENS, stop=[stop]))
    assert answer["text_output"] == cut
    assert answer["finish_reason"] == "stop"


def test_seeded_sampling_repeats_and_bad_parameters_are_refused(server):
    body = generate_body(PROMPTS[2], 16, temperature=0.9, top_p=0.95, top_k=40, seed=11,
                         presence_penalty=0.5, frequency_penalty=0.2)
    assert generate(server, body)["text_output"] == generate(server, body)["text_output"]
    bad = generate_body(PROMPTS[2], 16, temperature="hot")
    resp = server.post("/v2/models/tiny/generate", data=json.dumps(bad))
    assert resp.status_code == 400
    assert "sampling_parameters" in resp.text and "temperature" in resp.text


def test_a_long_prompt_in_chunks_gives_the_same_text(server):
    prompt = " ".join(PROMPTS * 8)  # about 200 tokens: 25 chunks of 8
    whole = generate(server, generate_body(prompt, MAX_TOKENS))
    chunked = generate(server, generate_body(prompt, MAX_TOKENS), model="chunked")
    assert chunked["num_input_tokens"] == whole["num_input_tokens"] > 100
    assert chunked["text_output"] == whole["text_output"]
