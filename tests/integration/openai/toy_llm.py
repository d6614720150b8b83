"""The example toy_llm model (examples/models/toy_llm) for the OpenAI API tests:
its folder with chosen parameters, and what it answers, computed here the way
its model.py generates (word i = VOCABULARY[(seed * 7 + i * 3 + prompt words) % 16])."""

from __future__ import annotations

import re
from pathlib import Path

from util import Model

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "models" / "toy_llm"
VOCABULARY = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
              "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa"]


def toy_llm(name: str = "toy_llm", words: int = 12, delay_ms: int = 0,
            chat_template: str = "chatml") -> Model:
    """The example's folder renamed, with its parameters set."""
    config = (EXAMPLE / "config.pbtxt").read_text()
    config = config.replace('name: "toy_llm"', f'name: "{name}"')
    for key, value in (("words", words), ("delay_ms", delay_ms), ("chat_template", chat_template)):
        config, count = re.subn(rf'(key: "{key}" value: {{ string_value: )"[^"]*"',
                                lambda m, v=value: f'{m.group(1)}"{v}"', config)
        assert count == 1, key
    return Model(config=config, files={"1/model.py": (EXAMPLE / "1" / "model.py").read_text()})


def expected_words(prompt: str, count: int = 12, seed: int = 0) -> list[str]:
    offset = seed * 7 + len(prompt.split())
    return [VOCABULARY[(offset + i * 3) % 16] for i in range(count)]


def expected_text(prompt: str, count: int = 12, seed: int = 0) -> str:
    return "".join(" " + word for word in expected_words(prompt, count, seed))


def chatml(messages: list[tuple[str, str]]) -> str:
    """The prompt the chatml template makes of (role, content) pairs."""
    return ("".join(f"<|im_start|>{role}\n{content}<|im_end|>\n" for role, content in messages)
            + "<|im_start|>assistant\n")
