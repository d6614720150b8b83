// inferd tune (build/tools/inferd-tune, run as `inferd tune MODEL`): measures
// a model on a running server over settings of max_batch_size, queue delay
// and instance count, and recommends the best within a p99 target; see
// docs/tune.md.
//
// Exit status: 0 with a recommendation, 1 when no setting kept the target,
// 2 on a bad flag, a server or model that cannot be tuned, a failure that
// stopped the run, or an original configuration that could not be restored;
// 130 when interrupted (SIGINT or SIGTERM) and restored.
#include <csignal>
#include <cstdio>
#include <fstream>

#include "loadgen/infer_client.h"
#include "loadgen/input_generator.h"
#include "tune/html_report.h"
#include "tune/results_json.h"
#include "tune/summary.h"
#include "tune/tuner.h"

namespace inferd::tune {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void OnInterrupt(int) {
  g_stop.store(true);
  // A second interrupt ends the process at once (the configuration then stays as it is).
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

// The space to search for this model. Returns "" or an error.
std::string FitSpace(const TuneOptions& o, const ConfigFacts& facts, SearchSpace* space) {
  *space = o.space;
  if (!facts.batches) {
    if (o.batch_values_given) {
      return "model '" + o.model + "' does not batch (max_batch_size 0): --max-batch-sizes and "
             "--queue-delays-us do not apply; only --instance-counts is tuned";
    }
    space->values[kBatch] = {0};
    space->values[kDelay] = {facts.setting.queue_delay_us};
    return "";
  }
  if (o.batch_size > space->values[kBatch].front()) {
    return "--batch-size " + std::to_string(o.batch_size) + " is above the smallest max_batch_size tried (" +
           std::to_string(space->values[kBatch].front()) + ")";
  }
  return "";
}

// The load generator's client with its request prepared. Returns "" or an error.
std::string PrepareClient(const TuneOptions& o, std::unique_ptr<loadgen::InferClient>* client) {
  const loadgen::LoadgenOptions load = o.LoadOptions();
  *client = load.protocol == loadgen::Protocol::kHttp ? loadgen::MakeHttpClient(load)
                                                      : loadgen::MakeGrpcClient(load);
  loadgen::ModelInfo info;
  std::vector<loadgen::TensorSpec> inputs;
  std::string error = (*client)->FetchModelInfo(&info);
  if (error.empty()) error = loadgen::ResolveInputShapes(info, o.batch_size, o.shapes, &inputs);
  if (!error.empty()) return error;
  (*client)->PrepareRequest(info, loadgen::GenerateInputs(inputs, load.seed, load.string_length));
  return "";
}

bool WriteFile(const std::string& path, const std::string& text, const char* flag) {
  std::ofstream file(path);
  file << text;
  file.close();
  if (file) return true;
  std::fprintf(stderr, "inferd tune: %s %s: cannot write the file\n", flag, path.c_str());
  return false;
}

int Report(const TuneOptions& o, const TuneResult& result, const std::string& fatal) {
  std::printf("%s", SummaryText(result).c_str());
  bool written = WriteFile(o.report_file, HtmlReport(result), "--report");
  if (written) std::printf("report: %s\n", o.report_file.c_str());
  if (!o.json_file.empty()) written &= WriteFile(o.json_file, ResultsJson(result), "--json");
  std::fflush(stdout);
  if (!fatal.empty()) std::fprintf(stderr, "inferd tune: stopped: %s\n", fatal.c_str());
  if (!fatal.empty() || !written || (!result.restored && !o.keep_best)) return 2;
  if (result.interrupted) return 130;  // as a shell reports SIGINT
  return result.has_recommendation ? 0 : 1;
}

int Run(const TuneOptions& o) {
  ModelControl control(o.host, o.http_port, o.headers, o.model);
  std::string config_json;
  ConfigFacts facts;
  SearchSpace space;
  std::unique_ptr<loadgen::InferClient> client;
  std::string error = control.FetchConfig(&config_json);
  if (error.empty()) error = ReadConfigFacts(o.model, config_json, &facts);
  if (error.empty()) error = FitSpace(o, facts, &space);
  if (error.empty()) error = PrepareClient(o, &client);
  if (!error.empty()) {
    std::fprintf(stderr, "inferd tune: %s\n", error.c_str());
    return 2;
  }
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
  Progress progress(stderr, o.quiet);
  Tuner tuner(o, control, *client, g_stop, progress);
  std::string fatal;
  const TuneResult result = tuner.Run(facts, config_json, space, &fatal);
  if (!fatal.empty() && result.points.empty()) {
    std::fprintf(stderr, "inferd tune: %s\n", fatal.c_str());
    if (!result.restored) std::fprintf(stderr, "inferd tune: %s\n", result.restore_note.c_str());
    return 2;
  }
  return Report(o, result, fatal);
}

}  // namespace
}  // namespace inferd::tune

int main(int argc, char** argv) {
  int exit_code = 0;
  const auto options = inferd::tune::ParseTuneOptions(argc, argv, &exit_code);
  if (!options) return exit_code;
  return inferd::tune::Run(*options);
}
