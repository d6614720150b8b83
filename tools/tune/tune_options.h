// The command line of inferd tune: the server and model, the latency target,
// the values to try per dimension, search or exhaustive grid, the load per
// setting, and the outputs. ParseTuneOptions turns argv into TuneOptions.
#ifndef INFERD_TOOLS_TUNE_TUNE_OPTIONS_H_
#define INFERD_TOOLS_TUNE_TUNE_OPTIONS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "loadgen/options.h"
#include "tune/search_space.h"
#include "tune/sweep.h"

namespace inferd::tune {

struct TuneOptions {
  std::string model;
  std::string host = "localhost";  // --url: the HTTP endpoint (repository API, config, HTTP load)
  uint16_t http_port = 8000;
  loadgen::Protocol protocol = loadgen::Protocol::kHttp;  // of the inference load
  std::string grpc_host;           // --grpc-url; defaults to host
  uint16_t grpc_port = 8001;
  std::vector<std::pair<std::string, std::string>> headers;  // on repository/config calls

  SearchSpace space;               // as given (or defaulted); the model may narrow it
  bool batch_values_given = false; // --max-batch-sizes or --queue-delays-us on the command line
  bool exhaustive = false;
  double search_margin = 0.03;     // a search step must gain more than this

  SweepRule sweep;                 // carries --latency-target-ms
  double warmup_secs = 1;
  double duration_secs = 3;
  int batch_size = 1;              // rows per request
  std::map<std::string, std::vector<int64_t>> shapes;
  bool binary = true;

  std::string report_file;         // default tune-MODEL.html
  std::string json_file;           // "" = none
  bool keep_best = false;          // leave the recommendation loaded instead of restoring
  bool quiet = false;

  // The load generator's options for this run (closed loop, one client).
  loadgen::LoadgenOptions LoadOptions() const;
  std::string HttpUrl() const { return "http://" + host + ":" + std::to_string(http_port); }
};

// Parses argv (after "inferd tune"). Returns the options, or prints help or an
// error naming the flag and sets *exit_code: 0 after --help, 2 after a bad flag.
std::optional<TuneOptions> ParseTuneOptions(int argc, char** argv, int* exit_code);

}  // namespace inferd::tune

#endif  // INFERD_TOOLS_TUNE_TUNE_OPTIONS_H_
