// Flag definitions and parsing for inferd-loadgen (CLI11).
#include "loadgen/options.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <thread>

namespace inferd::loadgen {

std::string ParseShape(const std::string& text, std::map<std::string, std::vector<int64_t>>* shapes) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return "--shape '" + text + "': expected NAME:d1,d2";
  std::vector<int64_t> dims;
  std::stringstream list(text.substr(colon + 1));
  for (std::string dim; std::getline(list, dim, ',');) {
    char* end = nullptr;
    const long long value = std::strtoll(dim.c_str(), &end, 10);
    if (dim.empty() || *end != '\0' || value < 0) {
      return "--shape '" + text + "': '" + dim + "' is not a dimension (a whole number >= 0)";
    }
    dims.push_back(value);
  }
  (*shapes)[text.substr(0, colon)] = dims;
  return "";
}

std::string ParseHostPort(std::string url, std::string* host, uint16_t* port) {
  for (const char* scheme : {"http://", "https://", "grpc://"}) {
    if (url.rfind(scheme, 0) == 0) url = url.substr(std::string(scheme).size());
  }
  if (const size_t slash = url.find('/'); slash != std::string::npos) url.resize(slash);
  const size_t colon = url.rfind(':');
  if (colon == std::string::npos) {
    *host = url;
    return "";
  }
  const int number = std::atoi(url.c_str() + colon + 1);
  if (number <= 0 || number > 65535) return "'" + url + "': bad port";
  *host = url.substr(0, colon);
  *port = static_cast<uint16_t>(number);
  return "";
}

std::string ParseRange(const std::string& text, double default_step, double* start, double* end,
                       double* step) {
  std::vector<double> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, ':');) {
    char* after = nullptr;
    const double value = std::strtod(part.c_str(), &after);
    if (part.empty() || *after != '\0' || !(value > 0)) {
      return "'" + text + "': expected start[:end[:step]] with numbers above 0";
    }
    parts.push_back(value);
  }
  if (parts.empty() || parts.size() > 3) return "'" + text + "': expected start[:end[:step]]";
  *start = parts[0];
  *end = parts.size() > 1 ? parts[1] : parts[0];
  *step = parts.size() > 2 ? parts[2] : default_step;
  if (*end < *start) return "'" + text + "': end is below start";
  return "";
}

std::vector<double> LoadgenOptions::Steps() const {
  std::vector<double> steps;
  if (open_loop()) {
    for (double r = *rate_start; r <= rate_end * (1 + 1e-9); r += rate_step) steps.push_back(r);
  } else {
    for (int c = concurrency_start; c <= concurrency_end; c += concurrency_step) steps.push_back(c);
  }
  return steps;
}

