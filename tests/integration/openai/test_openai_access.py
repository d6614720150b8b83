"""The OpenAI-compatible API's switches and extras: --http-restricted-api on
its routes (completions under `inference`, the model list under
`metadata`), --allow-openai=false, /v1/embeddings over a model with an
`embedding` output, and a chat template given as a pattern."""

from __future__ import annotations

import openai
import pytest
import requests

from conftest import client_for
from toy_llm import expected_text, toy_llm
from util import Model

EMBEDDER = '''
import numpy as np
import triton_python_backend_utils as pb_utils


class TritonPythonModel:
    """Embeds a text as [letters, digits, spaces, length]."""

    def execute(self, requests):
        responses = []
        for request in requests:
            text = pb_utils.get_input_tensor_by_name(request, "text_input").as_numpy()
            text = text.reshape(-1)[0].decode()
            vector = [sum(c.isalpha() for c in text), sum(c.isdigit() for c in text),
                      text.count(" "), len(text)]
            responses.append(pb_utils.InferenceResponse(output_tensors=[
                pb_utils.Tensor("embedding", np.array(vector, dtype=np.float32))]))
        return responses
'''
EMBEDDER_CONFIG = '''
name: "embedder"
backend: "python"
max_batch_size: 0
input [ { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] } ]
output [ { name: "embedding" data_type: TYPE_FP32 dims: [ 4 ] } ]
'''


@pytest.fixture(scope="module")
def restricted(inferd):
    return inferd({"toy_llm": toy_llm()},
                  extra_args=["--http-restricted-api=inference:api-key=secret"])


def test_restricted_inference_guards_completions(restricted):
    with pytest.raises(openai.PermissionDeniedError) as raised:
        client_for(restricted).completions.create(model="toy_llm", prompt="x")
    assert raised.value.status_code == 403
    allowed = client_for(restricted, default_headers={"api-key": "secret"})
    assert allowed.completions.create(model="toy_llm", prompt="x",
                                      max_tokens=1).choices[0].text == expected_text("x", 1)
    with pytest.raises(openai.PermissionDeniedError):
        client_for(restricted).chat.completions.create(
            model="toy_llm", messages=[{"role": "user", "content": "x"}])
    # The model list is metadata, which this server leaves open.
    assert [m.id for m in client_for(restricted).models.list()] == ["toy_llm"]


def test_restricted_metadata_guards_the_model_list(inferd):
    server = inferd({"toy_llm": toy_llm()},
                    extra_args=["--http-restricted-api=metadata:api-key=secret"])
    answer = requests.get(f"{server.url}/v1/models")
    assert answer.status_code == 403
    assert "error" in answer.json() and answer.json()["error"]["message"]
    assert requests.get(f"{server.url}/v1/models",
                        headers={"api-key": "secret"}).status_code == 200


def test_allow_openai_false_turns_the_routes_off(inferd):
    server = inferd({"toy_llm": toy_llm()}, extra_args=["--allow-openai=false"])
    assert requests.get(f"{server.url}/v1/models").status_code == 404
    assert requests.post(f"{server.url}/v1/completions",
                         json={"model": "toy_llm", "prompt": "x"}).status_code == 404
    assert requests.get(f"{server.url}/v2/models/toy_llm/ready").status_code == 200


@pytest.fixture(scope="module")
def extras(inferd):
    return inferd({"embedder": Model(config=EMBEDDER_CONFIG, files={"1/model.py": EMBEDDER}),
                   "plain_llm": toy_llm("plain_llm", chat_template="[{role}] {content}\\n")})


def test_embeddings(extras):
    client = client_for(extras)
    result = client.embeddings.create(model="embedder", input=["ab 12", "xyz"])
    assert [d.index for d in result.data] == [0, 1]
    assert [d.embedding for d in result.data] == [[2, 2, 1, 5], [3, 0, 0, 3]]
    assert result.usage.prompt_tokens == 3
    one = client.embeddings.create(model="embedder", input="a b", encoding_format="float")
    assert one.data[0].embedding == [2, 0, 1, 3]


def test_embeddings_of_a_model_without_the_output_is_an_error(extras):
    answer = requests.post(f"{extras.url}/v1/embeddings",
                           json={"model": "plain_llm", "input": "x"})
    assert answer.status_code == 500
    assert "embedding" in answer.json()["error"]["message"]


def test_chat_template_pattern(extras):
    chat = client_for(extras).chat.completions.create(
        model="plain_llm", messages=[{"role": "user", "content": "Hi you"}], max_tokens=2)
    prompt = "[user] Hi you\n"
    assert chat.choices[0].message.content == expected_text(prompt, 2)


def test_timeout_cancels_the_generation_and_answers_504(inferd):
    server = inferd({"slow_llm": toy_llm("slow_llm", words=100000, delay_ms=20)},
                    extra_args=["--openai-timeout-secs=1"])
    answer = requests.post(f"{server.url}/v1/completions",
                           json={"model": "slow_llm", "prompt": "x"}, timeout=60)
    assert answer.status_code == 504
    assert answer.json()["error"]["type"] == "timeout"
    # Streaming: the stream had begun, so the error is an event before [DONE].
    body = {"model": "slow_llm", "prompt": "x", "stream": True}
    with requests.post(f"{server.url}/v1/completions", json=body, stream=True,
                       timeout=60) as streamed:
        assert streamed.status_code == 200
        lines = [line for line in streamed.iter_lines(decode_unicode=True) if line]
    assert lines[-1] == "data: [DONE]"
    assert '"type":"timeout"' in lines[-2]
