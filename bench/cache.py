"""Section 11 of bench.py: the response cache.

The identity model (16 x FP32, max_batch_size 64, one CPU instance) twice on one
server started with --cache-config=local,size=16777216: `identity_uncached`
without response_cache, `identity_cached` with response_cache { enable: true }.
inferd-loadgen sends the same random tensor in every request of a run, so after
the first request every request to the cached model is a hit: it is answered at
admission, without queueing or running the backend. Printed per protocol and
concurrency: requests per second and latency percentiles of each, the p50 ratio,
and the hit count the statistics endpoint reports.
"""
import json
import shutil
import tempfile
import urllib.request

from bench_kit import IDENTITY_CONFIG



def _hits(http_port, model):
    url = f"http://127.0.0.1:{http_port}/v2/models/{model}/stats"
    with urllib.request.urlopen(url, timeout=5) as response:
        stats = json.load(response)["model_stats"][0]["inference_stats"]
    return stats["cache_hit"]["count"], stats["cache_miss"]["count"]


def section_cache(build, args, Inferd, write_model, loadgen):
    print("== 11. response cache: identity model, cached (all hits) vs uncached ==")
    repo = tempfile.mkdtemp(prefix="inferd-bench-cache-")
    write_model(repo, "identity_uncached",
                IDENTITY_CONFIG.format(name="identity_uncached", extra=""))
    write_model(repo, "identity_cached", IDENTITY_CONFIG.format(
        name="identity_cached", extra="response_cache { enable: true }\n"))
    print(f"   {args.duration:g} s measured per step after {args.warmup:g} s warm-up; "
          "same input in every request\n")
    server = Inferd(build, repo, extra_args=["--cache-config=local,size=16777216"])
    server.wait_ready()
    print(f"   {'model':18} {'protocol':12} {'conc':>5} {'infer/s':>10} {'p50 ms':>8} "
          f"{'p99 ms':>8} {'errors':>7}")
    try:
        for protocol, binary, label in (("http", True, "http binary"), ("grpc", False, "grpc")):
            for concurrency in (1, 16):
                p50 = {}
                for model in ("identity_uncached", "identity_cached"):
                    row = loadgen(build, args, server, model, protocol, binary, concurrency)
                    if row is None:
                        print(f"   {model:18} {label:12} {concurrency:>5} (no result)")
                        continue
                    p50[model] = float(row["p50_us"])
                    print(f"   {model:18} {label:12} {concurrency:>5} "
                          f"{float(row['infer_per_sec']):>10.0f} "
                          f"{float(row['p50_us']) / 1000:>8.3f} {float(row['p99_us']) / 1000:>8.3f} "
                          f"{row['errors']:>7}", flush=True)
                if len(p50) == 2 and p50["identity_uncached"] > 0:
                    print(f"   {'':18} {'':12} {'':>5} cached p50 = "
                          f"{p50['identity_cached'] / p50['identity_uncached']:.2f} x uncached")
        hits, misses = _hits(server.http_port, "identity_cached")
        print(f"\n   identity_cached: {hits} cache hits, {misses} misses\n")
    finally:
        server.stop()
        shutil.rmtree(repo, ignore_errors=True)
