"""The official `openai` client pointed at an inferd server's /v1."""

from __future__ import annotations

import openai


def client_for(server, **kwargs) -> openai.OpenAI:
    """No retries (a test sees each answer as it is) and a bound on every call."""
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key="unused", max_retries=0,
                         timeout=60, **kwargs)
