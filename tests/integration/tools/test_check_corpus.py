"""inferd check on a corpus of broken repositories (tests/integration/tools/check_corpus):
one folder per kind of mistake, each a repository under repo/ and the problem it must
produce in expect.json: the model, the field, a part of the message, a part of the
suggested fix and, where the mistake is in a config.pbtxt, the line it is on; "args" are
the tool's flags (--load: the mismatches only the backend finds against the model file, which
"copy" names, e.g. the example ONNX model, copied in rather than stored twice). Each case
must be reported with exit status 1 in --format=json; the clean examples report nothing.
The same text is a running inferd's load error: the checks live in the core's config
validation, which the loader and the tool share."""

import json
import os
import shutil
import subprocess

import pytest

from util import REPO_ROOT, backend_directory, inferd_binary

CORPUS = REPO_ROOT / "tests" / "integration" / "tools" / "check_corpus"
CASES = sorted(p.name for p in CORPUS.iterdir() if (p / "expect.json").is_file())


def run_check(*args, binary=None):
    command = [str(binary)] if binary else [str(inferd_binary().parent / "tools" /
                                               "inferd-check-config")]
    if binary:
        command.append("check")
    return subprocess.run([*command, f"--backend-directory={backend_directory()}", *args],
                          capture_output=True, text=True, timeout=30, cwd=REPO_ROOT)


def expectation(case):
    return json.loads((CORPUS / case / "expect.json").read_text())


def problems(report):
    return [problem for model in report["models"] for problem in model["problems"]]


def test_the_corpus_has_a_case_per_mistake_kind():
    assert len(CASES) >= 30, CASES


def repository(case, tmp_path):
    """The case's repository, copied with its "copy" files where it has any."""
    want = expectation(case)
    if "copy" not in want:
        return CORPUS / case / "repo"
    repo = shutil.copytree(CORPUS / case / "repo", tmp_path / "repo")
    for target, source in want["copy"].items():
        shutil.copyfile(REPO_ROOT / source, repo / target)
    return repo


@pytest.mark.parametrize("case", CASES)
def test_each_mistake_is_reported_with_its_place_and_fix(case, tmp_path):
    want = expectation(case)
    repo = repository(case, tmp_path)
    result = run_check("--format=json", *want.get("args", []), str(repo))
    assert result.returncode == 1, result.stdout + result.stderr
    found = [p for p in problems(json.loads(result.stdout))
             if p["model"] == want["model"] and want["message"] in p["message"]]
    assert found, (want, result.stdout)
    problem = found[0]
    assert problem["field"] == want["field"], problem
    assert want["fix"] in problem["fix"], problem
    if "line" in want:
        assert problem["line"] == want["line"] and problem["column"] > 0, problem
        config = repo / want["model"] / "config.pbtxt"
        assert os.path.samefile(problem["file"], config), problem


def test_the_text_form_is_one_line_per_problem_with_file_line_col_and_fix():
    case = CORPUS / "zero_dimension" / "repo"
    result = run_check(str(case))
    assert result.returncode == 1
    errors = [line for line in result.stdout.splitlines() if line.startswith("error  ")]
    assert errors == [
        f"error  m: model 'm' ({case / 'm' / 'config.pbtxt'}:5:41): input 'INPUT0' dims[1]: "
        "must be -1 or positive, got 0; fix: -1 for a size that varies, else the size"], errors


@pytest.mark.parametrize("load", [[], ["--load"]], ids=["static", "load"])
def test_the_clean_examples_report_nothing(load):
    result = run_check("--format=json", *load, str(REPO_ROOT / "examples" / "models"))
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout.splitlines()[0])  # a backend may log after it
    assert report["models"] and problems(report) == [], report


def test_inferd_check_is_the_same_tool():
    case = str(CORPUS / "misspelt_field" / "repo")
    direct = run_check("--format=json", case)
    through_inferd = run_check("--format=json", case, binary=inferd_binary())
    assert through_inferd.returncode == direct.returncode == 1
    assert through_inferd.stdout == direct.stdout


@pytest.mark.parametrize("case", ["misspelt_field", "image_dims_with_batch",
                                  "warmup_dims_with_batch", "ensemble_tensor_misspelt",
                                  "onnx_dims_with_batch"])
def test_a_load_error_says_the_same(case, inferd, tmp_path):
    want = expectation(case)
    repo = repository(case, tmp_path)
    result = run_check("--format=json", *want.get("args", []), str(repo))
    reported = [e for m in json.loads(result.stdout)["models"] for e in m["errors"]
                if want["message"] in e]
    assert reported, result.stdout
    server = inferd(repo, extra_args=["--exit-on-error=false"], wait_for="live")
    index = {e["name"]: e for e in server.post("/v2/repository/index", json={}).json()}
    reason = index[want["model"]].get("reason", "")
    assert want["fix"] in reason, reason
    assert any(reason in error or error.endswith(reason) for error in reported), (reason, reported)
