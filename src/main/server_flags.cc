// The command line -> Flags: every flag's declaration and help, the parse,
// and the checks the parser cannot make. server_from_flags.cc turns the Flags
// into the server.
#include "server_flags.h"

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "common/api_restrictions.h"
#include "common/header_forward.h"
#include "inert_flags.h"

namespace inferd {

namespace {

// A repeatable --*-restricted-* flag: each value adds one group to
// `restrictions`; a bad value fails the parse, naming the flag.
void AddRestrictionFlag(CLI::App& app, const std::string& flag, std::string_view header_prefix,
                        ApiRestrictions& restrictions, const std::string& help) {
  app.add_option_function<std::vector<std::string>>(
      flag,
      [flag, header_prefix, &restrictions](const std::vector<std::string>& values) {
        restrictions = ApiRestrictions();
        for (const std::string& value : values) {
          if (Status s = restrictions.AddGroup(flag, value, header_prefix); !s.ok()) {
            throw CLI::ValidationError(s.message());
          }
        }
      },
      help);
}

void AddRepositoryAndHttpFlags(CLI::App& app, Flags& f) {
  // Required, unless Vertex AI's AIP_STORAGE_URI names one (main checks).
  app.add_option("--model-repository,--model-store", f.model_repositories,
                 "Model repository folder; repeat the flag for several");
  app.add_option("--model-repository-cache-directory", f.model_repository_cache_directory,
                 "Where models of s3:// gs:// as:// repositories are copied, kept across "
                 "restarts (default ~/.cache/inferd/model-repositories)");
  app.add_option("--model-repository-cache-byte-size", f.model_repository_cache_byte_size,
                 "Most bytes those copies may take; older copies of models no longer current "
                 "are removed first (default 0: no limit)");
  app.add_option("--backend-directory", f.backend_directory,
                 "Folder holding <backend>/libinferd_<backend>.so (default: <binary dir>/backends)");
  app.add_option("--backend-config", f.backend_configs,
                 "Backend setting as <backend>,<setting>=<value>; repeatable");
  app.add_option("--allow-http", f.allow_http, "Serve HTTP/REST (default true)");
  app.add_option("--http-address", f.http_address, "Address the HTTP server binds (default 0.0.0.0)");
  app.add_option("--http-port", f.http_port, "HTTP port (default 8000; 0 picks a free port)");
  app.add_option("--http-thread-count", f.http_thread_count,
                 "Threads serving HTTP (default: number of cores, at least 2)");
  app.add_option("--reuse-http-port", f.reuse_http_port,
                 "Let several servers listen on the HTTP port, each started with this flag "
                 "(SO_REUSEPORT; default false)");
  app.add_option("--http-header-forward-pattern", f.http_header_forward_pattern,
                 "Regular expression (RE2, case-insensitive, matched anywhere in the name): "
                 "HTTP headers of infer requests whose name matches become request parameters");
  app.add_option("--http-use-ssl", f.http_tls.use_ssl,
                 "Serve HTTPS on the HTTP port with --http-server-cert and --http-server-key "
                 "(not a Triton flag; default false)");
  app.add_option("--http-use-ssl-mutual", f.http_tls.use_mutual_ssl,
                 "Serve HTTPS with mutual TLS: clients need a certificate signed by "
                 "--http-root-cert (not a Triton flag; default false)");
  app.add_option("--http-server-cert", f.http_tls.server_cert,
                 "PEM file: the HTTPS server certificate chain");
  app.add_option("--http-server-key", f.http_tls.server_key,
                 "PEM file: the HTTPS server private key");
  app.add_option("--http-root-cert", f.http_tls.root_cert,
                 "PEM file: the CA that signs HTTPS client certificates");
  app.add_option("--allow-openai", f.allow_openai,
                 "Serve the OpenAI-compatible API (/v1/models, /v1/completions, "
                 "/v1/chat/completions, /v1/embeddings) on the HTTP port (not a Triton flag; "
                 "default true)");
  app.add_option("--allow-dashboard", f.allow_dashboard,
                 "Serve the live dashboard (/dashboard: models, load, latency, memory) on the "
                 "HTTP port, in the statistics group of --http-restricted-api (not a Triton "
                 "flag; default true)");
  app.add_option("--openai-timeout-secs", f.openai_timeout_secs,
                 "Seconds an OpenAI API request may take; past them its generation is "
                 "cancelled and it is answered 504 (not a Triton flag; default 0: no limit)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--auth-file", f.auth_file,
                 "JSON file of API keys with scopes (docs/security.md): every request but health "
                 "checks then needs 'Authorization: Bearer <key>'; re-read on change and on "
                 "SIGHUP (not a Triton flag; default: no keys needed)");
  AddRestrictionFlag(app, "--http-restricted-api", "", f.http_restrictions,
                     "<category>[,<category>...]:<key>=<value>: those endpoint categories answer "
                     "only requests with header <key>: <value> (403 otherwise); repeatable, one "
                     "group each. Categories: health, metadata, inference, shared-memory, "
                     "model-config, model-repository, statistics, trace, logging");
}

void AddLogAndExitFlags(CLI::App& app, Flags& f) {
  app.add_option("--log-verbose", f.log_verbose, "Verbose logging level (0 = off)");
  app.add_option("--log-info", f.log_info, "Print info lines (default true)");
  app.add_option("--log-warning", f.log_warning, "Print warning lines (default true)");
  app.add_option("--log-error", f.log_error, "Print error lines (default true)");
  app.add_option("--log-file", f.log_file, "Append log lines to this file (default: stderr)");
  app.add_option("--log-format", f.log_format,
                 "default (I1123 08:10:00.123456 ...) | ISO8601 (2026-11-23T08:10:00Z I ...)")
      ->check(CLI::IsMember({"default", "ISO8601"}));
  app.add_option("--exit-timeout-secs", f.exit_timeout_secs,
                 "On SIGINT/SIGTERM, how long to wait for in-flight requests (default 30)");
  app.add_option("--exit-grace-secs", f.exit_grace_secs,
                 "On SIGINT/SIGTERM, seconds to keep serving while not ready before stopping, "
                 "so load balancers move away first; a second signal cuts it short (default 5 in a "
                 "Kubernetes pod, where KUBERNETES_SERVICE_HOST is set; 0 elsewhere, as Triton)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag("--disable-auto-complete-config", f.disable_auto_complete_config,
               "Backends do not complete model configurations: each needs a whole config.pbtxt");
  app.add_option_function<bool>(
      "--strict-model-config",
      [&f](bool strict) {
        f.strict_model_config = strict;
        f.strict_model_config_given = true;
      },
      "Deprecated inverse of --disable-auto-complete-config: true requires whole configs "
      "(default false: backends complete them)");
  app.add_option("--exit-on-error", f.exit_on_error,
                 "Exit when a model fails to load at startup, naming each and why "
                 "(default true; false serves what loaded)");
  app.add_option("--strict-readiness", f.strict_readiness,
                 "Ready only when every model that should load is READY (default true)");
}

void AddModelFlags(CLI::App& app, Flags& f) {
  app.add_option("--model-control-mode", f.model_control_mode,
                 "none | explicit | poll (default none)")
      ->check(CLI::IsMember({"none", "explicit", "poll"}));
  app.add_option("--load-model", f.load_models,
                 "In explicit mode, a model to load at start ('*' for all); repeatable");
  app.add_option("--repository-poll-secs", f.repository_poll_secs,
                 "In poll mode, seconds between repository scans (default 15)");
  app.add_option("--model-load-thread-count", f.model_load_thread_count,
                 "Models loading in parallel (default 4)");
  app.add_option("--model-namespacing", f.model_namespacing,
                 "Let several repositories hold models of the same name, each repository "
                 "its own namespace (default false)");
  app.add_option("--model-load-retry-count", f.model_load_retry_count,
                 "Further attempts at a model version whose load fails (default 0)")
      ->check(CLI::Range(0, 1000));
  app.add_option("--model-config-name", f.model_config_name,
                 "Read <model folder>/configs/<name>.pbtxt where it exists, else config.pbtxt");
  app.add_option("--buffer-manager-thread-count", f.buffer_manager_thread_count,
                 "Threads that split large batch input/output copies of backends (default 0: "
                 "none)")
      ->check(CLI::Range(0, 1024));
  app.add_option("--model-transition-policy", f.model_transition_policy,
                 "availability (load new, then retire old; default) | resource (retire old first)")
      ->check(CLI::IsMember({"availability", "resource"}));
  app.add_option("--host-policy", f.host_policies,
                 "<name>,<setting>=<value>: numa-node=<id> or cpu-cores=<cpu>[-<cpu>] for the "
                 "instances whose instance_group names the policy (default names: cpu, model); "
                 "repeatable");
  app.add_option("--rate-limit", f.rate_limit,
                 "off (default: instances execute as soon as they are free) | execution_count "
                 "(instances that list rate_limiter resources wait for them)")
      ->check(CLI::IsMember({"off", "execution_count"}));
  app.add_option("--rate-limit-resource", f.rate_limit_resources,
                 "<name>:<count>[:<device>]: copies of a rate limiter resource on one device, or "
                 "without a device on every device and in the global pool; repeatable");
  app.add_option("--model-memory-budget", f.model_memory_budget,
                 "<bytes>[K|M|G|Ki|Mi|Gi] or <percent>% of the memory limit: models load on "
                 "their first request and least recently used idle ones are unloaded to stay "
                 "within it (not a Triton flag; default: none, docs/memory-budget.md)");
  app.add_option("--model-load-wait-timeout-ms", f.model_load_wait_timeout_ms,
                 "With --model-memory-budget, how long a request waits for its model to load "
                 "before 503 / UNAVAILABLE (default 60000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{86'400'000}));
  app.add_option("--model-memory-pin", f.model_memory_pins,
                 "With --model-memory-budget, a model loaded at start and never evicted; "
                 "repeatable");
}

void AddMetricsAndCacheFlags(CLI::App& app, Flags& f) {
  app.add_option("--allow-metrics", f.allow_metrics, "Serve Prometheus metrics (default true)");
  app.add_option("--metrics-address", f.metrics_address,
                 "Address the metrics server binds (default 0.0.0.0)");
  app.add_option("--metrics-port", f.metrics_port,
                 "Port of GET /metrics (default 8002; 0 picks a free port)");
  app.add_option("--id", f.id, "Server identifier reported by server metadata (default triton)");
  app.add_option("--allow-cpu-metrics", f.allow_cpu_metrics,
                 "Report CPU utilization and memory on /metrics; needs --allow-metrics "
                 "(default true)");
  app.add_option("--metrics-interval-ms", f.metrics_interval_ms,
                 "Milliseconds between samples of the per-interval (CPU) metrics (default 2000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{86'400'000}));
  app.add_option("--metrics-config", f.metrics_configs,
                 "Metrics setting as <setting>=<value>: counter_latencies=true|false, "
                 "summary_latencies=true|false, summary_quantiles=<q>:<error>,..., "
                 "histogram_latencies=true|false; repeatable");
  app.add_option("--cache-config", f.cache_configs,
                 "Response cache setting as <cache>,<setting>=<value>: local,size=<bytes> enables "
                 "the in-memory cache that models with response_cache { enable: true } use; "
                 "repeatable");
  app.add_option("--response-cache-byte-size", f.response_cache_byte_size,
                 "Deprecated form of --cache-config local,size=<bytes> (0: no cache)")
      ->check(CLI::Range(int64_t{0}, INT64_MAX));
  app.add_option("--cache-directory", f.cache_directory,
                 "Triton's folder of cache implementations; accepted, but only the built-in "
                 "'local' cache exists (default /opt/tritonserver/caches)");
}

void AddGrpcFlags(CLI::App& app, Flags& f) {
  using grpc_frontend::CompressionLevel;
  grpc_frontend::GrpcOptions& g = f.grpc;
  app.add_option("--allow-grpc", f.allow_grpc, "Serve gRPC (default true)");
  app.add_option("--grpc-address", g.address, "Address the gRPC server binds (default 0.0.0.0)");
  app.add_option("--grpc-port", g.port, "gRPC port (default 8001; 0 picks a free port)");
  app.add_option("--grpc-load-on-first-connection", f.grpc_load_on_first_connection,
                 "Load gRPC's libraries when the first gRPC client connects, not at start "
                 "(not with TLS or --reuse-grpc-port; default true)");
  app.add_option("--reuse-grpc-port", g.reuse_port,
                 "Let several servers listen on the gRPC port, each started with this flag "
                 "(SO_REUSEPORT; default false)");
  app.add_option("--grpc-header-forward-pattern", g.header_forward_pattern,
                 "Regular expression (RE2, case-insensitive, matched anywhere in the key): "
                 "gRPC metadata of infer calls whose key matches becomes request parameters");
  AddRestrictionFlag(app, "--grpc-restricted-protocol", ApiRestrictions::kGrpcHeaderPrefix,
                     g.restrictions,
                     "<category>[,<category>...]:<key>=<value>: those RPC categories answer only "
                     "calls with metadata triton-grpc-protocol-<key>: <value> (UNAVAILABLE "
                     "otherwise); repeatable; categories as --http-restricted-api's");
  app.add_option("--grpc-use-ssl", g.use_ssl, "Serve gRPC over TLS (default false)");
  app.add_option("--grpc-use-ssl-mutual", g.use_mutual_ssl,
                 "Serve gRPC over mutual TLS: clients need a certificate (default false)");
  app.add_option("--grpc-server-cert", g.server_cert, "PEM file: the server certificate chain");
  app.add_option("--grpc-server-key", g.server_key, "PEM file: the server private key");
  app.add_option("--grpc-root-cert", g.root_cert,
                 "PEM file: the CA that signs client certificates");
  app.add_option("--grpc-infer-response-compression-level", g.infer_response_compression,
                 "Compression of infer responses: none, low, medium or high (default none)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, CompressionLevel>{{"none", CompressionLevel::kNone},
                                                  {"low", CompressionLevel::kLow},
                                                  {"medium", CompressionLevel::kMedium},
                                                  {"high", CompressionLevel::kHigh}},
          CLI::ignore_case));
  app.add_option("--grpc-keepalive-time", g.keepalive_time_ms,
                 "Milliseconds between keepalive pings (default 7200000)");
  app.add_option("--grpc-keepalive-timeout", g.keepalive_timeout_ms,
                 "Milliseconds to wait for a keepalive ping's answer (default 20000)");
  app.add_option("--grpc-keepalive-permit-without-calls", g.keepalive_permit_without_calls,
                 "Allow keepalive pings without calls in flight (default false)");
  app.add_option("--grpc-http2-max-pings-without-data", g.http2_max_pings_without_data,
                 "Pings sent without data before pings stop; 0 = no limit (default 2)");
  app.add_option("--grpc-http2-min-recv-ping-interval-without-data",
                 g.http2_min_recv_ping_interval_without_data_ms,
                 "Minimum milliseconds between a client's pings without data (default 300000)");
  app.add_option("--grpc-http2-max-ping-strikes", g.http2_max_ping_strikes,
                 "Bad pings tolerated before the connection is closed; 0 = any (default 2)");
  app.add_option("--grpc-max-connection-age", g.max_connection_age_ms,
                 "Milliseconds a connection may live before the server sends GOAWAY "
                 "(default 0: no limit)")
      ->check(CLI::Range(0, INT_MAX));
  app.add_option("--grpc-max-connection-age-grace", g.max_connection_age_grace_ms,
                 "Milliseconds calls may go on after that GOAWAY before the connection is "
                 "closed (default 0: no limit)")
      ->check(CLI::Range(0, INT_MAX));
}

// A timeout flag in whole seconds (0: none).
void AddSecondsFlag(CLI::App& app, const std::string& name, std::chrono::seconds* out,
                    const std::string& help) {
  app.add_option_function<int64_t>(
         name, [out](int64_t secs) { *out = std::chrono::seconds(secs); },
         help + " (default " + std::to_string(out->count()) + "; 0: no timeout)")
      ->check(CLI::Range(int64_t{0}, int64_t{86'400'000}));
}

// The limits of docs/limits.md: request sizes, connections, timeouts, in-flight requests.
void AddLimitFlags(CLI::App& app, Flags& f) {
  http::HttpLimits& h = f.http_limits;
  app.add_option("--http-max-input-size", h.max_body_bytes,
                 "Largest HTTP request body in bytes, also after decompression; larger ones "
                 "get 413 (default 67108864)")
      ->check(CLI::Range(size_t{1}, SIZE_MAX));
  app.add_option("--http-max-header-size", h.max_header_bytes,
                 "Largest HTTP request line and headers in bytes; larger ones get 431 "
                 "(default 16384)")
      ->check(CLI::Range(size_t{256}, size_t{UINT32_MAX}));
  app.add_option("--http-max-connections", h.max_connections,
                 "HTTP connections open at once; more are answered 503 and closed "
                 "(default 1024; 0: no limit)");
  AddSecondsFlag(app, "--http-idle-timeout-secs", &h.idle_timeout,
                 "Seconds an HTTP connection may wait for a request, or for the rest of its "
                 "request line and headers, before it is closed");
  AddSecondsFlag(app, "--http-body-timeout-secs", &h.body_timeout,
                 "Seconds an HTTP request body may take to arrive before the connection is "
                 "closed");
  AddSecondsFlag(app, "--http-write-timeout-secs", &h.write_timeout,
                 "Seconds writing one HTTP response (or stream event) may take before the "
                 "connection of a client that does not read is closed");
  grpc_frontend::GrpcOptions& g = f.grpc;
  app.add_option("--grpc-max-input-size", g.max_input_size,
                 "Largest gRPC request message in bytes; larger ones fail RESOURCE_EXHAUSTED "
                 "(default 2147483647, Triton's)")
      ->check(CLI::Range(1, INT_MAX));
  app.add_option("--grpc-max-concurrent-streams", g.max_concurrent_streams,
                 "gRPC calls one connection may have open at once (default 0: no limit)")
      ->check(CLI::Range(0, INT_MAX));
  app.add_option("--grpc-thread-count", g.thread_count,
                 "gRPC completion queues, each polled by a thread of its own (default 1: "
                 "one wake-up a call; more serve more calls at saturation on many cores)")
      ->check(CLI::Range(1, 256));
  app.add_option("--grpc-memory-quota", g.memory_quota_bytes,
                 "Bytes gRPC's buffers may use in all; past it gRPC stops reading from "
                 "clients until memory frees (default 0: no quota)")
      ->check(CLI::Range(int64_t{0}, INT64_MAX));
  app.add_option("--model-max-inflight-requests", f.model_max_inflight_requests,
                 "Client requests one model may have queued or executing; more get 503 / "
                 "UNAVAILABLE at once (default 1024; 0: no limit). Models whose dynamic "
                 "batcher sets max_queue_size on every queue follow that instead");
  app.add_option("--admission-control", f.admission_control,
                 "Admission control (docs/admission-control.md): refuse a request whose "
                 "expected queue time exceeds its timeout, and answer every refusal 429 / "
                 "RESOURCE_EXHAUSTED with Retry-After (default false)");
  app.add_option("--admission-queue-target-ms", f.admission_queue_target_ms,
                 "Refuse requests whose expected queue time exceeds this many milliseconds; "
                 "turns admission control on (default 0: no target)");
  app.add_option("--max-inflight-requests", f.max_inflight_requests,
                 "Client requests all models together may have queued or executing; more get "
                 "429 / RESOURCE_EXHAUSTED (default 0: no limit)");
  app.add_option("--max-queued-requests", f.max_queued_requests,
                 "Client requests all models together may have waiting for an instance; more "
                 "get 429 / RESOURCE_EXHAUSTED (default 0: no limit)");
}

void AddTraceFlags(CLI::App& app, Flags& f) {
  app.add_option("--trace-config", f.trace_configs,
                 "Trace setting as [<mode>,]<setting>=<value>: level (OFF or TIMESTAMPS), "
                 "rate, count, mode (triton or opentelemetry); triton,file / log-frequency; "
                 "opentelemetry,url / resource / bsp_max_queue_size / bsp_schedule_delay / "
                 "bsp_max_export_batch_size; repeatable");
  // Triton's older flags, one setting each.
  const std::pair<const char*, const char*> older[] = {
      {"--trace-file", "file"},   {"--trace-level", "level"},
      {"--trace-rate", "rate"},   {"--trace-count", "count"},
      {"--trace-log-frequency", "log-frequency"}};
  for (const auto& [flag, setting] : older) {
    const std::string name = setting;
    app.add_option_function<std::vector<std::string>>(
        flag,
        [&f, name](const std::vector<std::string>& values) {
          for (const std::string& value : values) f.trace_flags.emplace_back(name, value);
        },
        std::string("Same as --trace-config ") + setting + "=<value> (deprecated in Triton)");
  }
}

// The flags in sections, in the order --help lists them.
using AddFlagSection = void (*)(CLI::App& app, Flags& flags);
constexpr AddFlagSection kFlagSections[] = {
    AddRepositoryAndHttpFlags,
    AddLogAndExitFlags,
    AddModelFlags,
    AddMetricsAndCacheFlags,
    AddGrpcFlags,
    AddLimitFlags,
    AddTraceFlags,
    [](CLI::App& app, Flags& f) { AddCloudFlags(app, f.cloud); },
    [](CLI::App& app, Flags& f) { AddInertFlags(app, &f.inert_flags_given); },
};

constexpr const char* kAbout =
    "inferd: a model-inference server for Triton-style model repositories";

}  // namespace

void AddServerFlags(CLI::App& app, Flags& flags) {
  for (AddFlagSection add : kFlagSections) add(app, flags);
}

std::optional<int> ParseServerFlags(int argc, char** argv, Flags& flags) {
  // CLI11 (2.1) checks each new option's names against every option already
  // in its App, copying name lists as it goes: for the ~100 flags in one App
  // that was a third of the instructions of a start to ready. So the parse
  // uses an option group per section (CLI11 parses a nameless group's options
  // as its App's own, in the same order; each checks only its own names),
  // and --help prints the one flat App that lists them, built only then.
  CLI::App app{kAbout};
  for (AddFlagSection add : kFlagSections) {
    CLI::App* section = app.add_option_group("");
    section->set_help_flag();  // -h and --help stay the App's own
    add(*section, flags);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& help) {
    CLI::App listing{kAbout};
    Flags unused;
    AddServerFlags(listing, unused);
    listing.name(app.get_name());
    return listing.exit(help);
  } catch (const CLI::ParseError& error) {
    return app.exit(error);
  }
  return std::nullopt;
}

bool CheckFrontendFlags(const Flags& f) {
  const std::pair<const char*, const std::string*> patterns[] = {
      {"--http-header-forward-pattern", &f.http_header_forward_pattern},
      {"--grpc-header-forward-pattern", &f.grpc.header_forward_pattern}};
  for (const auto& [flag, pattern] : patterns) {
    if (pattern->empty()) continue;
    auto forwarder = HeaderForwarder::Create(*pattern, flag);
    if (!forwarder.ok()) {
      std::fprintf(stderr, "error: %s\n", forwarder.status().message().c_str());
      return false;
    }
  }
  return true;
}

int ExitGraceSeconds(const Flags& flags) {
  if (flags.exit_grace_secs >= 0) return flags.exit_grace_secs;
  const char* kubernetes = std::getenv("KUBERNETES_SERVICE_HOST");
  return kubernetes != nullptr && *kubernetes != '\0' ? kKubernetesExitGraceSecs : 0;
}

std::vector<std::string> FlagWarnings(const Flags& f) {
  std::vector<std::string> warnings;
  if (f.strict_model_config_given) {
    warnings.push_back("'--strict-model-config' is deprecated; use "
                       "'--disable-auto-complete-config' instead");
    if (f.disable_auto_complete_config && !f.strict_model_config) {
      warnings.push_back("'--strict-model-config=false' is overridden: "
                         "'--disable-auto-complete-config' is given, so model configurations "
                         "are not auto-completed");
    }
  }
  if (f.response_cache_byte_size >= 0) {
    warnings.push_back("'--response-cache-byte-size' is deprecated; use '--cache-config=local,size=" +
                       std::to_string(f.response_cache_byte_size) + "' instead");
  }
  return warnings;
}

}  // namespace inferd
