"""Statistics of a decoupled model count responses by their index within
their request, as Triton's response_stats do: after known streams, GET
/v2/models/<m>/stats and gRPC ModelStatistics agree on which index saw how
many successes, errors (fail) and FINALs without a response (empty_response).
"""

import pytest

from decoupled_util import Stream, repeat_config, wait_record
from util import model_stats, record_lines, wait_until

# Per response index: (success, fail, empty_response), for
#   a: 3 responses, then FINAL alone          -> 0, 1, 2 success; 3 empty
#   b: 2 responses, the second an error and FINAL with it -> 0 success; 1 fail
#   c: nothing, FINAL alone                   -> 0 empty
EXPECTED = {"0": (2, 0, 1), "1": (1, 1, 0), "2": (1, 0, 0), "3": (0, 0, 1)}


@pytest.fixture(scope="module")
def server(inferd, records):
    return inferd({"counted": repeat_config("counted", record_file=records / "counted.txt")})


def http_counts(server):
    stats = model_stats(server, "counted").get("response_stats", {})
    return {index: (s["success"]["count"], s["fail"]["count"], s["empty_response"]["count"])
            for index, s in stats.items()}


def grpc_counts(server):
    client = server.grpc_client()
    try:
        stats = client.get_inference_statistics("counted").model_stats[0].response_stats
    finally:
        client.close()
    return {index: (s.success.count, s.fail.count, s.empty_response.count)
            for index, s in stats.items()}


def test_response_stats_count_each_index(server, records):
    stream = Stream(server)
    stream.send("counted", [1, 2, 3], "a")
    stream.send("counted", [4, 5], "b", error_at=1, final_with_last=True)
    stream.send("counted", [], "c")
    for done in ("done a 3", "done b 2", "done c 0"):
        wait_record(records / "counted.txt", done)
    stream.close()
    assert len(record_lines(records / "counted.txt")) == 3
    wait_until(lambda: http_counts(server) == EXPECTED,
               what=lambda: f"response_stats {EXPECTED} (have {http_counts(server)})")
    assert grpc_counts(server) == EXPECTED
