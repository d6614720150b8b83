"""A tiny llama-architecture GGUF made at test time with the `gguf` package:
random weights (seeded, so every run makes the same file), 2 layers, a
SentencePiece-style vocabulary of ASCII byte tokens, every printable ASCII
character, a few words and two multi-byte UTF-8 pieces, and a ChatML template
in its metadata. Logits are spread wide (large output weights) so that greedy
choices are not near ties, which float summation order could flip between
llama.cpp's batched and single-sequence kernels."""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np

N_EMBD = 64
N_HEAD = 4
N_HEAD_KV = 2
N_FF = 128
N_LAYER = 2
CONTEXT = 2048
CHATML = ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + "
          "message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}"
          "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")
WORDS = ["the", "a", "of", "and", "to", "in", "is", "it", "hello", "world", "once", "upon",
         "time", "there", "was", "cat", "dog", "story", "llama", "model", "café"]


def vocabulary() -> tuple[list[str], list[float], list[int]]:
    tokens = ["<unk>", "<s>", "</s>"]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
    for byte in range(128):
        tokens.append(f"<0x{byte:02X}>")
        types.append(gguf.TokenType.BYTE)
    pieces = ["\u2581"] + [chr(c) for c in range(33, 127)] + ["€"]
    pieces += ["\u2581" + word for word in WORDS] + ["er", "in", "on", "at", "th"]
    tokens += pieces
    types += [gguf.TokenType.NORMAL] * len(pieces)
    # SentencePiece merges towards higher scores: longer pieces score higher.
    scores = [0.0] * (3 + 128) + [float(len(p)) - 10.0 for p in pieces]
    return tokens, scores, [int(t) for t in types]


def write_tiny_gguf(path: Path, seed: int = 7) -> Path:
    tokens, scores, types = vocabulary()
    rng = np.random.default_rng(seed)

    def weight(*shape: int, scale: float = 0.2) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name("inferd-tiny-llama")
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD_KV)
    writer.add_rope_dimension_count(N_EMBD // N_HEAD)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_unk_token_id(0)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)
    writer.add_chat_template(CHATML)
    n_vocab, kv = len(tokens), N_EMBD // N_HEAD * N_HEAD_KV
    writer.add_tensor("token_embd.weight", weight(n_vocab, N_EMBD, scale=1.0))
    for layer in range(N_LAYER):
        block = f"blk.{layer}"
        writer.add_tensor(f"{block}.attn_norm.weight", np.ones(N_EMBD, np.float32))
        writer.add_tensor(f"{block}.attn_q.weight", weight(N_EMBD, N_EMBD))
        writer.add_tensor(f"{block}.attn_k.weight", weight(kv, N_EMBD))
        writer.add_tensor(f"{block}.attn_v.weight", weight(kv, N_EMBD))
        writer.add_tensor(f"{block}.attn_output.weight", weight(N_EMBD, N_EMBD))
        writer.add_tensor(f"{block}.ffn_norm.weight", np.ones(N_EMBD, np.float32))
        writer.add_tensor(f"{block}.ffn_gate.weight", weight(N_FF, N_EMBD))
        writer.add_tensor(f"{block}.ffn_up.weight", weight(N_FF, N_EMBD))
        writer.add_tensor(f"{block}.ffn_down.weight", weight(N_EMBD, N_FF))
    writer.add_tensor("output_norm.weight", np.ones(N_EMBD, np.float32))
    writer.add_tensor("output.weight", weight(n_vocab, N_EMBD, scale=2.0))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


if __name__ == "__main__":
    import sys
    print(write_tiny_gguf(Path(sys.argv[1])))
