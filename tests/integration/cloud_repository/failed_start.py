"""A start of inferd that must fail, for the cloud repository tests. A module of
its own name, not conftest: which folder's conftest `import conftest` finds
depends on the order pytest collected the folders in."""

from __future__ import annotations

import subprocess

from util import backend_directory, inferd_binary


def run_to_exit(args, timeout: float = 60) -> subprocess.CompletedProcess:
    """inferd run with `args` until it exits (a start that must fail)."""
    return subprocess.run(
        [str(inferd_binary()), f"--backend-directory={backend_directory()}", "--http-port=0",
         "--grpc-port=0", "--metrics-port=0", *args],
        capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
