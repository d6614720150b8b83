"""Sections 3 and 3b: perf_analyzer (tritonclient 2.46.0's, the load tool
Triton users have) against inferd's identity models and against an ensemble
of two of them, beside Triton 2.51's figure and the gRPC ceiling."""

import glob
import os
import re
import shutil
import subprocess
import tempfile

from bench_kit import IDENTITY_CONFIG, ROOT, Inferd, free_port, write_model
from grpc_ceiling import Ceiling


def find_perf_analyzer():
    venv = os.path.join(ROOT, ".venv")
    candidates = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages", "tritonclient",
                                        "bin", "perf_analyzer"))
    candidates.append(os.path.join(venv, "bin", "perf_analyzer"))
    binary = next((c for c in candidates if os.path.isfile(c)), None)
    cudart = glob.glob(os.path.join(venv, "lib", "python3*", "site-packages", "nvidia",
                                    "cuda_runtime", "lib"))
    return binary, cudart


def perf_analyzer_and_env():
    """perf_analyzer and the environment it runs in (libcudart.so.12 on its
    library path); (None, None), having said it is skipped, when it is missing."""
    binary, cudart = find_perf_analyzer()
    if not binary:
        print("   skipped: no perf_analyzer in .venv (tritonclient[all])\n")
        return None, None
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = ":".join(cudart + [env.get("LD_LIBRARY_PATH", "")])
    return binary, env


# Triton 2.51 (CPU build) under the same perf_analyzer run, gRPC, concurrency 16,
# measured side by side on this box kind when issue 26 was filed.
TRITON_GRPC_C16_PER_S = 11200


def run_perf_analyzer(binary, env, model, port, protocol, shm=False):
    """One perf_analyzer run at concurrency 16: (infer/s, avg us, p99 us or None),
    or (None, the output's last lines) when it gave no result."""
    command = [binary, "-m", model, "-u", f"127.0.0.1:{port}", "-i", protocol,
               "--concurrency-range", "16", "--measurement-interval", "1000",
               "--max-trials", "10", "--stability-percentage", "20"]
    if shm:
        command.append("--shared-memory=system")
    try:
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
        output = result.stdout + result.stderr
    except subprocess.TimeoutExpired:
        output = "(timed out after 120 s)"
    line = re.search(r"Concurrency: 16, throughput: ([\d.]+) infer/sec, latency (\d+) usec", output)
    p99 = re.search(r"p99 latency: (\d+) usec", output)
    if not line:
        return None, " | ".join(output.strip().splitlines()[-3:])[:400]
    return float(line.group(1)), int(line.group(2)), int(p99.group(1)) if p99 else None


def print_result(model, label, result):
    """Prints one run's line; returns its rate."""
    rate, avg_us, p99_us = result
    print(f"   {model:22} {label:9} {rate:>10.0f} infer/s   avg {avg_us / 1000:.3f} ms"
          + (f"   p99 {p99_us / 1000:.3f} ms" if p99_us else ""))
    return rate


