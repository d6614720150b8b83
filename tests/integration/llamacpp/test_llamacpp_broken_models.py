"""A GGUF that is not one, or is cut short, fails its model's load with an
error that names the file and llama.cpp's reason; the other models serve on.
A configuration naming only the backend is completed from the GGUF: the
OpenAI tensor convention, decoupled, and the chat template's built-in name."""

from __future__ import annotations

import json

import pytest

from llamacpp_util import generate_body, tiny_config, write_model


@pytest.fixture(scope="module")
def server(inferd, tiny_gguf, tmp_path_factory):
    root = tmp_path_factory.mktemp("repo")
    whole = tiny_gguf.read_bytes()
    write_model(root, "tiny", tiny_gguf, tiny_config("tiny", parallel=2, context_size=1024))
    write_model(root, "garbage", b"this is no model at all" * 100,
                tiny_config("garbage", parallel=2, context_size=1024))
    write_model(root, "truncated", whole[: len(whole) // 2],
                tiny_config("truncated", parallel=2, context_size=1024))
    write_model(root, "bad_kv", tiny_gguf,
                tiny_config("bad_kv", extra='parameters { key: "kv_cache_type" '
                                            'value: { string_value: "q2" } }\n'))
    write_model(root, "minimal", tiny_gguf,
                'backend: "llamacpp"\n'
                'parameters { key: "parallel" value: { string_value: "2" } }\n'
                'parameters { key: "context_size" value: { string_value: "1024" } }\n')
    return inferd(root, ["--exit-on-error=false"], wait_for="live")


def reason(server, model: str) -> str:
    [entry] = [e for e in server.post("/v2/repository/index").json() if e["name"] == model]
    assert entry["state"] == "UNAVAILABLE"
    return entry["reason"]


def test_garbage_is_not_a_gguf_file(server):
    assert "is not a GGUF file" in reason(server, "garbage")


def test_a_truncated_file_says_why_llama_cpp_refused_it(server):
    message = reason(server, "truncated")
    assert "llama.cpp cannot load" in message and "model.gguf" in message


def test_a_bad_parameter_is_named(server):
    assert "'kv_cache_type'" in reason(server, "bad_kv")


def test_the_good_model_serves_on(server):
    assert server.get("/v2/models/tiny/ready").status_code == 200
    resp = server.post("/v2/models/tiny/generate", data=json.dumps(generate_body("hello", 4)))
    assert resp.status_code == 200, resp.text
    assert resp.json()["num_output_tokens"] >= 1


def test_a_minimal_configuration_is_completed_from_the_gguf(server):
    config = server.get("/v2/models/minimal/config").json()
    assert config["model_transaction_policy"]["decoupled"] is True
    assert [i["name"] for i in config["input"]][:3] == [
        "text_input", "stream", "sampling_parameters"]
    assert config["parameters"]["chat_template"]["string_value"] == "chatml"
    resp = server.post("/v2/models/minimal/generate", data=json.dumps(generate_body("hello", 4)))
    assert resp.status_code == 200, resp.text
    assert resp.json()["finish_reason"] in ("length", "stop")


def test_a_prompt_the_vocabulary_cannot_tokenize_is_refused(server):
    # The tiny vocabulary has byte tokens for ASCII only: no fallback for "é".
    resp = server.post("/v2/models/tiny/generate", data=json.dumps(generate_body("é", 4)))
    assert resp.status_code == 400, resp.text
    assert "cannot tokenize the prompt" in resp.text
