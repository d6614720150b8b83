"""Fixtures of the OpenAI API tests: a server with the toy_llm example (and a
model that does not follow the convention), and the official `openai` client
pointed at it."""

from __future__ import annotations

import sys
from pathlib import Path

import openai
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from openai_client import client_for  # noqa: E402
from toy_llm import toy_llm  # noqa: E402
from util import single_identity  # noqa: E402


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({"toy_llm": toy_llm(),
                   "slow_llm": toy_llm("slow_llm", words=100000, delay_ms=20),
                   "identity": single_identity("identity", "FP32", [4])})


@pytest.fixture(scope="module")
def client(server) -> openai.OpenAI:
    return client_for(server)
