"""EXECUTION_ENV_PATH: a model names a virtual environment folder (here
"$$TRITON_MODEL_DIRECTORY/venv", inside the model's folder) and its stub runs
that environment's python3, which sees the environment's own packages; a
folder that is not there fails the load with a message naming it.
"""

import subprocess

import numpy as np
import pytest
import tritonclient.http as httpclient

import python_models as pm
from util import write_repository


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    repo = write_repository(tmp_path_factory.mktemp("repo"), {
        "which_python": pm.python_model(pm.WHICH_PYTHON_CONFIG, pm.WHICH_PYTHON),
        "no_env": pm.python_model(pm.WHICH_PYTHON_CONFIG.replace('"which_python"', '"no_env"')
                                  .replace("/venv", "/missing"), pm.WHICH_PYTHON),
    })
    venv = repo / "which_python" / "venv"
    # Debian's numpy comes through --system-site-packages; pip is not needed.
    subprocess.run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", "--without-pip",
                    str(venv)], check=True)
    site = next(venv.glob("lib/python3*/site-packages"))
    (site / "venv_only_module.py").write_text('WHO = "the venv"\n')
    return inferd(repo, extra_args=["--exit-on-error=false"], wait_for="live")


def test_the_model_runs_on_its_environments_python(server):
    client = server.client()
    x = httpclient.InferInput("X", [1], "INT32")
    x.set_data_from_numpy(np.array([1], np.int32))
    executable, who = client.infer("which_python", [x]).as_numpy("WHICH")
    assert executable.decode().endswith("which_python/venv/bin/python3")
    assert who == b"the venv"


def test_a_missing_environment_fails_the_load_naming_it(server):
    index = server.post("/v2/repository/index", json={}).json()
    entry = next(e for e in index if e["name"] == "no_env")
    assert entry["state"] == "UNAVAILABLE"
    assert "EXECUTION_ENV_PATH" in entry["reason"] and "no_env/missing" in entry["reason"]
