"""What the bench sections share: the repository root, an identity model's
config, free ports, writing a model folder, and `Inferd`, the server under
test on free ports."""

import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# In a Kubernetes pod every inferd would wait its default 5 s grace at SIGTERM.
os.environ.pop("KUBERNETES_SERVICE_HOST", None)

IDENTITY_CONFIG = """name: "{name}"
backend: "identity"
max_batch_size: 64
input [ {{ name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] }} ]
output [ {{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] }} ]
{extra}"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write_model(repo, name, config, files=()):
    os.makedirs(os.path.join(repo, name, "1"), exist_ok=True)
    with open(os.path.join(repo, name, "config.pbtxt"), "w") as f:
        f.write(config)
    for source in files:
        shutil.copy(source, os.path.join(repo, name, "1"))


def http_get(url, timeout=2.0):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return 0


def ready_status(port, timeout=1.0):
    """The status of GET /v2/health/ready on 127.0.0.1:`port` over a plain
    socket (HTTP/1.1, one request, Connection: close); 0 when nothing answers.
    For start-up timing: urllib's own set-up costs about a millisecond per try."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(b"GET /v2/health/ready HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                      b"Connection: close\r\n\r\n")
            head = b""
            while b"\r\n" not in head:
                chunk = s.recv(256)
                if not chunk:
                    break
                head += chunk
        fields = head.split(b" ", 2)
        return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 0
    except OSError:
        return 0


class Inferd:
    """build/inferd on `repo` with free ports; `started` is when it was launched."""

    def __init__(self, build, repo, extra_args=()):
        self.http_port, self.grpc_port, self.metrics_port = free_port(), free_port(), free_port()
        self.log = tempfile.TemporaryFile()
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            [os.path.join(build, "inferd"), f"--model-repository={repo}",
             f"--backend-directory={os.path.join(build, 'backends')}",
             f"--http-port={self.http_port}", f"--grpc-port={self.grpc_port}",
             f"--metrics-port={self.metrics_port}", "--http-address=127.0.0.1",
             "--grpc-address=127.0.0.1", "--metrics-address=127.0.0.1", *extra_args],
            stdout=self.log, stderr=subprocess.STDOUT)

    def wait_ready(self, timeout=120):
        """Seconds from launch to the first 200 on /v2/health/ready (asked over
        a plain socket every 0.5 ms: the figure is the server's, not the poll's;
        a tighter poll takes measurable CPU from the server on two cores)."""
        while time.monotonic() - self.started < timeout:
            if self.process.poll() is not None:
                break
            if ready_status(self.http_port) == 200:
                return time.monotonic() - self.started
            time.sleep(0.0005)
        self.log.seek(0)
        tail = self.log.read().decode(errors="replace").strip().splitlines()[-3:]
        self.stop()
        raise RuntimeError("inferd did not become ready: " + " | ".join(tail))

    def rss_mib(self):
        with open(f"/proc/{self.process.pid}/status") as f:
            kib = int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))
        return kib / 1024

    def stop(self):
        if self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
