"""The OCI images of `make image`, unpacked and run as a container runtime would
(tests/image/image_runtime.py): their sizes, their configuration, and each
serving models to tritonclient over HTTP and gRPC from its own root filesystem,
read-only, as its non-root user.

`make image-test` builds the images and the example models first; alone, this
needs build/image/inferd-{default,onnx,llm,torch}.oci.tar (or $INFERD_IMAGE_DIR)
and root.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from image_runtime import Image, ImageProcess, ImageServer, unpack

REPO_ROOT = Path(__file__).resolve().parents[2]
IMAGE_DIR = Path(os.environ.get("INFERD_IMAGE_DIR", REPO_ROOT / "build" / "image"))
EXAMPLES = REPO_ROOT / "examples" / "models"
# The targets, uncompressed (the files of the root filesystem).
SIZE_LIMITS_MB = {"default": 250, "onnx": 120, "llm": 160, "torch": None}
USER = "1000:1000"
sys.path.insert(0, str(REPO_ROOT / "tests" / "integration"))


def archive(variant: str) -> Path:
    path = IMAGE_DIR / f"inferd-{variant}.oci.tar"
    if not path.is_file():
        pytest.fail(f"{path} is missing: run `make image`", pytrace=False)
    return path


@pytest.fixture(scope="module")
def images(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.fail("the image tests need root (mount namespaces, chroot)", pytrace=False)
    cache: dict[str, Image] = {}

    def get(variant: str) -> Image:
        if variant not in cache:
            cache[variant] = unpack(archive(variant), tmp_path_factory.mktemp(variant))
        return cache[variant]
    return get


def rootfs_bytes(rootfs: Path) -> int:
    return sum(p.lstat().st_size for p in rootfs.rglob("*") if p.is_file() and not p.is_symlink())


@pytest.mark.parametrize("variant", list(SIZE_LIMITS_MB))
def test_size(images, variant):
    image = images(variant)
    size_mb = rootfs_bytes(image.rootfs) / 1e6
    compressed_mb = archive(variant).stat().st_size / 1e6
    print(f"\ninferd-{variant}: {size_mb:.0f} MB uncompressed, {compressed_mb:.0f} MB archive")
    limit = SIZE_LIMITS_MB[variant]
    if limit is not None:
        assert size_mb <= limit, f"inferd-{variant} is {size_mb:.0f} MB, over {limit} MB"


@pytest.mark.parametrize("variant", list(SIZE_LIMITS_MB))
def test_configuration(images, variant):
    config = images(variant).config
    assert config["User"] == USER, "the image runs as a non-root user"
    assert config["Entrypoint"] == ["/opt/inferd/entrypoint"]
    assert config["Cmd"] == ["--model-repository=/models"]
    assert config["WorkingDir"] == "/"  # where chroot starts the tests' processes
    assert set(config["ExposedPorts"]) == {"8000/tcp", "8001/tcp", "8002/tcp"}
    labels = config["Labels"]
    version = re.search(r"project\(inferd VERSION (\S+)",
                        (REPO_ROOT / "CMakeLists.txt").read_text()).group(1)
    assert labels["org.opencontainers.image.version"] == version
    revision = labels["org.opencontainers.image.revision"]
    assert re.fullmatch(r"[0-9a-f]{40}", revision), revision
    assert subprocess.run(["git", "-c", f"safe.directory={REPO_ROOT}", "-C", str(REPO_ROOT),
                           "cat-file", "-e", revision + "^{commit}"],
                          capture_output=True).returncode == 0, f"{revision} is no commit here"
    # The same as build_image.py's: $INFERD_IMAGE_SOURCE or the remote 'origin'.
    source = os.environ.get("INFERD_IMAGE_SOURCE") or subprocess.run(
        ["git", "-c", f"safe.directory={REPO_ROOT}", "-C", str(REPO_ROOT), "remote", "get-url",
         "origin"], capture_output=True, text=True).stdout.strip()
    assert labels.get("org.opencontainers.image.source") == (source or None)


@pytest.mark.parametrize("variant", list(SIZE_LIMITS_MB))
def test_skopeo_reads_the_archive(images, variant):
    """The archive is what registries' tools read: skopeo sees its labels and its layers."""
    inspect = subprocess.run(["skopeo", "inspect", f"oci-archive:{archive(variant)}"],
                             capture_output=True, text=True)
    assert inspect.returncode == 0, inspect.stderr
    seen = json.loads(inspect.stdout)
    assert seen["Labels"] == images(variant).labels
    assert seen["Os"] == "linux" and seen["Architecture"] == "amd64"
    assert len(seen["Layers"]) == 2  # the system's files, then /opt/inferd


