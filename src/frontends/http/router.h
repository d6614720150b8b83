// Maps an HTTP method and request target onto a KServe v2 endpoint, with the
// model name (URL-decoded) and version it names. Pure; thread-safe.
#ifndef INFERD_FRONTENDS_HTTP_ROUTER_H_
#define INFERD_FRONTENDS_HTTP_ROUTER_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "http/http_errors.h"

namespace inferd::http {

enum class Method { kGet, kPost, kOther };

enum class Endpoint {
  kHealthLive,       // GET  /v2/health/live
  kHealthReady,      // GET  /v2/health/ready
  kServerMetadata,   // GET  /v2
  kModelMetadata,    // GET  /v2/models/{m}[/versions/{v}]
  kModelReady,       // GET  .../ready
  kModelConfig,      // GET  .../config
  kModelInfer,       // POST .../infer
  kModelGenerate,        // POST .../generate (the generate extension: one JSON answer)
  kModelGenerateStream,  // POST .../generate_stream (one Server-Sent Event per response)
  kRepositoryIndex,  // POST /v2/repository/index
  kRepositoryLoad,   // POST /v2/repository/models/{m}/load
  kRepositoryUnload, // POST /v2/repository/models/{m}/unload
  kModelStats,       // GET  /v2/models[/{m}[/versions/{v}]]/stats
  kLogSettings,      // GET  /v2/logging
  kLogSettingsUpdate,// POST /v2/logging
  kMetrics,          // GET  /metrics (the metrics port only)
  kSharedMemoryStatus,      // GET  /v2/systemsharedmemory[/region/{r}]/status
  kSharedMemoryRegister,    // POST /v2/systemsharedmemory/region/{r}/register
  kSharedMemoryUnregister,  // POST /v2/systemsharedmemory[/region/{r}]/unregister
  kTraceSettingGet,         // GET  /v2[/models/{m}]/trace/setting
  kTraceSettingPost,        // POST /v2[/models/{m}]/trace/setting
  // The OpenAI-compatible API (http/openai/, docs/openai-api.md), when on.
  kOpenAiModels,           // GET  /v1/models
  kOpenAiModel,            // GET  /v1/models/{m}
  kOpenAiCompletions,      // POST /v1/completions
  kOpenAiChatCompletions,  // POST /v1/chat/completions
  kOpenAiEmbeddings,       // POST /v1/embeddings
  // The dashboard (http/dashboard/, docs/dashboard.md), when on.
  kDashboardPage,  // GET  /dashboard
  kDashboardData,  // GET  /dashboard/data
  kDashboardFile,  // GET  /dashboard/{file} (the page's scripts and styles)
  kNotSupported,     // a Triton endpoint inferd does not offer yet (stats, shared memory, ...)
};

struct Route {
  Endpoint endpoint = Endpoint::kHealthLive;
  std::string model;           // URL-decoded; empty for server endpoints
  int64_t model_version = -1;  // -1 when the path names no version
  std::string_view feature;    // for kNotSupported: what the path asks for
  std::string region;          // shared memory endpoints: URL-decoded; empty = every region
  std::string file;            // kDashboardFile: the file's name
};

inline bool IsOpenAiEndpoint(Endpoint endpoint) {
  return endpoint >= Endpoint::kOpenAiModels && endpoint <= Endpoint::kOpenAiEmbeddings;
}

inline bool IsDashboardEndpoint(Endpoint endpoint) {
  return endpoint >= Endpoint::kDashboardPage && endpoint <= Endpoint::kDashboardFile;
}

inline bool IsSharedMemoryEndpoint(Endpoint endpoint) {
  return endpoint == Endpoint::kSharedMemoryStatus || endpoint == Endpoint::kSharedMemoryRegister ||
         endpoint == Endpoint::kSharedMemoryUnregister;
}

// The route for `method` and `target` (path plus optional query, which is
// ignored). An unknown path gives NOT_FOUND (404), a known path with another
// method 405, a malformed version or escape INVALID_ARG (400).
HttpError MatchRoute(Method method, std::string_view target, Route* route);

// The OpenAI API's paths (/v1/...), in the same way; NOT_FOUND for any other.
HttpError MatchOpenAiRoute(Method method, std::string_view target, Route* route);

// The dashboard's paths (/dashboard, /dashboard/data, /dashboard/{file}) in
// the same way; NOT_FOUND for any other.
HttpError MatchDashboardRoute(Method method, std::string_view target, Route* route);

// Decodes %XX escapes; '+' stays '+' (paths are not form-encoded). Returns
// nullopt for a truncated or non-hex escape.
std::optional<std::string> UrlDecode(std::string_view text);

}  // namespace inferd::http

#endif  // INFERD_FRONTENDS_HTTP_ROUTER_H_