namespace {

// The flags parsed as text, to be checked and resolved into LoadgenOptions.
struct TextFlags {
  std::string url;
  std::string protocol = "http";
  std::string concurrency = "1";
  std::string rate;
  std::string distribution = "constant";
  std::vector<std::string> shapes;
};

void AddFlags(CLI::App& app, LoadgenOptions& o, TextFlags& t) {
  app.add_option("-u,--url", t.url, "Server as host:port (default localhost:8000, 8001 for gRPC)");
  app.add_option("-i,--protocol", t.protocol, "http or grpc (default http)");
  app.add_option("-m,--model", o.model, "Model name")->required();
  app.add_option("-x,--model-version", o.model_version, "Model version (default: the server's)");
  app.add_option("-b,--batch-size", o.batch_size, "Rows per request when the model batches (default 1)");
  app.add_option("--shape", t.shapes,
                 "NAME:d1,d2 shape of an input with -1 dimensions, batch dimension left out; repeatable");
  app.add_flag("--binary", o.binary,
               "Send tensors as binary data (HTTP binary tensor extension, gRPC raw contents) "
               "instead of JSON / typed contents");
  app.add_option("--string-length", o.string_length, "Bytes per random BYTES element (default 16)");
  app.add_option("--concurrency-range", t.concurrency,
                 "start[:end[:step]] requests in flight, one step each (closed loop; default 1)");
  app.add_option("--request-rate", t.rate,
                 "R or start:end:step requests per second, one step each (open loop, instead of "
                 "--concurrency-range)");
  app.add_option("--request-distribution", t.distribution, "constant or poisson arrivals (default constant)");
  app.add_option("--max-connections", o.max_connections,
                 "HTTP connections at most in open-loop mode (default 512)");
  app.add_option("--duration-secs", o.duration_secs, "Measured seconds per step (default 5)");
  app.add_option("--warmup-secs", o.warmup_secs, "Unmeasured seconds before each step (default 1)");
  app.add_option("--threads", o.threads, "I/O threads of the HTTP client (default: cores, at most 4)");
  app.add_option("--csv", o.csv_file, "Write one CSV row per step to this file");
  app.add_flag("-q,--quiet", o.quiet, "No progress line on stderr");
  app.add_option("--seed", o.seed, "Seed of the random input data (default 1)");
}

// The steps: --request-rate's (open loop) or else --concurrency-range's.
// The error, or "".
std::string ResolveSteps(const TextFlags& t, LoadgenOptions* o) {
  std::string error;
  double start, end, step;
  if (!t.rate.empty()) {
    if (!(error = ParseRange(t.rate, 1, &start, &end, &step)).empty()) return "--request-rate " + error;
    o->rate_start = start;
    o->rate_end = end;
    o->rate_step = step;
    return "";
  }
  if (!(error = ParseRange(t.concurrency, 1, &start, &end, &step)).empty()) {
    return "--concurrency-range " + error;
  }
  if (start != std::floor(start) || end != std::floor(end) || step != std::floor(step)) {
    return "--concurrency-range '" + t.concurrency + "': expected whole numbers";
  }
  o->concurrency_start = int(start);
  o->concurrency_end = int(end);
  o->concurrency_step = int(step);
  return "";
}

// The text flags resolved into `o`, in the order they are checked. The
// error, or "".
std::string ResolveTextFlags(const TextFlags& t, LoadgenOptions* o) {
  std::string error;
  if (t.protocol == "http") o->protocol = Protocol::kHttp;
  else if (t.protocol == "grpc") o->protocol = Protocol::kGrpc;
  else return "--protocol '" + t.protocol + "': expected http or grpc";
  if (!t.url.empty() && !(error = ParseHostPort(t.url, &o->host, &o->port)).empty()) {
    return "--url " + error;
  }
  if (o->port == 0) o->port = o->protocol == Protocol::kHttp ? 8000 : 8001;
  for (const std::string& shape : t.shapes) {
    if (!(error = ParseShape(shape, &o->shapes)).empty()) return error;
  }
  if (t.distribution == "constant") o->distribution = RateDistribution::kConstant;
  else if (t.distribution == "poisson") o->distribution = RateDistribution::kPoisson;
  else return "--request-distribution '" + t.distribution + "': expected constant or poisson";
  return ResolveSteps(t, o);
}

// The numeric flags' bounds; fills in the default thread count. The error, or "".
std::string CheckNumbers(LoadgenOptions* o) {
  if (o->batch_size < 1) return "--batch-size must be at least 1";
  if (o->duration_secs <= 0) return "--duration-secs must be above 0";
  if (o->warmup_secs < 0) return "--warmup-secs must be 0 or more";
  if (o->threads < 0) return "--threads must be at least 1";
  if (o->threads == 0) o->threads = std::clamp(int(std::thread::hardware_concurrency()), 1, 4);
  if (o->max_connections < 1) return "--max-connections must be at least 1";
  if (o->string_length < 0) return "--string-length must be 0 or more";
  return "";
}

}  // namespace

std::optional<LoadgenOptions> ParseOptions(int argc, char** argv, int* exit_code) {
  LoadgenOptions o;
  TextFlags text;
  CLI::App app{"inferd-loadgen: measures throughput and latency of a KServe v2 (Triton) server"};
  AddFlags(app, o, text);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    *exit_code = app.exit(e);
    return std::nullopt;
  }
  std::string error = ResolveTextFlags(text, &o);
  if (error.empty()) error = CheckNumbers(&o);
  if (!error.empty()) {
    std::fprintf(stderr, "inferd-loadgen: %s\n", error.c_str());
    *exit_code = 2;
    return std::nullopt;
  }
  return o;
}

}  // namespace inferd::loadgen
