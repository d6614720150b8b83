"""Writes the TorchScript files of this folder with the PyTorch that runs it,
and expected.json (each model's inputs and that PyTorch's outputs), into
torch-<version>/. The server runs Debian's LibTorch 1.13; these files show
what it does with modules saved by PyTorch 2.x.

PyPI's Linux torch wheel is a CUDA build (0.9 GB, and its CUDA libraries are
needed to import it), so these were made once, in a throwaway environment:

    /usr/bin/python3 -m venv /tmp/t2
    /tmp/t2/bin/pip install torch==2.15.0 numpy   # 5.4 GB with its CUDA dependencies
    /tmp/t2/bin/python make_torch2_models.py

Files: addmul.pt (scripted, tuple output), mlp.pt (traced Linear-ReLU-Linear-
Softmax with weights), text.pt (scripted, List[str] in and out), floordiv.pt
(scripted torch.div(rounding_mode="floor") and //: PyTorch writes it as file
format version 4, through its operator upgraders), sdpa.pt (uses
aten::scaled_dot_product_attention, which PyTorch 1.13 does not have),
eager.pt (torch.save of a module: no TorchScript), exported.pt2
(torch.export.save).
"""

import json
import warnings
from pathlib import Path
from typing import List, Tuple

import torch

warnings.simplefilter("ignore")  # torch.jit is deprecated in 2.x, still what LibTorch runs


class AddMul(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return x + y, x * y


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.first = torch.nn.Linear(4, 8)
        self.second = torch.nn.Linear(8, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.second(torch.relu(self.first(x))), dim=1)


class Text(torch.nn.Module):
    def forward(self, texts: List[str]) -> List[str]:
        return [t.upper() + "!" for t in texts]


class FloorDiv(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return torch.div(x, y, rounding_mode="floor"), x // y


class Sdpa(torch.nn.Module):
    def forward(self, q: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.scaled_dot_product_attention(q, q, q)


def main() -> None:
    out = Path(__file__).with_name(f"torch-{torch.__version__.split('+')[0]}")
    out.mkdir(exist_ok=True)
    torch.manual_seed(7)
    x = torch.tensor([[1.5, -2.0, 3.0, 0.25], [-7.0, 5.5, 2.0, -1.0]])
    y = torch.tensor([[2.0, 3.0, -2.0, 0.5], [3.0, -2.0, 0.75, 4.0]])
    mlp = Mlp().eval()
    modules = {"addmul": torch.jit.script(AddMul()), "mlp": torch.jit.trace(mlp, (x,)),
               "text": torch.jit.script(Text()), "floordiv": torch.jit.script(FloorDiv()),
               "sdpa": torch.jit.script(Sdpa())}
    for name, module in modules.items():
        module.save(str(out / f"{name}.pt"))
    torch.save(mlp, out / "eager.pt")
    torch.export.save(torch.export.export(mlp, (x,)), out / "exported.pt2")
    with torch.no_grad():
        expected = {
            "torch": torch.__version__,
            "x": x.tolist(), "y": y.tolist(), "texts": ["hello", "Wörld"],
            "addmul": [t.tolist() for t in modules["addmul"](x, y)],
            "mlp": modules["mlp"](x).tolist(),
            "text": modules["text"](["hello", "Wörld"]),
            "floordiv": [t.tolist() for t in modules["floordiv"](x, y)],
        }
    (out / "expected.json").write_text(json.dumps(expected, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
