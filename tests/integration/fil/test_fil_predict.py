"""The fil backend predicts as the tree libraries do, in FIL's output forms.

Models trained at test time (XGBoost 3.x binary, multi-class and regression
models saved as JSON and UBJSON, also under FIL's default name xgboost.model;
LightGBM model.txt of the same kinds; models from XGBoost 1.7 and the legacy
binary format: test_fil_versions.py) answer 37 rows over HTTP and gRPC (tritonclient) with what the
library predicts for the same rows in Python: probabilities per class with
predict_proba (a binary classifier's as [1 - p, p]), class ids without it (a
binary classifier's against `threshold`; a multi:softmax model's own ids),
values for regressors; a model
without batching takes one row. Under the dynamic batcher, four concurrent
clients' rows run as one execution (one prediction call) and each client gets
its own rows back; a model of two instances answers sixteen concurrent clients
right.
"""

import concurrent.futures

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from tree_models import (CLASSES, FEATURES, TreeModel, features, fil_config, fil_repository,
                         lightgbm_bytes, predict, train_lightgbm, train_xgboost, xgboost_bytes)

BOOSTERS = {
    ("xgboost", kind): train_xgboost(kind)
    for kind in ("binary", "multiclass", "softmax", "regression")
}
BOOSTERS.update({
    ("lightgbm", kind): train_lightgbm(kind) for kind in ("binary", "multiclass", "regression")
})


def both_classes(p):
    return np.column_stack([1 - p, p])


# model name -> (library, kind, model_type, file name, fil_config keywords, expected(p))
CASES = {
    "xgb_binary_proba": ("xgboost", "binary", "xgboost", "xgboost.model",
                         dict(output_dims=2, output_class=True, predict_proba=True),
                         both_classes),
    "xgb_binary_class_json": ("xgboost", "binary", "xgboost_json", "xgboost.json",
                              dict(output_class=True, threshold="0.3"),
                              lambda p: (p > 0.3).astype(np.float32)[:, None]),
    "xgb_multi_proba_ubj": ("xgboost", "multiclass", "xgboost_ubj", "xgboost.ubj",
                            dict(output_dims=CLASSES, output_class=True, predict_proba=True),
                            lambda p: p),
    "xgb_multi_class": ("xgboost", "multiclass", "xgboost", "xgboost.model",
                        dict(output_class=True, predict_proba=False),
                        lambda p: np.argmax(p, axis=1).astype(np.float32)[:, None]),
    "xgb_softmax_class_ids": ("xgboost", "softmax", "xgboost", "xgboost.model",
                              dict(output_class=True), lambda p: p[:, None]),
    "xgb_regression_json": ("xgboost", "regression", "xgboost_json", "xgboost.json",
                            dict(output_class=False), lambda p: p[:, None]),
    "lgbm_binary_proba": ("lightgbm", "binary", "lightgbm", "model.txt",
                          dict(output_dims=2, output_class=True, predict_proba=True),
                          both_classes),
    "lgbm_binary_class": ("lightgbm", "binary", "lightgbm", "model.txt",
                          dict(output_class=True),
                          lambda p: (p > 0.5).astype(np.float32)[:, None]),
    "lgbm_multi_proba": ("lightgbm", "multiclass", "lightgbm", "model.txt",
                         dict(output_dims=CLASSES, output_class=True, predict_proba=True),
                         lambda p: p),
    "lgbm_multi_class": ("lightgbm", "multiclass", "lightgbm", "model.txt",
                         dict(output_class=True),
                         lambda p: np.argmax(p, axis=1).astype(np.float32)[:, None]),
    "lgbm_regression": ("lightgbm", "regression", "lightgbm", "model.txt", dict(),
                        lambda p: p[:, None]),
}


