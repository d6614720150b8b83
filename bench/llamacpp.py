"""Section 15 of bench.py: the llamacpp backend against llama.cpp's own
llama-server (the same llama.cpp release: the backend on its prebuilt
libraries, llama-server compiled from that release's source for this machine
by scripts/install-llamacpp.sh --with-server; the same tiny GGUF of
tests/integration/llamacpp/tiny_gguf.py, the same threads and slots).

1 and 8 concurrent streams of TOKENS tokens each (greedy, ignore_eos), both
over HTTP Server-Sent Events (inferd's /generate_stream, llama-server's
/completion with stream): tokens/s = all streams' tokens over the wall time
of the round, and time to first token = request sent -> first token's event,
the median over streams and rounds. Goal (issue 39): >= 1.0x llama-server's
tokens/s at 8 streams, <= 1.1x its time to first token.
"""
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

TOKENS = 128
ROUNDS = 3
THREADS = 1  # the tiny model: a second thread only adds a barrier per op
SLOTS = 8
CONTEXT_PER_SLOT = 512
PROMPT = "Once upon a time there was a llama model and the story of the cat"


def sse_stream(port, path, body, first_token_at):
    """Sends one streaming request; returns (seconds to the first event with text, events)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    start = time.monotonic()
    conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
    resp = conn.getresponse()
    assert resp.status == 200, resp.read()[:300]
    first, events = None, 0
    for line in resp:
        if not line.startswith(b"data: "):
            continue
        data = json.loads(line[6:])
        if first is None and (data.get("text_output") or data.get("content")):
            first = time.monotonic() - start
        events += 1
    conn.close()
    first_token_at.append(first if first is not None else float("nan"))
    return events


def run_round(port, path, body, streams):
    ttfts, threads = [], []
    start = time.monotonic()
    for _ in range(streams):
        t = threading.Thread(target=sse_stream, args=(port, path, body, ttfts))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    return streams * TOKENS / (time.monotonic() - start), ttfts


def measure(port, path, body):
    out = {}
    for streams in (1, SLOTS):
        run_round(port, path, body, streams)  # warm-up
        rates, ttfts = [], []
        for _ in range(ROUNDS):
            rate, firsts = run_round(port, path, body, streams)
            rates.append(rate)
            ttfts += firsts
        out[streams] = (statistics.median(rates), statistics.median(ttfts))
    return out


def wait_http(port, path, process, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", path)
            if conn.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"server on port {port} did not become ready")


def section_llamacpp(build, args, Inferd, write_model, free_port, root):
    print("15. llamacpp backend vs llama-server (tiny GGUF, "
          f"{THREADS} threads, {SLOTS} slots, {TOKENS} tokens a stream)")
    backend = os.path.join(build, "backends/llamacpp/libinferd_llamacpp.so")
    # Builds llama-server on first use (minutes: llama.cpp as a whole, from source).
    llamacpp_dir = subprocess.run(["bash", os.path.join(root, "scripts/install-llamacpp.sh"),
                                   "--with-server"], capture_output=True, text=True).stdout.strip()
    server_bin = os.path.join(llamacpp_dir, "build-server/bin/llama-server")
    if not (os.path.exists(backend) and os.path.exists(server_bin)):
        print("   skipped: the llamacpp backend or llama-server is not built "
              "(scripts/install-llamacpp.sh)\n")
        return
    sys.path.insert(0, os.path.join(root, "tests/integration/llamacpp"))
    from tiny_gguf import write_tiny_gguf
    with tempfile.TemporaryDirectory() as tmp:
        gguf = write_tiny_gguf(__import__("pathlib").Path(tmp) / "model.gguf")
        repo = os.path.join(tmp, "repo")
        config = (f'name: "tiny"\nbackend: "llamacpp"\n'
                  f'parameters {{ key: "parallel" value: {{ string_value: "{SLOTS}" }} }}\n'
                  f'parameters {{ key: "threads" value: {{ string_value: "{THREADS}" }} }}\n'
                  f'parameters {{ key: "context_size" value: '
                  f'{{ string_value: "{SLOTS * CONTEXT_PER_SLOT}" }} }}\n')
        write_model(repo, "tiny", config, [str(gguf)])
        sampling = json.dumps({"temperature": 0, "max_tokens": TOKENS, "ignore_eos": True})
        inferd = Inferd(build, repo)
        try:
            inferd.wait_ready()
            ours = measure(inferd.http_port, "/v2/models/tiny/generate_stream",
                           {"text_input": PROMPT, "stream": True, "sampling_parameters": sampling})
        finally:
            inferd.stop()
        port = free_port()
        llama = subprocess.Popen(
            [server_bin, "-m", str(gguf), "--host", "127.0.0.1", "--port", str(port),
             "-np", str(SLOTS), "-c", str(SLOTS * CONTEXT_PER_SLOT), "-t", str(THREADS)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_http(port, "/health", llama)
            theirs = measure(port, "/completion",
                             {"prompt": PROMPT, "n_predict": TOKENS, "temperature": 0,
                              "ignore_eos": True, "stream": True, "cache_prompt": False})
        finally:
            llama.terminate()
            llama.wait()
    print(f"   {'streams':>7}  {'inferd tok/s':>12}  {'llama-server tok/s':>18}  {'ratio':>5}  "
          f"{'inferd TTFT ms':>14}  {'llama-server TTFT ms':>20}  {'ratio':>5}")
    for streams in (1, SLOTS):
        (rate, ttft), (their_rate, their_ttft) = ours[streams], theirs[streams]
        print(f"   {streams:>7}  {rate:12.0f}  {their_rate:18.0f}  {rate / their_rate:5.2f}  "
              f"{ttft * 1e3:14.2f}  {their_ttft * 1e3:20.2f}  {ttft / their_ttft:5.2f}")
    print()
