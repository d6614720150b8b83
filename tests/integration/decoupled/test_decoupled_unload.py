"""A request whose FINAL never comes does not keep its model, or the server,
hostage: the repeat backend with `hold` sends its responses, then keeps the
sender without FINAL until the model finalizes. Unloading the model waits for
it no longer than the exit timeout (1 s here), then the server ends the request
with an error the client receives; the server stays live and loads the model
again.
"""

import pytest

from decoupled_util import Stream, assert_responses, repeat_config, wait_record
from util import wait_until


@pytest.fixture(scope="module")
def server(inferd, records):
    return inferd({"held": repeat_config("held", record_file=records / "held.txt")},
                  extra_args=["--model-control-mode=explicit", "--load-model=held",
                              "--exit-timeout-secs=1"])


def model_state(server, name):
    index = {e["name"]: e for e in server.post("/v2/repository/index").json()}
    return index[name].get("state")


def test_unloading_ends_a_request_that_never_got_final(server, records):
    stream = Stream(server)
    try:
        stream.send("held", [1, 2], "kept", hold=True)
        wait_record(records / "held.txt", "held kept 2")
        assert_responses(stream.wait_messages("kept", 2), [1, 2])

        resp = server.post("/v2/repository/models/held/unload")
        assert resp.status_code == 200, resp.text
        wait_until(lambda: model_state(server, "held") == "UNAVAILABLE", what="held unloaded")

        errors = wait_until(lambda: [m for m in stream.messages() if m.error is not None],
                            what="the error ending the held request")
        assert len(errors) == 1
        assert len(stream.messages()) == 3  # the two responses, then the error
    finally:
        stream.close(cancel=True)

    assert server.get("/v2/health/live").status_code == 200
    assert server.post("/v2/repository/models/held/load").status_code == 200
    again = Stream(server)
    try:
        again.send("held", [3], "again", enable_empty_final_response=True)
        assert_responses(again.wait_final("again")[:-1], [3])
    finally:
        again.close()
