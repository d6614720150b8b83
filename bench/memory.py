"""Section 12 of bench.py: what a loaded ONNX model costs, and load/unload cycles.

One server in explicit model-control mode over a repository of two copies of the
compute-bound MLP (examples/models/onnx_mlp, 38 MB of FP32 weights) and the small
onnx_add_sub. Its RSS (VmRSS) with no model loaded, after loading the first MLP
(which also pays for libonnxruntime's pages and environment), after loading the
second; each cost is printed against the ceiling, weights + 10 MiB. The whole
process with one MLP loaded (the issue's measure: RSS against the weights + 10
MiB) is split into anonymous memory (private: heap, the weights, ONNX Runtime's
environment) and file-backed pages (the code of inferd, libonnxruntime and the
C/C++ libraries: clean, shared with any other process mapping them, and
dropped by the kernel under pressure), with the peak (VmHWM) the load reached.
Then, with
another copy of onnx_add_sub loaded throughout (so the onnxruntime backend stays
open), onnx_add_sub is loaded and unloaded over the repository API `cycles` times: the
RSS after the first cycle and after the last, whose ratio should stay <= 1.05
(growth would be a leak, or memory the allocator keeps and never reuses).
"""
import os
import re
import shutil
import tempfile
import time
import urllib.request

CEILING_MIB = 10


def _post(port, path):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=b"", method="POST")
    with urllib.request.urlopen(request, timeout=120) as response:
        response.read()


def _ready(port, model):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v2/models/{model}/ready",
                                    timeout=5) as response:
            return response.status == 200
    except urllib.error.HTTPError:
        return False


def _load(port, model):
    _post(port, f"/v2/repository/models/{model}/load")


def _unload(port, model):
    _post(port, f"/v2/repository/models/{model}/unload")
    deadline = time.monotonic() + 60
    while _ready(port, model) and time.monotonic() < deadline:
        time.sleep(0.001)


def _settled_rss(server):
    time.sleep(0.3)  # let unload and stats threads finish what they free
    return server.rss_mib()


def _status_mib(server):
    """VmRSS, RssAnon, RssFile and VmHWM of the server, in MiB."""
    with open(f"/proc/{server.process.pid}/status") as f:
        text = f.read()
    return {key: int(re.search(rf"{key}:\s+(\d+) kB", text).group(1)) / 1024
            for key in ("VmRSS", "RssAnon", "RssFile", "VmHWM")}


def _print_whole_process(label, status, empty, weights):
    """The whole process's RSS with `status` against the weights, split."""
    over = status["VmRSS"] - weights
    print(f"   whole process, {label}: RSS {status['VmRSS']:.1f} MiB = weights {weights:.1f} + "
          f"{over:.1f} MiB; ceiling weights + {CEILING_MIB}: ratio {over / CEILING_MIB:.2f}")
    print(f"     anonymous {status['RssAnon']:.1f} MiB = weights + "
          f"{status['RssAnon'] - weights:.1f} (no model: {empty['RssAnon']:.1f}); file-backed "
          f"code and data {status['RssFile']:.1f} MiB (no model: {empty['RssFile']:.1f}); "
          f"peak while loading {status['VmHWM']:.1f} MiB")


def _copy_model(root, repo, source, name):
    template = open(os.path.join(root, "examples", "models", source, "config.pbtxt")).read()
    config = re.sub(r'name: "%s"' % source, f'name: "{name}"', template)
    os.makedirs(os.path.join(repo, name, "1"))
    with open(os.path.join(repo, name, "config.pbtxt"), "w") as f:
        f.write(config)
    os.symlink(os.path.join(root, "examples", "models", source, "1", "model.onnx"),
               os.path.join(repo, name, "1", "model.onnx"))


def section_memory(build, args, Inferd, root, cycles=1000):
    print("== 12. memory: ONNX models loaded, load/unload cycles (VmRSS) ==")
    mlp = os.path.join(root, "examples", "models", "onnx_mlp", "1", "model.onnx")
    if not os.path.isfile(os.path.join(build, "backends", "onnxruntime",
                                       "libinferd_onnxruntime.so")):
        print("   skipped: the onnxruntime backend is not built\n")
        return
    if not os.path.isfile(mlp):
        print("   skipped: examples/models/onnx_mlp/1/model.onnx is missing (make models)\n")
        return
    weights = os.path.getsize(mlp) / 2**20
    repo = tempfile.mkdtemp(prefix="inferd-bench-memory-")
    for name in ("mlp_a", "mlp_b"):
        _copy_model(root, repo, "onnx_mlp", name)
    _copy_model(root, repo, "onnx_add_sub", "add_sub")
    _copy_model(root, repo, "onnx_add_sub", "add_sub_anchor")
    server = Inferd(build, repo, extra_args=["--model-control-mode=explicit"])
    try:
        server.wait_ready()
        empty = _settled_rss(server)
        empty_status = _status_mib(server)
        _load(server.http_port, "mlp_a")
        first = _settled_rss(server)
        first_status = _status_mib(server)
        _load(server.http_port, "mlp_b")
        second = _settled_rss(server)
        print(f"   no model loaded                      {empty:8.1f} MiB")
        for label, cost in (("first MLP (+ libonnxruntime)", first - empty),
                            ("second MLP", second - first)):
            over = cost - weights
            print(f"   {label:30} +{cost:7.1f} MiB = weights {weights:.1f} + {over:5.1f} MiB; "
                  f"ceiling weights + {CEILING_MIB}: ratio {over / CEILING_MIB:.2f}")
        _print_whole_process("one MLP loaded", first_status, empty_status, weights)
        _unload(server.http_port, "mlp_b")
        _unload(server.http_port, "mlp_a")
        # Loaded throughout, so the cycles load and unload a model, not the
        # onnxruntime backend (which closes with its last model).
        _load(server.http_port, "add_sub_anchor")
        after_first = None
        started = time.monotonic()
        for cycle in range(cycles):
            _load(server.http_port, "add_sub")
            _unload(server.http_port, "add_sub")
            if cycle == 0:
                after_first = _settled_rss(server)
        seconds = time.monotonic() - started
        last = _settled_rss(server)
        print(f"   onnx_add_sub loaded and unloaded {cycles} times ({seconds * 1000 / cycles:.1f} ms a cycle):")
        print(f"   RSS after the first cycle {after_first:.1f} MiB, after the last {last:.1f} MiB: "
              f"ratio {last / after_first:.3f} (ceiling 1.05)\n")
    finally:
        server.stop()
        shutil.rmtree(repo, ignore_errors=True)
