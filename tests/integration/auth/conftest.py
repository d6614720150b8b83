"""Fixtures of the API key tests: the auth file, and a server that checks it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from auth_keys import REPO, all_keys, write_keys  # noqa: E402


@pytest.fixture(scope="module")
def auth_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("auth") / "keys.json"
    write_keys(path, all_keys())
    return path


@pytest.fixture(scope="module")
def server(inferd, auth_file):
    return inferd(REPO, extra_args=[f"--auth-file={auth_file}"])
