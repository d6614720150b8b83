// Path matching for the KServe v2 REST endpoints.
#include "http/router.h"

#include <array>
#include <charconv>
#include <span>

namespace inferd::http {
namespace {

constexpr size_t kMaxSegments = 8;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

using Segments = std::span<const std::string_view>;

// Splits "/v2/models/m/infer" into {"v2","models","m","infer"} and returns the
// count; 0 when the path has too many segments to be one of ours. An empty
// segment is kept, so "/v2/models//ready" matches nothing.
size_t SplitPath(std::string_view path, std::array<std::string_view, kMaxSegments>* segments) {
  if (path.empty() || path.front() != '/') return 0;
  path.remove_prefix(1);
  if (!path.empty() && path.back() == '/') path.remove_suffix(1);
  for (size_t count = 0; count < kMaxSegments; ++count) {
    const size_t slash = path.find('/');
    (*segments)[count] = path.substr(0, slash);
    if (slash == std::string_view::npos) return count + 1;
    path.remove_prefix(slash + 1);
  }
  return 0;
}

// 405: the path is known, the method is not one it answers.
HttpError MethodNotAllowed(std::string_view allowed) {
  return HttpError(405, Status::Unsupported("method not allowed; use " + std::string(allowed)));
}

HttpError Found(Method method, Method wanted, Endpoint endpoint, Route* route) {
  if (method != wanted) return MethodNotAllowed(wanted == Method::kGet ? "GET" : "POST");
  route->endpoint = endpoint;
  return Status::Ok();
}

HttpError NotSupported(std::string_view feature, Route* route) {
  route->endpoint = Endpoint::kNotSupported;
  route->feature = feature;
  return Status::Ok();
}

HttpError NotFound() { return Status::NotFound("Not Found"); }

// .../trace/setting answers GET (read) and POST (update).
HttpError TraceSetting(Method method, Route* route) {
  if (method == Method::kOther) return MethodNotAllowed("GET or POST");
  route->endpoint =
      method == Method::kGet ? Endpoint::kTraceSettingGet : Endpoint::kTraceSettingPost;
  return Status::Ok();
}

// /v2/models/{m}[/versions/{v}][/action]; `rest` starts after "models".
HttpError MatchModel(Method method, Segments rest, Route* route) {
  if (rest.empty() || rest[0].empty()) return NotFound();
  if (rest.size() == 1 && rest[0] == "stats") {
    return Found(method, Method::kGet, Endpoint::kModelStats, route);
  }
  std::optional<std::string> model = UrlDecode(rest[0]);
  if (!model) return Status::InvalidArg("malformed URL escape in model name '" +
                                        std::string(rest[0]) + "'");
  route->model = std::move(*model);
  size_t next = 1;
  if (rest.size() >= 3 && rest[1] == "versions") {
    const std::string_view text = rest[2];
    int64_t version = -1;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || version < 0) {
      return Status::InvalidArg("invalid version '" + std::string(text) + "' of model '" +
                                route->model + "': expected a non-negative integer");
    }
    route->model_version = version;
    next = 3;
  }
  if (next == rest.size()) return Found(method, Method::kGet, Endpoint::kModelMetadata, route);
  if (next == 1 && rest.size() == 3 && rest[1] == "trace" && rest[2] == "setting") {
    return TraceSetting(method, route);
  }
  if (next + 1 != rest.size()) return NotFound();
  const std::string_view action = rest[next];
  if (action == "ready") return Found(method, Method::kGet, Endpoint::kModelReady, route);
  if (action == "config") return Found(method, Method::kGet, Endpoint::kModelConfig, route);
  if (action == "infer") return Found(method, Method::kPost, Endpoint::kModelInfer, route);
  if (action == "generate") return Found(method, Method::kPost, Endpoint::kModelGenerate, route);
  if (action == "generate_stream") {
    return Found(method, Method::kPost, Endpoint::kModelGenerateStream, route);
  }
  if (action == "stats") return Found(method, Method::kGet, Endpoint::kModelStats, route);
  return NotFound();
}

// /v2/systemsharedmemory[/region/{r}]/{status|register|unregister}; `rest`
// starts after "systemsharedmemory".
HttpError MatchSharedMemory(Method method, Segments rest, Route* route) {
  if (rest.size() == 3 && rest[0] == "region") {
    std::optional<std::string> region = UrlDecode(rest[1]);
    if (!region || region->empty()) {
      return Status::InvalidArg("malformed shared memory region name '" + std::string(rest[1]) +
                                "'");
    }
    route->region = std::move(*region);
    rest = rest.subspan(2);
  }
  if (rest.size() != 1) return NotFound();
  if (rest[0] == "status") return Found(method, Method::kGet, Endpoint::kSharedMemoryStatus, route);
  if (rest[0] == "unregister") {
    return Found(method, Method::kPost, Endpoint::kSharedMemoryUnregister, route);
  }
  if (rest[0] == "register" && !route->region.empty()) {
    return Found(method, Method::kPost, Endpoint::kSharedMemoryRegister, route);
  }
  return NotFound();
}

}  // namespace

