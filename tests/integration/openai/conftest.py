"""Fixtures of the OpenAI API tests: a server with the toy_llm example (and a
model that does not follow the convention), and the official `openai` client
pointed at it."""

from __future__ import annotations

import sys
from pathlib import Path

import openai
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from toy_llm import toy_llm  # noqa: E402
from util import single_identity  # noqa: E402


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({"toy_llm": toy_llm(),
                   "slow_llm": toy_llm("slow_llm", words=100000, delay_ms=20),
                   "identity": single_identity("identity", "FP32", [4])})


def client_for(server, **kwargs) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key="unused", max_retries=0,
                         timeout=60, **kwargs)


@pytest.fixture(scope="module")
def client(server) -> openai.OpenAI:
    return client_for(server)
