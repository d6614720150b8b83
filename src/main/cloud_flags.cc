// The SageMaker and Vertex AI flags, their environment, and Triton's port checks.
#include "cloud_flags.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <utility>

namespace inferd {
namespace {

// The value of environment variable `name`; empty when unset.
std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

bool ParseInt(std::string_view text, int* value) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return !text.empty() && ec == std::errc() && ptr == end;
}

// Reads integer variable `name` into *value when it is set.
bool ReadIntEnv(const char* name, int* value) {
  const std::string text = Env(name);
  if (text.empty()) return true;
  if (!ParseInt(text, value)) {
    std::fprintf(stderr, "error: environment variable %s='%s' is not an integer\n", name,
                 text.c_str());
    return false;
  }
  return true;
}

// "<lo>-<hi>" -> {lo, hi}; false when it is not that.
bool ParseRange(const std::string& text, int* lo, int* hi) {
  const size_t dash = text.find('-');
  if (dash == std::string::npos) return false;
  return ParseInt(std::string_view(text).substr(0, dash), lo) &&
         ParseInt(std::string_view(text).substr(dash + 1), hi) && *lo <= *hi;
}

}  // namespace

bool ReadCloudEnvironment(CloudFlags& f) {
  bool ok = ReadIntEnv("SAGEMAKER_BIND_TO_PORT", &f.sagemaker_port) &&
            ReadIntEnv("SAGEMAKER_TRITON_THREAD_COUNT", &f.sagemaker_thread_count) &&
            ReadIntEnv("AIP_HTTP_PORT", &f.vertex_ai_port);
  f.sagemaker_safe_port_range = Env("SAGEMAKER_SAFE_PORT_RANGE");
  f.sagemaker_default_model = Env("SAGEMAKER_TRITON_DEFAULT_MODEL_NAME");
  // The launch script lets the OVERRIDE variable win.
  std::string ping_mode = Env("SAGEMAKER_TRITON_OVERRIDE_PING_MODE");
  if (ping_mode.empty()) ping_mode = Env("SAGEMAKER_TRITON_PING_MODE");
  if (!ping_mode.empty()) f.sagemaker_ping_mode = ping_mode;
  if (f.sagemaker_ping_mode != "ready" && f.sagemaker_ping_mode != "live") {
    std::fprintf(stderr, "error: SageMaker ping mode '%s' (SAGEMAKER_TRITON_PING_MODE) must be "
                 "'ready' or 'live'\n", f.sagemaker_ping_mode.c_str());
    ok = false;
  }
  f.sagemaker_multi_model = Env("SAGEMAKER_MULTI_MODEL") == "true";
  f.vertex_ai_prediction_mode = Env("AIP_MODE") == "PREDICTION";
  f.allow_vertex_ai = f.vertex_ai_prediction_mode;
  f.vertex_ai_predict_route = Env("AIP_PREDICT_ROUTE");
  f.vertex_ai_health_route = Env("AIP_HEALTH_ROUTE");
  f.vertex_ai_storage_uri = Env("AIP_STORAGE_URI");
  return ok;
}

void AddCloudFlags(CLI::App& app, CloudFlags& f) {
  app.add_option("--allow-sagemaker", f.allow_sagemaker,
                 "Serve SageMaker's GET /ping and POST /invocations (default false)");
  app.add_option("--sagemaker-port", f.sagemaker_port,
                 "SageMaker port (default $SAGEMAKER_BIND_TO_PORT, else 8080; 0 picks a free port)");
  app.add_option("--sagemaker-safe-port-range", f.sagemaker_safe_port_range,
                 "<lo>-<hi>: the ports the other endpoints may use "
                 "(default $SAGEMAKER_SAFE_PORT_RANGE)");
  app.add_option("--sagemaker-thread-count", f.sagemaker_thread_count,
                 "Threads serving SageMaker requests (default 8)");
  app.add_option("--allow-vertex-ai", f.allow_vertex_ai,
                 "Serve Vertex AI's health and predict routes (default true when "
                 "AIP_MODE=PREDICTION, else false)");
  app.add_option("--vertex-ai-port", f.vertex_ai_port,
                 "Vertex AI port (default $AIP_HTTP_PORT, else 8080; 0 picks a free port)");
  app.add_option("--vertex-ai-thread-count", f.vertex_ai_thread_count,
                 "Threads serving Vertex AI requests (default 8)");
  app.add_option("--vertex-ai-default-model", f.vertex_ai_default_model,
                 "The model a predict request without redirect serves (default: the only "
                 "ready model)");
}

