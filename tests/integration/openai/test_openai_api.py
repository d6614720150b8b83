"""The OpenAI-compatible API without streaming, through the official `openai`
client: models.list, completions and chat completions (n, stop, max_tokens,
usage), and errors in OpenAI's shape."""

from __future__ import annotations

import openai
import pytest
import requests

from toy_llm import chatml, expected_text


def test_models_list_has_the_convention_models_only(client):
    models = client.models.list()
    names = [model.id for model in models.data]
    assert names == ["slow_llm", "toy_llm"]  # identity has no text_input
    assert all(model.object == "model" for model in models.data)
    assert client.models.retrieve("toy_llm").id == "toy_llm"
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("identity")


def test_completion_ends_by_itself_with_usage(client):
    prompt = "Once upon a time"
    completion = client.completions.create(model="toy_llm", prompt=prompt)
    assert completion.object == "text_completion"
    assert completion.model == "toy_llm"
    assert completion.id.startswith("cmpl-")
    [choice] = completion.choices
    assert choice.text == expected_text(prompt)
    assert choice.finish_reason == "stop"
    assert choice.index == 0
    # The model reports its token counts (num_input_tokens, num_output_tokens).
    assert completion.usage.prompt_tokens == 4
    assert completion.usage.completion_tokens == 12
    assert completion.usage.total_tokens == 16


def test_max_tokens_reached_is_length(client):
    completion = client.completions.create(model="toy_llm", prompt="Hi", max_tokens=3)
    [choice] = completion.choices
    assert choice.text == expected_text("Hi", 3)
    assert choice.finish_reason == "length"
    assert completion.usage.completion_tokens == 3


def test_max_completion_tokens_on_chat(client):
    chat = client.chat.completions.create(
        model="toy_llm", messages=[{"role": "user", "content": "Hi"}], max_completion_tokens=2)
    assert chat.choices[0].finish_reason == "length"
    assert chat.usage.completion_tokens == 2


def test_stop_string_ends_the_choice_before_it(client):
    prompt = "Tell me"
    words = expected_text(prompt).split()
    completion = client.completions.create(model="toy_llm", prompt=prompt, stop=[" " + words[3]])
    [choice] = completion.choices
    assert choice.text == "".join(" " + w for w in words[:3])
    assert choice.finish_reason == "stop"


def test_n_choices_differ_by_seed(client):
    completion = client.completions.create(model="toy_llm", prompt="a b", n=3, seed=5,
                                           max_tokens=4)
    assert [c.index for c in completion.choices] == [0, 1, 2]
    texts = [c.text for c in completion.choices]
    assert texts == [expected_text("a b", 4, seed) for seed in (5, 6, 7)]
    assert len(set(texts)) == 3
    assert completion.usage.prompt_tokens == 2  # the prompt counts once
    assert completion.usage.completion_tokens == 12


def test_prompt_list_and_echo(client):
    completion = client.completions.create(model="toy_llm", prompt=["x", "y z"], max_tokens=2,
                                           echo=True)
    assert [c.text for c in completion.choices] == ["x" + expected_text("x", 2),
                                                    "y z" + expected_text("y z", 2)]


def test_chat_completion_uses_the_chat_template(client):
    messages = [{"role": "system", "content": "Be brief."},
                {"role": "user", "content": [{"type": "text", "text": "Hello"},
                                             {"type": "text", "text": "there"}]}]
    chat = client.chat.completions.create(model="toy_llm", messages=messages, temperature=0.5,
                                          top_p=0.9, presence_penalty=0.1,
                                          frequency_penalty=0.1, user="tester")
    prompt = chatml([("system", "Be brief."), ("user", "Hello\nthere")])
    assert chat.object == "chat.completion"
    assert chat.id.startswith("chatcmpl-")
    [choice] = chat.choices
    assert choice.message.role == "assistant"
    assert choice.message.content == expected_text(prompt)
    assert choice.finish_reason == "stop"
    assert chat.usage.prompt_tokens == len(prompt.split())


def test_unknown_model_is_404_in_openai_shape(client, server):
    with pytest.raises(openai.NotFoundError) as raised:
        client.completions.create(model="no_such_model", prompt="x")
    assert raised.value.status_code == 404
    answer = requests.post(f"{server.url}/v1/chat/completions",
                           json={"model": "no_such_model", "messages": [{"role": "user",
                                                                         "content": "x"}]})
    assert answer.status_code == 404
    error = answer.json()["error"]
    assert error["code"] == "model_not_found"
    assert error["param"] == "model"
    assert error["type"] == "invalid_request_error"
    assert "no_such_model" in error["message"]


@pytest.mark.parametrize("field, value", [("temperature", "hot"), ("max_tokens", 1.5),
                                          ("stop", 7), ("n", "two"), ("stream", "yes")])
def test_wrong_type_is_400_naming_the_field(server, field, value):
    body = {"model": "toy_llm", "prompt": "x", field: value}
    answer = requests.post(f"{server.url}/v1/completions", json=body)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["param"] == field
    assert field in error["message"]
    assert error["type"] == "invalid_request_error"


def test_bad_field_through_the_client(client):
    with pytest.raises(openai.BadRequestError) as raised:
        client.chat.completions.create(model="toy_llm", messages=[{"role": "wizard",
                                                                   "content": "x"}])
    assert raised.value.status_code == 400
    assert raised.value.body["param"] == "messages[0].role"


def test_unknown_fields_are_ignored(server):
    body = {"model": "toy_llm", "prompt": "x", "max_tokens": 1, "frobnicate": {"a": [1]},
            "logit_bias": {"50256": -100}}
    answer = requests.post(f"{server.url}/v1/completions", json=body)
    assert answer.status_code == 200, answer.text
    assert answer.json()["choices"][0]["text"] == expected_text("x", 1)


def test_model_without_the_convention_is_400(server):
    answer = requests.post(f"{server.url}/v1/completions",
                           json={"model": "identity", "prompt": "x"})
    assert answer.status_code == 400
    assert "text_input" in answer.json()["error"]["message"]


def test_unknown_v1_path_is_404_in_openai_shape(server):
    answer = requests.get(f"{server.url}/v1/files")
    assert answer.status_code == 404
    assert answer.json()["error"]["type"] == "invalid_request_error"
    assert requests.get(f"{server.url}/v1/completions").status_code == 405


def test_malformed_json_is_400(server):
    answer = requests.post(f"{server.url}/v1/completions", data=b"{not json")
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid_json"
