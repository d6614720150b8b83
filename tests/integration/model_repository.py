"""Model repositories on disk: model folders, identity-backend configs, and
touching a file so that a repository load sees it changed."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from kserve_datatypes import CONFIG_TYPE


@dataclass
class Model:
    """One model folder: config.pbtxt text (None: no config file), version folders,
    and extra files as {relative path: text}."""

    config: str | None
    versions: Sequence[int] = (1,)
    files: Mapping[str, str] = field(default_factory=dict)


def tensor_block(name: str, datatype: str, dims: Sequence[int]) -> str:
    return (
        "  {\n"
        f'    name: "{name}"\n'
        f"    data_type: {CONFIG_TYPE[datatype]}\n"
        f"    dims: [ {', '.join(str(d) for d in dims)} ]\n"
        "  }"
    )


def identity_config(
    name: str,
    tensors: Sequence[tuple[str, str, str, Sequence[int]]],
    max_batch_size: int = 0,
    version_policy: str | None = None,
    extra: str = "",
) -> str:
    """config.pbtxt for an identity-backend model; `tensors` lists
    (input name, output name, datatype, dims): output i copies input i."""
    inputs = ",\n".join(tensor_block(i, dt, dims) for i, _, dt, dims in tensors)
    outputs = ",\n".join(tensor_block(o, dt, dims) for _, o, dt, dims in tensors)
    text = (
        f'name: "{name}"\n'
        'backend: "identity"\n'
        f"max_batch_size: {max_batch_size}\n"
        f"input [\n{inputs}\n]\n"
        f"output [\n{outputs}\n]\n"
    )
    if version_policy:
        text += f"version_policy: {version_policy}\n"
    return text + extra


def single_identity(name: str, datatype: str, dims: Sequence[int], max_batch_size: int = 0,
                    **kwargs) -> str:
    """INPUT0 -> OUTPUT0 identity model."""
    return identity_config(name, [("INPUT0", "OUTPUT0", datatype, dims)], max_batch_size, **kwargs)


def write_repository(root: Path, models: Mapping[str, str | Model]) -> Path:
    """Writes a model repository under `root` (created if needed). A value that is
    a plain string is the config.pbtxt of a model with version folder 1/."""
    root.mkdir(parents=True, exist_ok=True)
    for name, spec in models.items():
        model = spec if isinstance(spec, Model) else Model(config=spec)
        folder = root / name
        folder.mkdir()
        if model.config is not None:
            (folder / "config.pbtxt").write_text(model.config)
        for version in model.versions:
            (folder / str(version)).mkdir()
        for rel, text in model.files.items():
            path = folder / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    return root


def touch(path: Path) -> None:
    """Gives `path` a modification time later than both its own and now, so that a
    plain repository load sees its model's files changed and reloads it (an
    unchanged model is left alone, as Triton does)."""
    stamp = max(time.time_ns(), path.stat().st_mtime_ns + 1_000_000_000)
    os.utime(path, ns=(stamp, stamp))
