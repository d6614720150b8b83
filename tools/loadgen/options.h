// The command line of inferd-loadgen: what to load (server, protocol, model,
// inputs) and how (closed-loop concurrency sweep or open-loop request rate,
// step length, output). ParseOptions turns argv into LoadgenOptions.
#ifndef INFERD_TOOLS_LOADGEN_OPTIONS_H_
#define INFERD_TOOLS_LOADGEN_OPTIONS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace inferd::loadgen {

enum class Protocol { kHttp, kGrpc };
enum class RateDistribution { kConstant, kPoisson };

struct LoadgenOptions {
  std::string host = "localhost";
  uint16_t port = 0;  // 0 until parsed: 8000 for HTTP, 8001 for gRPC
  Protocol protocol = Protocol::kHttp;
  std::string model;
  std::string model_version;  // "" = the server's choice
  int batch_size = 1;         // rows per request when the model batches
  // Shapes for inputs with -1 dimensions, without the batch dimension.
  std::map<std::string, std::vector<int64_t>> shapes;
  bool binary = false;        // HTTP binary tensor extension / gRPC raw contents
  int string_length = 16;     // bytes per random BYTES element

  // Closed loop: one step per concurrency in the sweep.
  int concurrency_start = 1, concurrency_end = 1, concurrency_step = 1;
  // Open loop: one step per rate in the sweep (requests per second); unset = closed loop.
  std::optional<double> rate_start;
  double rate_end = 0, rate_step = 1;
  RateDistribution distribution = RateDistribution::kConstant;
  int max_connections = 512;  // HTTP connections at most in open-loop mode

  double duration_secs = 5;
  double warmup_secs = 1;
  int threads = 0;            // I/O threads of the HTTP client; 0 = cores, at most 4
  std::string csv_file;
  bool quiet = false;         // no progress line
  uint64_t seed = 1;

  // The concurrencies or rates of the sweep, in order.
  std::vector<double> Steps() const;
  bool open_loop() const { return rate_start.has_value(); }
};

// Parses argv. Returns the options, or prints help or an error (naming the
// flag) and sets *exit_code: 0 after --help, 2 after a bad flag.
std::optional<LoadgenOptions> ParseOptions(int argc, char** argv, int* exit_code);

// "host:port", "http://host:port" or "host" into *host and (when the text
// has one) *port. Returns "" or an error quoting the text.
std::string ParseHostPort(std::string url, std::string* host, uint16_t* port);

// "NAME:d1,d2,..." (a --shape flag) into (*shapes)[NAME]. Returns "" or an error.
std::string ParseShape(const std::string& text, std::map<std::string, std::vector<int64_t>>* shapes);

// "a:b:c", "a:b" or "a" into start, end and step (end defaults to start,
// step to `default_step`). Returns "" or an error naming the text.
std::string ParseRange(const std::string& text, double default_step, double* start, double* end,
                       double* step);

}  // namespace inferd::loadgen

#endif  // INFERD_TOOLS_LOADGEN_OPTIONS_H_
