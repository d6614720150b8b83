// Parsing the string model version of gRPC requests.
#include "grpc/version_string.h"

#include <charconv>

namespace inferd::grpc_frontend {

Status ParseModelVersion(const std::string& model_name, const std::string& version,
                         int64_t* out) {
  if (version.empty()) {
    *out = -1;
    return Status::Ok();
  }
  int64_t value = -1;
  const char* end = version.data() + version.size();
  const auto [stop, error] = std::from_chars(version.data(), end, value);
  if (error != std::errc() || stop != end || value < 0) {
    return Status::InvalidArg("model '" + model_name + "': version '" + version +
                              "' is not a non-negative integer");
  }
  *out = value;
  return Status::Ok();
}

}  // namespace inferd::grpc_frontend
