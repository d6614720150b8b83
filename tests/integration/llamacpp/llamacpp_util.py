"""What the llamacpp tests share: the tiny GGUF model in a model repository,
llama.cpp's own programs on the same libraries as the backend (its
examples/simple greedy generator and tools/tokenize, built by
scripts/install-llamacpp.sh --with-tools), and the OpenAI tensor convention's
requests."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tiny_gguf import write_tiny_gguf  # noqa: E402,F401 (the fixtures' import)
from util import REPO_ROOT  # noqa: E402

# One llama.cpp thread: on a loaded 2-core box, two threads meeting at each
# op's barrier wait for each other's time slice, and a token can take seconds.
THREADS = 1


def llamacpp_dir() -> Path:
    out = subprocess.run(["bash", str(REPO_ROOT / "scripts/install-llamacpp.sh"), "--print-dir"],
                         check=True, capture_output=True, text=True).stdout.strip()
    return Path(out)


def llamacpp_program(name: str) -> Path:
    """One of llama.cpp's programs (llama-simple, llama-tokenize), built on the
    backend's llama.cpp libraries on first use (seconds)."""
    subprocess.run(["bash", str(REPO_ROOT / "scripts/install-llamacpp.sh"), "--with-tools"],
                   check=True, stdout=subprocess.DEVNULL)
    return llamacpp_dir() / "build" / "bin" / name


def simple_run(gguf: Path, prompt: str, max_tokens: int) -> tuple[str, int]:
    """What llama.cpp's examples/simple generates greedily after `prompt`, and
    how many tokens it generated. It echoes "<s>" and the prompt (SentencePiece's
    leading space before it), prints pieces with printf("%s"), so a NUL byte
    token prints as nothing, and reports "decoded N tokens" on stderr."""
    run = subprocess.run([str(llamacpp_program("llama-simple")), "-m", str(gguf),
                          "-n", str(max_tokens), prompt], check=True, capture_output=True)
    echo = ("<s> " + prompt).encode()
    out = run.stdout
    assert out.startswith(echo) and out.endswith(b"\n"), out
    decoded = re.search(rb"decoded (\d+) tokens", run.stderr)
    assert decoded, run.stderr[-500:]
    return out[len(echo):-1].decode(), int(decoded.group(1))


def simple_generate(gguf: Path, prompt: str, max_tokens: int) -> str:
    return simple_run(gguf, prompt, max_tokens)[0]


def prompt_tokens(gguf: Path, prompt: str) -> int:
    """How many tokens llama.cpp's tools/tokenize makes of `prompt` (with the
    beginning-of-sequence token, as a completion evaluates it)."""
    run = subprocess.run([str(llamacpp_program("llama-tokenize")), "-m", str(gguf), "-p", prompt,
                          "--show-count", "--log-disable"], check=True, capture_output=True)
    count = re.search(rb"Total number of tokens: (\d+)", run.stdout)
    assert count, run.stdout[-500:]
    return int(count.group(1))


def tiny_config(name: str, parallel: int = 8, context_size: int = 4096,
                extra: str = "") -> str:
    """The convention spelled out (as docs/llamacpp-backend.md shows it)."""
    flags = ["stream", "exclude_input_in_output", "return_finish_reason",
             "return_num_input_tokens", "return_num_output_tokens"]
    inputs = ['  { name: "text_input" data_type: TYPE_STRING dims: [ 1 ] }',
              '  { name: "sampling_parameters" data_type: TYPE_STRING dims: [ 1 ] optional: true }']
    inputs += [f'  {{ name: "{f}" data_type: TYPE_BOOL dims: [ 1 ] optional: true }}' for f in flags]
    outputs = ['  { name: "text_output" data_type: TYPE_STRING dims: [ -1 ] }',
               '  { name: "finish_reason" data_type: TYPE_STRING dims: [ -1 ] }',
               '  { name: "num_input_tokens" data_type: TYPE_UINT32 dims: [ 1 ] }',
               '  { name: "num_output_tokens" data_type: TYPE_UINT32 dims: [ 1 ] }']
    params = {"parallel": parallel, "context_size": context_size, "threads": THREADS, "seed": 0}
    return (f'name: "{name}"\nbackend: "llamacpp"\nmax_batch_size: 0\n'
            "model_transaction_policy { decoupled: true }\n"
            "input [\n" + ",\n".join(inputs) + "\n]\n"
            "output [\n" + ",\n".join(outputs) + "\n]\n"
            "instance_group [ { kind: KIND_CPU count: 1 } ]\n"
            + "".join(f'parameters {{ key: "{k}" value: {{ string_value: "{v}" }} }}\n'
                      for k, v in params.items()) + extra)


def write_model(root: Path, name: str, gguf: Path | bytes, config: str | None) -> Path:
    """<root>/<name>/1/model.gguf (a copy of `gguf`, or these bytes) and its config."""
    folder = root / name
    (folder / "1").mkdir(parents=True)
    target = folder / "1" / "model.gguf"
    if isinstance(gguf, bytes):
        target.write_bytes(gguf)
    else:
        shutil.copyfile(gguf, target)
    if config is not None:
        (folder / "config.pbtxt").write_text(config)
    return root


def sampling(max_tokens: int, **extra) -> str:
    return json.dumps({"temperature": 0, "max_tokens": max_tokens, **extra})


def generate_body(prompt: str, max_tokens: int, stream: bool = False, **extra) -> dict:
    return {"text_input": prompt, "sampling_parameters": sampling(max_tokens, **extra),
            "stream": stream, "exclude_input_in_output": True,
            "return_finish_reason": True, "return_num_output_tokens": True,
            "return_num_input_tokens": True}
