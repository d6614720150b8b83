"""The OpenTelemetry Collector the tests of this folder send their spans to:
one per test module (otel_collector.py)."""

import pytest

from otel_collector import Collector, collector_binary


@pytest.fixture(scope="module")
def collector(tmp_path_factory):
    running = Collector(collector_binary(), tmp_path_factory.mktemp("otelcol"))
    yield running
    running.stop()