def model_bytes(library, kind, filename):
    booster = BOOSTERS[(library, kind)]
    return xgboost_bytes(booster, filename) if library == "xgboost" else lightgbm_bytes(booster)


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    models = {}
    for name, (library, kind, model_type, filename, kwargs, _) in CASES.items():
        models[name] = TreeModel(model_bytes(library, kind, filename),
                                 fil_config(name, model_type, **kwargs), filename)
    models["xgb_unbatched"] = TreeModel(
        model_bytes("xgboost", "regression", "xgboost.json"),
        fil_config("xgb_unbatched", "xgboost_json", max_batch_size=0), "xgboost.json")
    models["batched"] = TreeModel(
        model_bytes("xgboost", "binary", "xgboost.model"),
        fil_config("batched", "xgboost", 2, output_class=True, predict_proba=True,
                   extra="dynamic_batching { preferred_batch_size: [ 8 ] "
                         "max_queue_delay_microseconds: 30000000 }\n"))
    models["two_instances"] = TreeModel(
        lightgbm_bytes(BOOSTERS[("lightgbm", "multiclass")]),
        fil_config("two_instances", "lightgbm", CLASSES, output_class=True, predict_proba=True,
                   extra="dynamic_batching { }\n"
                         "instance_group [ { count: 2, kind: KIND_CPU } ]\n"), "model.txt")
    return inferd(fil_repository(tmp_path_factory.mktemp("repo"), models))


def infer(server, protocol, model, x):
    module = httpclient if protocol == "http" else grpcclient
    client = server.client() if protocol == "http" else server.grpc_client()
    inp = module.InferInput("input__0", list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    result = client.infer(model, [inp], outputs=[module.InferRequestedOutput("output__0")])
    return result.as_numpy("output__0")


def assert_close(actual, expected):
    assert actual.dtype == np.float32
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    np.testing.assert_allclose(actual, expected.astype(np.float32), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("protocol", ["http", "grpc"])
@pytest.mark.parametrize("model", list(CASES))
def test_predictions_equal_the_librarys_own(server, model, protocol):
    library, kind, _, _, _, expected = CASES[model]
    x = features(37, seed=7)
    actual = infer(server, protocol, model, x)
    assert_close(actual, expected(predict(BOOSTERS[(library, kind)], x)))


def test_class_ids_depend_on_the_threshold(server):
    x = features(200, seed=11)
    p = predict(BOOSTERS[("xgboost", "binary")], x)
    assert np.any((p > 0.3) & (p <= 0.5)), "no row between the two thresholds"
    at_03 = infer(server, "http", "xgb_binary_class_json", x)[:, 0]
    proba = infer(server, "http", "xgb_binary_proba", x)
    assert np.array_equal(at_03, (p > 0.3).astype(np.float32))
    assert not np.array_equal(at_03, (proba[:, 1] > 0.5).astype(np.float32))


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_model_without_batching_takes_one_row(server, protocol):
    x = features(1, seed=3)
    actual = infer(server, protocol, "xgb_unbatched", x[0])
    assert_close(actual, predict(BOOSTERS[("xgboost", "regression")], x))


def test_concurrent_clients_rows_run_in_one_prediction(server):
    xs = [features(2, seed=100 + i) for i in range(4)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(
            lambda ix: infer(server, "grpc" if ix[0] % 2 else "http", "batched", ix[1]),
            enumerate(xs)))
    booster = BOOSTERS[("xgboost", "binary")]
    for x, actual in zip(xs, results):
        assert_close(actual, both_classes(predict(booster, x)))
    stats = server.client().get_inference_statistics("batched")["model_stats"][0]
    assert stats["execution_count"] == 1 and stats["inference_count"] == 8, stats


def test_two_instances_answer_concurrent_clients(server):
    xs = [features(1 + i % 5, seed=200 + i) for i in range(16)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=16) as pool:
        results = list(pool.map(lambda x: infer(server, "http", "two_instances", x), xs))
    booster = BOOSTERS[("lightgbm", "multiclass")]
    for x, actual in zip(xs, results):
        assert_close(actual, predict(booster, x))


def test_metadata_shows_fils_tensors(server):
    meta = server.client().get_model_metadata("lgbm_multi_proba")
    assert meta["inputs"] == [{"name": "input__0", "datatype": "FP32",
                               "shape": [-1, FEATURES]}]
    assert meta["outputs"] == [{"name": "output__0", "datatype": "FP32", "shape": [-1, CLASSES]}]
