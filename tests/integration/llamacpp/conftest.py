"""Fixtures of the llamacpp backend's tests: the tiny GGUF model, written once
per session, and the backend built (scripts/install-llamacpp.sh builds
llama.cpp; without it the backend, and so these tests, are left out)."""

from __future__ import annotations

from pathlib import Path

import pytest

from llamacpp_util import llama_server_binary, write_tiny_gguf
from util import backend_directory


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory) -> Path:
    if not (backend_directory() / "llamacpp" / "libinferd_llamacpp.so").is_file():
        pytest.skip("the llamacpp backend is not built (run scripts/install-llamacpp.sh, "
                    "then configure again)")
    return write_tiny_gguf(tmp_path_factory.mktemp("gguf") / "tiny.gguf")


@pytest.fixture(scope="session")
def llama_server_path() -> Path:
    path = llama_server_binary()
    if not path.is_file():
        pytest.fail(f"llama-server not found at {path} (scripts/install-llamacpp.sh builds it)",
                    pytrace=False)
    return path