@pytest.mark.parametrize("variant", list(SIZE_LIMITS_MB))
def test_carries_no_shell_and_records_its_packages(images, variant):
    rootfs = images(variant).rootfs
    assert not (rootfs / "usr/bin/sh").exists() and not (rootfs / "usr/bin/bash").exists()
    status = {p.name for p in (rootfs / "var/lib/dpkg/status.d").iterdir()}
    assert {"libc6", "libstdc++6", "libgrpc++1.51"} <= status, status


def examples_with_fil_model(root: Path):
    """A copy of examples/models with an XGBoost model for the fil backend, and its booster."""
    if not (EXAMPLES / "onnx_mlp" / "1" / "model.onnx").exists():
        pytest.fail("examples/models lacks its ONNX files: run `make models`", pytrace=False)
    from fil.tree_models import TreeModel, fil_config, fil_repository, train_xgboost, \
        xgboost_bytes
    repo = root / "models"
    shutil.copytree(EXAMPLES, repo)
    booster = train_xgboost("regression")
    config = fil_config("trees", "xgboost_json", output_class=False)
    fil_repository(repo, {"trees": TreeModel(xgboost_bytes(booster, "xgboost.json"), config,
                                             filename="xgboost.json")})
    return repo, booster


def infer(client, module, model: str, **inputs: np.ndarray):
    """One inference through tritonclient's `module` (http or grpc): inputs by name."""
    datatype = {np.dtype(np.float32): "FP32", np.dtype(np.object_): "BYTES"}
    tensors = []
    for name, array in inputs.items():
        tensors.append(module.InferInput(name, list(array.shape), datatype[array.dtype]))
        tensors[-1].set_data_from_numpy(array)
    return client.infer(model, tensors)


def identity_and_onnx(client, module) -> None:
    x = np.arange(16, dtype=np.float32).reshape(1, 16)
    y = np.full((1, 16), 2, dtype=np.float32)
    np.testing.assert_array_equal(
        infer(client, module, "identity_fp32", INPUT0=x).as_numpy("OUTPUT0"), x)
    result = infer(client, module, "onnx_add_sub", INPUT0=x, INPUT1=y)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT0"), x + y)
    np.testing.assert_array_equal(result.as_numpy("OUTPUT1"), x - y)


def python_text(client, module) -> None:
    text = np.array([b"  Hello   World ", b"inferd"], dtype=np.object_)
    result = infer(client, module, "python_text", TEXT=text)
    assert result.as_numpy("NORMALIZED").tolist() == [b"hello world", b"inferd"]
    assert result.as_numpy("WORDS").tolist() == [2, 1]


def assert_contained(server: ImageServer) -> None:
    """The server runs as the image's user, on its read-only root filesystem."""
    assert server.status("Uid").split()[:2] == ["1000", "1000"]
    assert "ro" in server.root_mount_options()