bool CheckCloudFlags(const CloudFlags& f, const std::vector<Listener>& listeners) {
  if (f.allow_sagemaker && f.sagemaker_multi_model) {
    std::fprintf(stderr, "error: SAGEMAKER_MULTI_MODEL=true: SageMaker multi-model endpoints "
                 "(/models) are not supported by inferd; serve one repository instead\n");
    return false;
  }
  for (const auto& [flag, port] : {std::pair{"--sagemaker-port", f.sagemaker_port},
                                    std::pair{"--vertex-ai-port", f.vertex_ai_port}}) {
    if (port < 0 || port > 65535) {
      std::fprintf(stderr, "error: %s %d is not a port (0-65535)\n", flag, port);
      return false;
    }
  }
  int lo = 0, hi = 0;
  const bool ranged = f.allow_sagemaker && !f.sagemaker_safe_port_range.empty();
  if (ranged && !ParseRange(f.sagemaker_safe_port_range, &lo, &hi)) {
    std::fprintf(stderr, "error: --sagemaker-safe-port-range '%s': expected <lo>-<hi>\n",
                 f.sagemaker_safe_port_range.c_str());
    return false;
  }
  for (size_t i = 0; i < listeners.size(); ++i) {
    const Listener& one = listeners[i];
    if (ranged && one.service != "SageMaker" && one.address == "0.0.0.0" &&
        (one.port < lo || one.port > hi)) {
      std::fprintf(stderr, "error: the server cannot listen to %s requests at port %d: "
                   "--sagemaker-safe-port-range allows only [%d, %d] for the endpoints other "
                   "than SageMaker\n", one.service.c_str(), one.port, lo, hi);
      return false;
    }
    for (size_t j = i + 1; j < listeners.size(); ++j) {
      const Listener& other = listeners[j];
      if (one.port != 0 && one.port == other.port && one.address == other.address) {
        std::fprintf(stderr, "error: the server cannot listen to %s requests and %s requests "
                     "at the same address and port %s:%d\n", one.service.c_str(),
                     other.service.c_str(), one.address.c_str(), one.port);
        return false;
      }
    }
  }
  return true;
}

bool AddVertexAiRepository(const CloudFlags& f, std::vector<std::string>& repositories) {
  if (!f.allow_vertex_ai || !repositories.empty() || f.vertex_ai_storage_uri.empty()) return true;
  const std::string& uri = f.vertex_ai_storage_uri;
  // gs:// (what Vertex AI sets), s3:// and as:// are object store repositories,
  // which the server reads as --model-repository URLs (docs/cloud-repositories.md).
  const size_t scheme = uri.find("://");
  const std::string name = scheme == std::string::npos ? "" : uri.substr(0, scheme);
  if (scheme != std::string::npos && name != "gs" && name != "s3" && name != "as") {
    std::fprintf(stderr, "error: AIP_STORAGE_URI '%s': %s:// repositories cannot be read; "
                 "use a gs://, s3:// or as:// URL or a local folder\n", uri.c_str(),
                 name.c_str());
    return false;
  }
  repositories.push_back(uri);
  return true;
}

cloud::SageMakerOptions SageMakerOptionsFrom(const CloudFlags& f) {
  cloud::SageMakerOptions options;
  options.port = static_cast<uint16_t>(f.sagemaker_port);
  options.thread_count = f.sagemaker_thread_count;
  options.default_model = f.sagemaker_default_model;
  options.ping_live = f.sagemaker_ping_mode == "live";
  return options;
}

cloud::VertexAiOptions VertexAiOptionsFrom(const CloudFlags& f) {
  cloud::VertexAiOptions options;
  options.port = static_cast<uint16_t>(f.vertex_ai_port);
  options.thread_count = f.vertex_ai_thread_count;
  options.predict_route = f.vertex_ai_predict_route;
  options.health_route = f.vertex_ai_health_route;
  options.default_model = f.vertex_ai_default_model;
  return options;
}

}  // namespace inferd
