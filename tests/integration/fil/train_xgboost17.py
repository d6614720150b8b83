"""Trains XGBoost models with Debian's XGBoost 1.7 (python3-xgboost) and saves
each in the legacy binary format, JSON and UBJSON, with its predictions.

Run by xgboost17.py with /usr/bin/python3 (Debian's Python, whose xgboost is
1.7.4; .venv's is today's XGBoost):

    /usr/bin/python3 train_xgboost17.py IN.npz OUT_DIR

IN.npz holds x_train, x_test and, per kind K (binary, multiclass, softmax,
regression), labels_K. OUT_DIR gets K.model, K.json, K.ubj, and
predictions.npz (K: the booster's predict over x_test) and version.txt.
"""

import sys
from pathlib import Path

import numpy as np
import xgboost

OBJECTIVES = {"binary": "binary:logistic", "multiclass": "multi:softprob",
              "softmax": "multi:softmax", "regression": "reg:squarederror"}


def main(inputs: str, out_dir: str) -> None:
    data = np.load(inputs)
    out = Path(out_dir)
    predictions = {}
    for kind, objective in OBJECTIVES.items():
        params = {"max_depth": 4, "eta": 0.3, "nthread": 1, "seed": 1, "objective": objective,
                  "base_score": 0.3 if kind == "regression" else 0.5}
        if kind in ("multiclass", "softmax"):
            params["num_class"] = 3
        dtrain = xgboost.DMatrix(data["x_train"], label=data[f"labels_{kind}"])
        booster = xgboost.train(params, dtrain, num_boost_round=15)
        for suffix in ("model", "json", "ubj"):
            booster.save_model(str(out / f"{kind}.{suffix}"))
        predictions[kind] = booster.predict(xgboost.DMatrix(data["x_test"]))
    np.savez(out / "predictions.npz", **predictions)
    (out / "version.txt").write_text(xgboost.__version__)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
