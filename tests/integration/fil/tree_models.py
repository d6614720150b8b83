"""Tree models trained at test time with the Python packages (today's XGBoost,
the `xgboost-cpu` wheel in .venv, whose library the backend also reads JSON and
UBJSON models with; the `lightgbm` wheel, whose lib_lightgbm.so the backend
opens), their config.pbtxt texts as Triton's FIL backend reads them, and
repositories holding them. Models from Debian's XGBoost 1.7: xgboost17.py.

    repo = fil_repository(tmp_path, {"m": TreeModel(xgb_file(booster, "xgboost.json"),
                                                    fil_config("m", "xgboost_json", 6))})

Importing this module skips the importing test module when the fil backend was
not built (a build without libxgboost-dev, INFERD_WITH_FIL=OFF); xgboost and
lightgbm must be there (scripts/install-deps.sh installs them).
"""

from __future__ import annotations

import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import numpy as np
import pytest

from util import backend_directory

BACKEND_LIBRARY = backend_directory() / "fil" / "libinferd_fil.so"
if not BACKEND_LIBRARY.is_file():
    pytest.skip(f"the fil backend was not built ({BACKEND_LIBRARY} is missing)",
                allow_module_level=True)

import lightgbm  # noqa: E402
import xgboost  # noqa: E402

FEATURES = 6
CLASSES = 3


def features(rows: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(rows, FEATURES)).astype(np.float32)


def _labels(x: np.ndarray, kind: str) -> np.ndarray:
    score = x[:, 0] + 0.5 * x[:, 1] * x[:, 2] - x[:, 3]
    if kind == "binary":
        return (score > 0).astype(np.float32)
    if kind == "multiclass":
        return np.digitize(score, [-0.7, 0.7]).astype(np.float32)
    return (score + 0.1 * x[:, 4]).astype(np.float32)


def train_xgboost(kind: str, seed: int = 1) -> xgboost.Booster:
    """A small XGBoost booster: kind is binary, multiclass, softmax (multi-class
    predicting class ids) or regression."""
    x = features(400, seed)
    params = {"max_depth": 4, "eta": 0.3, "nthread": 1, "seed": seed,
              "objective": {"binary": "binary:logistic", "multiclass": "multi:softprob",
                            "softmax": "multi:softmax", "regression": "reg:squarederror"}[kind]}
    if kind in ("multiclass", "softmax"):
        params["num_class"] = CLASSES
    labels = _labels(x, "multiclass" if kind == "softmax" else kind)
    return xgboost.train(params, xgboost.DMatrix(x, label=labels), num_boost_round=15)


def train_lightgbm(kind: str, seed: int = 1) -> lightgbm.Booster:
    """A small LightGBM booster: kind is binary, multiclass or regression."""
    x = features(400, seed)
    params = {"objective": {"binary": "binary", "multiclass": "multiclass",
                            "regression": "regression"}[kind],
              "num_leaves": 8, "min_data_in_leaf": 5, "verbose": -1, "num_threads": 1,
              "seed": seed}
    if kind == "multiclass":
        params["num_class"] = CLASSES
    return lightgbm.train(params, lightgbm.Dataset(x, label=_labels(x, kind)),
                          num_boost_round=15)


def xgboost_bytes(booster: xgboost.Booster, filename: str) -> bytes:
    """The booster saved as XGBoost saves to `filename` (.json JSON, anything
    else UBJSON: XGBoost 3.1 and later write no legacy binary format)."""
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Saving model in the UBJSON format as default"
        path = Path(tmp) / filename
        booster.save_model(str(path))
        return path.read_bytes()


def lightgbm_bytes(booster: lightgbm.Booster) -> bytes:
    return booster.model_to_string().encode()


def predict(booster, x: np.ndarray) -> np.ndarray:
    """The library's own prediction in Python: probabilities for classifiers
    ([rows] for binary, [rows, classes]; class ids for multi:softmax), values
    for regressors."""
    if isinstance(booster, xgboost.Booster):
        return booster.predict(xgboost.DMatrix(x))
    return booster.predict(x)


def fil_config(name: str, model_type: str, output_dims: int = 1, *,
               output_class: bool | None = None, predict_proba: bool | None = None,
               threshold: str | None = None, max_batch_size: int = 256,
               input_dims: int = FEATURES, extra: str = "") -> str:
    params = {"model_type": model_type}
    if output_class is not None:
        params["output_class"] = str(output_class).lower()
    if predict_proba is not None:
        params["predict_proba"] = str(predict_proba).lower()
    if threshold is not None:
        params["threshold"] = threshold
    parameters = "".join(
        f'parameters {{ key: "{k}" value: {{ string_value: "{v}" }} }}\n'
        for k, v in params.items())
    return (
        f'name: "{name}"\n'
        'backend: "fil"\n'
        f"max_batch_size: {max_batch_size}\n"
        f'input [ {{ name: "input__0" data_type: TYPE_FP32 dims: [ {input_dims} ] }} ]\n'
        f'output [ {{ name: "output__0" data_type: TYPE_FP32 dims: [ {output_dims} ] }} ]\n'
        + parameters + extra)


@dataclass
class TreeModel:
    """A model folder: the model file's bytes (None: no file), written to
    1/<filename>, and its config.pbtxt text."""

    model: bytes | None
    config: str
    filename: str = "xgboost.model"


def fil_repository(root: Path, models: Mapping[str, TreeModel]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, spec in models.items():
        folder = root / name
        (folder / "1").mkdir(parents=True)
        (folder / "config.pbtxt").write_text(spec.config)
        if spec.model is not None:
            (folder / "1" / spec.filename).write_bytes(spec.model)
    return root
