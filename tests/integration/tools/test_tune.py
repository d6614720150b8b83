"""inferd tune (build/tools/inferd-tune, run as `inferd tune MODEL`) against a
real server started with --model-control-mode=explicit.

On the ONNX MLP of examples/models, the search measures fewer settings than the
exhaustive grid of the same module and recommends a setting whose throughput is
within 10% of the grid's best; the two recommendations are measured again back
to back (alternating, best of two each), so that a busy machine's drift between
the two runs does not decide. Both runs restore the original configuration,
show progress, print the recommendation with its config.pbtxt lines, and write
an HTML report that parses as XML and holds both SVG plots with a mark per
measured step. Error cases: a server that is down, a model that is not there,
a server whose repository API is off or restricted, bad flags, a target no
setting keeps, a model that does not batch."""

import json
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from util import EXAMPLES_MODELS, REPO_ROOT, inferd_binary, single_identity

sys.path.insert(0, str(REPO_ROOT / "scripts"))
import make_example_models  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
XHTML = "{http://www.w3.org/1999/xhtml}"
GRID = ["--max-batch-sizes=1,8,32", "--queue-delays-us=0,2000", "--instance-counts=1,2"]
GRID_SIZE = 12
# One step per setting, enough requests in flight to batch; a loose target, so
# that the comparison is about throughput (the target has its own test).
LOAD = ["--concurrency=16", "--warmup-secs=0.5", "--duration-secs=1.5", "--latency-target-ms=2000"]


def tune(*args, timeout=600):
    return subprocess.run([str(inferd_binary()), "tune", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO_ROOT)


def explain(result):
    return f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr[-3000:]}"


@pytest.fixture(scope="module")
def mlp(inferd):
    if not (EXAMPLES_MODELS / "onnx_mlp" / "1" / "model.onnx").is_file():
        make_example_models.main()
    return inferd(EXAMPLES_MODELS, extra_args=["--model-control-mode=explicit", "--load-model=onnx_mlp"])


@pytest.fixture(scope="module")
def original_config(mlp):
    return mlp.get("/v2/models/onnx_mlp/config").json()


def run_tune(mlp, tmp_path_factory, *args):
    out = tmp_path_factory.mktemp("tune")
    result = tune("onnx_mlp", f"--url={mlp.address}", *args, f"--report={out / 'report.html'}",
                  f"--json={out / 'result.json'}")
    assert result.returncode == 0, explain(result)
    return result, json.loads((out / "result.json").read_text()), out / "report.html"


@pytest.fixture(scope="module")
def grid_run(mlp, original_config, tmp_path_factory):
    run = run_tune(mlp, tmp_path_factory, "--exhaustive", *GRID, *LOAD)
    assert mlp.get("/v2/models/onnx_mlp/config").json() == original_config
    return run


@pytest.fixture(scope="module")
def search_run(mlp, original_config, grid_run, tmp_path_factory):
    run = run_tune(mlp, tmp_path_factory, *GRID, *LOAD)
    assert mlp.get("/v2/models/onnx_mlp/config").json() == original_config
    return run


def setting_args(setting):
    return [f"--max-batch-sizes={setting['max_batch_size']}", f"--queue-delays-us={setting['queue_delay_us']}",
            f"--instance-counts={setting['instances']}"]


def test_search_finds_a_setting_within_10_percent_of_the_grid_best(mlp, grid_run, search_run,
                                                                   tmp_path_factory):
    _, grid, _ = grid_run
    _, search, _ = search_run
    assert grid["mode"] == "exhaustive grid" and len(grid["points"]) == GRID_SIZE
    assert search["mode"] == "coordinate-descent search"
    assert 0 < len(search["points"]) < GRID_SIZE, search["points"]
    best, found = grid["recommended"], search["recommended"]
    assert best and found
    print(f"grid best {best}, search found {found} in {len(search['points'])} points")
    if found == best:
        return
    # Measured again back to back, alternating, the best of two each.
    throughputs = {"grid": [], "search": []}
    for _ in range(2):
        for name, setting in (("grid", best), ("search", found)):
            _, again, _ = run_tune(mlp, tmp_path_factory, "--exhaustive", *setting_args(setting), *LOAD)
            throughputs[name].append(again["points"][0]["throughput"])
    print(f"measured again: {throughputs}")
    assert max(throughputs["search"]) >= 0.9 * max(throughputs["grid"]), (best, found, throughputs)


