"""Models written by Debian's XGBoost 1.7 (python3-xgboost, which
scripts/install-deps.sh installs), for tests that the fil backend serves
models from 1.7 as 1.7 predicts them. .venv's xgboost is today's, so
train_xgboost17.py runs in a subprocess with Debian's /usr/bin/python3.

    models = xgboost17_models(tmp_path, x_test)
    models.files[("binary", "model")]    # bytes of the legacy binary model
    models.predictions["binary"]         # 1.7's predict over x_test
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tree_models import _labels, features

SYSTEM_PYTHON = "/usr/bin/python3"
SCRIPT = Path(__file__).with_name("train_xgboost17.py")
KINDS = ("binary", "multiclass", "softmax", "regression")
SUFFIXES = ("model", "json", "ubj")


@dataclass
class Xgboost17Models:
    version: str
    files: dict[tuple[str, str], bytes]  #: (kind, suffix) -> the model file's bytes
    predictions: dict[str, np.ndarray]   #: kind -> 1.7's predictions over x_test


def xgboost17_models(work: Path, x_test: np.ndarray) -> Xgboost17Models:
    x_train = features(400, seed=1)
    labels = {f"labels_{kind}": _labels(x_train, "multiclass" if kind == "softmax" else kind)
              for kind in KINDS}
    work.mkdir(parents=True, exist_ok=True)
    np.savez(work / "in.npz", x_train=x_train, x_test=x_test, **labels)
    subprocess.run([SYSTEM_PYTHON, str(SCRIPT), str(work / "in.npz"), str(work)], check=True,
                   capture_output=True, timeout=300)
    version = (work / "version.txt").read_text()
    assert version.startswith("1.7."), f"{SYSTEM_PYTHON}'s xgboost is {version}, not 1.7"
    with np.load(work / "predictions.npz") as saved:
        predictions = {kind: saved[kind] for kind in KINDS}
    files = {(kind, suffix): (work / f"{kind}.{suffix}").read_bytes()
             for kind in KINDS for suffix in SUFFIXES}
    return Xgboost17Models(version, files, predictions)
