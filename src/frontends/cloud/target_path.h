// Small helpers the cloud route maps share. Thread-safe (pure).
#ifndef INFERD_FRONTENDS_CLOUD_TARGET_PATH_H_
#define INFERD_FRONTENDS_CLOUD_TARGET_PATH_H_

#include <string>
#include <string_view>

#include "http/http_errors.h"

namespace inferd::cloud {

// A request target without its query ("/ping?x=1" -> "/ping").
inline std::string_view TargetPath(std::string_view target) {
  return target.substr(0, target.find('?'));
}

// 405 for `path`, which answers only `allowed`.
inline http::HttpError MethodNotAllowed(std::string_view allowed, std::string_view path) {
  return http::HttpError(405, Status::Unsupported("method not allowed on " + std::string(path) +
                                                  "; use " + std::string(allowed)));
}

}  // namespace inferd::cloud

#endif  // INFERD_FRONTENDS_CLOUD_TARGET_PATH_H_