def test_every_grid_point_was_measured_once(grid_run):
    _, grid, _ = grid_run
    settings = {(p["max_batch_size"], p["queue_delay_us"], p["instances"]) for p in grid["points"]}
    assert settings == {(b, d, i) for b in (1, 8, 32) for d in (0, 2000) for i in (1, 2)}
    for point in grid["points"]:
        assert point["error"] == "" and point["feasible"], point
        assert [s["concurrency"] for s in point["steps"]] == [16]
        assert point["steps"][0]["requests"] > 0 and point["steps"][0]["errors"] == 0
    best = max(grid["points"], key=lambda p: p["throughput"])
    assert grid["recommended"] == {k: best[k] for k in ("max_batch_size", "queue_delay_us", "instances")}


def test_both_runs_restore_the_original_configuration(grid_run, search_run):
    for result, data, _ in (grid_run, search_run):
        assert data["restored"] is True
        assert data["original"] == {"max_batch_size": 64, "queue_delay_us": 4000, "instances": 1}
        assert "restored the original configuration" in result.stdout


def test_progress_and_the_recommendation_are_printed(grid_run, search_run):
    grid_result, grid, _ = grid_run
    search_result, _, _ = search_run
    assert "[1/12] max_batch_size 1, queue delay 0 us, 1 instance: loading... loaded in" in grid_result.stderr
    assert "[12/12]" in grid_result.stderr
    assert "    concurrency 16: " in grid_result.stderr
    # The search starts from the model's own setting (64, 4000 us, 1) snapped to the grid.
    assert "[1 of at most 12] max_batch_size 32, queue delay 2000 us, 1 instance" in search_result.stderr
    best = grid["recommended"]
    assert (f"recommended: max_batch_size {best['max_batch_size']}, queue delay {best['queue_delay_us']} us"
            in grid_result.stdout), grid_result.stdout
    assert f"  max_batch_size: {best['max_batch_size']}\n" in grid_result.stdout
    assert (f"  dynamic_batching {{ max_queue_delay_microseconds: {best['queue_delay_us']} }}\n"
            in grid_result.stdout)
    assert f"  instance_group [ {{ count: {best['instances']}, kind: KIND_CPU }} ]\n" in grid_result.stdout


def test_the_report_parses_and_holds_both_plots(grid_run):
    _, grid, report = grid_run
    root = ET.parse(report).getroot()  # well-formed: it parses as XML
    assert root.tag == f"{XHTML}html"
    svgs = list(root.iter(f"{SVG}svg"))
    assert len(svgs) == 2
    latency, throughput = svgs
    assert len(list(latency.iter(f"{SVG}polyline"))) == GRID_SIZE
    assert len(list(latency.iter(f"{SVG}circle"))) == sum(len(p["steps"]) for p in grid["points"])
    assert len([r for r in throughput.iter(f"{SVG}rect") if r.get("class") == "bar"]) == GRID_SIZE
    text = ET.tostring(root, encoding="unicode", method="text")
    best = grid["recommended"]
    assert (f"Recommended: max_batch_size {best['max_batch_size']}, queue delay {best['queue_delay_us']} us"
            in text)
    snippet = "".join(root.find(f".//{XHTML}pre").itertext())
    assert snippet.startswith(f"max_batch_size: {best['max_batch_size']}\n")
    raw = report.read_text()
    assert "<script" not in raw and "src=" not in raw and "href=" not in raw  # nothing fetched


