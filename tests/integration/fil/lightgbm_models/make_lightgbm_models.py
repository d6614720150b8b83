"""Writes the LightGBM text models of this folder with the LightGBM that runs
it, and expected.json (the rows and that LightGBM's own predictions), into
lightgbm-<version>/. The tests' .venv pins an older LightGBM (its
lib_lightgbm.so is the one the fil backend opens), so these files show that
models from today's LightGBM are served as it predicts them.

Made with throwaway environments (Debian 12's python3, numpy and scipy):

    /usr/bin/python3 -m venv --system-site-packages /tmp/lgb
    /tmp/lgb/bin/pip install --no-deps lightgbm==4.7.0 narwhals   # or lightgbm==3.3.5
    /tmp/lgb/bin/python make_lightgbm_models.py
"""

import json
from pathlib import Path

import lightgbm
import numpy as np

KINDS = {"binary": "binary", "multiclass": "multiclass", "regression": "regression",
         "poisson": "poisson"}


def main() -> None:
    out = Path(__file__).with_name(f"lightgbm-{lightgbm.__version__}")
    out.mkdir(exist_ok=True)
    x = np.random.default_rng(5).normal(size=(300, 6)).astype(np.float32)
    score = x[:, 0] + 0.5 * x[:, 1] * x[:, 2] - x[:, 3]
    labels = {"binary": (score > 0).astype(float), "multiclass": np.digitize(score, [-0.7, 0.7]),
              "regression": score + 0.1 * x[:, 4], "poisson": np.exp(score / 3)}
    rows = x[:12]
    expected = {"lightgbm": lightgbm.__version__, "rows": rows.tolist(), "predictions": {}}
    for kind, objective in KINDS.items():
        params = {"objective": objective, "num_leaves": 6, "min_data_in_leaf": 5,
                  "verbose": -1, "num_threads": 1, "seed": 1}
        if kind == "multiclass":
            params["num_class"] = 3
        booster = lightgbm.train(params, lightgbm.Dataset(x, label=labels[kind]),
                                 num_boost_round=6)
        booster.save_model(str(out / f"{kind}.txt"))
        expected["predictions"][kind] = booster.predict(rows).tolist()
    (out / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")


if __name__ == "__main__":
    main()
