"""Tree models that cannot load leave the model UNAVAILABLE with a clear
reason naming it, while the other models serve; bad requests get errors
naming the model.

At load: a corrupt XGBoost binary model, a corrupt XGBoost JSON model, a
corrupt LightGBM model.txt, a missing model file, an unknown model_type,
treelite_checkpoint (not served), an input whose feature count differs from
the model's, a probability output whose width is not the class count,
predict_proba on a multi:softmax model (it predicts class ids), a
threshold that is not a number, an output_class that is not a boolean. Each
reason is one line (XGBoost's stack trace is cut). At run time: a request
whose rows have the wrong feature count is HTTP 400 naming the model.
"""

import numpy as np
import pytest

from tree_models import (CLASSES, FEATURES, TreeModel, features, fil_config, fil_repository,
                         lightgbm_bytes, predict, train_lightgbm, train_xgboost, xgboost_bytes)
from util import assert_error, binary_request, parse_infer_response

XGB = train_xgboost("binary")
LGBM_MULTI = train_lightgbm("multiclass")
PROBA = dict(output_dims=2, output_class=True, predict_proba=True)

# model name -> (repository entry, words the index reason must hold)
BROKEN = {
    "corrupt_xgboost": (TreeModel(b"this is not an XGBoost model",
                                  fil_config("corrupt_xgboost", "xgboost", **PROBA)),
                        ["corrupt_xgboost", "XGBoost cannot load", "xgboost.model"]),
    "corrupt_json": (TreeModel(b'{"learner": 42', fil_config("corrupt_json", "xgboost_json",
                                                            **PROBA), "xgboost.json"),
                     ["corrupt_json", "XGBoost cannot load", "xgboost.json"]),
    "corrupt_lightgbm": (TreeModel(b"tree\nnot a LightGBM model\n",
                                   fil_config("corrupt_lightgbm", "lightgbm", **PROBA),
                                   "model.txt"),
                         ["corrupt_lightgbm", "LightGBM cannot load", "model.txt"]),
    "missing_file": (TreeModel(None, fil_config("missing_file", "lightgbm")),
                     ["missing_file", "model.txt does not exist"]),
    "unknown_model_type": (TreeModel(xgboost_bytes(XGB, "xgboost.model"),
                                     fil_config("unknown_model_type", "catboost")),
                           ["unknown_model_type", "parameter 'model_type' is 'catboost'"]),
    "treelite": (TreeModel(b"", fil_config("treelite", "treelite_checkpoint")),
                 ["treelite", "'treelite_checkpoint', which the fil backend does not serve"]),
    "wrong_features": (TreeModel(xgboost_bytes(XGB, "xgboost.model"),
                                 fil_config("wrong_features", "xgboost", input_dims=5, **PROBA)),
                       ["wrong_features", "input 'input__0' has dims [ 5 ] but the model has "
                                          f"{FEATURES} features"]),
    "wrong_classes": (TreeModel(lightgbm_bytes(LGBM_MULTI),
                                fil_config("wrong_classes", "lightgbm", **PROBA), "model.txt"),
                      ["wrong_classes", "output 'output__0' has dims [ 2 ] but the model "
                                        f"predicts {CLASSES} values per row"]),
    "softmax_proba": (TreeModel(xgboost_bytes(train_xgboost("softmax"), "xgboost.model"),
                                fil_config("softmax_proba", "xgboost", output_dims=CLASSES,
                                           output_class=True, predict_proba=True)),
                      ["softmax_proba", "the model predicts class ids (objective multi:softmax)"]),
    "bad_threshold": (TreeModel(xgboost_bytes(XGB, "xgboost.model"),
                                fil_config("bad_threshold", "xgboost", output_class=True,
                                           threshold="half")),
                      ["bad_threshold", "parameter 'threshold' is 'half', not a number"]),
    "bad_output_class": (TreeModel(xgboost_bytes(XGB, "xgboost.model"),
                                   fil_config("bad_output_class", "xgboost",
                                              extra='parameters { key: "output_class" value: '
                                                    '{ string_value: "yes" } }\n')),
                         ["bad_output_class", "parameter 'output_class' is 'yes'"]),
}


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    models = {name: entry for name, (entry, _) in BROKEN.items()}
    models["good"] = TreeModel(xgboost_bytes(XGB, "xgboost.model"),
                               fil_config("good", "xgboost", **PROBA))
    return inferd(fil_repository(tmp_path_factory.mktemp("repo"), models), wait_for="live",
                  extra_args=["--exit-on-error=false"])


@pytest.fixture(scope="module")
def index(server):
    resp = server.post("/v2/repository/index")
    assert resp.status_code == 200
    return {entry["name"]: entry for entry in resp.json()}


@pytest.mark.parametrize("model", list(BROKEN))
def test_model_that_cannot_load_is_unavailable_with_the_reason(index, model):
    entry = index[model]
    assert entry["state"] == "UNAVAILABLE"
    for needle in BROKEN[model][1]:
        assert needle in entry["reason"], f"{needle!r} not in {entry['reason']!r}"
    assert "\n" not in entry["reason"]


def test_other_models_serve_while_some_failed(server, index):
    assert index["good"]["state"] == "READY"
    x = features(5, seed=5)
    body, headers = binary_request([("input__0", "FP32", x)])
    resp = parse_infer_response(server.post("/v2/models/good/infer", data=body, headers=headers))
    p = predict(XGB, x)
    np.testing.assert_allclose(resp.tensors["output__0"], np.column_stack([1 - p, p]),
                               rtol=1e-5, atol=1e-6)


def test_inference_on_an_unavailable_model_is_503(server):
    body, headers = binary_request([("input__0", "FP32", features(1, seed=1))])
    assert_error(server.post("/v2/models/corrupt_xgboost/infer", data=body, headers=headers), 503,
                 "corrupt_xgboost")


def test_rows_of_the_wrong_feature_count_are_refused_naming_the_model(server):
    x = np.ones((2, FEATURES + 1), dtype=np.float32)
    body, headers = binary_request([("input__0", "FP32", x)])
    assert_error(server.post("/v2/models/good/infer", data=body, headers=headers), 400, "good")
