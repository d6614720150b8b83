"""XGBoost models from 1.7 through today's 3.x predict as the XGBoost that
wrote them, and what cannot be read right is refused naming its version.

Each kind the fil backend serves (binary:logistic with predict_proba,
multi:softprob with predict_proba, multi:softmax class ids,
reg:squarederror) is written by Debian's XGBoost 1.7 (legacy binary, JSON,
UBJSON; xgboost17.py) and by .venv's XGBoost 3.x (JSON, UBJSON, and UBJSON
under FIL's default name xgboost.model, which is what 3.x writes there), and
answers 29 rows over HTTP and gRPC with that XGBoost's own predictions; so
do 3.x's count:poisson, reg:absoluteerror, binary:logitraw and a
multi:softprob model of vector-leaf trees (multi_strategy
"multi_output_tree", which 1.7 has not).
XGBoost 3.x writes base_score as "[7.455191E-1]", which XGBoost 1.7 misread:
every prediction was off by a constant.

Refused at load, the model UNAVAILABLE with a one-line reason naming the
file's version and the library's: JSON and UBJSON from a newer XGBoost than
the backend's bundled one, JSON without its version record, and a legacy
binary model claiming XGBoost 3.1 (which writes none). Without the bundled
XGBoost (a backend folder without it), models from 1.7 still serve and a
model from 3.x is refused saying why.
"""

import json
import struct

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
import xgboost

from tree_models import (CLASSES, TreeModel, _labels, features, fil_config, fil_repository,
                         predict, train_xgboost, xgboost_bytes)
from util import backend_directory
from xgboost17 import KINDS, xgboost17_models

X = features(29, seed=13)
TODAY = {kind: train_xgboost(kind) for kind in KINDS}
CONFIG = {  # kind -> fil_config keywords, and FIL's output from the library's prediction
    "binary": (dict(output_dims=2, output_class=True, predict_proba=True),
               lambda p: np.column_stack([1 - p, p])),
    "multiclass": (dict(output_dims=CLASSES, output_class=True, predict_proba=True),
                   lambda p: p),
    "softmax": (dict(output_class=True), lambda p: p[:, None]),
    "regression": (dict(output_class=False), lambda p: p[:, None]),
}
MODEL_TYPES = {"model": "xgboost", "json": "xgboost_json", "ubj": "xgboost_ubj"}
FILENAMES = {"model": "xgboost.model", "json": "xgboost.json", "ubj": "xgboost.ubj"}
# model name -> (writer, kind, file suffix)
CASES = {f"xgb{writer}_{kind}_{suffix}": (writer, kind, suffix)
         for writer, suffixes in (("17", ("model", "json", "ubj")), ("3", ("model", "json", "ubj")))
         for kind in KINDS for suffix in suffixes}


def train_today(params: dict, label_kind: str, transform=lambda y: y) -> xgboost.Booster:
    x = features(400, seed=2)
    labels = transform(_labels(x, label_kind))
    return xgboost.train({"max_depth": 3, "nthread": 1, "seed": 2, **params},
                         xgboost.DMatrix(x, label=labels), num_boost_round=10)


# Objectives whose intercept today's XGBoost estimates in other ways, and its
# vector-leaf trees (multi_strategy), which XGBoost 1.7 has not: JSON files.
MORE_TODAY = {
    "poisson": (train_today({"objective": "count:poisson"}, "regression", np.exp), "regression"),
    "absoluteerror": (train_today({"objective": "reg:absoluteerror"}, "regression"),
                      "regression"),
    "logitraw": (train_today({"objective": "binary:logitraw"}, "binary"), "regression"),
    "vector_leaf": (train_today({"objective": "multi:softprob", "num_class": CLASSES,
                                 "multi_strategy": "multi_output_tree", "tree_method": "hist"},
                                "multiclass"), "multiclass"),
}


def bundled_version() -> str:
    """The bundled XGBoost's version: .venv's, as requirements-test.txt pins both alike."""
    return xgboost.__version__


def with_json_version(model: bytes, version) -> bytes:
    document = json.loads(model)
    if version is None:
        del document["version"]
    else:
        document["version"] = version
    return json.dumps(document).encode()


def with_ubj_version(model: bytes, major: int) -> bytes:
    # XGBoost writes "version" last: [#L<3> i<major> i<minor> i<patch>] then the closing '}'.
    tail = model[-7:]
    assert tail[0:1] == b"i" and tail[2:3] == b"i" and tail[-1:] == b"}", tail
    return model[:-6] + bytes([major]) + model[-5:]


def with_legacy_version(model: bytes, major: int, minor: int) -> bytes:
    assert model[:4] == b"binf"
    return model[:24] + struct.pack("<II", major, minor) + model[32:]


@pytest.fixture(scope="module")
def old(tmp_path_factory):
    return xgboost17_models(tmp_path_factory.mktemp("xgboost17"), X)


def model_file(old, writer, kind, suffix) -> bytes:
    if writer == "17":
        return old.files[(kind, suffix)]
    return xgboost_bytes(TODAY[kind], FILENAMES[suffix])


