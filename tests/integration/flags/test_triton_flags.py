"""Triton 2.51's launch flags (compat/triton-2.51-flags.txt): every one is known to
`inferd --help`, has a status in docs/flags.md's table that agrees with the help's
groups, and behaves as its status says: inert flags start the server and are
logged once, unknown ones fail."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from util import REPO_ROOT, InferdServer, backend_directory, inferd_binary, single_identity

FLAGS_FILE = REPO_ROOT / "compat" / "triton-2.51-flags.txt"
INERT_GROUP = "Triton flags without effect on this build"


def triton_flags() -> dict[str, str]:
    """{flag name: argument kind} from the compatibility file."""
    flags = {}
    for line in FLAGS_FILE.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, kind = line.split(" ", 1)
            flags[name] = kind
    return flags


def help_groups() -> dict[str, str]:
    """{flag name: help group} from `inferd --help` (the default group is "Options")."""
    text = subprocess.run([str(inferd_binary()), "--help"], capture_output=True, text=True,
                          check=True).stdout
    groups, group = {}, None
    for line in text.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            group = line[:-1]
        option = re.match(r"^  (-\S+)", line)  # "  --name,--alias TEXT ...": an option's names
        if option:
            for part in option.group(1).split(","):
                if part.startswith("--"):
                    groups[part[2:]] = group
    return groups


def documented_statuses() -> dict[str, str]:
    """{flag name: status word} from docs/flags.md's table of Triton's flags."""
    text = (REPO_ROOT / "docs" / "flags.md").read_text()
    section = text.split("## Triton 2.51's flags, one by one", 1)[1].split("\n#", 1)[0]
    statuses = {}
    for name, status in re.findall(r"^\| `--([a-z0-9-]+)` \| ([a-z ]+?)[:|]", section, re.M):
        statuses[name] = status.strip()
    return statuses


def test_the_flags_file_has_all_87_flags_of_triton_2_51():
    flags = triton_flags()
    assert len(flags) == 87, len(flags)
    assert {"model-repository", "exit-on-error", "metrics-config", "cache-config"} <= set(flags)


def test_help_lists_every_triton_flag():
    groups = help_groups()
    missing = sorted(set(triton_flags()) - set(groups))
    assert not missing, f"inferd --help lacks Triton flags: {missing}"


def test_the_docs_give_every_flag_the_status_its_help_group_says():
    groups = help_groups()
    statuses = documented_statuses()
    expected = {INERT_GROUP: "no effect"}
    wrong = {}
    for name in triton_flags():
        want = expected.get(groups.get(name), "implemented")
        if statuses.get(name) != want:
            wrong[name] = (statuses.get(name), want)
    assert not wrong, f"docs/flags.md status (given, expected): {wrong}"


def inert_flags() -> list[str]:
    return sorted(n for n, g in help_groups().items() if g == INERT_GROUP)


# A value of the flag's own syntax for each inert flag, as a launch script gives it.
INERT_VALUES = {
    "enable-peer-access": "true",
    "allow-gpu-metrics": "true",
    "pinned-memory-pool-byte-size": "268435456",
    "cuda-memory-pool-byte-size": "0:67108864",
    "cuda-virtual-address-size": "0:1073741824",
    "min-supported-compute-capability": "6.0",
    "model-load-gpu-limit": "0:0.8",
    "repoagent-directory": "/opt/tritonserver/repoagents",
    "grpc-infer-allocation-pool-size": "8",
}


def test_inert_flags_start_the_server_and_are_logged_once(tmp_path, inferd):
    names = inert_flags()
    assert set(names) == set(INERT_VALUES), "a new inert flag needs a value here"
    args = [f"--{n}={INERT_VALUES[n]}" for n in names]
    args.append("--pinned-memory-pool-byte-size=0")  # repeated: still one line
    server = inferd({"m": single_identity("m", "FP32", [4])}, extra_args=args)
    assert server.get("/v2/health/ready").status_code == 200
    log = server.log()
    for name in names:
        assert log.count(f"--{name} has no effect: ") == 1, name


def run_inferd(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    repo = tmp_path / "empty"
    repo.mkdir(exist_ok=True)
    return subprocess.run([str(inferd_binary()), f"--model-repository={repo}",
                           f"--backend-directory={backend_directory()}", "--http-port=0",
                           "--grpc-port=0", "--metrics-port=0", *args],
                          capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("flag,value,needle", [
    ("http-restricted-api", "model-repository", "no ':' after the categories"),
    ("http-restricted-api", "metrics:admin-key=admin-value", "unknown category 'metrics'"),
    ("grpc-restricted-protocol", "health:key", "no '=' between the key and the value"),
    ("grpc-restricted-protocol", "shared-memory,trace:a=1 --grpc-restricted-protocol=trace:b=2",
     "category 'trace' is restricted more than once"),
])
def test_bad_restricted_api_values_fail_at_start_naming_the_flag(tmp_path, flag, value, needle):
    args = [f"--{part}" if i else f"--{flag}={part}" for i, part in
            enumerate(value.split(" --"))]
    result = run_inferd(tmp_path, *args)
    assert result.returncode != 0
    assert f"--{flag}" in result.stderr and needle in result.stderr, result.stderr


@pytest.mark.parametrize("value", ["0", "local,size=0"])
def test_a_response_cache_of_size_zero_is_no_cache(tmp_path, inferd, value):
    flag = "--response-cache-byte-size" if value == "0" else "--cache-config"
    server = inferd({"m": single_identity("m", "FP32", [4],
                                          extra="response_cache { enable: true }\n")},
                    extra_args=[f"{flag}={value}"])
    assert server.get("/v2/health/ready").status_code == 200
    assert "has no response cache" in server.log()


@pytest.mark.parametrize("args,needle", [
    (["--cache-config=redis,host=localhost"], "unknown cache 'redis'"),
    (["--cache-config=local,bytes=10"], "no setting 'bytes'"),
    (["--cache-config=local,size=ten"], "whole number"),
    (["--cache-config=local"], "expected <cache>,<setting>=<value>"),
    (["--cache-config=local,size=10", "--response-cache-byte-size=10"], "incompatible flags"),
])
def test_bad_cache_flags_fail_naming_the_problem(tmp_path, args, needle):
    result = run_inferd(tmp_path, *args)
    assert result.returncode != 0
    assert needle in result.stderr, result.stderr


@pytest.mark.parametrize("value", ["off", "execution_count"])
def test_rate_limit_takes_off_and_execution_count(tmp_path, inferd, value):
    server = inferd({"m": single_identity("m", "FP32", [4])}, extra_args=[f"--rate-limit={value}"])
    assert server.get("/v2/health/ready").status_code == 200


@pytest.mark.parametrize("args", [["--rate-limit=on"], ["--rate-limit-resource=R1"],
                                  ["--rate-limit-resource=:4"], ["--rate-limit-resource=R1:x"],
                                  ["--rate-limit-resource=R1:4:-1"],
                                  ["--rate-limit-resource=R1:4:gpu0"]])
def test_malformed_rate_limit_values_fail_naming_the_flag(tmp_path, args):
    result = run_inferd(tmp_path, *args)
    assert result.returncode != 0
    flag = args[0].split("=", 1)[0]
    assert flag in result.stderr, result.stderr


def test_an_unknown_flag_fails_naming_it(tmp_path):
    result = run_inferd(tmp_path, "--no-such-flag=1")
    assert result.returncode != 0
    assert "--no-such-flag" in result.stderr, result.stderr
