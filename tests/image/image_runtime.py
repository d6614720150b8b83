"""Runs an OCI image of `make image` the way a container runtime would, without one.

Podman cannot start containers in this sandbox (crun may not set rlimits or
use cgroups), so `unpack` turns the archive into a root filesystem with umoci
and `ImageProcess` runs the image's own entrypoint, user, environment and
working folder (read from the image's configuration) inside it: in a mount
namespace of its own, the root filesystem bound read-only, /proc, /dev and a
tmpfs /tmp mounted as runtimes do (or no writable
folder at all), the model repository bound read-only at
/models, chroot'ed, as the image's non-root user. Nothing of this machine's
/usr is visible to it, so it runs only if the image carries all it needs.
Needs root (mount namespaces and chroot), as `make image-test` has.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import requests

_PORT_RE = {
    "http": re.compile(r"Started HTTPService at (\S+):(\d+)"),
    "grpc": re.compile(r"Started GRPCInferenceService at (\S+):(\d+)"),
    "metrics": re.compile(r"Started Metrics Service at (\S+):(\d+)"),
}
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 30.0

# Run by sh in the new mount namespace: $1 the root filesystem, $2 the models,
# $3 "tmp" for a writable /tmp; the rest is the command (env -i ... chroot ...).
_MOUNTS = r"""
root=$1; models=$2; tmp=$3; shift 3
mount --bind "$root" "$root"
mount -o remount,bind,ro "$root"
mount -t proc proc "$root/proc"
mount --rbind /dev "$root/dev"
if [ "$tmp" = tmp ]; then mount -t tmpfs -o mode=1777,size=256m tmpfs "$root/tmp"; fi
mount --bind "$models" "$root/models"
mount -o remount,bind,ro "$root/models"
exec "$@"
"""


@dataclass
class Image:
    """An unpacked image: its root filesystem and its OCI image configuration."""

    rootfs: Path
    config: dict  # the image configuration's "config" object (User, Entrypoint, Labels, ...)

    @property
    def labels(self) -> dict:
        return self.config.get("Labels") or {}


def _blob(layout: Path, descriptor: dict) -> dict:
    algorithm, digest = descriptor["digest"].split(":")
    return json.loads((layout / "blobs" / algorithm / digest).read_text())


def unpack(archive: Path, into: Path) -> Image:
    """Unpacks an OCI archive (its only tag) with umoci, as a runtime would."""
    layout = into / "layout"
    layout.mkdir(parents=True)
    subprocess.run(["tar", "-xf", str(archive), "-C", str(layout)], check=True)
    index = json.loads((layout / "index.json").read_text())
    assert len(index["manifests"]) == 1, f"{archive}: one image expected, index: {index}"
    tag = index["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"]
    subprocess.run(["umoci", "unpack", "--image", f"{layout}:{tag}", str(into / "bundle")],
                   check=True, capture_output=True)
    manifest = _blob(layout, index["manifests"][0])
    config = _blob(layout, manifest["config"])
    return Image(rootfs=into / "bundle" / "rootfs", config=config["config"])


class ImageProcess:
    """The image's entrypoint with `args` (a container's command), run inside its rootfs."""

    def __init__(self, image: Image, models: Path, args: list[str], log_path: Path,
                 writable_tmp: bool = True):
        user = image.config["User"]
        env = image.config.get("Env", [])
        self.argv = [*image.config["Entrypoint"], *args]
        self.log_path = log_path
        self._log = open(log_path, "wb")
        # No --fork: unshare, sh, env and chroot each exec the next, so this pid
        # is the server's and SIGTERM reaches it as a runtime's would.
        self.process = subprocess.Popen(
            ["unshare", "--mount", "--propagation", "private", "--", "sh", "-ec", _MOUNTS, "sh",
             str(image.rootfs), str(models), "tmp" if writable_tmp else "-", "env", "-i", *env,
             shutil.which("chroot") or "/usr/sbin/chroot", f"--userspec={user}",
             str(image.rootfs), *self.argv],
            stdout=self._log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def log(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def describe(self, what: str) -> str:
        return f"{what}\nimage command: {self.argv}\n--- log ---\n{self.log()[-4000:]}"

    def wait_exit(self, timeout_s: float = STOP_TIMEOUT_S) -> int:
        try:
            return self.process.wait(timeout=timeout_s)
        finally:
            self._log.close()

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.wait_exit()
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError(self.describe("the server did not exit on SIGTERM"))


class ImageServer(ImageProcess):
    """The server of an image, started on ephemeral ports and waited on until ready."""

    def __init__(self, image: Image, models: Path, args: list[str], log_path: Path,
                 writable_tmp: bool = True):
        super().__init__(image, models, [*args, "--http-port=0", "--grpc-port=0",
                                         "--metrics-port=0"], log_path, writable_tmp)
        self.ports: dict[str, int] = {}
        try:
            self._wait_started()
        except BaseException:
            self.process.kill()
            self.wait_exit()
            raise

    def _wait_started(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(self.describe(f"exited with {self.process.returncode}"))
            log = self.log()
            for name, pattern in _PORT_RE.items():
                if name not in self.ports and (m := pattern.search(log)):
                    self.ports[name] = int(m.group(2))
            if len(self.ports) == len(_PORT_RE) and self._ready():
                return
            time.sleep(0.05)  # polls observable state: the log, then /v2/health/ready
        raise TimeoutError(self.describe("not ready within the start timeout"))

    def _ready(self) -> bool:
        try:
            return requests.get(f"{self.url}/v2/health/ready", timeout=2).status_code == 200
        except requests.RequestException:
            return False

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.ports['http']}"

    @property
    def url(self) -> str:
        return f"http://{self.address}"

    @property
    def grpc_address(self) -> str:
        return f"127.0.0.1:{self.ports['grpc']}"

    def status(self, field: str) -> str:
        """A line of /proc/<pid>/status, as the kernel sees the server."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return line.split(":", 1)[1].strip()
        raise KeyError(field)

    def root_mount_options(self) -> list[str]:
        """The options of the mount the server sees as /."""
        for line in Path(f"/proc/{self.process.pid}/mountinfo").read_text().splitlines():
            fields = line.split()
            if fields[4] == "/":
                return fields[5].split(",")
        raise AssertionError("no / in the server's mountinfo")
