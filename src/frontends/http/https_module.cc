// The entry point of libinferd_https_frontend.so.
#include "http/https_module.h"

#include <spdlog/spdlog.h>

#include <utility>

namespace inferd::http {
namespace {

Frontend* New(INFERD_Server* server, const HttpOptions& options,
              std::shared_ptr<spdlog::logger> log) {
  spdlog::set_default_logger(std::move(log));
  return new HttpServer(server, options);
}

// The signature the binary casts the looked-up symbol to.
[[maybe_unused]] constexpr NewHttpsFrontendFn kNewChecked = New;

}  // namespace
}  // namespace inferd::http

extern "C" __attribute__((visibility("default"))) inferd::Frontend* InferdHttpsFrontendNew(
    INFERD_Server* server, const inferd::http::HttpOptions& options,
    std::shared_ptr<spdlog::logger> log) {
  return inferd::http::New(server, options, std::move(log));
}
