"""TorchScript models made at test time with Debian's python3-torch (scripted or
traced, then saved), their config.pbtxt texts and repositories holding them.

    repo = torch_repository(tmp_path, {"m": TorchModel(script(AddMul()), CONFIG)})

Importing this module skips the importing test module when the pytorch backend
was not built (a build without LibTorch, INFERD_WITH_PYTORCH=OFF); torch itself
must be there (scripts/install-deps.sh installs it).
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Mapping, Sequence, Tuple

import pytest

from util import Model, backend_directory, tensor_block, write_repository

BACKEND_LIBRARY = backend_directory() / "pytorch" / "libinferd_pytorch.so"
if not BACKEND_LIBRARY.is_file():
    pytest.skip(f"the pytorch backend was not built ({BACKEND_LIBRARY} is missing)",
                allow_module_level=True)

import torch  # noqa: E402

# KServe datatype -> torch dtype (Triton's table, plus BF16).
TORCH_DTYPE = {
    "BOOL": torch.bool,
    "UINT8": torch.uint8,
    "INT8": torch.int8,
    "INT16": torch.int16,
    "INT32": torch.int32,
    "INT64": torch.int64,
    "FP16": torch.float16,
    "BF16": torch.bfloat16,
    "FP32": torch.float32,
    "FP64": torch.float64,
}


@dataclass
class TorchModel:
    """A model folder: the saved TorchScript bytes (written to
    <version>/<filename>), its config.pbtxt text (None: no config file)."""

    model: bytes
    config: str | None
    filename: str = "model.pt"
    versions: Sequence[int] = (1,)
    files: Mapping[str, str] = field(default_factory=dict)


def save(module: torch.jit.ScriptModule) -> bytes:
    buffer = io.BytesIO()
    torch.jit.save(module, buffer)
    return buffer.getvalue()


def script(module: torch.nn.Module) -> torch.jit.ScriptModule:
    return torch.jit.script(module.eval())


def trace(module: torch.nn.Module, *example) -> torch.jit.ScriptModule:
    return torch.jit.trace(module.eval(), example)


def torch_config(name: str, inputs: Sequence[tuple[str, str, Sequence[int]]],
                 outputs: Sequence[tuple[str, str, Sequence[int]]], max_batch_size: int = 0,
                 extra: str = "", platform: bool = True) -> str:
    """config.pbtxt for a TorchScript model; tensors are (name, datatype, dims)."""
    ins = ",\n".join(tensor_block(n, dt, dims) for n, dt, dims in inputs)
    outs = ",\n".join(tensor_block(n, dt, dims) for n, dt, dims in outputs)
    kind = 'platform: "pytorch_libtorch"' if platform else 'backend: "pytorch"'
    return (f'name: "{name}"\n{kind}\nmax_batch_size: {max_batch_size}\n'
            f"input [\n{ins}\n]\noutput [\n{outs}\n]\n{extra}")


def torch_repository(root: Path, models: Mapping[str, TorchModel | str | Model]) -> Path:
    """Writes a repository: TorchModel entries get their file in each version
    folder; other entries are as util.write_repository takes them."""
    plain = {}
    for name, spec in models.items():
        if isinstance(spec, TorchModel):
            plain[name] = Model(config=spec.config, versions=spec.versions, files=spec.files)
        else:
            plain[name] = spec
    write_repository(root, plain)
    for name, spec in models.items():
        if isinstance(spec, TorchModel):
            for version in spec.versions:
                path = root / name / str(version) / spec.filename
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(spec.model)
    return root


# ---------------------------------------------------------------------------
# Modules (TorchScript needs their source, hence this file)


def linear(in_features: int, out_features: int, seed: int = 3) -> torch.nn.Linear:
    """nn.Linear with small integer weights and bias, so that its results are
    exact in FP32 whatever the batch (no rounding differs between batch sizes)."""
    generator = torch.Generator().manual_seed(seed)
    layer = torch.nn.Linear(in_features, out_features)
    with torch.no_grad():
        layer.weight.copy_(torch.randint(-3, 4, (out_features, in_features), generator=generator))
        layer.bias.copy_(torch.randint(-5, 6, (out_features,), generator=generator))
    return layer


class AddMul(torch.nn.Module):
    """Two inputs, a tuple of two outputs."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return x + y, x * y


class IntArith(torch.nn.Module):
    """INT64 arithmetic that float would round: x * 3 + y // 2 and x ^ y."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return x * 3 + torch.div(y, 2, rounding_mode="floor"), torch.bitwise_xor(x, y)


class Subtract(torch.nn.Module):
    """minuend - subtrahend: which input feeds which argument shows in the sign."""

    def forward(self, minuend: torch.Tensor, subtrahend: torch.Tensor) -> torch.Tensor:
        return minuend - subtrahend


class SumDiff(torch.nn.Module):
    """A dictionary output."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> Dict[str, torch.Tensor]:
        return {"sum": x + y, "diff": x - y}


class Words(torch.nn.Module):
    """List[str] in; each word's length (INT64) and the words upper-cased out."""

    def forward(self, words: List[str]) -> Tuple[torch.Tensor, List[str]]:
        lengths = torch.tensor([len(w) for w in words], dtype=torch.int64)
        return lengths, [w.upper() for w in words]


class Relu(torch.nn.Module):
    """relu(x), any shape."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


class Copy(torch.nn.Module):
    """The input, copied (any dtype)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.clone()


class BatchSize(torch.nn.Module):
    """x + the number of rows forward() was called with: each answer tells the
    batch it ran in."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + x.shape[0]


class GradState(torch.nn.Module):
    """[input is an inference tensor, autograd on]: what INFERENCE_MODE changes."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tensor([[int(x.is_inference()), int(torch.is_grad_enabled())]],
                            dtype=torch.int64).expand(x.shape[0], 2).contiguous()


class Rendezvous(torch.nn.Module):
    """Marks flags[me] = 1 in its input (a view of the client's shared memory
    when the backend does not copy it) and spins until the client sets flags[2]
    (or `limit` checks pass). Returns [released, checks]."""

    def forward(self, flags: torch.Tensor, me: torch.Tensor) -> torch.Tensor:
        flags[int(me[0])] = 1
        checks = 0
        limit = 20000000  # about a minute: the failure, not the pass, waits for it
        while int(flags[2]) == 0 and checks < limit:
            checks += 1
        return torch.tensor([int(flags[2]), checks], dtype=torch.int64)
