"""Triton's lifecycle launch flags, on the real binary:

- --exit-on-error (default true): a model that fails to load at startup makes
  the process exit non-zero, naming each failed model and its reason; with
  false the server serves what loaded and the failed model is UNAVAILABLE with
  its reason in the repository index.
- --model-config-name=NAME: <model>/configs/NAME.pbtxt is the configuration
  where it exists, config.pbtxt elsewhere.
- --model-load-retry-count=N: a version whose load fails is loaded again up to
  N more times (the identity backend's fail_initialize_file fails the first
  initialization only).
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from lifecycle_helpers import entries, infer_version, model_config
from util import REPO_ROOT, Model, backend_directory, inferd_binary, write_repository

BROKEN = 'name: "bad"\nbackend: "identity"\nmax_batch_size: 0\n'  # no inputs or outputs
NO_BACKEND = model_config("nobackend").replace('backend: "identity"', 'backend: "no_such_backend"')
START_BOUND_S = 30


def _run_to_exit(repo, *args):
    """Runs inferd on `repo` until it exits by itself; returns (code, output)."""
    result = subprocess.run(
        [str(inferd_binary()), f"--model-repository={repo}", "--http-port=0",
         "--grpc-port=0", "--metrics-port=0", f"--backend-directory={backend_directory()}",
         *args],
        capture_output=True, text=True, timeout=START_BOUND_S, cwd=REPO_ROOT)
    return result.returncode, result.stdout + result.stderr


# ---------------------------------------------------------------------------
# --exit-on-error


@pytest.mark.parametrize("flag", [(), ("--exit-on-error=true",)], ids=["default", "true"])
def test_exit_on_error_true_exits_naming_each_failed_model(tmp_path, flag):
    repo = write_repository(tmp_path / "repo", {
        "good": model_config("good"), "bad": BROKEN, "nobackend": NO_BACKEND})
    code, output = _run_to_exit(repo, *flag)
    assert code != 0, output
    assert "failed to load all models" in output, output
    assert "model 'bad'" in output and "at least one input" in output, output
    assert "model 'nobackend'" in output and "no_such_backend" in output, output
    assert "model 'good'" not in output.split("failed to load all models", 1)[1], output
    assert "Started HTTPService" not in output, output


def test_exit_on_error_true_starts_when_every_model_loads(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {"good": model_config("good")})
    server = launch(repo, "--exit-on-error=true")
    assert infer_version(server, "good") == 1


def test_exit_on_error_false_serves_what_loaded(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {"good": model_config("good"), "bad": BROKEN})
    server = launch(repo, "--exit-on-error=false", wait_for="live")
    assert infer_version(server, "good") == 1
    [bad] = entries(server, "bad")
    assert bad["state"] == "UNAVAILABLE"
    assert "at least one input" in bad["reason"], bad
    client = grpcclient.InferenceServerClient(server.grpc_address)
    assert client.is_model_ready("good") and not client.is_model_ready("bad")
    assert not client.is_server_ready()  # strict readiness still counts the failed model


def test_exit_on_error_covers_explicit_startup_models(tmp_path):
    repo = write_repository(tmp_path / "repo", {"good": model_config("good"), "bad": BROKEN})
    code, output = _run_to_exit(repo, "--model-control-mode=explicit", "--load-model=bad")
    assert code != 0 and "model 'bad'" in output, output


def test_exit_on_error_rejects_a_value_that_is_not_a_boolean(tmp_path):
    repo = write_repository(tmp_path / "repo", {"good": model_config("good")})
    code, output = _run_to_exit(repo, "--exit-on-error=maybe")
    assert code != 0 and "--exit-on-error" in output, output


# ---------------------------------------------------------------------------
# --model-config-name


def _two_configs(name: str) -> Model:
    """config.pbtxt: max_batch_size 0, one instance; configs/custom.pbtxt:
    max_batch_size 8, two instances."""
    plain = model_config(name)
    custom = model_config(name, instances=2).replace("max_batch_size: 0", "max_batch_size: 8")
    return Model(config=plain, files={"configs/custom.pbtxt": custom})


def test_model_config_name_picks_the_named_config_else_config_pbtxt(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {
        "both": _two_configs("both"), "plain": model_config("plain")})
    server = launch(repo, "--model-config-name=custom")
    client = httpclient.InferenceServerClient(server.address)
    both = client.get_model_config("both")
    assert both["max_batch_size"] == 8
    assert both["instance_group"][0]["count"] == 2
    assert client.get_model_metadata("both")["inputs"][0]["shape"] == [-1, 4]
    assert client.get_model_config("plain")["max_batch_size"] == 0

    # A batch of two rows: served only as the custom config describes the model.
    x = httpclient.InferInput("INPUT0", [2, 4], "FP32")
    data = np.arange(8, dtype=np.float32).reshape(2, 4)
    x.set_data_from_numpy(data)
    np.testing.assert_array_equal(client.infer("both", [x]).as_numpy("OUTPUT0"), data)
    assert infer_version(server, "plain") == 1


def test_without_the_flag_config_pbtxt_is_used(launch, tmp_path):
    repo = write_repository(tmp_path / "repo", {"both": _two_configs("both")})
    server = launch(repo)
    config = grpcclient.InferenceServerClient(server.grpc_address).get_model_config(
        "both", as_json=True)["config"]
    assert int(config.get("max_batch_size", 0)) == 0
    assert int(config["instance_group"][0]["count"]) == 1


def test_a_broken_named_config_fails_naming_its_file(launch, tmp_path):
    model = _two_configs("both")
    model.files["configs/custom.pbtxt"] = "max_batch_size: nope\n"
    repo = write_repository(tmp_path / "repo", {"both": model, "plain": model_config("plain")})
    server = launch(repo, "--model-config-name=custom", "--exit-on-error=false",
                    wait_for="live")
    [entry] = entries(server, "both")
    assert entry["state"] == "UNAVAILABLE"
    assert "configs/custom.pbtxt" in entry["reason"], entry
    assert infer_version(server, "plain") == 1


def test_model_config_name_with_a_slash_is_refused(tmp_path):
    repo = write_repository(tmp_path / "repo", {"plain": model_config("plain")})
    code, output = _run_to_exit(repo, "--model-config-name=../custom")
    assert code != 0 and "--model-config-name" in output, output


# ---------------------------------------------------------------------------
# --model-load-retry-count


def _fails_once(name: str, marker) -> str:
    marker.write_text("fail the first initialization\n")
    return model_config(name, extra=(
        f'parameters {{ key: "fail_initialize_file" value: {{ string_value: "{marker}" }} }}'))


def test_retry_count_one_loads_a_model_whose_first_load_fails(launch, tmp_path):
    marker = tmp_path / "fail-once"
    repo = write_repository(tmp_path / "repo", {"flaky": _fails_once("flaky", marker)})
    server = launch(repo, "--model-load-retry-count=1")
    assert not marker.exists()  # the first attempt ran and failed
    assert infer_version(server, "flaky") == 1
    assert "retrying the load (1 of 1, --model-load-retry-count)" in server.log()


def test_retry_count_zero_leaves_it_unavailable(launch, tmp_path):
    marker = tmp_path / "fail-once"
    repo = write_repository(tmp_path / "repo", {"flaky": _fails_once("flaky", marker)})
    server = launch(repo, "--model-load-retry-count=0", "--exit-on-error=false",
                    wait_for="live")
    assert not marker.exists()
    [entry] = entries(server, "flaky")
    assert entry["state"] == "UNAVAILABLE"
    assert "fail_initialize_file" in entry["reason"], entry
    assert "retrying the load" not in server.log()


def test_retries_also_apply_to_loads_through_the_repository_api(launch, tmp_path):
    marker = tmp_path / "fail-once"
    repo = write_repository(tmp_path / "repo", {"flaky": _fails_once("flaky", marker)})
    server = launch(repo, "--model-control-mode=explicit", "--model-load-retry-count=2")
    client = httpclient.InferenceServerClient(server.address)
    client.load_model("flaky")
    assert client.is_model_ready("flaky")
    assert not marker.exists()


# ---------------------------------------------------------------------------
# The group together, as a launch script gives them


def test_the_lifecycle_flags_together(launch, tmp_path):
    marker = tmp_path / "fail-once"
    repo = write_repository(tmp_path / "repo", {
        "flaky": _fails_once("flaky", marker),
        "both": _two_configs("both"),
        "minimal": 'backend: "identity"\nmax_batch_size: 0\n',  # no tensors: not completed
    })
    server = launch(repo, "--exit-on-error=false", "--disable-auto-complete-config",
                    "--model-config-name=custom", "--model-load-retry-count=2",
                    "--strict-model-config=false", wait_for="live")
    client = httpclient.InferenceServerClient(server.address)
    assert client.is_model_ready("flaky") and not marker.exists()
    assert client.get_model_config("both")["max_batch_size"] == 8
    [minimal] = entries(server, "minimal")
    assert minimal["state"] == "UNAVAILABLE"
    assert "input: the model must declare at least one input" in minimal["reason"], minimal
    log = server.log()
    assert "'--strict-model-config' is deprecated" in log
    assert "'--strict-model-config=false' is overridden" in log
