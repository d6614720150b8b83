"""Section 16 of bench.py: a model repository on S3 (issue 42).

100 ONNX models of 5 MB each (config.pbtxt + 1/model.onnx: OUTPUT0 = INPUT0 x W,
W a 81920 x 16 FP32 initializer of random values, different in every model, so
ONNX Runtime reads all 5 MB of each model when it loads it: the local figure
does the work the S3 one does, bar the download) in a local folder and, the
same files, in a bucket of moto's S3 server (PyPI moto[server], started here on
a free port, loopback). Printed: seconds from
launch to ready from local disk, from S3 with an empty cache (cold: every
object downloaded), and from S3 again with the cache the cold start left
(warm: the bucket is listed, nothing downloaded); and the ratios to local disk.
The cold start runs on three copies of the bucket: uploaded by boto3 as it is
(CRC32, its default flexible checksum, which inferd checks), with CRC64NVME
(what S3 itself adds to objects uploaded without one), and with no flexible
checksum (checksum calculation off: only the ETag's MD5 to check), so the CPU
each check costs shows side by side.
The goal: cold <= 1.5x local on loopback, warm about local. Also printed: the
seconds boto3 in Python threads takes to GET every object from moto 16 at a
time, what the store alone gives. moto answers every request with "Connection:
close", so no client reuses connections to it. A cold start loads each model as
soon as its own objects are in the cache, while the others still download, so
cold is about the longer of the two rather than their sum. Each figure is the
median of up to 5 starts, in wall seconds and in the server's own CPU seconds
by ready (user + system, all its threads: steadier than wall time on a busy
box), with the load average of the box before and after.
"""
import os
import shutil
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration", "cloud_repository"))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))

MODELS = 100
MODEL_BYTES = 5 * 1024 * 1024
WIDTH = MODEL_BYTES // (16 * 4)  # W is WIDTH x 16 FP32: 5 MiB

ONNX_CONFIG = """name: "{name}"
backend: "onnxruntime"
max_batch_size: 8
input [ {{ name: "INPUT0" data_type: TYPE_FP32 dims: [ %d ] }} ]
output [ {{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] }} ]
instance_group [ {{ kind: KIND_CPU count: 1 }} ]
""" % WIDTH


