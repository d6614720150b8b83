"""What the API key tests (--auth-file, docs/security.md) share: the keys, the
auth file's entries, and the repository of identity models and the toy_llm of
the OpenAI tests. A module of its own name, not conftest: every test folder has a
conftest, and which one `import conftest` finds depends on the order pytest
collected them in."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "openai"))

from toy_llm import toy_llm  # noqa: E402
from util import single_identity  # noqa: E402

# name -> (secret, scopes, models or None). One key per scope, and some more.
KEYS = {
    "infer": ("infer-secret-0001", ["infer"], None),
    "metadata": ("metadata-secret-0002", ["metadata"], None),
    "repository": ("repository-secret-0003", ["repository"], None),
    "metrics": ("metrics-secret-0004", ["metrics"], None),
    "shared-memory": ("shm-secret-0005", ["shared-memory"], None),
    "trace": ("trace-secret-0006", ["trace"], None),
    "logging": ("logging-secret-0007", ["logging"], None),
    "admin": ("admin-secret-0008", ["admin"], None),
    "fraud": ("fraud-secret-0009", ["infer", "metadata"], ["fraud_*"]),
}

REPO = {
    "identity": single_identity("identity", "FP32", [4]),
    "fraud_v1": single_identity("fraud_v1", "FP32", [4]),
    "toy_llm": toy_llm(),
    "fraud_llm": toy_llm("fraud_llm"),
}


def sha256(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def key_entry(name: str, secret: str, scopes, models=None, **extra) -> dict:
    entry = {"name": name, "sha256": sha256(secret), "scopes": list(scopes)}
    if models is not None:
        entry["models"] = list(models)
    entry.update(extra)
    return entry


def write_keys(path: Path, entries: list[dict]) -> None:
    """Replaces the auth file whole (a rename), as a deployment would."""
    staged = path.with_suffix(".staged")
    staged.write_text(json.dumps({"keys": entries}, indent=2))
    staged.replace(path)


def bearer(name: str) -> dict:
    return {"Authorization": f"Bearer {KEYS[name][0]}"}


def all_keys() -> list[dict]:
    return [key_entry(name, secret, scopes, models)
            for name, (secret, scopes, models) in KEYS.items()]
