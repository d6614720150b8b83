"""What the llamacpp tests share: the tiny GGUF model in a model repository,
llama.cpp's own llama-server (built by scripts/install-llamacpp.sh from the
same source) on the same file, and the OpenAI tensor convention's requests."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tiny_gguf import write_tiny_gguf  # noqa: E402
from util import REPO_ROOT, wait_until  # noqa: E402

# One llama.cpp thread: on a loaded 2-core box, two threads meeting at each
# op's barrier wait for each other's time slice, and a token can take seconds.
THREADS = 1


def llamacpp_dir() -> Path:
    out = subprocess.run(["bash", str(REPO_ROOT / "scripts/install-llamacpp.sh"), "--print-dir"],
                         check=True, capture_output=True, text=True).stdout.strip()
    return Path(out)


def llama_server_binary() -> Path:
    """llama.cpp's own server (and examples/simple), built on first use: `make build`
    builds only the libraries, since only these tests and the bench need the server."""
    subprocess.run(["bash", str(REPO_ROOT / "scripts/install-llamacpp.sh"), "--with-server"],
                   check=True, stdout=subprocess.DEVNULL)
    return llamacpp_dir() / "build" / "bin" / "llama-server"


def simple_generate(gguf: Path, prompt: str, max_tokens: int) -> str:
    """What llama.cpp's examples/simple generates greedily after `prompt`. It
    echoes "<s>" and the prompt (SentencePiece's leading space before it) and
    prints pieces with printf("%s"), so a NUL byte token prints as nothing."""
    out = subprocess.run([str(llama_server_binary().parent / "llama-simple"), "-m", str(gguf),
                          "-n", str(max_tokens), prompt], check=True, capture_output=True).stdout
    echo = ("<s> " + prompt).encode()
    assert out.startswith(echo) and out.endswith(b"\n"), out
    return out[len(echo):-1].decode()


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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LlamaServer:
    """llama.cpp's own server on `gguf`: one slot, the same threads."""

    def __init__(self, gguf: Path, log_path: Path, context: int = 512):
        self.port = free_port()
        self.log = open(log_path, "wb")
        self.process = subprocess.Popen(
            [str(llama_server_binary()), "-m", str(gguf), "--host", "127.0.0.1",
             "--port", str(self.port), "-np", "1", "-c", str(context), "-t", str(THREADS),
             "--no-warmup"], stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_until(self._healthy, timeout=120)

    def _healthy(self) -> bool:
        assert self.process.poll() is None, "llama-server exited; see its log"
        try:
            return requests.get(f"http://127.0.0.1:{self.port}/health", timeout=5).ok
        except requests.ConnectionError:
            return False

    def complete(self, prompt: str, max_tokens: int, **extra) -> dict:
        body = {"prompt": prompt, "n_predict": max_tokens, "temperature": 0,
                "cache_prompt": False, "seed": 0, **extra}
        resp = requests.post(f"http://127.0.0.1:{self.port}/completion", json=body, timeout=120)
        resp.raise_for_status()
        return resp.json()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()
