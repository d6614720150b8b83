"""Fixtures of the decoupled-model tests: a folder for the repeat backend's
record files (decoupled_util.wait_record reads them)."""

import pytest


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    return tmp_path_factory.mktemp("records")
