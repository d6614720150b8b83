"""Section 16 of bench.py: a model repository on S3 (issue 42).

100 identity models of 5 MB each (config.pbtxt + 1/weights.bin of random bytes)
in a local folder and, the same files, in a bucket of moto's S3 server (PyPI
moto[server], started here on a free port, loopback). Printed: seconds from
launch to ready from local disk, from S3 with an empty cache (cold: every
object downloaded), and from S3 again with the cache the cold start left
(warm: the bucket is listed, nothing downloaded); and the ratios to local disk.
The goal: cold <= 1.5x local on loopback, warm about local. Also printed: the
store's own ceiling, the seconds boto3 in Python threads takes to GET every object from
moto 16 at a time, since moto (a Python server) rather than the client bounds
the cold start here.
"""
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration", "cloud_repository"))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))

MODELS = 100
MODEL_BYTES = 5 * 1024 * 1024


def _write_models(repo, write_model, config_text):
    blob = os.urandom(MODEL_BYTES)
    for i in range(MODELS):
        name = f"m{i:03d}"
        write_model(repo, name, config_text.format(name=name, extra=""))
        with open(os.path.join(repo, name, "1", "weights.bin"), "wb") as f:
            f.write(os.urandom(16) + blob[16:])  # distinct objects


def _store_ceiling(moto, threads=16):
    """Seconds to GET every model's objects from the server alone, `threads` at
    a time (boto3 from Python threads, bodies discarded): what the store gives."""
    import time
    from concurrent.futures import ThreadPoolExecutor

    s3 = moto.s3()
    keys = [f"repo/m{i:03d}/{f}" for i in range(MODELS) for f in ("config.pbtxt", "1/weights.bin")]

    def get(key):
        body = s3.get_object(Bucket="bench", Key=key)["Body"]
        while body.read(1 << 20):
            pass

    started = time.monotonic()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(get, keys))
    return time.monotonic() - started


def section_cloud_repository(build, args, Inferd, write_model, config_text):
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
        _write_models(repo, write_model, config_text)
        moto.key_id, moto.secret = "testing", "testing"
        moto.s3().create_bucket(Bucket="bench")
        moto.upload("bench", "repo", Path(repo))
        url = f"s3://127.0.0.1:{moto.port}/bench/repo"
        cache = os.path.join(work, "cache")
        figures = {}
        for label, target, extra in (("local disk", repo, []),
                                     ("S3 cold", url, [f"--model-repository-cache-directory={cache}"]),
                                     ("S3 warm", url, [f"--model-repository-cache-directory={cache}"])):
            server = Inferd(build, target, extra_args=extra)
            try:
                figures[label] = server.wait_ready(timeout=600)
            finally:
                server.stop()
            print(f"   {label:12} {figures[label]:8.2f} s to ready", flush=True)
        local = figures["local disk"]
        ceiling = _store_ceiling(moto)
        print(f"   the store alone: {ceiling:.2f} s to GET every object, 16 at a time; "
              f"S3 cold = {figures['S3 cold'] / ceiling:.2f} x that")
        print(f"   S3 cold = {figures['S3 cold'] / local:.2f} x local; "
              f"S3 warm = {figures['S3 warm'] / local:.2f} x local "
              f"(goal: cold <= 1.5 x, warm about 1 x)\n")
    finally:
        moto.stop()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(work, ignore_errors=True)
