"""wrk and nginx for bench.py's section 2: running wrk, reading its latencies, and the nginx
ceiling it is compared with."""

import os
import re
import subprocess
import time

from bench_kit import free_port, http_get


def wrk_microseconds(text):
    """wrk's latency text ("86.00us", "1.20ms", "2.00s") in microseconds."""
    match = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    if not match:
        return None
    return float(match.group(1)) * {"us": 1, "ms": 1e3, "s": 1e6}[match.group(2)]


def run_wrk(url, script=None, connections=16, seconds=5):
    """wrk's requests/s and its p50 and p99 latency text."""
    threads = min(2, connections)
    command = ["wrk", f"-c{connections}", f"-t{threads}", f"-d{seconds}s", "--latency"]
    if script:
        command += ["-s", script]
    output = subprocess.run(command + [url], capture_output=True, text=True).stdout
    rate = re.search(r"Requests/sec:\s+([\d.]+)", output)
    p50 = re.search(r"^\s+50%\s+(\S+)", output, re.M)
    p99 = re.search(r"^\s+99%\s+(\S+)", output, re.M)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if not rate:
        print(f"   wrk failed:\n{output[-1000:]}")
        return None
    return (float(rate.group(1)), p50.group(1) if p50 else "?", p99.group(1) if p99 else "?",
            int(non2xx.group(1)) if non2xx else 0)


def start_nginx(workdir, body):
    """nginx serving `body` at /body on a free loopback port; returns (process, url)."""
    os.chmod(workdir, 0o755)  # nginx workers run as an unprivileged user when started as root
    www = os.path.join(workdir, "www")
    os.makedirs(www)
    with open(os.path.join(www, "body"), "wb") as f:
        f.write(body)
    os.chmod(os.path.join(www, "body"), 0o644)
    port = free_port()
    config = os.path.join(workdir, "nginx.conf")
    with open(config, "w") as f:
        f.write(f"""daemon off;
worker_processes auto;
pid {workdir}/nginx.pid;
error_log {workdir}/error.log;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  keepalive_requests 1000000;
  open_file_cache max=16;
  default_type application/json;
  server {{
    listen 127.0.0.1:{port};
    root {www};
  }}
}}
""")
    process = subprocess.Popen(["nginx", "-c", config, "-p", workdir],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/body"
    for _ in range(500):
        if http_get(url) == 200:
            return process, url
        time.sleep(0.01)
    process.kill()
    return None, url