def test_default_image_serves_examples(images, tmp_path):
    from fil.tree_models import features, predict
    repo, booster = examples_with_fil_model(tmp_path)
    # No writable folder at all, /tmp included: serving writes nothing.
    server = ImageServer(images("default"), repo, ["--model-repository=/models"],
                         tmp_path / "server.log", writable_tmp=False)
    try:
        assert_contained(server)
        x = features(5, seed=7)
        for module, client in ((httpclient, httpclient.InferenceServerClient(server.address)),
                               (grpcclient, grpcclient.InferenceServerClient(server.grpc_address))):
            assert client.get_server_metadata()  # both protocols answer
            identity_and_onnx(client, module)
            python_text(client, module)
            got = infer(client, module, "trees", input__0=x).as_numpy("output__0").reshape(-1)
            # The trees' sums, up to the intercept: how XGBoost writes base_score
            # in JSON changed between the Python package's and the backend's
            # versions (tests/integration/fil checks the backend's numbers).
            offset = got - predict(booster, x)
            np.testing.assert_allclose(offset, np.full_like(offset, offset[0]), atol=1e-5)
    finally:
        assert server.stop() == 0, server.describe("exit code")


def test_onnx_image_runs_triton_launch_line(images, tmp_path):
    """`tritonserver --model-repository=...` (a Triton launch line) runs inferd."""
    repo = tmp_path / "models"
    for name in ("identity_fp32", "onnx_add_sub"):
        shutil.copytree(EXAMPLES / name, repo / name)
    server = ImageServer(images("onnx"), repo, ["tritonserver", "--model-repository=/models"],
                         tmp_path / "server.log")
    try:
        assert_contained(server)
        identity_and_onnx(grpcclient.InferenceServerClient(server.grpc_address), grpcclient)
        identity_and_onnx(httpclient.InferenceServerClient(server.address), httpclient)
    finally:
        assert server.stop() == 0, server.describe("exit code")


def test_torch_image_serves_torchscript(images, tmp_path):
    from pytorch.torch_models import AddMul, TorchModel, save, script, torch_config, \
        torch_repository
    config = torch_config("addmul", [("x", "FP32", [3]), ("y", "FP32", [3])],
                          [("OUTPUT__0", "FP32", [3]), ("OUTPUT__1", "FP32", [3])])
    repo = torch_repository(tmp_path / "models",
                            {"addmul": TorchModel(save(script(AddMul())), config)})
    server = ImageServer(images("torch"), repo, ["--model-repository=/models"],
                         tmp_path / "server.log")
    try:
        assert_contained(server)
        x, y = np.array([1, 2, 3], np.float32), np.array([4, 5, 6], np.float32)
        for module, client in ((httpclient, httpclient.InferenceServerClient(server.address)),
                               (grpcclient, grpcclient.InferenceServerClient(server.grpc_address))):
            result = infer(client, module, "addmul", x=x, y=y)
            np.testing.assert_array_equal(result.as_numpy("OUTPUT__0"), x + y)
            np.testing.assert_array_equal(result.as_numpy("OUTPUT__1"), x * y)
    finally:
        assert server.stop() == 0, server.describe("exit code")


def test_tools_run_in_the_image(images, tmp_path):
    """A command other than flags runs as given: the repository checker, on
    examples/models, and the tuner and load generator."""
    tool = ImageProcess(images("default"), EXAMPLES,
                        ["inferd-check-config", "--model-repository=/models"], tmp_path / "t.log")
    assert tool.wait_exit() == 0, tool.describe("inferd-check-config failed")
    bad = tmp_path / "bad"
    (bad / "m").mkdir(parents=True)
    (bad / "m" / "config.pbtxt").write_text('name: "m"\nbackend: "nonesuch"\n')
    tool = ImageProcess(images("default"), bad,
                        ["inferd-check-config", "--model-repository=/models"], tmp_path / "b.log")
    assert tool.wait_exit() != 0, tool.describe("a bad repository passed the check")
    # The tuner and the load generator start and print their usage: their
    # libraries are in the image.
    for name in ("inferd-tune", "inferd-loadgen"):
        tool = ImageProcess(images("default"), EXAMPLES, [name, "--help"],
                            tmp_path / f"{name}.log")
        assert tool.wait_exit() == 0, tool.describe(f"{name} --help failed")


