"""The example repository (examples/models, what `make run` serves) through the
OpenAI API: toy_llm answers chat and completions, and stream_words — a
decoupled model of the repeat backend that was not written for the API but
takes text_input and answers text_output — streams through it too."""

from __future__ import annotations

import pytest

from conftest import client_for
from toy_llm import chatml, expected_text
from util import EXAMPLES_MODELS


@pytest.fixture(scope="module")
def client(inferd):
    return client_for(inferd(EXAMPLES_MODELS))


def test_models_list_names_the_convention_models(client):
    assert [m.id for m in client.models.list()] == ["stream_words", "toy_llm"]


def test_toy_llm_chat(client):
    chat = client.chat.completions.create(
        model="toy_llm", messages=[{"role": "user", "content": "Hello"}], max_tokens=4)
    assert chat.choices[0].message.content == expected_text(chatml([("user", "Hello")]), 4)
    assert chat.choices[0].finish_reason == "length"


def test_stream_words_streams_through_the_api(client):
    # The repeat backend answers each element of text_input, i.e. the prompt once.
    chunks = list(client.completions.create(model="stream_words", prompt="two words",
                                            stream=True))
    assert "".join(c.choices[0].text for c in chunks) == "two words"
    assert chunks[-1].choices[0].finish_reason == "stop"