def test_the_auto_sweep_doubles_the_concurrency(mlp, tmp_path_factory):
    _, data, _ = run_tune(mlp, tmp_path_factory, "--max-batch-sizes=8", "--queue-delays-us=2000",
                          "--instance-counts=1", "--max-concurrency=4", "--warmup-secs=0.3",
                          "--duration-secs=0.7", "--latency-target-ms=2000")
    concurrencies = [s["concurrency"] for s in data["points"][0]["steps"]]
    assert concurrencies[0] == 1 and concurrencies == [1, 2, 4][:len(concurrencies)], concurrencies
    assert len(concurrencies) >= 2


def test_grpc_load_and_keep_best(mlp, original_config, tmp_path_factory):
    out = tmp_path_factory.mktemp("grpc")
    result = tune("onnx_mlp", f"--url={mlp.address}", "--protocol=grpc", f"--grpc-url={mlp.grpc_address}",
                  "--max-batch-sizes=16", "--queue-delays-us=1000", "--instance-counts=1", "--concurrency=4",
                  "--warmup-secs=0.3", "--duration-secs=0.7", "--latency-target-ms=2000", "--keep-best",
                  f"--report={out / 'r.html'}", f"--json={out / 'r.json'}")
    try:
        assert result.returncode == 0, explain(result)
        data = json.loads((out / "r.json").read_text())
        assert data["points"][0]["steps"][0]["requests"] > 0
        assert "load over gRPC" in data["server"]
        assert "kept the recommended setting loaded" in result.stdout
        config = mlp.get("/v2/models/onnx_mlp/config").json()
        assert config["max_batch_size"] == 16
        assert config["dynamic_batching"]["max_queue_delay_microseconds"] == 1000
    finally:
        restore = mlp.post("/v2/repository/models/onnx_mlp/load",
                           json={"parameters": {"config": json.dumps(original_config)}})
        assert restore.status_code == 200, restore.text


def test_a_target_no_setting_keeps_is_exit_1(mlp, original_config, tmp_path_factory):
    out = tmp_path_factory.mktemp("strict")
    result = tune("onnx_mlp", f"--url={mlp.address}", "--max-batch-sizes=8", "--queue-delays-us=0",
                  "--instance-counts=1", "--concurrency=8", "--warmup-secs=0.2", "--duration-secs=0.5",
                  "--latency-target-ms=0.001", f"--report={out / 'r.html'}")
    assert result.returncode == 1, explain(result)
    assert "no setting kept p99 within 0.00 ms" in result.stdout
    assert "No setting kept p99" in (out / "r.html").read_text()
    assert mlp.get("/v2/models/onnx_mlp/config").json() == original_config


