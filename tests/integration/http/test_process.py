"""The inferd process as a user runs it: `--help` lists the flags, `--http-port=0`
binds an ephemeral port that is logged, SIGINT and SIGTERM exit with code 0, and
a missing model repository is an error that names the folder.
"""

import signal
import subprocess

import pytest

from util import REPO_ROOT, InferdServer, inferd_binary, single_identity, write_repository

REPO = {"m": single_identity("m", "INT32", [1])}


def test_help_lists_the_triton_flags(inferd_path):
    result = subprocess.run([str(inferd_path), "--help"], capture_output=True, text=True,
                            timeout=10)
    assert result.returncode == 0
    text = result.stdout + result.stderr
    for flag in ("--model-repository", "--http-port", "--http-address", "--backend-directory",
                 "--log-verbose", "--exit-timeout-secs", "--strict-model-config"):
        assert flag in text, f"--help does not mention {flag}"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_stops_server_with_exit_code_zero(inferd_path, tmp_path, sig):
    server = InferdServer([write_repository(tmp_path / "repo", REPO)], tmp_path / "inferd.log")
    try:
        assert server.port > 0
        assert server.get("/v2/health/live").status_code == 200
    finally:
        assert server.stop(sig) == 0


def test_two_servers_get_different_ephemeral_ports(inferd):
    first, second = inferd(REPO), inferd(REPO)
    assert first.port != second.port
    assert first.get("/v2/models/m/ready").status_code == 200
    assert second.get("/v2/models/m/ready").status_code == 200


def test_missing_repository_folder_is_an_error_naming_it(inferd_path, tmp_path):
    missing = tmp_path / "no_such_repository"
    result = subprocess.run(
        [str(inferd_binary()), f"--model-repository={missing}", "--http-port=0"],
        capture_output=True, text=True, timeout=20, cwd=REPO_ROOT)
    assert result.returncode != 0
    assert "no_such_repository" in result.stdout + result.stderr
