"""API keys on the OpenAI routes (--auth-file): the official `openai` client
sends its api_key as `Authorization: Bearer`; listing models needs the
metadata scope, completions the infer scope and a model the key's globs
allow (the model is named in the body). Refusals take OpenAI's error shape."""

import openai
import pytest

from auth_keys import KEYS


def client_for(server, key_name):
    secret = KEYS[key_name][0] if key_name in KEYS else key_name
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key=secret, max_retries=0, timeout=60)


def test_completions_need_the_infer_scope(server):
    text = client_for(server, "infer").completions.create(model="toy_llm", prompt="hi",
                                                          max_tokens=3)
    assert text.choices[0].text.strip()
    with pytest.raises(openai.PermissionDeniedError, match="does not have the 'infer' scope"):
        client_for(server, "metadata").completions.create(model="toy_llm", prompt="hi")


def test_chat_is_limited_to_the_keys_model_globs(server):
    fraud = client_for(server, "fraud")
    chat = fraud.chat.completions.create(model="fraud_llm", max_tokens=3,
                                         messages=[{"role": "user", "content": "hi"}])
    assert chat.choices[0].message.content.strip()
    with pytest.raises(openai.PermissionDeniedError, match="may not infer with model 'toy_llm'"):
        fraud.chat.completions.create(model="toy_llm",
                                      messages=[{"role": "user", "content": "hi"}])
    with pytest.raises(openai.PermissionDeniedError):
        fraud.completions.create(model="toy_llm", prompt="hi", stream=True)


def test_listing_models_needs_the_metadata_scope(server):
    names = {m.id for m in client_for(server, "metadata").models.list()}
    assert {"toy_llm", "fraud_llm"} <= names
    with pytest.raises(openai.PermissionDeniedError):
        client_for(server, "infer").models.list()


def test_an_unknown_key_is_an_authentication_error(server):
    for secret in ("wrong", KEYS["infer"][0] + "x"):
        with pytest.raises(openai.AuthenticationError) as error:
            client_for(server, secret).completions.create(model="toy_llm", prompt="hi")
        assert error.value.status_code == 401
        assert error.value.response.headers["WWW-Authenticate"] == "Bearer"
