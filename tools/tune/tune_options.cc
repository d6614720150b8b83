// Flag definitions and parsing for inferd tune (CLI11).
#include "tune/tune_options.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <thread>

namespace inferd::tune {
namespace {

// The flags parsed as text, to be checked and resolved into TuneOptions.
struct TextFlags {
  std::string url = "localhost:8000";
  std::string grpc_url;
  std::string protocol = "http";
  std::vector<std::string> headers;
  std::string batch_sizes = "4,16,64";
  std::string queue_delays = "0,1000,4000";
  std::string instance_counts = "1,2,4";
  std::string concurrency = "auto";
  std::string tensor_format = "binary";
  std::vector<std::string> shapes;
};

void AddServerFlags(CLI::App& app, TuneOptions& o, TextFlags& t) {
  app.add_option("model", o.model, "The model to tune (loaded, on a server started with "
                 "--model-control-mode=explicit)")->required();
  app.add_option("-u,--url", t.url, "The server's HTTP endpoint, host:port (default localhost:8000)");
  app.add_option("-i,--protocol", t.protocol, "Protocol of the measured load: http or grpc (default http)");
  app.add_option("--grpc-url", t.grpc_url, "The gRPC endpoint with --protocol grpc (default HOST:8001)");
  app.add_option("-H,--header", t.headers,
                 "'Name: value' header on the repository and configuration calls (a restricted "
                 "API's key); repeatable");
}

void AddSearchFlags(CLI::App& app, TuneOptions& o, TextFlags& t) {
  app.add_option("--latency-target-ms", o.sweep.latency_target_ms,
                 "The p99 latency every recommended point must keep, in ms")->required();
  app.add_option("--max-batch-sizes", t.batch_sizes, "max_batch_size values to try (default 4,16,64)");
  app.add_option("--queue-delays-us", t.queue_delays,
                 "dynamic_batching max_queue_delay_microseconds values to try (default 0,1000,4000)");
  app.add_option("--instance-counts", t.instance_counts, "instance_group counts to try (default 1,2,4)");
  app.add_flag("--exhaustive", o.exhaustive, "Measure every point of the grid instead of searching");
  app.add_option("--search-margin", o.search_margin,
                 "The search moves only to a point measuring this fraction better (default 0.03)");
}

void AddLoadFlags(CLI::App& app, TuneOptions& o, TextFlags& t) {
  app.add_option("--concurrency", t.concurrency,
                 "auto (double from 1 until p99 passes the target or throughput stops growing) or "
                 "a list of requests in flight, e.g. 8,32 (default auto)");
  app.add_option("--max-concurrency", o.sweep.max_concurrency, "Cap of the auto sweep (default 128)");
  app.add_option("--warmup-secs", o.warmup_secs, "Unmeasured seconds before each step (default 1)");
  app.add_option("--duration-secs", o.duration_secs, "Measured seconds per step (default 3)");
  app.add_option("-b,--batch-size", o.batch_size, "Rows per request (default 1)");
  app.add_option("--shape", t.shapes, "NAME:d1,d2 shape of an input with -1 dimensions, batch "
                 "dimension left out; repeatable");
  app.add_option("--tensor-format", t.tensor_format, "binary or json tensors (default binary)");
}

void AddOutputFlags(CLI::App& app, TuneOptions& o) {
  app.add_option("--report", o.report_file, "The HTML report (default tune-MODEL.html)");
  app.add_option("--json", o.json_file, "Also write every measurement as JSON to this file");
  app.add_flag("--keep-best", o.keep_best,
               "Leave the recommended setting loaded instead of restoring the original configuration");
  app.add_flag("-q,--quiet", o.quiet, "No progress on stderr");
}

std::string ParseHeader(const std::string& text, TuneOptions* o) {
  const size_t colon = text.find(':');
  if (colon == std::string::npos || colon == 0) return "--header '" + text + "': expected 'Name: value'";
  const size_t value = text.find_first_not_of(' ', colon + 1);
  o->headers.emplace_back(text.substr(0, colon), value == std::string::npos ? "" : text.substr(value));
  return "";
}

std::string ResolveEndpoints(const TextFlags& t, TuneOptions* o) {
  std::string error;
  if (!(error = loadgen::ParseHostPort(t.url, &o->host, &o->http_port)).empty()) return "--url " + error;
  o->grpc_host = o->host;
  if (!t.grpc_url.empty() && !(error = loadgen::ParseHostPort(t.grpc_url, &o->grpc_host, &o->grpc_port)).empty()) {
    return "--grpc-url " + error;
  }
  if (t.protocol == "http") o->protocol = loadgen::Protocol::kHttp;
  else if (t.protocol == "grpc") o->protocol = loadgen::Protocol::kGrpc;
  else return "--protocol '" + t.protocol + "': expected http or grpc";
  for (const std::string& header : t.headers) {
    if (!(error = ParseHeader(header, o)).empty()) return error;
  }
  return "";
}

std::string ResolveLists(const TextFlags& t, TuneOptions* o) {
  std::string error;
  if (!(error = ParseValueList("--max-batch-sizes", t.batch_sizes, 1, &o->space.values[kBatch])).empty() ||
      !(error = ParseValueList("--queue-delays-us", t.queue_delays, 0, &o->space.values[kDelay])).empty() ||
      !(error = ParseValueList("--instance-counts", t.instance_counts, 1, &o->space.values[kInstances])).empty()) {
    return error;
  }
  if (t.concurrency != "auto") {
    error = ParseValueList("--concurrency", t.concurrency, 1, &o->sweep.fixed);
    if (!error.empty()) return error + " (or auto)";
  }
  for (const std::string& shape : t.shapes) {
    if (!(error = loadgen::ParseShape(shape, &o->shapes)).empty()) return error;
  }
  if (t.tensor_format == "binary" || t.tensor_format == "json") o->binary = t.tensor_format == "binary";
  else return "--tensor-format '" + t.tensor_format + "': expected binary or json";
  return "";
}

std::string CheckNumbers(const TuneOptions& o) {
  if (!(o.sweep.latency_target_ms > 0)) return "--latency-target-ms must be above 0";
  if (o.sweep.max_concurrency < 1) return "--max-concurrency must be at least 1";
  if (!(o.duration_secs > 0)) return "--duration-secs must be above 0";
  if (!(o.warmup_secs >= 0)) return "--warmup-secs must be 0 or more";
  if (o.batch_size < 1) return "--batch-size must be at least 1";
  if (!(o.search_margin >= 0 && o.search_margin < 1)) return "--search-margin must be in [0, 1)";
  return "";
}

}  // namespace

loadgen::LoadgenOptions TuneOptions::LoadOptions() const {
  loadgen::LoadgenOptions load;
  load.protocol = protocol;
  load.host = protocol == loadgen::Protocol::kHttp ? host : grpc_host;
  load.port = protocol == loadgen::Protocol::kHttp ? http_port : grpc_port;
  load.model = model;
  load.batch_size = batch_size;
  load.shapes = shapes;
  load.binary = binary;
  load.threads = std::clamp(int(std::thread::hardware_concurrency()), 1, 4);
  load.quiet = quiet;
  return load;
}

std::optional<TuneOptions> ParseTuneOptions(int argc, char** argv, int* exit_code) {
  TuneOptions o;
  TextFlags text;
  CLI::App app{"inferd tune: measures a model on a running server over settings of max_batch_size, "
               "queue delay and instance count, and recommends the best within a p99 target"};
  app.name("inferd tune");
  AddServerFlags(app, o, text);
  AddSearchFlags(app, o, text);
  AddLoadFlags(app, o, text);
  AddOutputFlags(app, o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11's own codes (106 for a missing flag, ...) become the tool's 2.
    *exit_code = app.exit(e) == 0 ? 0 : 2;
    return std::nullopt;
  }
  o.batch_values_given = app.count("--max-batch-sizes") > 0 || app.count("--queue-delays-us") > 0;
  std::string error = ResolveEndpoints(text, &o);
  if (error.empty()) error = ResolveLists(text, &o);
  if (error.empty()) error = CheckNumbers(o);
  if (!error.empty()) {
    std::fprintf(stderr, "inferd tune: %s\n", error.c_str());
    *exit_code = 2;
    return std::nullopt;
  }
  if (o.report_file.empty()) o.report_file = "tune-" + o.model + ".html";
  return o;
}

}  // namespace inferd::tune
