"""The auth file re-read while the server runs: a key added or removed takes
effect without a restart (the tests wait on what a client observes), a
request in flight when its key goes is answered, SIGHUP re-reads, a
malformed file keeps the previous keys and logs file:line, and one at start
stops the server with that error."""

import signal
import subprocess
import threading

import requests

from auth_keys import REPO, key_entry, sha256, write_keys
from util import REQUEST_TIMEOUT_S, inferd_binary, backend_directory, wait_until

BODY = {"inputs": [{"name": "INPUT0", "datatype": "FP32", "shape": [4], "data": [1, 2, 3, 4]}]}


def status(server, secret, parameters=None):
    body = dict(BODY, parameters=parameters) if parameters else BODY
    return requests.post(f"{server.url}/v2/models/identity/infer", json=body,
                         headers={"Authorization": f"Bearer {secret}"},
                         timeout=REQUEST_TIMEOUT_S).status_code


def reloads(server, admin):
    text = requests.get(f"http://127.0.0.1:{server.metrics_port}/metrics",
                        headers={"Authorization": f"Bearer {admin}"},
                        timeout=REQUEST_TIMEOUT_S).text
    return {result: int(line.split()[-1]) for line in text.splitlines()
            for result in ("success", "failure")
            if line.startswith(f'inferd_auth_reloads_total{{result="{result}"}}')}


def executions_started(server, admin):
    """The identity model's execution_count: counted as each execution starts."""
    stats = requests.get(f"{server.url}/v2/models/identity/stats",
                         headers={"Authorization": f"Bearer {admin}"},
                         timeout=REQUEST_TIMEOUT_S).json()
    return stats["model_stats"][0]["execution_count"]


def test_added_and_removed_keys_take_effect_without_a_restart(inferd, tmp_path):
    path = tmp_path / "keys.json"
    admin = key_entry("admin", "admin-secret", ["admin"])
    write_keys(path, [admin])
    server = inferd({"identity": REPO["identity"]}, extra_args=[f"--auth-file={path}"])
    assert status(server, "new-secret") == 401
    write_keys(path, [admin, key_entry("new", "new-secret", ["infer"])])
    wait_until(lambda: status(server, "new-secret") == 200)
    write_keys(path, [admin])
    wait_until(lambda: status(server, "new-secret") == 401)
    assert status(server, "admin-secret") == 200
    assert "new-secret" not in server.log() and sha256("new-secret") not in server.log()


def test_a_request_in_flight_is_answered_when_its_key_goes(inferd, tmp_path):
    path = tmp_path / "keys.json"
    admin = key_entry("admin", "admin-secret", ["admin"])
    write_keys(path, [admin, key_entry("leaving", "leaving-secret", ["infer"])])
    server = inferd({"identity": REPO["identity"]}, extra_args=[f"--auth-file={path}"])
    answers = []
    slow = threading.Thread(target=lambda: answers.append(
        status(server, "leaving-secret", {"execute_delay_ms": 3000})))
    slow.start()
    # The file changes while the request sleeps in its execution.
    wait_until(lambda: executions_started(server, "admin-secret") == 1)
    write_keys(path, [admin])
    wait_until(lambda: status(server, "leaving-secret") == 401)
    slow.join(timeout=REQUEST_TIMEOUT_S)
    assert answers == [200]


def test_sighup_rereads_the_file(inferd, tmp_path):
    path = tmp_path / "keys.json"
    write_keys(path, [key_entry("admin", "admin-secret", ["admin"])])
    server = inferd({"identity": REPO["identity"]}, extra_args=[f"--auth-file={path}"])
    before = reloads(server, "admin-secret")["success"]
    server.process.send_signal(signal.SIGHUP)
    wait_until(lambda: reloads(server, "admin-secret")["success"] == before + 1)
    assert server.process.poll() is None
    assert status(server, "admin-secret") == 200


def test_a_malformed_file_keeps_the_previous_keys_and_logs_where(inferd, tmp_path):
    path = tmp_path / "keys.json"
    write_keys(path, [key_entry("admin", "admin-secret", ["admin"])])
    server = inferd({"identity": REPO["identity"]}, extra_args=[f"--auth-file={path}"])
    staged = tmp_path / "next.json"
    staged.write_text('{"keys": [\n  {"name": "x", "sha256": "%s",\n   "scopes": ["infr"]}\n]}'
                      % sha256("x"))
    staged.replace(path)
    wait_until(lambda: reloads(server, "admin-secret")["failure"] == 1)
    assert f"auth file {path}:3: keys[0].scopes: unknown scope 'infr'" in server.log()
    assert "keeping the 1 API keys read before" in server.log()
    assert status(server, "admin-secret") == 200


def test_a_malformed_file_at_start_stops_the_server_naming_file_and_line(tmp_path):
    path = tmp_path / "keys.json"
    path.write_text('{"keys": [\n  {"name": "x", "sha256": "abc", "scopes": ["admin"]}\n]}')
    repo = tmp_path / "repo"
    repo.mkdir()
    done = subprocess.run([str(inferd_binary()), f"--model-repository={repo}",
                           f"--backend-directory={backend_directory()}", "--http-port=0",
                           "--grpc-port=0", "--metrics-port=0", f"--auth-file={path}"],
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 1
    assert f"--auth-file: auth file {path}:2: keys[0].sha256: must be the 64 hex digits" in (
        done.stdout + done.stderr)
