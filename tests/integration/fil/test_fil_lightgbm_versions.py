"""LightGBM text models from today's LightGBM (4.7.0) and from 3.3.5 (format
v3), written by lightgbm_models/make_lightgbm_models.py and committed there
with that LightGBM's own predictions, are served as it predicts them
(binary with predict_proba, multiclass with predict_proba, regression,
poisson) over HTTP and gRPC, though the backend's lib_lightgbm.so is .venv's
pinned LightGBM. A model declaring a newer format than v4 (which LightGBM
itself would load without a word) is refused at load naming its version.
"""

import json
from pathlib import Path

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from tree_models import CLASSES, TreeModel, fil_config, fil_repository

FOLDER = Path(__file__).with_name("lightgbm_models")
VERSIONS = ("4.7.0", "3.3.5")
CONFIG = {  # kind -> fil_config keywords, and FIL's output from LightGBM's prediction
    "binary": (dict(output_dims=2, output_class=True, predict_proba=True),
               lambda p: np.column_stack([1 - p, p])),
    "multiclass": (dict(output_dims=CLASSES, output_class=True, predict_proba=True),
                   lambda p: p),
    "regression": (dict(), lambda p: p[:, None]),
    "poisson": (dict(), lambda p: p[:, None]),
}
CASES = {f"lgbm{version.replace('.', '')}_{kind}": (version, kind)
         for version in VERSIONS for kind in CONFIG}


def expected(version):
    return json.loads((FOLDER / f"lightgbm-{version}" / "expected.json").read_text())


def model_text(version, kind) -> bytes:
    return (FOLDER / f"lightgbm-{version}" / f"{kind}.txt").read_bytes()


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    models = {name: TreeModel(model_text(version, kind),
                              fil_config(name, "lightgbm", input_dims=6, **CONFIG[kind][0]),
                              "model.txt")
              for name, (version, kind) in CASES.items()}
    newer = model_text("4.7.0", "regression").replace(b"\nversion=v4\n", b"\nversion=v5\n", 1)
    assert b"version=v5" in newer
    models["format_v5"] = TreeModel(newer, fil_config("format_v5", "lightgbm", input_dims=6),
                                    "model.txt")
    return inferd(fil_repository(tmp_path_factory.mktemp("repo"), models), wait_for="live",
                  extra_args=["--exit-on-error=false"])


def test_the_committed_models_are_from_the_versions_they_say():
    for version in VERSIONS:
        assert expected(version)["lightgbm"] == version
    assert b"\nversion=v4\n" in model_text("4.7.0", "binary")
    assert b"\nversion=v3\n" in model_text("3.3.5", "binary")


@pytest.mark.parametrize("protocol", ["http", "grpc"])
@pytest.mark.parametrize("model", list(CASES))
def test_predictions_equal_the_writing_lightgbms_own(server, model, protocol):
    version, kind = CASES[model]
    saved = expected(version)
    x = np.array(saved["rows"], dtype=np.float32)
    module = httpclient if protocol == "http" else grpcclient
    client = server.client() if protocol == "http" else server.grpc_client()
    inp = module.InferInput("input__0", list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    actual = client.infer(model, [inp]).as_numpy("output__0")
    want = CONFIG[kind][1](np.array(saved["predictions"][kind])).astype(np.float32)
    assert actual.shape == want.shape, (actual.shape, want.shape)
    np.testing.assert_allclose(actual, want, rtol=1e-5, atol=1e-6)


def test_a_newer_format_is_refused_naming_its_version(server):
    entry = {e["name"]: e for e in server.post("/v2/repository/index").json()}["format_v5"]
    assert entry["state"] == "UNAVAILABLE"
    for needle in ("format_v5", "LightGBM cannot load", "model.txt",
                   "a LightGBM model of format v5, newer than the v4"):
        assert needle in entry["reason"], f"{needle!r} not in {entry['reason']!r}"