def _onnx_model(weights):
    """OUTPUT0 = INPUT0 x W, W = `weights` (WIDTH x 16 FP32), serialized."""
    from onnx import TensorProto, helper, numpy_helper
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["INPUT0", "W"], ["OUTPUT0"])], "bench",
        [helper.make_tensor_value_info("INPUT0", TensorProto.FLOAT, ["batch", WIDTH])],
        [helper.make_tensor_value_info("OUTPUT0", TensorProto.FLOAT, ["batch", 16])],
        [numpy_helper.from_array(weights, "W")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model.SerializeToString()


def _write_models(repo, write_model):
    import numpy as np
    rng = np.random.default_rng(42)
    for i in range(MODELS):
        name = f"m{i:03d}"
        write_model(repo, name, ONNX_CONFIG.format(name=name))
        weights = rng.standard_normal((WIDTH, 16), dtype=np.float32)
        with open(os.path.join(repo, name, "1", "model.onnx"), "wb") as f:
            f.write(_onnx_model(weights))


def _store_ceiling(moto, threads=16):
    """Seconds to GET every model's objects from the server alone, `threads` at
    a time (boto3 from Python threads, bodies discarded): what the store gives."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    s3 = moto.s3()
    keys = [f"repo/m{i:03d}/{f}" for i in range(MODELS) for f in ("config.pbtxt", "1/model.onnx")]

    def get(key):
        body = s3.get_object(Bucket="bench", Key=key)["Body"]
        while body.read(1 << 20):
            pass

    started = time.monotonic()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(get, keys))
    return time.monotonic() - started


def _publish(moto, repo):
    """The repository in three copies in the bucket; {label: (repository, cache
    folder name)} of the starts, warm on the cache the CRC32 cold start filled."""
    from pathlib import Path
    moto.upload("bench", "repo", Path(repo))
    moto.upload("bench", "crc64", Path(repo), checksum="CRC64NVME")
    moto.upload("bench", "md5", Path(repo), checksums=False)
    bucket = f"s3://127.0.0.1:{moto.port}/bench"
    return {"local disk": (repo, "local"), "S3 cold": (f"{bucket}/repo", "cold"),
            "S3 cold CRC64": (f"{bucket}/crc64", "crc64"),
            "S3 cold MD5": (f"{bucket}/md5", "md5"), "S3 warm": (f"{bucket}/repo", "cold")}


def _cpu_seconds(pid):
    """User + system CPU seconds of process `pid` (all its threads) so far."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _start(build, target, cache, Inferd):
    """(wall seconds, CPU seconds) from launch to ready of one start on `target`."""
    server = Inferd(build, target, extra_args=[f"--model-repository-cache-directory={cache}"])
    try:
        return server.wait_ready(timeout=600), _cpu_seconds(server.process.pid)
    finally:
        server.stop()


def section_cloud_repository(build, args, Inferd, write_model):
    print(f"== 16. model repository on S3 (moto, loopback): {MODELS} models of "
          f"{MODEL_BYTES >> 20} MB, time to ready ==")
    from pathlib import Path

    from s3_server import MotoS3

    work = tempfile.mkdtemp(prefix="inferd-bench-s3-")
    repo = os.path.join(work, "repo")
    os.makedirs(repo)
    moto = MotoS3(Path(work) / "moto.log")
    saved = {k: os.environ.get(k) for k in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
                                            "AWS_DEFAULT_REGION", "TRITON_CLOUD_CREDENTIAL_PATH")}
    os.environ.update({"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                       "AWS_DEFAULT_REGION": "us-east-1"})
    os.environ.pop("TRITON_CLOUD_CREDENTIAL_PATH", None)
    try:
        _write_models(repo, write_model)
        moto.key_id, moto.secret = "testing", "testing"
        moto.s3().create_bucket(Bucket="bench")
        labels = _publish(moto, repo)
        times, cpus = {label: [] for label in labels}, {label: [] for label in labels}
        runs = max(1, min(args.starts, 5))
        load_before = os.getloadavg()[0]
        # Interleaved, so that each kind of start meets the same state of the
        # box. Cold: a fresh cache; warm: the cache that cold start left.
        for run in range(runs):
            for label, (target, cache) in labels.items():
                wall, cpu = _start(build, target, os.path.join(work, f"{cache}{run}"), Inferd)
                times[label].append(wall)
                cpus[label].append(cpu)
        figures = {label: statistics.median(times[label]) for label in labels}
        cpu = {label: statistics.median(cpus[label]) for label in labels}
        for label in labels:
            print(f"   {label:13} {figures[label]:8.2f} s to ready, {cpu[label]:6.2f} s of CPU "
                  f"(medians of {runs}: {', '.join(f'{t:.2f}' for t in times[label])} s; "
                  f"{', '.join(f'{c:.2f}' for c in cpus[label])} s CPU)", flush=True)
        print(f"   load average of the box: {load_before:.2f} before, "
              f"{os.getloadavg()[0]:.2f} after")
        local = figures["local disk"]
        ceiling = _store_ceiling(moto)
        print(f"   the store alone: {ceiling:.2f} s to GET every object, 16 at a time; "
              f"S3 cold = {figures['S3 cold'] / ceiling:.2f} x that")
        print(f"   S3 cold = {figures['S3 cold'] / local:.2f} x local; "
              f"S3 warm = {figures['S3 warm'] / local:.2f} x local "
              f"(goal: cold <= 1.5 x, warm about 1 x); in CPU: cold "
              f"{cpu['S3 cold'] - cpu['local disk']:+.2f} s, warm "
              f"{cpu['S3 warm'] - cpu['local disk']:+.2f} s against local")
        print(f"   the check's share (CRC32, boto3's default): cold CRC32 {cpu['S3 cold']:.2f} s, "
              f"CRC64NVME {cpu['S3 cold CRC64']:.2f} s, MD5 {cpu['S3 cold MD5']:.2f} s of CPU; "
              f"CRC32 saves {cpu['S3 cold MD5'] - cpu['S3 cold']:+.2f} s\n")
    finally:
        moto.stop()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(work, ignore_errors=True)
