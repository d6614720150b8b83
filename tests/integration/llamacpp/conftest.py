"""Fixtures of the llamacpp backend's tests: the tiny GGUF model, written once
per session, and the backend built (scripts/install-llamacpp.sh installs
llama.cpp's libraries at install, and its reference programs at the first test
that needs them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from llamacpp_util import write_tiny_gguf
from util import backend_directory


@pytest.fixture(scope="session")
def tiny_gguf(tmp_path_factory) -> Path:
    if not (backend_directory() / "llamacpp" / "libinferd_llamacpp.so").is_file():
        # A fail, not a skip: `make test` builds it, and a skip would pass in silence.
        pytest.fail("the llamacpp backend is not built (scripts/install-llamacpp.sh builds "
                    "llama.cpp; then configure again)", pytrace=False)
    return write_tiny_gguf(tmp_path_factory.mktemp("gguf") / "tiny.gguf")