def section_perf_analyzer(build, args):
    # 1 s windows: perf_analyzer summarizes each window on its main thread, which
    # takes minutes for 3 s windows at this rate on 2 shared cores.
    print("== 3. perf_analyzer (tritonclient 2.46.0) against inferd, concurrency 16, 1 s windows ==")
    binary, env = perf_analyzer_and_env()
    if not binary:
        return
    repo = tempfile.mkdtemp(prefix="inferd-bench-pa-")
    write_model(repo, "identity_fp32", IDENTITY_CONFIG.format(name="identity_fp32", extra=""))
    write_model(repo, "identity_fp32_dynamic",
                IDENTITY_CONFIG.format(name="identity_fp32_dynamic", extra="dynamic_batching { }\n"))
    server = Inferd(build, repo)
    grpc_rate = None
    try:
        server.wait_ready()
        runs = [(model, protocol, False) for model in ("identity_fp32", "identity_fp32_dynamic")
                for protocol in ("http", "grpc")]
        # Tensors through system shared memory (--shared-memory=system).
        runs += [("identity_fp32", protocol, True) for protocol in ("http", "grpc")]
        for model, protocol, shm in runs:
            port = server.http_port if protocol == "http" else server.grpc_port
            label = protocol + (" shm" if shm else "")
            result = run_perf_analyzer(binary, env, model, port, protocol, shm)
            if result[0] is None:
                print(f"   {model:22} {label:9} no result: {result[1]}")
                continue
            rate = print_result(model, label, result)
            if (model, label) == ("identity_fp32", "grpc"):
                grpc_rate = rate
                print(f"   {'':22} {'':9} Triton 2.51 {TRITON_GRPC_C16_PER_S:,}/s on this box "
                      f"kind: ratio {rate / TRITON_GRPC_C16_PER_S:.2f} (target >= 2)")
    finally:
        server.stop()
        shutil.rmtree(repo, ignore_errors=True)
    ceiling_binary = os.path.join(build, "bench", "inferd-grpc-ceiling")
    if grpc_rate and os.path.isfile(ceiling_binary):
        # The same perf_analyzer against canned answers (section 9's ceiling):
        # what perf_analyzer itself allows on these cores.
        ceiling = Ceiling(ceiling_binary, free_port())
        try:
            result = run_perf_analyzer(binary, env, "identity_fp32", ceiling.grpc_port, "grpc")
        finally:
            ceiling.stop()
        if result[0] is not None:
            print(f"   {'gRPC ceiling':22} {'grpc':9} {result[0]:>10.0f} infer/s   (canned answers, "
                  f"bench/grpc_ceiling.cc): inferd's ratio to it {grpc_rate / result[0]:.2f}; "
                  f"Triton x2 would be {2 * TRITON_GRPC_C16_PER_S / result[0]:.2f} of it")
    print()


ENSEMBLE_CONFIG = """name: "{name}"
platform: "ensemble"
max_batch_size: 64
input [ {{ name: "INPUT0" data_type: TYPE_FP32 dims: [ 16 ] }} ]
output [ {{ name: "OUTPUT0" data_type: TYPE_FP32 dims: [ 16 ] }} ]
ensemble_scheduling {{ step [
  {{ model_name: "{first}" model_version: -1
     input_map {{ key: "INPUT0" value: "INPUT0" }} output_map {{ key: "OUTPUT0" value: "t" }} }},
  {{ model_name: "{second}" model_version: -1
     input_map {{ key: "INPUT0" value: "t" }} output_map {{ key: "OUTPUT0" value: "OUTPUT0" }} }}
] }}
"""


def section_perf_analyzer_ensemble(build, args):
    """Section 3b: perf_analyzer driving an ensemble. It reads the ensemble's
    statistics and its composing models' (it finds the version that served by
    the queue count going up), so it runs only where an ensemble's statistics
    count like a model's (as Triton's do)."""
    print("== 3b. perf_analyzer against an ensemble of two identity steps, concurrency 16 ==")
    binary, env = perf_analyzer_and_env()
    if not binary:
        return
    repo = tempfile.mkdtemp(prefix="inferd-bench-pa-ens-")
    for name in ("step_a", "step_b"):
        write_model(repo, name, IDENTITY_CONFIG.format(name=name, extra=""))
    write_model(repo, "pipeline", ENSEMBLE_CONFIG.format(name="pipeline", first="step_a",
                                                         second="step_b"))
    server = Inferd(build, repo)
    rates = {}
    try:
        server.wait_ready()
        for model, protocol in (("pipeline", "http"), ("pipeline", "grpc"), ("step_a", "grpc")):
            port = server.http_port if protocol == "http" else server.grpc_port
            result = run_perf_analyzer(binary, env, model, port, protocol)
            if result[0] is None:
                print(f"   {model:22} {protocol:9} no result: {result[1]}")
                continue
            rates[(model, protocol)] = print_result(model, protocol, result)
    finally:
        server.stop()
        shutil.rmtree(repo, ignore_errors=True)
    if ("pipeline", "grpc") in rates and ("step_a", "grpc") in rates:
        print(f"   {'':22} {'':9} the two-step ensemble runs at "
              f"{rates[('pipeline', 'grpc')] / rates[('step_a', 'grpc')]:.2f} of one step's rate")
    print()
