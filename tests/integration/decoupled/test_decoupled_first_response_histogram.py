"""--metrics-config histogram_latencies=true: a decoupled model's metrics
carry Triton's nv_inference_first_response_histogram_ms, one observation per
request that sent a response (a request answered by a FINAL alone sends none);
a non-decoupled model has none, and without the setting no model has it."""

import re

import pytest
from prometheus_client.parser import text_string_to_metric_families

from decoupled_util import Stream, repeat_config
from util import metrics_text, single_identity, wait_until

NAME = "nv_inference_first_response_histogram_ms"


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({"rep": repeat_config("rep"), "plain": single_identity("plain", "FP32", [4])},
                  extra_args=["--metrics-config=histogram_latencies=true"])


def count(text: str, model: str) -> float | None:
    found = re.search(rf'^{NAME}_count{{model="{model}",version="1"}} (\S+)$', text, re.M)
    return float(found.group(1)) if found else None


def test_first_responses_are_counted_per_request(server):
    stream = Stream(server)
    stream.send("rep", [1, 2, 3], "a", enable_empty_final_response=True)
    stream.send("rep", [4], "b", enable_empty_final_response=True)
    # FINAL alone: no response, not observed.
    stream.send("rep", [], "c", enable_empty_final_response=True)
    for request in ("a", "b", "c"):
        stream.wait_final(request)
    stream.close()
    wait_until(lambda: count(metrics_text(server), "rep") == 2,
               what=lambda: metrics_text(server))
    text = metrics_text(server)
    families = {f.name: f for f in text_string_to_metric_families(text)}
    assert families[NAME].type == "histogram"
    buckets = {s.labels["le"]: s.value for s in families[NAME].samples
               if s.name == NAME + "_bucket" and s.labels["model"] == "rep"}
    assert list(buckets) == ["100", "500", "2000", "5000", "+Inf"], buckets  # Triton's bounds
    assert buckets["+Inf"] == 2
    assert list(buckets.values()) == sorted(buckets.values())  # cumulative
    assert count(text, "plain") is None  # not decoupled: no histogram


def test_without_the_setting_there_is_no_histogram(inferd):
    plain_server = inferd({"rep": repeat_config("rep")})
    stream = Stream(plain_server)
    stream.send("rep", [1], "a", enable_empty_final_response=True)
    stream.wait_final("a")
    stream.close()
    assert NAME not in metrics_text(plain_server)