def refused_models(old):
    json3 = xgboost_bytes(TODAY["binary"], "xgboost.json")
    proba = CONFIG["binary"][0]
    return {  # name -> (file bytes, suffix, words the reason must hold)
        "json_too_new": (with_json_version(json3, [3, 99, 1]), "json",
                         ["written by XGBoost 3.99.1", f"XGBoost {bundled_version()}"]),
        "ubj_too_new": (with_ubj_version(xgboost_bytes(TODAY["binary"], "xgboost.ubj"), 9),
                        "ubj", ["a UBJSON model written by XGBoost 9.", "newer than"]),
        "json_without_version": (with_json_version(json3, None), "json",
                                 ['without its "version": [major, minor, patch] record']),
        "legacy_from_3_1": (with_legacy_version(old.files[("binary", "model")], 3, 1), "model",
                            ["legacy binary model written by XGBoost 3.1.0",
                             "no XGBoost after 3.0"]),
    }, proba


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory, old):
    models = {}
    for name, (writer, kind, suffix) in CASES.items():
        models[name] = TreeModel(model_file(old, writer, kind, suffix),
                                 fil_config(name, MODEL_TYPES[suffix], **CONFIG[kind][0]),
                                 FILENAMES[suffix])
    for name, (booster, kind) in MORE_TODAY.items():
        models[name] = TreeModel(xgboost_bytes(booster, "xgboost.json"),
                                 fil_config(name, "xgboost_json", **CONFIG[kind][0]),
                                 "xgboost.json")
    refused, proba = refused_models(old)
    for name, (model, suffix, _) in refused.items():
        models[name] = TreeModel(model, fil_config(name, MODEL_TYPES[suffix], **proba),
                                 FILENAMES[suffix])
    return inferd(fil_repository(tmp_path_factory.mktemp("repo"), models), wait_for="live",
                  extra_args=["--exit-on-error=false"])


def infer(server, protocol, model, x):
    module = httpclient if protocol == "http" else grpcclient
    client = server.client() if protocol == "http" else server.grpc_client()
    inp = module.InferInput("input__0", list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    return client.infer(model, [inp]).as_numpy("output__0")


def test_the_old_models_are_from_xgboost_1_7(old):
    assert old.version.startswith("1.7."), old.version
    assert old.files[("binary", "model")][:4] == b"binf"  # the legacy binary format


@pytest.mark.parametrize("protocol", ["http", "grpc"])
@pytest.mark.parametrize("model", list(CASES))
def test_predictions_equal_the_writing_xgboosts_own(server, old, model, protocol):
    writer, kind, _ = CASES[model]
    p = old.predictions[kind] if writer == "17" else predict(TODAY[kind], X)
    actual = infer(server, protocol, model, X)
    expected = CONFIG[kind][1](p).astype(np.float32)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("protocol", ["http", "grpc"])
@pytest.mark.parametrize("model", list(MORE_TODAY))
def test_more_of_todays_objectives_predict_as_xgboost(server, model, protocol):
    booster, kind = MORE_TODAY[model]
    actual = infer(server, protocol, model, X)
    expected = CONFIG[kind][1](predict(booster, X)).astype(np.float32)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-6)


def test_todays_regressor_has_the_base_score_xgboost_1_7_misread():
    document = json.loads(xgboost_bytes(TODAY["regression"], "xgboost.json"))
    base_score = document["learner"]["learner_model_param"]["base_score"]
    assert base_score.startswith("[") and base_score.endswith("]"), base_score


@pytest.mark.parametrize("model", ["json_too_new", "ubj_too_new", "json_without_version",
                                   "legacy_from_3_1"])
def test_what_cannot_be_read_right_is_refused_naming_its_version(server, old, model):
    resp = server.post("/v2/repository/index")
    entry = {e["name"]: e for e in resp.json()}[model]
    assert entry["state"] == "UNAVAILABLE"
    refused, _ = refused_models(old)
    for needle in [model, f"XGBoost cannot load"] + refused[model][2]:
        assert needle in entry["reason"], f"{needle!r} not in {entry['reason']!r}"
    assert "\n" not in entry["reason"]


def test_without_the_bundled_xgboost_only_what_1_7_reads_right_serves(
        inferd, old, tmp_path, monkeypatch):
    backends = tmp_path / "backends"
    (backends / "fil").mkdir(parents=True)
    library = backend_directory() / "fil" / "libinferd_fil.so"
    (backends / "fil" / library.name).write_bytes(library.read_bytes())
    monkeypatch.setenv("INFERD_BACKEND_DIRECTORY", str(backends))
    proba, expected = CONFIG["binary"]
    models = {name: TreeModel(model_file(old, writer, "binary", suffix),
                              fil_config(name, MODEL_TYPES[suffix], **proba), FILENAMES[suffix])
              for name, writer, suffix in (("from17_json", "17", "json"),
                                           ("from17_model", "17", "model"),
                                           ("from3_json", "3", "json"))}
    server = inferd(fil_repository(tmp_path / "repo", models), wait_for="live",
                    extra_args=["--exit-on-error=false"])
    for name in ("from17_json", "from17_model"):
        np.testing.assert_allclose(infer(server, "http", name, X),
                                   expected(old.predictions["binary"]), rtol=1e-5, atol=1e-6)
    entry = {e["name"]: e for e in server.post("/v2/repository/index").json()}["from3_json"]
    assert entry["state"] == "UNAVAILABLE"
    for needle in ("from3_json", f"written by XGBoost {bundled_version()}",
                   f"which XGBoost {old.version} misreads",
                   "the bundled XGBoost is not available", "third_party/xgboost"):
        assert needle in entry["reason"], f"{needle!r} not in {entry['reason']!r}"
