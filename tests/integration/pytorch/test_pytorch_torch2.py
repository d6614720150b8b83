"""TorchScript files saved by PyTorch 2.x (torch2_models/, written by
torch 2.15.0 with make_torch2_models.py and committed with its outputs) in
the pytorch backend's LibTorch 1.13.

Served with the outputs PyTorch 2.15 computed, over HTTP and gRPC: a
scripted two-input model returning a tuple, a traced MLP with weights
(Linear, ReLU, softmax), a scripted List[str] model (BYTES in and out), and a
floor division saved as file format version 4 (through PyTorch's operator
upgraders). Refused at load, the model UNAVAILABLE with a one-line reason: a
module using an operator PyTorch 1.13 lacks (scaled_dot_product_attention;
the reason names the file's format version and LibTorch's), a file format
version newer than LibTorch reads (an archive whose version record says 11),
a torch.save() file and a torch.export .pt2 archive, each named for what it
is.
"""

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from torch_models import TorchModel, torch_config, torch_repository

import torch  # noqa: E402  (after torch_models, which skips when the backend is missing)

FOLDER = Path(__file__).with_name("torch2_models") / "torch-2.15.0"
EXPECTED = json.loads((FOLDER / "expected.json").read_text())
LIBTORCH = "LibTorch " + ".".join(torch.__version__.split(".")[:2])  # Debian's: 1.13
F4 = [("INPUT__0", "FP32", [2, 4]), ("INPUT__1", "FP32", [2, 4])]
OUT4 = [("OUTPUT__0", "FP32", [2, 4]), ("OUTPUT__1", "FP32", [2, 4])]
X = np.array(EXPECTED["x"], dtype=np.float32)
Y = np.array(EXPECTED["y"], dtype=np.float32)


def model_bytes(name: str) -> bytes:
    return (FOLDER / name).read_bytes()


def with_version_record(archive: bytes, version: str) -> bytes:
    """The archive rewritten with its "<folder>/version" record set to `version`."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(archive)) as old, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as new:
        for info in old.infolist():
            data = old.read(info)
            if info.filename.endswith("/version") and info.filename.count("/") == 1:
                data = version.encode()
            new.writestr(info.filename, data)
    return out.getvalue()


SERVED = {  # name -> (file, inputs, outputs, the inputs' arrays, the expected outputs)
    "t2_addmul": ("addmul.pt", F4, OUT4, [X, Y], EXPECTED["addmul"]),
    "t2_mlp": ("mlp.pt", [("INPUT__0", "FP32", [2, 4])], [("OUTPUT__0", "FP32", [2, 3])], [X],
               [EXPECTED["mlp"]]),
    "t2_floordiv": ("floordiv.pt", F4, OUT4, [X, Y], EXPECTED["floordiv"]),
}
REFUSED = {  # name -> (file bytes, words the reason must hold)
    "t2_sdpa": (model_bytes("sdpa.pt"),
                ["Unknown builtin op: aten::scaled_dot_product_attention",
                 "TorchScript file format version 3", f"{LIBTORCH}.0 knows the operators"]),
    "t2_format_11": (with_version_record(model_bytes("addmul.pt"), "11\n"),
                     ["TorchScript file format version 11, newer than the 10 that "
                      f"{LIBTORCH}.0 reads (saved by a newer PyTorch)"]),
    "t2_eager": (model_bytes("eager.pt"), ["a torch.save() file", "not TorchScript"]),
    "t2_exported": (model_bytes("exported.pt2"), ["a torch.export / AOTInductor archive"]),
}


@pytest.fixture(scope="module")
def server(inferd, tmp_path_factory):
    models = {name: TorchModel(model_bytes(file), torch_config(name, inputs, outputs))
              for name, (file, inputs, outputs, _, _) in SERVED.items()}
    models["t2_text"] = TorchModel(model_bytes("text.pt"), torch_config(
        "t2_text", [("texts", "BYTES", [-1])], [("OUTPUT__0", "BYTES", [-1])]))
    for name, (data, _) in REFUSED.items():
        models[name] = TorchModel(data, torch_config(name, F4[:1], OUT4[:1]))
    return inferd(torch_repository(tmp_path_factory.mktemp("repo"), models), wait_for="live",
                  extra_args=["--exit-on-error=false"])


def infer(server, protocol, model, names_and_arrays, datatype="FP32"):
    module = httpclient if protocol == "http" else grpcclient
    client = server.client() if protocol == "http" else server.grpc_client()
    inputs = []
    for name, array in names_and_arrays:
        inp = module.InferInput(name, list(array.shape), datatype)
        inp.set_data_from_numpy(array)
        inputs.append(inp)
    return client.infer(model, inputs)


def test_the_committed_files_are_from_torch_2():
    assert EXPECTED["torch"].startswith("2.15.0"), EXPECTED["torch"]
    with zipfile.ZipFile(FOLDER / "floordiv.pt") as archive:
        assert archive.read("floordiv/version").strip() == b"4"


@pytest.mark.parametrize("protocol", ["http", "grpc"])
@pytest.mark.parametrize("model", list(SERVED))
def test_torch_2_modules_give_torch_2s_outputs(server, model, protocol):
    _, inputs, outputs, arrays, expected = SERVED[model]
    result = infer(server, protocol, model, [(i[0], a) for i, a in zip(inputs, arrays)])
    for (name, _, _), want in zip(outputs, expected):
        np.testing.assert_allclose(result.as_numpy(name), np.array(want, dtype=np.float32),
                                   rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_a_torch_2_string_module_answers_bytes(server, protocol):
    texts = np.array([t.encode() for t in EXPECTED["texts"]], dtype=np.object_)
    result = infer(server, protocol, "t2_text", [("texts", texts)], "BYTES")
    assert [t.decode() for t in result.as_numpy("OUTPUT__0")] == EXPECTED["text"]


@pytest.mark.parametrize("model", list(REFUSED))
def test_what_libtorch_1_13_cannot_run_is_refused_naming_it(server, model):
    entry = {e["name"]: e for e in server.post("/v2/repository/index").json()}[model]
    assert entry["state"] == "UNAVAILABLE"
    for needle in [model, "LibTorch cannot load"] + REFUSED[model][1]:
        assert needle in entry["reason"], f"{needle!r} not in {entry['reason']!r}"
    assert "\n" not in entry["reason"]
