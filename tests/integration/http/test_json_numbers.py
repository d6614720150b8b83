"""JSON numbers in inference bodies are read exactly, and no number text can take
the server down. Regression for what `make fuzz` found in RapidJSON 1.1.0's
full-precision number reading, which inferd used before: "0." followed by 400
zeros and a digit crashed the server (an out-of-bounds read), "0e270" became
4.35e186. Both over /infer and /generate, against the identity backend."""

from __future__ import annotations

import numpy as np
import pytest

from util import single_identity

DECIMALS = [
    ("0." + "0" * 400 + "1", 0.0),
    ("0." + "0" * 300 + "1", 1e-301),
    ("0e270", 0.0),
    ("40e43", 4e44),
    ("1e-400", 0.0),
    ("4.9e-324", 4.9e-324),
    ("0.1", 0.1),
    ("-0.0", -0.0),
]


@pytest.fixture(scope="module")
def server(inferd):
    return inferd({"f64": single_identity("f64", "FP64", [len(DECIMALS)])})


def test_every_decimal_is_read_exactly_and_the_server_lives(server):
    body = ('{"inputs": [{"name": "INPUT0", "datatype": "FP64", "shape": [%d], "data": [%s]}]}'
            % (len(DECIMALS), ", ".join(text for text, _ in DECIMALS)))
    resp = server.post("/v2/models/f64/infer", data=body)
    assert resp.status_code == 200, resp.text
    got = np.array(resp.json()["outputs"][0]["data"], dtype=np.float64)
    want = np.array([value for _, value in DECIMALS], dtype=np.float64)
    assert got.tolist() == want.tolist()
    assert np.signbit(got[-1])
    assert server.get("/v2/health/live").status_code == 200


def test_the_same_through_generate(server):
    body = '{"INPUT0": [%s]}' % ", ".join(text for text, _ in DECIMALS)
    resp = server.post("/v2/models/f64/generate", data=body)
    assert resp.status_code == 200, resp.text
    assert resp.json()["OUTPUT0"] == [value for _, value in DECIMALS]


def test_a_number_too_large_for_a_double_is_400_naming_it(server):
    body = '{"inputs": [{"name": "INPUT0", "datatype": "FP64", "shape": [1], "data": [1e400]}]}'
    resp = server.post("/v2/models/f64/infer", data=body)
    assert resp.status_code == 400, resp.text
    assert "Number too big" in resp.json()["error"], resp.text
    assert server.get("/v2/health/live").status_code == 200