std::optional<std::string> UrlDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int high = HexValue(text[i + 1]);
    const int low = HexValue(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    out.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  return out;
}

HttpError MatchRoute(Method method, std::string_view target, Route* route) {
  *route = Route();
  const std::string_view path = target.substr(0, target.find('?'));
  std::array<std::string_view, kMaxSegments> segments;
  const size_t n = SplitPath(path, &segments);
  if (n == 1 && segments[0] == "metrics") {
    return Found(method, Method::kGet, Endpoint::kMetrics, route);
  }
  if (n == 0 || segments[0] != "v2") return NotFound();
  if (n == 1) return Found(method, Method::kGet, Endpoint::kServerMetadata, route);
  const std::string_view group = segments[1];
  if (group == "health" && n == 3) {
    if (segments[2] == "live") return Found(method, Method::kGet, Endpoint::kHealthLive, route);
    if (segments[2] == "ready") return Found(method, Method::kGet, Endpoint::kHealthReady, route);
    return NotFound();
  }
  if (group == "models") {
    return MatchModel(method, Segments(segments.data() + 2, n - 2), route);
  }
  if (group == "repository") {
    if (n == 3 && segments[2] == "index") {
      return Found(method, Method::kPost, Endpoint::kRepositoryIndex, route);
    }
    if (n == 5 && segments[2] == "models" && (segments[4] == "load" || segments[4] == "unload")) {
      std::optional<std::string> model = UrlDecode(segments[3]);
      if (!model || model->empty()) {
        return Status::InvalidArg("malformed model name '" + std::string(segments[3]) + "'");
      }
      route->model = std::move(*model);
      return Found(method, Method::kPost,
                   segments[4] == "load" ? Endpoint::kRepositoryLoad : Endpoint::kRepositoryUnload,
                   route);
    }
    return NotFound();
  }
  if (group == "systemsharedmemory") {
    return MatchSharedMemory(method, Segments(segments.data() + 2, n - 2), route);
  }
  if (group == "cudasharedmemory") {
    return NotSupported("CUDA shared memory (this server is built without CUDA)", route);
  }
  if (group == "trace") {
    if (n == 3 && segments[2] == "setting") return TraceSetting(method, route);
    return NotFound();
  }
  if (group == "logging" && n == 2) {
    // One path, two methods: GET reads the settings, POST changes them.
    if (method == Method::kOther) return MethodNotAllowed("GET or POST");
    route->endpoint = method == Method::kGet ? Endpoint::kLogSettings : Endpoint::kLogSettingsUpdate;
    return Status::Ok();
  }
  return NotFound();
}

HttpError MatchOpenAiRoute(Method method, std::string_view target, Route* route) {
  *route = Route();
  const std::string_view path = target.substr(0, target.find('?'));
  std::array<std::string_view, kMaxSegments> segments;
  const size_t n = SplitPath(path, &segments);
  if (n < 2 || segments[0] != "v1") return NotFound();
  if (segments[1] == "models" && n == 2) {
    return Found(method, Method::kGet, Endpoint::kOpenAiModels, route);
  }
  if (segments[1] == "models" && n == 3) {
    std::optional<std::string> model = UrlDecode(segments[2]);
    if (!model || model->empty()) {
      return Status::InvalidArg("malformed model name '" + std::string(segments[2]) + "'");
    }
    route->model = std::move(*model);
    return Found(method, Method::kGet, Endpoint::kOpenAiModel, route);
  }
  if (segments[1] == "completions" && n == 2) {
    return Found(method, Method::kPost, Endpoint::kOpenAiCompletions, route);
  }
  if (segments[1] == "chat" && n == 3 && segments[2] == "completions") {
    return Found(method, Method::kPost, Endpoint::kOpenAiChatCompletions, route);
  }
  if (segments[1] == "embeddings" && n == 2) {
    return Found(method, Method::kPost, Endpoint::kOpenAiEmbeddings, route);
  }
  return NotFound();
}

HttpError MatchDashboardRoute(Method method, std::string_view target, Route* route) {
  *route = Route();
  const std::string_view path = target.substr(0, target.find('?'));
  std::array<std::string_view, kMaxSegments> segments;
  const size_t n = SplitPath(path, &segments);
  if (n == 0 || n > 2 || segments[0] != "dashboard") return NotFound();
  if (n == 1) return Found(method, Method::kGet, Endpoint::kDashboardPage, route);
  if (segments[1] == "data") return Found(method, Method::kGet, Endpoint::kDashboardData, route);
  if (segments[1].empty()) return NotFound();
  route->file = std::string(segments[1]);  // the session answers 404 for a name it lacks
  return Found(method, Method::kGet, Endpoint::kDashboardFile, route);
}

}  // namespace inferd::http
