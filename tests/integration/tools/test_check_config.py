"""inferd-check-config (build/tools/inferd-check-config) checks a repository
the way inferd loads it, loading nothing: every model of examples/models is
ok; a broken config.pbtxt, a dims/max_batch_size mistake, a version the policy
names without a folder, a model with no version folder and a backend that
cannot be found are each reported on a line naming the model (and, for a
config, the file and line), with exit status 1; the reason is word for word the
one a running inferd gives in its repository index. Models can be checked one
by one; an unknown repository is exit status 2. --disable-auto-complete-config
and --model-config-name mean what they mean to inferd."""

import subprocess

import pytest

from util import REPO_ROOT, Model, backend_directory, identity_config, inferd_binary, \
    single_identity, write_repository

GOOD = single_identity("good", "FP32", [4])
MODELS = {
    "good": GOOD,
    "syntax": Model('name: "syntax"\nbackend: "identity"\ninput [ { name: "I" data_type: \n'),
    "bad_dims": identity_config("bad_dims", [("INPUT0", "OUTPUT0", "FP32", [-7])]),
    "missing_version": Model(single_identity("missing_version", "FP32", [4],
                                             version_policy="{ specific { versions: [ 1, 3 ] } }")),
    "no_versions": Model(single_identity("no_versions", "FP32", [4]), versions=()),
    "unknown_backend": Model(GOOD.replace('backend: "identity"', 'backend: "no_such_backend"')
                             .replace('name: "good"', 'name: "unknown_backend"')),
}


def checker():
    return inferd_binary().parent / "tools" / "inferd-check-config"


def check(*args):
    return subprocess.run([str(checker()), f"--backend-directory={backend_directory()}", *args],
                          capture_output=True, text=True, timeout=30, cwd=REPO_ROOT)


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return write_repository(tmp_path_factory.mktemp("repo"), MODELS)


@pytest.fixture(scope="module")
def report(repo):
    result = check(f"--model-repository={repo}")
    lines = {}
    for line in result.stdout.splitlines():
        if line.startswith(("ok ", "error ")):
            lines.setdefault(line.split()[1].rstrip(":").strip("'"), []).append(line)
    return result, lines


def test_the_examples_all_pass():
    result = check(f"--model-repository={REPO_ROOT / 'examples' / 'models'}")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 with errors" in result.stdout
    for model in ("identity_fp32", "onnx_add_sub", "onnx_mlp"):
        assert f"ok     {model}: versions 1" in result.stdout, result.stdout


def test_every_problem_is_reported_and_the_status_is_1(report, repo):
    result, lines = report
    assert result.returncode == 1, result.stdout
    assert "6 model(s) checked, 5 with errors" in result.stdout
    assert lines["good"][0].startswith("ok     good: versions 1, backend 'identity'")
    syntax = " ".join(lines["syntax"])
    assert str(repo / "syntax" / "config.pbtxt") + ":" in syntax, syntax
    assert "'bad_dims'" in " ".join(lines["bad_dims"]) and "-7" in " ".join(lines["bad_dims"])
    missing = [line for line in result.stdout.splitlines() if "version 3" in line]
    assert missing and "does not exist" in missing[0], result.stdout
    assert "no version folder" in " ".join(lines["no_versions"])
    unknown = [line for line in result.stdout.splitlines() if "no_such_backend" in line]
    assert unknown and "not found" in unknown[0] and "libinferd_no_such_backend.so" in unknown[0]


def test_reasons_match_what_the_server_reports(report, repo, inferd):
    _, lines = report
    server = inferd(repo, extra_args=["--exit-on-error=false"], wait_for="live")
    index = {e["name"]: e for e in server.post("/v2/repository/index", json={}).json()}
    for model in ("syntax", "bad_dims", "no_versions"):
        reason = index[model].get("reason", "")
        assert reason, index[model]
        assert any(reason in line for line in lines[model]), (reason, lines[model])


def test_checking_named_models_only(repo):
    result = check(f"--model-repository={repo}", "good")
    assert result.returncode == 0, result.stdout
    assert "1 model(s) checked, 0 with errors" in result.stdout
    result = check(f"--model-repository={repo}", "good", "nope", "-q")
    assert result.returncode == 1
    assert result.stdout.strip() == "error  nope: no such model in the repositories"


def test_an_unreadable_repository_is_status_2(tmp_path):
    result = check(f"--model-repository={tmp_path / 'missing'}")
    assert result.returncode == 2
    assert "missing" in result.stderr


def test_auto_completion_and_config_name_follow_inferds_flags(tmp_path):
    custom = Model(GOOD.replace('name: "good"', 'name: "custom"'),
                   files={"configs/other.pbtxt": 'name: "custom"\nmax_batch_size: [oops\n'})
    repo = write_repository(tmp_path / "repo", {
        "minimal": Model('backend: "identity"\nmax_batch_size: 0\n'), "custom": custom})
    # Auto-completion is on by default, as in inferd: the backend completes it at load.
    result = check(f"--model-repository={repo}", "minimal")
    assert result.returncode == 0, result.stdout + result.stderr
    result = check(f"--model-repository={repo}", "--disable-auto-complete-config", "minimal")
    assert result.returncode == 1, result.stdout
    assert "input: the model must declare at least one input" in result.stdout, result.stdout
    assert check(f"--model-repository={repo}", "custom").returncode == 0
    result = check(f"--model-repository={repo}", "--model-config-name=other", "custom")
    assert result.returncode == 1, result.stdout
    assert str(repo / "custom" / "configs" / "other.pbtxt") in result.stdout, result.stdout
    result = check(f"--model-repository={repo}", "--model-config-name=absent", "custom")
    assert result.returncode == 0, result.stdout  # no configs/absent.pbtxt: config.pbtxt