def test_an_interrupt_stops_restores_and_reports(mlp, original_config, tmp_path):
    process = subprocess.Popen(
        [str(inferd_binary()), "tune", "onnx_mlp", f"--url={mlp.address}", "--exhaustive", *GRID,
         "--concurrency=4", "--warmup-secs=0.2", "--duration-secs=1", "--latency-target-ms=2000",
         f"--report={tmp_path / 'r.html'}", f"--json={tmp_path / 'r.json'}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO_ROOT)
    try:
        seen = ""
        while "loaded in" not in seen:  # the first setting is loaded and being measured
            line = process.stderr.readline()
            assert line, seen
            seen += line
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 130, stdout + seen + stderr
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["interrupted"] is True and data["restored"] is True
    assert 1 <= len(data["points"]) < GRID_SIZE
    assert "interrupted" in stdout and "restored the original configuration" in stdout
    assert mlp.get("/v2/models/onnx_mlp/config").json() == original_config


IDENTITY = single_identity("idm", "FP32", [4], max_batch_size=8)
FLAT = single_identity("flat", "FP32", [4])
ONE_POINT = ["--max-batch-sizes=4", "--queue-delays-us=0", "--instance-counts=1", "--concurrency=1",
             "--warmup-secs=0", "--duration-secs=0.2", "--latency-target-ms=1000"]


def test_a_server_that_is_down(tmp_path):
    result = tune("idm", "--url=127.0.0.1:1", "--latency-target-ms=10")
    assert result.returncode == 2
    assert "cannot reach the server: GET http://127.0.0.1:1/v2/health/live" in result.stderr
    assert "--url" in result.stderr


def test_a_model_that_is_not_there(mlp):
    result = tune("no_such_model", f"--url={mlp.address}", "--latency-target-ms=10")
    assert result.returncode == 2
    assert "model 'no_such_model'" in result.stderr and "HTTP 404" in result.stderr, result.stderr


def test_the_repository_api_off_changes_nothing(inferd, tmp_path):
    server = inferd({"idm": IDENTITY})  # model control mode NONE
    before = server.get("/v2/models/idm/config").json()
    result = tune("idm", f"--url={server.address}", *ONE_POINT, f"--report={tmp_path / 'r.html'}")
    assert result.returncode == 2, explain(result)
    assert "HTTP 503" in result.stderr and "--model-control-mode=explicit" in result.stderr
    assert not (tmp_path / "r.html").exists()
    assert server.get("/v2/models/idm/config").json() == before


def test_a_restricted_repository_api_needs_its_header(inferd, tmp_path):
    server = inferd({"idm": IDENTITY}, extra_args=[
        "--model-control-mode=explicit", "--load-model=idm",
        "--http-restricted-api=model-repository:admin-key=s3cret"])
    result = tune("idm", f"--url={server.address}", *ONE_POINT, f"--report={tmp_path / 'r.html'}")
    assert result.returncode == 2, explain(result)
    assert "HTTP 403" in result.stderr and "--header" in result.stderr
    result = tune("idm", f"--url={server.address}", *ONE_POINT, "--header=admin-key: s3cret",
                  f"--report={tmp_path / 'r.html'}")
    assert result.returncode == 0, explain(result)
    assert "restored the original configuration" in result.stdout


def test_a_model_that_does_not_batch_tunes_only_instances(inferd, tmp_path):
    server = inferd({"flat": FLAT}, extra_args=["--model-control-mode=explicit", "--load-model=flat"])
    result = tune("flat", f"--url={server.address}", "--max-batch-sizes=4", "--latency-target-ms=10")
    assert result.returncode == 2
    assert "model 'flat' does not batch (max_batch_size 0)" in result.stderr
    result = tune("flat", f"--url={server.address}", "--instance-counts=1,2", "--exhaustive",
                  "--concurrency=2", "--warmup-secs=0", "--duration-secs=0.2", "--latency-target-ms=1000",
                  f"--report={tmp_path / 'r.html'}", f"--json={tmp_path / 'r.json'}")
    assert result.returncode == 0, explain(result)
    points = json.loads((tmp_path / "r.json").read_text())["points"]
    assert [(p["max_batch_size"], p["instances"]) for p in points] == [(0, 1), (0, 2)]
    assert "instance_group [ { count: " in result.stdout and "max_batch_size:" not in result.stdout


@pytest.mark.parametrize("flags, message", [
    ([], "--latency-target-ms is required"),
    (["--latency-target-ms=0"], "--latency-target-ms must be above 0"),
    (["--latency-target-ms=5", "--instance-counts=0,1"], "--instance-counts '0,1': '0' is not a whole number >= 1"),
    (["--latency-target-ms=5", "--max-batch-sizes=8,x"], "--max-batch-sizes '8,x': 'x' is not a whole number"),
    (["--latency-target-ms=5", "--concurrency=some"], "--concurrency 'some'"),
    (["--latency-target-ms=5", "--protocol=udp"], "--protocol 'udp': expected http or grpc"),
    (["--latency-target-ms=5", "--duration-secs=0"], "--duration-secs must be above 0"),
    (["--latency-target-ms=5", "--url=host:99999"], "--url 'host:99999': bad port"),
    (["--latency-target-ms=5", "--header=novalue"], "--header 'novalue': expected 'Name: value'"),
])
def test_bad_flags_are_named(flags, message):
    result = tune("m", *flags)
    assert result.returncode == 2
    assert message in result.stderr, result.stderr


def test_help_through_the_inferd_binary():
    result = tune("--help")
    assert result.returncode == 0
    assert "inferd tune" in result.stdout and "--latency-target-ms" in result.stdout
