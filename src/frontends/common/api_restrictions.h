// Triton's --http-restricted-api and --grpc-restricted-protocol: groups of
// endpoint categories that answer only requests carrying a header (gRPC:
// metadata) with a given value, so that e.g. repository control and shared
// memory can be kept to administrators while inference stays open.
//
// A flag value is `<category>[,<category>...]:<key>=<value>`; the flag may be
// given several times, one group each, and a category may be in one group
// only. The header is `<key>` over HTTP and `triton-grpc-protocol-<key>` over
// gRPC (as Triton). A refused request gets 403 over HTTP and UNAVAILABLE over
// gRPC, saying which header is expected. Immutable once built; thread-safe.
#ifndef INFERD_FRONTENDS_COMMON_API_RESTRICTIONS_H_
#define INFERD_FRONTENDS_COMMON_API_RESTRICTIONS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "inferd/base/status.h"

namespace inferd {

// Triton's endpoint categories, in Triton's order. kUnrestricted marks what
// no flag can close (the metrics endpoint).
enum class ApiCategory : uint8_t {
  kHealth,
  kMetadata,
  kInference,
  kSharedMemory,
  kModelConfig,
  kModelRepository,
  kStatistics,
  kTrace,
  kLogging,
  kUnrestricted,
};
inline constexpr size_t kApiCategoryCount = static_cast<size_t>(ApiCategory::kUnrestricted);

// The flag spelling of a category ("model-repository"); "" for kUnrestricted.
std::string_view ApiCategoryName(ApiCategory category);
// The category a flag names; nullopt when none has that name.
std::optional<ApiCategory> ApiCategoryFromName(std::string_view name);

// The header (name and value) a restricted category requires.
struct ApiRestriction {
  std::string header;
  std::string value;
};

class ApiRestrictions {
 public:
  // The gRPC metadata key is this prefix and the flag's key (Triton's).
  static constexpr std::string_view kGrpcHeaderPrefix = "triton-grpc-protocol-";

  // Adds the group one flag value declares; `flag` (e.g.
  // "--http-restricted-api") names it in errors, `header_prefix` goes before
  // the key. INVALID_ARG, changing nothing, for a value not in the
  // `<categories>:<key>=<value>` form, an unknown category or one already
  // restricted.
  Status AddGroup(std::string_view flag, std::string_view flag_value,
                  std::string_view header_prefix = {});

  // No category is restricted: requests need no check at all.
  bool empty() const { return !any_; }

  // What `category` requires; null when it is open.
  const ApiRestriction* Find(ApiCategory category) const {
    if (category == ApiCategory::kUnrestricted) return nullptr;
    const auto& found = restrictions_[static_cast<size_t>(category)];
    return found ? &*found : nullptr;
  }

  // The error a request without the right header gets, naming the header.
  static std::string RefusalMessage(const ApiRestriction& restriction, bool grpc);

 private:
  bool any_ = false;
  std::array<std::optional<ApiRestriction>, kApiCategoryCount> restrictions_;
};

}  // namespace inferd

#endif  // INFERD_FRONTENDS_COMMON_API_RESTRICTIONS_H_
