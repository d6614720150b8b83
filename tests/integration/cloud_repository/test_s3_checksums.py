"""S3's flexible checksums (issue 43: less CPU per download, the same
guarantee): objects uploaded by boto3 with CRC32, CRC32C or CRC64NVME (what
current SDKs and CLIs write by default) are checked against that checksum,
which inferd asks GetObject for (`x-amz-checksum-mode: ENABLED`, signed: moto
checks the signatures); an object without one (boto3's checksum calculation
off, as older clients upload) keeps its MD5 check; an object fetched in ranges is checked
once whole against the checksum a HEAD states. Each damage in transit (the
proxy flips a byte, headers kept) fails its model with the object, the
algorithm and both values named, and leaves nothing in the cache."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bucket_models import PYTHON_CONFIG, assert_serves_both, cache_flag, repository_files  # noqa: E402
from util import wait_until  # noqa: E402

BUCKET = "checksums"
RANGE_BYTES = 32 << 20  # object_fetcher.h's default: larger objects come in ranges


@pytest.fixture(scope="module")
def bucket(moto):
    moto.s3().create_bucket(Bucket=BUCKET)
    return BUCKET


def files_with_a_bad_model(offset: float) -> dict[str, bytes]:
    """bucket_models' repository plus "bad", a copy of add_offset whose model.py
    a test corrupts in transit."""
    files = repository_files(offset)
    files["bad/config.pbtxt"] = PYTHON_CONFIG.replace('"add_offset"', '"bad"').encode()
    files["bad/1/model.py"] = files["add_offset/1/model.py"]
    return files


def publish(s3, prefix: str, files: dict[str, bytes], algorithm: str | None = None) -> None:
    extra = {"ChecksumAlgorithm": algorithm} if algorithm else {}
    for key, body in files.items():
        s3.put_object(Bucket=BUCKET, Key=f"{prefix}/{key}", Body=body, **extra)


def stated(s3, prefix: str, key: str) -> dict:
    """The object's HEAD with checksum mode: its Checksum<ALGORITHM> if it has one."""
    return s3.head_object(Bucket=BUCKET, Key=f"{prefix}/{key}", ChecksumMode="ENABLED")


def url(proxy, prefix: str) -> str:
    return f"s3://127.0.0.1:{proxy.port}/{BUCKET}/{prefix}"


def assert_the_corrupted_model_fails_alone(proxy, s3_inferd, tmp_path, prefix: str, key: str,
                                           offset: float, error: str) -> None:
    """inferd on `prefix` with the next GET of `key` corrupted: the model of
    `key` fails with `error` in its reason and leaves nothing in the cache; the
    others (bucket_models', add_offset adding `offset`) serve."""
    proxy.fail_next(f"/{BUCKET}/{prefix}/{key}", "corrupt", 1)
    server = s3_inferd([url(proxy, prefix)], ["--exit-on-error=false", cache_flag(tmp_path)],
                       wait_for="live")
    for model in ("add_offset", "ident"):
        wait_until(lambda m=model: server.client().is_model_ready(m), what=f"{model} ready")
    assert_serves_both(server, offset)
    model = key.split("/")[0]

    def state():
        return {m["name"]: m for m in server.client().get_model_repository_index()}[model]

    wait_until(lambda: state()["state"] == "UNAVAILABLE", what=f"{model} failed")
    assert error in state()["reason"], state()
    cache = tmp_path / "cache"
    assert not list((cache / "models").glob(f"*/{model}/*")), "a bad copy was kept"
    assert not [p for p in (cache / "objects").iterdir() if p.name.startswith(".")]


@pytest.mark.parametrize("algorithm", ["CRC32", "CRC32C", "CRC64NVME"])
def test_a_flexible_checksum_is_checked_and_names_its_algorithm_on_a_mismatch(
        moto, proxy, bucket, s3_inferd, tmp_path, algorithm):
    prefix = f"flex-{algorithm.lower()}"
    s3 = moto.s3()
    publish(s3, prefix, files_with_a_bad_model(3.0), algorithm)
    value = stated(s3, prefix, "bad/1/model.py")[f"Checksum{algorithm}"]
    proxy.clear()
    assert_the_corrupted_model_fails_alone(
        proxy, s3_inferd, tmp_path, prefix, "bad/1/model.py", 3.0,
        f"{url(proxy, prefix)}: object 'bad/1/model.py': content does not match its "
        f"{algorithm} ({value}, received ")
    object_gets = [s for s in proxy.seen() if s.method == "GET" and "list-type" not in s.path]
    assert object_gets and all(s.headers.get("x-amz-checksum-mode") == "ENABLED"
                               for s in object_gets)


def test_objects_without_a_flexible_checksum_keep_their_md5_check(
        moto, proxy, bucket, s3_inferd, tmp_path):
    prefix = "md5-only"
    s3 = moto.s3(checksums=False)
    files = files_with_a_bad_model(4.0)
    bad = files["bad/1/model.py"]
    publish(s3, prefix, files)
    for key in ("bad/1/model.py", "add_offset/1/model.py"):
        head = stated(s3, prefix, key)
        assert not [k for k in head if k.startswith("Checksum") and k != "ChecksumType"], head
    assert_the_corrupted_model_fails_alone(
        proxy, s3_inferd, tmp_path, prefix, "bad/1/model.py", 4.0,
        f"object 'bad/1/model.py': content does not match its MD5 "
        f"({hashlib.md5(bad).hexdigest()}, received ")


def test_an_object_fetched_in_ranges_is_checked_whole_against_its_flexible_checksum(
        moto, proxy, bucket, s3_inferd, tmp_path):
    prefix = "ranged"
    s3 = moto.s3()
    files = files_with_a_bad_model(5.0)
    files["bad/1/weights.bin"] = bytes(range(256)) * ((RANGE_BYTES + 4096) // 256)
    publish(s3, prefix, files, "CRC64NVME")
    value = stated(s3, prefix, "bad/1/weights.bin")["ChecksumCRC64NVME"]
    proxy.clear()
    assert_the_corrupted_model_fails_alone(
        proxy, s3_inferd, tmp_path, prefix, "bad/1/weights.bin", 5.0,
        f"object 'bad/1/weights.bin': content does not match its CRC64NVME ({value}, received ")
    weights = f"/{BUCKET}/{prefix}/bad/1/weights.bin"
    seen = [s for s in proxy.seen() if s.path.split("?")[0] == weights]
    assert sum(1 for s in seen if s.method == "GET" and "Range" in s.headers) == 2
    assert [s.headers.get("x-amz-checksum-mode") for s in seen if s.method == "HEAD"] == ["ENABLED"]