def test_python_byte_code_matches_its_sources(images):
    """Each .pyc records its source's time and size: a stale one would be compiled
    again in memory at each stub start, since a read-only root cannot take the new one."""
    rootfs = images("default").rootfs
    sources = [rootfs / "opt/inferd/backends/python/inferd_python_stub.py",
               rootfs / "usr/lib/python3.11/asyncio/__init__.py",
               rootfs / "usr/lib/python3/dist-packages/numpy/__init__.py"]
    for source in sources:
        pyc = source.parent / "__pycache__" / f"{source.stem}.cpython-311.pyc"
        header = pyc.read_bytes()[:16]
        st = source.stat()
        assert int.from_bytes(header[4:8], "little") == 0, f"{pyc}: not timestamp-checked"
        assert int.from_bytes(header[8:12], "little") == int(st.st_mtime), pyc
        assert int.from_bytes(header[12:16], "little") == st.st_size, pyc


def load_with_file_override(server: ImageServer) -> None:
    """Loads 'uploaded', an ONNX model sent with the load request (Triton's file overrides)."""
    client = httpclient.InferenceServerClient(server.address)
    config = client.get_model_config("onnx_add_sub")
    config["name"] = "uploaded"
    model = (EXAMPLES / "onnx_add_sub" / "1" / "model.onnx").read_bytes()
    client.load_model("uploaded", config=json.dumps(config), files={"file:1/model.onnx": model})


@pytest.mark.parametrize("writable_tmp", [True, False])
def test_file_override_loads_write_to_tmp(images, tmp_path, writable_tmp):
    """The one place serving writes: a load's file overrides go to a folder under /tmp."""
    repo = tmp_path / "models"
    shutil.copytree(EXAMPLES / "onnx_add_sub", repo / "onnx_add_sub")
    server = ImageServer(images("onnx"), repo,
                         ["--model-repository=/models", "--model-control-mode=explicit",
                          "--load-model=onnx_add_sub"], tmp_path / "server.log", writable_tmp)
    try:
        if writable_tmp:
            load_with_file_override(server)
            assert httpclient.InferenceServerClient(server.address).is_model_ready("uploaded")
        else:
            with pytest.raises(Exception, match="cannot create a temporary folder for model "
                                                "'uploaded'"):
                load_with_file_override(server)
    finally:
        assert server.stop() == 0, server.describe("exit code")


@pytest.mark.parametrize("variant", ["llm", "torch"])
def test_image_serves_a_gguf_model_as_llama_cpp_does(images, tmp_path, variant):
    """The llamacpp backend in the images that carry it: llama.cpp's libraries and the CPU
    variants ggml opens at run time beside them. A tiny GGUF answers over
    /generate and the OpenAI API with the greedy text llama.cpp's own
    examples/simple generates on the host."""
    sys.path.insert(0, str(REPO_ROOT / "tests" / "integration" / "llamacpp"))
    import requests
    from llamacpp_util import (generate_body, simple_generate, tiny_config, write_model,
                               write_tiny_gguf)
    gguf = write_tiny_gguf(tmp_path / "tiny.gguf")
    repo = write_model(tmp_path / "models", "tiny", gguf, tiny_config("tiny"))
    prompt, max_tokens = "Once upon a time", 16
    expected = simple_generate(gguf, prompt, max_tokens)
    server = ImageServer(images(variant), repo, ["--model-repository=/models"],
                         tmp_path / "server.log")
    try:
        assert_contained(server)
        resp = requests.post(f"{server.url}/v2/models/tiny/generate",
                             json=generate_body(prompt, max_tokens), timeout=60)
        assert resp.status_code == 200, resp.text
        assert resp.json()["text_output"].replace("\0", "") == expected
        resp = requests.post(f"{server.url}/v1/completions", timeout=60,
                             json={"model": "tiny", "prompt": prompt, "max_tokens": max_tokens,
                                   "temperature": 0})
        assert resp.status_code == 200, resp.text
        assert resp.json()["choices"][0]["text"].replace("\0", "") == expected
    finally:
        assert server.stop() == 0, server.describe("exit code")
