// inferd-loadgen: measures a KServe v2 (Triton-compatible) server. Learns the
// model from its metadata, generates random inputs, then runs one step per
// concurrency (closed loop) or request rate (open loop) and prints a table
// row per step; see `inferd-loadgen --help` and bench/README.md.
//
// Exit status: 0 when every step had successful requests, 1 when a step had
// none, 2 on a bad flag or when the model cannot be read.
#include <cstdio>
#include <fstream>
#include <string>

#include "loadgen/infer_client.h"
#include "loadgen/input_generator.h"
#include "loadgen/load_driver.h"
#include "loadgen/options.h"
#include "loadgen/report.h"

namespace inferd::loadgen {
namespace {

std::string Describe(const LoadgenOptions& o, const std::vector<TensorSpec>& inputs) {
  std::string text = std::string(o.protocol == Protocol::kHttp ? "http" : "grpc") + " " + o.host +
                     ":" + std::to_string(o.port) + " model " + o.model;
  if (!o.model_version.empty()) text += " version " + o.model_version;
  text += ", inputs";
  for (const TensorSpec& input : inputs) {
    text += " " + input.name + " " + input.datatype + " [";
    for (size_t i = 0; i < input.shape.size(); ++i) text += (i ? "," : "") + std::to_string(input.shape[i]);
    text += "]";
  }
  text += o.binary ? ", binary tensors" : (o.protocol == Protocol::kHttp ? ", JSON tensors" : ", typed contents");
  text += o.open_loop() ? ", open loop" : ", closed loop";
  char window[96];
  std::snprintf(window, sizeof(window), ", %g s per step after %g s warm-up", o.duration_secs, o.warmup_secs);
  return text + window;
}

int Run(const LoadgenOptions& options) {
  std::unique_ptr<InferClient> client =
      options.protocol == Protocol::kHttp ? MakeHttpClient(options) : MakeGrpcClient(options);
  ModelInfo info;
  std::vector<TensorSpec> inputs;
  std::string error = client->FetchModelInfo(&info);
  if (error.empty()) error = ResolveInputShapes(info, options.batch_size, options.shapes, &inputs);
  if (!error.empty()) {
    std::fprintf(stderr, "inferd-loadgen: %s\n", error.c_str());
    return 2;
  }
  client->PrepareRequest(info, GenerateInputs(inputs, options.seed, options.string_length));

  std::ofstream csv;
  if (!options.csv_file.empty()) {
    csv.open(options.csv_file);
    if (!csv) {
      std::fprintf(stderr, "inferd-loadgen: --csv %s: cannot write the file\n", options.csv_file.c_str());
      return 2;
    }
    csv << CsvHeader() << "\n";
  }
  std::printf("# %s\n%s\n", Describe(options, inputs).c_str(), TableHeader(options.open_loop()).c_str());
  std::fflush(stdout);

  int status = 0;
  for (double value : options.Steps()) {
    StepPlan plan{options.open_loop(), value, options.distribution, options.warmup_secs,
                  options.duration_secs, !options.quiet, options.seed};
    const StepResult step = RunStep(*client, plan);
    std::printf("%s\n", TableRow(step, options.batch_size).c_str());
    std::fflush(stdout);
    if (csv.is_open()) csv << CsvRow(step, options.batch_size) << std::endl;
    if (step.summary.errors > 0) {
      std::fprintf(stderr, "inferd-loadgen: %s %g: %llu errors; the first: %s\n",
                   plan.open_loop ? "rate" : "concurrency", value,
                   (unsigned long long)step.summary.errors, step.summary.first_error.c_str());
    }
    if (!step.drained) {
      std::fprintf(stderr, "inferd-loadgen: %s %g: requests still unanswered 30 s after the step\n",
                   plan.open_loop ? "rate" : "concurrency", value);
    }
    if (step.summary.requests == 0) status = 1;
  }
  return status;
}

}  // namespace
}  // namespace inferd::loadgen

int main(int argc, char** argv) {
  int exit_code = 0;
  const auto options = inferd::loadgen::ParseOptions(argc, argv, &exit_code);
  if (!options) return exit_code;
  return inferd::loadgen::Run(*options);
}
